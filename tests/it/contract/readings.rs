//! The server is right under every reading (RK-2): the same calls against a fake of each
//! profile give the person the same amounts, days and outcomes; a created invoice is never
//! silently 100× off; unknown scope words never hide a tool.

use crate::common;
use fake_kobana::fixtures::ids::{
    BA_PADARIA, INV_DRAFT, INV_OPEN, INV_OVERDUE, INV_UNVERIFIED, PAY_CARD, SUB_ACTIVE,
};

use common::{Stack, text_of};
use fake_kobana::readings::{DueDateForm, ScopeWords, TokenIssuer};
use fake_kobana::{Readings, full_token, full_token_in};
use serde_json::{Value, json};

fn profiles() -> [(&'static str, Readings); 2] {
    [("ours", Readings::ours()), ("others", Readings::others())]
}

/// The structured result of a tool call (asserting it is not an error).
async fn ok(stack: &Stack, tool: &str, args: Value) -> Value {
    let result = stack.call(&full_token(), tool, args).await;
    assert_eq!(result["isError"], false, "{tool}: {result}");
    result["structuredContent"].clone()
}

/// A destructive call, not yet confirmed: the question asked, and the answer carrying it.
async fn ask(stack: &Stack, tool: &str, args: &Value) -> (String, Value) {
    let asked = stack
        .call_with_forms(&full_token(), tool, args, json!({}))
        .await;
    let question = asked["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool}: no question: {asked}"))
        .to_owned();
    (question, asked)
}

/// A destructive call confirmed by the person: the question asked, and the result.
async fn confirmed(stack: &Stack, tool: &str, args: Value) -> (String, Value) {
    let (question, asked) = ask(stack, tool, &args).await;
    let state = asked["result"]["requestState"].clone();
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let done = stack
        .call_with_forms(
            &full_token(),
            tool,
            &args,
            json!({"requestState": state, "inputResponses": {"confirm": yes}}),
        )
        .await;
    assert_eq!(done["result"]["isError"], false, "{tool}: {done}");
    (question, done["result"]["structuredContent"].clone())
}

/// Days from a due day to today, in São Paulo.
fn days_overdue_since(year: i64, month: u32, day: u32) -> i64 {
    crate::catalog::support::sao_paulo_today()
        - fake_kobana::clock::days_from_civil(year, month, day)
}

/// Reads under `ours`, `others`, and `others` with bare-date due dates (reading
/// `due_date_form`, alternative `date_only`): the same amounts, due dates and overdue days.
#[tokio::test]
async fn rk2_reads_show_the_same_amounts_and_days_under_every_reading() {
    let date_only = Readings::parse("others,due_date_form=date_only").unwrap();
    let runs = profiles()
        .into_iter()
        .chain([("others,due_date_form=date_only", date_only)]);
    for (name, readings) in runs {
        let other = !readings.is_ours();
        let stack = Stack::start_with_readings(readings).await;
        let invoice =
            ok(&stack, "billing_invoices_get", json!({"id": INV_OPEN})).await["invoice"].clone();
        // Kobana's own member, as the profile writes the day.
        let written = match readings.due_date_form {
            DueDateForm::SaoPauloMidnight => "2026-08-25T03:00:00Z",
            DueDateForm::UtcMidnight => "2026-08-25T00:00:00Z",
            DueDateForm::DateOnly => "2026-08-25",
        };
        assert_eq!(invoice["due_date"], written, "{name}");
        assert_eq!(invoice["total_brl"], "R$ 499,00", "{name}: {invoice}");
        assert_eq!(invoice["amount_due_brl"], "R$ 499,00", "{name}");
        assert_eq!(
            invoice["due_date_sao_paulo"], "2026-08-25T00:00:00-03:00",
            "{name}: Kobana wrote {}",
            invoice["due_date"]
        );
        // Totals in centavos are said; absent line items are said.
        assert_eq!(
            invoice.get("amounts_note").is_some(),
            other,
            "{name}: {invoice}"
        );
        assert_eq!(invoice.get("line_items").is_none(), other, "{name}");
        assert_eq!(invoice.get("line_items_note").is_some(), other, "{name}");
        let list = ok(&stack, "billing_invoices_list", json!({"status": "open"})).await;
        let rows = list["invoices"].as_array().unwrap();
        let row = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
        let open = row(INV_OPEN);
        assert_eq!(
            (open["total_brl"].clone(), open["due_date"].clone()),
            (json!("R$ 499,00"), json!("2026-08-25")),
            "{name}: {open}"
        );
        let overdue = row(INV_OVERDUE);
        assert_eq!(overdue["due_date"], "2026-08-05", "{name}: {overdue}");
        assert_eq!(
            overdue["days_overdue"],
            json!(days_overdue_since(2026, 8, 5)),
            "{name}: {overdue}"
        );
    }
}

