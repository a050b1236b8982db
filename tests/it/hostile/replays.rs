//! The attacks of the bounded-work review, replayed against the real server binary as its own
//! process (`crate::hostile::support::process`): BW-1 (a 980 KB `fields` list: 75,000 copies of one name,
//! now past the front's byte scan, and 9,000 copies within it), BW-3 (argument values at
//! `RUST_LOG=info` and `trace`, those that reach Kobana included), BW-2 (a list over 100 accounts whose lookups fail; completions for an
//! unknown prompt) and BW-3 (a Kobana error code with a newline). Each one is measured: the
//! answer, the server's CPU, its peak RSS growth, the Kobana calls, and what it logged. The CPU
//! and memory bounds here guard against regressions; BW-1's and BW-8's figures are proven by the
//! benchmark (`bench/run.sh`, section 8).

use std::time::Duration;

use serde_json::{Value, json};

use crate::hostile::support::argument_corpus::{sent_strings, values_that_reach_kobana};
use crate::hostile::support::process::server::{field, number, plain};
use crate::hostile::support::process::upstream::{Answer, n1_arguments};
use crate::hostile::support::process::{invoice_page, json_answer, started};

/// BW-1's bound: the CPU the 980 KB request may cost beyond the same request with one field,
/// for the release binary (`KOBANA_MCP_BIN=target/release/kobana-mcp`) and for the debug one
/// the test command runs, whose JSON parsing is several times slower.
const N1_EXTRA_CPU_MS_RELEASE: u64 = 50;
const N1_EXTRA_CPU_MS_DEBUG: u64 = 200;
/// Peak RSS growth any of these requests may cause.
const MAX_RSS_GROWTH_MIB: f64 = 32.0;

fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

#[tokio::test]
async fn n1_seventy_five_thousand_copies_of_a_field_cost_what_one_does() {
    let (upstream, server) = started(&[]).await;
    let page = invoice_page(100);
    upstream.route("GET", "/v1/invoices", move |_| {
        json_answer(200, page.clone())
    });
    let one = json!({"per_page": 100, "fields": ["line_items"]});
    let many = n1_arguments(75_000);
    let body_bytes = many.to_string().len();
    assert!(
        (950_000..1_000_000).contains(&body_bytes),
        "the attack's arguments are about 980 KB: {body_bytes}"
    );
    let mut names = vec!["line_items"; 20];
    names.extend(["id", "number"]);
    let dupes = json!({"per_page": 100, "fields": names});
    let (baseline, base) = server
        .measure(server.call("billing_invoices_list", one))
        .await;
    let (duplicated, _) = server
        .measure(server.call("billing_invoices_list", dupes))
        .await;
    let params = json!({"name": "billing_invoices_list", "arguments": many});
    let ((status, attacked), cost) = server.measure(server.rpc("tools/call", params)).await;
    // Within the front's byte scan (HD-1), a list longer than the shape is the tool's refusal.
    let (within, within_cost) = server
        .measure(server.call("billing_invoices_list", n1_arguments(9_000)))
        .await;
    eprintln!(
        "BW-1: one field {base:?}, 75,000 copies ({body_bytes} B) {cost:?}, 9,000 {within_cost:?}"
    );
    assert_ne!(baseline["isError"], true, "{baseline}");
    assert_eq!(
        structured(&duplicated),
        structured(&baseline),
        "duplicates and names the row shows already change nothing"
    );
    assert_eq!(
        (status, &attacked["error"]["code"]),
        (400, &json!(-32600)),
        "75,000 values are past the front's scan, refused unread: {attacked}"
    );
    assert_eq!(
        crate::common::error_code(&within),
        "INVALID_ARGUMENTS",
        "a list longer than the shape is refused before any work: {within}"
    );
    assert!(
        within_cost.cpu_ms <= base.cpu_ms + N1_EXTRA_CPU_MS_DEBUG,
        "{within_cost:?}"
    );
    let release = function_binary_is_release();
    let bound = if release {
        N1_EXTRA_CPU_MS_RELEASE
    } else {
        N1_EXTRA_CPU_MS_DEBUG
    };
    assert!(
        cost.cpu_ms <= base.cpu_ms + bound,
        "the 980 KB request cost {} ms of CPU, {} more than one field (at most {bound}, {} build)",
        cost.cpu_ms,
        cost.cpu_ms.saturating_sub(base.cpu_ms),
        if release { "release" } else { "debug" }
    );
    assert!(cost.rss_growth_mib <= MAX_RSS_GROWTH_MIB, "{cost:?}");
}

/// Whether the binary under test is a release build (its path says so).
fn function_binary_is_release() -> bool {
    crate::lambda::support::function::binary()
        .components()
        .any(|c| c.as_os_str() == "release")
}

