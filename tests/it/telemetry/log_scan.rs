//! The log scan (BW-3, A-3): the hostile argument and URI corpora, the values that get past
//! the checks and reach Kobana (an external id, search texts, completions, a prompt's
//! customer, a resource URI), plus a client name built to forge log lines, run against the
//! server on a thread of its own under the server's own subscribers — the JSON lines of
//! Lambda and the compact text of a local run — at `RUST_LOG=trace`, the most verbose filter
//! there is. No line may carry an argument value, a URI the client sent, the token, or a raw
//! control, bidi or zero-width character.
//!
//! Each event the subscriber writes is read as written (one write per event), before it is
//! split into lines: a raw newline inside a value shows as an event holding two lines.

use std::sync::{Arc, Mutex};

use serde_json::json;

use crate::common::thread_server::ThreadServer;
use crate::common::{self, Stack, mcp_post};
use crate::hostile::support::argument_corpus::{
    hostile_tool_arguments, hostile_uri_cases, sent_strings, values_that_reach_kobana,
};
use crate::hostile::support::cases::Case;
use crate::hostile::support::runner::{id_tools, run};
use fake_kobana::{FakeKobana, full_token};
use kobana_mcp::Config;
use kobana_mcp::telemetry::logging::{json_subscriber, log_filter, text_subscriber};

/// A client name that would split a text line and reverse what follows it.
const FORGING_CLIENT: &str = "evil\nFORGED client line\u{202E}\u{200B}";

/// Characters no log line may hold raw: controls (a raw newline included: an event is
/// checked before it is split into lines), bidi embeddings, overrides and isolates,
/// zero-width characters.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || c == '\u{FEFF}'
}

/// Every event the subscriber writes, as written (the fmt layer writes an event at once).
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Vec<u8>>>>);

impl std::io::Write for Events {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().push(data.to_vec());
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Values of the corpora a log line holds for its own reasons, so no substring search can
/// tell them apart: a dot (an address, a decimal), a number (a count). Blank values carry
/// nothing. Every other value is looked for, whatever its length or case: the corpora hold
/// no other such value, and the values that reach Kobana are distinctive sentinels.
const UNFINDABLE: [&str; 2] = [".", "10"];

/// The values a case sends ([`sent_strings`]) that a search can find: not blank, not
/// [`UNFINDABLE`], and not a piece of the server's own URI templates, which the request
/// line names (`kobana://billing/…`).
fn sent_values(case: &Case) -> Vec<String> {
    let mut out = sent_strings(case);
    out.retain(|v| {
        !v.trim().is_empty()
            && !UNFINDABLE.contains(&v.as_str())
            && !kobana_mcp::resources::ENTRIES
                .iter()
                .any(|e| e.uri.contains(v.as_str()))
    });
    out
}

/// Runs the corpora and the forging requests under `subscriber`; returns the log and what was
/// sent.
async fn scanned_run(
    subscriber: impl Fn(Events) -> tracing::Dispatch,
) -> (Vec<String>, Vec<String>, usize) {
    let fake = FakeKobana::start().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: std::time::Duration::from_secs(10),
        ..Config::default()
    };
    let log = Events::default();
    let mut server = ThreadServer::start(config, subscriber(log.clone()), || {});
    let stack = Stack {
        fake,
        url: server.url(),
        http: kobana_mcp::net::client_builder().build().unwrap(),
    };
    let mut cases = hostile_tool_arguments(&id_tools(&stack).await);
    cases.extend(hostile_uri_cases());
    cases.extend(values_that_reach_kobana());
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
    let events = log
        .0
        .lock()
        .unwrap()
        .iter()
        .map(|e| String::from_utf8_lossy(e).into_owned())
        .collect();
    (events, sent, cases.len())
}

fn assert_clean(format: &str, events: &[String], sent: &[String]) {
    assert!(
        events.len() > 100,
        "{format}: only {} events logged",
        events.len()
    );
    let traces = common::token_traces(&full_token());
    let mut found = Vec::new();
    for event in events {
        // One event, one line: the newline that ends it, and no other control.
        let line = event.strip_suffix('\n').unwrap_or(event);
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
        "{format}: {} findings in {} events:\n{}",
        found.len(),
        events.len(),
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
    // Every value that reaches Kobana is looked for, the short and lower-case ones too.
    for value in values_that_reach_kobana().iter().flat_map(sent_strings) {
        assert!(sent.contains(&value), "{value:?} is not looked for");
    }
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
