//! The host CLIs people connect from (HT-2), pinned in `clients/hosts/` and run for real:
//! Claude Code, Gemini CLI, Codex, opencode and the Copilot CLI. Each gets the snippet of
//! `docs/clients.md` exactly as written (the test server's URL in place of the example's),
//! through the host's own command or config file, in a home of its own, and then proves, with
//! the host's own commands and without any model account:
//!
//! - that the host parsed the snippet and connects (`mcp list` / `mcp get`, Codex's app server);
//! - that it lists every tool the server declares: each host's first model request goes to a
//!   stand-in endpoint that records it (`crate::clients::support::model`), and that request offers
//!   every tool; Codex's app server answers the tool list itself;
//! - that it sent the token: the server's request log holds a `tools/list` under this host's
//!   own token (a subject of its own), and no log line holds the token.
//!
//! Each host's installed version is checked against the pin and against the document's table.
//!
//! The editors no registry carries (VS Code, Cursor) get their `mcp.json` snippet read as they
//! read it (`crate::clients::support::editors`: VS Code's JSONC parser, each editor's rules and
//! variables), and the URL and headers it resolves to must list every tool.

use crate::common;

use std::collections::BTreeSet;

use crate::clients::support::{HostRun, assert_holds, declared_tools, editors, installed, pinned};
use serde_json::{Value, json};

/// What each host is asked; the stand-in model refuses it, so no tool is called.
const PROMPT: &str = "Quais clientes eu tenho no Kobana?";

/// The one protocol version a host asked `tools/list` in.
fn era(versions: &BTreeSet<String>) -> &str {
    assert_eq!(versions.len(), 1, "one protocol version: {versions:?}");
    versions.first().unwrap()
}

/// Asserts the installed `package` is the pinned one and `docs/clients.md` names it.
fn check_version(run: &HostRun, package: &str) {
    let version = pinned(package);
    assert_eq!(
        installed(package),
        version,
        "{package}: run scripts/setup.sh"
    );
    let named = format!("`{package}` {version}");
    assert_holds("docs/clients.md", &common::clients_doc(), &[&named]);
    eprintln!("{}: {package} {version}", run.label);
}

/// Runs a shell snippet of `docs/clients.md` in the host's sandbox; it must succeed.
async fn paste(run: &HostRun, snippet: &str) {
    let script = run.snippet(snippet);
    let output = run.sandbox.shell(script.trim()).await;
    common::succeeded(&output, &format!("{}: the {snippet} snippet", run.label));
}

/// Asserts the stand-in model was offered every declared tool under `prefix`.
#[track_caller]
fn assert_offers_every_tool(run: &HostRun, prefix: &str) {
    assert_eq!(
        run.model.offered(prefix),
        declared_tools(),
        "{}: the tools offered to the model (requests to {:?})",
        run.label,
        run.model.paths()
    );
}

/// Claude Code: `claude mcp add` (the snippet), then `mcp list` and `mcp get` connect, and
/// `claude -p` offers every tool as `mcp__kobana__<tool>` (`ANTHROPIC_BASE_URL`).
#[tokio::test]
async fn ht2_claude_code_adds_the_snippet_connects_and_offers_every_tool() {
    let mut run = HostRun::start("claude-code").await;
    for (key, value) in [
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_ERROR_REPORTING", "1"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ] {
        run.sandbox.set(key, value);
    }
    check_version(&run, "@anthropic-ai/claude-code");
    paste(&run, "claude-code").await;
    let url = &run.server.url;
    let (list, _) = run.sandbox.ok("claude", &["mcp", "list"], &[]).await;
    assert_holds(
        "claude mcp list",
        &list,
        &[&format!("kobana: {url} (HTTP) - ✔ Connected")],
    );
    let (get, _) = run
        .sandbox
        .ok("claude", &["mcp", "get", "kobana"], &[])
        .await;
    let url_line = format!("URL: {url}");
    assert_holds(
        "claude mcp get",
        &get,
        &["Status: ✔ Connected", "Type: http", &url_line],
    );
    let model = [
        ("ANTHROPIC_BASE_URL", run.model.url.as_str()),
        ("ANTHROPIC_API_KEY", "sk-ant-stand-in"),
    ];
    run.sandbox.run("claude", &["-p", PROMPT], &model).await;
    assert_offers_every_tool(&run, "mcp__kobana__");
    assert_eq!(era(&run.finish()), "2026-07-28");
}

