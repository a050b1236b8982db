//! The weekly jobs promoted to curated tools (WA-4), through the HTTP front against the fake
//! Kobana: the due date of an invoice and its boletos, marking paid and its undo, the
//! customer's statement, an account's credits and applying them; and the questions that are
//! not asked when the record's state makes the action impossible (FH-3).

use crate::common;

use crate::catalog::support::*;
use common::Stack;
use fake_kobana::full_token;
use serde_json::{Value, json};

const BOLETO_KOBANA: &str = "b0e1e7a0-0000-4000-8000-000000000001";
const BOLETO_OTHER: &str = "b0e1e7a0-0000-4000-8000-000000000002";

/// The Kobana calls one tool call made.
async fn counted(
    stack: &Stack,
    tool: &str,
    args: Value,
) -> (Value, Vec<fake_kobana::RecordedCall>) {
    let before = stack.kobana_calls("/v1/").len();
    let result = stack.call(&full_token(), tool, args).await;
    let calls = stack.kobana_calls("/v1/").split_off(before);
    (result, calls)
}

/// A stored day (`…T03:00:00Z`, a date) as `YYYY-MM-DD` in São Paulo.
fn stored_day(value: &Value) -> String {
    let epoch = fake_kobana::clock::parse_date_or_datetime(value.as_str().unwrap()).unwrap();
    fake_kobana::clock::format_date(fake_kobana::clock::local_day(epoch))
}

