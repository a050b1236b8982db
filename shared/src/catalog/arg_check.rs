//! Argument errors that name the argument and say what to send, read from the tool's own
//! input schema — the one `tools/list` shows the model — so the text and the schema cannot
//! disagree: `per_page: esperado um número inteiro ≤ 100, recebido "cem"`.
//!
//! The registry runs this before deserializing. serde alone cannot say which argument was
//! wrong for the flattened paging fields, and its texts are English and name Rust types
//! (`expected u32`). What the schema cannot express (a date that does not exist, a UUID of
//! the wrong shape) is still checked by the handlers, which name the argument themselves.

use serde_json::{Map, Value};

/// The longest received value quoted back, in characters.
const MAX_SHOWN: usize = 60;

/// The first problem with `args` against `schema` (a tool's input schema), in pt-BR, naming
/// the argument by its path (`line_items[0].quantity`); `None` when the schema accepts them.
/// Unknown top-level names are refused earlier by the registry, with the accepted list.
pub fn explain(schema: &Map<String, Value>, args: &Map<String, Value>) -> Option<String> {
    Checker {
        defs: schema.get("$defs"),
    }
    .object(schema, args, "")
}

struct Checker<'a> {
    /// The schema's `$defs`, for `#/$defs/…` references.
    defs: Option<&'a Value>,
}

/// `parent.child` / `child` at the root.
fn join(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_owned()
    } else {
        format!("{parent}.{name}")
    }
}

/// A value as the model sent it, short.
fn shown(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= MAX_SHOWN {
        text
    } else {
        let cut: String = text.chars().take(MAX_SHOWN).collect();
        format!("{cut}…")
    }
}

