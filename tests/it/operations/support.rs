//! What the generic tools' tests share: the table of one minimal valid request per reviewed
//! row, built from the contract's schemas (never from the server's facts), with fixture ids
//! where the fake keeps records; and small helpers to call the four tools.

#![allow(dead_code, reason = "each area uses the helpers it needs")]

use serde_json::{Map, Value, json};

use fake_kobana::contract::operations::operation_id;
use fake_kobana::contract::{Contract, Field, Operation, Type, contract};
use kobana_mcp::catalog::operations::{Class, Row};

pub use fake_kobana::fixtures::ids::*;

/// The four tools, spelled as the hidden tests spell them.
pub const SEARCH: &str = "billing_operations_search";
pub const READ: &str = "billing_operations_read";
pub const WRITE: &str = "billing_operations_write";
pub const DESTRUCTIVE: &str = "billing_operations_write_destructive";

/// The tool that runs a row of `class`.
pub fn tool_of(class: Class) -> &'static str {
    match class {
        Class::Read => READ,
        Class::Write => WRITE,
        Class::Destructive { .. } => DESTRUCTIVE,
    }
}

/// One row and the minimal valid call that runs it.
#[derive(Debug, Clone)]
pub struct Case {
    /// The reviewed row.
    pub row: &'static Row,
    /// Its operation in the contract.
    pub op: &'static Operation,
    /// The tool that runs it.
    pub tool: &'static str,
    /// `{operation, path?, query?, body?}`.
    pub args: Value,
}

/// The contract operation whose operationId is `id`.
pub fn operation(id: &str) -> Option<&'static Operation> {
    contract()
        .operations
        .iter()
        .find(|op| operation_id(op) == id)
}

/// Every reviewed row whose operation the contract (and so the fake) has, with its call.
/// Excluded rows are left out: they are refused, never called.
pub fn table() -> Vec<Case> {
    kobana_mcp::catalog::operations::all()
        .filter(|row| row.excluded.is_none())
        .filter_map(|row| {
            let op = operation(row.operation)?;
            Some(Case {
                row,
                op,
                tool: tool_of(row.class),
                args: minimal_call(row.operation, op),
            })
        })
        .collect()
}

/// `{operation, path, query, body}` with the fewest members the contract requires.
pub fn minimal_call(id: &str, op: &Operation) -> Value {
    let c = contract();
    let mut args = json!({"operation": id});
    let path: Map<String, Value> = op
        .path
        .split('/')
        .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
        .map(|name| (name.to_owned(), json!(path_id(id, name))))
        .collect();
    if !path.is_empty() {
        args["path"] = Value::Object(path);
    }
    let query: Map<String, Value> = op
        .required_query
        .iter()
        .filter_map(|name| Some((name.clone(), minimal(c, op.query.get(name)?, name, 0))))
        .collect();
    if !query.is_empty() {
        args["query"] = Value::Object(query);
    }
    if let Some(body) = &op.body {
        let field = body
            .schema
            .as_deref()
            .and_then(|name| c.schema(name))
            .or(body.field.as_ref());
        args["body"] = field.map_or_else(|| json!({}), |f| minimal(c, f, "", 0));
    }
    args
}

/// A fixture id for path parameter `name` of operation `id`: a record in the state the
/// operation needs, where the fake keeps one.
pub fn path_id(id: &str, name: &str) -> &'static str {
    if name != "id" {
        return UNKNOWN;
    }
    match id {
        "post-invoices-id-finalize" | "delete-invoices-id" => INV_DRAFT,
        "post-invoices-id-issue-nfe" => INV_PAID_NFE_ERROR,
        "post-nfes-id-issue" => NFE_ERROR,
        _ => match id.split('-').nth(1).unwrap_or_default() {
            "customers" => MARIANA,
            "billing" => BA_MARIANA,
            "subscriptions" => SUB_ACTIVE,
            "invoices" => INV_OPEN,
            "payments" => PAY_CARD,
            "nfes" => NFE_ISSUED,
            "plans" => PLAN_PRO,
            "products" => PROD_LICENSE,
            "credits" => CREDIT_WELCOME,
            _ => UNKNOWN,
        },
    }
}

