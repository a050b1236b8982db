//! The Kobana work of every list tool and every prompt (BW-2): at most 2 calls in at most 2
//! sequential rounds for a list, at most 2 rounds for a prompt, whatever the page holds, on a
//! server whose name cache is cold — read from each request's own record, which a caller in
//! the process can bring along (`RequestRecord` as a request extension).
//!
//! Then the work budget end to end (BW-1), on the real binary against a hostile upstream
//! (`crate::hostile::support::process`): `KOBANA_MAX_CALLS` ends a failing list after K calls with
//! the pt-BR budget error, `KOBANA_MAX_IN_FLIGHT` bounds the calls at once, and a retried
//! list stays within its bound — every attempt is a call, counted in K (BW-2: "2 calls"
//! are 2 reads when Kobana answers the first attempt; a retry adds one call and one round).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kobana_mcp::telemetry::RequestRecord;
use kobana_mcp::{App, Config};
use serde_json::{Value, json};

use crate::hostile::support::process::server::{Server, field, number};
use crate::hostile::support::process::upstream::{Answer, Upstream};
use crate::hostile::support::process::{error_code, invoice_page, json_answer, started, text};
use fake_kobana::fixtures::ids;
use fake_kobana::{FakeKobana, full_token};

const LIST_MAX_CALLS: usize = 2;
const MAX_ROUNDS: u32 = 2;
/// A list's calls when Kobana fails: its page read up to 3 times (a read's attempts), and
/// the names read, sent once.
const LIST_MAX_CALLS_WITH_RETRIES: usize = 4;

/// One era-2025 request through `App::handle`; its result and its record's calls and rounds.
async fn work_of(app: &App, method: &str, params: Value) -> (Value, usize, u32) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let record = Arc::new(RequestRecord::new("test".to_owned(), "POST"));
    let request = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("authorization", format!("Bearer {}", full_token()))
        .extension(record.clone())
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = app.handle(request).await;
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    let fields = record.snapshot();
    (
        value["result"].clone(),
        fields.kobana.len(),
        fields.kobana_rounds,
    )
}

async fn cold_app(fake: &FakeKobana) -> App {
    App::new(Config {
        kobana_api_url: fake.base_url(),
        ..Config::default()
    })
    .unwrap()
}

#[tokio::test]
async fn bw2_every_list_costs_at_most_two_calls_in_two_rounds() {
    let fake = FakeKobana::start().await;
    let lists: Vec<&str> = kobana_mcp::catalog::registry()
        .all()
        .iter()
        .filter(|t| matches!(t.meta.output, kobana_mcp::catalog::Output::List { .. }))
        .map(|t| t.meta.name)
        .collect();
    assert_eq!(lists.len(), 8, "{lists:?}");
    let mut over = Vec::new();
    for tool in lists {
        let app = cold_app(&fake).await;
        let (result, calls, rounds) = work_of(
            &app,
            "tools/call",
            json!({"name": tool, "arguments": {"per_page": 100}}),
        )
        .await;
        assert_ne!(result["isError"], true, "{tool}: {result}");
        assert!(calls >= 1, "{tool}: the record counted no call");
        if calls > LIST_MAX_CALLS || rounds > MAX_ROUNDS {
            over.push(format!("{tool}: {calls} calls in {rounds} rounds"));
        }
    }
    assert!(over.is_empty(), "{over:#?}");
}

#[tokio::test]
async fn bw2_every_prompt_costs_at_most_two_rounds() {
    let fake = FakeKobana::start().await;
    let prompts = [
        ("collect_overdue_invoices", json!({})),
        (
            "collect_overdue_invoices",
            json!({"customer_id": ids::PADARIA}),
        ),
        ("review_pending_nfes", json!({})),
        ("customer_overview", json!({"customer_id": ids::PADARIA})),
        ("monthly_billing_summary", json!({"month": "2026-08"})),
    ];
    let mut over = Vec::new();
    for (name, arguments) in prompts {
        let app = cold_app(&fake).await;
        let (result, calls, rounds) = work_of(
            &app,
            "prompts/get",
            json!({"name": name, "arguments": arguments}),
        )
        .await;
        assert!(result["messages"].is_array(), "{name}: {result}");
        if rounds > MAX_ROUNDS {
            over.push(format!("{name}: {calls} calls in {rounds} rounds"));
        }
    }
    assert!(over.is_empty(), "{over:#?}");
}

