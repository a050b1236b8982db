//! End-to-end tests of the payments toolset against the fake Kobana: every tool runs (T-1)
//! and refusals say what to change (T-4).

use crate::common;

use crate::catalog::support::*;
use common::{Stack, assert_refusals, assert_refused_before_kobana, text_of};
use fake_kobana::full_token;
use serde_json::json;

// ---------------------------------------------------------------- payments

#[tokio::test]
async fn t1_payments_tools_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();

    let list = stack
        .ok(
            "billing_payments_list",
            json!({"invoice_id": INV_PAID_NFE_ISSUED}),
        )
        .await;
    assert_eq!(ids(&list["payments"]), [PAY_CARD]);
    assert_eq!(list["payments"][0]["amount_brl"], "R$ 499,00");
    let failed = stack
        .ok(
            "billing_payments_list",
            json!({"status": "failed", "sort_by": "amount_cents"}),
        )
        .await;
    assert_eq!(ids(&failed["payments"]), [PAY_FAILED]);

    let got = stack
        .ok("billing_payments_get", json!({"id": PAY_PIX}))
        .await;
    assert_eq!(got["payment"]["payment_method_type"], "pix");
    assert_eq!(got["payment"]["amount_brl"], "R$ 1.200,00");
    assert_eq!(
        got["payment"]["paid_at_sao_paulo"],
        "2026-08-13T16:20:00-03:00"
    );

    let partial = stack
        .ok(
            "billing_payments_refund",
            json!({"id": PAY_PIX, "amount_cents": 10000, "reason": "Desconto concedido"}),
        )
        .await;
    assert_eq!(partial["payment"]["status"], "partially_refunded");
    let body = stack.kobana_calls(&format!("/v1/payments/{PAY_PIX}/refund"))[0]
        .body
        .clone();
    assert_eq!(
        body,
        Some(json!({"amount_cents": 10000, "reason": "Desconto concedido"}))
    );

    // Kobana refunds succeeded payments only: a partly refunded one is refused, with the
    // text that says so; a full refund of another succeeded payment goes through.
    let again = stack
        .call(&token, "billing_payments_refund", json!({"id": PAY_PIX}))
        .await;
    assert_eq!(again["isError"], true, "{again}");
    assert!(
        text_of(&again).contains("situação atual"),
        "{}",
        text_of(&again)
    );
    let full = stack
        .ok("billing_payments_refund", json!({"id": PAY_CARD}))
        .await;
    assert_eq!(full["payment"]["status"], "refunded");
    assert_eq!(
        stack.kobana_calls(&format!("/v1/payments/{PAY_CARD}/refund"))[0].body,
        Some(json!({}))
    );
}

#[tokio::test]
async fn t4_payment_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    assert_refusals(
        &stack,
        &token,
        vec![
            (
                "billing_payments_refund",
                json!({"id": PAY_CARD, "amount_cents": 60000}),
                &["amount_cents", "excede", "R$ 499,00"],
            ),
            (
                "billing_payments_refund",
                json!({"id": PAY_FAILED}),
                &["Somente pagamentos pagos"],
            ),
            (
                "billing_payments_get",
                json!({"id": UNKNOWN}),
                &["Não encontrado"],
            ),
        ],
    )
    .await;

    assert_refused_before_kobana(
        &stack,
        &token,
        vec![
            (
                "billing_payments_refund",
                json!({"id": PAY_CARD, "amount_cents": 0}),
                &["amount_cents"],
            ),
            ("billing_payments_get", json!({"id": "pay_123"}), &["UUID"]),
            (
                "billing_payments_list",
                json!({"invoice_id": "FAT-2026-000701"}),
                &["invoice_id"],
            ),
        ],
    )
    .await;
}
