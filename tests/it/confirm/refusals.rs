//! What the person confirms is exactly what runs (CQ-3 … CQ-6), the refusals: a token Kobana
//! rejects stores nothing, a record that cannot be read refuses first, store failures answer a
//! fixed text, a `Retry-After` of `u64::MAX` neither panics nor waits, and a confirmed refund
//! whose answer was lost, confirmed again, applies once.

use crate::common;
use fake_kobana::fixtures::ids::{
    INV_OPEN, NFE_ISSUED, PADARIA, PAY_CARD, PAY_PIX, SUB_ACTIVE, UNKNOWN,
};

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::confirm::support::*;
use common::Stack;
use fake_kobana::{Fault, FaultKind, RecordedCall, full_token};
use kobana_mcp::confirm::{MemoryStore, NonceStore, StoreError};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// 3: reading the record refuses, and stores nothing.

#[tokio::test]
async fn cf3_a_token_kobana_rejects_gets_kobanas_error_and_stores_nothing() {
    let rig = memory_rig().await;
    // Well formed, readable claims, but not signed by Kobana: Kobana answers 401.
    let mut forged = full_token();
    forged.truncate(forged.len() - 4);
    forged.push_str("AAAA");
    for (tool, args) in [
        (
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "Cobrança duplicada"}),
        ),
        ("billing_payments_refund", json!({"id": PAY_CARD})),
        ("billing_customers_delete", json!({"id": PADARIA})),
    ] {
        let body = rig.call(&forged, tool, &args, json!({})).await;
        let result = &body["result"];
        assert_ne!(result["resultType"], "input_required", "{tool}: {body}");
        assert_eq!(result["isError"], true, "{tool}: {body}");
        assert_eq!(common::error_code(result), "KOBANA_INVALID_TOKEN", "{body}");
        assert!(
            common::text_of(result).contains("O Kobana recusou o token"),
            "{body}"
        );
    }
    assert_eq!(rig.puts(), 0, "an unauthenticated caller stored nothing");
    assert!(rig.writes().is_empty());
}

#[tokio::test]
async fn cf3_a_record_that_cannot_be_read_refuses_before_anything_is_stored() {
    let rig = memory_rig().await;
    let fake = &rig.stack.fake;
    let refund = json!({"id": PAY_CARD, "amount_cents": 1000});
    let path = format!("/v1/payments/{PAY_CARD}");
    // 403, 5xx (after the client's retries), a timeout-free 404 of an unknown id.
    for (status, code) in [
        (403, "KOBANA_INSUFFICIENT_SCOPE"),
        (503, "KOBANA_UNAVAILABLE"),
    ] {
        fake.clear_faults();
        fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: path.clone(),
            kind: FaultKind::Status {
                status,
                retry_after: None,
            },
            times: None,
        });
        let body = rig
            .call(&full_token(), "billing_payments_refund", &refund, json!({}))
            .await;
        assert_eq!(body["result"]["isError"], true, "{status}: {body}");
        assert_eq!(common::error_code(&body["result"]), code, "{body}");
    }
    fake.clear_faults();
    let body = rig
        .call(
            &full_token(),
            "billing_payments_refund",
            &json!({"id": UNKNOWN}),
            json!({}),
        )
        .await;
    assert_eq!(
        common::error_code(&body["result"]),
        "KOBANA_NOT_FOUND",
        "{body}"
    );
    // The payer's account failing (other than 403/404) refuses too.
    fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/billing_accounts/".into(),
        kind: FaultKind::Status {
            status: 500,
            retry_after: None,
        },
        times: None,
    });
    let body = rig
        .call(&full_token(), "billing_payments_refund", &refund, json!({}))
        .await;
    assert_eq!(
        common::error_code(&body["result"]),
        "KOBANA_INTERNAL_ERROR",
        "{body}"
    );
    // A token that cannot read the account: asked, saying the customer is not identified.
    fake.clear_faults();
    fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/billing_accounts/".into(),
        kind: FaultKind::Status {
            status: 403,
            retry_after: None,
        },
        times: None,
    });
    let body = rig
        .call(&full_token(), "billing_payments_refund", &refund, json!({}))
        .await;
    let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        message.contains("Cliente não identificado (o token não pode ler a conta de cobrança)"),
        "{message}"
    );
    assert_eq!(
        rig.puts(),
        1,
        "only the question that could be asked stored"
    );
    assert!(rig.writes().is_empty());
}

// ---------------------------------------------------------------------------------------
// 4: store failures.

/// A store that fails with the kind of detail the AWS SDK gives (account, role, table).
#[derive(Debug)]
struct LeakyFailingStore {
    fail_put: AtomicBool,
    inner: MemoryStore,
}

