//! WA-1: the reviewed rows (`shared/src/catalog/operations/rows/`) held to Kobana's contract
//! (`tests/contract/billing-v1.json`): one row per operation and one operation per row, a
//! unit for every money field a row reaches (its query, path, body and answer), and
//! confirmation sentences that name only fields of their operation that are not free text.
//!
//! The contract is read as JSON, in either of its shapes: an operation names its
//! `operationId` in `operation_id` (or `operationId`), else it is spelled from method and
//! path (`patch-invoices-id`); bodies and answers are a `ref`/`schema` or an inline `field`;
//! a money field carries `unit` (or `unit_hint`, and `unit_conflict`). While the contract
//! names only part of the document (its operations carry no `operation_id`), a row without
//! an operation is not yet an error.

use std::collections::{BTreeMap, BTreeSet};

use fake_kobana::contract::CONTRACT_JSON;
use kobana_mcp::catalog::operations::template::record_path;
use kobana_mcp::catalog::operations::units::SCHEMA_UNITS;
use kobana_mcp::catalog::operations::{Class, Place, Row, Unit, all};
use serde_json::{Value, json};

/// One operation of the contract.
struct Op<'c> {
    id: String,
    method: String,
    path: String,
    raw: &'c Value,
}

/// Kobana's `operationId` spelled from method and path: `post-invoices-id-pay`.
fn spelled(method: &str, path: &str) -> String {
    let rest = path.trim_start_matches("/v1/").replace(['{', '}'], "");
    format!("{}-{}", method.to_lowercase(), rest.to_lowercase()).replace(['/', '_'], "-")
}

fn operations(contract: &Value) -> Vec<Op<'_>> {
    let ops = contract["operations"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    ops.iter()
        .map(|raw| {
            let method = raw["method"].as_str().unwrap_or_default().to_owned();
            let path = raw["path"].as_str().unwrap_or_default().to_owned();
            let named = raw.get("operation_id").or_else(|| raw.get("operationId"));
            let id = named
                .and_then(Value::as_str)
                .map_or_else(|| spelled(&method, &path), str::to_owned);
            Op {
                id,
                method,
                path,
                raw,
            }
        })
        .collect()
}

/// Whether every operation names its `operationId` (the whole document's contract).
fn names_ids(contract: &Value) -> bool {
    let ops = contract["operations"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    !ops.is_empty()
        && ops.iter().all(|op| {
            op.get("operation_id")
                .or_else(|| op.get("operationId"))
                .is_some()
        })
}

/// A field an operation reaches.
struct Reached<'c> {
    /// `Schema.a.b` when the field belongs to a named schema.
    schema_key: Option<String>,
    field: &'c Value,
    /// Whether it is always sent: required at every level.
    required: bool,
}

/// Everything an operation reaches, by place (`body.a.b`, `answer.data.x`).
#[derive(Default)]
struct Reach<'c> {
    fields: BTreeMap<String, Vec<Reached<'c>>>,
    /// Places whose content the contract leaves open (any member may be there).
    open: BTreeSet<String>,
}

impl Reach<'_> {
    fn knows(&self, place: &str) -> bool {
        self.fields.contains_key(place)
            || self.open.iter().any(|open| {
                place
                    .strip_prefix(open.as_str())
                    .is_some_and(|r| r.starts_with('.'))
            })
    }
}

/// Where a walk stands: the place, the named schema and the path in it, and the schemas
/// already entered (no cycle).
#[derive(Clone)]
struct At {
    place: String,
    schema: Option<(String, String)>,
    required: bool,
    seen: Vec<String>,
}

impl At {
    fn child(&self, name: &str, required: bool) -> At {
        At {
            place: format!("{}.{name}", self.place),
            schema: self.schema.as_ref().map(|(s, p)| {
                let path = if p.is_empty() {
                    name.to_owned()
                } else {
                    format!("{p}.{name}")
                };
                (s.clone(), path)
            }),
            required: self.required && required,
            seen: self.seen.clone(),
        }
    }

