//! `billing_reports_month` end to end (UI-1) and the negotiated view links (UI-3), against the
//! fake under whichever profile the run plays: the four totals equal what the fake's own
//! records add up to (computed in `crate::views::support`, none of the server's code), for a
//! month given and for the current one; an invoice whose unit nothing settles is named, not
//! summed; a month larger than the report reads says so; a token without payments reads
//! the rest; the text content stands on its own; the views are linked exactly for the
//! clients that may render them, and served as documents.

use crate::common::Stack;
use crate::views::support::{self, expected, figure};
use fake_kobana::fixtures::ids::{BA_PADARIA, INV_OPEN, INV_UNVERIFIED};

use fake_kobana::readings::MoneyUnit;
use fake_kobana::{FIXTURE_ORG_ID, full_token, scoped_token};
use serde_json::{Value, json};

const TOOL: &str = "billing_reports_month";

async fn report(stack: &Stack, token: &str, args: Value) -> (Value, String) {
    let result = stack.call(token, TOOL, args).await;
    assert_ne!(result["isError"], true, "{result}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    (result["structuredContent"].clone(), text)
}

fn assert_totals(stack: &Stack, report: &Value) {
    let month = report["month"].as_str().expect("month");
    let as_of = report["as_of"].as_str().expect("as_of");
    let want = expected(&stack.fake, month, as_of);
    assert_eq!(
        figure(report, "billed"),
        want.billed,
        "billed {month}: {report}"
    );
    assert_eq!(
        figure(report, "received"),
        want.received,
        "received {month}: {report}"
    );
    assert_eq!(figure(report, "open"), want.open, "open {month}: {report}");
    assert_eq!(
        figure(report, "overdue"),
        want.overdue,
        "overdue {month}: {report}"
    );
    assert_eq!(report["complete"], true, "{report}");
}

#[tokio::test]
async fn ui1_month_totals_equal_the_fakes_own_records_for_a_month_given() {
    let stack = Stack::start().await;
    let (august, text) = report(&stack, &full_token(), json!({"month": "2026-08"})).await;
    assert_totals(&stack, &august);
    // The fixture month is not empty: three invoices billed, one payment received.
    assert_eq!(august["billed"]["count"], 3, "{august}");
    assert_eq!(august["received"]["count"], 1, "{august}");
    assert_eq!(august["billed"]["brl"], "R$ 13.687,00", "{august}");
    assert!(
        text.contains("Faturado: R$ 13.687,00") && text.contains("agosto de 2026"),
        "{text}"
    );
    assert!(
        !text.trim_start().starts_with('{'),
        "content is a pt-BR summary, not JSON: {text}"
    );
    let (july, _) = report(&stack, &full_token(), json!({"month": "2026-07"})).await;
    assert_totals(&stack, &july);
    assert!(figure(&july, "received").1 >= 1, "{july}");
}

#[tokio::test]
async fn ui1_the_current_month_totals_equal_the_fakes_own_records() {
    let stack = Stack::start().await;
    let (current, _) = report(&stack, &full_token(), json!({})).await;
    let as_of = current["as_of"].as_str().unwrap();
    assert_eq!(current["month"].as_str(), as_of.get(..7), "{current}");
    assert_totals(&stack, &current);
}

#[tokio::test]
async fn ui1_an_invoice_whose_unit_is_in_doubt_is_named_with_both_totals_not_summed() {
    let stack = Stack::start().await;
    let (may, text) = report(&stack, &full_token(), json!({"month": "2026-05"})).await;
    let want = expected(&stack.fake, "2026-05", may["as_of"].as_str().unwrap());
    let unverified = &may["unverified"][0];
    assert_eq!(unverified["id"], INV_UNVERIFIED, "{may}");
    // One of the two candidates is the stored total; the server says both, sums neither.
    let stored = stack.fake.record("invoices", INV_UNVERIFIED).unwrap()["total_subcents"]
        .as_i64()
        .unwrap();
    let true_brl = if stack.fake.readings().invoice_totals_unit == MoneyUnit::Subcents {
        &unverified["total_if_subcents_brl"]
    } else {
        &unverified["total_if_cents_brl"]
    };
    assert_eq!(true_brl, "R$ 1.234,00", "{may}");
    assert_eq!(
        figure(&may, "billed").0 + stored / 100,
        want.billed.0,
        "{may}"
    );
    assert!(text.contains("ficaram fora do faturado"), "{text}");
}

#[tokio::test]
async fn ui1_a_token_without_payments_gets_the_rest_and_is_told() {
    let stack = Stack::start().await;
    let token = scoped_token("person-ana", FIXTURE_ORG_ID, "invoices:read");
    let (august, text) = report(&stack, &token, json!({"month": "2026-08"})).await;
    assert!(august["received"].is_null(), "{august}");
    assert_eq!(august["billed"]["brl"], "R$ 13.687,00");
    assert!(text.contains("Recebido: não calculado"), "{text}");
    assert!(stack.kobana_calls("/v1/payments").is_empty());
    // Without invoices:read the tool is not there to call.
    let payments_only = scoped_token("person-ana", FIXTURE_ORG_ID, "payments:read");
    let result = stack.call(&payments_only, TOOL, json!({})).await;
    assert_eq!(result["isError"], true, "{result}");
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("invoices:read")
    );
}

