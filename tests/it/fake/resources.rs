//! Writes and state transitions: customers and subscriptions (invoices, payments and NF-e are
//! in `invoices.rs`).

use crate::fake::support::{Api, assert_error, assert_violation};
use fake_kobana::FAKE_NOW;
use fake_kobana::fixtures::ids;
use serde_json::{Value, json};

// ---------- customers ----------

#[tokio::test]
async fn create_customer_with_billing_account() {
    let api = Api::new().await;
    let (status, body) = api
        .post(
            "/v1/customers",
            json!({"name": "Padaria Nova Ltda", "document_number": "11.444.777/0001-61",
                   "email": "fin@padarianova.example", "external_id": "crm-999", "payment_terms_days": 15}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let c = &body["data"]["customer"];
    let ba = &body["data"]["billing_account"];
    assert_eq!(c["name"], "Padaria Nova Ltda");
    assert_eq!(c["document_type"], "cnpj");
    assert_eq!(c["kind"], "juridical");
    assert_eq!(
        c["emails"],
        json!([{"kind": "billing", "value": "fin@padarianova.example"}])
    );
    assert_eq!(c["created_at"], FAKE_NOW);
    assert!(c["nickname"].is_null() && c.get("nickname").is_some());
    assert!(
        ba.get("customer_id").is_none(),
        "not a BillingAccountV1 field"
    );
    assert_eq!(ba["payment_terms_days"], 15);
    assert_eq!(ba["billing_email"], "fin@padarianova.example");
    assert_eq!(ba["customer_tax_type"], "business");
    assert_eq!(ba["status"], "active");
    // Reachable by id and external_id; the account is listed for it and embeds it.
    let id = c["id"].as_str().unwrap();
    let ba_id = ba["id"].as_str().unwrap();
    assert_eq!(api.get(&format!("/v1/customers/{id}")).await.0, 200);
    let (_, by_ext) = api.get("/v1/customers/crm-999").await;
    assert_eq!(by_ext["data"]["id"], c["id"]);
    assert_eq!(
        api.list_ids(&format!("/v1/billing_accounts?person_id={id}"))
            .await,
        vec![ba_id.to_string()]
    );
    let (_, account) = api.get(&format!("/v1/billing_accounts/{ba_id}")).await;
    assert_eq!(account["data"]["customer"]["id"], c["id"]);
    assert_eq!(account["data"]["customer"]["kind"], "company");
    let (_, list) = api.get("/v1/customers").await;
    assert_eq!(list["meta"]["total"], 5);
}

#[tokio::test]
async fn create_customer_without_billing_account_and_validation() {
    let api = Api::new().await;
    let (status, body) = api
        .post(
            "/v1/customers",
            json!({"name": "Sem Conta", "create_billing_account": false}),
        )
        .await;
    assert_eq!(status, 201);
    assert!(body["data"]["billing_account"].is_null());

    let (status, body) = api.post("/v1/customers", json!({"email": "x@y.z"})).await;
    assert_violation(status, &body, "body.name: required field missing");
    let (status, body) = api
        .post(
            "/v1/customers",
            json!({"name": "Doc ruim", "document_number": "529.982.247-24"}),
        )
        .await;
    let details = assert_error(status, &body, 422, "validation_error");
    assert!(details["document_number"].is_array());
    let (status, body) = api
        .post(
            "/v1/customers",
            json!({"name": "Duplicado", "external_id": "crm-000101"}),
        )
        .await;
    let details = assert_error(status, &body, 422, "validation_error");
    assert!(details["external_id"].is_array());
    let resp = api
        .http
        .post(api.url("/v1/customers"))
        .bearer_auth(&api.token)
        .header("User-Agent", crate::fake::support::UA)
        .header("Content-Type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_violation(400, &body, "body: not valid JSON");
}

#[tokio::test]
async fn customer_update_soft_delete_and_no_embedded_accounts() {
    let api = Api::new().await;
    let (status, body) = api
        .get(&format!(
            "/v1/customers/{}?include=billing_accounts",
            ids::PADARIA
        ))
        .await;
    assert_violation(status, &body, "query.include: unknown parameter");
    let (_, plain) = api.get(&format!("/v1/customers/{}", ids::PADARIA)).await;
    assert!(plain["data"].get("billing_accounts").is_none());

    let (status, body) = api
        .patch(
            &format!("/v1/customers/{}", ids::MARIANA),
            json!({"notes": "VIP", "custom_metadata": {"canal": "site"}, "custom_metadata_mode": "merge"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["notes"], "VIP");
    assert_eq!(
        body["data"]["custom_metadata"],
        json!({"segmento": "PF", "canal": "site"})
    );
    assert_eq!(body["data"]["updated_at"], FAKE_NOW);
    let (status, body) = api
        .patch(
            &format!("/v1/customers/{}", ids::MARIANA),
            json!({"name": " "}),
        )
        .await;
    assert_error(status, &body, 422, "validation_error");

    let (status, body) = api.delete(&format!("/v1/customers/{}", ids::RAFAEL)).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"data": {"deleted": true}}));
    assert_eq!(
        api.get(&format!("/v1/customers/{}", ids::RAFAEL)).await.0,
        404
    );
    assert_eq!(api.get("/v1/customers/crm-000404").await.0, 404);
    let listed = api.list_ids("/v1/customers").await;
    assert_eq!(listed.len(), 3);
    assert!(!listed.contains(&ids::RAFAEL.to_string()));
    assert_eq!(
        api.delete(&format!("/v1/customers/{}", ids::RAFAEL))
            .await
            .0,
        404
    );
}

// ---------- subscriptions ----------

#[tokio::test]
async fn subscription_from_a_plan_takes_its_price_and_cycle() {
    let api = Api::new().await;
    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_MARIANA, "plan_id": ids::PLAN_PRO}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let sub = &body["data"];
    assert_eq!(sub["status"], "active");
    assert_eq!(sub["billing_cycle"], "monthly");
    // The Pro plan's included item: Licença Kobana at R$ 499,00.
    assert_eq!(sub["recurring_amount_cents"], 49900);
    assert_eq!(sub["current_period_start"], "2026-08-20T03:00:00Z");
    assert_eq!(sub["current_period_end"], "2026-09-20T03:00:00Z");
    assert_eq!(sub["activated_at"], FAKE_NOW);

    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_MARIANA, "plan_id": ids::PLAN_PRO,
                   "billing_cycle": "annual", "trial_end": "2026-09-03T00:00:00-03:00"}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["status"], "trialing");
    assert_eq!(body["data"]["trial_end"], "2026-09-03T03:00:00Z");
    assert_eq!(body["data"]["current_period_end"], "2027-09-03T03:00:00Z");

    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_HORIZONTE, "plan_id": ids::PLAN_ENTERPRISE_HORIZONTE}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["billing_cycle"], "annual");
    assert_eq!(body["data"]["recurring_amount_cents"], 1_198_800);
}