    fn schema_key(&self) -> Option<String> {
        self.schema.as_ref().map(|(s, p)| format!("{s}.{p}"))
    }
}

fn is_open(field: &Value) -> bool {
    let Some(obj) = field.as_object() else {
        return true;
    };
    let typed = [
        "type", "ref", "fields", "items", "allOf", "anyOf", "oneOf", "enum",
    ];
    !typed.iter().any(|k| obj.contains_key(*k))
        || (field["type"] == "object" && field.get("fields").is_none())
        || field
            .get("additional")
            .is_some_and(|a| a != &Value::Bool(false))
}

/// Walks the named schema `name` from `at`, unless the walk is already inside it.
fn enter<'c>(contract: &'c Value, name: &str, at: &At, reach: &mut Reach<'c>) {
    if at.seen.iter().any(|s| s == name) {
        return;
    }
    let mut inner = at.clone();
    inner.schema = Some((name.to_owned(), String::new()));
    inner.seen.push(name.to_owned());
    walk(contract, &contract["schemas"][name], &inner, reach);
}

fn walk<'c>(contract: &'c Value, field: &'c Value, at: &At, reach: &mut Reach<'c>) {
    if let Some(name) = field.get("ref").and_then(Value::as_str) {
        enter(contract, name, at, reach);
        return;
    }
    if is_open(field) {
        reach.open.insert(at.place.clone());
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for alt in field[key].as_array().into_iter().flatten() {
            walk(contract, alt, at, reach);
        }
    }
    if let Some(items) = field.get("items") {
        walk(contract, items, at, reach);
    }
    let required: Vec<&str> = field["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (name, child) in field["fields"].as_object().into_iter().flatten() {
        let next = at.child(name, required.contains(&name.as_str()));
        reach
            .fields
            .entry(next.place.clone())
            .or_default()
            .push(Reached {
                schema_key: next.schema_key(),
                field: child,
                required: next.required,
            });
        walk(contract, child, &next, reach);
    }
}

fn reach<'c>(contract: &'c Value, op: &Op<'c>) -> Reach<'c> {
    let mut reach = Reach::default();
    for (side, part) in [("body", &op.raw["body"]), ("answer", &op.raw["success"])] {
        let at = At {
            place: side.to_owned(),
            schema: None,
            required: true,
            seen: Vec::new(),
        };
        // A body or an answer is a named schema or an inline field.
        let named = part.get("ref").or_else(|| part.get("schema"));
        match (named.and_then(Value::as_str), part.get("field")) {
            (Some(name), _) => enter(contract, name, &at, &mut reach),
            (None, Some(field)) => walk(contract, field, &at, &mut reach),
            _ => {}
        }
    }
    for (side, key) in [("query", "query"), ("path", "path_params")] {
        for (name, field) in op.raw[key].as_object().into_iter().flatten() {
            let required = side == "path" || field["required"] == true;
            let reached = Reached {
                schema_key: None,
                field,
                required,
            };
            reach
                .fields
                .entry(format!("{side}.{name}"))
                .or_default()
                .push(reached);
        }
    }
    reach
}

/// The last word of a place.
fn leaf(place: &str) -> &str {
    place.rsplit('.').next().unwrap_or(place)
}

/// Whether a field holds money or a rate: by the document's suffixes, a contract unit, a
/// rate or percent name, or a numeric range filter.
fn money_like(place: &str, field: &Value) -> bool {
    let name = leaf(place);
    let suffix = [
        "_cents",
        "_subcents",
        "Cents",
        "Subcents",
        "_rate",
        "Rate",
        "_percent",
        "Percent",
    ]
    .iter()
    .any(|s| name.ends_with(s));
    let numeric = matches!(field["type"].as_str(), Some("number" | "integer"));
    let range = place.starts_with("query.")
        && numeric
        && (name.ends_with("_min") || name.ends_with("_max"));
    suffix
        || name == "rate"
        || range
        || field.get("unit").is_some()
        || field.get("unit_hint").is_some()
}