#[tokio::test]
async fn rk2_writes_succeed_the_same_way_under_every_reading() {
    for (name, readings) in profiles() {
        let stack = Stack::start_with_readings(readings).await;
        // datetime_form: resumes_at goes out in UTC `Z`, which both readings take.
        ok(
            &stack,
            "billing_subscriptions_pause",
            json!({"id": SUB_ACTIVE, "resumes_at": "2026-10-01"}),
        )
        .await;
        let pause = stack
            .fake
            .calls()
            .into_iter()
            .find(|c| c.method == "POST")
            .unwrap();
        assert_eq!(
            pause.body.unwrap()["resumes_at"],
            "2026-10-01T03:00:00Z",
            "{name}"
        );
        // delete_answer, idempotency_header: a confirmed delete is `{deleted: true}` after a
        // 200 or a 204, and carries the key under both names.
        let (_, deleted) =
            confirmed(&stack, "billing_invoices_delete", json!({"id": INV_DRAFT})).await;
        assert_eq!(deleted["result"], json!({"deleted": true}), "{name}");
        let delete = stack
            .fake
            .calls()
            .into_iter()
            .find(|c| c.method == "DELETE")
            .unwrap();
        assert_eq!(
            delete.idempotency_headers,
            ["x-idempotency-key", "idempotency-key"],
            "{name}"
        );
        assert!(
            delete.idempotency_key.is_some(),
            "{name}: the fake read the key"
        );
        // invoice_totals_unit: the person confirms R$ 499,00 either way.
        let (question, _) = confirmed(
            &stack,
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "Cobrança duplicada"}),
        )
        .await;
        assert!(
            question.contains("FAT-2026-000812 de R$ 499,00"),
            "{name}: {question}"
        );
        // refund_result: `payment` is the refunded payment under both readings.
        let (_, refund) =
            confirmed(&stack, "billing_payments_refund", json!({"id": PAY_CARD})).await;
        assert_eq!(refund["payment"]["id"], PAY_CARD, "{name}: {refund}");
        assert_eq!(refund["payment"]["status"], "refunded", "{name}");
        assert_eq!(
            refund.get("refund").is_some(),
            name == "others",
            "{name}: {refund}"
        );
        assert!(stack.fake.contract_violations().is_empty(), "{name}");
    }
}

