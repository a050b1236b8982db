//! Secrets: every log line of a full end-to-end run — every event and span field, at
//! TRACE level, from the server, rmcp, hyper and reqwest — is captured and searched for the
//! bearer tokens used, their signatures, and their digests
//! (`kobana_mcp::access::token_digest`). None may appear; neither may they in any answer.
//!
//! The server runs in this process on its own thread, whose tracing dispatcher writes to a
//! buffer. The fake Kobana and the test client run on the test's own runtime, outside that
//! dispatcher: the fake checks tokens, and its logs are not the server's.

use crate::common;
use fake_kobana::fixtures::ids::{INV_OPEN, NFE_ISSUED, PADARIA, PAY_CARD};

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fake_kobana::{FakeKobana, Fault, FaultKind, full_token};
use kobana_mcp::Config;
use kobana_mcp::access::{BearerToken, token_digest};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Level, Metadata, Subscriber};

const CANARY: &str = "capture-canary-5b1e9d";

// ---------------------------------------------------------------------------------------
// A subscriber that keeps every event and span, with all fields, as text lines.

#[derive(Clone, Default)]
struct Capture {
    lines: Arc<Mutex<Vec<String>>>,
    next_span: Arc<AtomicU64>,
}

struct Fields(String);

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={}", field.name(), value);
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let _ = write!(self.0, " {}={value}", field.name());
        let mut source = value.source();
        while let Some(error) = source {
            let _ = write!(self.0, ": {error}");
            source = error.source();
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }
}

impl Capture {
    fn push(&self, line: String) {
        self.lines.lock().unwrap().push(line);
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::TRACE)
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let mut fields = Fields(String::new());
        span.record(&mut fields);
        let meta = span.metadata();
        self.push(format!(
            "{} {} span {}{}",
            meta.level(),
            meta.target(),
            meta.name(),
            fields.0
        ));
        Id::from_u64(self.next_span.fetch_add(1, Ordering::Relaxed) + 1)
    }

    fn record(&self, _: &Id, values: &Record<'_>) {
        let mut fields = Fields(String::new());
        values.record(&mut fields);
        self.push(format!("span record{}", fields.0));
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        let meta = event.metadata();
        self.push(format!("{} {}{}", meta.level(), meta.target(), fields.0));
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

// ---------------------------------------------------------------------------------------
// The server on its own thread, under the capturing dispatcher.

struct CapturedServer {
    server: common::thread_server::ThreadServer,
    capture: Capture,
}

impl CapturedServer {
    fn start(config: Config) -> Self {
        let capture = Capture::default();
        let server = common::thread_server::ThreadServer::start(
            config,
            tracing::Dispatch::new(capture.clone()),
            || tracing::info!(canary = CANARY, "capture installed"),
        );
        Self { server, capture }
    }

    fn url(&self) -> String {
        self.server.url()
    }

    /// Stops the server and returns every captured line.
    fn finish(mut self) -> Vec<String> {
        self.server.stop();
        self.capture.lines()
    }
}

/// Raw client: records every answer (status, headers, body) for the leak check.
struct Client {
    http: reqwest::Client,
    url: String,
    answers: Vec<String>,
}

impl Client {
    async fn post(&mut self, auth: Option<&str>, headers: &[(&str, &str)], body: Value) -> Value {
        self.post_raw(auth, headers, body.to_string()).await
    }

    async fn post_raw(
        &mut self,
        auth: Option<&str>,
        headers: &[(&str, &str)],
        body: String,
    ) -> Value {
        let mut request = common::mcp_post(&self.http, &self.url, body);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        let response = request.send().await.expect("server answers");
        let status = response.status().as_u16();
        let head = format!("{:?}", response.headers());
        let text = response.text().await.unwrap_or_default();
        self.answers.push(format!("{status} {head} {text}"));
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }

    async fn legacy(&mut self, token: &str, method: &str, params: Value) -> Value {
        let auth = format!("Bearer {token}");
        self.post(
            Some(&auth),
            &[("mcp-protocol-version", "2025-11-25")],
            json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        )
        .await
    }

    async fn modern(&mut self, token: &str, method: &str, mut params: Value, caps: Value) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let auth = format!("Bearer {token}");
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        self.post(
            Some(&auth),
            &headers,
            json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}),
        )
        .await
    }

    async fn tool(&mut self, token: &str, name: &str, args: Value) -> Value {
        let body = self
            .legacy(
                token,
                "tools/call",
                json!({"name": name, "arguments": args}),
            )
            .await;
        body["result"].clone()
    }
}

