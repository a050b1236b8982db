//! The server is right under every reading (RK-2): the same calls against a fake of each
//! profile give the person the same amounts, days and outcomes; a created invoice is never
//! silently 100× off; unknown scope words never hide a tool.

use crate::common;

use common::{Stack, text_of};
use fake_kobana::{Readings, full_token};
use serde_json::{Value, json};

const OPEN: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
const DRAFT: &str = "3139d32c-93cd-49bf-9c94-1cf0dc98d2c1";
const ACCOUNT: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
const PAYMENT: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
const SUBSCRIPTION: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";

fn profiles() -> [(&'static str, Readings); 2] {
    [("ours", Readings::ours()), ("others", Readings::others())]
}

/// The structured result of a tool call (asserting it is not an error).
async fn ok(stack: &Stack, tool: &str, args: Value) -> Value {
    let result = stack.call(&full_token(), tool, args).await;
    assert_eq!(result["isError"], false, "{tool}: {result}");
    result["structuredContent"].clone()
}

/// A destructive call confirmed by the person: the question asked, and the result.
async fn confirmed(stack: &Stack, tool: &str, args: Value) -> (String, Value) {
    let asked = stack
        .call_with_forms(&full_token(), tool, &args, json!({}))
        .await;
    let question = asked["result"]["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{tool}: no question: {asked}"))
        .to_owned();
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

#[tokio::test]
async fn reads_show_the_same_amounts_and_days_under_every_reading() {
    for (name, readings) in profiles() {
        let stack = Stack::start_with_readings(readings).await;
        let invoice =
            ok(&stack, "billing_invoices_get", json!({"id": OPEN})).await["invoice"].clone();
        assert_eq!(invoice["total_brl"], "R$ 499,00", "{name}: {invoice}");
        assert_eq!(invoice["amount_due_brl"], "R$ 499,00", "{name}");
        assert_eq!(
            invoice["due_date_sao_paulo"], "2026-08-25T00:00:00-03:00",
            "{name}"
        );
        // Totals in centavos are said; absent line items are said.
        assert_eq!(
            invoice.get("amounts_note").is_some(),
            name == "others",
            "{name}: {invoice}"
        );
        assert_eq!(
            invoice.get("line_items").is_none(),
            name == "others",
            "{name}"
        );
        assert_eq!(
            invoice.get("line_items_note").is_some(),
            name == "others",
            "{name}"
        );
        let list = ok(&stack, "billing_invoices_list", json!({"status": "open"})).await;
        let row = list["invoices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == OPEN)
            .unwrap()
            .clone();
        assert_eq!(
            (row["total_brl"].clone(), row["due_date"].clone()),
            (json!("R$ 499,00"), json!("2026-08-25")),
            "{name}: {row}"
        );
    }
}

#[tokio::test]
async fn writes_succeed_the_same_way_under_every_reading() {
    for (name, readings) in profiles() {
        let stack = Stack::start_with_readings(readings).await;
        // datetime_form: resumes_at goes out in UTC `Z`, which both readings take.
        ok(
            &stack,
            "billing_subscriptions_pause",
            json!({"id": SUBSCRIPTION, "resumes_at": "2026-10-01"}),
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
        let (_, deleted) = confirmed(&stack, "billing_invoices_delete", json!({"id": DRAFT})).await;
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
            json!({"id": OPEN, "reason": "Cobrança duplicada"}),
        )
        .await;
        assert!(
            question.contains("FAT-2026-000812 de R$ 499,00"),
            "{name}: {question}"
        );
        // refund_result: `payment` is the refunded payment under both readings.
        let (_, refund) =
            confirmed(&stack, "billing_payments_refund", json!({"id": PAYMENT})).await;
        assert_eq!(refund["payment"]["id"], PAYMENT, "{name}: {refund}");
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
async fn a_created_invoice_is_never_silently_100x_off() {
    let args = json!({"billing_account_id": ACCOUNT,
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
        assert_eq!(
            result["structuredContent"]["error"], "AMOUNT_MISMATCH",
            "{profile}"
        );
        let text = text_of(&result);
        let id = result["structuredContent"]["invoice_id"]
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
async fn unknown_scope_words_list_every_tool_and_kobanas_403_teaches_the_words() {
    let stack = Stack::start().await;
    let everything = stack.tool_names(&full_token(), &[]).await;
    let org = fake_kobana::FIXTURE_ORG_ID;
    for scope in ["billing.all", "inbox.emails", "billing.invoices.read"] {
        let token = fake_kobana::scoped_token("person-ana", org, scope);
        assert_eq!(stack.tool_names(&token, &[]).await, everything, "{scope}");
    }
    let token = fake_kobana::scoped_token("person-ana", org, "billing.invoices.read");
    let read = stack
        .call(&token, "billing_invoices_get", json!({"id": OPEN}))
        .await;
    assert_eq!(read["isError"], false, "{read}");
    let denied = stack
        .call(
            &token,
            "billing_invoices_send_reminder",
            json!({"id": OPEN}),
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