/// Readings `invoice_totals_unit` × `line_item_input_unit`: under every combination the
/// created invoice is either what was asked or an error naming both figures and the undo.
#[tokio::test]
async fn rk3_a_created_invoice_is_never_silently_100x_off() {
    let args = json!({"billing_account_id": BA_PADARIA,
        "line_items": [{"description": "Consultoria", "quantity": 1, "unit_amount_cents": 15000}]});
    for (totals, input, right) in [
        ("subcents", "subcents", true),
        ("cents", "subcents", true),
        ("subcents", "cents", false),
        ("cents", "cents", false),
    ] {
        let profile = format!("ours,invoice_totals_unit={totals},line_item_input_unit={input}");
        let stack = Stack::start_with_readings(Readings::parse(&profile).unwrap()).await;
        let result = stack
            .call(&full_token(), "billing_invoices_create", args.clone())
            .await;
        if right {
            assert_eq!(result["isError"], false, "{profile}: {result}");
            let invoice = &result["structuredContent"];
            assert_eq!(
                invoice["amounts"]["kobana_total_brl"], "R$ 150,00",
                "{profile}"
            );
            assert_eq!(
                invoice["invoice"]["total_brl"], "R$ 150,00",
                "{profile}: {invoice}"
            );
            continue;
        }
        assert_eq!(result["isError"], true, "{profile}: {result}");
        assert_eq!(common::error_code(&result), "AMOUNT_MISMATCH", "{profile}");
        let text = text_of(&result);
        let id = common::error_of(&result)["invoice_id"]
            .as_str()
            .unwrap()
            .to_owned();
        for needle in [
            "R$ 150,00",
            "R$ 15.000,00",
            "billing_invoices_delete",
            id.as_str(),
        ] {
            assert!(text.contains(needle), "{profile}: {needle}: {text}");
        }
        // What it says to do undoes it: the draft deletes.
        let (_, deleted) = confirmed(&stack, "billing_invoices_delete", json!({"id": id})).await;
        assert_eq!(deleted["result"]["deleted"], true, "{profile}");
    }
}

/// Reading `scope_words`: a token whose words this server does not know sees every tool;
/// Kobana decides, and its 403 shows the words it wanted and the ones granted.
#[tokio::test]
async fn rk4_unknown_scope_words_list_every_tool_and_kobanas_403_teaches_the_words() {
    let stack = Stack::start().await;
    let registry = kobana_mcp::catalog::registry().all().len();
    // The baseline is a token in the words this server knows, whatever the fake's profile.
    let everything = stack
        .tool_names(&full_token_in(ScopeWords::ResourceLevel), &[])
        .await;
    assert_eq!(everything.len(), registry, "{everything:?}");
    let org = fake_kobana::FIXTURE_ORG_ID;
    let read_only = stack.tool_names(&fake_kobana::readonly_token(), &[]).await;
    assert!(read_only.len() < registry, "known words do narrow the list");
    for scope in [
        "billing.all",
        "inbox.emails",
        "billing.invoices.read",
        "invoices:read billing.invoices.read",
    ] {
        let token = fake_kobana::scoped_token("person-ana", org, scope);
        assert_eq!(stack.tool_names(&token, &[]).await, everything, "{scope}");
    }
    let token = fake_kobana::scoped_token("person-ana", org, "billing.invoices.read");
    let read = stack
        .call(&token, "billing_invoices_get", json!({"id": INV_OPEN}))
        .await;
    assert_eq!(read["isError"], false, "{read}");
    let denied = stack
        .call(
            &token,
            "billing_invoices_send_reminder",
            json!({"id": INV_OPEN}),
        )
        .await;
    assert_eq!(denied["isError"], true, "{denied}");
    let text = text_of(&denied);
    assert!(
        text.contains("`invoices:write`") || text.contains("`billing.invoices.write`"),
        "{text}"
    );
    assert!(text.contains("`billing.invoices.read`"), "{text}");
}

