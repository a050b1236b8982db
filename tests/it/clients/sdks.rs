//! Real MCP clients against a live local stack (fake Kobana + MCP server on loopback ports).
//!
//! Each test runs one client program from `clients/` as a subprocess:
//! - `ts_v2.mjs`: TypeScript SDK v2 (`@modelcontextprotocol/client`), version negotiation `auto`;
//! - `ts_v1.mjs`: TypeScript SDK v1 (`@modelcontextprotocol/sdk`), legacy `initialize` only;
//! - `py_client.py`: Python SDK v2 (`mcp`), modes `auto` and `legacy`.
//!
//! Every program takes `URL TOKEN`, lists the tools, calls `billing_customers_list` with `{}`
//! and prints one JSON line: `{"client", "protocolVersion", "sessionId", "tools", "call"}`.
//! `ts_v1.mjs` then calls `billing_customers_get` with an id Kobana does not have and adds
//! `failedCall`: that SDK checks a result's `structuredContent` against the tool's output
//! schema, on errors too, and throws instead of returning one that does not match (CL-7).
//! The interpreters come from `scripts/setup.sh`; when they are missing the tests fail.

use crate::common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Upper bound for one client run (process start, handshake, two requests, shutdown).
const CLIENT_TIMEOUT: Duration = Duration::from_secs(120);

const MODERN: &str = "2026-07-28";
const LEGACY_LATEST: &str = "2025-11-25";

const REQUIRED_TOOLS: [&str; 3] = [
    "billing_organization_get",
    "billing_customers_list",
    "billing_customers_get",
];

const FIXTURE_CUSTOMERS: usize = 4;
const KNOWN_CUSTOMER: &str = "Padaria Pão Dourado Ltda";

/// What a finished client process left behind.
struct ClientRun {
    label: String,
    status: Option<ExitStatus>,
    stdout: String,
    stderr: String,
}

impl ClientRun {
    /// Context appended to every assertion message, so a failure shows what the client said.
    fn context(&self) -> String {
        format!(
            "client {}: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.label,
            match self.status {
                Some(s) => s.to_string(),
                None => format!("none (killed after the {CLIENT_TIMEOUT:?} timeout)"),
            },
            self.stdout.trim_end(),
            self.stderr.trim_end(),
        )
    }
}

fn require_file(path: &Path, what: &str) {
    assert!(
        path.is_file(),
        "{what} not found at {}: run scripts/setup.sh (it installs .venv and clients/node_modules), \
         or point KOBANA_MCP_NODE / KOBANA_MCP_PYTHON / KOBANA_MCP_CLIENTS at them",
        path.display()
    );
}

/// Run `interpreter script args…` with a timeout, capturing stdout and stderr.
///
/// Blocking; call it through `spawn_blocking` so the in-process servers keep running.
fn run_blocking(
    label: String,
    interpreter: PathBuf,
    script: PathBuf,
    args: Vec<String>,
) -> ClientRun {
    let mut command = Command::new(&interpreter);
    command
        .arg(&script)
        .args(&args)
        .current_dir(
            script
                .parent()
                .expect("client script has a parent directory"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Loopback only: never let a proxy from the environment see the test traffic.
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("ALL_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .env_remove("all_proxy")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let mut child = command.spawn().unwrap_or_else(|e| {
        panic!(
            "client {label}: cannot start {} {}: {e}; run scripts/setup.sh",
            interpreter.display(),
            script.display()
        )
    });

    let mut stdout_pipe = child.stdout.take().expect("stdout is piped");
    let mut stderr_pipe = child.stderr.take().expect("stderr is piped");
    let stdout_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut buf);
        buf
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut buf);
        buf
    });

    let deadline = Instant::now() + CLIENT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(25)),
            Err(e) => panic!("client {label}: waiting for the process failed: {e}"),
        }
    };

    let stdout = String::from_utf8_lossy(&stdout_reader.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr_reader.join().unwrap_or_default()).into_owned();
    ClientRun {
        label,
        status,
        stdout,
        stderr,
    }
}

async fn run_client(
    label: &str,
    interpreter: PathBuf,
    script_name: &str,
    args: Vec<String>,
) -> ClientRun {
    let script = common::clients_dir().join(script_name);
    require_file(&interpreter, "client interpreter");
    require_file(&script, "client program");
    let label = label.to_owned();
    tokio::task::spawn_blocking(move || run_blocking(label, interpreter, script, args))
        .await
        .expect("client runner thread panicked")
}