/// Gemini CLI's settings for the test: the stand-in key's auth type, no usage statistics, no
/// update check.
const GEMINI_SETTINGS: &str = r#"{
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "privacy": { "usageStatisticsEnabled": false },
  "telemetry": { "enabled": false },
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false }
}"#;

/// Gemini CLI: `gemini mcp add` (the snippet), `gemini mcp list` connects, and `gemini -p`
/// offers every tool as `mcp_kobana_<tool>` (`GOOGLE_GEMINI_BASE_URL`). The project folder is
/// trusted (`GEMINI_CLI_TRUST_WORKSPACE`: Gemini loads no MCP server in an untrusted folder),
/// and `-p` runs with `--approval-mode yolo` because without a person to approve, Gemini
/// leaves out of the model's request every tool that needs approval; the stand-in model calls
/// none.
#[tokio::test]
async fn ht2_gemini_cli_adds_the_snippet_connects_and_offers_every_tool() {
    let mut run = HostRun::start("gemini-cli").await;
    run.sandbox.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
    run.sandbox
        .write("home/.gemini/settings.json", GEMINI_SETTINGS);
    check_version(&run, "@google/gemini-cli");
    paste(&run, "gemini-cli").await;
    // Gemini writes its server list to stderr.
    let (_, list) = run.sandbox.ok("gemini", &["mcp", "list"], &[]).await;
    let connected = format!("✓ kobana: {} (http) - Connected", run.server.url);
    assert_holds("gemini mcp list", &list, &[&connected]);
    let model = [
        ("GEMINI_API_KEY", "stand-in"),
        ("GOOGLE_GEMINI_BASE_URL", run.model.url.as_str()),
    ];
    let args = ["-p", PROMPT, "--approval-mode", "yolo"];
    run.sandbox.run("gemini", &args, &model).await;
    assert_offers_every_tool(&run, "mcp_kobana_");
    assert_eq!(era(&run.finish()), "2025-06-18");
}

/// Codex's reading of the server in `CODEX_HOME` (`codex mcp get kobana --json`).
async fn codex_reads(run: &HostRun) -> Value {
    let (stdout, _) = run
        .sandbox
        .ok("codex", &["mcp", "get", "kobana", "--json"], &[])
        .await;
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("codex mcp get --json ({e}): {stdout}"))
}

/// Codex's app server (the protocol its IDE extension speaks, over stdio): `initialize`, then
/// `mcpServerStatus/list` for `kobana`, which connects and lists. Answers the server's entry.
async fn codex_app_server_status(run: &HostRun) -> Value {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut command = run.sandbox.command("codex", &["app-server"]);
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut child = command.spawn().expect("codex app-server starts");
    let mut stdin = child.stdin.take().unwrap();
    let requests = [
        json!({"id": 1, "method": "initialize",
               "params": {"clientInfo": {"name": "kobana-mcp-tests", "version": "0"}}}),
        json!({"method": "initialized"}),
        json!({"id": 2, "method": "mcpServerStatus/list", "params": {"serverName": "kobana"}}),
    ];
    for request in requests {
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let answer = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            let message: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if message["id"] == 2 {
                return message;
            }
        }
        panic!("codex app-server closed without answering mcpServerStatus/list")
    };
    let limit = crate::clients::support::sandbox::HOST_COMMAND_LIMIT;
    let answer = tokio::time::timeout(limit, answer)
        .await
        .expect("codex app-server answers in time");
    drop(stdin);
    let _ = tokio::time::timeout(limit, child.wait()).await;
    let servers = answer["result"]["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    servers
        .into_iter()
        .find(|s| s["name"] == "kobana")
        .unwrap_or_else(|| panic!("codex app-server lists no kobana: {answer}"))
}

