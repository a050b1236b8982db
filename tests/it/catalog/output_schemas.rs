//! Every tool's `structuredContent`, in a real call through the HTTP front against the fake
//! Kobana, validates against the `outputSchema` the same server lists for it (HR-3: the
//! registry puts the handler's data under the declared output key, one source). A new tool
//! fails here until it has a successful call in the table below.

use crate::common;
use fake_kobana::fixtures::ids::{
    BA_MARIANA, BA_PADARIA, CREDIT_WELCOME, INV_DRAFT, INV_OPEN, INV_PAID_NFE_ERROR, NFE_ERROR,
    NFE_ISSUED, PAY_CARD, PLAN_PRO, PROD_EXTRA_USER, SUB_ACTIVE,
};

use common::Stack;
use fake_kobana::full_token;
use serde_json::{Value, json};

/// One successful call per tool (each on a fresh fake, so writes do not interfere).
fn calls(customer: &str) -> Vec<(&'static str, Value)> {
    vec![
        ("billing_organization_get", json!({})),
        ("billing_schemas_list", json!({})),
        ("billing_schemas_get", json!({"resource": "invoices"})),
        ("billing_customers_list", json!({"per_page": 2})),
        ("billing_customers_get", json!({"id": customer})),
        (
            "billing_customers_create",
            json!({"name": "Oficina Boa Vista Ltda", "document_number": "11.444.777/0001-61", "email": "contato@boavista.example"}),
        ),
        (
            "billing_customers_update",
            json!({"id": customer, "nickname": "Boa Vista"}),
        ),
        ("billing_customers_delete", json!({"id": customer})),
        ("billing_accounts_list", json!({})),
        ("billing_accounts_get", json!({"id": BA_MARIANA})),
        ("billing_plans_list", json!({})),
        ("billing_plans_get", json!({"id": PLAN_PRO})),
        ("billing_products_list", json!({"fields": ["created_at"]})),
        ("billing_products_get", json!({"id": PROD_EXTRA_USER})),
        ("billing_subscriptions_list", json!({"status": "active"})),
        ("billing_subscriptions_get", json!({"id": SUB_ACTIVE})),
        (
            "billing_subscriptions_create",
            json!({"billing_account_id": BA_MARIANA, "plan_id": PLAN_PRO}),
        ),
        ("billing_subscriptions_pause", json!({"id": SUB_ACTIVE})),
        ("billing_subscriptions_resume", json!({"id": SUB_ACTIVE})),
        ("billing_subscriptions_cancel", json!({"id": SUB_ACTIVE})),
        ("billing_invoices_list", json!({"overdue": true})),
        ("billing_invoices_get", json!({"id": INV_OPEN})),
        ("billing_invoices_pdf", json!({"id": INV_OPEN})),
        (
            "billing_invoices_create",
            json!({"billing_account_id": BA_MARIANA, "line_items": [{"description": "Consultoria", "unit_amount_cents": 15000}]}),
        ),
        ("billing_invoices_finalize", json!({"id": INV_DRAFT})),
        ("billing_invoices_send_reminder", json!({"id": INV_OPEN})),
        (
            "billing_invoices_issue_nfe",
            json!({"id": INV_PAID_NFE_ERROR}),
        ),
        (
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "duplicada"}),
        ),
        ("billing_invoices_delete", json!({"id": INV_DRAFT})),
        ("billing_payments_list", json!({})),
        ("billing_payments_get", json!({"id": PAY_CARD})),
        ("billing_payments_refund", json!({"id": PAY_CARD})),
        ("billing_nfes_list", json!({})),
        ("billing_nfes_get", json!({"id": NFE_ISSUED})),
        ("billing_nfes_pdf", json!({"id": NFE_ISSUED})),
        ("billing_nfes_xml", json!({"id": NFE_ISSUED})),
        ("billing_reports_month", json!({"month": "2026-08"})),
        ("billing_nfes_issue", json!({"id": NFE_ERROR})),
        ("billing_customers_statement", json!({"id": customer})),
        ("billing_accounts_credits", json!({"id": BA_PADARIA})),
        (
            "billing_invoices_change_due_date",
            json!({"id": INV_OPEN, "due_date": crate::catalog::support::future_day(30)}),
        ),
        ("billing_invoices_mark_paid", json!({"id": INV_OPEN})),
        (
            "billing_invoices_undo_payment",
            json!({"id": INV_PAID_NFE_ERROR, "reason": "Baixa em duplicidade"}),
        ),
        (
            "billing_invoices_apply_credits",
            json!({"id": INV_OPEN, "credit_ids": [CREDIT_WELCOME]}),
        ),
        (
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"}),
        ),
        ("billing_audit_list", json!({"per_page": 5})),
        (
            "billing_operations_search",
            json!({"query": "anular fatura"}),
        ),
        (
            "billing_operations_read",
            json!({"operation": "get-invoices", "query": {"per_page": 2}}),
        ),
        (
            "billing_operations_write",
            json!({"operation": "patch-customers-id", "path": {"id": customer},
                "body": {"nickname": "Boa Vista"}}),
        ),
        (
            "billing_operations_write_destructive",
            json!({"operation": "post-invoices-id-void", "path": {"id": INV_OPEN},
                "body": {"reason": "Cobrança emitida em duplicidade"}}),
        ),
    ]
}