/// Every way a token could show up: whole, any of its segments, its digest.
fn needles(token: &str) -> Vec<String> {
    let mut needles = common::token_traces(token);
    needles.push(token_digest(&BearerToken::new(token.to_owned())));
    needles
}

fn leaks<'a>(haystack: &'a [String], needles: &[String]) -> Vec<(&'a String, String)> {
    haystack
        .iter()
        .flat_map(|line| {
            needles
                .iter()
                .filter(|n| line.contains(n.as_str()))
                .map(move |n| (line, n.clone()))
        })
        .collect()
}

/// The whole product surface, with the given tokens, including failures and confirmations.
async fn full_run(
    client: &mut Client,
    fake: &FakeKobana,
    token: &str,
    opaque: &str,
    expired: &str,
) {
    // Handshake and lists, both eras.
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let auth = format!("Bearer {token}");
        let body = client
            .post(
                Some(&auth),
                &[],
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                    "protocolVersion": version, "capabilities": {},
                    "clientInfo": {"name": "secrets", "version": "0"}}}),
            )
            .await;
        assert_eq!(body["result"]["protocolVersion"], version, "{body}");
    }
    for method in [
        "tools/list",
        "resources/list",
        "resources/templates/list",
        "prompts/list",
    ] {
        let body = client.legacy(token, method, json!({})).await;
        assert!(body.get("result").is_some(), "{method}: {body}");
        let body = client.modern(token, method, json!({}), json!({})).await;
        assert!(body.get("result").is_some(), "{method}: {body}");
    }
    client
        .modern(token, "server/discover", json!({}), json!({}))
        .await;

    reads(client, token).await;
    let (call, form) = writes(client, fake, token).await;
    failures(client, fake, token, opaque, expired, &call, &form).await;
}

/// Reads through tools and resources, a prompt and a completion.
async fn reads(client: &mut Client, token: &str) {
    for (tool, args) in [
        ("billing_organization_get", json!({})),
        ("billing_customers_list", json!({"search": "Padaria"})),
        ("billing_customers_get", json!({"id": PADARIA})),
        ("billing_customers_get", json!({"id": "crm-000202"})),
        ("billing_invoices_list", json!({"overdue": true})),
        ("billing_invoices_get", json!({"id": INV_OPEN})),
        ("billing_invoices_pdf", json!({"id": INV_OPEN})),
        ("billing_nfes_xml", json!({"id": NFE_ISSUED})),
        ("billing_payments_list", json!({})),
        ("billing_subscriptions_list", json!({})),
        ("billing_schemas_get", json!({"resource": "invoices"})),
        (
            "billing_operations_search",
            json!({"query": "anular fatura"}),
        ),
        (
            "billing_operations_search",
            json!({"operation": "post-payments-id-refund"}),
        ),
        (
            "billing_operations_read",
            json!({"operation": "get-customers", "query": {"search": "Padaria"}}),
        ),
        (
            "billing_operations_read",
            json!({"operation": "get-invoices-id-pdf", "path": {"id": INV_OPEN}}),
        ),
        (
            "billing_operations_write",
            json!({"operation": "patch-customers-id", "path": {"id": PADARIA},
                "body": {"nickname": "Padaria"}}),
        ),
    ] {
        let result = client.tool(token, tool, args).await;
        assert_eq!(result["isError"], false, "{tool}: {result}");
    }
    for uri in [
        "kobana://billing/organization".to_owned(),
        "kobana://billing/schemas".to_owned(),
        format!("kobana://billing/invoices/{INV_OPEN}"),
        format!("kobana://billing/invoices/{INV_OPEN}/pdf"),
        format!("kobana://billing/nfes/{NFE_ISSUED}/xml"),
    ] {
        let body = client
            .legacy(token, "resources/read", json!({"uri": uri}))
            .await;
        assert!(body.get("result").is_some(), "{uri}: {body:.300}");
    }
    client
        .legacy(
            token,
            "prompts/get",
            json!({"name": "customer_overview", "arguments": {"customer_id": PADARIA}}),
        )
        .await;
    client
        .legacy(
            token,
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "customer_overview"},
                   "argument": {"name": "customer_id", "value": "Pa"}}),
        )
        .await;
}

