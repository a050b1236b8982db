//! The requests that were off Kobana's published contract (`tests/contract/billing-v1.json`),
//! each proven fixed end to end: the server's call reaches the contract-enforcing fake Kobana,
//! which would answer `400 contract_violation` to the old request, and the test reads what the
//! fake actually received.

use crate::common;
use fake_kobana::fixtures::ids::{BA_MARIANA, BA_PADARIA, INV_PAID_NFE_ERROR, PADARIA, SUB_ACTIVE};

use common::{Stack, text_of};
use fake_kobana::{full_token, scoped_token};
use serde_json::{Value, json};

const FIXTURE_ORG_ID: &str = fake_kobana::FIXTURE_ORG_ID;

/// No request or answer of the test was off the contract.
fn assert_on_contract(stack: &Stack) {
    let violations = stack.fake.contract_violations();
    assert!(violations.is_empty(), "off the contract: {violations:?}");
}

/// The structured result of a successful call (panics with the text on a tool error).
async fn ok(stack: &Stack, token: &str, tool: &str, args: Value) -> Value {
    let result = stack.call(token, tool, args).await;
    assert_ne!(result["isError"], true, "{tool}: {}", text_of(&result));
    result["structuredContent"].clone()
}

/// The last request the fake received for `method path`.
fn last_call(stack: &Stack, method: &str, path: &str) -> fake_kobana::RecordedCall {
    stack
        .fake
        .calls()
        .into_iter()
        .rev()
        .find(|c| c.method == method && c.path == path)
        .unwrap_or_else(|| panic!("no {method} {path} reached the fake"))
}

#[tokio::test]
async fn contract_1_subscription_from_items_sends_product_and_price_ids() {
    let stack = Stack::start().await;
    let token = full_token();
    // Find a product and a price the way a model would: through the new read tools.
    let plans = ok(
        &stack,
        &token,
        "billing_plans_list",
        json!({"status": "active"}),
    )
    .await;
    let plan_id = plans["plans"][0]["id"].as_str().expect("a plan").to_owned();
    let plan = ok(&stack, &token, "billing_plans_get", json!({"id": plan_id})).await;
    let item = &plan["plan"]["items"][0];
    let (product, price) = (
        item["product_id"].as_str().expect("product_id"),
        item["price_id"].as_str().expect("price_id"),
    );
    let created = ok(
        &stack,
        &token,
        "billing_subscriptions_create",
        json!({"billing_account_id": BA_MARIANA,
               "items": [{"product_id": product, "price_id": price, "quantity": 3, "unit_amount_cents": 4990}]}),
    )
    .await;
    assert_eq!(created["subscription"]["billing_account_id"], BA_MARIANA);
    let sent = last_call(&stack, "POST", "/v1/subscriptions")
        .body
        .expect("a body");
    assert_eq!(
        sent["items"],
        json!([{"product_id": product, "price_id": price, "quantity": 3, "unit_amount_subcents": 499_000}])
    );
    assert_on_contract(&stack);
}

#[tokio::test]
async fn contract_2_payment_statuses_are_kobanas_and_refunds_take_succeeded_payments() {
    let stack = Stack::start().await;
    let token = full_token();
    let list = ok(
        &stack,
        &token,
        "billing_payments_list",
        json!({"status": "succeeded"}),
    )
    .await;
    let payments = list["payments"].as_array().expect("payments");
    assert!(!payments.is_empty(), "{list}");
    assert!(
        payments.iter().all(|p| p["status"] == "succeeded"),
        "{list}"
    );
    assert!(
        last_call(&stack, "GET", "/v1/payments")
            .query
            .unwrap_or_default()
            .contains("status=succeeded")
    );
    // `paid` is not a Kobana status: refused before any call, naming the valid ones.
    let before = stack.fake.calls().len();
    let refused = stack
        .call(&token, "billing_payments_list", json!({"status": "paid"}))
        .await;
    assert_eq!(refused["isError"], true);
    assert!(
        text_of(&refused).contains("succeeded"),
        "{}",
        text_of(&refused)
    );
    assert_eq!(stack.fake.calls().len(), before, "nothing was sent");
    // A succeeded payment refunds in part, and its status says so.
    let id = payments[0]["id"].as_str().unwrap();
    let refunded = ok(
        &stack,
        &token,
        "billing_payments_refund",
        json!({"id": id, "amount_cents": 1000, "reason": "Desconto concedido"}),
    )
    .await;
    assert_eq!(refunded["payment"]["status"], "partially_refunded");
    for field in ["payment_method_type", "paid_amount_cents"] {
        assert!(
            refunded["payment"].get(field).is_some(),
            "{field}: {refunded}"
        );
    }
    for gone in ["payment_method", "refunded_amount_cents", "refunded_at"] {
        assert!(
            refunded["payment"].get(gone).is_none(),
            "{gone}: {refunded}"
        );
    }
    assert_on_contract(&stack);
}

