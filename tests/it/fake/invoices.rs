//! Writes and state transitions: invoices, payments and NF-e (customers and subscriptions are
//! in `resources.rs`).

use crate::fake::support::{Api, assert_error, assert_violation};
use fake_kobana::FAKE_NOW;
use fake_kobana::fixtures::ids;
use serde_json::{Value, json};

// ---------- invoices ----------

async fn create_draft(api: &Api) -> Value {
    let (status, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::BA_PADARIA, "description": "Serviços avulsos",
            "line_items": [
              {"description": "Hora técnica", "quantity": 3, "unit_amount_subcents": 1_500_000},
              {"description": "Deslocamento", "unit_amount_subcents": 499_000}
            ]}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn create_invoice_computes_totals_in_subcents() {
    let api = Api::new().await;
    let inv = create_draft(&api).await;
    assert_eq!(inv["status"], "draft");
    assert!(inv["number"].is_null());
    // 3 × R$150,00 + 1 × R$49,90 = R$499,90 (subcents ÷10000, cents ÷100)
    assert_eq!(inv["subtotal_subcents"], 4_999_000);
    assert_eq!(inv["total_subcents"], 4_999_000);
    assert_eq!(inv["amount_due_subcents"], 4_999_000);
    assert_eq!(inv["amount_remaining_cents"], 49_990);
    assert_eq!(inv["net_value_cents"], 49_990);
    assert_eq!(inv["line_items"][0]["amount_cents"], 45_000);
    assert_eq!(inv["line_items"][1]["unit_amount_subcents"], 499_000);
    assert_eq!(inv["line_items"][1]["quantity"], 1);
    assert_eq!(inv["collection_method"], "manual_invoice");
    // Padaria's account has 10 payment terms days: 2026-08-20 + 10.
    assert_eq!(inv["due_date"], "2026-08-30T03:00:00Z");
    assert_eq!(inv["created_at"], FAKE_NOW);

    let (status, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::BA_PADARIA, "line_items": []}),
        )
        .await;
    assert_violation(
        status,
        &body,
        "body.line_items: 0 items, at least 1 required",
    );
    let many: Vec<Value> = (0..201)
        .map(|_| json!({"description": "x", "unit_amount_subcents": 1}))
        .collect();
    let (status, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::BA_PADARIA, "line_items": many}),
        )
        .await;
    assert_violation(
        status,
        &body,
        "body.line_items: 201 items, at most 200 allowed",
    );
    let (status, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::BA_PADARIA,
                   "line_items": [{"description": "", "unit_amount_subcents": -1}]}),
        )
        .await;
    let found = assert_violation(
        status,
        &body,
        "body.line_items[0].description: \"\" is shorter than 1 characters",
    );
    assert!(found.contains(
        &"body.line_items[0].unit_amount_subcents: -1 is less than the minimum 0".to_string()
    ));
    let (status, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::UNKNOWN, "due_date": "amanhã",
                   "line_items": [{"description": "Consultoria", "unit_amount_subcents": 1,
                                   "product_id": "00000000-0000-4000-8000-000000000001"}]}),
        )
        .await;
    let details = assert_error(status, &body, 422, "validation_error");
    for field in ["billing_account_id", "due_date", "line_items[0].product_id"] {
        assert!(details[field].is_array(), "{field}: {details}");
    }
}

#[tokio::test]
async fn invoice_line_items_only_on_single_invoice_answers() {
    let api = Api::new().await;
    let inv = create_draft(&api).await;
    assert_eq!(inv["line_items"].as_array().unwrap().len(), 2);
    let (_, list) = api.get("/v1/invoices").await;
    for inv in list["data"].as_array().unwrap() {
        assert!(inv.get("line_items").is_none(), "{inv}");
    }
    let (_, overdue) = api.get("/v1/invoices/pending-payment").await;
    assert!(overdue["data"][0].get("line_items").is_none());
    let (_, one) = api.get(&format!("/v1/invoices/{}", ids::INV_DRAFT)).await;
    let item = &one["data"]["line_items"][0];
    assert_eq!(item["description"], "Consultoria fiscal (10 h)");
    assert_eq!(item["unit_amount_subcents"], 1_500_000);
    assert_eq!(item["amount_cents"], 150_000);
}

