//! The schema catalog: the fields of each billing resource (type, enum values and their
//! meaning, whether it sorts). Data in `shared/data/schemas.json`, parsed once.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolError;

/// The raw catalog file, compiled into the binary.
pub const CATALOG_JSON: &str = include_str!("../../data/schemas.json");

/// The whole catalog.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Catalog {
    /// Format version.
    pub version: u32,
    /// How money fields are expressed.
    pub money: String,
    /// How dates are expressed.
    pub dates: String,
    /// One entry per resource.
    pub resources: Vec<ResourceSchema>,
}

/// One resource's schema.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResourceSchema {
    /// Catalog name (`invoices`).
    pub name: String,
    /// pt-BR title.
    pub title: String,
    /// Kobana's schema name (`InvoiceV1`).
    pub kobana_schema: String,
    /// What it is.
    pub description: String,
    /// Default order of lists, if the resource is listed.
    pub default_sort: Option<Value>,
    /// Shape proposed from the closest real endpoint rather than read in Kobana's spec.
    #[serde(default)]
    pub proposed: bool,
    /// The fields.
    pub fields: Vec<Field>,
}

/// One field.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Field {
    /// Name as Kobana sends it.
    pub name: String,
    /// `uuid`, `string`, `int`, `number`, `bool`, `date`, `datetime`, `object`, `array`, `enum`.
    #[serde(rename = "type")]
    pub kind: String,
    /// May be null.
    pub nullable: bool,
    /// Accepted by `sort_by`.
    pub sortable: bool,
    /// One-line meaning.
    pub meaning: String,
    /// Enum values with their meaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Value>,
}

/// The catalog, parsed on first use.
pub fn catalog() -> &'static Catalog {
    static CATALOG: LazyLock<Catalog> = LazyLock::new(|| {
        serde_json::from_str(CATALOG_JSON).expect("shared/data/schemas.json is valid")
    });
    &CATALOG
}

/// The schema of `name`.
pub fn resource(name: &str) -> Option<&'static ResourceSchema> {
    catalog().resources.iter().find(|r| r.name == name)
}

/// The fields of `name` that `sort_by` accepts.
pub fn sortable(name: &str) -> Vec<&'static str> {
    resource(name)
        .map(|r| {
            r.fields
                .iter()
                .filter(|f| f.sortable)
                .map(|f| f.name.as_str())
                .collect()
        })
        .unwrap_or_default()
}

/// Refuses a `sort_by` outside the catalog, naming the allowed values (T-2).
pub fn check_sort(name: &str, sort_by: &str) -> Result<(), ToolError> {
    let allowed = sortable(name);
    if allowed.contains(&sort_by) {
        Ok(())
    } else {
        Err(ToolError::InvalidArguments(format!(
            "`sort_by` não aceita {sort_by:?} para {name}; valores aceitos: {}",
            allowed.join(", ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t2_catalog_loads_with_sortable_fields() {
        let names: Vec<_> = catalog()
            .resources
            .iter()
            .map(|r| r.name.as_str())
            .collect();
        for expected in ["customers", "subscriptions", "invoices", "payments", "nfes"] {
            assert!(names.contains(&expected), "{expected} missing: {names:?}");
        }
        let mut customers = sortable("customers");
        customers.sort_unstable();
        assert_eq!(customers, ["created_at", "name", "updated_at"]);
        assert!(sortable("invoices").contains(&"due_date"));
        assert!(check_sort("invoices", "due_date").is_ok());
        let err = check_sort("customers", "document_number")
            .unwrap_err()
            .to_string();
        assert!(err.contains("created_at") && err.contains("name"), "{err}");
    }
}
