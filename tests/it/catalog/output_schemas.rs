//! Every tool's `structuredContent`, in a real call through the HTTP front against the fake
//! Kobana, validates against the `outputSchema` the same server lists for it (HR-3: the
//! registry puts the handler's data under the declared output key, one source). A new tool
//! fails here until it has a row in the one table of tools (`catalog::support::tools`).

use crate::common;

use crate::catalog::support::tools;
use common::Stack;
use fake_kobana::full_token;
use serde_json::{Value, json};

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
    let stack = Stack::start().await;
    tools::prepare(&stack.fake);
    let (status, body) = stack.legacy(&token, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    let listed = body["result"]["tools"].as_array().expect("tools").clone();
    let table = tools::all();
    let mut problems: Vec<String> = listed
        .iter()
        .filter(|tool| !table.iter().any(|row| tool["name"] == row.name))
        .map(|tool| format!("{}: no row in support::tools", tool["name"]))
        .collect();
    // The rows in order, on one fake: each call counts on the ones before it.
    for row in &table {
        let name = row.name;
        let Some(tool) = listed.iter().find(|t| t["name"] == name) else {
            problems.push(format!("{name}: not listed"));
            continue;
        };
        let result = stack.call(&token, name, row.args.clone()).await;
        if let Some((code, _)) = row.fails_under_this_reading() {
            assert_eq!(common::error_code(&result), code, "{result}");
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
