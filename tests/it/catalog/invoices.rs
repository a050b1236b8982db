//! End-to-end tests of the invoices toolset against the fake Kobana: reads and writes run
//! (T-1), money and dates are readable (T-3), refusals say what to change (T-4).

use crate::common;

use crate::catalog::support::*;
use common::{Refusal, Stack, assert_refusals, assert_refused_before_kobana};
use fake_kobana::{DocKind, full_token};
use serde_json::{Value, json};

// ---------------------------------------------------------------- invoices

#[tokio::test]
async fn t1_invoice_reads_run_end_to_end() {
    let stack = Stack::start().await;
    let today = sao_paulo_today();

    let all = stack.ok("billing_invoices_list", json!({})).await;
    assert_eq!(all["total"], 8);
    let open = all["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == INV_OPEN)
        .unwrap();
    // A compact row (CX-1): one BRL text, the São Paulo due date, the billing account, and
    // the customer's name once the instance knows it (BW-2: one read per list at most).
    assert_eq!(open["total_brl"], "R$ 499,00");
    assert_eq!(open["due_date"], "2026-08-25");
    assert_eq!(open["billing_account_id"], BA_PADARIA);
    for invoice in all["invoices"].as_array().unwrap() {
        assert!(invoice["billing_account_id"].is_string(), "{invoice}");
    }
    stack
        .ok("billing_accounts_get", json!({"id": BA_PADARIA}))
        .await;
    let again = stack.ok("billing_invoices_list", json!({})).await;
    let open = again["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == INV_OPEN)
        .unwrap();
    if common::customer_embedded() {
        assert_eq!(open["customer"], "Padaria Pão Dourado Ltda");
    } else {
        assert!(open.get("customer").is_none(), "no name to show: {open}");
    }
    let due = fake_kobana::clock::days_from_civil(2026, 8, 25);
    assert_eq!(open.get("days_overdue").is_some(), today > due, "{open}");
    for invoice in all["invoices"].as_array().unwrap() {
        if invoice["status"] != "open" {
            assert!(invoice.get("days_overdue").is_none(), "{invoice}");
        }
    }

    overdue_lists(&stack, today).await;
    pending_nfe_and_filters(&stack).await;
    one_invoice_and_its_pdf(&stack).await;
}

/// overdue = Kobana's pending-payment list.
async fn overdue_lists(stack: &Stack, today: i64) {
    let overdue = stack
        .ok(
            "billing_invoices_list",
            json!({"overdue": true, "sort_by": "due_date", "sort_order": "asc"}),
        )
        .await;
    assert_eq!(ids(&overdue["invoices"]), [INV_OVERDUE]);
    let inv = &overdue["invoices"][0];
    assert_eq!(inv["number"], "FAT-2026-000790");
    assert_eq!(inv["total_brl"], "R$ 11.988,00");
    let days = today - fake_kobana::clock::days_from_civil(2026, 8, 5);
    assert_eq!(inv["days_overdue"], days);
    assert!(days >= 15);
    let call = stack.kobana_calls("/v1/invoices/pending-payment");
    assert_eq!(call.len(), 1);
    assert!(
        call[0]
            .query
            .as_deref()
            .unwrap()
            .contains("sort_by=due_date")
    );
    let overdue = stack
        .ok(
            "billing_invoices_list",
            json!({"overdue": true, "billing_account_id": BA_PADARIA}),
        )
        .await;
    assert_eq!(overdue["total"], 0);
}

/// without_nfe = Kobana's pending-nfe list, and the general list's filters.
async fn pending_nfe_and_filters(stack: &Stack) {
    // without_nfe = Kobana's pending-nfe list.
    let pending = stack
        .ok("billing_invoices_list", json!({"without_nfe": true}))
        .await;
    assert_eq!(
        ids(&pending["invoices"]),
        [INV_PAID_NFE_ERROR, INV_UNVERIFIED]
    );
    assert_eq!(pending["invoices"][0]["number"], "FAT-2026-000655");
    assert_eq!(stack.kobana_calls("/v1/invoices/pending-nfe").len(), 1);

    // Filters of the general list.
    let paid = stack
        .ok(
            "billing_invoices_list",
            json!({"status": "paid", "sort_by": "due_date", "sort_order": "asc"}),
        )
        .await;
    assert_eq!(
        ids(&paid["invoices"]),
        [INV_UNVERIFIED, INV_PAID_NFE_ISSUED, INV_PAID_NFE_ERROR]
    );
    let by_doc = stack.ok("billing_invoices_list", json!({"document_number": "45.321.287/0001-90", "due_date_from": "2026-08-01", "due_date_to": "2026-08-31"})).await;
    assert_eq!(ids(&by_doc["invoices"]), [INV_OPEN]);
    let by_sub = stack.ok("billing_invoices_list", json!({"subscription_id": SUB_ACTIVE, "date_from": "2026-07-01", "date_to": "2026-07-31"})).await;
    assert_eq!(ids(&by_sub["invoices"]), [INV_PAID_NFE_ISSUED]);
    let by_text = stack
        .ok("billing_invoices_list", json!({"search": "Planejamento"}))
        .await;
    assert_eq!(ids(&by_text["invoices"]), [INV_PAID_NFE_ERROR]);
}

/// One invoice with its line items, and its PDF described, never sent.
async fn one_invoice_and_its_pdf(stack: &Stack) {
    // One invoice, with its line items.
    let got = stack
        .ok("billing_invoices_get", json!({"id": INV_DRAFT}))
        .await;
    let invoice = &got["invoice"];
    assert_eq!(invoice["status"], "draft");
    assert_eq!(invoice["total_brl"], "R$ 1.500,00");
    if common::readings().line_items.embeds() {
        assert_eq!(
            invoice["line_items"][0]["description"],
            "Consultoria fiscal (10 h)"
        );
        assert_eq!(invoice["line_items"][0]["unit_amount_brl"], "R$ 150,00");
    } else {
        // Reading `line_items`: only with `include`, which no operation declares.
        assert!(invoice["line_items_note"].is_string(), "{invoice}");
    }
    assert_eq!(invoice["_derived"]["is_overdue"], false);
    let call = stack.kobana_calls(&format!("/v1/invoices/{INV_DRAFT}"));
    assert_eq!(
        call[0].query, None,
        "the invoice read declares no `include`"
    );

    // The PDF is described, never sent.
    let pdf = stack
        .ok("billing_invoices_pdf", json!({"id": INV_OPEN}))
        .await;
    let size = stack
        .fake
        .pdf_bytes(DocKind::Invoice, INV_OPEN)
        .unwrap()
        .len();
    assert_eq!(
        pdf,
        json!({"pdf": {"invoice_id": INV_OPEN, "mime_type": "application/pdf", "size_bytes": size,
            "resource_uri": format!("kobana://billing/invoices/{INV_OPEN}/pdf")}})
    );
    stack.fake.set_pdf_content_length(false);
    let pdf = stack
        .ok("billing_invoices_pdf", json!({"id": INV_OPEN}))
        .await;
    assert_eq!(pdf["pdf"]["size_bytes"], Value::Null);
    // A draft has no PDF yet, and is named as such (FH-3).
    let text = stack
        .refused("billing_invoices_pdf", json!({"id": INV_DRAFT}))
        .await;
    assert!(text.contains("rascunho"), "{text}");
}

#[tokio::test]
async fn t1_invoice_writes_run_end_to_end() {
    let stack = Stack::start().await;

    let (created, right) = stack.create_invoice(
            json!({"billing_account_id": BA_MARIANA, "due_date": "2026-12-10",
                "description": "Consultoria dezembro",
                "line_items": [{"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_cents": 15000},
                               {"description": "Deslocamento", "unit_amount_cents": 4990}]})).await;
    let invoice = &created["invoice"];
    assert_eq!(invoice["status"], "draft");
    // Under line_item_input_unit = cents the draft is 100× (and the call said so).
    let total = if right { "R$ 349,90" } else { "R$ 34.990,00" };
    assert_eq!(invoice["total_brl"], total);
    assert_eq!(invoice["due_date_sao_paulo"], "2026-12-10T00:00:00-03:00");
    if right {
        assert_eq!(invoice["line_items"][0]["unit_amount_subcents"], 1_500_000);
    }
    assert_eq!(invoice["_derived"]["is_overdue"], false);
    let id = invoice["id"].as_str().unwrap().to_owned();
    let body = stack.kobana_calls("/v1/invoices")[0].body.clone().unwrap();
    assert_eq!(
        body["line_items"][0],
        json!({"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_subcents": 1_500_000})
    );
    assert_eq!(body["line_items"][1]["quantity"], 1);

    let finalized = stack
        .ok("billing_invoices_finalize", json!({"id": id}))
        .await;
    assert_eq!(finalized["invoice"]["status"], "open");
    assert!(
        finalized["invoice"]["number"]
            .as_str()
            .unwrap()
            .starts_with("FAT-")
    );

    let reminded = stack
        .ok("billing_invoices_send_reminder", json!({"id": INV_OVERDUE}))
        .await;
    assert_eq!(reminded["invoice"]["metadata"]["reminders_sent"], 1);
    assert_eq!(reminded["invoice"]["_derived"]["is_overdue"], true);

    let voided = stack
        .ok(
            "billing_invoices_void",
            json!({"id": id, "reason": "Emitida em duplicidade"}),
        )
        .await;
    assert_eq!(voided["invoice"]["status"], "void");
    assert_eq!(voided["invoice"]["amount_remaining_brl"], "R$ 0,00");
    let void_call = stack.kobana_calls(&format!("/v1/invoices/{id}/void"));
    assert_eq!(
        void_call[0].body,
        Some(json!({"reason": "Emitida em duplicidade"}))
    );
    // A second void is refused by Kobana: the state already changed.
    let text = stack
        .refused(
            "billing_invoices_void",
            json!({"id": id, "reason": "de novo"}),
        )
        .await;
    assert!(text.contains("já está anulada"), "{text}");

    let nfe = stack
        .ok(
            "billing_invoices_issue_nfe",
            json!({"id": INV_PAID_NFE_ERROR}),
        )
        .await;
    assert_eq!(nfe["issuance"]["nfe_id"], NFE_ERROR);
    assert_eq!(nfe["issuance"]["status"], "pending");

    let (draft, _) = stack.create_invoice(
            json!({"billing_account_id": BA_PADARIA, "line_items": [{"description": "Ajuste", "unit_amount_cents": 100}]})).await;
    let draft_id = draft["invoice"]["id"].as_str().unwrap().to_owned();
    let deleted = stack
        .ok("billing_invoices_delete", json!({"id": draft_id}))
        .await;
    assert_eq!(deleted["result"]["deleted"], true);
    let text = stack
        .refused("billing_invoices_get", json!({"id": draft_id}))
        .await;
    assert!(text.contains("Não encontrado"), "{text}");
}

#[tokio::test]
async fn t4_invoice_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();
    let one_item = json!([{"description": "x", "unit_amount_cents": 1}]);

    // Business rules, from Kobana.
    assert_refusals(
        &stack,
        &token,
        vec![
            (
                "billing_invoices_void",
                json!({"id": INV_PAID_NFE_ISSUED, "reason": "Cliente pediu"}),
                &["Fatura paga não pode ser anulada"],
            ),
            (
                "billing_invoices_delete",
                json!({"id": INV_OPEN}),
                &["Somente faturas em rascunho"],
            ),
            (
                "billing_invoices_finalize",
                json!({"id": INV_OPEN}),
                &["rascunho"],
            ),
            (
                "billing_invoices_issue_nfe",
                json!({"id": INV_PAID_NFE_ISSUED}),
                &["já possui NF-e"],
            ),
            (
                "billing_invoices_send_reminder",
                json!({"id": UNKNOWN}),
                &["Não encontrado"],
            ),
            (
                "billing_invoices_create",
                json!({"billing_account_id": UNKNOWN, "line_items": one_item}),
                &["billing_account_id", "não encontrada"],
            ),
        ],
    )
    .await;
    let before = calls(&stack, "/v1/");

    let cases = argument_refusals(&one_item);
    assert_refused_before_kobana(&stack, &token, cases).await;
    // A negative amount may be named by the field or by the value.
    let text = stack.refused("billing_invoices_create", json!({"billing_account_id": BA_MARIANA, "line_items": [{"description": "x", "unit_amount_cents": -5}]})).await;
    assert!(
        text.contains("unit_amount_cents") || text.contains("-5"),
        "{text}"
    );
    assert_eq!(
        calls(&stack, "/v1/"),
        before,
        "argument errors never reach Kobana"
    );
}

/// The invoice arguments refused before any Kobana call, with the words each refusal names.
fn argument_refusals(one_item: &Value) -> Vec<Refusal> {
    let list_refusals: [(Value, &[&str]); 12] = [
        (
            json!({"overdue": true, "without_nfe": true}),
            &["without_nfe"],
        ),
        (json!({"overdue": true, "status": "open"}), &["status"]),
        (
            json!({"overdue": true, "status": "open"}),
            &["billing_account_id, page, per_page"],
        ),
        (
            json!({"overdue": true, "search": "Horizonte", "due_date_to": "2026-08-31"}),
            &["due_date_to, search"],
        ),
        (
            json!({"without_nfe": true, "subscription_id": SUB_ACTIVE}),
            &["subscription_id"],
        ),
        (json!({"due_date_from": "31/08/2026"}), &["AAAA-MM-DD"]),
        (
            json!({"date_from": "2026-09-01", "date_to": "2026-08-01"}),
            &["inverta"],
        ),
        (json!({"subscription_id": "FAT-2026-000812"}), &["UUID"]),
        (json!({"per_page": 101}), &["per_page"]),
        (json!({"page": 0}), &["page"]),
        (json!({"status": "overdue"}), &["overdue"]),
        (json!({"customer": "x"}), &["argumento desconhecido"]),
    ];
    let mut cases: Vec<Refusal> = list_refusals
        .into_iter()
        .map(|(args, words)| ("billing_invoices_list", args, words))
        .collect();
    let many: Vec<Value> = (0..201)
        .map(|n| json!({"description": format!("item {n}"), "unit_amount_cents": 1}))
        .collect();
    cases.extend::<[Refusal; 5]>([
        (
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "  "}),
            &["`reason`"],
        ),
        ("billing_invoices_void", json!({"id": INV_OPEN}), &["reason"]),
        (
            "billing_invoices_create",
            json!({"billing_account_id": BA_MARIANA, "line_items": []}),
            &["line_items"],
        ),
        (
            "billing_invoices_create",
            json!({"billing_account_id": BA_MARIANA, "line_items": many}),
            &["200"],
        ),
        (
            "billing_invoices_create",
            json!({"billing_account_id": BA_MARIANA, "due_date": "2026-02-30", "line_items": one_item}),
            &["due_date"],
        ),
    ]);
    for tool in [
        "billing_invoices_get",
        "billing_invoices_pdf",
        "billing_invoices_delete",
    ] {
        cases.push((tool, json!({"id": "../organization"}), &["UUID"]));
    }
    cases
}

