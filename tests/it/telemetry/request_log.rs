//! The request line (OP-1): a full end-to-end run, logged through the server's own
//! JSON-lines subscriber at its default filter, yields exactly one `kobana_mcp::request` line
//! per HTTP request, each with every field, and no line of the run — request line or any
//! other — holds the token, an argument value or a record's contents.
//!
//! The server runs on its own thread under the capturing dispatcher (as in `secrets.rs`); the
//! fake Kobana and the client run on the test's runtime.

use crate::common;
use fake_kobana::fixtures::ids::{INV_OPEN, PADARIA, UNKNOWN};

use std::time::Duration;

use common::thread_server::ThreadServer;
use fake_kobana::{FakeKobana, Fault, FaultKind, full_token};
use kobana_mcp::Config;
use kobana_mcp::access::{BearerToken, Principal};
use kobana_mcp::telemetry::record::person_digest;
use serde_json::{Value, json};

const SEARCH: &str = "Padaria";
const REASON: &str = "motivo-de-teste-do-log";

/// What one request's line must say (`None` = the field must be absent).
#[derive(Debug, Clone, Default)]
struct Expect {
    http_method: &'static str,
    status: u16,
    mcp_method: Option<&'static str>,
    target: Option<String>,
    era: Option<&'static str>,
    protocol_version: Option<&'static str>,
    client: Option<(&'static str, &'static str)>,
    person: bool,
    outcome: &'static str,
    error_code: Option<String>,
    kobana_statuses: Option<&'static str>,
    confirmation: Option<&'static str>,
}

struct Sent {
    expect: Expect,
    bytes: usize,
    /// Calls the fake Kobana saw during this request.
    kobana_seen: usize,
}

struct Client<'a> {
    fake: &'a FakeKobana,
    http: reqwest::Client,
    url: String,
    sent: Vec<Sent>,
    token: String,
}

impl Client<'_> {
    async fn send(&mut self, request: reqwest::RequestBuilder, expect: Expect) -> Value {
        let before = self.fake.calls().len();
        let response = request.send().await.expect("server answers");
        assert_eq!(response.status().as_u16(), expect.status, "{expect:?}");
        let body = response.bytes().await.expect("whole answer");
        self.sent.push(Sent {
            expect,
            bytes: body.len(),
            kobana_seen: self.fake.calls().len() - before,
        });
        serde_json::from_slice(&body).unwrap_or(Value::Null)
    }

    fn post(&self, headers: &[(&str, &str)], body: String) -> reqwest::RequestBuilder {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .bearer_auth(&self.token)
            .body(body);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        request
    }

    /// An era-2025 request (after `initialize`, with the version header).
    async fn legacy(&mut self, method: &'static str, params: Value, expect: Expect) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let request = self.post(&[("mcp-protocol-version", "2025-11-25")], body.to_string());
        let expect = Expect {
            http_method: "POST",
            mcp_method: Some(method),
            era: Some("2025"),
            protocol_version: Some("2025-11-25"),
            person: true,
            ..expect
        };
        self.send(request, expect).await
    }

    /// An era-2026 request, saying its client.
    async fn modern(
        &mut self,
        method: &'static str,
        mut params: Value,
        caps: Value,
        expect: Expect,
    ) -> Value {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
            "io.modelcontextprotocol/clientInfo": {"name": "log-check", "version": "2.1.0"},
        });
        let name = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mut headers = vec![
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ];
        if let Some(name) = name.as_deref() {
            headers.push(("mcp-name", name));
        }
        let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        let request = self.post(&headers, body.to_string());
        let expect = Expect {
            http_method: "POST",
            mcp_method: Some(method),
            era: Some("2026"),
            protocol_version: Some("2026-07-28"),
            client: Some(("log-check", "2.1.0")),
            person: true,
            ..expect
        };
        self.send(request, expect).await
    }
}

fn ok() -> Expect {
    Expect {
        status: 200,
        outcome: "ok",
        ..Expect::default()
    }
}

fn tool_ok(name: &str, kobana: &'static str) -> Expect {
    Expect {
        target: Some(name.to_owned()),
        kobana_statuses: Some(kobana),
        ..ok()
    }
}

/// Every kind of request the product answers, with what its line must say.
async fn full_run(client: &mut Client<'_>, fake: &FakeKobana) {
    // Era 2025: the handshake says the client; later requests carry the header.
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "legacy-client", "version": "1.0.3"}}});
    let request = client.post(&[], body.to_string());
    let expect = Expect {
        http_method: "POST",
        mcp_method: Some("initialize"),
        era: Some("2025"),
        protocol_version: Some("2025-06-18"),
        client: Some(("legacy-client", "1.0.3")),
        person: true,
        ..ok()
    };
    client.send(request, expect).await;
    client.legacy("tools/list", json!({}), ok()).await;
    client
        .modern("server/discover", json!({}), json!({}), ok())
        .await;
    client
        .modern("tools/list", json!({}), json!({}), ok())
        .await;
    tool_calls(client, fake).await;
    resources_prompts_and_completions(client).await;
    confirmations(client).await;
    failures_before_the_handler(client).await;
}