/// The unit a row gives a place: its own entry, else the schema table's.
fn unit_of(row: &Row, place: &str, schema_key: Option<&str>) -> Option<Unit> {
    row.units
        .iter()
        .find(|(k, _)| *k == place)
        .or_else(|| schema_key.and_then(|s| SCHEMA_UNITS.iter().find(|(k, _)| *k == s)))
        .map(|(_, unit)| *unit)
}

/// The unit word the contract gives a field (`unit`, or a single `unit_hint`).
fn contract_unit(field: &Value) -> Option<&str> {
    field
        .get("unit")
        .or_else(|| field.get("unit_hint"))
        .and_then(Value::as_str)
}

fn unit_word(unit: Unit) -> Option<&'static str> {
    match unit {
        Unit::Cents => Some("cents"),
        Unit::Subcents => Some("subcents"),
        Unit::Reais => Some("reais"),
        Unit::Percent => Some("percent"),
        Unit::Fraction => Some("fraction"),
        Unit::Uncertain(_) => None,
    }
}

/// Money fields without a unit, and units that contradict the contract.
fn unit_problems(row: &Row, reach: &Reach<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for (place, all_reached) in &reach.fields {
        for reached in all_reached {
            let key = reached.schema_key.as_deref();
            let unit = unit_of(row, place, key);
            let shown = key.unwrap_or(place);
            match unit {
                None if money_like(place, reached.field) => {
                    let schema = key.map(|k| format!(" ({k})")).unwrap_or_default();
                    out.push(format!("{}: {place}{schema} has no unit", row.operation));
                }
                Some(Unit::Uncertain(_)) | None => {}
                Some(unit) if reached.field["unit_conflict"] == true => out.push(format!(
                    "{}: {shown} contradicts its name in the document: Uncertain, not {unit:?}",
                    row.operation
                )),
                Some(unit) => {
                    if let Some(theirs) = contract_unit(reached.field)
                        && unit_word(unit) != Some(theirs)
                    {
                        out.push(format!(
                            "{}: {shown} is {theirs}, not {unit:?}",
                            row.operation
                        ));
                    }
                }
            }
        }
    }
    for (place, _) in row.units {
        if !reach.knows(place) {
            out.push(format!(
                "{}: unit for {place}, not a field of the operation",
                row.operation
            ));
        }
    }
    out
}

/// A field a sentence may show: an id, a date, an enum value, a number, a boolean.
fn not_free_text(contract: &Value, field: &Value) -> bool {
    if let Some(name) = field.get("ref").and_then(Value::as_str) {
        return not_free_text(contract, &contract["schemas"][name]);
    }
    let formatted = matches!(
        field["format"].as_str(),
        Some("uuid" | "date" | "date-time")
    );
    match field["type"].as_str() {
        Some("integer" | "number" | "boolean") => true,
        Some("string") => formatted || field.get("enum").is_some() || field.get("const").is_some(),
        Some("array") => field
            .get("items")
            .is_some_and(|i| not_free_text(contract, i)),
        _ => field.get("enum").is_some(),
    }
}

/// Whether `value` is one a field can have, for a `[?place=value: …]` condition.
fn can_be(field: &Value, value: &str) -> bool {
    if let Some(allowed) = field["enum"].as_array() {
        return allowed.iter().any(|v| {
            v.as_str() == Some(value) || v.as_f64().is_some_and(|n| value.parse() == Ok(n))
        });
    }
    match field["type"].as_str() {
        Some("boolean") => value == "true" || value == "false",
        Some("integer" | "number") => value.parse::<f64>().is_ok(),
        _ => false,
    }
}

