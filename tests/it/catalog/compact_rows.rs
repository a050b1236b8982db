//! Results sized for a model's context (CX-1 … CX-4): compact list rows, `fields` on every list tool
//! (raw HTTP and the real clients), the byte budget per answer and its honest cut, and the
//! prompts that pull those rows.

use crate::common;

use std::collections::{BTreeSet, HashSet};

use common::{Runner, Stack, scenario};
use fake_kobana::full_token;
use serde_json::{Value, json};

/// Every list tool and the member holding its rows, as the registry declares them.
fn lists() -> Vec<(&'static str, &'static str)> {
    let lists: Vec<_> = kobana_mcp::catalog::registry()
        .all()
        .iter()
        .filter_map(|tool| match tool.meta.output {
            kobana_mcp::catalog::Output::List(resource) => Some((tool.meta.name, resource.slug())),
            _ => None,
        })
        .collect();
    assert_eq!(lists.len(), 8, "the eight list tools: {lists:?}");
    lists
}

/// The structured result of a call that must succeed, and its text's size.
#[track_caller]
fn ok(result: &Value) -> (Value, usize) {
    assert_ne!(
        result["isError"],
        json!(true),
        "unexpected tool error: {result}"
    );
    let text = result["content"][0]["text"].as_str().expect("a text block");
    (result["structuredContent"].clone(), text.len())
}

#[track_caller]
fn failed(result: &Value) -> String {
    assert_eq!(result["isError"], json!(true), "should fail: {result}");
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

fn rows<'a>(result: &'a Value, key: &str) -> &'a Vec<Value> {
    result[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key}: {result}"))
}

fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