fn number(schema: &Value, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

/// ` de 1 a 100`, ` ≥ 1`, ` ≤ 90` or nothing.
fn bounds(min: Option<f64>, max: Option<f64>, unit: &str) -> String {
    let n = |v: f64| format!("{v}");
    match (min, max) {
        (Some(min), Some(max)) => format!(" de {} a {}{unit}", n(min), n(max)),
        (Some(min), None) if unit.is_empty() => format!(" ≥ {}", n(min)),
        (Some(min), None) => format!(" de ao menos {}{unit}", n(min)),
        (None, Some(max)) if unit.is_empty() => format!(" ≤ {}", n(max)),
        (None, Some(max)) => format!(" de até {}{unit}", n(max)),
        (None, None) => String::new(),
    }
}

impl Checker<'_> {
    /// `schema` with a `$ref` followed and a nullable `anyOf` reduced to its non-null branch.
    fn resolve<'s>(&'s self, mut schema: &'s Value) -> &'s Value {
        for _ in 0..8 {
            if let Some(name) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                && let Some(target) = self.defs.and_then(|d| d.get(name))
            {
                schema = target;
                continue;
            }
            if let Some(branches) = schema.get("anyOf").and_then(Value::as_array)
                && let Some(branch) = branches
                    .iter()
                    .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            {
                schema = branch;
                continue;
            }
            break;
        }
        schema
    }

    /// The values an enum-like schema allows (`enum`, or `oneOf` of `const`s).
    fn allowed(&self, schema: &Value) -> Option<Vec<Value>> {
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return Some(values.iter().filter(|v| !v.is_null()).cloned().collect());
        }
        let branches = schema.get("oneOf").and_then(Value::as_array)?;
        branches
            .iter()
            .map(|b| self.resolve(b).get("const").cloned())
            .collect()
    }

    /// What to send, in words.
    fn expected(&self, schema: &Value) -> String {
        let schema = self.resolve(schema);
        if let Some(values) = self.allowed(schema) {
            let list: Vec<String> = values
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect();
            return format!("um destes valores: {}", list.join(", "));
        }
        match schema.get("type").and_then(Value::as_str) {
            Some("integer") => format!(
                "um número inteiro{}",
                bounds(number(schema, "minimum"), number(schema, "maximum"), "")
            ),
            Some("number") => format!(
                "um número{}",
                bounds(number(schema, "minimum"), number(schema, "maximum"), "")
            ),
            Some("string") => format!(
                "um texto{}",
                bounds(
                    number(schema, "minLength"),
                    number(schema, "maxLength"),
                    " caracteres"
                )
            ),
            Some("boolean") => "true ou false".to_owned(),
            Some("array") => format!(
                "uma lista{}",
                bounds(
                    number(schema, "minItems"),
                    number(schema, "maxItems"),
                    " itens"
                )
            ),
            Some("object") => "um objeto".to_owned(),
            _ => "outro valor".to_owned(),
        }
    }

    fn wrong(&self, path: &str, schema: &Value, value: &Value) -> Option<String> {
        Some(format!(
            "`{path}`: esperado {}, recebido {}",
            self.expected(schema),
            shown(value)
        ))
    }

    /// The first problem with `value` at `path`.
    fn value(&self, schema: &Value, value: &Value, path: &str) -> Option<String> {
        let resolved = self.resolve(schema);
        if value.is_null() {
            // Optional arguments may be null (the schemas are terse: `"string"`, not
            // `["string", "null"]`); a required one is caught by its object.
            return None;
        }
        if let Some(values) = self.allowed(resolved) {
            return (!values.contains(value))
                .then(|| self.wrong(path, resolved, value))
                .flatten();
        }
        let ok = match resolved.get("type").and_then(Value::as_str) {
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("number") => value.is_number(),
            Some("string") => value.is_string(),
            Some("boolean") => value.is_boolean(),
            Some("array") => value.is_array(),
            Some("object") => value.is_object(),
            _ => true,
        };
        if !ok {
            return self.wrong(path, resolved, value);
        }
        let within = |n: f64, min: &str, max: &str| {
            number(resolved, min).is_none_or(|m| n >= m)
                && number(resolved, max).is_none_or(|m| n <= m)
        };
        match value {
            Value::Number(n) if !within(n.as_f64().unwrap_or(0.0), "minimum", "maximum") => {
                self.wrong(path, resolved, value)
            }
            Value::String(s) if !within(s.chars().count() as f64, "minLength", "maxLength") => self
                .wrong(path, resolved, value)
                .map(|m| format!("{m} ({} caracteres)", s.chars().count())),
            Value::Array(items) => {
                if !within(items.len() as f64, "minItems", "maxItems") {
                    return Some(format!(
                        "`{path}`: esperado {}, recebido uma lista de {} itens",
                        self.expected(resolved),
                        items.len()
                    ));
                }
                let item_schema = resolved.get("items")?;
                items
                    .iter()
                    .enumerate()
                    .find_map(|(i, item)| self.value(item_schema, item, &format!("{path}[{i}]")))
            }
            Value::Object(map) => self.object(resolved.as_object()?, map, path),
            _ => None,
        }
    }

    /// The first problem with the members of an object: a required one missing, an unknown
    /// one (below the top level, where the registry already answers), or a wrong value.
    /// Borrows the schema: nothing is copied on a tool call's path.
    fn object(
        &self,
        schema: &Map<String, Value>,
        map: &Map<String, Value>,
        path: &str,
    ) -> Option<String> {
        let properties = schema.get("properties").and_then(Value::as_object);
        let required = schema.get("required").and_then(Value::as_array);
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            if map.get(name).is_none_or(Value::is_null) {
                let expected = properties
                    .and_then(|p| p.get(name))
                    .map(|s| self.expected(s))
                    .unwrap_or_else(|| "um valor".to_owned());
                return Some(format!(
                    "`{}` é obrigatório: envie {expected}",
                    join(path, name)
                ));
            }
        }
        let properties = properties?;
        for (name, value) in map {
            let place = join(path, name);
            match properties.get(name) {
                Some(schema) => {
                    if let Some(problem) = self.value(schema, value, &place) {
                        return Some(problem);
                    }
                }
                None if !path.is_empty() => {
                    let mut accepted: Vec<&str> = properties.keys().map(String::as_str).collect();
                    accepted.sort_unstable();
                    return Some(format!(
                        "`{place}`: argumento desconhecido; aceitos: {}",
                        accepted.join(", ")
                    ));
                }
                None => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema_of(tool: &str) -> Map<String, Value> {
        (*super::super::registry()
            .get(tool)
            .expect("a tool")
            .tool
            .input_schema)
            .clone()
    }

    fn check(tool: &str, args: Value) -> Option<String> {
        explain(&schema_of(tool), args.as_object().expect("an object"))
    }

    /// A wrong value and the text that must name it.
    type Case = (&'static str, Value, &'static str);

    /// Wrong values at the top of the arguments: types, ranges, enums, missing ones.
    fn top_level_cases() -> Vec<Case> {
        vec![
            // Wrong type, in a flattened paging field (serde loses the path there).
            (
                "billing_customers_list",
                json!({"page": "primeira"}),
                "`page`: esperado um número inteiro, recebido \"primeira\"",
            ),
            // Out of range.
            (
                "billing_customers_list",
                json!({"per_page": 500}),
                "`per_page`: esperado um número inteiro ≤ 100, recebido 500",
            ),
            // A float where an integer goes.
            (
                "billing_customers_list",
                json!({"page": 1.5}),
                "`page`: esperado um número inteiro, recebido 1.5",
            ),
            // Unknown enum value, listing the valid ones (a `oneOf` of consts too).
            (
                "billing_payments_list",
                json!({"status": "paid"}),
                "`status`: esperado um destes valores: pending, processing, succeeded, failed, canceled, partial, refunded, partially_refunded, recebido \"paid\"",
            ),
            (
                "billing_customers_list",
                json!({"kind": "empresa"}),
                "`kind`: esperado um destes valores: natural, juridical, recebido \"empresa\"",
            ),
            // Missing required.
            (
                "billing_invoices_get",
                json!({}),
                "`id` é obrigatório: envie um texto",
            ),
            (
                "billing_subscriptions_cancel",
                json!({"id": "x", "cancel_at_period_end": "sim"}),
                "`cancel_at_period_end`: esperado true ou false, recebido \"sim\"",
            ),
        ]
    }

    /// Wrong values inside lists and objects, and lengths.
    fn nested_cases() -> Vec<Case> {
        vec![
            // Nested: a list's item, its member, an unknown member.
            (
                "billing_invoices_create",
                json!({"billing_account_id": "x", "line_items": [{"description": "a", "unit_amount_cents": "100"}]}),
                "`line_items[0].unit_amount_cents`: esperado um número inteiro, recebido \"100\"",
            ),
            (
                "billing_invoices_create",
                json!({"billing_account_id": "x", "line_items": [{"description": "a"}]}),
                "`line_items[0].unit_amount_cents` é obrigatório: envie um número inteiro",
            ),
            (
                "billing_invoices_create",
                json!({"billing_account_id": "x", "line_items": [{"description": "a", "unit_amount_cents": 1, "price": 2}]}),
                "`line_items[0].price`: argumento desconhecido; aceitos: description, quantity, unit_amount_cents",
            ),
            (
                "billing_invoices_create",
                json!({"billing_account_id": "x", "line_items": []}),
                "`line_items`: esperado uma lista de 1 a 200 itens, recebido uma lista de 0 itens",
            ),
            // A minimum length, and a $ref into $defs.
            (
                "billing_nfes_cancel",
                json!({"id": "x", "reason": "curto"}),
                "`reason`: esperado um texto de ao menos 15 caracteres, recebido \"curto\" (5 caracteres)",
            ),
            (
                "billing_customers_create",
                json!({"name": "x", "addresses": [{"city": 3}]}),
                "`addresses[0].city`: esperado um texto, recebido 3",
            ),
        ]
    }

    #[test]
    fn t4_every_kind_of_wrong_value_names_the_argument_and_what_to_send() {
        for (tool, args, want) in top_level_cases().into_iter().chain(nested_cases()) {
            assert_eq!(
                check(tool, args.clone()).as_deref(),
                Some(want),
                "{tool} {args}"
            );
        }
    }

    #[test]
    fn t4_valid_arguments_and_optional_nulls_pass() {
        for (tool, args) in [
            ("billing_customers_list", json!({})),
            (
                "billing_customers_list",
                json!({"page": 2, "per_page": 100, "kind": "natural", "search": null}),
            ),
            (
                "billing_invoices_create",
                json!({"billing_account_id": "x", "line_items": [{"description": "a", "quantity": 2, "unit_amount_cents": 100}]}),
            ),
            (
                "billing_customers_create",
                json!({"name": "x", "addresses": [{"city": "São Paulo"}]}),
            ),
        ] {
            assert_eq!(check(tool, args.clone()), None, "{tool} {args}");
        }
    }
}