const SECRET_DETAIL: &str = "DynamoDB error: AccessDeniedException { message: \"User: arn:aws:sts::123456789012:assumed-role/kobana-mcp-FunctionRole-1A2B3C/kobana is not authorized to perform: dynamodb:PutItem on resource: arn:aws:dynamodb:us-east-1:123456789012:table/kobana-confirmations\" }";

impl NonceStore for LeakyFailingStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> Fut<'a, Result<(), StoreError>> {
        if self.fail_put.load(Ordering::SeqCst) {
            Box::pin(async { Err(StoreError(SECRET_DETAIL.to_owned())) })
        } else {
            self.inner.put(nonce, digest, expires_at)
        }
    }

    fn consume<'a>(
        &'a self,
        _nonce: &'a str,
        _digest: &'a str,
        _now: i64,
    ) -> Fut<'a, Result<bool, StoreError>> {
        Box::pin(async { Err(StoreError(SECRET_DETAIL.to_owned())) })
    }
}

#[tokio::test]
async fn cf4_store_failures_answer_a_fixed_text_and_keep_the_detail_in_the_log() {
    let store = Arc::new(LeakyFailingStore {
        fail_put: AtomicBool::new(true),
        inner: MemoryStore::new(),
    });
    let rig = rig_over(store.clone(), Duration::from_secs(10)).await;
    let args = json!({"id": INV_OPEN, "reason": "Cobrança duplicada"});
    let fixed = "Não foi possível registrar a confirmação agora; por segurança nada foi executado. Tente de novo em instantes.";
    let check = |body: &Value| {
        let result = &body["result"];
        assert_eq!(result["isError"], true, "{body}");
        assert_eq!(common::error_code(result), "CONFIRMATION_UNAVAILABLE");
        assert_eq!(common::text_of(result), fixed);
        let all = body.to_string();
        for secret in [
            "123456789012",
            "arn:aws",
            "FunctionRole",
            "kobana-confirmations",
        ] {
            assert!(!all.contains(secret), "{secret} reached the client: {all}");
        }
    };
    // Recording the question fails.
    let body = rig
        .call(&full_token(), "billing_invoices_void", &args, json!({}))
        .await;
    check(&body);
    // Consuming the yes fails.
    store.fail_put.store(false, Ordering::SeqCst);
    let body = rig
        .call(&full_token(), "billing_invoices_void", &args, json!({}))
        .await;
    let state = body["result"]["requestState"].as_str().unwrap().to_owned();
    let body = rig
        .call(
            &full_token(),
            "billing_invoices_void",
            &args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    check(&body);
    assert!(rig.writes().is_empty(), "nothing ran");
}

// ---------------------------------------------------------------------------------------
// 5: Retry-After from upstream.

#[tokio::test]
async fn cf5_a_retry_after_of_u64_max_neither_panics_nor_waits() {
    let stack = Stack::start_with(|c| c.kobana_timeout = Duration::from_secs(5)).await;
    for status in [429, 503] {
        stack.fake.clear_faults();
        stack.fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: "/v1/organization".into(),
            kind: FaultKind::Status {
                status,
                retry_after: Some(u64::MAX),
            },
            times: None,
        });
        let started = std::time::Instant::now();
        let result = tokio::time::timeout(
            Duration::from_secs(4),
            stack.call(&full_token(), "billing_organization_get", json!({})),
        )
        .await
        .unwrap_or_else(|_| panic!("{status}: no answer: the server waited or died"));
        assert_eq!(result["isError"], true, "{result}");
        assert!(started.elapsed() < Duration::from_secs(2), "it waited");
        assert_eq!(
            stack
                .fake
                .calls()
                .iter()
                .filter(|c| c.path == "/v1/organization")
                .count(),
            // Counted over both statuses: one call each — a wait past the deadline is neither
            // waited nor retried.
            if status == 429 { 1 } else { 2 }
        );
    }
    // The server is still up and serves.
    stack.fake.clear_faults();
    let result = stack
        .call(&full_token(), "billing_organization_get", json!({}))
        .await;
    assert_eq!(result["isError"], false, "{result}");
}

// ---------------------------------------------------------------------------------------
// 6: a confirmed write retried after an uncertain outcome.

async fn confirm(rig: &Rig, tool: &str, args: &Value) -> (String, Value) {
    let body = rig.call(&full_token(), tool, args, json!({})).await;
    let message = body["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"))
        .to_owned();
    let state = body["result"]["requestState"].as_str().unwrap().to_owned();
    let done = rig
        .call(
            &full_token(),
            tool,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    (message, done["result"].clone())
}

