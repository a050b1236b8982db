//! How the code describes a tool on the wire (test builds only): annotations from its effect,
//! the input schema from its argument type (schemars, compacted and inlined), the output
//! schema from its declared output. What it generates is snapshotted in `data/tools.json`,
//! which the release binary embeds instead of running this.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::{Value, json};

use super::{Effect, Output, ToolMeta};

/// The wire definition of the tool `meta` whose arguments are `A`.
pub(super) fn generate<A: JsonSchema + 'static>(meta: &ToolMeta) -> Tool {
    let (read_only, destructive, idempotent) = match meta.effect {
        Effect::Read => (true, false, true),
        Effect::Write { idempotent } => (false, false, idempotent),
        Effect::Destructive { idempotent, .. } => (false, true, idempotent),
    };
    let mut annotations = ToolAnnotations::new().read_only(read_only).open_world(true);
    if !read_only {
        annotations = annotations.destructive(destructive).idempotent(idempotent);
    }
    let mut input = input_schema::<A>();
    // Every list takes `fields`, its enum from the list's row shape (one place for all).
    if let Output::List(resource) = meta.output
        && let Some(shape) = crate::catalog::lists::compact::shape(resource)
        && let Some(Value::Object(properties)) = input.get_mut("properties")
    {
        properties.insert(
            "fields".to_owned(),
            crate::catalog::lists::compact::fields_schema(shape),
        );
    }
    let mut tool = Tool::new(meta.name, meta.description, Arc::new(input))
        .with_title(meta.title)
        .with_raw_output_schema(Arc::new(output_schema(meta.output)))
        .with_annotations(annotations);
    tool.meta = crate::catalog::ui_links::view_of(meta.name).map(crate::catalog::ui_links::meta);
    tool
}

fn input_schema<A: JsonSchema + 'static>() -> JsonObject {
    let mut schema = (*rmcp::handler::server::common::schema_for_type::<A>()).clone();
    schema.remove("$schema");
    schema.remove("title");
    // Type-level doc comments (of the argument struct, of a nested type) are for readers of
    // the code, not for the model: only the arguments' own descriptions reach the wire, and
    // every definition is written where it is used.
    schema.remove("description");
    let definitions = match schema.remove("$defs") {
        Some(Value::Object(definitions)) => definitions,
        _ => JsonObject::new(),
    };
    let mut value = Value::Object(schema);
    inline_definitions(&mut value, &definitions);
    let Value::Object(mut schema) = value else {
        unreachable!("an input schema is an object")
    };
    crate::catalog::context::compact_object(&mut schema);
    if schema
        .get("properties")
        .and_then(Value::as_object)
        .is_none_or(|p| p.is_empty())
    {
        schema.insert("properties".to_owned(), json!({}));
        schema.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    schema
}

/// Replaces each `$ref` to a definition with the definition itself (without its type-level
/// description), `anyOf [X, null]` with `X` (an absent argument is what `Option` means), and
/// a `oneOf` of constants with one `enum`.
fn inline_definitions(node: &mut Value, definitions: &JsonObject) {
    match node {
        Value::Array(items) => items
            .iter_mut()
            .for_each(|item| inline_definitions(item, definitions)),
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.remove("$ref") {
                let name = target.trim_start_matches("#/$defs/");
                let Some(Value::Object(definition)) = definitions.get(name) else {
                    panic!("schema refers to an unknown definition {target}");
                };
                for (key, value) in definition {
                    if key != "description" {
                        map.entry(key.clone()).or_insert_with(|| value.clone());
                    }
                }
            }
            if let Some(Value::Array(alternatives)) = map.get("anyOf")
                && alternatives.len() == 2
                && let Some(null_at) = alternatives
                    .iter()
                    .position(|a| a == &json!({"type": "null"}))
            {
                let Some(Value::Array(mut alternatives)) = map.remove("anyOf") else {
                    unreachable!()
                };
                if let Value::Object(kept) = alternatives.swap_remove(1 - null_at) {
                    for (key, value) in kept {
                        map.entry(key).or_insert(value);
                    }
                }
                // The alternative may itself be a reference: inline it too.
                let mut again = Value::Object(std::mem::take(map));
                inline_definitions(&mut again, definitions);
                if let Value::Object(done) = again {
                    *map = done;
                }
                return;
            }
            if let Some(Value::Array(alternatives)) = map.get("oneOf")
                && alternatives.iter().all(|a| a.get("const").is_some())
            {
                let values: Vec<Value> = alternatives.iter().map(|a| a["const"].clone()).collect();
                let kind = alternatives[0].get("type").cloned();
                map.remove("oneOf");
                map.insert("enum".to_owned(), Value::Array(values));
                if let Some(kind) = kind {
                    map.insert("type".to_owned(), kind);
                }
            }
            map.values_mut()
                .for_each(|child| inline_definitions(child, definitions));
        }
        _ => {}
    }
}

fn output_schema(output: Output) -> JsonObject {
    let value = match output {
        // The record's members are in `kobana://billing/schemas/<slug>` (billing_schemas_get);
        // naming it in every definition cost ~1.3 KB of `tools/list`.
        Output::Record { key, .. } => json!({
            "type": "object",
            "properties": { key: {"type": "object"} }
        }),
        // The page's other members (`page`, `next_page`, `returned`, `hint`, `cut`, …) are
        // said in the answer.
        Output::List(resource) => json!({
            "type": "object",
            "properties": {
                (resource.slug()): {
                    "type": "array",
                    "items": crate::catalog::lists::compact::shape(resource).map_or_else(|| json!({"type": "object"}), |s| s.item_schema())
                },
                "total": {"type": "integer"}
            },
            "required": [(resource.slug()), "total"]
        }),
        Output::Keyed { schema, .. } | Output::Custom(schema) | Output::Summary { schema, .. } => {
            schema()
        }
    };
    match value {
        Value::Object(map) => map,
        _ => unreachable!("output schemas are objects"),
    }
}