/// Codex: `codex mcp add` (the command snippet) writes what the `config.toml` snippet says
/// (Codex's own parser reads both alike), `codex mcp list` shows the bearer token variable,
/// and Codex's app server connects with `KOBANA_TOKEN` and lists every tool.
#[tokio::test]
async fn ht2_codex_adds_the_snippet_reads_the_config_toml_and_lists_every_tool() {
    let mut run = HostRun::start("codex").await;
    let codex_home = run.sandbox.home.join(".codex");
    std::fs::create_dir_all(&codex_home).unwrap();
    run.sandbox
        .set("CODEX_HOME", &codex_home.display().to_string());
    check_version(&run, "@openai/codex");
    paste(&run, "codex").await;
    let added = codex_reads(&run).await;
    run.sandbox
        .write("home/.codex/config.toml", &run.snippet("codex-config"));
    assert_eq!(
        codex_reads(&run).await,
        added,
        "the command and the file agree"
    );
    assert_eq!(added["transport"]["url"], run.server.url.as_str());
    assert_eq!(added["transport"]["bearer_token_env_var"], "KOBANA_TOKEN");
    let (list, _) = run.sandbox.ok("codex", &["mcp", "list"], &[]).await;
    assert_holds(
        "codex mcp list",
        &list,
        &[
            "kobana",
            &run.server.url,
            "KOBANA_TOKEN",
            "enabled",
            "Bearer token",
        ],
    );
    let status = codex_app_server_status(&run).await;
    assert_eq!(status["authStatus"], "bearerToken", "{status}");
    assert_eq!(status["serverInfo"]["name"], "kobana-mcp", "{status}");
    let tools: BTreeSet<String> = status["tools"]
        .as_object()
        .unwrap_or_else(|| panic!("no tools: {status}"))
        .keys()
        .cloned()
        .collect();
    assert_eq!(tools, declared_tools(), "the tools Codex lists");
    assert_eq!(era(&run.finish()), "2025-06-18");
}

/// opencode's global config for the test: a stand-in provider (opencode's bundled
/// OpenAI-compatible one) at the stand-in model's URL; `{MODEL}` is replaced.
const OPENCODE_PROVIDER: &str = r#"{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "provider": {
    "stand-in": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Stand-in",
      "options": { "baseURL": "{MODEL}/v1", "apiKey": "stand-in" },
      "models": { "model": { "name": "model" } }
    }
  }
}"#;

/// opencode: the `opencode.json` snippet in the project, `opencode mcp list` connects, and
/// `opencode run` offers every tool as `kobana_<tool>`.
#[tokio::test]
async fn ht2_opencode_reads_the_snippet_connects_and_offers_every_tool() {
    let mut run = HostRun::start("opencode").await;
    for key in [
        "OPENCODE_DISABLE_AUTOUPDATE",
        "OPENCODE_DISABLE_MODELS_FETCH",
        "OPENCODE_DISABLE_DEFAULT_PLUGINS",
        "OPENCODE_DISABLE_LSP_DOWNLOAD",
        "OPENCODE_DISABLE_SHARE",
        "OPENCODE_DISABLE_CLAUDE_CODE",
    ] {
        run.sandbox.set(key, "true");
    }
    check_version(&run, "opencode-ai");
    run.sandbox
        .write("project/opencode.json", &run.snippet("opencode"));
    let provider = OPENCODE_PROVIDER.replace("{MODEL}", &run.model.url);
    run.sandbox
        .write("home/.config/opencode/opencode.json", &provider);
    let (list, _) = run.sandbox.ok("opencode", &["mcp", "list"], &[]).await;
    assert_holds(
        "opencode mcp list",
        &list,
        &["kobana", "connected", &run.server.url],
    );
    let args = ["run", "-m", "stand-in/model", PROMPT];
    run.sandbox.run("opencode", &args, &[]).await;
    assert_offers_every_tool(&run, "kobana_");
    assert_eq!(era(&run.finish()), "2025-11-25");
}