/// The names round's page of accounts for [`invoice_page`]`(n)`: each account with its
/// customer embedded, the first one's named as [`named_account`] names it.
fn named_accounts(n: usize) -> Answer {
    let accounts: Vec<Value> = (0..n)
        .map(|i| {
            json!({"id": format!("10000000-0000-4000-8000-{i:012}"),
                "customer": {"name": if i == 0 { "Padaria Pão Dourado Ltda".to_owned() } else { format!("Cliente {i}") }}})
        })
        .collect();
    json_answer(
        200,
        json!({"data": accounts, "meta": {"total": n, "page": 1, "per_page": 100, "total_pages": 1}}),
    )
}

/// The billing account of a names read, with its customer embedded.
fn named_account() -> Answer {
    json_answer(
        200,
        json!({"data": {"id": "10000000-0000-4000-8000-000000000000",
            "customer": {"name": "Padaria Pão Dourado Ltda"}}}),
    )
}

#[tokio::test]
async fn bw1_a_spent_call_budget_ends_a_failing_list_after_k_calls_in_pt_br() {
    let (upstream, server) = started(&[("KOBANA_MAX_CALLS", "2")]).await;
    upstream.route("GET", "/v1/invoices", |_| {
        json_answer(
            503,
            json!({"error": {"code": "unavailable", "message": "later"}}),
        )
    });
    let (before, mark) = (upstream.calls(), server.mark());
    let result = server.call("billing_invoices_list", json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(error_code(&result), "WORK_BUDGET_SPENT", "{result}");
    assert!(
        text(&result).contains("já fez 2 chamadas ao Kobana (tentativas incluídas)")
            && text(&result).contains("nada mais foi enviado"),
        "{result}"
    );
    assert_eq!(upstream.calls() - before, 2, "{:#?}", upstream.seen());
    let line = server.request_line(mark, "billing_invoices_list").await;
    assert_eq!(number(&line, "kobana_calls"), Some(2), "{line}");
    assert_eq!(
        field(&line, "error_code"),
        Some("WORK_BUDGET_SPENT"),
        "{line}"
    );
}

/// `review_pending_nfes` on a server started with `env`, every Kobana answer 150 ms late:
/// the most calls the upstream saw at once, and the request line.
async fn pending_nfes_at_once(env: &[(&str, &str)]) -> (usize, String) {
    let (upstream, server) = started(env).await;
    let late = Duration::from_millis(150);
    let page = invoice_page(3);
    upstream.route("GET", "/v1/invoices", move |_| {
        json_answer(200, page.clone()).after(late)
    });
    upstream.route("GET", "/v1/nfes", move |_| {
        json_answer(
            200,
            json!({"data": [], "meta": {"total": 0, "page": 1, "per_page": 100, "total_pages": 0}}),
        )
        .after(late)
    });
    upstream.route("GET", "/v1/billing_accounts/", move |_| {
        named_account().after(late)
    });
    upstream.route("GET", "/v1/billing_accounts?", move |_| {
        named_accounts(3).after(late)
    });
    let (before, mark) = (upstream.calls(), server.mark());
    let (status, body) = server.prompt("review_pending_nfes").await;
    assert_eq!(status, 200, "{body}");
    assert!(body["result"]["messages"].is_array(), "{body}");
    assert_eq!(
        upstream.calls() - before,
        3,
        "two lists and a names read: {:#?}",
        upstream.seen()
    );
    let line = server.request_line(mark, "review_pending_nfes").await;
    (upstream.most_in_flight(), line)
}

#[tokio::test]
async fn bw1_kobana_max_in_flight_1_sends_a_fan_out_one_call_at_a_time() {
    // By default the prompt reads both lists at once: 2 in flight, 2 rounds.
    let (most, line) = pending_nfes_at_once(&[]).await;
    assert_eq!(most, 2, "{line}");
    assert_eq!(number(&line, "kobana_rounds"), Some(2), "{line}");
    // One slot: one call at a time, so the same 3 calls take 3 rounds.
    let (most, line) = pending_nfes_at_once(&[("KOBANA_MAX_IN_FLIGHT", "1")]).await;
    assert_eq!(most, 1, "{line}");
    assert_eq!(number(&line, "kobana_calls"), Some(3), "{line}");
    assert_eq!(number(&line, "kobana_rounds"), Some(3), "{line}");
}

/// A list whose first read Kobana answers 503 and every later one with a page.
async fn list_after_one_503(server: &Server, upstream: &Upstream) -> (Value, usize, String) {
    let failed = Arc::new(AtomicUsize::new(0));
    let page = invoice_page(3);
    upstream.route("GET", "/v1/invoices", move |_| {
        if failed.fetch_add(1, Ordering::SeqCst) == 0 {
            json_answer(
                503,
                json!({"error": {"code": "unavailable", "message": "later"}}),
            )
        } else {
            json_answer(200, page.clone())
        }
    });
    upstream.route("GET", "/v1/billing_accounts/", |_| named_account());
    upstream.route("GET", "/v1/billing_accounts?", |_| named_accounts(3));
    let (before, mark) = (upstream.calls(), server.mark());
    let result = server.call("billing_invoices_list", json!({})).await;
    let line = server.request_line(mark, "billing_invoices_list").await;
    (result, upstream.calls() - before, line)
}

#[tokio::test]
async fn bw2_a_retried_list_stays_within_its_bound_and_every_attempt_counts_in_k() {
    let (upstream, server) = started(&[]).await;
    let (result, calls, line) = list_after_one_503(&server, &upstream).await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["invoices"][0]["customer"], "Padaria Pão Dourado Ltda",
        "{result}"
    );
    // The page twice (503, then 200), then the names read: 3 calls, each after the last.
    assert_eq!(calls, 3, "{:#?}", upstream.seen());
    assert!(calls <= LIST_MAX_CALLS_WITH_RETRIES);
    assert_eq!(number(&line, "kobana_calls"), Some(3), "{line}");
    assert_eq!(number(&line, "kobana_rounds"), Some(3), "{line}");
    assert_eq!(
        field(&line, "kobana_statuses"),
        Some("503,200,200"),
        "{line}"
    );
    // The retry took one of K: with K = 2 the names read is not sent, the list still stands.
    let (upstream, server) = started(&[("KOBANA_MAX_CALLS", "2")]).await;
    let (result, calls, line) = list_after_one_503(&server, &upstream).await;
    assert_ne!(result["isError"], true, "{result}");
    assert!(
        result["structuredContent"]["invoices"][0]
            .get("customer")
            .is_none(),
        "{result}"
    );
    assert_eq!(calls, 2, "{:#?}", upstream.seen());
    assert_eq!(field(&line, "kobana_statuses"), Some("503,200"), "{line}");
}

#[tokio::test]
async fn ui1_the_month_report_costs_at_most_two_rounds() {
    let fake = FakeKobana::start().await;
    let app = cold_app(&fake).await;
    let (result, calls, rounds) = work_of(
        &app,
        "tools/call",
        json!({"name": "billing_reports_month", "arguments": {"month": "2026-08"}}),
    )
    .await;
    assert_ne!(result["isError"], true, "{result}");
    // The fixture month fits a page of each list: both first pages, at once.
    assert_eq!((calls, rounds), (2, 1), "{result}");
    let most = 2 * kobana_mcp::catalog::curated::reports::MAX_PAGES as usize;
    assert!(calls <= most && rounds <= MAX_ROUNDS);
}