/// Tool calls: reads, a write retried after Kobana's 503, a tool error from Kobana, one before
/// Kobana, and a JSON-RPC error.
async fn tool_calls(client: &mut Client<'_>, fake: &FakeKobana) {
    let call = |name: &str, args: Value| json!({"name": name, "arguments": args});
    client
        .legacy(
            "tools/call",
            call("billing_customers_list", json!({"search": SEARCH})),
            tool_ok("billing_customers_list", "200"),
        )
        .await;
    let customer = client
        .legacy(
            "tools/call",
            call("billing_customers_get", json!({"id": PADARIA})),
            tool_ok("billing_customers_get", "200,200"),
        )
        .await;
    assert_eq!(customer["result"]["isError"], false, "{customer}");
    // A retried write: Kobana's 503, then its 200.
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: format!("/v1/invoices/{INV_OPEN}/send-reminder"),
        kind: FaultKind::Status {
            status: 503,
            retry_after: None,
        },
        times: Some(1),
    });
    client
        .legacy(
            "tools/call",
            call("billing_invoices_send_reminder", json!({"id": INV_OPEN})),
            tool_ok("billing_invoices_send_reminder", "503,200"),
        )
        .await;
    // A tool error from Kobana, one before Kobana, and a JSON-RPC error.
    client
        .legacy(
            "tools/call",
            call("billing_invoices_get", json!({"id": UNKNOWN})),
            Expect {
                outcome: "tool_error",
                error_code: Some("KOBANA_NOT_FOUND".into()),
                ..tool_ok("billing_invoices_get", "404")
            },
        )
        .await;
    client
        .legacy(
            "tools/call",
            call("billing_customers_list", json!({"per_page": "ten"})),
            Expect {
                outcome: "tool_error",
                error_code: Some("INVALID_ARGUMENTS".into()),
                ..tool_ok("billing_customers_list", "")
            },
        )
        .await;
    client
        .legacy(
            "tools/call",
            call("billing_nope_for_someone@example.com", json!({})),
            Expect {
                outcome: "jsonrpc_error",
                error_code: Some("-32602".into()),
                ..tool_ok("unknown", "")
            },
        )
        .await;
}

/// A resource (by its template), a PDF streamed, a prompt and a completion.
async fn resources_prompts_and_completions(client: &mut Client<'_>) {
    client
        .legacy(
            "resources/read",
            json!({"uri": format!("kobana://billing/invoices/{INV_OPEN}")}),
            // The open invoice, then its payments (the codes it is paid with).
            tool_ok("kobana://billing/invoices/{id}", "200,200"),
        )
        .await;
    client
        .legacy(
            "resources/read",
            json!({"uri": format!("kobana://billing/invoices/{INV_OPEN}/pdf")}),
            tool_ok("kobana://billing/invoices/{id}/pdf", "200"),
        )
        .await;
    client
        .legacy(
            "prompts/get",
            json!({"name": "customer_overview", "arguments": {"customer_id": PADARIA}}),
            Expect {
                target: Some("customer_overview".into()),
                ..ok()
            },
        )
        .await;
    client
        .legacy(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "customer_overview"},
                   "argument": {"name": "customer_id", "value": "Pa"}}),
            tool_ok("customer_overview", "200"),
        )
        .await;
}

