//! What an entry says a write asked for, built from the request that was (or would have been)
//! sent — method, path and body after the tool parsed and normalized its arguments — never
//! from the raw arguments, and safe for any operation by construction: a value is kept only
//! when its kind cannot carry personal data, whatever the operation.
//!
//! **The operation.** The path is matched against the contract's operations (literal
//! segments win over `{…}`), which gives its template and which segments are ids. A path no
//! operation matches keeps a segment only when it is a literal of some contract path; any
//! other segment becomes `{id}`. An id that is a Kobana UUID is kept; any other (a customer's
//! `external_id`, which may be a document number) becomes [`EXTERNAL_ID`].
//!
//! **The summary.** The body is walked (at most [`MAX_DEPTH`] levels, [`MAX_ITEMS`] items of
//! an array, [`MAX_KEPT`] values in all). A member is looked at only when its name is a plain
//! identifier (`[a-z][a-z0-9_]*`, at most 64). An array's objects are walked (a request's
//! `items`, `line_items`); an object is descended into only when some contract schema gives a
//! member of that name a schema or an array — never a free object such as `metadata`, whose
//! keys are chosen by people. A value is kept only when it is:
//!
//! - an id: a UUID under `id` or `*_id` (a list of UUIDs under `*_ids`);
//! - money: an integer under `*_cents` or `*_subcents`, with its BRL text beside it by the
//!   project's one money rule ([`crate::format::enrich`]);
//! - a date: `YYYY-MM-DD` or an ISO 8601 instant, under a name that does not say `birth`;
//! - an enum value: a string the contract lists among the values of a member of that name;
//! - a boolean.
//!
//! Everything else — names, e-mails, phone numbers, document numbers, addresses, reasons and
//! any other free text, numbers that are not money — is left out, and only counted
//! (`omitted_fields`).

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde_json::{Map, Value, json};

use super::entry::{EXTERNAL_ID, Operation};
use crate::kobana::contract::contract;
use crate::kobana::is_uuid;

/// Deepest nesting of the body looked at.
pub const MAX_DEPTH: usize = 4;
/// Most items of one array looked at.
pub const MAX_ITEMS: usize = 10;
/// Most values kept in one summary.
pub const MAX_KEPT: usize = 24;
/// Longest member name looked at.
const MAX_NAME: usize = 64;

/// The member `omitted_fields`: how many values were left out.
pub const OMITTED: &str = "omitted_fields";

/// What the contract says about member names, across every schema.
struct Members {
    /// Names some schema gives a schema reference or an array: descended into.
    nested: HashSet<&'static str>,
    /// Each name's enum values, over every schema that gives it some.
    enums: HashMap<&'static str, HashSet<&'static str>>,
    /// Every literal segment of every contract path.
    literals: HashSet<&'static str>,
}

static MEMBERS: LazyLock<Members> = LazyLock::new(|| {
    let c = contract();
    let mut members = Members {
        nested: HashSet::new(),
        enums: HashMap::new(),
        literals: HashSet::new(),
    };
    for (name, ty, allowed) in c.members() {
        if matches!(ty, '@' | 'a') {
            members.nested.insert(name);
        }
        if let Some(values) = allowed {
            let set = members.enums.entry(name).or_default();
            set.extend(values.iter().map(String::as_str));
        }
    }
    for op in &c.operations {
        members.literals.extend(
            op.path
                .trim_start_matches("/v1/")
                .split('/')
                .filter(|s| !s.starts_with('{')),
        );
    }
    members
});

/// The operation of `method` on `/v1/<segments>`: its template and its ids.
pub fn operation<S: AsRef<str>>(method: &str, segments: &[S]) -> Operation {
    let segments: Vec<&str> = segments.iter().map(AsRef::as_ref).collect();
    let template: Vec<String> = match contract().find(method, &segments) {
        Some(op) => op
            .path
            .trim_start_matches("/v1/")
            .split('/')
            .map(str::to_owned)
            .collect(),
        None => segments
            .iter()
            .map(|s| {
                if MEMBERS.literals.contains(s) {
                    (*s).to_owned()
                } else {
                    "{id}".to_owned()
                }
            })
            .collect(),
    };
    let ids = template
        .iter()
        .zip(&segments)
        .filter(|(t, _)| t.starts_with('{'))
        .map(|(_, s)| {
            if is_uuid(s) {
                (*s).to_owned()
            } else {
                EXTERNAL_ID.to_owned()
            }
        })
        .collect();
    Operation {
        method: method.to_owned(),
        path: format!("/v1/{}", template.join("/")),
        ids,
    }
}