/// The Copilot CLI: `copilot mcp add` (the snippet), `copilot mcp list` and `get` read it, and
/// `copilot -p` in its offline mode with a bring-your-own-key provider (no GitHub sign-in:
/// `COPILOT_OFFLINE`, `COPILOT_PROVIDER_BASE_URL`) connects and offers every tool as
/// `kobana-<tool>`.
#[tokio::test]
async fn ht2_copilot_cli_adds_the_snippet_connects_and_offers_every_tool() {
    let mut run = HostRun::start("copilot-cli").await;
    run.sandbox.set("COPILOT_AUTO_UPDATE", "false");
    // Copilot unpacks itself (~235 MB) into its cache on first start; keep that across runs.
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("copilot-cache");
    run.sandbox
        .set("XDG_CACHE_HOME", &cache.display().to_string());
    check_version(&run, "@github/copilot");
    paste(&run, "copilot-cli").await;
    let (list, _) = run.sandbox.ok("copilot", &["mcp", "list"], &[]).await;
    assert_holds("copilot mcp list", &list, &["kobana (http)"]);
    let (get, _) = run
        .sandbox
        .ok("copilot", &["mcp", "get", "kobana"], &[])
        .await;
    let url_line = format!("URL: {}", run.server.url);
    assert_holds(
        "copilot mcp get",
        &get,
        &["Status: Enabled", "Type: http", &url_line],
    );
    let provider = format!("{}/v1", run.model.url);
    let model = [
        ("COPILOT_OFFLINE", "true"),
        ("COPILOT_PROVIDER_BASE_URL", provider.as_str()),
        ("COPILOT_MODEL", "gpt-4o"),
    ];
    let args = [
        "-p",
        PROMPT,
        "--allow-all-tools",
        "--disable-client-telemetry",
    ];
    run.sandbox.run("copilot", &args, &model).await;
    assert_offers_every_tool(&run, "kobana-");
    assert_eq!(era(&run.finish()), "2026-07-28");
}

/// The tools `tools/list` answers at `server` (`{"url", "headers"}`, as an editor resolved its
/// entry), asked as a 2025-11-25 client with exactly those headers.
async fn tools_listed(http: &reqwest::Client, server: &Value) -> BTreeSet<String> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let mut request = common::mcp_post(http, server["url"].as_str().unwrap(), body)
        .header("mcp-protocol-version", "2025-11-25");
    for (name, value) in server["headers"].as_object().unwrap() {
        request = request.header(name.as_str(), value.as_str().unwrap());
    }
    let (status, body) = common::read(request.send().await.unwrap()).await;
    assert_eq!(status, 200, "{server}: {body}");
    common::result_names(&body, "tools").into_iter().collect()
}

