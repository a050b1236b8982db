//! List rows sized for a model's context (CX-1, CX-2): per resource, the compact set of fields a
//! person scans and a model needs to pick the next call, and the `fields` a caller may ask
//! for instead.
//!
//! Rules every row follows:
//! - `id` is always there; a field whose value is null (or meaningless, like what is still
//!   owed on an invoice that is not open) is left out.
//! - Money is one BRL text (`total_brl: "R$ 499,00"`), unless the caller asks for Kobana's
//!   integer by its own name (`total_subcents`).
//! - Dates are one São Paulo form: a due date is its calendar date `2026-08-25` in whichever
//!   form Kobana writes it (`format::calendar_day`), a date-time at midnight in
//!   America/Sao_Paulo too; any other instant is ISO with offset
//!   (`2026-07-24T14:32:10-03:00`).
//! - A name is text: `customer` is the customer's name (through the billing account, see
//!   `lists::names`; an NF-e's tomador), `email` the first of `emails`.
//! - `fields` adds to the compact row the named record fields (from the schema catalog),
//!   each in the same one form.
//!
//! `_get` tools and resources keep the full record; only lists are shaped here.

use jiff::civil::Date;
use serde_json::{Map, Value, json};

use crate::access::Resource;
use crate::format::{calendar_day, is_day_key, sao_paulo_time};

/// The row shape of one list resource.
#[derive(Debug, Clone, Copy)]
pub struct RowShape {
    /// The catalog resource (its slug is also the list's member name).
    pub resource: Resource,
    /// The compact row's fields, in order (after `id`).
    pub compact: &'static [&'static str],
    /// The names `fields` accepts: record fields from the catalog (and their `*_brl`) that
    /// the compact row leaves out.
    pub extra: &'static [&'static str],
}

