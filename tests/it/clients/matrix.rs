//! The client-library matrix (CL-4): each agent framework and bridge people use, pinned, in
//! its own environment (`scripts/setup.sh`), against a live local stack (fake Kobana + server).
//!
//! One server per library run; every cell runs in order inside it: connect, list with the full
//! and the read-only token, call a tool, read a JSON resource and the 9.9 MB PDF (bytes checked
//! against the fake's document), get every prompt (PR-1…PR-4, text content only, so every
//! library can load them), and a destructive tool: with the library's elicitation handler
//! answering decline then accept where the server's question reaches it (CF-3), else it runs
//! directly (CF-5). The scripts live in `clients/matrix/` and share `harness.{py,mjs}`.
//!
//! The "Connect from your host" document's (`docs/clients.md`) library snippets are these
//! scripts' marked regions verbatim (checked here), and its Claude Desktop entry is parsed from
//! it: its command line is what the `mcp-remote` rows run. The editors' `mcp.json` entries
//! (Cursor, VS Code) are read by `host_clis.rs`, the coding CLIs' snippets run there too.

use crate::common;
use fake_kobana::fixtures::ids::{BA_PADARIA, INV_OPEN, PADARIA};

use std::path::PathBuf;
use std::time::Instant;

use common::{DOC_URL, Stack, clients_doc, doc_snippet, root, run_with_input, succeeded};
use fake_kobana::{DocKind, full_token, readonly_token};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const PDF_SIZE: usize = 9_900_000;

fn matrix_dir() -> PathBuf {
    common::clients_dir().join("matrix")
}

/// The interpreter of one matrix venv (`.venv-matrix-NAME`, made by `scripts/setup.sh`).
fn matrix_python(name: &str) -> PathBuf {
    root().join(format!(".venv-matrix-{name}/bin/python"))
}

/// What every library is asked to do.
fn plan(stack: &Stack) -> Value {
    json!({
        "url": stack.url,
        "full": full_token(),
        "readonly": readonly_token(),
        "list_call": {"name": "billing_customers_list", "arguments": {}},
        "json_uri": format!("kobana://billing/customers/{PADARIA}"),
        "pdf_uri": format!("kobana://billing/invoices/{INV_OPEN}/pdf"),
        "prompts": [
            {"name": "collect_overdue_invoices", "arguments": {}},
            {"name": "review_pending_nfes", "arguments": {}},
            {"name": "customer_overview", "arguments": {"customer_id": PADARIA}},
            {"name": "monthly_billing_summary", "arguments": {"month": "2026-08"}}
        ],
        "destructive": {
            "name": "billing_invoices_void",
            "arguments": {"id": INV_OPEN, "reason": "Cobrança emitida em duplicidade"}
        }
    })
}

/// Runs one library script with the plan on stdin and returns its report (last stdout line).
async fn run(
    label: &str,
    program: PathBuf,
    script: &str,
    plan: &Value,
    env: &[(&str, String)],
) -> Value {
    assert!(
        program.is_file(),
        "{label}: {} is missing: run scripts/setup.sh (it installs the matrix environments)",
        program.display()
    );
    let started = Instant::now();
    let mut command = tokio::process::Command::new(&program);
    command
        .arg(matrix_dir().join(script))
        .current_dir(matrix_dir())
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("MCP_USE_ANONYMIZED_TELEMETRY", "false");
    for var in [
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
    ] {
        command.env_remove(var);
    }
    for (k, v) in env {
        command.env(k, v);
    }
    let output = run_with_input(
        &mut command,
        &plan.to_string(),
        std::time::Duration::from_secs(300),
        label,
    )
    .await;
    let (stdout, stderr) = succeeded(&output, label);
    let last = stdout.lines().rev().find(|l| l.starts_with('{'));
    let mut report: Value = last
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("{label} printed no JSON report: {stdout:.2000} {stderr:.2000}"));
    let tail: String = stderr
        .chars()
        .rev()
        .take(200_000)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    report["_stderr"] = Value::String(tail);
    eprintln!(
        "client matrix: {label} ({} {}) ran every cell in {:.1} s",
        report["library"].as_str().unwrap_or("?"),
        report["version"].as_str().unwrap_or("?"),
        started.elapsed().as_secs_f64()
    );
    report
}