/// VS Code's and Cursor's `mcp.json` snippets, read as the editors read them (VS Code's JSONC
/// parser, each editor's rules and variables: `clients/mcp_json.mjs`), resolve to the
/// server's URL and a bearer header that lists every tool; VS Code also takes `${env:…}`.
#[tokio::test]
async fn ht2_vs_code_and_cursor_read_their_mcp_json_snippets_and_list_every_tool() {
    let stack = common::Stack::start().await;
    let token = fake_kobana::full_token();
    let vscode = common::clients_snippet("vscode", &stack.url);
    let from_env = vscode.replace(
        &format!("${{input:{}}}", editors::TOKEN_INPUT),
        "${env:KOBANA_TOKEN}",
    );
    assert_ne!(from_env, vscode, "the VS Code snippet asks for the token");
    let entries = [
        ("vscode", vscode),
        ("cursor", common::clients_snippet("cursor", &stack.url)),
        ("vscode", from_env),
    ];
    for (host, text) in entries {
        let reading = editors::read(host, &text, Some(&token)).await;
        let server = reading.server("kobana");
        assert_eq!(server["url"], stack.url, "{host}: {server}");
        assert_eq!(
            server["headers"]["Authorization"],
            format!("Bearer {token}"),
            "{host}: the token in the header"
        );
        assert_eq!(
            tools_listed(&stack.http, server).await,
            declared_tools(),
            "{host}"
        );
    }
}

/// Each rule `clients/mcp_json.mjs` checks refuses the snippet that breaks it (the document's
/// own snippet with one change), and the JSONC parser takes what VS Code takes (a comment,
/// a trailing comma).
#[tokio::test]
async fn ht2_a_broken_mcp_json_snippet_is_refused_by_the_rule_it_breaks() {
    let token = fake_kobana::full_token();
    let input = format!("${{input:{}}}", editors::TOKEN_INPUT);
    let env = "${env:KOBANA_TOKEN}";
    let broken: [(&str, &str, &str, &str); 11] = [
        (
            "vscode",
            "\"type\": \"http\",",
            "\"type\": \"http\"",
            "syntax: CommaExpected",
        ),
        (
            "vscode",
            "\"servers\"",
            "\"mcpServers\"",
            "no `servers` map",
        ),
        (
            "vscode",
            "\"type\": \"http\"",
            "\"type\": \"remote\"",
            "type must be one of",
        ),
        (
            "vscode",
            "\"type\": \"http\"",
            "\"type\": \"sse\"",
            "is \"http\"",
        ),
        ("vscode", "\"url\"", "\"uri\"", "url must be a string"),
        (
            "vscode",
            &input,
            "${input:token}",
            "no inputs[] entry with id token",
        ),
        (
            "vscode",
            "\"promptString\"",
            "\"pickString\"",
            "must be a promptString",
        ),
        (
            "vscode",
            "\"password\": true",
            "\"password\": false",
            "needs password: true",
        ),
        (
            "vscode",
            &input,
            "${workspaceFolder}",
            "does not resolve ${workspaceFolder}",
        ),
        (
            "cursor",
            env,
            &input,
            "cursor does not resolve ${input:kobana-token}",
        ),
        (
            "cursor",
            "\"mcpServers\"",
            "\"servers\"",
            "no `mcpServers` map",
        ),
    ];
    for (host, from, to, error) in broken {
        let snippet = common::clients_snippet(host, common::DOC_URL);
        assert!(snippet.contains(from), "{host}: the snippet has {from}");
        let reading = editors::read(host, &snippet.replacen(from, to, 1), Some(&token)).await;
        let errors = reading.errors();
        assert!(
            errors.iter().any(|e| e.contains(error)),
            "{host}, {from} → {to}: expected {error:?} in {errors:?}"
        );
    }
    let cursor = common::clients_snippet("cursor", common::DOC_URL);
    let unset = editors::read("cursor", &cursor, None).await;
    assert!(
        unset
            .errors()
            .iter()
            .any(|e| e.contains("KOBANA_TOKEN is not set")),
        "{unset:?}"
    );
    let vscode = common::clients_snippet("vscode", common::DOC_URL);
    let jsonc = vscode
        .replacen("\"type\": \"http\",", "// remote\n\"type\": \"http\",", 1)
        .replacen("\"Token do Kobana\" }", "\"Token do Kobana\", }", 1);
    assert_ne!(jsonc, vscode);
    let reading = editors::read("vscode", &jsonc, Some(&token)).await;
    assert_eq!(reading.server("kobana")["url"], common::DOC_URL);
}