#[tokio::test]
async fn contract_3_a_customers_billing_accounts_come_from_the_documented_route() {
    let stack = Stack::start().await;
    let token = full_token();
    let got = ok(
        &stack,
        &token,
        "billing_customers_get",
        json!({"id": PADARIA}),
    )
    .await;
    let read = last_call(&stack, "GET", &format!("/v1/customers/{PADARIA}"));
    assert_eq!(read.query, None, "no undeclared `include`");
    let accounts = last_call(&stack, "GET", "/v1/billing_accounts");
    assert!(
        accounts
            .query
            .as_deref()
            .unwrap_or_default()
            .contains(&format!("person_id={PADARIA}")),
        "{accounts:?}"
    );
    let ids: Vec<&str> = got["billing_accounts"]
        .as_array()
        .expect("billing_accounts")
        .iter()
        .filter_map(|a| a["id"].as_str())
        .collect();
    assert_eq!(ids, vec![BA_PADARIA], "{got}");
    // The same customer by external_id resolves to the same accounts.
    let by_ref = ok(
        &stack,
        &token,
        "billing_customers_get",
        json!({"id": "crm-000202"}),
    )
    .await;
    assert!(by_ref["billing_accounts"].is_array(), "{by_ref}");
    // The overview prompt names the account it found that way.
    let (status, prompt) = stack
        .legacy(
            &token,
            "prompts/get",
            json!({"name": "customer_overview", "arguments": {"customer_id": PADARIA}}),
        )
        .await;
    assert_eq!(status, 200, "{prompt}");
    assert!(prompt.to_string().contains(BA_PADARIA), "{prompt}");
    // A token that cannot read billing accounts gets the customer and a note, nothing more.
    let narrow = scoped_token("person-ana", FIXTURE_ORG_ID, "customers:read");
    let before = stack.kobana_calls("/v1/billing_accounts").len();
    let limited = ok(
        &stack,
        &narrow,
        "billing_customers_get",
        json!({"id": PADARIA}),
    )
    .await;
    assert!(
        limited["billing_accounts_note"]
            .as_str()
            .unwrap()
            .contains("billing_accounts:read")
    );
    assert_eq!(stack.kobana_calls("/v1/billing_accounts").len(), before);
    assert_on_contract(&stack);
}

#[tokio::test]
async fn contract_4_invoice_line_items_are_subcents_and_kobanas_total_is_shown_in_brl() {
    let stack = Stack::start().await;
    // Under line_item_input_unit = cents, create_invoice asserts the AMOUNT_MISMATCH error.
    let (created, right) = stack
        .create_invoice(json!({"billing_account_id": BA_MARIANA,
               "line_items": [{"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_cents": 15000},
                              {"description": "Deslocamento", "unit_amount_cents": 4990}]}))
        .await;
    let sent = last_call(&stack, "POST", "/v1/invoices")
        .body
        .expect("a body");
    assert_eq!(sent["line_items"][0]["unit_amount_subcents"], 1_500_000);
    assert_eq!(sent["line_items"][1]["unit_amount_subcents"], 499_000);
    // R$ 300,00 + R$ 49,90, as Kobana computed it.
    if right {
        assert_eq!(
            created["amounts"]["kobana_total_brl"], "R$ 349,90",
            "{created}"
        );
        assert_eq!(created["amounts"]["requested_brl"], "R$ 349,90");
        assert_eq!(created["amounts"]["verified_by"], "amount_remaining_cents");
    }
    assert_on_contract(&stack);
}

#[tokio::test]
async fn contract_5_issue_nfe_answers_kobanas_issuance_not_an_nfe_record() {
    let stack = Stack::start().await;
    let result = ok(
        &stack,
        &full_token(),
        "billing_invoices_issue_nfe",
        json!({"id": INV_PAID_NFE_ERROR}),
    )
    .await;
    assert!(result["issuance"].is_object(), "{result}");
    assert!(result.get("nfe").is_none(), "{result}");
    assert_on_contract(&stack);
}

#[tokio::test]
async fn contract_6_smaller_deviations() {
    let stack = Stack::start().await;
    let token = full_token();
    // `confirmed` is not a value of the list filter: refused, nothing sent.
    let before = stack.fake.calls().len();
    let refused = stack
        .call(
            &token,
            "billing_subscriptions_list",
            json!({"status": "confirmed"}),
        )
        .await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(stack.fake.calls().len(), before);
    // `resumes_at` goes out as a date-time (midnight in São Paulo), in UTC `Z`.
    ok(
        &stack,
        &token,
        "billing_subscriptions_pause",
        json!({"id": SUB_ACTIVE, "resumes_at": "2026-10-01"}),
    )
    .await;
    let pause = last_call(
        &stack,
        "POST",
        &format!("/v1/subscriptions/{SUB_ACTIVE}/pause"),
    );
    assert_eq!(
        pause.body.expect("a body")["resumes_at"],
        "2026-10-01T03:00:00Z"
    );
    // A partial address goes out without nulls.
    ok(
        &stack,
        &token,
        "billing_customers_create",
        json!({"name": "Oficina Boa Vista Ltda", "addresses": [{"street": "Rua Augusta", "city": "São Paulo", "state": "SP"}]}),
    )
    .await;
    let created = last_call(&stack, "POST", "/v1/customers")
        .body
        .expect("a body");
    assert_eq!(
        created["addresses"],
        json!([{"street": "Rua Augusta", "city": "São Paulo", "state": "SP"}])
    );
    assert_on_contract(&stack);
}
