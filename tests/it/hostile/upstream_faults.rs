//! Upstream faults from the fake Kobana: 500, 502, 503 with `Retry-After`, 429, answers slower
//! than the deadline, connections reset mid-body, truncated JSON, a PDF cut short, Kobana
//! unreachable.
//!
//! What must hold: reads are retried within one total deadline, then fail with a clear tool
//! error (never a protocol error, never the token); writes are retried only with an
//! idempotency key, and then a retry replays instead of applying twice; nothing answers later
//! than the deadline plus a small margin.

use crate::common;
use fake_kobana::fixtures::ids::INV_OPEN;

use std::time::{Duration, Instant};

use common::{Stack, error_code, text_of};
use fake_kobana::{Fault, FaultKind, full_token};
use kobana_mcp::Config;
use kobana_mcp::access::BearerToken;
use kobana_mcp::kobana::{KobanaClient, KobanaError};
use serde_json::{Value, json};

/// Scheduling slack on a loaded two-core machine.
const SLACK: Duration = Duration::from_millis(1500);

fn fault(method: &str, path: &str, kind: FaultKind, times: Option<u32>) -> Fault {
    Fault {
        method: Some(method.to_owned()),
        path_prefix: path.to_owned(),
        kind,
        times,
    }
}

fn status(status: u16, retry_after: Option<u64>) -> FaultKind {
    FaultKind::Status {
        status,
        retry_after,
    }
}

async fn stack_with_deadline(ms: u64) -> Stack {
    Stack::start_with(move |c| c.kobana_timeout = Duration::from_millis(ms)).await
}

/// Starts a stack whose Kobana deadline is `ms`, injects `fault` and calls `tool` once (no
/// arguments); returns the stack (for its recorded calls), the result and how long it took.
async fn call_under(ms: u64, fault: Fault, tool: &str) -> (Stack, Value, Duration) {
    let stack = stack_with_deadline(ms).await;
    stack.fake.inject(fault);
    let (result, elapsed) = timed_call(&stack, tool, json!({})).await;
    (stack, result, elapsed)
}

/// Calls a tool in era 2025; returns the result and how long the answer took.
async fn timed_call(stack: &Stack, tool: &str, args: Value) -> (Value, Duration) {
    let started = Instant::now();
    let result = stack.call(&full_token(), tool, args).await;
    (result, started.elapsed())
}

/// A failed read: `isError`, the given code, a text that says what happened, no token.
fn assert_tool_error(result: &Value, code: &str, says: &str) {
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(error_code(result), code, "{result}");
    let text = text_of(result);
    assert!(text.contains(says), "{text:?} should say {says:?}");
    assert!(
        !result.to_string().contains(&full_token()),
        "the token is echoed: {result}"
    );
}

fn calls(stack: &Stack, method: &str, path: &str) -> Vec<fake_kobana::RecordedCall> {
    stack
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.method == method && c.path == path)
        .collect()
}