/// Check one client's report against the stack it talked to.
fn assert_client_report(run: &ClientRun, expected_client: &str, expected_version: &str) -> Value {
    let ctx = run.context();
    assert!(
        run.status.is_some_and(|s| s.success()),
        "the client did not exit successfully\n{ctx}"
    );

    let lines: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "expected exactly one JSON line on stdout\n{ctx}"
    );
    let report: Value = serde_json::from_str(lines[0])
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e})\n{ctx}"));

    assert_eq!(report["client"], expected_client, "client label\n{ctx}");
    assert_eq!(
        report["protocolVersion"], expected_version,
        "negotiated protocol version\n{ctx}"
    );
    assert!(
        report["sessionId"].is_null(),
        "a stateless server must not hand out an Mcp-Session-Id\n{ctx}"
    );

    let tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("`tools` is not an array\n{ctx}"))
        .iter()
        .map(|t| {
            t.as_str()
                .unwrap_or_else(|| panic!("tool name is not a string\n{ctx}"))
        })
        .collect();
    for required in REQUIRED_TOOLS {
        assert!(
            tools.contains(&required),
            "tools/list lacks {required}\n{ctx}"
        );
    }

    let call = &report["call"];
    assert_eq!(
        call["isError"], false,
        "billing_customers_list returned isError\n{ctx}"
    );
    let text = call["text"].as_str().unwrap_or_default();
    assert!(
        !text.trim().is_empty(),
        "the tool result has no text content block next to structuredContent\n{ctx}"
    );

    let structured = &call["structuredContent"];
    let customers = structured["customers"]
        .as_array()
        .unwrap_or_else(|| panic!("structuredContent.customers is not an array\n{ctx}"));
    assert_eq!(
        customers.len(),
        FIXTURE_CUSTOMERS,
        "number of customers\n{ctx}"
    );
    let names: Vec<&str> = customers
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        names.contains(&KNOWN_CUSTOMER),
        "customers lack {KNOWN_CUSTOMER:?}: {names:?}\n{ctx}"
    );
    assert_eq!(
        structured["total"], FIXTURE_CUSTOMERS,
        "structuredContent.total\n{ctx}"
    );
    report
}

/// The MCP server must have reached the fake Kobana API with the caller's token.
fn assert_fake_saw_customer_listing(stack: &common::Stack, run: &ClientRun) {
    let calls = stack.fake.calls();
    let listed = calls
        .iter()
        .any(|c| c.method == "GET" && c.path == "/v1/customers" && c.authorized);
    assert!(
        listed,
        "the fake Kobana API recorded no authorized GET /v1/customers; calls: {calls:#?}\n{}",
        run.context()
    );
}

fn url_and_token(stack: &common::Stack) -> Vec<String> {
    vec![stack.url.clone(), fake_kobana::full_token()]
}

#[tokio::test]
async fn p1_ts_v2_client_auto_negotiates_2026_and_calls_customers_list() {
    let stack = common::Stack::start().await;
    let run = run_client("ts-v2", common::node(), "ts_v2.mjs", url_and_token(&stack)).await;
    assert_client_report(&run, "ts-v2", MODERN);
    assert_fake_saw_customer_listing(&stack, &run);
}

#[tokio::test]
async fn p2_ts_v1_client_initializes_2025_11_25_without_session_and_calls_customers_list() {
    let stack = common::Stack::start().await;
    let run = run_client("ts-v1", common::node(), "ts_v1.mjs", url_and_token(&stack)).await;
    assert_client_report(&run, "ts-v1", LEGACY_LATEST);
    assert_fake_saw_customer_listing(&stack, &run);
}

#[tokio::test]
async fn p3_python_client_auto_negotiates_2026_and_calls_customers_list() {
    let stack = common::Stack::start().await;
    let mut args = url_and_token(&stack);
    args.push("auto".into());
    let run = run_client("py-auto", common::python(), "py_client.py", args).await;
    assert_client_report(&run, "py-auto", MODERN);
    assert_fake_saw_customer_listing(&stack, &run);
}

#[tokio::test]
async fn p4_python_client_legacy_mode_initializes_2025_11_25_and_calls_customers_list() {
    let stack = common::Stack::start().await;
    let mut args = url_and_token(&stack);
    args.push("legacy".into());
    let run = run_client("py-legacy", common::python(), "py_client.py", args).await;
    assert_client_report(&run, "py-legacy", LEGACY_LATEST);
    assert_fake_saw_customer_listing(&stack, &run);
}

/// CL-7: after `listTools`, the TypeScript SDK v1 validates any `structuredContent` against the
/// tool's output schema, `isError` results included, and throws -32602 on a mismatch. A tool
/// error carries none, so `callTool` resolves and the person gets the pt-BR text; the code is
/// in `_meta`.
#[tokio::test]
async fn cl7_a_tool_error_reaches_the_person_through_the_ts_v1_client_after_list_tools() {
    let stack = common::Stack::start().await;
    let run = run_client("ts-v1", common::node(), "ts_v1.mjs", url_and_token(&stack)).await;
    let report = assert_client_report(&run, "ts-v1", LEGACY_LATEST);
    let ctx = run.context();
    let failed = &report["failedCall"];
    assert_eq!(
        failed["isError"], true,
        "billing_customers_get of a missing id\n{ctx}"
    );
    assert!(
        failed["structuredContent"].is_null(),
        "an error result carries no structuredContent\n{ctx}"
    );
    assert_eq!(failed["error"]["error"], "KOBANA_NOT_FOUND", "{ctx}");
    let text = failed["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Não encontrado no Kobana") && text.contains("Confira o id"),
        "the person reads what to change, in pt-BR\n{ctx}"
    );
}