/// Confirmations: asked then declined, asked then confirmed, and a mismatched answer.
async fn confirmations(client: &mut Client<'_>) {
    let form = json!({"elicitation": {"form": {}}});
    let void = json!({"name": "billing_invoices_void",
        "arguments": {"id": INV_OPEN, "reason": REASON}});
    let destructive = |outcome, confirmation, kobana| Expect {
        target: Some("billing_invoices_void".into()),
        outcome,
        confirmation: Some(confirmation),
        kobana_statuses: Some(kobana),
        ..ok()
    };
    for (answer, outcome, error, step, kobana) in [
        (
            json!({"action": "decline"}),
            "tool_error",
            Some("USER_DECLINED"),
            "declined",
            "",
        ),
        (
            json!({"action": "accept", "content": {"confirm": true}}),
            "ok",
            None,
            "confirmed",
            "200",
        ),
    ] {
        let asked = client
            .modern(
                "tools/call",
                void.clone(),
                form.clone(),
                destructive("input_required", "asked", "200,200"),
            )
            .await;
        let state = asked["result"]["requestState"]
            .as_str()
            .unwrap_or_else(|| panic!("{asked}"))
            .to_owned();
        let mut retry = void.clone();
        retry["requestState"] = json!(state);
        retry["inputResponses"] = json!({"confirm": answer});
        let expect = Expect {
            error_code: error.map(str::to_owned),
            ..destructive(outcome, step, kobana)
        };
        client
            .modern("tools/call", retry, form.clone(), expect)
            .await;
    }
    let mut stale = json!({"name": "billing_invoices_void",
        "arguments": {"id": "6f1c1b1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b", "reason": REASON}});
    stale["requestState"] = json!(kobana_mcp::confirm::new_nonce().unwrap());
    stale["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    let body = client
        .modern(
            "tools/call",
            stale,
            form.clone(),
            Expect {
                outcome: "tool_error",
                error_code: Some("KOBANA_NOT_FOUND".into()),
                ..destructive("tool_error", "mismatched", "404")
            },
        )
        .await;
    assert!(body.get("result").is_some(), "{body}");
}

/// Failures before the handler: bad JSON, no token, a GET, another path, the metadata.
async fn failures_before_the_handler(client: &mut Client<'_>) {
    let request = client.post(&[("mcp-protocol-version", "2025-11-25")], "{nope".into());
    let expect = Expect {
        http_method: "POST",
        status: 400,
        person: true,
        outcome: "jsonrpc_error",
        error_code: Some("-32700".into()),
        ..Expect::default()
    };
    client.send(request, expect).await;
    let request = client
        .http
        .post(&client.url)
        .header("content-type", "application/json")
        .body(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string());
    let expect = Expect {
        http_method: "POST",
        status: 401,
        outcome: "http_error",
        ..Expect::default()
    };
    client.send(request, expect).await;
    let request = client
        .http
        .get(&client.url)
        .header("accept", "text/event-stream");
    let expect = Expect {
        http_method: "GET",
        status: 405,
        outcome: "http_error",
        ..Expect::default()
    };
    client.send(request, expect).await;
    let base = client.url.trim_end_matches("/mcp").to_owned();
    let request = client
        .http
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"));
    let expect = Expect {
        http_method: "GET",
        ..ok()
    };
    client.send(request, expect).await;
    let request = client.http.get(format!("{base}/elsewhere"));
    let expect = Expect {
        http_method: "GET",
        status: 404,
        outcome: "http_error",
        ..Expect::default()
    };
    client.send(request, expect).await;
}

fn field<'a>(line: &'a Value, name: &str) -> Option<&'a Value> {
    line["fields"].get(name)
}

fn text<'a>(line: &'a Value, name: &str) -> Option<&'a str> {
    field(line, name).and_then(Value::as_str)
}

/// Text in a record that must never be logged: names, e-mails, documents, descriptions.
fn record_contents(fake: &FakeKobana) -> Vec<String> {
    let mut found = Vec::new();
    for collection in ["customers", "invoices"] {
        for record in fake.records(collection) {
            for key in ["name", "email", "document_number", "description", "phone"] {
                if let Some(value) = record.get(key).and_then(Value::as_str)
                    && value.len() >= 6
                {
                    found.push(value.to_owned());
                }
            }
        }
    }
    found
}

#[tokio::test]
async fn one_request_line_per_http_request_with_every_field_and_nothing_private() {
    let fake = FakeKobana::start().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: Duration::from_secs(5),
        ..Config::default()
    };
    let (mut server, buffer) = ThreadServer::start_logged(config);
    let token = full_token();
    let mut client = Client {
        fake: &fake,
        http: kobana_mcp::net::client_builder().build().unwrap(),
        url: server.url(),
        sent: Vec::new(),
        token: token.clone(),
    };
    full_run(&mut client, &fake).await;
    // A line is written when its answer's body is dropped, just after the client read it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.stop();
    let log = buffer.text();
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let requests: Vec<&Value> = lines
        .iter()
        .filter(|l| l["target"] == "kobana_mcp::request")
        .collect();
    assert_eq!(
        requests.len(),
        client.sent.len(),
        "one request line per HTTP request:\n{log}"
    );
    let principal = Principal::from_token(BearerToken::new(token.clone()), 0).unwrap();
    let person = person_digest(&principal.organization, &principal.person);
    let mut ids = std::collections::HashSet::new();
    for (line, sent) in requests.iter().zip(&client.sent) {
        check_line(line, sent, &person, &mut ids);
    }
    // The PDF line counted the streamed document, not the placeholder.
    let pdf = requests
        .iter()
        .find(|l| text(l, "target") == Some("kobana://billing/invoices/{id}/pdf"))
        .unwrap();
    assert!(
        field(pdf, "bytes_out").unwrap().as_u64().unwrap() > 1000,
        "{pdf}"
    );

    nothing_private(&log, &token, &fake);
}