/// Writes, with a retried fault, and a confirmed and a declined destructive call: the void and
/// the form it asks with.
async fn writes(client: &mut Client, fake: &FakeKobana, token: &str) -> (Value, Value) {
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: format!("/v1/invoices/{INV_OPEN}/send-reminder"),
        kind: FaultKind::Status {
            status: 503,
            retry_after: None,
        },
        times: Some(1),
    });
    let result = client
        .tool(
            token,
            "billing_invoices_send_reminder",
            json!({"id": INV_OPEN}),
        )
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let form = json!({"elicitation": {"form": {}}});
    let call = json!({"name": "billing_invoices_void",
        "arguments": {"id": INV_OPEN, "reason": "teste de segredos"}});
    let generic = json!({"name": "billing_operations_write_destructive",
        "arguments": {"operation": "post-payments-id-refund", "path": {"id": PAY_CARD},
            "body": {"amount_cents": 100, "reason": "teste de segredos"}}});
    let (no, yes) = (
        json!({"action": "decline"}),
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    for (call, answer) in [
        (&call, no.clone()),
        (&call, yes.clone()),
        (&generic, no),
        (&generic, yes),
    ] {
        let asked = client
            .modern(token, "tools/call", (*call).clone(), form.clone())
            .await;
        let state = asked["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("{asked}"))
            .to_owned();
        let mut retry = (*call).clone();
        retry["requestState"] = json!(state);
        retry["inputResponses"] = json!({"confirm": answer});
        let done = client
            .modern(token, "tools/call", retry, form.clone())
            .await;
        assert!(done.get("result").is_some(), "{done}");
    }
    (call, form)
}

/// Failures of every kind, and the opaque and expired tokens.
async fn failures(
    client: &mut Client,
    fake: &FakeKobana,
    token: &str,
    opaque: &str,
    expired: &str,
    call: &Value,
    form: &Value,
) {
    fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/payments".into(),
        kind: FaultKind::ResetMidBody,
        times: None,
    });
    let result = client.tool(token, "billing_payments_list", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    fake.clear_faults();
    client.tool(token, "billing_nope", json!({})).await;
    client
        .tool(
            token,
            "billing_invoices_get",
            json!({"id": "../organization"}),
        )
        .await;
    client
        .tool(token, "billing_customers_list", json!({"per_page": "ten"}))
        .await;
    let auth = format!("Bearer {token}");
    client
        .post_raw(
            Some(&auth),
            &[("mcp-protocol-version", "2025-11-25")],
            "{not json".into(),
        )
        .await;
    client
        .post_raw(
            Some(&format!("Bearer {token} trailing")),
            &[],
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(),
        )
        .await;
    client
        .post_raw(
            Some(&format!("Basic {token}")),
            &[],
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(),
        )
        .await;
    client
        .post(
            Some(&auth),
            &[("origin", "https://evil.example.com")],
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        )
        .await;
    // The token in a GET (405) and a DELETE, which never pass authentication.
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = client
            .http
            .request(method, &client.url)
            .bearer_auth(token)
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 405);
        let text = response.text().await.unwrap_or_default();
        client.answers.push(text);
    }
    // Kobana refuses an opaque token (401) and an expired one never gets past the front.
    let result = client
        .tool(opaque, "billing_organization_get", json!({}))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    let asked = client
        .modern(opaque, "tools/call", call.clone(), form.clone())
        .await;
    assert!(asked.get("result").is_some(), "{asked}");
    let body = client.legacy(expired, "tools/list", json!({})).await;
    assert!(body.get("result").is_none(), "{body}");
}