#[tokio::test]
async fn a_500_on_a_read_is_retried_and_the_read_succeeds() {
    let stack = stack_with_deadline(3000).await;
    stack
        .fake
        .inject(fault("GET", "/v1/organization", status(500, None), Some(1)));
    let (result, _) = timed_call(&stack, "billing_organization_get", json!({})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(calls(&stack, "GET", "/v1/organization").len(), 2);
}

#[tokio::test]
async fn a_persistent_502_fails_after_three_attempts_with_a_clear_tool_error() {
    let (stack, result, elapsed) = call_under(
        3000,
        fault("GET", "/v1/organization", status(502, None), None),
        "billing_organization_get",
    )
    .await;
    assert_tool_error(&result, "KOBANA_UNAVAILABLE", "HTTP 502");
    assert_eq!(common::error_of(&result)["kobana_status"], 502);
    assert_eq!(calls(&stack, "GET", "/v1/organization").len(), 3);
    // Two back-offs (200 ms, 400 ms), far inside the 3 s deadline.
    assert!(elapsed >= Duration::from_millis(600), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(3000) + SLACK, "{elapsed:?}");
}

#[tokio::test]
async fn a_503_with_retry_after_is_retried_after_waiting_that_long() {
    let (stack, result, elapsed) = call_under(
        4000,
        fault("GET", "/v1/customers", status(503, Some(1)), Some(1)),
        "billing_customers_list",
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(calls(&stack, "GET", "/v1/customers").len(), 2);
    assert!(elapsed >= Duration::from_secs(1), "waited {elapsed:?}");
}

#[tokio::test]
async fn a_retry_after_beyond_the_deadline_fails_at_once_instead_of_waiting() {
    let (stack, result, elapsed) = call_under(
        2000,
        fault("GET", "/v1/customers", status(503, Some(3600)), None),
        "billing_customers_list",
    )
    .await;
    assert_tool_error(&result, "KOBANA_UNAVAILABLE", "HTTP 503");
    assert_eq!(calls(&stack, "GET", "/v1/customers").len(), 1);
    assert!(elapsed < Duration::from_millis(1000), "{elapsed:?}");
}

#[tokio::test]
async fn a_persistent_429_is_retried_honouring_retry_after_then_reported_with_the_wait() {
    // The fake sends `Retry-After: 1` with a 429.
    let (stack, result, elapsed) = call_under(
        2500,
        fault("GET", "/v1/invoices", status(429, None), None),
        "billing_invoices_list",
    )
    .await;
    assert_tool_error(&result, "KOBANA_RATE_LIMITED", "Tente de novo em 1 s");
    assert_eq!(calls(&stack, "GET", "/v1/invoices").len(), 3);
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(2500) + SLACK, "{elapsed:?}");
}

#[tokio::test]
async fn a_kobana_slower_than_the_deadline_is_cut_at_the_deadline_and_not_retried() {
    let (stack, result, elapsed) = call_under(
        1000,
        fault(
            "GET",
            "/v1/organization",
            FaultKind::Delay { ms: 10_000 },
            None,
        ),
        "billing_organization_get",
    )
    .await;
    assert_tool_error(&result, "KOBANA_TIMEOUT", "não respondeu em 1000 ms");
    assert!(elapsed >= Duration::from_millis(1000), "{elapsed:?}");
    assert!(elapsed < Duration::from_millis(1000) + SLACK, "{elapsed:?}");
    assert_eq!(calls(&stack, "GET", "/v1/organization").len(), 1);
}

#[tokio::test]
async fn a_slow_answer_within_the_deadline_is_served() {
    let (_stack, result, elapsed) = call_under(
        3000,
        fault(
            "GET",
            "/v1/organization",
            FaultKind::Delay { ms: 400 },
            Some(1),
        ),
        "billing_organization_get",
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert!(elapsed >= Duration::from_millis(400), "{elapsed:?}");
}

#[tokio::test]
async fn a_connection_reset_mid_body_on_a_read_is_retried_then_reported() {
    let stack = stack_with_deadline(3000).await;
    stack.fake.inject(fault(
        "GET",
        "/v1/customers",
        FaultKind::ResetMidBody,
        Some(1),
    ));
    let (result, _) = timed_call(&stack, "billing_customers_list", json!({})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["total"], 4, "{result}");
    assert_eq!(calls(&stack, "GET", "/v1/customers").len(), 2);

    stack.fake.clear_calls();
    stack
        .fake
        .inject(fault("GET", "/v1/customers", FaultKind::ResetMidBody, None));
    let (result, elapsed) = timed_call(&stack, "billing_customers_list", json!({})).await;
    assert_tool_error(
        &result,
        "KOBANA_UNREACHABLE",
        "Não foi possível falar com o Kobana",
    );
    assert_eq!(calls(&stack, "GET", "/v1/customers").len(), 3);
    assert!(elapsed < Duration::from_millis(3000) + SLACK, "{elapsed:?}");
}

#[tokio::test]
async fn truncated_json_on_a_read_is_retried_then_reported() {
    let stack = stack_with_deadline(3000).await;
    let path = format!("/v1/invoices/{INV_OPEN}");
    stack
        .fake
        .inject(fault("GET", &path, FaultKind::TruncatedJson, Some(1)));
    let (result, _) = timed_call(&stack, "billing_invoices_get", json!({"id": INV_OPEN})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["invoice"]["id"], INV_OPEN,
        "{result}"
    );
    assert_eq!(calls(&stack, "GET", &path).len(), 2);

    stack.fake.clear_calls();
    stack
        .fake
        .inject(fault("GET", &path, FaultKind::TruncatedJson, None));
    let (result, _) = timed_call(&stack, "billing_invoices_get", json!({"id": INV_OPEN})).await;
    assert_tool_error(
        &result,
        "KOBANA_INVALID_RESPONSE",
        "O Kobana respondeu algo inesperado",
    );
    assert_eq!(calls(&stack, "GET", &path).len(), 3);
}

#[tokio::test]
async fn an_unreachable_kobana_fails_fast_after_bounded_retries() {
    // Port 1 on loopback: connection refused at once.
    let stack = Stack::start_with(|c| {
        c.kobana_api_url = "http://127.0.0.1:1".to_owned();
        c.kobana_timeout = Duration::from_secs(5);
    })
    .await;
    let (result, elapsed) = timed_call(&stack, "billing_organization_get", json!({})).await;
    assert_tool_error(
        &result,
        "KOBANA_UNREACHABLE",
        "Não foi possível falar com o Kobana",
    );
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test]
async fn a_resource_read_is_retried_like_a_tool_read() {
    let stack = stack_with_deadline(3000).await;
    let path = format!("/v1/invoices/{INV_OPEN}");
    stack
        .fake
        .inject(fault("GET", &path, status(500, None), Some(2)));
    let (code, body) = stack
        .legacy(
            &full_token(),
            "resources/read",
            json!({"uri": format!("kobana://billing/invoices/{INV_OPEN}")}),
        )
        .await;
    assert_eq!(code, 200, "{body}");
    let text = body["result"]["contents"][0]["text"].as_str().unwrap_or("");
    assert!(text.contains(INV_OPEN), "{body}");
    assert_eq!(calls(&stack, "GET", &path).len(), 3);
}

// ---------------------------------------------------------------------------------------
// Writes.

fn reminder_path() -> String {
    format!("/v1/invoices/{INV_OPEN}/send-reminder")
}

async fn reminders_sent(stack: &Stack) -> Value {
    let result = stack
        .call(
            &full_token(),
            "billing_invoices_get",
            json!({"id": INV_OPEN}),
        )
        .await;
    result["structuredContent"]["invoice"]["metadata"]["reminders_sent"].clone()
}

#[tokio::test]
async fn a_write_hit_by_a_500_is_retried_with_the_same_idempotency_key_and_applied_once() {
    let stack = stack_with_deadline(3000).await;
    stack
        .fake
        .inject(fault("POST", &reminder_path(), status(500, None), Some(1)));
    let (result, _) = timed_call(
        &stack,
        "billing_invoices_send_reminder",
        json!({"id": INV_OPEN}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let posts = calls(&stack, "POST", &reminder_path());
    assert_eq!(posts.len(), 2, "{posts:?}");
    let key = posts[0]
        .idempotency_key
        .clone()
        .expect("writes carry a key");
    assert!(!key.is_empty());
    assert_eq!(posts[1].idempotency_key.as_deref(), Some(key.as_str()));
    assert_eq!(reminders_sent(&stack).await, 1);
}

#[tokio::test]
async fn a_write_whose_answer_is_lost_mid_body_is_replayed_not_applied_twice() {
    let stack = stack_with_deadline(3000).await;
    stack.fake.inject(fault(
        "POST",
        &reminder_path(),
        FaultKind::ResetMidBody,
        Some(1),
    ));
    let (result, _) = timed_call(
        &stack,
        "billing_invoices_send_reminder",
        json!({"id": INV_OPEN}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    let posts = calls(&stack, "POST", &reminder_path());
    assert_eq!(posts.len(), 2, "{posts:?}");
    assert_eq!(posts[0].idempotency_key, posts[1].idempotency_key);
    assert_eq!(
        reminders_sent(&stack).await,
        1,
        "the retry was replayed by its key, not applied again"
    );
}

#[tokio::test]
async fn a_void_whose_answer_is_lost_is_replayed_instead_of_failing_as_already_void() {
    let stack = stack_with_deadline(3000).await;
    let path = format!("/v1/invoices/{INV_OPEN}/void");
    stack
        .fake
        .inject(fault("POST", &path, FaultKind::TruncatedJson, Some(1)));
    let (result, _) = timed_call(
        &stack,
        "billing_invoices_void",
        json!({"id": INV_OPEN, "reason": "Cobrança em duplicidade"}),
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["invoice"]["status"], "void",
        "{result}"
    );
    let posts = calls(&stack, "POST", &path);
    assert_eq!(posts.len(), 2);
    assert_eq!(posts[0].idempotency_key, posts[1].idempotency_key);
}

#[tokio::test]
async fn a_write_that_times_out_is_not_retried() {
    let stack = stack_with_deadline(1000).await;
    stack.fake.inject(fault(
        "POST",
        &reminder_path(),
        FaultKind::Delay { ms: 3000 },
        None,
    ));
    let (result, elapsed) = timed_call(
        &stack,
        "billing_invoices_send_reminder",
        json!({"id": INV_OPEN}),
    )
    .await;
    assert_tool_error(&result, "KOBANA_TIMEOUT", "não respondeu");
    assert_eq!(calls(&stack, "POST", &reminder_path()).len(), 1);
    assert!(elapsed < Duration::from_millis(1000) + SLACK, "{elapsed:?}");
}

/// The client itself: a write without a key is sent once whatever happens; with a key it is
/// retried like a read.
#[tokio::test]
async fn the_client_never_retries_a_write_without_an_idempotency_key() {
    let fake = fake_kobana::FakeKobana::start().await;
    let config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: Duration::from_secs(3),
        ..Config::default()
    };
    let client = KobanaClient::new(&config).unwrap();
    let token = BearerToken::new(full_token());
    let path = reminder_path();
    let segments = ["invoices", INV_OPEN, "send-reminder"];
    for kind in [
        status(500, None),
        status(502, None),
        status(503, Some(1)),
        status(429, None),
        FaultKind::ResetMidBody,
        FaultKind::TruncatedJson,
    ] {
        fake.clear_calls();
        fake.clear_faults();
        fake.inject(fault("POST", &path, kind.clone(), None));
        // One bound client per request, as the server binds one (its budget is per request).
        let outcome = client
            .for_request(token.clone(), None)
            .send(reqwest::Method::POST, &segments, &[], None, None)
            .await;
        assert!(outcome.is_err(), "{kind:?}: {outcome:?}");
        let posts = fake.calls().into_iter().filter(|c| c.path == path).count();
        assert_eq!(
            posts, 1,
            "{kind:?}: a write without a key was sent {posts} times"
        );
    }

    fake.clear_calls();
    fake.clear_faults();
    fake.inject(fault("POST", &path, status(502, None), Some(2)));
    let outcome = client
        .for_request(token.clone(), None)
        .send(
            reqwest::Method::POST,
            &segments,
            &[],
            None,
            Some("6f1c2a3b-4d5e-4f60-8a71-b2c3d4e5f607"),
        )
        .await;
    assert!(outcome.is_ok(), "{outcome:?}");
    let keys: Vec<Option<String>> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path == path)
        .map(|c| c.idempotency_key)
        .collect();
    assert_eq!(
        keys,
        vec![Some("6f1c2a3b-4d5e-4f60-8a71-b2c3d4e5f607".to_owned()); 3]
    );

    // A read with three 500s in a row gives the last error, after three attempts.
    fake.clear_calls();
    fake.clear_faults();
    fake.inject(fault("GET", "/v1/organization", status(500, None), None));
    let outcome = client
        .for_request(token, None)
        .get(&["organization"], &[])
        .await;
    assert!(
        matches!(outcome, Err(KobanaError::Api { status: 500, .. })),
        "{outcome:?}"
    );
    assert_eq!(fake.calls().len(), 3);
}

// ---------------------------------------------------------------------------------------
// Documents.

fn pdf_uri() -> String {
    format!("kobana://billing/invoices/{INV_OPEN}/pdf")
}

fn pdf_path() -> String {
    format!("/v1/invoices/{INV_OPEN}/pdf")
}

/// Reads the invoice PDF resource in era 2025 over raw HTTP: `Ok(body)` when the whole answer
/// arrived, `Err` when the stream broke.
async fn read_pdf(stack: &Stack) -> (Result<Vec<u8>, String>, Duration) {
    let started = Instant::now();
    let response = stack
        .legacy_raw(&full_token(), "resources/read", json!({"uri": pdf_uri()}))
        .await;
    let bytes = response
        .bytes()
        .await
        .map(|b| b.to_vec())
        .map_err(|e| e.to_string());
    (bytes, started.elapsed())
}

#[tokio::test]
async fn a_pdf_cut_short_never_reaches_the_client_as_a_blob() {
    let stack = stack_with_deadline(3000).await;
    stack.fake.set_pdf_size(INV_OPEN, 200_000);
    for chunked in [false, true] {
        stack.fake.set_pdf_content_length(!chunked);
        stack
            .fake
            .inject(fault("GET", &pdf_path(), FaultKind::ResetMidBody, Some(1)));
        let (outcome, elapsed) = read_pdf(&stack).await;
        assert!(elapsed < Duration::from_millis(3000) + SLACK, "{elapsed:?}");
        if let Ok(bytes) = &outcome {
            let parsed: Option<Value> = serde_json::from_slice(bytes).ok();
            let blob = parsed
                .as_ref()
                .and_then(|v| v["result"]["contents"][0]["blob"].as_str());
            assert!(
                blob.is_none(),
                "a truncated PDF was delivered as a blob of {} chars",
                blob.map_or(0, str::len)
            );
        }
        // The next read, without a fault, delivers the whole document.
        let (outcome, _) = read_pdf(&stack).await;
        let bytes = outcome.expect("whole answer");
        let value: Value = serde_json::from_slice(&bytes).expect("JSON");
        let blob = value["result"]["contents"][0]["blob"]
            .as_str()
            .unwrap_or_else(|| panic!("no blob: {value:.300}"));
        use base64::Engine as _;
        let pdf = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap();
        assert_eq!(pdf.len(), 200_000, "chunked={chunked}");
    }
}

#[tokio::test]
async fn a_pdf_slower_than_the_deadline_is_an_error_at_the_deadline() {
    let stack = stack_with_deadline(1000).await;
    stack.fake.inject(fault(
        "GET",
        &pdf_path(),
        FaultKind::Delay { ms: 10_000 },
        None,
    ));
    let started = Instant::now();
    let (code, body) = stack
        .legacy(&full_token(), "resources/read", json!({"uri": pdf_uri()}))
        .await;
    let elapsed = started.elapsed();
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["error"]["code"], -32603, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("não respondeu"), "{message}");
    assert!(elapsed < Duration::from_millis(1000) + SLACK, "{elapsed:?}");
}

#[tokio::test]
async fn a_document_read_is_retried_on_a_5xx_like_any_other_read() {
    let stack = stack_with_deadline(3000).await;
    stack
        .fake
        .inject(fault("GET", &pdf_path(), status(503, None), Some(1)));
    let (result, _) = timed_call(&stack, "billing_invoices_pdf", json!({"id": INV_OPEN})).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(calls(&stack, "GET", &pdf_path()).len(), 2);

    stack.fake.clear_calls();
    stack
        .fake
        .inject(fault("GET", &pdf_path(), status(502, None), Some(1)));
    let (outcome, _) = read_pdf(&stack).await;
    let value: Value = serde_json::from_slice(&outcome.expect("whole answer")).unwrap();
    assert!(
        value["result"]["contents"][0]["blob"].as_str().is_some(),
        "{value:.300}"
    );
    assert_eq!(calls(&stack, "GET", &pdf_path()).len(), 2);
}

#[tokio::test]
async fn every_fault_at_once_answers_within_the_deadline() {
    let stack = stack_with_deadline(1500).await;
    let faults = [
        ("/v1/organization", FaultKind::Delay { ms: 10_000 }),
        ("/v1/customers", FaultKind::ResetMidBody),
        ("/v1/invoices", status(429, Some(30))),
        ("/v1/payments", FaultKind::TruncatedJson),
        ("/v1/nfes", status(503, Some(1))),
        ("/v1/subscriptions", status(500, None)),
    ];
    for (path, kind) in faults.iter().cloned() {
        stack.fake.inject(fault("GET", path, kind, None));
    }
    let tools = [
        "billing_organization_get",
        "billing_customers_list",
        "billing_invoices_list",
        "billing_payments_list",
        "billing_nfes_list",
        "billing_subscriptions_list",
    ];
    let token = full_token();
    let started = Instant::now();
    let results = futures_util::future::join_all(
        tools.iter().map(|tool| stack.call(&token, tool, json!({}))),
    )
    .await;
    let elapsed = started.elapsed();
    for (tool, result) in tools.iter().zip(&results) {
        assert_eq!(result["isError"], true, "{tool}: {result}");
        assert!(
            error_code(result).starts_with("KOBANA_"),
            "{tool}: {result}"
        );
    }
    assert!(elapsed < Duration::from_millis(1500) + SLACK, "{elapsed:?}");
}