/// Nothing private in any line of the run: the token, its digest, the argument values, the
/// fixtures' names and e-mails.
fn nothing_private(log: &str, token: &str, fake: &FakeKobana) {
    let mut needles = vec![
        token.to_owned(),
        kobana_mcp::access::token_digest(&BearerToken::new(token.to_owned())),
        SEARCH.to_owned(),
        REASON.to_owned(),
        PADARIA.to_owned(),
        INV_OPEN.to_owned(),
        "someone@example.com".to_owned(),
    ];
    let contents = record_contents(fake);
    assert!(
        contents.len() >= 10,
        "the fixtures hold names and e-mails: {contents:?}"
    );
    needles.extend(contents);
    for line in log.lines() {
        for needle in &needles {
            assert!(
                !line.contains(needle.as_str()),
                "{needle:?} is logged: {line}"
            );
        }
    }
}

/// One request line against the request sent: every field, and a request id never seen before.
fn check_line(
    line: &Value,
    sent: &Sent,
    person: &str,
    ids: &mut std::collections::HashSet<String>,
) {
    let e = &sent.expect;
    let say = |name: &str| format!("{name} in {line} for {e:?}");
    assert_eq!(line["level"], "INFO");
    assert_eq!(text(line, "message"), Some("request"));
    let id = text(line, "request_id").expect("request_id");
    assert!(
        id.starts_with("local-") && ids.insert(id.to_owned()),
        "{}",
        say("request_id")
    );
    assert_eq!(
        text(line, "http_method"),
        Some(e.http_method),
        "{}",
        say("http_method")
    );
    assert_eq!(
        field(line, "http_status"),
        Some(&json!(e.status)),
        "{}",
        say("status")
    );
    assert_eq!(
        text(line, "mcp_method"),
        e.mcp_method,
        "{}",
        say("mcp_method")
    );
    assert_eq!(
        text(line, "target"),
        e.target.as_deref(),
        "{}",
        say("target")
    );
    if e.mcp_method.is_some() {
        assert_eq!(text(line, "era"), e.era, "{}", say("era"));
        assert_eq!(
            text(line, "protocol_version"),
            e.protocol_version,
            "{}",
            say("version")
        );
    }
    assert_eq!(
        text(line, "client_name"),
        e.client.map(|c| c.0),
        "{}",
        say("client")
    );
    assert_eq!(
        text(line, "client_version"),
        e.client.map(|c| c.1),
        "{}",
        say("client")
    );
    let expected_person = e.person.then_some(person);
    assert_eq!(text(line, "person"), expected_person, "{}", say("person"));
    assert_eq!(text(line, "outcome"), Some(e.outcome), "{}", say("outcome"));
    assert_eq!(
        text(line, "error_code"),
        e.error_code.as_deref(),
        "{}",
        say("error_code")
    );
    check_line_counts(line, sent, &say);
}

/// The line's counts against the request sent: Kobana's calls and statuses, the confirmation
/// step, the duration and the bytes answered.
fn check_line_counts(line: &Value, sent: &Sent, say: &dyn Fn(&str) -> String) {
    let e = &sent.expect;
    let calls = field(line, "kobana_calls").and_then(Value::as_u64);
    assert_eq!(
        calls,
        Some(sent.kobana_seen as u64),
        "{}",
        say("kobana_calls = the fake's")
    );
    if let Some(statuses) = e.kobana_statuses {
        assert_eq!(
            text(line, "kobana_statuses"),
            Some(statuses),
            "{}",
            say("kobana")
        );
        let calls = if statuses.is_empty() {
            0
        } else {
            statuses.split(',').count()
        };
        assert_eq!(
            field(line, "kobana_calls"),
            Some(&json!(calls)),
            "{}",
            say("calls")
        );
        let ms = field(line, "kobana_ms").and_then(Value::as_f64).unwrap();
        assert_eq!(calls == 0, ms == 0.0, "{}", say("kobana_ms"));
    }
    assert_eq!(
        text(line, "confirmation"),
        e.confirmation,
        "{}",
        say("confirmation")
    );
    let duration = field(line, "duration_ms").and_then(Value::as_f64).unwrap();
    assert!(duration > 0.0, "{}", say("duration_ms"));
    assert_eq!(
        field(line, "bytes_out"),
        Some(&json!(sent.bytes)),
        "{}",
        say("bytes_out")
    );
}