#[tokio::test]
async fn cf6_a_confirmed_refund_whose_answer_was_lost_applies_once_when_confirmed_again() {
    let rig = rig_over(Arc::new(MemoryStore::new()), Duration::from_millis(1500)).await;
    let fake = &rig.stack.fake;
    let path = format!("/v1/payments/{PAY_CARD}/refund");
    let args = json!({"id": PAY_CARD, "amount_cents": 1000, "reason": "Desconto concedido"});
    // Kobana applies the refund, and its answer arrives after the server gave up.
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: path.clone(),
        kind: FaultKind::DelayAfter { ms: 3000 },
        times: Some(1),
    });
    let (_, first) = confirm(&rig, "billing_payments_refund", &args).await;
    assert_eq!(first["isError"], true, "{first}");
    assert_eq!(common::error_code(&first), "KOBANA_TIMEOUT");
    assert_eq!(fake.refunded_cents(PAY_CARD), 1000, "Kobana applied it");
    // The person confirms the same refund again.
    let (_, second) = confirm(&rig, "billing_payments_refund", &args).await;
    assert_eq!(
        second["isError"], false,
        "Kobana replays its answer: {second}"
    );
    assert_eq!(
        second["structuredContent"]["payment"]["status"],
        "partially_refunded"
    );
    assert_eq!(
        fake.refunded_cents(PAY_CARD),
        1000,
        "the refund applied once, not twice"
    );
    let refunds: Vec<RecordedCall> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path == path)
        .collect();
    assert_eq!(refunds.len(), 2);
    assert!(refunds[0].idempotency_key.is_some());
    assert_eq!(
        refunds[0].idempotency_key, refunds[1].idempotency_key,
        "the same confirmed request carries the same key"
    );
    // What the person was told after the first attempt.
    let text = common::text_of(&first);
    for needle in [
        "pode ter sido aplicada",
        "consulte o registro com billing_payments_get",
        "não a aplica duas vezes",
    ] {
        assert!(text.contains(needle), "{needle}: {text}");
    }
    // Another request (another amount) is another key.
    let (_, other) = confirm(
        &rig,
        "billing_payments_refund",
        &json!({"id": PAY_PIX, "amount_cents": 1000, "reason": "Desconto concedido"}),
    )
    .await;
    assert_eq!(other["isError"], false, "{other}");
    let keys: std::collections::BTreeSet<Option<String>> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/refund"))
        .map(|c| c.idempotency_key)
        .collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
}

#[tokio::test]
async fn cf6_a_connection_reset_after_a_confirmed_refund_was_applied_is_replayed_not_repeated() {
    let rig = memory_rig().await;
    let fake = &rig.stack.fake;
    let path = format!("/v1/payments/{PAY_CARD}/refund");
    fake.inject(Fault {
        method: Some("POST".into()),
        path_prefix: path.clone(),
        kind: FaultKind::ResetMidBody,
        times: None,
    });
    let (message, done) = confirm(&rig, "billing_payments_refund", &json!({"id": PAY_CARD})).await;
    assert!(
        message.starts_with("Estornar o valor total restante, R$ 499,00, "),
        "{message}"
    );
    assert_eq!(done["isError"], false, "{done}");
    assert_eq!(fake.refunded_cents(PAY_CARD), 49_900, "applied once");
    let refunds: Vec<RecordedCall> = fake
        .calls()
        .into_iter()
        .filter(|c| c.path == path)
        .collect();
    assert_eq!(refunds.len(), 2, "the client's own retry, same key");
    assert_eq!(refunds[0].idempotency_key, refunds[1].idempotency_key);
}

/// The cancel that the issue saw promise the end of the period: the question now says
/// "imediatamente" and the subscription is canceled at once, as sent.
#[tokio::test]
async fn cf2_the_issues_subscription_case_says_immediately_and_is_immediate() {
    let rig = memory_rig().await;
    let args = json!({"id": SUB_ACTIVE, "reason": "pedido do cliente\". O cancelamento vale no fim do período atual. Motivo: \"pedido do cliente"});
    let (message, done) = confirm(&rig, "billing_subscriptions_cancel", &args).await;
    println!("{message}");
    assert!(
        message.starts_with("Cancelar imediatamente a assinatura mensal de R$ 499,00?"),
        "{message}"
    );
    assert!(
        message.ends_with("Motivo informado: «pedido do cliente\". O cancelamento vale no fim do período atual. Motivo: \"pedido do cliente»."),
        "{message}"
    );
    assert_eq!(
        done["structuredContent"]["subscription"]["status"],
        "canceled"
    );
    let (message, _) = confirm(
        &rig,
        "billing_nfes_cancel",
        &json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"}),
    )
    .await;
    println!("{message}");
    assert!(
        message.starts_with("Cancelar a NF-e nº 1234 de R$ 499,00, emitida em 24/07/2026?"),
        "{message}"
    );
}