#[tokio::test]
async fn subscription_plan_refusals() {
    let api = Api::new().await;
    let cases = [
        (json!({"billing_account_id": ids::BA_MARIANA}), "plan_id"),
        (
            json!({"billing_account_id": ids::BA_MARIANA, "plan_id": ids::UNKNOWN}),
            "plan_id",
        ),
        (
            json!({"billing_account_id": ids::BA_MARIANA, "plan_id": ids::PLAN_BASIC_ARCHIVED}),
            "plan_id",
        ),
        (
            json!({"billing_account_id": ids::BA_PADARIA, "plan_id": ids::PLAN_ENTERPRISE_HORIZONTE}),
            "plan_id",
        ),
        (
            json!({"billing_account_id": ids::BA_MARIANA, "plan_id": ids::PLAN_PRO, "billing_cycle": "quarterly"}),
            "billing_cycle",
        ),
        (
            json!({"billing_account_id": ids::BA_RAFAEL, "plan_id": ids::PLAN_PRO}),
            "billing_account_id",
        ),
    ];
    for (body, field) in cases {
        let (status, resp) = api.post("/v1/subscriptions", body.clone()).await;
        let details = assert_error(status, &resp, 422, "validation_error");
        assert!(details[field].is_array(), "{body}: {details}");
    }
}

