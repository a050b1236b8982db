//! The log scan (BW-3, A-3): the hostile argument and URI corpora, plus a client name built
//! to forge log lines, run against the server on a thread of its own
//! under the server's own subscribers — the JSON lines of Lambda and the compact text of a
//! local run — at `RUST_LOG=trace`, the most verbose filter there is. No line may carry an
//! argument value, a URI the client sent, the token, or a raw control, bidi or zero-width
//! character.

use serde_json::{Value, json};

use crate::common::thread_server::{LogBuffer, ThreadServer};
use crate::common::{self, Stack, mcp_post};
use crate::hostile_support::argument_corpus::{hostile_tool_arguments, hostile_uri_cases};
use crate::hostile_support::cases::Case;
use crate::hostile_support::runner::{id_tools, run};
use fake_kobana::{FakeKobana, full_token};
use kobana_mcp::Config;
use kobana_mcp::telemetry::logging::{json_subscriber, log_filter, text_subscriber};

/// A client name that would split a text line and reverse what follows it.
const FORGING_CLIENT: &str = "evil\nFORGED client line\u{202E}\u{200B}";

/// Characters no log line may hold raw: controls (a line is split on `\n` before this runs),
/// bidi embeddings, overrides and isolates, zero-width characters.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || c == '\u{FEFF}'
}

/// The values a case sends: every string in its `arguments`, its `uri`, its client name.
fn sent_values(case: &Case) -> Vec<String> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let Ok(body) = serde_json::from_slice::<Value>(&case.body) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    strings(&body["params"]["arguments"], &mut out);
    strings(&body["params"]["uri"], &mut out);
    // Only values distinctive enough to be found by substring: not a plain identifier a log
    // line may name for its own reasons (a field called `document_number`), nor a piece of
    // the server's own URI templates, which the request line names (`kobana://billing/…`).
    out.retain(|v| {
        v.chars().count() >= 6
            && !v.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            && !kobana_mcp::resources::ENTRIES
                .iter()
                .any(|e| e.uri.contains(v.as_str()))
    });
    out
}

/// Runs the corpora and the forging requests under `subscriber`; returns the log and what was
/// sent.
async fn scanned_run(
    subscriber: impl Fn(LogBuffer) -> tracing::Dispatch,
) -> (String, Vec<String>, usize) {
    let fake = FakeKobana::start().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: std::time::Duration::from_secs(10),
        ..Config::default()
    };
    let log = LogBuffer::default();
    let mut server = ThreadServer::start(config, subscriber(log.clone()), || {});
    let stack = Stack {
        fake,
        url: server.url(),
        http: kobana_mcp::net::client_builder().build().unwrap(),
    };
    let mut cases = hostile_tool_arguments(&id_tools(&stack).await);
    cases.extend(hostile_uri_cases());
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "the corpus itself: {problems:#?}");
    let token = full_token();
    let forging = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "billing_organization_get", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": FORGING_CLIENT, "version": "1"}
        }}
    });
    let answer = mcp_post(&stack.http, &stack.url, forging.to_string())
        .bearer_auth(&token)
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "billing_organization_get")
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 200);
    let _ = answer.text().await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    server.stop();
    let mut sent: Vec<String> = cases.iter().flat_map(sent_values).collect();
    sent.sort();
    sent.dedup();
    (log.text(), sent, cases.len())
}

fn assert_clean(format: &str, log: &str, sent: &[String]) {
    let lines: Vec<&str> = log.lines().collect();
    assert!(
        lines.len() > 100,
        "{format}: only {} lines logged",
        lines.len()
    );
    let traces = common::token_traces(&full_token());
    let mut found = Vec::new();
    for line in &lines {
        if traces.iter().any(|trace| line.contains(trace.as_str())) {
            found.push(format!("the token: {line}"));
        }
        if let Some(c) = line.chars().find(|c| forbidden(*c)) {
            found.push(format!("raw {:?}: {line}", c));
        }
        if line.starts_with("FORGED") {
            found.push(format!("a forged line: {line}"));
        }
        for value in sent {
            if line.contains(value.as_str()) {
                found.push(format!("the value {value:?}: {line}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "{format}: {} findings in {} lines:\n{}",
        found.len(),
        lines.len(),
        found.join("\n")
    );
}

#[tokio::test]
async fn n2_n9_no_argument_uri_token_or_raw_control_in_any_json_line_at_trace() {
    let (log, sent, cases) = scanned_run(|log| {
        tracing::Dispatch::new(json_subscriber(log_filter(Some("trace")), move || {
            log.clone()
        }))
    })
    .await;
    assert!(
        sent.len() > 40,
        "{} distinctive values from {cases} cases",
        sent.len()
    );
    assert_clean("JSON lines", &log, &sent);
}

#[tokio::test]
async fn n2_n9_no_argument_uri_token_or_raw_control_in_any_text_line_at_trace() {
    let (log, sent, _) = scanned_run(|log| {
        tracing::Dispatch::new(text_subscriber(log_filter(Some("trace")), move || {
            log.clone()
        }))
    })
    .await;
    assert_clean("text lines", &log, &sent);
}