#[tokio::test]
async fn t3_invoice_money_shows_cents_and_brl() {
    let stack = Stack::start().await;
    let got = stack
        .ok("billing_invoices_get", json!({"id": INV_OVERDUE}))
        .await;
    let inv = &got["invoice"];
    assert_eq!(inv["total_subcents"], common::wire_subcents(119_880_000));
    assert_eq!(inv["total_brl"], "R$ 11.988,00");
    assert_eq!(inv["total_withheld_brl"], "R$ 179,82");
    assert_eq!(inv["net_value_brl"], "R$ 11.808,18");
    assert_eq!(inv["due_date_sao_paulo"], "2026-08-05T00:00:00-03:00");
    assert_eq!(inv["_derived"]["is_overdue"], true);
}

#[tokio::test]
async fn t1_overdue_list_narrows_to_one_account() {
    // The overdue list for one account, as collect_overdue_invoices would use it.
    let stack = Stack::start().await;
    let overdue = stack
        .ok(
            "billing_invoices_list",
            json!({"overdue": true, "billing_account_id": BA_HORIZONTE}),
        )
        .await;
    assert_eq!(ids(&overdue["invoices"]), [INV_OVERDUE]);
    let query = stack.kobana_calls("/v1/invoices/pending-payment")[0]
        .query
        .clone()
        .unwrap();
    assert!(
        query.contains(&format!("billing_account_id={BA_HORIZONTE}")),
        "{query}"
    );
}