#[tokio::test]
async fn a3_no_token_or_token_digest_in_any_log_line_or_answer_of_a_full_run() {
    let fake = FakeKobana::start().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: Duration::from_secs(5),
        ..Config::default()
    };
    let server = CapturedServer::start(config);
    let mut client = Client {
        http: kobana_mcp::net::client_builder()
            .build()
            .expect("HTTP client"),
        url: server.url(),
        answers: Vec::new(),
    };
    let token = full_token();
    let opaque = "opaque-kobana-api-token-7c1f04d2b9e8".to_owned();
    let expired = fake_kobana::expired_token();
    full_run(&mut client, &fake, &token, &opaque, &expired).await;
    let lines = server.finish();
    if let Some(path) = std::env::var_os("KOBANA_MCP_SECRETS_LOG") {
        std::fs::write(path, lines.join("\n")).expect("write the captured log");
    }

    // The capture works: the canary, the retry warning and the tool failure are there, and
    // TRACE/DEBUG lines from the stack underneath were recorded too.
    assert!(lines.iter().any(|l| l.contains(CANARY)), "capture is live");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("WARN kobana_mcp::kobana") && l.contains("attempt=1")),
        "the retried write was logged"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("tool failed") && l.contains("billing_payments_list")),
        "tool failures are logged with the tool name"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("INFO kobana_mcp::request") && l.contains(" person=")),
        "the request lines (OP-1) are among the scanned lines"
    );
    let verbose = lines
        .iter()
        .filter(|l| l.starts_with("TRACE") || l.starts_with("DEBUG"))
        .count();
    eprintln!(
        "secrets: {} log lines captured ({verbose} at TRACE/DEBUG), {} answers",
        lines.len(),
        client.answers.len()
    );
    assert!(lines.len() >= 50, "{} lines", lines.len());

    let mut needles = needles(&token);
    needles.extend(self::needles(&opaque));
    needles.extend(self::needles(&expired));
    let leaked = leaks(&lines, &needles);
    assert!(
        leaked.is_empty(),
        "{} log lines leak a secret; first: {:?}",
        leaked.len(),
        leaked.first()
    );
    let leaked = leaks(&client.answers, &needles);
    assert!(
        leaked.is_empty(),
        "{} answers echo a secret; first: {:?}",
        leaked.len(),
        leaked.first()
    );
    // The fake saw the token: it was sent, just never written down.
    assert!(fake.calls().iter().any(|c| c.authorized));
}

#[test]
fn the_capture_would_see_a_leaked_token_in_any_field_kind() {
    let capture = Capture::default();
    let token = full_token();
    let digest = token_digest(&BearerToken::new(token.clone()));
    tracing::subscriber::with_default(capture.clone(), || {
        tracing::info!(token = %token, "display field");
        tracing::debug!(header = ?format!("Bearer {token}"), "debug field");
        let error = std::io::Error::other(format!("wrapped {digest}"));
        tracing::warn!(
            error = &error as &(dyn std::error::Error + 'static),
            "error field"
        );
        let span = tracing::span!(Level::TRACE, "request", principal = %digest);
        let _entered = span.enter();
        tracing::trace!("inside");
    });
    let lines = capture.lines();
    let mut leaking: Vec<&String> = leaks(&lines, &needles(&token))
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    leaking.dedup();
    assert_eq!(leaking.len(), 4, "{lines:#?}");
}
