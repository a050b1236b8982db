//! Toolset `schemas`: the server's own catalog of billing resources (no permission needed).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::catalog::schemas::{catalog, resource};
use crate::catalog::{Effect, NoArgs, Output, ToolError, ToolMeta, ToolSpec, Toolset};

/// Arguments of `billing_schemas_get`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaArgs {
    /// A name billing_schemas_list gives.
    pub resource: String,
}

fn list_schema() -> Value {
    json!({"type": "object", "properties": {"resources": {"type": "array", "items": {"type": "object"}},
        "money": {"type": "string"}, "dates": {"type": "string"}}, "required": ["resources"]})
}

fn get_schema() -> Value {
    json!({"type": "object", "properties": {"schema": {"type": "object"}},
        "required": ["schema"]})
}

/// The catalog summary: one line per resource.
pub fn summary() -> Value {
    let c = catalog();
    let resources: Vec<Value> = c
        .resources
        .iter()
        .map(|r| {
            json!({"name": r.name, "title": r.title, "description": r.description,
                "uri": format!("kobana://billing/schemas/{}", r.name), "field_count": r.fields.len()})
        })
        .collect();
    json!({"resources": resources, "money": c.money, "dates": c.dates})
}

/// One resource's full schema, or an error listing the names that exist.
pub fn schema_of(name: &str) -> Result<Value, ToolError> {
    let r = resource(name.trim()).ok_or_else(|| {
        ToolError::InvalidArguments(format!(
            "recurso {name:?} não está no catálogo; use um de: {}",
            catalog()
                .resources
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    Ok(json!({"schema": r}))
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_schemas_list",
                title: "Listar esquemas",
                description: "Lists the billing resources and how money and dates are written.",
                toolset: Toolset::Schemas,
                permission: None,
                effect: Effect::Read,
                output: Output::Custom(list_schema),
            },
            |_ctx, _args: NoArgs| async move { Ok(summary()) },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_schemas_get",
                title: "Ver esquema de um recurso",
                description: "One resource's fields: type, nullable, sortable, meaning, enum values.",
                toolset: Toolset::Schemas,
                permission: None,
                effect: Effect::Read,
                output: Output::Custom(get_schema),
            },
            |_ctx, args: SchemaArgs| async move { schema_of(&args.resource) },
        ),
    ]
}