#[tokio::test]
async fn wa4_the_due_date_moves_the_invoice_and_its_kobana_boleto_and_says_what_did_not() {
    let stack = Stack::start().await;
    // FAT-2026-000812 already has one pending Kobana boleto (PAY_BOLETO_PENDING, the
    // fixtures'); a second from Kobana's gateway and one from another gateway are added.
    add_pending_boleto(&stack, BOLETO_KOBANA, Some("KOBANA"));
    add_pending_boleto(&stack, BOLETO_OTHER, Some("PAGARME"));
    let day = future_day(30);
    let (result, calls) = counted(
        &stack,
        "billing_invoices_change_due_date",
        json!({"id": INV_OPEN, "due_date": day}),
    )
    .await;
    let result = ok(&result);
    let stored = stack.fake.record("invoices", INV_OPEN).unwrap();
    assert_eq!(stored_day(&stored["due_date"]), day, "the invoice moved");
    let kobana_boletos = [PAY_BOLETO_PENDING, BOLETO_KOBANA];
    for boleto in kobana_boletos {
        assert_eq!(
            stack.fake.boleto_due_date(boleto),
            Some(day.clone()),
            "{boleto}"
        );
    }
    assert_eq!(stack.fake.boleto_due_date(BOLETO_OTHER), None);
    let rows = result["pending_payments"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let row = |id: &str| rows.iter().find(|r| r["payment_id"] == id).unwrap().clone();
    for boleto in kobana_boletos {
        assert_eq!(row(boleto)["changed"], true, "{boleto}");
    }
    assert_eq!(row(BOLETO_OTHER)["changed"], false);
    assert!(
        row(BOLETO_OTHER)["why"]
            .as_str()
            .unwrap()
            .contains("PAGARME")
    );
    let summary = result["summary"].as_str().unwrap();
    assert!(
        summary.contains("FAT-2026-000812") && summary.contains("vencimentos diferentes"),
        "{summary}"
    );
    // Kobana's due day, whichever form it writes it in (reading `due_date_form`).
    assert_eq!(result["invoice"]["due_date"].as_str().unwrap()[..10], day);
    // Read the invoice, read its pending payments, patch it, move each Kobana boleto (never
    // the other gateway's): bounded.
    let sent: Vec<String> = calls
        .iter()
        .map(|c| format!("{} {}", c.method, c.path))
        .collect();
    assert_eq!(sent.len(), 5, "{sent:?}");
    assert!(sent[2].starts_with("PATCH /v1/invoices/"), "{sent:?}");
    let mut moved: Vec<&str> = sent[3..]
        .iter()
        .map(|s| {
            let path = s.strip_prefix("POST /v1/payments/").expect(s);
            path.strip_suffix("/change-due-date").expect(s)
        })
        .collect();
    moved.sort_unstable();
    let mut expected = kobana_boletos.to_vec();
    expected.sort_unstable();
    assert_eq!(moved, expected, "{sent:?}");
    let keys: Vec<_> = calls[2..]
        .iter()
        .map(|c| c.idempotency_key.clone())
        .collect();
    assert!(
        keys.iter().all(Option::is_some)
            && keys[0] != keys[1]
            && keys[0] != keys[2]
            && keys[1] != keys[2],
        "each write its own key: {keys:?}"
    );
    assert_eq!(stack.fake.contract_violations(), vec![]);
}

#[tokio::test]
async fn wa4_the_due_date_is_refused_before_any_write_for_a_past_day_or_a_settled_invoice() {
    let stack = Stack::start().await;
    let (result, calls) = counted(
        &stack,
        "billing_invoices_change_due_date",
        json!({"id": INV_OPEN, "due_date": "2020-01-10"}),
    )
    .await;
    assert_eq!(common::error_code(&result), "INVALID_ARGUMENTS", "{result}");
    assert!(calls.is_empty(), "{calls:?}");
    let (result, calls) = counted(
        &stack,
        "billing_invoices_change_due_date",
        json!({"id": INV_PAID_NFE_ISSUED, "due_date": future_day(10)}),
    )
    .await;
    assert_eq!(
        common::error_code(&result),
        "STATE_FORBIDS_ACTION",
        "{result}"
    );
    assert!(common::text_of(&result).contains("paid"), "{result}");
    assert!(calls.iter().all(|c| c.method == "GET"), "{calls:?}");
    // A draft has no payments: read and patch, nothing else.
    let (result, calls) = counted(
        &stack,
        "billing_invoices_change_due_date",
        json!({"id": INV_DRAFT, "due_date": future_day(45)}),
    )
    .await;
    assert!(
        ok(&result)["summary"]
            .as_str()
            .unwrap()
            .contains("Não havia boleto")
    );
    assert_eq!(calls.len(), 2, "{calls:?}");
}

#[tokio::test]
async fn wa4_marking_paid_records_it_charging_nothing_and_the_undo_reopens_it() {
    let stack = Stack::start().await;
    let (result, calls) = counted(
        &stack,
        "billing_invoices_mark_paid",
        json!({"id": INV_OPEN, "amount_cents": 10_000}),
    )
    .await;
    let part = ok(&result);
    assert_eq!(part["invoice"]["amount_remaining_cents"], 39_900);
    assert_eq!(part["invoice"]["status"], "open");
    assert_eq!(part["answer"]["mode"], "manual");
    assert_eq!(
        calls.len(),
        2,
        "the write and the invoice read again: {calls:?}"
    );
    assert_eq!(
        calls[0].body,
        Some(json!({"amount_cents": 10_000})),
        "no payment method"
    );
    let rest = stack
        .ok("billing_invoices_mark_paid", json!({"id": INV_OPEN}))
        .await;
    assert_eq!(rest["invoice"]["status"], "paid");
    assert_eq!(rest["invoice"]["amount_remaining_brl"], "R$ 0,00");
    let undone = stack
        .ok(
            "billing_invoices_undo_payment",
            json!({"id": INV_OPEN, "reason": "Baixa \u{202E}registrada por engano"}),
        )
        .await;
    assert_eq!(undone["invoice"]["status"], "open");
    assert_eq!(undone["invoice"]["amount_remaining_cents"], 49_900);
    let sent = stack.kobana_calls("/v1/invoices/").pop().unwrap();
    assert_eq!(
        sent.body,
        Some(json!({"reason": "Baixa registrada por engano"}))
    );
    assert_eq!(stack.fake.contract_violations(), vec![]);
}

#[tokio::test]
async fn wa4_the_statement_lists_the_customers_ledger_in_brl_within_the_budget() {
    let stack = Stack::start().await;
    let result = stack
        .ok("billing_customers_statement", json!({"id": "crm-000202"}))
        .await;
    let rows = result["statement"].as_array().unwrap();
    let kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    assert!(
        kinds.contains(&"invoice") && kinds.contains(&"payment"),
        "{kinds:?}"
    );
    let paid = rows.iter().find(|r| r["kind"] == "payment").unwrap();
    assert_eq!(paid["amount_brl"], "-R$ 499,00");
    assert_eq!(paid["occurred_at"], "2026-07-24T11:42:00-03:00");
    for row in rows {
        let keys: Vec<&String> = row.as_object().unwrap().keys().collect();
        assert!(
            keys.iter()
                .all(|k| !k.ends_with("_cents") && *k != "billing_account_id"),
            "{row}"
        );
    }
    assert_eq!(result["total"], rows.len());
    // A long statement is cut to the answer budget, and says where to go on.
    let tight = Stack::start_with(|c| c.rows.budget_bytes = 2048).await;
    for n in 0..30 {
        add_paid(&tight, n);
    }
    let cut = tight
        .ok(
            "billing_customers_statement",
            json!({"id": PADARIA, "per_page": 40}),
        )
        .await;
    assert_eq!(cut["cut"], true, "{cut}");
    assert!(serde_json::to_string(&cut).unwrap().len() <= 2048);
    let hint = cut["hint"].as_str().unwrap();
    assert!(hint.contains("page=") && !hint.contains("fields"), "{hint}");
}

/// A succeeded payment of Padaria's account, `n` seconds into a day of July.
fn add_paid(stack: &Stack, n: u32) {
    let id = format!("c0ffee00-0000-4000-8000-{n:012}");
    stack.fake.insert_record(
        "payments",
        json!({
            "id": id, "public_id": id, "external_id": null, "invoice_id": INV_PAID_NFE_ISSUED,
            "billing_account_id": BA_PADARIA, "company_id": null, "payment_method_id": null,
            "gateway_id": null, "payment_method_type": "pix", "amount_cents": 100,
            "paid_amount_cents": 100, "currency": "BRL", "status": "succeeded",
            "payment_gateway": "KOBANA", "gateway_payment_id": null, "failure_code": null,
            "failure_message": null, "idempotency_key": null,
            "paid_at": format!("2026-07-10T12:00:{:02}Z", n % 60), "metadata": {},
            "custom_metadata": null, "created_at": "2026-07-10T12:00:00Z",
            "updated_at": "2026-07-10T12:00:00Z"
        }),
    );
}

#[tokio::test]
async fn wa4_credits_show_what_is_left_and_applying_them_lowers_what_the_invoice_owes() {
    let stack = Stack::start().await;
    let credits = stack
        .ok(
            "billing_accounts_credits",
            json!({"id": BA_PADARIA, "usage": "available"}),
        )
        .await;
    assert_eq!(ids(&credits["credits"]), [CREDIT_WELCOME]);
    assert_eq!(credits["credits"][0]["amount_remaining_brl"], "R$ 50,00");
    let every = stack
        .ok("billing_accounts_credits", json!({"id": BA_PADARIA}))
        .await;
    assert_eq!(
        every["total"], 2,
        "the used one too, never another account's"
    );
    let (result, calls) = counted(
        &stack,
        "billing_invoices_apply_credits",
        json!({"id": INV_OPEN, "credit_ids": [CREDIT_WELCOME]}),
    )
    .await;
    let applied = ok(&result);
    assert_eq!(applied["invoice"]["amount_remaining_cents"], 44_900);
    assert_eq!(applied["answer"]["applied_cents"], 5_000);
    assert_eq!(calls.len(), 2, "{calls:?}");
    let left = stack
        .ok(
            "billing_accounts_credits",
            json!({"id": BA_PADARIA, "usage": "available"}),
        )
        .await;
    assert_eq!(left["credits"], json!([]));
    let statement = stack
        .ok("billing_customers_statement", json!({"id": PADARIA}))
        .await;
    let line = statement["statement"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "credit_application")
        .cloned()
        .expect("the credit application is in the statement");
    assert_eq!(line["amount_brl"], "-R$ 50,00");
    assert_eq!(stack.fake.contract_violations(), vec![]);
}

/// FH-3: when the record the server has just read makes the action impossible, the person is
/// not asked: a pt-BR error with a stable code says why, and nothing is stored or sent.
#[tokio::test]
async fn fh3_no_question_when_the_records_state_makes_the_action_impossible() {
    let rig = crate::confirm::support::memory_rig().await;
    let token = full_token();
    rig.stack
        .fake
        .update_record("nfes", NFE_ERROR, json!({"status": "canceled"}));
    let cases = [
        (
            "billing_invoices_void",
            json!({"id": INV_VOID, "reason": "Duplicada"}),
            "já está anulada",
        ),
        (
            "billing_invoices_delete",
            json!({"id": INV_OPEN}),
            "rascunho",
        ),
        (
            "billing_payments_refund",
            json!({"id": PAY_FAILED}),
            "falhou",
        ),
        (
            "billing_subscriptions_cancel",
            json!({"id": SUB_CANCELED}),
            "já está cancelada",
        ),
        (
            "billing_nfes_cancel",
            json!({"id": NFE_ERROR, "reason": "Serviço não prestado ao tomador"}),
            "já está cancelada",
        ),
        (
            "billing_invoices_mark_paid",
            json!({"id": INV_PAID_NFE_ISSUED}),
            "já está paga",
        ),
        (
            "billing_invoices_undo_payment",
            json!({"id": INV_OPEN}),
            "fatura paga",
        ),
        (
            "billing_invoices_apply_credits",
            json!({"id": INV_DRAFT, "credit_ids": [CREDIT_WELCOME]}),
            "em aberto",
        ),
        (
            "billing_invoices_finalize",
            json!({"id": INV_OPEN}),
            "rascunho",
        ),
        (
            "billing_invoices_issue_nfe",
            json!({"id": INV_VOID}),
            "anulada",
        ),
        (
            "billing_nfes_issue",
            json!({"id": NFE_ISSUED}),
            "já foi emitida",
        ),
    ];
    for (tool, args, words) in cases {
        let (puts, writes) = (rig.puts(), rig.writes().len());
        let body = rig.call(&token, tool, &args, json!({})).await;
        let result = &body["result"];
        assert_eq!(
            common::error_code(result),
            "STATE_FORBIDS_ACTION",
            "{tool}: {body}"
        );
        let text = common::text_of(result);
        assert!(
            text.contains(words)
                && text.contains("Situação atual")
                && text.contains("Nada foi perguntado"),
            "{tool}: {text}"
        );
        assert!(
            common::error_of(result)["record_status"].is_string(),
            "{tool}: {body}"
        );
        assert_eq!(rig.puts(), puts, "{tool}: a nonce was stored");
        assert_eq!(rig.writes().len(), writes, "{tool}: a write was sent");
    }
    // The same tools still ask when the state allows the action.
    let body = rig
        .call(
            &token,
            "billing_invoices_mark_paid",
            &json!({"id": INV_OPEN}),
            json!({}),
        )
        .await;
    assert_eq!(body["result"]["resultType"], "input_required", "{body}");
}
