//! Prompts end to end in both eras (PR-1…PR-7, A-2).

use crate::common;
use fake_kobana::fixtures::ids::{BA_PADARIA, PADARIA, UNKNOWN};

use common::Stack;
use fake_kobana::{full_token, readonly_token};
use kobana_mcp::catalog::registry;
use serde_json::{Value, json};

async fn get(stack: &Stack, token: &str, name: &str, args: Value, modern: bool) -> Value {
    let params = json!({"name": name, "arguments": args});
    let (status, body) = if modern {
        stack.modern(token, "prompts/get", params).await
    } else {
        stack.legacy(token, "prompts/get", params).await
    };
    assert_eq!(status, 200, "{body}");
    body
}

fn names(body: &Value) -> Vec<String> {
    common::result_names(body, "prompts")
}

/// Every `billing_*` tool named in the prompt's text.
fn tools_named(result: &Value) -> Vec<String> {
    let mut found = Vec::new();
    for message in result["messages"].as_array().unwrap() {
        let text = message["content"]["text"].as_str().unwrap_or_default();
        for piece in text.split('`') {
            let is_tool_name = kobana_mcp::catalog::Toolset::ALL
                .iter()
                .any(|set| piece.starts_with(&format!("billing_{}_", set.slug())));
            if is_tool_name && !piece.contains(' ') {
                found.push(piece.to_owned());
            }
        }
    }
    found
}