#[tokio::test]
async fn draft_lifecycle_finalize_void() {
    let api = Api::new().await;
    let inv = create_draft(&api).await;
    let id = inv["id"].as_str().unwrap();

    let (status, body) = api
        .patch(&format!("/v1/invoices/{id}"), json!({"description": "x"}))
        .await;
    assert_eq!(status, 200, "a draft is edited: {body}");
    assert_eq!(body["data"]["description"], "x");

    let (status, body) = api.post_empty(&format!("/v1/invoices/{id}/finalize")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "open");
    assert_eq!(body["data"]["number"], "FAT-2026-000813");
    assert_eq!(body["data"]["finalized_at"], FAKE_NOW);
    let (status, body) = api.post_empty(&format!("/v1/invoices/{id}/finalize")).await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api
        .post(&format!("/v1/invoices/{id}/finalize"), json!({}))
        .await;
    assert_violation(status, &body, "body: the operation takes no body");

    let (status, body) = api
        .post(
            &format!("/v1/invoices/{id}/void"),
            json!({"reason": "Cobrança emitida em duplicidade"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "void");
    assert_eq!(body["data"]["voided_at"], FAKE_NOW);
    assert_eq!(body["data"]["amount_remaining_cents"], 0);
    assert_eq!(
        body["data"]["metadata"]["void_reason"],
        "Cobrança emitida em duplicidade"
    );
    let (status, body) = api
        .post(&format!("/v1/invoices/{id}/void"), json!({}))
        .await;
    assert_error(status, &body, 422, "invalid_state");
    let (_, got) = api.get(&format!("/v1/invoices/{id}")).await;
    assert_eq!(got["data"]["status"], "void");
    // A second finalized invoice gets the next number; void takes no reason if none is given.
    let other = create_draft(&api).await;
    let other_id = other["id"].as_str().unwrap();
    let (_, body) = api
        .post_empty(&format!("/v1/invoices/{other_id}/finalize"))
        .await;
    assert_eq!(body["data"]["number"], "FAT-2026-000814");
    let (status, body) = api
        .post(&format!("/v1/invoices/{other_id}/void"), json!({}))
        .await;
    assert_eq!(status, 200, "reason is optional: {body}");
}

#[tokio::test]
async fn void_refusals_follow_the_state() {
    let api = Api::new().await;
    let void = |id: &str| format!("/v1/invoices/{id}/void");
    let body = json!({"reason": "Cobrança indevida"});
    let (status, resp) = api.post(&void(ids::INV_VOID), body.clone()).await;
    assert_error(status, &resp, 422, "invalid_state");
    let (status, resp) = api
        .post(&void(ids::INV_PAID_NFE_ISSUED), body.clone())
        .await;
    assert_error(status, &resp, 422, "invalid_state");
    assert_eq!(
        resp["error"]["message"],
        "Fatura paga não pode ser anulada."
    );
    let (status, _) = api.post(&void(ids::INV_DRAFT), body.clone()).await;
    assert_eq!(status, 422);
    let (status, _) = api.post(&void(ids::INV_UNCOLLECTIBLE), body.clone()).await;
    assert_eq!(status, 422);
    let (status, resp) = api.post(&void(ids::INV_OVERDUE), body.clone()).await;
    assert_eq!(status, 200);
    assert_eq!(resp["data"]["status"], "void");
    // The voided invoice left the overdue list.
    assert!(
        api.list_ids("/v1/invoices/pending-payment")
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn delete_only_drafts() {
    let api = Api::new().await;
    let (status, body) = api.delete(&format!("/v1/invoices/{}", ids::INV_OPEN)).await;
    assert_error(status, &body, 422, "invalid_state");
    assert_eq!(
        body["error"]["message"],
        "Somente faturas em rascunho podem ser removidas; use void."
    );
    let (status, body) = api
        .delete(&format!("/v1/invoices/{}", ids::INV_DRAFT))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"data": {"deleted": true}}));
    assert_eq!(
        api.get(&format!("/v1/invoices/{}", ids::INV_DRAFT)).await.0,
        404
    );
    assert_eq!(api.list_ids("/v1/invoices").await.len(), 7);
}

#[tokio::test]
async fn send_reminder_only_for_open_invoices() {
    let api = Api::new().await;
    let path = format!("/v1/invoices/{}/send-reminder", ids::INV_OVERDUE);
    let (status, body) = api.post_empty(&path).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["id"], ids::INV_OVERDUE);
    assert_eq!(body["data"]["metadata"]["reminders_sent"], 1);
    let (_, body) = api.post_empty(&path).await;
    assert_eq!(body["data"]["metadata"]["reminders_sent"], 2);
    let (status, body) = api
        .post_empty(&format!(
            "/v1/invoices/{}/send-reminder",
            ids::INV_PAID_NFE_ISSUED
        ))
        .await;
    assert_error(status, &body, 422, "invalid_state");
    let reminders = api
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.path.ends_with("/send-reminder"))
        .count();
    assert_eq!(reminders, 3);
}

