//! The schema catalog (`shared/data/schemas.json`, served by `billing_schemas_*` and
//! `kobana://billing/schemas/…`) checked against Kobana's published contract
//! (`tests/contract/billing-v1.json`): no field or enum value the document lacks, and no enum
//! value of the document missing for a field the catalog lists.

use std::collections::BTreeSet;

use kobana_mcp::catalog::schemas::catalog;
use serde_json::Value;

fn contract() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/contract/billing-v1.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("contract file")).expect("JSON")
}

/// The catalog's enum values of a field.
fn catalog_values(values: &Option<Value>) -> BTreeSet<String> {
    values
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v["value"].as_str().map(str::to_owned))
        .collect()
}

/// The document's enum values of a field (its `null` member aside).
fn document_values(field: &Value) -> BTreeSet<String> {
    field["enum"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_owned))
        .collect()
}

/// Every mismatch between the catalog and the contract's schemas, one line each.
fn mismatches(contract: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for resource in &catalog().resources {
        let Some(schema) = contract["schemas"].get(&resource.kobana_schema) else {
            out.push(format!(
                "{}: schema {} is not in the contract",
                resource.name, resource.kobana_schema
            ));
            continue;
        };
        for field in &resource.fields {
            let place = format!("{}.{}", resource.name, field.name);
            let Some(documented) = schema["fields"].get(&field.name) else {
                out.push(format!(
                    "{place}: not a field of {}",
                    resource.kobana_schema
                ));
                continue;
            };
            let ours = catalog_values(&field.values);
            let theirs = document_values(documented);
            for extra in ours.difference(&theirs) {
                out.push(format!("{place}: value {extra:?} is not in the document"));
            }
            for missing in theirs.difference(&ours) {
                out.push(format!(
                    "{place}: the document's value {missing:?} is missing"
                ));
            }
        }
    }
    out
}

#[test]
fn contract_schema_catalog_has_only_documented_fields_and_every_documented_enum_value() {
    let found = mismatches(&contract());
    assert!(
        found.is_empty(),
        "catalog vs contract:\n{}",
        found.join("\n")
    );
}

#[test]
fn contract_catalog_check_can_fail() {
    // The same check against a contract whose PaymentV1 status lacks `succeeded` and whose
    // InvoiceV1 lacks `number`: both are reported.
    let mut changed = contract();
    let status = &mut changed["schemas"]["PaymentV1"]["fields"]["status"]["enum"];
    status
        .as_array_mut()
        .expect("enum")
        .retain(|v| v != "succeeded");
    changed["schemas"]["InvoiceV1"]["fields"]
        .as_object_mut()
        .expect("fields")
        .remove("number");
    let found = mismatches(&changed);
    assert!(
        found
            .iter()
            .any(|m| m == "payments.status: value \"succeeded\" is not in the document"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|m| m == "invoices.number: not a field of InvoiceV1"),
        "{found:?}"
    );
}

#[test]
fn contract_catalog_covers_the_new_resources() {
    let names: Vec<&str> = catalog()
        .resources
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    for name in ["billing_accounts", "plans", "products"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
}