/// Every list resource's row shape. The compact sets are listed in the README.
pub const SHAPES: [RowShape; 8] = [
    RowShape {
        resource: Resource::Customers,
        compact: &["name", "document_number", "email", "external_id"],
        extra: &[
            "kind",
            "legal_name",
            "nickname",
            "phones",
            "emails",
            "addresses",
            "tags",
            "notes",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::BillingAccounts,
        compact: &["customer", "customer_id", "status", "billing_email"],
        extra: &[
            "external_id",
            "payment_terms_days",
            "auto_collection",
            "balance_brl",
            "suspension_reason",
            "tax_exempt",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Plans,
        compact: &["name", "status", "default_billing_cycle"],
        extra: &[
            "external_id",
            "slug",
            "description",
            "plan_type",
            "trial_period_days",
            "available_billing_cycles",
            "features",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Products,
        compact: &["name", "status", "product_type", "unit_label"],
        extra: &[
            "external_id",
            "slug",
            "description",
            "visibility",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Subscriptions,
        compact: &[
            "status",
            "customer",
            "customer_unavailable",
            "billing_account_id",
            "plan_id",
            "billing_cycle",
            "recurring_amount_brl",
            "current_period_end",
            "cancel_at_period_end",
        ],
        extra: &[
            "external_id",
            "recurring_amount_cents",
            "current_period_start",
            "trial_end",
            "canceled_at",
            "cancellation_reason",
            "paused_at",
            "resumes_at",
            "collection_method",
            "nfe_issuance_policy",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Invoices,
        compact: &[
            "number",
            "status",
            "days_overdue",
            "customer",
            "customer_unavailable",
            "billing_account_id",
            "total_brl",
            "amount_remaining_brl",
            "due_date",
            "amounts_note",
        ],
        extra: &[
            "external_id",
            "subscription_id",
            "total_subcents",
            "amount_paid_brl",
            "amount_remaining_cents",
            "paid_at",
            "finalized_at",
            "voided_at",
            "period_start",
            "period_end",
            "description",
            "hosted_invoice_url",
            "line_items",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Payments,
        compact: &[
            "invoice_id",
            "status",
            "amount_brl",
            "payment_method_type",
            "paid_at",
        ],
        extra: &[
            "external_id",
            "billing_account_id",
            "amount_cents",
            "paid_amount_brl",
            "failure_message",
            "payment_gateway",
            "metadata",
            "created_at",
        ],
    },
    RowShape {
        resource: Resource::Nfes,
        compact: &[
            "invoice_id",
            "status",
            "nfe_number",
            "customer",
            "amount_brl",
            "issue_date",
            "error_message",
        ],
        extra: &[
            "external_id",
            "billing_account_id",
            "nfe_key",
            "verification_code",
            "cancelled_at",
            "service_description",
            "customer_snapshot",
            "taxes",
            "next_retry_at",
            "metadata",
            "created_at",
        ],
    },
];

/// The row shape of `resource`, if it is a list resource.
pub fn shape(resource: Resource) -> Option<&'static RowShape> {
    SHAPES.iter().find(|s| s.resource == resource)
}

impl RowShape {
    /// Whether the row shows the customer's name, which invoices and subscriptions only
    /// know through their billing account.
    pub fn needs_customer_lookup(&self) -> bool {
        self.compact.contains(&"customer")
            && matches!(self.resource, Resource::Invoices | Resource::Subscriptions)
    }

    /// The `items` schema of the list's output: the compact row, each field with its one
    /// type (rows leave nulls out, so no field is nullable); `fields` adds members beyond
    /// these. Typed, not bare `{}`, so clients that map schemas onto a single-type dialect
    /// keep every field (FH-5); terse, because `tools/list` has a byte budget.
    #[cfg(test)]
    pub fn item_schema(&self) -> Value {
        let properties: Map<String, Value> = std::iter::once("id")
            .chain(self.compact.iter().copied())
            .map(|name| (name.to_owned(), json!({"type": self.row_type(name)})))
            .collect();
        json!({"type": "object", "properties": properties})
    }

    /// The JSON type of a compact row field: the record field's type in the schema catalog
    /// (a number stays a number, a flag a flag), or text for what the row derives (names,
    /// BRL, dates shown in São Paulo), `days_overdue` aside.
    #[cfg(test)]
    fn row_type(&self, name: &str) -> &'static str {
        let field = crate::catalog::schemas::resource(self.resource.slug())
            .and_then(|r| r.fields.iter().find(|f| f.name == name));
        match (name, field.map(|f| f.kind.as_str())) {
            ("days_overdue", _) | (_, Some("int")) => "integer",
            (_, Some("bool")) => "boolean",
            _ => "string",
        }
    }
}

/// What a row may show beyond its record: the customers' names by billing account id (a row
/// whose account has no known name leaves `customer` out, still names the account by its
/// `billing_account_id`, and says why in `customer_unavailable`), and today's date in São
/// Paulo (for `days_overdue`).
#[derive(Debug, Clone, Default)]
pub struct RowContext {
    /// `billing_account_id` → the customer's name.
    pub customer_names: std::collections::HashMap<String, String>,
    /// `billing_account_id` → why its customer has no name on the row.
    pub customer_missing: std::collections::HashMap<String, super::names::Missing>,
    /// Today in America/Sao_Paulo.
    pub today: Option<Date>,
}

/// Turns each (enriched) record of `records` into its row: compact, plus `fields`.
pub fn shape_rows(
    shape: &RowShape,
    records: Vec<Value>,
    fields: &[&str],
    context: &RowContext,
) -> Vec<Value> {
    records
        .into_iter()
        .map(|record| match record {
            Value::Object(map) => Value::Object(row(shape, &map, fields, context)),
            other => other,
        })
        .collect()
}

fn row(
    shape: &RowShape,
    record: &Map<String, Value>,
    fields: &[&str],
    context: &RowContext,
) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(id) = record.get("id") {
        out.insert("id".to_owned(), id.clone());
    }
    let mut put = |name: &str| {
        if name != "id"
            && let Some(value) = field(shape.resource, name, record, context)
        {
            out.insert(name.to_owned(), value);
        }
    };
    shape.compact.iter().for_each(|f| put(f));
    fields.iter().for_each(|f| put(f));
    out
}

/// The value of `name` in a row of `resource`, or `None` when there is nothing to show.
fn field(
    resource: Resource,
    name: &str,
    record: &Map<String, Value>,
    context: &RowContext,
) -> Option<Value> {
    let text = |key: &str| record.get(key).and_then(Value::as_str);
    let value = match (resource, name) {
        (Resource::Invoices | Resource::Subscriptions, "customer") => text("billing_account_id")
            .and_then(|id| context.customer_names.get(id))
            .map(|n| json!(n)),
        // Why a row has no `customer`, when it has none (FH-2).
        (Resource::Invoices | Resource::Subscriptions, "customer_unavailable") => {
            text("billing_account_id")
                .filter(|id| !context.customer_names.contains_key(*id))
                .and_then(|id| context.customer_missing.get(id))
                .map(|missing| json!(missing.text()))
        }
        (Resource::BillingAccounts, "customer") => {
            record.get("customer").and_then(|c| c.get("name")).cloned()
        }
        (Resource::BillingAccounts, "customer_id") => record
            .get("customer")
            .and_then(|c| c.get("id"))
            .or_else(|| record.get("customer_id"))
            .cloned(),
        (Resource::Nfes, "customer") => record
            .get("customer_snapshot")
            .and_then(|c| c.get("name"))
            .cloned(),
        (Resource::Customers, "email") => record
            .get("emails")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .and_then(|e| e.get("value"))
            .cloned(),
        (Resource::Invoices, "days_overdue") => context
            .today
            .and_then(|today| days_overdue(record, today))
            .map(|d| json!(d)),
        // The invoice's amounts note, in a few words (see `format::money`).
        (Resource::Invoices, "amounts_note") => {
            crate::format::money::short_amounts_note(record).map(|n| json!(n))
        }
        // What is still owed matters only while the invoice is open.
        (Resource::Invoices, "amount_remaining_brl") if text("status") != Some("open") => None,
        // Only the exception is worth a line.
        (Resource::Subscriptions, "cancel_at_period_end") => {
            (record.get(name) == Some(&Value::Bool(true))).then_some(json!(true))
        }
        _ => record.get(name).map(|v| match v.as_str() {
            Some(s) if is_day_key(name) => {
                calendar_day(s).map_or_else(|| v.clone(), |d| json!(d.to_string()))
            }
            Some(s) if is_date_value(name, s) => json!(sao_paulo_day_or_time(s)),
            _ => v.clone(),
        }),
    };
    value.filter(|v| !v.is_null())
}

fn is_date_value(name: &str, text: &str) -> bool {
    (name.ends_with("_at")
        || name.ends_with("_date")
        || name.ends_with("_start")
        || name.ends_with("_end")
        || name == "next_payment_attempt")
        && text.contains('T')
}

/// A Kobana date-time in São Paulo: the calendar date when it is midnight there (due
/// dates, periods), else ISO with offset. Unparseable text is kept as Kobana sent it.
pub fn sao_paulo_day_or_time(text: &str) -> String {
    match sao_paulo_time(text) {
        Some(local) if local.get(10..19) == Some("T00:00:00") => local[..10].to_owned(),
        Some(local) => local,
        None => text.to_owned(),
    }
}

/// Days an open invoice is past its due date (São Paulo calendar), when it is: the one
/// overdue rule of list rows (`days_overdue`) and of whole invoices (`_derived`).
pub fn days_overdue(record: &Map<String, Value>, today: Date) -> Option<i64> {
    if record.get("status").and_then(Value::as_str) != Some("open") {
        return None;
    }
    let due = calendar_day(record.get("due_date").and_then(Value::as_str)?)?;
    let days = i64::from(due.until(today).ok()?.get_days());
    (due < today && days > 0).then_some(days)
}

impl RowShape {
    /// Every name `fields` accepts: `id`, the compact row's (which change nothing) and the
    /// extra ones. A `fields` longer than this is refused: no row can show more.
    pub fn size(&self) -> usize {
        1 + self.compact.len() + self.extra.len()
    }

    /// The known name `name`, as this shape spells it.
    fn known(&self, name: &str) -> Option<&'static str> {
        std::iter::once("id")
            .chain(self.compact.iter().copied())
            .chain(self.extra.iter().copied())
            .find(|known| *known == name)
    }
}

/// Checks `fields` against the shape (the input schema says the same; this guards callers
/// that bypass it, such as prompts) and answers the extra names to add, each once, in the
/// order asked. A name the compact row already shows (`id` included) is accepted and
/// changes nothing; an unknown one is refused naming the valid values; a list longer than
/// the shape's own size ([`RowShape::size`]) is refused before any name is read (BW-1).
pub fn check_fields(shape: &RowShape, fields: &[String]) -> Result<Vec<&'static str>, String> {
    if fields.len() > shape.size() {
        return Err(format!(
            "`fields`: no máximo {} nomes (cada campo uma vez); recebidos {}",
            shape.size(),
            fields.len()
        ));
    }
    let mut extra: Vec<&'static str> = Vec::with_capacity(fields.len());
    for name in fields {
        let Some(known) = shape.known(name) else {
            return Err(format!(
                "`fields`: campo {name:?} não aceito; campos aceitos: {}",
                shape.extra.join(", ")
            ));
        };
        if shape.extra.contains(&known) && !extra.contains(&known) {
            extra.push(known);
        }
    }
    Ok(extra)
}

/// The `fields` argument of a list's input schema: the shape's names as an enum (the
/// compact ones and `id` too, which change nothing: BW-1), at most [`RowShape::size`] of them.
/// No description: its name and the enum say what it is, and a description cost 34 bytes a
/// list.
#[cfg(test)]
pub fn fields_schema(shape: &RowShape) -> Value {
    let names: Vec<&str> = std::iter::once("id")
        .chain(shape.compact.iter().copied())
        .chain(shape.extra.iter().copied())
        .collect();
    json!({
        "type": "array",
        "maxItems": shape.size(),
        "items": {"enum": names}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn invoice() -> Map<String, Value> {
        let mut v = json!({
            "id": "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55", "number": "FAT-1", "status": "open",
            "billing_account_id": "acc", "total_subcents": 4990000,
            "subtotal_subcents": 4990000, "amount_due_subcents": 4990000,
            "amount_paid_subcents": 0,
            "amount_remaining_cents": 49900, "due_date": "2026-08-05T03:00:00Z",
            "paid_at": null, "created_at": "2026-07-24T14:30:00-03:00",
            "line_items": [{"description": "x", "amount_cents": 49900}]
        });
        crate::format::enrich(&mut v);
        match v {
            Value::Object(m) => m,
            _ => unreachable!(),
        }
    }

    fn context() -> RowContext {
        RowContext {
            customer_names: [("acc".to_owned(), "Padaria Pão Dourado Ltda".to_owned())].into(),
            today: Some("2026-08-20".parse().unwrap()),
            ..Default::default()
        }
    }

    #[test]
    fn t3_the_compact_invoice_row_has_one_form_of_each_value_and_no_nulls() {
        let shape = shape(Resource::Invoices).unwrap();
        let row = row(shape, &invoice(), &[], &context());
        assert_eq!(
            Value::Object(row),
            json!({"id": "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55", "number": "FAT-1",
                "status": "open", "days_overdue": 15, "customer": "Padaria Pão Dourado Ltda",
                "billing_account_id": "acc",
                "total_brl": "R$ 499,00", "amount_remaining_brl": "R$ 499,00",
                "due_date": "2026-08-05"})
        );
        let mut paid = invoice();
        paid.insert("status".into(), json!("paid"));
        let row = super::row(shape, &paid, &[], &context());
        assert!(!row.contains_key("days_overdue") && !row.contains_key("amount_remaining_brl"));
        // The same invoice with its totals in centavos and its due date at midnight UTC
        // (readings invoice_totals_unit, due_date_form): the same row, plus the note.
        let mut other = json!({
            "id": "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55", "number": "FAT-1", "status": "open",
            "billing_account_id": "acc", "total_subcents": 49900, "subtotal_subcents": 49900,
            "amount_due_subcents": 49900, "amount_paid_subcents": 0,
            "amount_remaining_cents": 49900, "due_date": "2026-08-05T00:00:00Z"});
        crate::format::enrich(&mut other);
        let other = super::row(shape, other.as_object().unwrap(), &[], &context());
        assert_eq!(other["total_brl"], "R$ 499,00");
        assert_eq!(other["due_date"], "2026-08-05");
        assert_eq!(other["days_overdue"], 15);
        assert!(
            other["amounts_note"].as_str().unwrap().contains("centavos"),
            "{other:?}"
        );
    }

    /// `BillingAccountV1.customer` is embedded only when the relation is loaded: when no name
    /// is known for the account, the rows of invoices and subscriptions say nothing about
    /// the customer — no `customer`, no null, no other account's name — and still name the
    /// account.
    #[test]
    fn t3_a_row_whose_customer_name_is_absent_names_the_account_and_no_customer() {
        let mut unnamed = RowContext {
            customer_names: [("other".to_owned(), "Outro Cliente".to_owned())].into(),
            today: Some("2026-08-20".parse().unwrap()),
            ..Default::default()
        };
        let invoices = shape(Resource::Invoices).unwrap();
        let shown = row(invoices, &invoice(), &[], &unnamed);
        assert!(!shown.contains_key("customer"), "{shown:?}");
        assert_eq!(shown["billing_account_id"], "acc");
        // FH-2: and says why, when it is known why.
        assert!(!shown.contains_key("customer_unavailable"), "{shown:?}");
        unnamed
            .customer_missing
            .insert("acc".to_owned(), super::super::names::Missing::NotSent);
        let shown = row(invoices, &invoice(), &[], &unnamed);
        assert_eq!(
            shown["customer_unavailable"],
            "o Kobana não enviou o cliente desta conta"
        );
        assert!(!shown.contains_key("customer"), "{shown:?}");
        let subscriptions = shape(Resource::Subscriptions).unwrap();
        for record in [
            json!({"id": "s1", "status": "active", "billing_account_id": "acc"}),
            json!({"id": "s2", "status": "active", "billing_account_id": "acc", "customer": null}),
            json!({"id": "s3", "status": "active", "billing_account_id": "acc",
                   "customer": {"name": "Not from the record"}}),
        ] {
            let Value::Object(record) = record else {
                unreachable!()
            };
            let shown = row(subscriptions, &record, &[], &unnamed);
            assert!(!shown.contains_key("customer"), "{shown:?}");
            assert_eq!(shown["billing_account_id"], "acc");
        }
        // A billing account row shows the embedded name only, and nothing when it is absent.
        let accounts = shape(Resource::BillingAccounts).unwrap();
        for (record, name) in [
            (
                json!({"id": "acc", "customer": {"id": "c1", "name": "Ana"}}),
                Some("Ana"),
            ),
            (json!({"id": "acc", "customer": null}), None),
            (json!({"id": "acc", "customer": {"id": "c1"}}), None),
            (json!({"id": "acc"}), None),
        ] {
            let Value::Object(record) = record else {
                unreachable!()
            };
            let shown = row(accounts, &record, &[], &unnamed);
            assert_eq!(
                shown.get("customer").and_then(Value::as_str),
                name,
                "{shown:?}"
            );
        }
    }

    #[test]
    fn fields_add_record_fields_to_the_compact_row() {
        let shape = shape(Resource::Invoices).unwrap();
        let fields = ["total_subcents", "created_at", "paid_at", "line_items"];
        let row = row(shape, &invoice(), &fields, &context());
        let mut keys: Vec<&str> = row.keys().map(String::as_str).collect();
        keys.sort_unstable();
        // `paid_at` is null: left out.
        assert_eq!(
            keys,
            [
                "amount_remaining_brl",
                "billing_account_id",
                "created_at",
                "customer",
                "days_overdue",
                "due_date",
                "id",
                "line_items",
                "number",
                "status",
                "total_brl",
                "total_subcents"
            ]
        );
        assert_eq!(row["created_at"], "2026-07-24T14:30:00-03:00");
        assert_eq!(row["total_subcents"], 4990000);
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn unknown_fields_are_refused_with_the_valid_names() {
        let shape = shape(Resource::Payments).unwrap();
        let err = check_fields(shape, &names(&["amount"])).unwrap_err();
        assert!(
            err.contains("\"amount\"")
                && err.contains("amount_cents")
                && err.contains("failure_message"),
            "{err}"
        );
        assert_eq!(
            check_fields(shape, &names(&["amount_cents"])).unwrap(),
            ["amount_cents"]
        );
    }

    #[test]
    fn n1_fields_are_deduplicated_compact_names_change_nothing_and_the_list_is_capped() {
        let shape = shape(Resource::Invoices).unwrap();
        // `id` and the compact row's names are accepted and add nothing.
        assert!(
            check_fields(shape, &names(&["id", "number", "customer"]))
                .unwrap()
                .is_empty()
        );
        let asked = names(&["line_items", "id", "line_items", "created_at", "line_items"]);
        assert_eq!(
            check_fields(shape, &asked).unwrap(),
            ["line_items", "created_at"]
        );
        // Every name once is the most a row can show; one more is refused before any name
        // is read, naming the cap.
        let mut all: Vec<String> = std::iter::once("id")
            .chain(shape.compact.iter().copied())
            .chain(shape.extra.iter().copied())
            .map(str::to_owned)
            .collect();
        assert_eq!(all.len(), shape.size());
        assert_eq!(check_fields(shape, &all).unwrap(), shape.extra);
        all.push("line_items".to_owned());
        let err = check_fields(shape, &all).unwrap_err();
        assert!(
            err.contains(&format!("no máximo {}", shape.size())),
            "{err}"
        );
        let attack = vec!["line_items".to_owned(); 70_000];
        assert!(check_fields(shape, &attack).unwrap_err().contains("70000"));
    }

    #[test]
    fn every_selectable_name_is_a_catalog_field_a_companion_or_a_compact_name() {
        for shape in SHAPES {
            let resource =
                crate::catalog::schemas::resource(shape.resource.slug()).expect("catalog");
            let known = |name: &str| {
                resource.fields.iter().any(|f| {
                    f.name == name
                        || name.strip_suffix("_brl").is_some_and(|b| {
                            [format!("{b}_cents"), format!("{b}_subcents")].contains(&f.name)
                        })
                })
            };
            for name in shape.extra {
                assert!(
                    known(name),
                    "{:?}: {name} is not in the catalog",
                    shape.resource
                );
            }
            let mut names: Vec<&str> = shape.compact.iter().chain(shape.extra).copied().collect();
            let count = names.len();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), count, "{:?}: a name twice", shape.resource);
        }
    }

    #[test]
    fn t3_midnight_in_sao_paulo_is_a_date_and_other_instants_keep_their_time() {
        assert_eq!(sao_paulo_day_or_time("2026-08-25T03:00:00Z"), "2026-08-25");
        assert_eq!(
            sao_paulo_day_or_time("2026-07-24T14:32:10-03:00"),
            "2026-07-24T14:32:10-03:00"
        );
        assert_eq!(sao_paulo_day_or_time("não é data"), "não é data");
    }
}