#[tokio::test]
async fn issue_nfe_from_invoice_answers_an_issuance_result() {
    let api = Api::new().await;
    let issue = |id: &str| format!("/v1/invoices/{id}/issue-nfe");
    // Already has an issued NF-e.
    let (status, body) = api.post_empty(&issue(ids::INV_PAID_NFE_ISSUED)).await;
    assert_error(status, &body, 422, "invalid_state");
    // Open invoice whose policy is on_full_payment.
    let (status, body) = api.post_empty(&issue(ids::INV_OPEN)).await;
    assert_error(status, &body, 422, "invalid_state");
    // Void invoice.
    let (status, _) = api.post_empty(&issue(ids::INV_VOID)).await;
    assert_eq!(status, 422);
    // Paid invoice whose NF-e failed: re-queued.
    let (status, body) = api.post_empty(&issue(ids::INV_PAID_NFE_ERROR)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"],
        json!({"invoice_id": ids::INV_PAID_NFE_ERROR, "nfe_id": ids::NFE_ERROR,
               "status": "pending", "requeued": true, "queued_at": FAKE_NOW})
    );
    let (_, nfe) = api.get(&format!("/v1/nfes/{}", ids::NFE_ERROR)).await;
    assert_eq!(nfe["data"]["status"], "pending");
    assert!(nfe["data"]["error_message"].is_null());
    // Queued once: a second request is refused; the invoice still waits for its NF-e.
    let (status, _) = api.post_empty(&issue(ids::INV_PAID_NFE_ERROR)).await;
    assert_eq!(status, 422);
    assert_eq!(
        api.list_ids("/v1/invoices/pending-nfe").await,
        vec![ids::INV_PAID_NFE_ERROR, ids::INV_UNVERIFIED]
    );
}