fn cell<'a>(label: &str, report: &'a Value, key: &str) -> &'a Value {
    let value = &report[key];
    assert!(
        value.get("error").is_none(),
        "{label}: cell {key} failed: {}\n{}\n--- stderr ---\n{}",
        value["error"],
        value["trace"].as_str().unwrap_or_default(),
        report["_stderr"].as_str().unwrap_or_default()
    );
    value
}

fn names(label: &str, value: &Value) -> Vec<String> {
    let mut names: Vec<String> = value
        .as_array()
        .unwrap_or_else(|| panic!("{label}: not a tool list: {value}"))
        .iter()
        .map(|n| n.as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

/// Every cell of one report, against what the stack serves and recorded.
async fn check(label: &str, stack: &Stack, report: &Value, confirmation: bool) {
    assert_eq!(
        report["elicitation"], confirmation,
        "{label}: whether the server's question reaches the library's handler (docs/clients.md table)"
    );
    // The Compatibility table of docs/clients.md names this library at this version with what
    // it gets.
    let library = report["library"].as_str().unwrap();
    let version = report["version"].as_str().unwrap();
    let gets = if confirmation {
        "server's confirmation"
    } else {
        "run directly"
    };
    assert!(
        common::clients_doc().lines().any(|row| row.starts_with('|')
            && row.contains(library)
            && row.contains(&format!("| {version} |"))
            && row.contains(gets)),
        "{label}: docs/clients.md's Compatibility table lacks a row for {library} {version} saying \"{gets}\""
    );
    // Lists: exactly what the server shows each token (A-2: no write tool for read-only).
    for (key, token) in [
        ("tools_full", full_token()),
        ("tools_readonly", readonly_token()),
    ] {
        let got = names(label, cell(label, report, key));
        let mut expected = stack.tool_names(&token, &[]).await;
        expected.sort();
        assert_eq!(got, expected, "{label}: {key}");
    }
    assert!(
        !names(label, &report["tools_readonly"]).contains(&"billing_invoices_void".to_owned()),
        "{label}"
    );
    check_reads(label, stack, report);
    check_prompts(label, report);
    check_destructive(label, stack, report, confirmation);
}

/// A read tool, a JSON resource and the 9.9 MB PDF, its bytes equal to the fake's document.
fn check_reads(label: &str, stack: &Stack, report: &Value) {
    let call = cell(label, report, "call");
    assert_eq!(call["isError"], false, "{label}: {call}");
    assert!(
        call["text"]
            .as_str()
            .unwrap()
            .contains("Padaria Pão Dourado Ltda"),
        "{label}: {call}"
    );
    // A JSON resource.
    let json_resource = cell(label, report, "json_resource");
    let text = json_resource[0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{label}: {json_resource}"));
    let parsed: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{label}: {e}"));
    assert!(
        parsed.to_string().contains("Padaria Pão Dourado Ltda"),
        "{label}"
    );
    // The 9.9 MB PDF, bytes equal to the fake's document.
    let pdf = cell(label, report, "pdf");
    let bytes = stack.fake.pdf_bytes(DocKind::Invoice, INV_OPEN).unwrap();
    assert_eq!(bytes.len(), PDF_SIZE);
    assert_eq!(pdf[0]["len"], PDF_SIZE, "{label}: {pdf}");
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(pdf[0]["sha256"], digest, "{label}: decoded bytes");
}

/// Every prompt, loaded by the library itself.
fn check_prompts(label: &str, report: &Value) {
    let prompts = report["prompts"].as_array().unwrap();
    assert_eq!(prompts.len(), 4, "{label}");
    let padaria_uri = format!("kobana://billing/customers/{PADARIA}");
    let expectations = [
        (
            "collect_overdue_invoices",
            vec!["billing_invoices_send_reminder"],
        ),
        ("review_pending_nfes", vec!["FAT-2026-000655", "Rejeição"]),
        (
            "customer_overview",
            vec![padaria_uri.as_str(), "Padaria Pão Dourado Ltda", BA_PADARIA],
        ),
        (
            "monthly_billing_summary",
            vec!["`due_date_from: \"2026-08-01\"`", "Faturado: R$ 13.687,00"],
        ),
    ];
    for (prompt, (name, needles)) in prompts.iter().zip(expectations) {
        assert_eq!(prompt["name"], name, "{label}");
        assert!(
            prompt.get("error").is_none(),
            "{label}: prompt {name} could not be loaded: {}\n{}",
            prompt["error"],
            prompt["trace"].as_str().unwrap_or_default()
        );
        let text = prompt["texts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        for needle in needles {
            assert!(
                text.contains(needle),
                "{label}: {name} lacks {needle}: {text:.1500}"
            );
        }
    }
}

/// The destructive tool: declined then accepted where the library shows the question, else
/// run directly; only the accepted void reaches Kobana.
fn check_destructive(label: &str, stack: &Stack, report: &Value, confirmation: bool) {
    let destructive = report["destructive"].as_array().unwrap();
    let shown = report["elicitations"].as_array().unwrap();
    for outcome in destructive {
        assert!(outcome.get("error").is_none(), "{label}: {outcome}");
    }
    if confirmation {
        assert_eq!(destructive.len(), 2, "{label}");
        assert_eq!(destructive[0]["answer"], "decline");
        assert_eq!(destructive[0]["isError"], true, "{label}: {destructive:?}");
        assert!(
            destructive[0]["text"]
                .as_str()
                .unwrap()
                .contains("USER_DECLINED"),
            "{label}: {destructive:?}"
        );
        assert_eq!(shown.len(), 2, "{label}: one question per call");
        for message in shown {
            assert!(
                message.as_str().unwrap().contains("FAT-2026-000812"),
                "{label}: {message}"
            );
        }
    } else {
        assert_eq!(destructive.len(), 1, "{label}");
        assert!(shown.is_empty(), "{label}: no question expected: {shown:?}");
    }
    let accepted = destructive.last().unwrap();
    assert_eq!(accepted["isError"], false, "{label}: {accepted}");
    assert!(
        accepted["text"].as_str().unwrap().contains("void"),
        "{label}: {accepted}"
    );
    let voids = stack.kobana_calls(&format!("/v1/invoices/{INV_OPEN}/void"));
    assert_eq!(voids.len(), 1, "{label}: declined never reaches Kobana");
}

/// A stack whose protected-resource metadata names a loopback authorization server: some
/// libraries (mcp-remote, mcp-use) run OAuth discovery even with a bearer token, and a test
/// run must never reach past loopback. Nothing listens there; discovery just fails fast.
async fn stack() -> Stack {
    let stack = Stack::start_with(|config| {
        config.authorization_servers = vec!["http://127.0.0.1:9".to_owned()];
    })
    .await;
    stack.fake.set_pdf_size(INV_OPEN, PDF_SIZE);
    stack
}

async fn python_library(label: &str, venv: &str, script: &str, confirmation: bool) {
    let stack = stack().await;
    let report = run(label, matrix_python(venv), script, &plan(&stack), &[]).await;
    check(label, &stack, &report, confirmation).await;
}

async fn node_library(label: &str, script: &str, confirmation: bool, env: &[(&str, String)]) {
    let stack = stack().await;
    let report = run(label, common::node(), script, &plan(&stack), env).await;
    check(label, &stack, &report, confirmation).await;
}

#[tokio::test]
async fn matrix_fastmcp_4_2_gets_every_cell_and_the_confirmation() {
    python_library("fastmcp", "mcp2", "fastmcp_client.py", true).await;
}

#[tokio::test]
async fn matrix_pydantic_ai_mcp_toolset_gets_every_cell_and_the_confirmation() {
    python_library("pydantic-ai", "mcp2", "pydantic_ai_client.py", true).await;
}

#[tokio::test]
async fn matrix_openai_agents_gets_every_cell_and_destructive_tools_run_directly_cf5() {
    python_library("openai-agents", "mcp2", "openai_agents_client.py", false).await;
}

/// Fails on a prompt that embeds a `resource` block: langchain-mcp-adapters 0.3.2 raises
/// `ValueError: Unsupported prompt message content type: resource` (PR-3).
#[tokio::test]
async fn matrix_langchain_mcp_adapters_loads_every_prompt_and_runs_directly_cf5() {
    python_library("langchain", "mcp1", "langchain_client.py", false).await;
}

#[tokio::test]
async fn matrix_mcp_use_gets_every_cell_and_destructive_tools_run_directly_cf5() {
    python_library("mcp-use", "mcp1", "mcp_use_client.py", false).await;
}

#[tokio::test]
async fn matrix_ai_sdk_mcp_gets_every_cell_and_the_confirmation() {
    node_library("ai-sdk", "ai_sdk_client.mjs", true, &[]).await;
}

#[tokio::test]
async fn matrix_mastra_mcp_gets_every_cell_and_the_confirmation() {
    node_library("mastra", "mastra_client.mjs", true, &[]).await;
}

/// The document's Claude Desktop entry: `npx -y mcp-remote@VERSION ARGS…` with its env.
fn claude_desktop_bridge(stack: &Stack, legacy: bool) -> Value {
    let entry: Value = serde_json::from_str(&doc_snippet(&clients_doc(), "claude-desktop"))
        .expect("the Claude Desktop snippet is JSON");
    let server = &entry["mcpServers"]["kobana"];
    assert_eq!(server["command"], "npx");
    let args: Vec<String> = server["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    let pinned: Value =
        serde_json::from_str(&std::fs::read_to_string(matrix_dir().join("package.json")).unwrap())
            .unwrap();
    assert_eq!(
        args[..2],
        [
            "-y".to_owned(),
            format!(
                "mcp-remote@{}",
                pinned["dependencies"]["mcp-remote"].as_str().unwrap()
            )
        ],
        "the document names the tested mcp-remote"
    );
    let mut args: Vec<String> = args[2..]
        .iter()
        .map(|a| a.replace(DOC_URL, &stack.url))
        .collect();
    assert!(
        args.windows(2).any(|w| w == ["--protocol", "auto"]),
        "the document's entry uses --protocol auto: {args:?}"
    );
    if legacy {
        // The same entry without the flag: mcp-remote's default (legacy) era.
        let at = args.iter().position(|a| a == "--protocol").unwrap();
        args.drain(at..at + 2);
    }
    let env: serde_json::Map<String, Value> = server["env"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    json!({"args": args, "env": env})
}

async fn mcp_remote(legacy: bool) {
    let stack = stack().await;
    let bridge = claude_desktop_bridge(&stack, legacy);
    let path = std::env::temp_dir().join(format!(
        "kobana-matrix-bridge-{}-{legacy}.json",
        std::process::id()
    ));
    std::fs::write(&path, bridge.to_string()).unwrap();
    let label = if legacy {
        "mcp-remote (legacy)"
    } else {
        "mcp-remote --protocol auto"
    };
    let report = run(
        label,
        common::node(),
        "mcp_remote_client.mjs",
        &plan(&stack),
        &[("KOBANA_MATRIX_BRIDGE", path.display().to_string())],
    )
    .await;
    let _ = std::fs::remove_file(&path);
    check(label, &stack, &report, !legacy).await;
}

/// Claude Desktop's entry in `docs/clients.md`, as written: `--protocol auto` puts the question to the person.
#[tokio::test]
async fn matrix_mcp_remote_protocol_auto_from_the_clients_doc_gets_the_confirmation() {
    mcp_remote(false).await;
}

/// mcp-remote's default era (2025): destructive tools run directly (CF-5).
#[tokio::test]
async fn matrix_mcp_remote_default_legacy_gets_every_cell_and_runs_directly_cf5() {
    mcp_remote(true).await;
}