fn all_text(result: &Value) -> String {
    result["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"]["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn pr5_lists_follow_the_token_in_both_eras() {
    let stack = Stack::start().await;
    let all = [
        "collect_overdue_invoices",
        "review_pending_nfes",
        "customer_overview",
        "monthly_billing_summary",
    ];
    let (_, body) = stack.legacy(&full_token(), "prompts/list", json!({})).await;
    assert_eq!(names(&body), all);
    let customer = body["result"]["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "customer_overview")
        .unwrap();
    assert_eq!(customer["arguments"][0]["name"], "customer_id");
    assert_eq!(customer["arguments"][0]["required"], true);
    assert!(customer["title"].as_str().is_some() && customer["description"].as_str().is_some());

    let (_, body) = stack
        .modern(&readonly_token(), "prompts/list", json!({}))
        .await;
    assert_eq!(names(&body), &all[1..], "A-2: no prompt that writes");
    assert_eq!(body["result"]["cacheScope"], "private");
}

#[tokio::test]
async fn pr5_a_prompt_the_token_cannot_use_is_refused_like_an_unknown_one() {
    let stack = Stack::start().await;
    let body = get(
        &stack,
        &readonly_token(),
        "collect_overdue_invoices",
        json!({}),
        false,
    )
    .await;
    assert_eq!(body["error"]["code"], -32602, "{body}");
    let unknown = get(&stack, &full_token(), "no_such_prompt", json!({}), false).await;
    assert_eq!(unknown["error"]["code"], -32602);
    assert_eq!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .replace("collect_overdue_invoices", "X"),
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .replace("no_such_prompt", "X")
    );
}

#[tokio::test]
async fn pr7_each_prompt_names_registered_tools_in_pt_br() {
    let stack = Stack::start().await;
    for modern in [false, true] {
        for (name, args, expected) in [
            (
                "collect_overdue_invoices",
                json!({}),
                vec!["billing_invoices_list", "billing_invoices_send_reminder"],
            ),
            (
                "collect_overdue_invoices",
                json!({"customer_id": PADARIA}),
                vec!["billing_invoices_list", "billing_invoices_send_reminder"],
            ),
            (
                "review_pending_nfes",
                json!({}),
                vec!["billing_invoices_list", "billing_nfes_list"],
            ),
            (
                "customer_overview",
                json!({"customer_id": "crm-000202"}),
                vec![
                    "billing_customers_get",
                    "billing_subscriptions_list",
                    "billing_invoices_list",
                ],
            ),
            (
                "monthly_billing_summary",
                json!({"month": "2026-08"}),
                vec!["billing_reports_month", "billing_invoices_list"],
            ),
            (
                "monthly_billing_summary",
                json!({}),
                vec!["billing_reports_month", "billing_invoices_list"],
            ),
        ] {
            let body = get(&stack, &full_token(), name, args.clone(), modern).await;
            let result = &body["result"];
            assert!(
                result["messages"].as_array().is_some_and(|m| !m.is_empty()),
                "{name}: {body}"
            );
            let named = tools_named(result);
            for tool in &named {
                assert!(
                    registry().get(tool).is_some(),
                    "{name} names unknown tool {tool}"
                );
            }
            for tool in expected {
                assert!(
                    named.iter().any(|n| n == tool),
                    "{name} {args} must name {tool}: {named:?}"
                );
            }
            if modern {
                assert_eq!(result["resultType"], "complete");
            }
        }
    }
}

#[tokio::test]
async fn pr1_overdue_collection_asks_before_sending() {
    let stack = Stack::start().await;
    let body = get(
        &stack,
        &full_token(),
        "collect_overdue_invoices",
        json!({}),
        false,
    )
    .await;
    let text = all_text(&body["result"]);
    assert!(text.contains("`overdue: true`"), "{text}");
    assert!(
        text.contains("Não envie nenhum lembrete antes de eu escolher"),
        "{text}"
    );
    let ask = text.find("Pergunte quais").unwrap();
    let send = text.find("chame `billing_invoices_send_reminder`").unwrap();
    assert!(ask < send, "asking comes before sending");
    assert!(
        stack.kobana_calls("/v1/invoices").is_empty(),
        "the prompt itself sends nothing"
    );
}

#[tokio::test]
async fn pr2_review_says_nothing_is_emitted() {
    let stack = Stack::start().await;
    let body = get(
        &stack,
        &full_token(),
        "review_pending_nfes",
        json!({}),
        true,
    )
    .await;
    let text = all_text(&body["result"]);
    assert!(text.contains("Não emita"), "{text}");
    assert!(
        text.contains("`without_nfe: true`") && text.contains("`status: \"error\"`"),
        "{text}"
    );
    // The two lists are read up front and handed over.
    assert!(
        text.contains("FAT-2026-000655"),
        "the paid invoice without NF-e: {text:.2000}"
    );
    assert!(
        text.contains("Rejeição"),
        "the rejected NF-e reason: {text:.2000}"
    );
    assert_eq!(stack.kobana_calls("/v1/invoices/pending-nfe").len(), 1);
    assert_eq!(stack.kobana_calls("/v1/nfes").len(), 1);
}

/// PR-3: the customer reaches the model as text content that names its resource URI and
/// carries the JSON: no `resource` block, which some client libraries (langchain-mcp-adapters)
/// cannot load. Every message of every prompt is text.
#[tokio::test]
async fn pr3_customer_overview_carries_the_customer_as_text_naming_its_uri() {
    let stack = Stack::start().await;
    for modern in [false, true] {
        let body = get(
            &stack,
            &full_token(),
            "customer_overview",
            json!({"customer_id": "crm-000202"}),
            modern,
        )
        .await;
        let messages = body["result"]["messages"].as_array().unwrap();
        for message in messages {
            assert_eq!(message["content"]["type"], "text", "{body}");
            assert_eq!(message["role"], "user", "{body}");
        }
        let uri = format!("`kobana://billing/customers/{PADARIA}`");
        let customer = messages
            .iter()
            .filter_map(|m| m["content"]["text"].as_str())
            .find(|t| t.contains(&uri))
            .unwrap_or_else(|| panic!("no message names {uri}: {body}"));
        // The JSON the customer read returned, whole and parseable, inside a json fence.
        let json_text = customer
            .split_once("```json\n")
            .and_then(|(_, rest)| rest.rsplit_once("\n```"))
            .map(|(inner, _)| inner)
            .unwrap_or_else(|| panic!("no ```json block: {customer}"));
        let record: Value = serde_json::from_str(json_text).unwrap();
        assert_eq!(record["customer"]["id"], PADARIA, "{record}");
        assert_eq!(record["customer"]["name"], "Padaria Pão Dourado Ltda");
        assert!(record["billing_accounts"].is_array(), "{record}");
        let text = all_text(&body["result"]);
        assert!(text.contains(BA_PADARIA), "billing account named: {text}");
    }
    // Scoped to one customer, the overdue collection carries it the same way.
    let body = get(
        &stack,
        &full_token(),
        "collect_overdue_invoices",
        json!({"customer_id": PADARIA}),
        false,
    )
    .await;
    let messages = body["result"]["messages"].as_array().unwrap();
    assert!(
        messages.iter().all(|m| m["content"]["type"] == "text"),
        "{body}"
    );
    assert!(
        all_text(&body["result"]).contains(&format!("kobana://billing/customers/{PADARIA}")),
        "{body}"
    );
}

#[tokio::test]
async fn pr4_month_range_is_computed() {
    let stack = Stack::start().await;
    let body = get(
        &stack,
        &full_token(),
        "monthly_billing_summary",
        json!({"month": "2026-02"}),
        false,
    )
    .await;
    let text = all_text(&body["result"]);
    assert!(
        text.contains("`due_date_from: \"2026-02-01\"`")
            && text.contains("`due_date_to: \"2026-02-28\"`"),
        "{text}"
    );
    let body = get(
        &stack,
        &full_token(),
        "monthly_billing_summary",
        json!({}),
        false,
    )
    .await;
    assert!(all_text(&body["result"]).contains(&crate::catalog::support::stack_month()));
}

#[tokio::test]
async fn pr6_bad_arguments_are_32602_naming_the_argument() {
    let stack = Stack::start().await;
    for modern in [false, true] {
        for (name, args, needle) in [
            ("customer_overview", json!({}), "customer_id"),
            (
                "customer_overview",
                json!({"customer_id": ""}),
                "customer_id",
            ),
            (
                "customer_overview",
                json!({"customer_id": "../x"}),
                "customer_id",
            ),
            (
                "customer_overview",
                json!({"customer_id": UNKNOWN}),
                "customer_id",
            ),
            (
                "monthly_billing_summary",
                json!({"month": "2026-13"}),
                "YYYY-MM",
            ),
            (
                "monthly_billing_summary",
                json!({"month": "2026-8"}),
                "YYYY-MM",
            ),
            (
                "monthly_billing_summary",
                json!({"month": "agosto"}),
                "`month`",
            ),
            (
                "collect_overdue_invoices",
                json!({"customer_id": UNKNOWN}),
                "customer_id",
            ),
        ] {
            let body = get(&stack, &full_token(), name, args.clone(), modern).await;
            assert_eq!(body["error"]["code"], -32602, "{name} {args}: {body}");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains(needle), "{name} {args}: {message}");
        }
    }
}