/// `tools/list` definitions by name.
async fn definitions(stack: &Stack) -> std::collections::HashMap<String, Value> {
    let (status, body) = stack.legacy(&full_token(), "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_owned(), t.clone()))
        .collect()
}

fn names_of(value: &Value) -> BTreeSet<String> {
    match value {
        Value::Object(map) => map.keys().cloned().collect(),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect(),
        _ => panic!("neither object nor array: {value}"),
    }
}

/// The compact names (output schema) and the `fields` enum (input schema) of a list tool.
fn shape_of(definition: &Value, key: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let compact = names_of(&definition["outputSchema"]["properties"][key]["items"]["properties"]);
    let fields = names_of(&definition["inputSchema"]["properties"]["fields"]["items"]["enum"]);
    (compact, fields)
}

#[tokio::test]
async fn t2_every_list_row_is_compact_described_by_the_output_schema_and_under_400_bytes() {
    let stack = Stack::start().await;
    let token = full_token();
    let tools = definitions(&stack).await;
    for (tool, key) in lists() {
        let (compact, _) = shape_of(&tools[tool], key);
        assert!(
            compact.contains("id") && compact.len() >= 4,
            "{tool}: {compact:?}"
        );
        let (result, text_bytes) = ok(&stack.call(&token, tool, json!({"per_page": 20})).await);
        let page = rows(&result, key);
        assert!(!page.is_empty(), "{tool}: the demo data has rows");
        assert_eq!(result["returned"], page.len(), "{tool}");
        // 20 rows of the largest one still fit 8 KB.
        let largest = page.iter().map(|r| r.to_string().len()).max().unwrap();
        assert!(largest <= 400, "{tool}: a row of {largest} B");
        assert!(text_bytes <= 8 * 1024, "{tool}: {text_bytes} B");
        for row in page {
            let keys = names_of(row);
            assert!(keys.is_subset(&compact), "{tool}: {keys:?} ⊄ {compact:?}");
            for (name, value) in row.as_object().unwrap() {
                assert!(!value.is_null(), "{tool}: {name} is null in {row}");
                assert!(
                    !name.ends_with("_sao_paulo") && !name.ends_with("_cents"),
                    "{tool}: {name} duplicates another form"
                );
            }
        }
    }
}

#[tokio::test]
async fn t3_an_invoice_row_says_what_a_person_scans_in_one_form_each() {
    let stack = Stack::start().await;
    let (result, _) = ok(&stack
        .call(
            &full_token(),
            "billing_invoices_list",
            json!({"overdue": true}),
        )
        .await);
    let row = &rows(&result, "invoices")[0];
    assert_eq!(row["number"], "FAT-2026-000790");
    assert_eq!(row["status"], "open");
    assert_eq!(row["total_brl"], "R$ 11.988,00");
    assert_eq!(row["amount_remaining_brl"], "R$ 11.988,00");
    assert_eq!(row["due_date"], "2026-08-05");
    assert!(row["days_overdue"].as_i64().unwrap() >= 15, "{row}");
    assert_eq!(
        row["customer"].as_str().is_some_and(|c| !c.is_empty()),
        common::customer_embedded(),
        "the customer's name comes from the billing account (when it embeds it): {row}"
    );
    // `_get` keeps the full record.
    let id = row["id"].as_str().unwrap();
    let (full, _) = ok(&stack
        .call(&full_token(), "billing_invoices_get", json!({"id": id}))
        .await);
    assert_eq!(
        full["invoice"]["total_subcents"],
        common::wire_subcents(119_880_000)
    );
    assert!(full["invoice"]["due_date_sao_paulo"].is_string());
    assert_eq!(full["invoice"]["_derived"]["is_overdue"], true);
}

#[tokio::test]
async fn t2_fields_adds_record_fields_on_every_list_tool_and_unknown_names_list_the_valid_ones() {
    let stack = Stack::start().await;
    let token = full_token();
    let tools = definitions(&stack).await;
    for (tool, key) in lists() {
        let (compact, accepted) = shape_of(&tools[tool], key);
        // `fields` also accepts the compact names (BW-1: they change nothing).
        assert!(compact.is_subset(&accepted), "{tool}: {compact:?}");
        let fields: BTreeSet<String> = accepted.difference(&compact).cloned().collect();
        assert!(fields.len() >= 5, "{tool}: {fields:?}");
        let all: Vec<&str> = accepted.iter().map(String::as_str).collect();
        let (result, _) = ok(&stack
            .call(&token, tool, json!({"per_page": 20, "fields": all}))
            .await);
        let mut shown = BTreeSet::new();
        for row in rows(&result, key) {
            for (name, value) in row.as_object().unwrap() {
                assert!(!value.is_null(), "{tool}: {name}");
                assert!(
                    compact.contains(name) || fields.contains(name),
                    "{tool}: {name}"
                );
                if fields.contains(name) {
                    shown.insert(name.clone());
                }
            }
        }
        assert!(shown.len() >= 2, "{tool}: fields shown {shown:?}");
        let text = failed(
            &stack
                .call(&token, tool, json!({"fields": ["nonexistent"]}))
                .await,
        );
        assert!(text.contains("fields"), "{tool}: {text}");
        let listed = fields.iter().filter(|f| text.contains(f.as_str())).count();
        assert_eq!(
            listed,
            fields.len(),
            "{tool}: every valid name listed: {text}"
        );
    }
    // Kobana's integers and arrays come as they are; nothing reached Kobana for a bad name.
    let (result, _) = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"status": "draft", "fields": ["total_subcents", "description", "created_at"]}),
        )
        .await);
    let row = &rows(&result, "invoices")[0];
    assert_eq!(row["total_subcents"], common::wire_subcents(15_000_000));
    assert_eq!(row["description"], "Consultoria fiscal — agosto/2026");
    assert_eq!(row["created_at"], "2026-08-18T10:00:00-03:00");
    // A compact name asked for changes nothing (BW-1).
    let compact = ok(&stack
        .call(&token, "billing_invoices_list", json!({"status": "draft"}))
        .await)
    .0;
    let same = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"status": "draft", "fields": ["number", "id", "number"]}),
        )
        .await)
    .0;
    assert_eq!(same["invoices"], compact["invoices"]);
    let before = stack.kobana_calls("/v1/invoices").len();
    failed(
        &stack
            .call(&token, "billing_invoices_list", json!({"fields": []}))
            .await,
    );
    assert_eq!(stack.kobana_calls("/v1/invoices").len(), before);
}