/// What is wrong with one destructive row's sentence.
fn sentence_problems(contract: &Value, op: &Op<'_>, row: &Row, reach: &Reach<'_>) -> Vec<String> {
    let Some(Ok(template)) = row.template() else {
        return vec![format!("{}: the sentence does not parse", row.operation)];
    };
    let mut out = Vec::new();
    let id = row.operation;
    let fields = |place: &Place<'_>| {
        reach
            .fields
            .get(&place.key())
            .map(Vec::as_slice)
            .unwrap_or_default()
    };
    let placeholders = template.shown();
    for place in template.places() {
        if place != Place::Record && fields(&place).is_empty() {
            out.push(format!(
                "{id}: {} is not a field of {} {}",
                place.key(),
                op.method,
                op.path
            ));
        }
    }
    for place in &placeholders {
        for reached in fields(place) {
            if !not_free_text(contract, reached.field) {
                out.push(format!(
                    "{id}: {} is free text, it may not be in the sentence",
                    place.key()
                ));
            }
            let unit = unit_of(row, &place.key(), reached.schema_key.as_deref());
            if money_like(&place.key(), reached.field)
                && !matches!(unit.map(unit_word), Some(Some(_)))
            {
                out.push(format!("{id}: {} is money of no certain unit", place.key()));
            }
        }
    }
    for place in template.unguarded() {
        let always = place == Place::Record || fields(&place).iter().all(|r| r.required);
        if !always {
            out.push(format!(
                "{id}: {} is shown whatever the request but may be absent",
                place.key()
            ));
        }
    }
    for (place, value) in template.compared() {
        if !fields(&place).iter().any(|r| can_be(r.field, value)) {
            out.push(format!("{id}: {} never equals {value}", place.key()));
        }
    }
    if placeholders.contains(&Place::Record) && record_get(contract, &op.path).is_none() {
        out.push(format!(
            "{id}: {{record}} but no GET reads a record of {}",
            op.path
        ));
    }
    out
}

/// The path the record of `{record}` is read from, if the contract has its GET.
fn record_get<'p>(contract: &Value, path: &'p str) -> Option<&'p str> {
    let gets: BTreeSet<String> = operations(contract)
        .into_iter()
        .filter(|op| op.method == "GET")
        .map(|op| op.path)
        .collect();
    record_path(path, |p| gets.contains(p))
}

/// Rows and operations that do not pair one to one.
fn pairing_problems(contract: &Value, rows: &[&Row]) -> Vec<String> {
    let mut out = Vec::new();
    let ops = operations(contract);
    for op in &ops {
        let n = rows.iter().filter(|r| r.operation == op.id).count();
        if n != 1 {
            out.push(format!(
                "{} {} ({}) has {n} rows",
                op.method, op.path, op.id
            ));
        }
    }
    if names_ids(contract) {
        for row in rows {
            if !ops.iter().any(|op| op.id == row.operation) {
                out.push(format!(
                    "row {} has no operation in the contract",
                    row.operation
                ));
            }
        }
    }
    out
}

/// Schema-table keys that name no field of a schema the contract has.
fn schema_table_problems(contract: &Value) -> Vec<String> {
    let whole = names_ids(contract);
    let mut out = Vec::new();
    for (key, _) in SCHEMA_UNITS {
        let (schema, path) = key.split_once('.').unwrap_or_default();
        let Some(field) = contract["schemas"].get(schema) else {
            if whole {
                out.push(format!("{key}: no schema {schema} in the contract"));
            }
            continue;
        };
        let mut reach = Reach::default();
        let at = At {
            place: "s".into(),
            schema: None,
            required: true,
            seen: vec![schema.into()],
        };
        walk(contract, field, &at, &mut reach);
        if !reach.knows(&format!("s.{path}")) {
            out.push(format!("{key}: not a field of {schema}"));
        }
    }
    out
}

/// Everything wrong between `rows` and `contract`.
fn problems(contract: &Value, rows: &[&Row]) -> Vec<String> {
    let mut out = pairing_problems(contract, rows);
    out.extend(schema_table_problems(contract));
    for op in operations(contract) {
        let Some(row) = rows.iter().find(|r| r.operation == op.id) else {
            continue;
        };
        let reach = reach(contract, &op);
        out.extend(unit_problems(row, &reach));
        if let Class::Destructive { .. } = row.class {
            out.extend(sentence_problems(contract, &op, row, &reach));
        }
    }
    out
}