#[tokio::test]
async fn ui1_a_bad_month_is_a_pt_br_error_and_reaches_no_kobana() {
    let stack = Stack::start().await;
    let result = stack
        .call(&full_token(), TOOL, json!({"month": "2026-13"}))
        .await;
    assert_eq!(result["isError"], true);
    assert!(
        result["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("YYYY-MM")
    );
    assert!(stack.fake.calls().is_empty());
}

/// 320 draft invoices due in September: more than the report's three pages of 100.
async fn crowd_september(stack: &Stack) {
    for n in 0..320 {
        let (body, _) = stack
            .create_invoice(json!({
                "billing_account_id": BA_PADARIA,
                "due_date": "2026-09-10",
                "line_items": [{"description": format!("Item {n}"), "unit_amount_cents": 1000}]
            }))
            .await;
        assert!(body.get("invoice").is_some(), "{body}");
    }
}

#[tokio::test]
async fn ui1_a_month_larger_than_the_report_reads_says_so_and_stays_bounded() {
    let stack = Stack::start().await;
    crowd_september(&stack).await;
    stack.fake.clear_calls();
    let (september, text) = report(&stack, &full_token(), json!({"month": "2026-09"})).await;
    assert_eq!(september["complete"], false, "{september}");
    assert_eq!(
        september["coverage"]["invoices"]["read"], 300,
        "{september}"
    );
    assert_eq!(
        september["coverage"]["invoices"]["total"], 320,
        "{september}"
    );
    assert!(text.contains("foram lidos 300 de 320"), "{text}");
    let invoice_reads = stack.kobana_calls("/v1/invoices").len();
    assert_eq!(invoice_reads, 3, "three pages, no more");
    assert_eq!(stack.kobana_calls("/v1/payments").len(), 1);
}

#[tokio::test]
async fn ui3_views_are_linked_for_clients_that_may_render_them_and_only_those() {
    let stack = Stack::start().await;
    let token = full_token();
    let ui = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    let linked = |body: &Value| -> Vec<(String, String)> {
        body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| {
                let uri = t["_meta"]["ui"]["resourceUri"].as_str()?;
                assert_eq!(
                    t["_meta"]["ui/resourceUri"], uri,
                    "the legacy key beside it"
                );
                Some((t["name"].as_str()?.to_owned(), uri.to_owned()))
            })
            .collect()
    };
    let want = vec![
        (
            "billing_customers_get".to_owned(),
            "ui://kobana/customer".to_owned(),
        ),
        (
            "billing_invoices_get".to_owned(),
            "ui://kobana/invoice".to_owned(),
        ),
        (
            "billing_reports_month".to_owned(),
            "ui://kobana/month".to_owned(),
        ),
    ];
    let sorted = |mut v: Vec<(String, String)>| {
        v.sort();
        v
    };
    // Era 2025: the declaration was at `initialize`, which a stateless server cannot know.
    let (_, legacy) = stack.legacy(&token, "tools/list", json!({})).await;
    assert_eq!(sorted(linked(&legacy)), want);
    // Era 2026: linked when the request declares the extension, not otherwise.
    let (_, modern_ui) = stack
        .modern_with_caps(&token, "tools/list", json!({}), ui)
        .await;
    assert_eq!(sorted(linked(&modern_ui)), want);
    let (_, plain) = stack.modern(&token, "tools/list", json!({})).await;
    assert!(
        linked(&plain).is_empty(),
        "no link for a client without views"
    );
    // The same tools either way: the views add `_meta` only.
    let names = |b: &Value| -> Vec<String> {
        b["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&plain), names(&modern_ui));
    let size = |b: &Value| b["result"]["tools"].to_string().len();
    assert!(size(&modern_ui) > size(&plain) && size(&modern_ui) - size(&plain) < 400);
}

#[tokio::test]
async fn ui2_each_view_is_served_as_one_mcp_app_document_under_its_tools_permission() {
    let stack = Stack::start().await;
    for uri in [
        "ui://kobana/invoice",
        "ui://kobana/customer",
        "ui://kobana/month",
    ] {
        for modern in [false, true] {
            let params = json!({"uri": uri});
            let (_, body) = if modern {
                stack.modern(&full_token(), "resources/read", params).await
            } else {
                stack.legacy(&full_token(), "resources/read", params).await
            };
            let contents = &body["result"]["contents"][0];
            assert_eq!(contents["uri"], uri, "{body}");
            assert_eq!(contents["mimeType"], "text/html;profile=mcp-app");
            assert_eq!(contents["_meta"]["ui"]["prefersBorder"], true);
            let html = contents["text"].as_str().unwrap();
            assert!(
                html.starts_with("<!doctype html>") && html.len() <= 150 * 1024,
                "{uri}"
            );
        }
    }
    // A token that may not run the linked tool cannot read its view.
    let customers_only = scoped_token("person-ana", FIXTURE_ORG_ID, "customers:read");
    let (_, refused) = stack
        .legacy(
            &customers_only,
            "resources/read",
            json!({"uri": "ui://kobana/invoice"}),
        )
        .await;
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    // And the invoice the invoice view shows carries its codes (or says why not).
    let result = stack
        .call(
            &full_token(),
            "billing_invoices_get",
            json!({"id": INV_OPEN}),
        )
        .await;
    let codes = &result["structuredContent"]["invoice"]["payment_codes"];
    assert!(codes.is_object(), "{result}");
}

#[tokio::test]
async fn ui1_monthly_billing_summary_hands_over_the_servers_figures() {
    let stack = Stack::start().await;
    let params = json!({"name": "monthly_billing_summary", "arguments": {"month": "2026-08"}});
    let (_, body) = stack.legacy(&full_token(), "prompts/get", params).await;
    let text = body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        text.contains("Faturado: R$ 13.687,00") && text.contains("não some valores você mesmo"),
        "{text}"
    );
}

/// The support's own date arithmetic, which the expected totals rest on.
#[test]
fn the_date_arithmetic_is_right() {
    assert_eq!(support::days(1970, 1, 1), 0);
    assert_eq!(support::days(2026, 8, 20) - support::days(2026, 7, 31), 20);
    assert_eq!(
        support::sao_paulo_day("2026-08-25T03:00:00Z"),
        support::days(2026, 8, 25)
    );
    assert_eq!(
        support::sao_paulo_day("2026-08-25T02:59:00Z"),
        support::days(2026, 8, 24)
    );
    assert_eq!(
        support::sao_paulo_day("2026-08-13T16:20:00-03:00"),
        support::days(2026, 8, 13)
    );
    assert_eq!(
        support::sao_paulo_day("2026-08-13T23:20:00-03:00"),
        support::days(2026, 8, 13)
    );
    assert_eq!(
        support::month_days("2028-02").1 - support::month_days("2028-02").0,
        28
    );
}