#[tokio::test]
async fn subscription_items_need_a_product_and_its_price() {
    let api = Api::new().await;
    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_MARIANA, "billing_cycle": "annual",
                   "items": [{"product_id": ids::PROD_EXTRA_USER, "price_id": ids::PRICE_EXTRA_USER, "quantity": 2},
                             {"product_id": ids::PROD_LICENSE, "price_id": ids::PRICE_PRO_LICENSE,
                              "unit_amount_subcents": 500_000}]}),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    // 2 × R$ 29,90 + 1 × R$ 50,00 (overriding the price).
    assert_eq!(body["data"]["recurring_amount_cents"], 10_980);
    assert_eq!(body["data"]["current_period_end"], "2027-08-20T03:00:00Z");
    assert!(body["data"]["plan_id"].is_null());

    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_MARIANA,
                   "items": [{"product_id": ids::PROD_SUPPORT, "price_id": ids::PRICE_EXTRA_USER},
                             {"product_id": ids::UNKNOWN,
                              "price_id": "00000000-0000-4000-8000-000000000001"}]}),
        )
        .await;
    let details = assert_error(status, &body, 422, "validation_error");
    assert_eq!(
        details["items[0].price_id"],
        json!(["não pertence ao produto informado"])
    );
    assert!(details["items[1].product_id"].is_array(), "{details}");
    assert!(details["items[1].price_id"].is_array(), "{details}");
    let (status, body) = api
        .post(
            "/v1/subscriptions",
            json!({"billing_account_id": ids::BA_MARIANA, "items": [{"unit_amount_cents": 1000, "quantity": 2}]}),
        )
        .await;
    let found = assert_violation(
        status,
        &body,
        "body.items[0].unit_amount_cents: unknown field",
    );
    assert!(found.contains(&"body.items[0].price_id: required field missing".to_string()));
}

#[tokio::test]
async fn subscription_cancel_pause_resume_and_refusals() {
    let api = Api::new().await;
    let path = |action: &str, id: &str| format!("/v1/subscriptions/{id}/{action}");

    let (status, body) = api
        .post(&path("cancel", ids::SUB_CANCELED), json!({}))
        .await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api.post(&path("pause", ids::SUB_CANCELED), json!({})).await;
    assert_error(status, &body, 422, "invalid_state");
    let (status, body) = api.post_empty(&path("resume", ids::SUB_ACTIVE)).await;
    assert_error(status, &body, 422, "invalid_state");

    let (status, body) = api
        .post(
            &path("pause", ids::SUB_ACTIVE),
            json!({"behavior": "keep_as_draft", "resumes_at": "2026-10-01"}),
        )
        .await;
    assert_violation(
        status,
        &body,
        "body.resumes_at: \"2026-10-01\" is not a date-time (RFC 3339)",
    );
    let (status, body) = api
        .post(
            &path("pause", ids::SUB_ACTIVE),
            json!({"behavior": "keep_as_draft", "resumes_at": "2026-10-01T00:00:00-03:00"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["status"], "paused");
    assert_eq!(
        body["data"]["pause_collection"],
        json!({"behavior": "keep_as_draft", "resumes_at": "2026-10-01T00:00:00-03:00"})
    );
    assert_eq!(body["data"]["resumes_at"], "2026-10-01T00:00:00-03:00");
    let (status, _) = api.post(&path("pause", ids::SUB_ACTIVE), json!({})).await;
    assert_eq!(status, 422, "already paused");
    let (status, body) = api
        .post(
            &path("pause", ids::SUB_PAST_DUE),
            json!({"behavior": "explode"}),
        )
        .await;
    assert_error(status, &body, 400, "contract_violation");
    let (status, body) = api
        .post(
            &path("pause", ids::SUB_PAST_DUE),
            json!({"resumes_at": "2026-01-01T00:00:00-03:00"}),
        )
        .await;
    let details = assert_error(status, &body, 400, "validation_error");
    assert_eq!(details["resumes_at"], json!(["deve estar no futuro"]));

    let (status, body) = api.post_empty(&path("resume", ids::SUB_ACTIVE)).await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["status"], "active");
    assert!(body["data"]["pause_collection"].is_null());
    assert_eq!(body["data"]["resumed_at"], FAKE_NOW);

    let (status, body) = api
        .post(
            &path("cancel", ids::SUB_PAST_DUE),
            json!({"cancel_at_period_end": true, "reason": "Troca de fornecedor"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["status"], "past_due");
    assert_eq!(body["data"]["cancel_at_period_end"], true);
    assert_eq!(body["data"]["cancellation_reason"], "Troca de fornecedor");

    let (status, body) = api
        .post(
            &path("cancel", ids::SUB_ACTIVE),
            json!({"reason": "Encerrou a empresa"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["status"], "canceled");
    assert_eq!(body["data"]["canceled_at"], FAKE_NOW);
    let (status, _) = api.post(&path("cancel", ids::SUB_ACTIVE), json!({})).await;
    assert_eq!(status, 422, "second cancel is refused");
    let (_, got) = api
        .get(&format!("/v1/subscriptions/{}", ids::SUB_ACTIVE))
        .await;
    assert_eq!(got["data"]["status"], "canceled");
    let missing = path("cancel", ids::UNKNOWN);
    assert_eq!(api.post(&missing, json!({})).await.0, 404);
}
