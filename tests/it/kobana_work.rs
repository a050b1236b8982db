//! The Kobana work of every list tool and every prompt (BW-2): at most 2 calls in at most 2
//! sequential rounds for a list, at most 2 rounds for a prompt, whatever the page holds, on a
//! server whose name cache is cold — read from each request's own record, which a caller in
//! the process can bring along (`RequestRecord` as a request extension).

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kobana_mcp::telemetry::RequestRecord;
use kobana_mcp::{App, Config};
use serde_json::{Value, json};

use crate::fake_common::ids;
use fake_kobana::{FakeKobana, full_token};

const LIST_MAX_CALLS: usize = 2;
const MAX_ROUNDS: u32 = 2;

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