/// The summary of a write's body (see the module's rules); `{}` when nothing was sent or
/// nothing could be kept.
pub fn summary(body: Option<&Value>) -> Value {
    let mut walk = Walk::default();
    let mut out = match body {
        Some(Value::Object(map)) => walk.object(map, 0),
        Some(Value::Null) | None => Map::new(),
        Some(_) => {
            walk.omitted += 1;
            Map::new()
        }
    };
    if walk.omitted > 0 {
        out.insert(OMITTED.to_owned(), json!(walk.omitted));
    }
    let mut value = Value::Object(out);
    crate::format::enrich(&mut value);
    value
}

/// The walk's counts.
#[derive(Default)]
struct Walk {
    kept: usize,
    omitted: usize,
}

impl Walk {
    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        for (name, value) in map {
            match self.member(name, value, depth) {
                Some(kept) => {
                    out.insert(name.clone(), kept);
                }
                None if value.is_null() => {}
                None => self.omitted += 1,
            }
        }
        out
    }

    /// The member `name: value` as the summary keeps it, or `None`.
    fn member(&mut self, name: &str, value: &Value, depth: usize) -> Option<Value> {
        if self.kept >= MAX_KEPT || !plain_name(name) {
            return None;
        }
        match value {
            Value::Object(map) if depth < MAX_DEPTH && MEMBERS.nested.contains(name) => {
                let inner = self.object(map, depth + 1);
                (!inner.is_empty()).then_some(Value::Object(inner))
            }
            Value::Array(items) if name.ends_with("_ids") => self.ids(items),
            Value::Array(items) if depth < MAX_DEPTH => self.items(items, depth),
            Value::Object(_) | Value::Array(_) | Value::Null => None,
            scalar => {
                let keep = safe_scalar(name, scalar);
                if keep {
                    self.kept += 1;
                }
                keep.then(|| scalar.clone())
            }
        }
    }

    /// A list of UUIDs, cut to [`MAX_ITEMS`]; `None` if any item is something else.
    fn ids(&mut self, items: &[Value]) -> Option<Value> {
        let all = items.iter().all(|v| v.as_str().is_some_and(is_uuid));
        if !all || items.is_empty() {
            return None;
        }
        self.kept += 1;
        Some(Value::Array(
            items.iter().take(MAX_ITEMS).cloned().collect(),
        ))
    }

    /// The items of an array of objects, each walked; cut to [`MAX_ITEMS`].
    fn items(&mut self, items: &[Value], depth: usize) -> Option<Value> {
        let mut out = Vec::new();
        for item in items.iter().take(MAX_ITEMS) {
            match item {
                Value::Object(map) => {
                    let inner = self.object(map, depth + 1);
                    out.push(Value::Object(inner));
                }
                _ => self.omitted += 1,
            }
        }
        self.omitted += items.len().saturating_sub(MAX_ITEMS);
        out.iter()
            .any(|v| v.as_object().is_some_and(|m| !m.is_empty()))
            .then_some(Value::Array(out))
    }
}

/// The `id` of a record, when it is a UUID.
fn uuid_at(record: &Value) -> Option<&str> {
    record
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| is_uuid(s))
}

/// `[a-z][a-z0-9_]*`, at most [`MAX_NAME`] bytes.
fn plain_name(name: &str) -> bool {
    name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Whether a scalar member is one of the kinds kept: an id, money, a date, an enum value or a
/// boolean.
fn safe_scalar(name: &str, value: &Value) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::Number(n) => {
            (name.ends_with("_cents") || name.ends_with("_subcents")) && n.as_i64().is_some()
        }
        Value::String(text) => {
            let is_id = (name == "id" || name.ends_with("_id")) && is_uuid(text);
            is_id || (is_date(text) && !name.contains("birth")) || is_enum_value(name, text)
        }
        _ => false,
    }
}

/// A calendar date (`YYYY-MM-DD`) or an ISO 8601 instant.
fn is_date(text: &str) -> bool {
    if text.len() == 10 {
        return text.parse::<jiff::civil::Date>().is_ok();
    }
    text.len() <= 40 && text.parse::<jiff::Timestamp>().is_ok()
}

/// Whether the contract lists `value` among the enum values of a member called `name`.
fn is_enum_value(name: &str, value: &str) -> bool {
    MEMBERS
        .enums
        .get(name)
        .is_some_and(|values| values.contains(value))
}