#[tokio::test]
async fn issue_nfe_creates_a_pending_nfe_for_open_invoice_on_finalization_policy() {
    let api = Api::new().await;
    let (_, body) = api
        .post(
            "/v1/invoices",
            json!({"billing_account_id": ids::BA_MARIANA, "nfe_issuance_policy": "on_finalization",
                   "line_items": [{"description": "Consultoria", "unit_amount_subcents": 2_000_000}]}),
        )
        .await;
    let id = body["data"]["id"].as_str().unwrap().to_string();
    let (status, _) = api
        .post_empty(&format!("/v1/invoices/{id}/issue-nfe"))
        .await;
    assert_eq!(status, 422, "drafts cannot issue");
    api.post_empty(&format!("/v1/invoices/{id}/finalize")).await;
    let (status, body) = api
        .post_empty(&format!("/v1/invoices/{id}/issue-nfe"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "pending");
    assert_eq!(body["data"]["requeued"], false);
    let nfe_id = body["data"]["nfe_id"].as_str().unwrap();
    let (status, nfe) = api.get(&format!("/v1/nfes/{nfe_id}")).await;
    assert_eq!(status, 200);
    let nfe = &nfe["data"];
    assert_eq!(nfe["status"], "pending");
    assert_eq!(nfe["invoice_id"], id.as_str());
    assert_eq!(nfe["person_id"], ids::MARIANA);
    assert_eq!(nfe["amount_cents"], 20_000);
    assert_eq!(nfe["customer_snapshot"]["name"], "Mariana Souza Lima");
    assert_eq!(nfe["customer_snapshot"]["document_number"], "52998224725");
    assert_eq!(api.get(&format!("/v1/nfes/{nfe_id}/xml")).await.0, 404);
}

// ---------- payments ----------

#[tokio::test]
async fn payments_follow_payment_v1() {
    let api = Api::new().await;
    let (status, body) = api.get(&format!("/v1/payments/{}", ids::PAY_PIX)).await;
    assert_eq!(status, 200);
    let pay = &body["data"];
    assert_eq!(pay["invoice_id"], ids::INV_PAID_NFE_ERROR);
    assert_eq!(pay["amount_cents"], 120_000);
    assert_eq!(pay["paid_amount_cents"], 120_000);
    assert_eq!(pay["payment_method_type"], "pix");
    assert_eq!(pay["status"], "succeeded");
    for gone in ["payment_method", "refunded_amount_cents", "refunded_at"] {
        assert!(pay.get(gone).is_none(), "{gone}");
    }
    let (_, failed) = api.get(&format!("/v1/payments/{}", ids::PAY_FAILED)).await;
    assert_eq!(failed["data"]["status"], "failed");
    assert!(failed["data"]["paid_amount_cents"].is_null());
    assert_eq!(failed["data"]["failure_code"], "card_declined");
}

#[tokio::test]
async fn refunds_only_succeeded_payments_full_or_partial() {
    let api = Api::new().await;
    let refund = |id: &str| format!("/v1/payments/{id}/refund");
    let (status, body) = api
        .post(
            &refund(ids::PAY_PIX),
            json!({"amount_cents": 20_000, "reason": "Desconto concedido"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "partially_refunded");
    assert_eq!(body["data"]["paid_amount_cents"], 120_000);
    assert_eq!(body["data"]["updated_at"], FAKE_NOW);
    assert!(body["data"].get("refunded_amount_cents").is_none());
    // Only succeeded payments: a partially refunded one cannot be refunded again.
    let (status, body) = api.post(&refund(ids::PAY_PIX), json!({})).await;
    assert_error(status, &body, 422, "invalid_state");

    let (status, body) = api
        .post(&refund(ids::PAY_CARD), json!({"amount_cents": 49_901}))
        .await;
    let details = assert_error(status, &body, 422, "validation_error");
    assert!(
        details["amount_cents"][0]
            .as_str()
            .unwrap()
            .contains("R$ 499,00"),
        "{details}"
    );
    let (status, body) = api
        .post(&refund(ids::PAY_CARD), json!({"amount_cents": 49_900}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["status"], "refunded",
        "the whole amount is a full refund"
    );
    let (status, body) = api.post(&refund(ids::PAY_CARD), json!({})).await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api.post(&refund(ids::PAY_FAILED), json!({})).await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api
        .post(&refund(ids::PAY_FAILED), json!({"amount_cents": 0}))
        .await;
    assert_violation(
        status,
        &body,
        "body.amount_cents: 0 is less than the minimum 1",
    );
    let missing = refund(ids::UNKNOWN);
    assert_eq!(api.post(&missing, json!({})).await.0, 404);
}

#[tokio::test]
async fn full_refund_without_amount() {
    let api = Api::new().await;
    let (status, body) = api
        .post(&format!("/v1/payments/{}/refund", ids::PAY_PIX), json!({}))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "refunded");
    let (_, listed) = api.get("/v1/payments?status=refunded").await;
    assert_eq!(listed["meta"]["total"], 1);
}

// ---------- NF-e ----------

#[tokio::test]
async fn nfe_cancel_reason_and_states() {
    let api = Api::new().await;
    let cancel = |id: &str| format!("/v1/nfes/{id}/cancel");
    let (status, body) = api
        .post(&cancel(ids::NFE_ISSUED), json!({"reason": "Erro valor"}))
        .await;
    assert_violation(
        status,
        &body,
        "body.reason: \"Erro valor\" is shorter than 15 characters",
    );
    let (status, body) = api.post(&cancel(ids::NFE_ISSUED), json!({})).await;
    assert_violation(status, &body, "body.reason: required field missing");
    let (status, body) = api
        .post(
            &cancel(ids::NFE_ISSUED),
            json!({"reason": "                "}),
        )
        .await;
    let details = assert_error(status, &body, 400, "validation_error");
    assert!(
        details["reason"].is_array(),
        "blank reasons are refused too"
    );
    let reason = json!({"reason": "Serviço não prestado; cancelamento solicitado pelo tomador"});
    let (status, body) = api.post(&cancel(ids::NFE_ERROR), reason.clone()).await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api.post(&cancel(ids::NFE_ISSUED), reason.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "pending_cancel");
    assert_eq!(body["data"]["cancel_attempts"], 1);
    let (status, body) = api.post(&cancel(ids::NFE_ISSUED), reason).await;
    assert_error(status, &body, 422, "invalid_state");
    // Still authorized once: the XML stays available while cancellation is pending.
    assert_eq!(
        api.get(&format!("/v1/nfes/{}/xml", ids::NFE_ISSUED))
            .await
            .0,
        200
    );
}

#[tokio::test]
async fn nfe_issue_transitions() {
    let api = Api::new().await;
    let (status, body) = api
        .post_empty(&format!("/v1/nfes/{}/issue", ids::NFE_ISSUED))
        .await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api
        .post_empty(&format!("/v1/nfes/{}/issue", ids::NFE_ERROR))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["status"], "pending");
    let (status, body) = api
        .post_empty(&format!("/v1/nfes/{}/issue", ids::NFE_ERROR))
        .await;
    assert_eq!(status, 200, "pending may be retried: {body}");
}