/// Follows a list from page 1 to its end as the answers say, returning every row's id and
/// the answers.
async fn walk(stack: &Stack, tool: &str, key: &str, args: Value) -> (Vec<String>, Vec<Value>) {
    let mut seen = Vec::new();
    let mut answers = Vec::new();
    let mut args = args;
    for _ in 0..50 {
        let (result, text_bytes) = ok(&stack.call(&full_token(), tool, args.clone()).await);
        seen.extend(ids(rows(&result, key)));
        answers.push(json!({"result": result, "text_bytes": text_bytes}));
        let Some(next) = result["next_page"].as_u64() else {
            return (seen, answers);
        };
        args["page"] = json!(next);
        if let Some(size) = result["next_per_page"].as_u64() {
            args["per_page"] = json!(size);
        }
    }
    panic!("{tool}: the list never ended");
}

#[tokio::test]
async fn t2_a_page_over_the_budget_is_cut_says_so_and_the_next_page_continues_exactly() {
    let whole = Stack::start().await;
    let (expected, answers) = walk(
        &whole,
        "billing_invoices_list",
        "invoices",
        json!({"per_page": 20, "fields": ["description", "created_at"]}),
    )
    .await;
    assert_eq!(answers.len(), 1, "within the default budget, one page");
    assert_eq!(expected.len(), 8);
    assert!(answers[0]["result"].get("cut").is_none());

    // Below what MCP_ANSWER_BUDGET_BYTES accepts, so the demo page of 8 must be cut.
    let budget = 1024;
    let tight = Stack::start_with(|c| c.rows.budget_bytes = budget).await;
    let (got, answers) = walk(
        &tight,
        "billing_invoices_list",
        "invoices",
        json!({"per_page": 20, "fields": ["description", "created_at"]}),
    )
    .await;
    assert_eq!(got, expected, "no row lost, repeated or reordered");
    assert_eq!(got.iter().collect::<HashSet<_>>().len(), got.len());
    assert!(answers.len() >= 2, "the page was cut: {answers:?}");
    let first = &answers[0]["result"];
    assert_eq!(first["cut"], true);
    assert_eq!(first["total"], 8);
    let returned = first["returned"].as_u64().unwrap();
    assert!((1..8).contains(&returned), "{first}");
    assert_eq!(first["next_page"], 2);
    assert_eq!(first["next_per_page"], returned);
    let hint = first["hint"].as_str().unwrap();
    assert!(
        hint.contains("cortada")
            && hint.contains(&format!("{returned} de 8"))
            && hint.contains(&format!("page=2 e per_page={returned}")),
        "{hint}"
    );
    for answer in &answers {
        let bytes = answer["text_bytes"].as_u64().unwrap() as usize;
        assert!(bytes <= budget, "{bytes} B over the {budget} B budget");
    }
    let last = &answers.last().unwrap()["result"];
    assert!(last["next_page"].is_null(), "{last}");
}

#[tokio::test]
async fn t2_whole_records_stay_available_by_configuration() {
    let stack = Stack::start_with(|c| c.rows.full_records = true).await;
    let (result, _) = ok(&stack
        .call(
            &full_token(),
            "billing_invoices_list",
            json!({"overdue": true}),
        )
        .await);
    let row = &rows(&result, "invoices")[0];
    assert_eq!(row["total_subcents"], common::wire_subcents(119_880_000));
    assert!(row["due_date_sao_paulo"].is_string());
    assert_eq!(row["_derived"]["is_overdue"], true);
}

