//! Table-driven list filters: for each list operation, the query parameters it supports and
//! how each keeps or drops a record. The contract already checked types, enums and formats;
//! what it lets through unparsed (the invoices' plain-string dates) is checked by
//! [`validate`].

use crate::api::{Errors, Params, Record, contains_ci, day_of, digits_of, s};
use crate::clock;
use crate::store::OrgData;

/// Centavos per unit of a money filter given in centavos.
pub const CENTS: f64 = 1.0;
/// Centavos per unit of a money filter given in reais.
pub const REAIS: f64 = 100.0;

/// How one query parameter keeps or drops a record.
#[derive(Clone, Copy)]
pub enum By {
    /// The string field equals the value.
    Eq(&'static str),
    /// The boolean field (absent: `false`) equals the value, `true` or `false`.
    Bool(&'static str),
    /// The integer field equals the value.
    Int(&'static str),
    /// The date(-time) field falls on or after the day (São Paulo calendar).
    Since(&'static str),
    /// The date(-time) field falls on or before the day.
    Until(&'static str),
    /// The centavos field is at least the value × the unit ([`CENTS`] or [`REAIS`]).
    AtLeast(&'static str, f64),
    /// The centavos field is at most the value × the unit.
    AtMost(&'static str, f64),
    /// One of the string fields contains the value (case-insensitive).
    Contains(&'static [&'static str]),
    /// A predicate over the organization's data, the record and the value.
    With(fn(&OrgData, &Record, &str) -> bool),
}

/// A list operation's filters: `(query parameter, how)`.
pub type Table = [(&'static str, By)];

/// Paging and sorting parameters, read by [`crate::api::Page`], not filters.
pub const PAGING: [&str; 4] = ["page", "per_page", "sort_by", "sort_order"];

/// The `person_*` filters: the record's customer (the "pessoa"; see the contract's
/// ambiguities) by id, exact CPF/CNPJ or part of the name.
pub const PERSON: [(&str, By); 3] = [
    ("person_id", By::With(person_id)),
    ("person_document_number", By::With(person_document)),
    ("person_name_contains", By::With(person_name)),
];

fn person_id(org: &OrgData, r: &Record, v: &str) -> bool {
    org.customer_of(r).and_then(|c| s(c, "id")) == Some(v)
}

fn person_document(org: &OrgData, r: &Record, v: &str) -> bool {
    let want = digits_of(v);
    !want.is_empty()
        && org
            .customer_of(r)
            .and_then(|c| s(c, "document_number"))
            .is_some_and(|d| digits_of(d) == want)
}

fn person_name(org: &OrgData, r: &Record, v: &str) -> bool {
    org.customer_of(r)
        .and_then(|c| s(c, "name"))
        .is_some_and(|n| contains_ci(n, &v.to_lowercase()))
}

/// The day of a `YYYY-MM-DD` or RFC 3339 value.
fn day(v: &str) -> Option<i64> {
    clock::parse_date_or_datetime(v).map(clock::local_day)
}

fn cents(r: &Record, field: &str) -> Option<f64> {
    r.get(field).and_then(serde_json::Value::as_f64)
}

impl By {
    /// Whether the record passes this filter with value `v`.
    pub fn keeps(self, org: &OrgData, r: &Record, v: &str) -> bool {
        match self {
            By::Eq(f) => s(r, f) == Some(v),
            By::Bool(f) => {
                r.get(f)
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false)
                    == (v == "true")
            }
            By::Int(f) => v
                .parse::<i64>()
                .is_ok_and(|n| r.get(f).and_then(serde_json::Value::as_i64) == Some(n)),
            By::Since(f) => day(v).is_some_and(|d| day_of(r, f).is_some_and(|x| x >= d)),
            By::Until(f) => day(v).is_some_and(|d| day_of(r, f).is_some_and(|x| x <= d)),
            By::AtLeast(f, unit) => v
                .parse::<f64>()
                .is_ok_and(|x| cents(r, f).is_some_and(|c| c >= x * unit)),
            By::AtMost(f, unit) => v
                .parse::<f64>()
                .is_ok_and(|x| cents(r, f).is_some_and(|c| c <= x * unit)),
            By::Contains(fields) => {
                let needle = v.to_lowercase();
                fields
                    .iter()
                    .filter_map(|f| s(r, f))
                    .any(|x| contains_ci(x, &needle))
            }
            By::With(f) => f(org, r, v),
        }
    }
}

/// Whether the record passes every filter of `tables` that the query sets.
pub fn keeps(org: &OrgData, p: &Params, tables: &[&Table], r: &Record) -> bool {
    tables
        .iter()
        .flat_map(|t| t.iter())
        .all(|(name, by)| p.get(name).is_none_or(|v| by.keeps(org, r, v)))
}

/// Adds a `validation_error` for date filters whose value is no date (the contract leaves
/// some of them plain strings).
pub fn validate(p: &Params, tables: &[&Table], errors: &mut Errors) {
    for (name, by) in tables.iter().flat_map(|t| t.iter()) {
        if let (By::Since(_) | By::Until(_), Some(v)) = (by, p.get(name))
            && day(v).is_none()
        {
            errors.add(name, "deve ser uma data no formato AAAA-MM-DD");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filters_keep_what_they_say() {
        let org = OrgData::default();
        let r: Record = serde_json::from_value(json!({
            "status": "open", "flag": true, "n": 5, "due_date": "2026-08-05T03:00:00Z",
            "amount_cents": 49_900, "name": "Padaria Pão Dourado"
        }))
        .unwrap();
        let cases = [
            (By::Eq("status"), "open", true),
            (By::Eq("status"), "paid", false),
            (By::Bool("flag"), "true", true),
            (By::Bool("missing"), "false", true),
            (By::Int("n"), "5", true),
            (By::Since("due_date"), "2026-08-05", true),
            (By::Since("due_date"), "2026-08-06", false),
            (By::Until("due_date"), "2026-08-05", true),
            (By::AtLeast("amount_cents", REAIS), "499.00", true),
            (By::AtLeast("amount_cents", REAIS), "499.01", false),
            (By::AtMost("amount_cents", CENTS), "49900", true),
            (By::Contains(&["name"]), "PÃO", true),
        ];
        for (by, v, want) in cases {
            assert_eq!(by.keeps(&org, &r, v), want, "{v}");
        }
    }
}