/// The JSON type names `value` satisfies.
fn is_type(value: &Value, kind: &str) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        other => panic!("schema type {other} not handled"),
    }
}

/// Every way `value` departs from `schema` (the JSON Schema keywords our output schemas use:
/// type, properties, required, items, enum, additionalProperties), one line each.
fn violations(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(kind) = schema.get("type") {
        let ok = match kind {
            Value::String(k) => is_type(value, k),
            Value::Array(kinds) => kinds.iter().any(|k| is_type(value, k.as_str().unwrap())),
            other => panic!("type {other}"),
        };
        if !ok {
            out.push(format!("{at}: {value} is not {kind}"));
            return;
        }
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array)
        && !values.contains(value)
    {
        out.push(format!("{at}: {value} not in {values:?}"));
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().unwrap();
            if !object.contains_key(name) {
                out.push(format!("{at}: required `{name}` missing"));
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, member) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(sub) => violations(sub, member, &format!("{at}.{name}"), out),
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{at}: `{name}` not allowed"));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            violations(items, item, &format!("{at}[{i}]"), out);
        }
    }
}

#[tokio::test]
async fn t1_every_tools_structured_content_validates_against_its_output_schema() {
    let token = full_token();
    let listing = Stack::start().await;
    let (status, body) = listing.legacy(&token, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let tools = body["result"]["tools"].as_array().expect("tools").clone();
    let customer = listing
        .call(&token, "billing_customers_list", json!({}))
        .await["structuredContent"]["customers"][0]["id"]
        .as_str()
        .expect("a customer")
        .to_owned();
    let table = calls(&customer);
    let mut problems = Vec::new();
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        let Some((_, args)) = table.iter().find(|(n, _)| *n == name) else {
            problems.push(format!("{name}: no call in this test's table"));
            continue;
        };
        let stack = Stack::start().await;
        if name == "billing_subscriptions_resume" {
            // Only a paused subscription resumes.
            let paused = stack
                .call(
                    &token,
                    "billing_subscriptions_pause",
                    json!({"id": SUB_ACTIVE}),
                )
                .await;
            assert_ne!(paused["isError"], true, "{paused}");
        }
        let result = stack.call(&token, name, args.clone()).await;
        // Under line_item_input_unit = cents the created draft is 100× the request: the call
        // ends in the error that says so (contract::readings covers it in full).
        if name == "billing_invoices_create"
            && common::readings().line_item_input_unit == fake_kobana::readings::MoneyUnit::Cents
        {
            assert_eq!(common::error_code(&result), "AMOUNT_MISMATCH", "{result}");
            continue;
        }
        if result["isError"] == true {
            problems.push(format!("{name}: the call failed: {}", result["content"]));
            continue;
        }
        let Some(structured) = result.get("structuredContent") else {
            problems.push(format!("{name}: no structuredContent"));
            continue;
        };
        violations(&tool["outputSchema"], structured, name, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_validator_finds_what_departs_from_a_schema() {
    let schema = json!({
        "type": "object",
        "properties": {"invoice": {"type": "object"}, "page": {"type": "integer"},
                       "rows": {"type": "array", "items": {"type": "object", "properties": {"status": {"enum": ["open"]}}}}},
        "required": ["invoice"]
    });
    let mut out = Vec::new();
    violations(
        &schema,
        &json!({"invoice": {}, "page": 1, "rows": [{"status": "open"}]}),
        "t",
        &mut out,
    );
    assert!(out.is_empty(), "{out:?}");
    violations(
        &schema,
        &json!({"page": "1", "rows": [{"status": "paid"}, 3]}),
        "t",
        &mut out,
    );
    assert_eq!(out.len(), 4, "{out:?}");
}

/// Where `schema` is unportable by the Inspector's rules (its `--strict` report, FH-5): a
/// boolean schema, a `type` array, or a schema with no keyword that constrains a value (a
/// bare `{}`, or one with a description only). One line each.
fn unportable(schema: &Value, at: &str, out: &mut Vec<String>) {
    const CONSTRAINING: [&str; 31] = [
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "format",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "items",
        "prefixItems",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "dependentSchemas",
        "$ref",
    ];
    let Some(map) = schema.as_object() else {
        out.push(format!("{at}: boolean schema {schema}"));
        return;
    };
    if map.get("type").is_some_and(Value::is_array) {
        out.push(format!("{at}: type array {}", map["type"]));
    }
    if !map.keys().any(|k| CONSTRAINING.contains(&k.as_str())) {
        out.push(format!("{at}: untyped {schema}"));
    }
    for key in ["properties", "patternProperties", "$defs"] {
        for (name, sub) in map
            .get(key)
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            unportable(sub, &format!("{at}.{key}.{name}"), out);
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
    ] {
        match map.get(key) {
            Some(Value::Bool(_)) if key == "additionalProperties" => {}
            Some(sub) => unportable(sub, &format!("{at}.{key}"), out),
            None => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        for (i, sub) in map
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            unportable(sub, &format!("{at}.{key}[{i}]"), out);
        }
    }
}

/// FH-5: every input and output schema `tools/list` serves is portable — typed list rows,
/// `next_page` one integer, no bare `{}` — with compact rows and with whole records, and
/// every list's rows in either mode validate against the schema served in that mode.
#[tokio::test]
async fn fh5_every_schema_is_portable_and_every_list_validates_in_both_row_modes() {
    let token = full_token();
    for full in [false, true] {
        let stack = Stack::start_with(|c| c.rows.full_records = full).await;
        let (status, body) = stack.legacy(&token, "tools/list", json!({})).await;
        assert_eq!(status, 200, "{body}");
        let tools = body["result"]["tools"].as_array().expect("tools").clone();
        let mut problems = Vec::new();
        for tool in &tools {
            let name = tool["name"].as_str().unwrap();
            unportable(
                &tool["inputSchema"],
                &format!("{name}.inputSchema"),
                &mut problems,
            );
            unportable(
                &tool["outputSchema"],
                &format!("{name}.outputSchema"),
                &mut problems,
            );
            if !name.ends_with("_list") || name == "billing_schemas_list" {
                continue;
            }
            for args in [json!({"per_page": 100}), json!({"per_page": 1})] {
                let result = stack.call(&token, name, args).await;
                assert_ne!(result["isError"], true, "{name}: {result}");
                violations(
                    &tool["outputSchema"],
                    &result["structuredContent"],
                    name,
                    &mut problems,
                );
            }
        }
        assert!(
            problems.is_empty(),
            "full records: {full}\n{}",
            problems.join("\n")
        );
    }
}