#[tokio::test]
async fn pr1_prompts_pull_compact_rows_and_name_only_fields_the_rows_have() {
    let stack = Stack::start().await;
    let token = full_token();
    let (status, body) = stack
        .legacy(
            &token,
            "prompts/get",
            json!({"name": "review_pending_nfes"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let text = body["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert!(
        !text.contains("_sao_paulo") && !text.contains("_derived"),
        "{text}"
    );
    assert!(
        text.contains("\"total_brl\"") && text.contains("\"customer\""),
        "{text}"
    );
    let tools = definitions(&stack).await;
    let (invoice_row, _) = shape_of(&tools["billing_invoices_list"], "invoices");
    let (nfe_row, _) = shape_of(&tools["billing_nfes_list"], "nfes");
    // Every field the prompts tell the model to read is in the compact row.
    for (prompt, args, row) in [
        ("collect_overdue_invoices", json!({}), &invoice_row),
        (
            "monthly_billing_summary",
            json!({"month": "2026-08"}),
            &invoice_row,
        ),
    ] {
        let (status, body) = stack
            .legacy(
                &token,
                "prompts/get",
                json!({"name": prompt, "arguments": args}),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        let text = body["result"]["messages"][0]["content"]["text"]
            .as_str()
            .unwrap();
        let named = backticked_fields(text);
        assert!(!named.is_empty(), "{prompt}: {text}");
        for field in named {
            assert!(
                row.contains(&field),
                "{prompt} names `{field}`, not in the row"
            );
        }
    }
    let named = backticked_fields(text);
    assert!(
        named
            .iter()
            .all(|f| invoice_row.contains(f) || nfe_row.contains(f)),
        "{named:?}"
    );
}

/// The `snake_case` names between backticks that look like row fields (not tools/args).
fn backticked_fields(text: &str) -> Vec<String> {
    let arguments = [
        "overdue",
        "per_page",
        "next_page",
        "date_from",
        "date_to",
        "due_date_from",
        "due_date_to",
        "billing_account_id",
        "without_nfe",
        "open",
        "paid",
        "uncollectible",
        "draft",
        "void",
        "id",
    ];
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.split(':').next().unwrap_or(s).trim().to_owned())
        .filter(|s| {
            !s.starts_with("billing_")
                && !s.contains(' ')
                && s.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                && !arguments.contains(&s.as_str())
        })
        .collect()
}

/// `rows` without their `customer` member.
fn without_customer(rows: &Value) -> Value {
    let mut rows = rows.clone();
    for row in rows.as_array_mut().into_iter().flatten() {
        if let Some(row) = row.as_object_mut() {
            row.remove("customer");
            row.remove("customer_unavailable");
        }
    }
    rows
}

#[tokio::test]
async fn t2_fields_work_through_each_real_client() {
    let token = full_token();
    let fields_of = |tool: &str| -> Vec<&'static str> {
        match tool {
            "billing_customers_list" => vec!["kind", "phones"],
            "billing_accounts_list" => vec!["payment_terms_days"],
            "billing_plans_list" => vec!["slug", "features"],
            "billing_products_list" => vec!["slug"],
            "billing_subscriptions_list" => vec!["recurring_amount_cents", "collection_method"],
            "billing_invoices_list" => vec!["total_subcents", "created_at"],
            "billing_payments_list" => vec!["amount_cents"],
            _ => vec!["nfe_key", "taxes"],
        }
    };
    let mut steps: Vec<Value> = lists()
        .iter()
        .map(|(tool, _)| json!({"op": "call_tool", "name": tool, "arguments": {"fields": fields_of(tool)}}))
        .collect();
    steps.push(json!({"op": "call_tool", "name": "billing_payments_list",
        "arguments": {"fields": ["amount"]}}));
    for runner in Runner::ALL {
        let stack = Stack::start().await;
        let report = scenario(
            runner,
            &stack.url,
            &token,
            "accept",
            &Value::Array(steps.clone()),
        )
        .await;
        let outcomes = report["steps"].as_array().unwrap();
        for ((tool, key), outcome) in lists().iter().zip(outcomes) {
            assert_eq!(outcome["ok"], true, "{runner:?} {tool}: {outcome}");
            let result = &outcome["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert_ne!(result["isError"], true, "{runner:?} {tool}: {text}");
            // The model reads the same rows a raw call gets.
            let raw = stack
                .call(&token, tool, json!({"fields": fields_of(tool)}))
                .await;
            let (expected, _) = ok(&raw);
            let got: Value = serde_json::from_str(text).unwrap();
            // The instance learns a customer's name per call (catalog::lists::names): compare the
            // rows without it.
            assert_eq!(
                without_customer(&got[*key]),
                without_customer(&expected[*key]),
                "{runner:?} {tool}"
            );
            let shown = rows(&got, key)
                .iter()
                .any(|r| fields_of(tool).iter().all(|f| r.get(*f).is_some()));
            assert!(
                shown,
                "{runner:?} {tool}: {:?} in no row: {text:.400}",
                fields_of(tool)
            );
        }
        let bad = &outcomes[lists().len()]["result"];
        assert_eq!(bad["isError"], true, "{runner:?}: {bad}");
        let text = bad["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("fields")
                && text.contains("amount_cents")
                && text.contains("failure_message"),
            "{runner:?}: {text}"
        );
    }
}