fn the_contract() -> Value {
    serde_json::from_str(CONTRACT_JSON).expect("the contract is JSON")
}

fn the_rows() -> Vec<&'static Row> {
    all().collect()
}

#[test]
fn wa1_every_operation_of_the_contract_has_one_row() {
    let found = pairing_problems(&the_contract(), &the_rows());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn wa1_every_money_field_a_row_reaches_has_a_unit_and_the_table_names_real_fields() {
    let contract = the_contract();
    let mut found = schema_table_problems(&contract);
    for op in operations(&contract) {
        if let Some(row) = the_rows().into_iter().find(|r| r.operation == op.id) {
            found.extend(unit_problems(row, &reach(&contract, &op)));
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn wa1_every_sentence_names_only_fields_of_its_operation_that_are_not_free_text() {
    let found = problems(&the_contract(), &the_rows());
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A contract of two operations whose rows break every rule once.
fn a_broken_pair() -> (Value, Vec<&'static Row>) {
    let contract = json!({
        "operations": [
            {"operation_id": "post-things-id-pay", "method": "POST", "path": "/v1/things/{id}/pay",
             "path_params": {"id": {"type": "string", "format": "uuid"}},
             "query": {"total_min": {"type": "number"}},
             "body": {"ref": "PayRequest"}, "success": {"status": 200, "schema": "ThingResponse"}},
            {"operation_id": "get-others", "method": "GET", "path": "/v1/others",
             "query": {}, "body": null, "success": {"status": 200, "schema": "ThingResponse"}}
        ],
        "schemas": {
            "PayRequest": {"type": "object", "required": [], "fields": {
                "amount_cents": {"type": "integer", "unit": "cents"},
                "mode": {"type": "string", "enum": ["pix", "card"]},
                "note": {"type": "string"}}},
            "ThingResponse": {"type": "object", "fields": {"data": {"type": "object", "fields": {
                "total_subcents": {"type": "integer", "unit": "subcents", "unit_conflict": true}}}}}
        }
    });
    const PAY: Row = Row {
        operation: "post-things-id-pay",
        title: "Pagar",
        words: "pagar",
        class: Class::Destructive {
            asks: "Pagar {record} {body.note} {body.amount_cents}[?body.mode=boleto: x]?",
        },
        units: &[
            ("answer.data.total_subcents", Unit::Subcents),
            ("body.nope", Unit::Cents),
        ],
        excluded: None,
        why: "",
    };
    const ORPHAN: Row = Row {
        operation: "get-nothing",
        class: Class::Read,
        units: &[],
        ..PAY
    };
    (contract, vec![&PAY, &ORPHAN])
}

#[test]
fn wa1_the_checker_names_each_gap_between_rows_and_contract() {
    let (contract, rows) = a_broken_pair();
    let ops = operations(&contract);
    let reach = reach(&contract, &ops[0]);
    let mut found = pairing_problems(&contract, &rows);
    found.extend(unit_problems(rows[0], &reach));
    found.extend(sentence_problems(&contract, &ops[0], rows[0], &reach));
    let found = found.join("\n");
    for expected in [
        "GET /v1/others (get-others) has 0 rows",
        "row get-nothing has no operation",
        "query.total_min has no unit",
        "body.amount_cents (PayRequest.amount_cents) has no unit",
        "ThingResponse.data.total_subcents contradicts its name in the document",
        "unit for body.nope, not a field",
        "body.note is free text",
        "body.note is shown whatever the request but may be absent",
        "body.amount_cents is money of no certain unit",
        "body.mode never equals boleto",
        "{record} but no GET reads a record of /v1/things/{id}/pay",
    ] {
        assert!(
            found.contains(expected),
            "the checker missed: {expected}\nfound:\n{found}"
        );
    }
}