/// Reading `invoice_totals_unit`: a paid invoice with no net value and no line items has
/// nothing to check its unit against. Under either unit it shows no single BRL total, only
/// the note naming both candidates (the right one among them), in the read, the list row and
/// a confirmation question.
#[tokio::test]
async fn rk3_an_invoice_whose_unit_cannot_be_verified_shows_both_candidates_never_one_figure() {
    for (name, readings) in profiles() {
        let stack = Stack::start_with_readings(readings).await;
        let invoice = ok(
            &stack,
            "billing_invoices_get",
            json!({"id": INV_UNVERIFIED}),
        )
        .await["invoice"]
            .clone();
        for key in [
            "total_brl",
            "subtotal_brl",
            "amount_due_brl",
            "amount_paid_brl",
        ] {
            assert!(invoice.get(key).is_none(), "{name}: {key}: {invoice}");
        }
        assert_eq!(invoice["amount_remaining_brl"], "R$ 0,00", "{name}");
        let note = invoice["amounts_note"].as_str().unwrap_or_default();
        // R$ 1.234,00 is the invoice; the wrong unit gives 100× either way.
        let wrong = if name == "ours" {
            "R$ 123.400,00"
        } else {
            "R$ 12,34"
        };
        for needle in ["R$ 1.234,00", wrong, "subcentavos", "centavos (÷100"] {
            assert!(note.contains(needle), "{name}: {needle}: {note}");
        }
        let list = ok(&stack, "billing_invoices_list", json!({"status": "paid"})).await;
        let row = list["invoices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == INV_UNVERIFIED)
            .unwrap_or_else(|| panic!("{name}: {list}"))
            .clone();
        assert!(row.get("total_brl").is_none(), "{name}: {row}");
        let short = row["amounts_note"].as_str().unwrap_or_default();
        assert!(
            short.contains("R$ 1.234,00") && short.contains(wrong),
            "{name}: {row}"
        );
        // The question about it names no total as fact, only what is owed (unit certain).
        // (It is paid: undoing its payment is what can be asked; voiding it is not, FH-3.)
        let undo = json!({"id": INV_UNVERIFIED, "reason": "Lançada em duplicidade"});
        let (question, _) = ask(&stack, "billing_invoices_undo_payment", &undo).await;
        assert!(
            question.contains("FAT-2026-000540 de total não conferido (saldo em aberto R$ 0,00)"),
            "{name}: {question}"
        );
        assert!(
            !question.contains("R$ 1.234,00") && !question.contains(wrong),
            "{name}: {question}"
        );
    }
}

/// Reading `token_issuer`: the server passes every token through to Kobana unread. A token
/// it cannot read (opaque) lists every tool and reaches Kobana; a token of Kobana's app
/// OAuth works where Kobana takes it, and where Kobana refuses it (as it refuses the opaque
/// one) the answer says in pt-BR how to pass a billing API token.
#[tokio::test]
async fn rk5_tokens_pass_through_and_a_refused_one_is_told_how_to_pass_a_billing_token() {
    let registry = kobana_mcp::catalog::registry().all().len();
    let help = [
        "O Kobana recusou o token",
        "token de API do Faturamento Automático",
        "`Authorization: Bearer <token>`",
        "app.kobana.com.br",
    ];
    for (name, readings) in profiles() {
        let stack = Stack::start_with_readings(readings).await;
        let opaque = "opaque-app-oauth-access-token-5d1c";
        let app = stack.fake.app_oauth_token();
        for token in [opaque, app.as_str()] {
            assert_eq!(
                stack.tool_names(token, &[]).await.len(),
                registry,
                "{name}: every tool is listed"
            );
        }
        let refused = stack
            .call(opaque, "billing_organization_get", json!({}))
            .await;
        assert_eq!(refused["isError"], true, "{name}: {refused}");
        let text = text_of(&refused);
        for needle in help {
            assert!(text.contains(needle), "{name}: {needle}: {text}");
        }
        let calls = stack.kobana_calls("/v1/organization");
        assert!(
            calls.len() == 1 && !calls[0].authorized,
            "{name}: the server sent it to Kobana, which refused it: {calls:?}"
        );
        let result = stack
            .call(&app, "billing_organization_get", json!({}))
            .await;
        if readings.token_issuer == TokenIssuer::KobanaAppOauth {
            assert_eq!(result["isError"], false, "{name}: {result}");
            assert!(
                result["structuredContent"]["organization"]["id"].is_string(),
                "{name}: {result}"
            );
        } else {
            assert_eq!(result["isError"], true, "{name}: {result}");
            let text = text_of(&result);
            for needle in help {
                assert!(text.contains(needle), "{name}: {needle}: {text}");
            }
        }
    }
}