/// A fixture uuid for a member named `name`.
fn uuid_for(name: &str) -> &'static str {
    match name {
        n if n.ends_with("billing_account_id") => BA_MARIANA,
        n if n.ends_with("plan_id") => PLAN_PRO,
        n if n.ends_with("product_id") => PROD_LICENSE,
        n if n.ends_with("customer_id") => MARIANA,
        n if n.ends_with("invoice_id") => INV_OPEN,
        n if n.ends_with("subscription_id") => SUB_ACTIVE,
        n if n.ends_with("credit_id") || n.ends_with("credit_ids") => CREDIT_WELCOME,
        _ => UNKNOWN,
    }
}

/// The least value `field` accepts (required members only, one item per required array).
pub fn minimal(c: &Contract, field: &Field, name: &str, depth: usize) -> Value {
    if let Some(schema) = &field.schema {
        return c
            .schema(schema)
            .map_or(Value::Null, |f| minimal(c, f, name, depth + 1));
    }
    if let Some(first) = field.any_of.first().or(field.one_of.first()) {
        return minimal(c, first, name, depth + 1);
    }
    if !field.all_of.is_empty() {
        let mut merged = Map::new();
        for part in &field.all_of {
            if let Value::Object(map) = minimal(c, part, name, depth + 1) {
                merged.extend(map);
            }
        }
        if let Value::Object(own) = object(c, field, depth) {
            merged.extend(own);
        }
        return Value::Object(merged);
    }
    if let Some(constant) = &field.constant {
        return constant.clone();
    }
    if let Some(allowed) = &field.allowed
        && let Some(first) = allowed.iter().find(|v| !v.is_null())
    {
        return first.clone();
    }
    let low = |fallback: f64| {
        field
            .minimum
            .or(field.exclusive_minimum.map(|x| x + 1.0))
            .map_or(fallback, |m| m.max(fallback))
    };
    match field.ty {
        Some(Type::String) => json!(text(field, name)),
        Some(Type::Integer) => json!(low(1.0).ceil() as i64),
        Some(Type::Number) => json!(low(1.0)),
        Some(Type::Boolean) => json!(false),
        Some(Type::Array) => {
            let n = field.min_items.unwrap_or(1).max(1);
            let item = field
                .items
                .as_deref()
                .map_or(json!("x"), |i| minimal(c, i, name, depth + 1));
            Value::Array(vec![item; n])
        }
        _ => object(c, field, depth),
    }
}

/// An object with the least of each required member.
fn object(c: &Contract, field: &Field, depth: usize) -> Value {
    match &field.fields {
        Some(fields) if depth < 8 => {
            let map: Map<String, Value> = fields
                .iter()
                .filter(|(member, _)| field.required.contains(member))
                .map(|(member, f)| (member.clone(), minimal(c, f, member, depth + 1)))
                .collect();
            Value::Object(map)
        }
        _ => json!({}),
    }
}

fn text(field: &Field, name: &str) -> String {
    if let Some(pattern) = &field.pattern {
        // The document's patterns: a date, digits, or a slug.
        return if pattern.contains(r"\d{4}-") {
            "2026-12-01".to_owned()
        } else if pattern.contains(r"\d") {
            "2026".to_owned()
        } else {
            "teste".to_owned()
        };
    }
    match field.format.as_deref() {
        Some("uuid") => return uuid_for(name).to_owned(),
        Some("date") => return "2026-12-01".to_owned(),
        Some("date-time") => return "2026-12-01T12:00:00Z".to_owned(),
        Some("email") => return "financeiro@example.com".to_owned(),
        _ => {}
    }
    let min = field.min_length.unwrap_or(0).max(5);
    let text = "Teste de operação genérica"
        .chars()
        .take(min.max(5))
        .collect::<String>();
    let mut text = text;
    while text.chars().count() < min {
        text.push('x');
    }
    if let Some(max) = field.max_length {
        text = text.chars().take(max.max(1)).collect();
    }
    text
}