#[tokio::test]
async fn n6_a_list_over_a_hundred_accounts_costs_two_calls_even_when_lookups_fail() {
    // A budget that holds the whole page, so every row is there to be named.
    let (upstream, server) = started(&[("MCP_ANSWER_BUDGET_BYTES", "262144")]).await;
    let page = invoice_page(100);
    upstream.route("GET", "/v1/invoices", move |_| {
        json_answer(200, page.clone())
    });
    upstream.route("GET", "/v1/billing_accounts", |_| Answer::Json {
        status: 503,
        body: json!({"error": {"code": "unavailable", "message": "try later"}}).to_string(),
    });
    let before = upstream.calls();
    let mark = server.mark();
    let (result, cost) = server
        .measure(server.call("billing_invoices_list", json!({"per_page": 100})))
        .await;
    assert_ne!(
        result["isError"], true,
        "the list stands without names: {result}"
    );
    let rows = structured(&result)["invoices"].as_array().unwrap();
    assert_eq!(rows.len(), 100, "every row");
    // The page, then one names read (sent once, never retried, though it fails).
    assert_eq!(upstream.calls() - before, 2, "{:#?}", upstream.seen());
    assert!(cost.rss_growth_mib <= MAX_RSS_GROWTH_MIB, "{cost:?}");
    // The request line says the same: 2 calls, one after the other, and how each went.
    let line = server.request_line(mark, "billing_invoices_list").await;
    assert_eq!(number(&line, "kobana_calls"), Some(2), "{line}");
    assert_eq!(number(&line, "kobana_rounds"), Some(2), "{line}");
    assert_eq!(field(&line, "kobana_statuses"), Some("200,503"), "{line}");
}

#[tokio::test]
async fn n6_completions_for_an_unknown_prompt_call_kobana_zero_times() {
    let (upstream, server) = started(&[]).await;
    let before = upstream.calls();
    for (name, argument) in [
        ("no_such_prompt", "price_id"),
        ("no_such_prompt", "customer_id"),
        ("customer_overview", "price_id"),
    ] {
        let (status, body) = server
            .rpc(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": name},
                    "argument": {"name": argument, "value": "a"}}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let values = body["result"]["completion"]["values"].as_array();
        assert!(
            values.is_none_or(|v| v.is_empty()),
            "{name}/{argument}: {body}"
        );
    }
    assert_eq!(upstream.calls() - before, 0, "no Kobana call");
}

#[tokio::test]
async fn n2_argument_values_never_reach_the_log_at_rust_log_info_or_trace() {
    for level in ["info", "trace"] {
        let (_upstream, server) = started(&[("RUST_LOG", level)]).await;
        let secret = "maria.silva@example.com CPF 123.456.789-09";
        let result = server
            .call("billing_customers_get", json!({"id": secret}))
            .await;
        assert_eq!(result["isError"], true, "{result}");
        let uri = format!("kobana://billing/customers/{secret}");
        let _ = server.rpc("resources/read", json!({"uri": uri})).await;
        // The values that get past the checks and reach Kobana or another path.
        let reaching = values_that_reach_kobana();
        for case in &reaching {
            let body = String::from_utf8(case.body.clone()).unwrap();
            let (status, answer) = server.rpc_raw(body).await;
            assert_eq!(status, 200, "{}: {answer}", case.name);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let logs: Vec<String> = server.logs().iter().map(|l| plain(l)).collect();
        assert!(!logs.is_empty(), "{level}: the server logged its requests");
        let mut needles: Vec<String> = [
            "maria.silva",
            "123.456.789-09",
            "kobana://billing/customers/maria",
        ]
        .map(str::to_owned)
        .to_vec();
        needles.extend(reaching.iter().flat_map(sent_strings));
        for needle in &needles {
            let hits: Vec<&String> = logs.iter().filter(|l| l.contains(needle)).collect();
            assert!(hits.is_empty(), "{level}: {needle:?} in the log: {hits:?}");
        }
        // A raw newline in a value would start a line of its own: every line but the start-up
        // banner is an event's, starting with its timestamp.
        for line in logs.iter().filter(|l| !l.starts_with("kobana-mcp ")) {
            assert!(
                line.get(..5)
                    .is_some_and(|y| y[..4].bytes().all(|b| b.is_ascii_digit()) && y.ends_with('-')),
                "{level}: a line that is no event's: {line:?}"
            );
        }
    }
}

#[tokio::test]
async fn n9_a_kobana_error_code_with_a_newline_stays_on_one_log_line() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/organization", |_| Answer::Json {
        status: 422,
        body: json!({"error": {"code": "bad\nINJECTED fake log line\u{202E}", "message": "x"}})
            .to_string(),
    });
    let result = server.call("billing_organization_get", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let logs = server.logs();
    assert!(
        logs.iter().all(|l| !l.starts_with("INJECTED")),
        "a line of the log was forged: {logs:#?}"
    );
    assert!(
        logs.iter().all(|l| !l.contains('\u{202E}')),
        "a bidi override reached the log: {logs:#?}"
    );
}