/// The affected record's id in Kobana's answer `data`: its `id`, else the `id` of its first
/// member that is a record (`{customer: {id}, billing_account: …}`), else the last UUID of
/// the path. Only a UUID is taken.
pub fn record_id<S: AsRef<str>>(data: Option<&Value>, segments: &[S]) -> Option<String> {
    let from_answer = data
        .and_then(|data| uuid_at(data).or_else(|| data.as_object()?.values().find_map(uuid_at)));
    from_answer.map(str::to_owned).or_else(|| {
        segments
            .iter()
            .rev()
            .map(AsRef::as_ref)
            .find(|s| is_uuid(s))
            .map(str::to_owned)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
    const ACCOUNT: &str = "6c307511-b2b9-437a-a8df-6ec4ce4a2bbd";

    #[test]
    fn au1_the_operation_is_the_contracts_template_and_its_ids() {
        let op = operation("POST", &["payments", INVOICE, "refund"]);
        assert_eq!(op.path, "/v1/payments/{id}/refund");
        assert_eq!(op.ids, [INVOICE]);
        assert_eq!(op.method, "POST");
        // A customer named by its external_id: the value is not kept.
        let op = operation("DELETE", &["customers", "12345678900"]);
        assert_eq!(op.path, "/v1/customers/{id}");
        assert_eq!(op.ids, [EXTERNAL_ID]);
        // A path no operation matches: only the contract's literals stay.
        let op = operation("POST", &["customers", "maria-silva", "merge", INVOICE]);
        assert_eq!(op.path, "/v1/customers/{id}/{id}/{id}");
        assert_eq!(op.ids, [EXTERNAL_ID, EXTERNAL_ID, INVOICE]);
        let op = operation("POST", &["invoices", INVOICE, "void", "x"]);
        assert_eq!(op.path, "/v1/invoices/{id}/void/{id}");
    }

    #[test]
    fn au1_the_summary_keeps_ids_money_dates_enums_and_booleans_only() {
        let body = json!({
            "billing_account_id": ACCOUNT,
            "due_date": "2026-09-01",
            "amount_cents": 1500,
            "status": "active",
            "auto_collection": true,
            "name": "Maria da Silva",
            "email": "maria@example.com",
            "document_number": "123.456.789-09",
            "birthday": "1980-02-03",
            "reason": "cliente pediu 2026-01-01",
            "external_id": "12345678900",
            "quantity": 3,
            "metadata": {"cliente_maria": true, "invoice_id": INVOICE},
            "Nome Próprio": true,
            "line_items": [
                {"description": "Consultoria", "unit_amount_subcents": 150000, "product_id": ACCOUNT},
            ],
            "tag_ids": [INVOICE, ACCOUNT],
        });
        let s = summary(Some(&body));
        assert_eq!(s["billing_account_id"], ACCOUNT);
        assert_eq!(s["due_date"], "2026-09-01");
        assert_eq!(s["amount_cents"], 1500);
        assert_eq!(s["amount_brl"], "R$ 15,00");
        assert_eq!(s["status"], "active");
        assert_eq!(s["auto_collection"], true);
        assert_eq!(s["line_items"][0]["unit_amount_subcents"], 150000);
        assert_eq!(s["line_items"][0]["unit_amount_brl"], "R$ 15,00");
        assert_eq!(s["line_items"][0]["product_id"], ACCOUNT);
        assert_eq!(s["tag_ids"], json!([INVOICE, ACCOUNT]));
        let text = s.to_string();
        for private in [
            "Maria",
            "maria",
            "123.456",
            "1980",
            "cliente",
            "12345678900",
            "Consultoria",
            "Nome",
        ] {
            assert!(!text.contains(private), "{private} in {text}");
        }
        // name, email, document, birthday, reason, external_id, quantity, metadata, the
        // odd key, the line item's description.
        assert_eq!(s[OMITTED], 10, "{text}");
        assert!(s.get("quantity").is_none() && s.get("metadata").is_none());
    }

    #[test]
    fn au1_the_summary_is_bounded_and_empty_without_a_body() {
        assert_eq!(summary(None), json!({}));
        let many: Map<String, Value> = (0..100)
            .map(|i| (format!("flag_{i}"), Value::Bool(true)))
            .collect();
        let s = summary(Some(&Value::Object(many)));
        assert_eq!(s.as_object().unwrap().len(), MAX_KEPT + 1);
        assert_eq!(s[OMITTED], 100 - MAX_KEPT);
        let items: Vec<Value> = (0..30)
            .map(|_| json!({"unit_amount_subcents": 1}))
            .collect();
        let s = summary(Some(&json!({"line_items": items})));
        assert_eq!(s["line_items"].as_array().unwrap().len(), MAX_ITEMS);
    }

    #[test]
    fn au1_the_record_id_comes_from_the_answer_or_the_path() {
        let path = ["invoices", INVOICE, "void"];
        assert_eq!(
            record_id(Some(&json!({"id": ACCOUNT})), &path).as_deref(),
            Some(ACCOUNT)
        );
        assert_eq!(
            record_id(Some(&json!({"customer": {"id": ACCOUNT}})), &path).as_deref(),
            Some(ACCOUNT)
        );
        assert_eq!(
            record_id(Some(&json!({"deleted": true})), &path).as_deref(),
            Some(INVOICE)
        );
        assert_eq!(
            record_id(Some(&json!({"id": "FAT-1"})), &["customers"]),
            None
        );
    }
}
