//! Kobana's contract as the binary carries it: `data/contract.txt`, the subset of
//! `tests/contract/billing-v1.json` an answer is checked against (derived by the tests crate,
//! which fails when the two disagree). Each operation's method, path, success status and
//! answer schema; each schema's members with type, nullability, requiredness and enum.
//!
//! [`check_answer`] walks a JSON answer once and names every place it leaves the contract
//! — an unknown enum value, a missing required member, a type mismatch — by path and kind,
//! never by value. The drift check ([`super::drift`]) and `kobana-mcp check` use it.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde_json::Value;

/// The embedded subset, verbatim.
pub const CONTRACT_TXT: &str = include_str!("../../data/contract.txt");

static CONTRACT: LazyLock<Contract> = LazyLock::new(|| Contract::parse(CONTRACT_TXT));

/// The parsed subset (loaded once per process).
pub fn contract() -> &'static Contract {
    &CONTRACT
}

/// The operations and answer schemas.
#[derive(Debug, Default)]
pub struct Contract {
    /// Every operation, in the contract's order.
    pub operations: Vec<Operation>,
    schemas: HashMap<String, Schema>,
}

/// One operation.
#[derive(Debug)]
pub struct Operation {
    /// Stable id, e.g. `invoices.get`.
    pub id: String,
    /// HTTP method, upper case.
    pub method: String,
    /// Path template (`/v1/invoices/{id}`).
    pub path: String,
    /// The documented success status (the lowest).
    pub status: u16,
    /// Other success statuses the document declares (`207` of the usage batches).
    pub also: Vec<u16>,
    /// The answer schema, or `None` for a binary answer.
    pub schema: Option<String>,
    /// The media type of a binary answer.
    pub media_type: Option<String>,
}

impl Operation {
    /// Whether `status` is one of the documented success statuses.
    pub fn allows(&self, status: u16) -> bool {
        self.status == status || self.also.contains(&status)
    }
}

#[derive(Debug)]
struct Schema {
    members: Vec<Member>,
    whole: Option<Code>,
}

#[derive(Debug)]
struct Member {
    name: String,
    required: bool,
    code: Code,
}

/// A member's type: a letter (`s i n b o a *`), a schema reference or alternatives (`|`),
/// nullability, enum, item.
#[derive(Debug)]
struct Code {
    ty: char,
    reference: Option<String>,
    nullable: bool,
    allowed: Option<Vec<String>>,
    item: Option<Box<Code>>,
    alternatives: Vec<Code>,
}

/// Splits `{a,b}…` into the alternatives' texts and what follows the closing brace.
fn split_alternatives(text: &str) -> (Vec<&str>, &str) {
    let (mut depth, mut start, mut parts) = (0usize, 1, Vec::new());
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => {
                parts.push(&text[start..at]);
                return (parts, &text[at + 1..]);
            }
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    (parts, "")
}

impl Code {
    fn parse(text: &str) -> Code {
        if text.starts_with('{') {
            let (parts, rest) = split_alternatives(text);
            return Code {
                ty: '|',
                reference: None,
                nullable: rest.starts_with('?'),
                allowed: None,
                item: None,
                alternatives: parts.into_iter().map(Code::parse).collect(),
            };
        }
        let (head, rest) = match text.find(['=', '[']) {
            Some(at) => text.split_at(at),
            None => (text, ""),
        };
        let nullable = head.ends_with('?');
        let head = head.trim_end_matches('?');
        let reference = head.strip_prefix('@').map(str::to_owned);
        let ty = if reference.is_some() {
            '@'
        } else {
            head.chars().next().unwrap_or('*')
        };
        Code {
            ty,
            reference,
            nullable,
            allowed: rest
                .strip_prefix('=')
                .map(|values| values.split('|').map(str::to_owned).collect()),
            item: rest
                .strip_prefix('[')
                .map(|item| Box::new(Code::parse(item))),
            alternatives: Vec::new(),
        }
    }
}

/// Where an answer left the contract: the member's path (array indexes folded to `[]`) and
/// the kind of break. Never a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deviation {
    /// `data[].status`.
    pub field: String,
    /// [`UNKNOWN_ENUM`], [`MISSING_REQUIRED`] or [`TYPE_MISMATCH`].
    pub kind: &'static str,
}

/// A string that is none of its enum's values.
pub const UNKNOWN_ENUM: &str = "unknown_enum_value";
/// A required member that is absent.
pub const MISSING_REQUIRED: &str = "missing_required_field";
/// A value of another JSON type (or a null where none is allowed).
pub const TYPE_MISMATCH: &str = "type_mismatch";

/// Most deviations one answer reports (the walk stops there).
pub const MAX_DEVIATIONS: usize = 20;

impl Contract {
    /// Parses the subset's lines (see the tests crate's `contract::subset`).
    pub fn parse(text: &str) -> Contract {
        let mut contract = Contract::default();
        for line in text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let mut words = line.split(' ');
            let first = words.next().unwrap_or_default();
            if first == ">" {
                let mut next = || words.next().unwrap_or_default().to_owned();
                let (id, method, path, status, answer) = (next(), next(), next(), next(), next());
                let media_type = answer.strip_prefix('=').map(str::to_owned);
                let mut statuses = status.split('|').filter_map(|s| s.parse().ok());
                contract.operations.push(Operation {
                    id,
                    method,
                    path,
                    status: statuses.next().unwrap_or(200),
                    also: statuses.collect(),
                    schema: media_type.is_none().then_some(answer),
                    media_type,
                });
                continue;
            }
            let name = first.trim_end_matches('+').to_owned();
            let mut schema = Schema {
                members: Vec::new(),
                whole: None,
            };
            for word in words {
                match word.split_once(':') {
                    Some((member, code)) => schema.members.push(Member {
                        name: member.trim_start_matches('~').to_owned(),
                        required: !member.starts_with('~'),
                        code: Code::parse(code),
                    }),
                    None => schema.whole = Some(Code::parse(word)),
                }
            }
            contract.schemas.insert(name, schema);
        }
        contract
    }

    /// The operation with this id.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.id == id)
    }

    /// The operation serving `method /v1/<segments>`: literal segments win over `{id}`.
    pub fn find(&self, method: &str, segments: &[&str]) -> Option<&Operation> {
        self.operations
            .iter()
            .filter(|op| op.method.eq_ignore_ascii_case(method))
            .filter_map(|op| {
                let template: Vec<&str> = op.path.trim_start_matches("/v1/").split('/').collect();
                if template.len() != segments.len() {
                    return None;
                }
                let mut literals = 0;
                for (t, s) in template.iter().zip(segments) {
                    if t.starts_with('{') {
                        continue;
                    }
                    if t != s {
                        return None;
                    }
                    literals += 1;
                }
                Some((literals, op))
            })
            .max_by_key(|(literals, _)| *literals)
            .map(|(_, op)| op)
    }

    /// Every member of every schema: its name, its type letter (`s i n b o a *`, or `@` for a
    /// schema reference) and its enum values, if any.
    pub fn members(&self) -> impl Iterator<Item = (&str, char, Option<&[String]>)> {
        self.schemas
            .values()
            .flat_map(|schema| schema.members.iter())
            .map(|m| (m.name.as_str(), m.code.ty, m.code.allowed.as_deref()))
    }

    /// Whether the answer of `method /v1/<segments>` is its body itself rather than Kobana's
    /// `{data, meta}` envelope: the operation's answer schema is not an object, or lists
    /// members and `data` is none of them (nine of the document's operations answer so). An
    /// answer schema the subset keeps no member of (an untyped optional `data` is left out)
    /// and an operation the contract lacks are enveloped.
    pub fn answers_bare(&self, method: &str, segments: &[&str]) -> bool {
        self.find(method, segments)
            .and_then(|op| op.schema.as_deref())
            .and_then(|name| self.schemas.get(name))
            .is_some_and(|schema| {
                schema.whole.is_some()
                    || (!schema.members.is_empty()
                        && !schema.members.iter().any(|m| m.name == "data"))
            })
    }

    /// Every place `answer` (a whole JSON answer, envelope included) leaves `schema`.
    pub fn check_answer(&self, schema: &str, answer: &Value) -> Vec<Deviation> {
        let mut out = Vec::new();
        self.named(schema, answer, "", &mut out);
        out
    }

    /// [`Contract::check_answer`] for an answer already unwrapped from its envelope: `data`
    /// and `meta` against the schema's members of those names.
    pub fn check_envelope(
        &self,
        schema: &str,
        data: &Value,
        meta: Option<&Value>,
    ) -> Vec<Deviation> {
        let mut out = Vec::new();
        let Some(schema) = self.schemas.get(schema) else {
            return out;
        };
        for member in &schema.members {
            match (member.name.as_str(), meta) {
                ("data", _) => self.value(&member.code, data, "data", &mut out),
                ("meta", Some(meta)) => self.value(&member.code, meta, "meta", &mut out),
                ("meta", None) if member.required => deviate(&mut out, "meta", MISSING_REQUIRED),
                _ => {}
            }
        }
        out
    }

    fn named(&self, name: &str, value: &Value, at: &str, out: &mut Vec<Deviation>) {
        let Some(schema) = self.schemas.get(name) else {
            return;
        };
        if let Some(whole) = &schema.whole {
            self.value(whole, value, at, out);
            return;
        }
        let Value::Object(map) = value else {
            if !value.is_null() {
                deviate(out, at, TYPE_MISMATCH);
            }
            return;
        };
        for member in &schema.members {
            let path = if at.is_empty() {
                member.name.clone()
            } else {
                format!("{at}.{}", member.name)
            };
            match map.get(&member.name) {
                Some(v) => self.value(&member.code, v, &path, out),
                None if member.required => deviate(out, &path, MISSING_REQUIRED),
                None => {}
            }
        }
    }

    fn value(&self, code: &Code, value: &Value, at: &str, out: &mut Vec<Deviation>) {
        if out.len() >= MAX_DEVIATIONS {
            return;
        }
        if value.is_null() {
            if !(code.nullable || code.ty == '*') {
                deviate(out, at, TYPE_MISMATCH);
            }
            return;
        }
        if let Some(name) = &code.reference {
            self.named(name, value, at, out);
            return;
        }
        if !code.alternatives.is_empty() {
            let fits = code.alternatives.iter().any(|alt| {
                let mut found = Vec::new();
                self.value(alt, value, at, &mut found);
                found.is_empty()
            });
            if !fits {
                deviate(out, at, TYPE_MISMATCH);
            }
            return;
        }
        let fits = match code.ty {
            's' => value.is_string(),
            'i' => value.is_i64() || value.is_u64(),
            'n' => value.is_number(),
            'b' => value.is_boolean(),
            'o' => value.is_object(),
            'a' => value.is_array(),
            _ => true,
        };
        if !fits {
            deviate(out, at, TYPE_MISMATCH);
            return;
        }
        if let Some(allowed) = &code.allowed {
            let text = value
                .as_str()
                .map_or_else(|| value.to_string(), str::to_owned);
            if !allowed.contains(&text) {
                deviate(out, at, UNKNOWN_ENUM);
            }
        }
        if let (Some(item), Value::Array(items)) = (&code.item, value) {
            let path = format!("{at}[]");
            items.iter().for_each(|v| self.value(item, v, &path, out));
        }
    }
}

/// Notes a deviation once per (path, kind).
fn deviate(out: &mut Vec<Deviation>, at: &str, kind: &'static str) {
    if out.len() < MAX_DEVIATIONS && !out.iter().any(|d| d.field == at && d.kind == kind) {
        out.push(Deviation {
            field: at.to_owned(),
            kind,
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A `PaymentV1` on the contract.
    pub(crate) fn payment() -> Value {
        let mut pay = json!({"id": "p", "public_id": "q", "amount_cents": 100,
            "currency": "BRL", "status": "succeeded", "created_at": "x", "updated_at": "x"});
        for nullable in "billing_account_id company_id custom_metadata external_id failure_code \
            failure_message gateway_id gateway_payment_id idempotency_key invoice_id metadata \
            paid_amount_cents paid_at payment_gateway payment_method_id payment_method_type"
            .split_whitespace()
        {
            pay[nullable] = Value::Null;
        }
        pay
    }

    /// WA-2: the nine operations whose documented answer has no `{data, meta}` envelope are
    /// read as their body; every other is unwrapped.
    #[test]
    fn wa2_an_answer_is_read_bare_only_where_the_contract_has_no_envelope() {
        let c = contract();
        assert!(c.answers_bare("GET", &["usage", "summary"]));
        assert!(c.answers_bare("PUT", &["plans", "p-1", "items"]));
        assert!(c.answers_bare("POST", &["withholdings", "w-1", "convert-to-credit"]));
        assert!(!c.answers_bare("GET", &["invoices", "i-1"]));
        assert!(!c.answers_bare("GET", &["invoices"]));
        assert!(!c.answers_bare("GET", &["nothing", "here"]));
        let bare = c
            .operations
            .iter()
            .filter(|op| {
                let segments: Vec<&str> = op.path.trim_start_matches("/v1/").split('/').collect();
                c.answers_bare(&op.method, &segments)
            })
            .count();
        assert_eq!(bare, 9, "the document's answers without an envelope");
    }

    #[test]
    fn every_operation_and_its_schema_are_embedded() {
        let c = contract();
        assert!(c.operations.len() >= 39, "{}", c.operations.len());
        for op in &c.operations {
            if let Some(schema) = &op.schema {
                assert!(c.schemas.contains_key(schema), "{}: {schema}", op.id);
            } else {
                assert!(op.media_type.is_some(), "{}", op.id);
            }
        }
        let get = c.find("GET", &["invoices", "pending-payment"]).unwrap();
        assert_eq!(get.id, "invoices.pending_payment");
        assert_eq!(
            c.find("GET", &["invoices", "x"]).unwrap().id,
            "invoices.get"
        );
        assert_eq!(c.find("DELETE", &["invoices", "x"]).unwrap().status, 200);
        assert!(c.find("GET", &["nothing"]).is_none());
    }

    /// The subset's size and how long one parse takes (printed with `--nocapture`; the
    /// server parses it once, on the first answer it checks).
    #[test]
    fn wa5_the_subset_carries_all_260_operations_and_parses_once() {
        let started = std::time::Instant::now();
        let parsed = Contract::parse(CONTRACT_TXT);
        let elapsed = started.elapsed();
        eprintln!(
            "contract.txt: {} bytes, {} operations, {} schemas, parsed in {elapsed:?}",
            CONTRACT_TXT.len(),
            parsed.operations.len(),
            parsed.schemas.len()
        );
        assert_eq!(parsed.operations.len(), 260);
        let usage = parsed.operation("post-usage").expect("post-usage");
        assert!(usage.allows(200) && usage.allows(207) && !usage.allows(201));
        let inline = parsed.operation("get-billing-accounts-id-credits").unwrap();
        assert_eq!(
            inline.schema.as_deref(),
            Some("get-billing-accounts-id-credits.answer")
        );
        assert!(
            parsed
                .schemas
                .contains_key("get-billing-accounts-id-credits.answer")
        );
    }

    /// An `anyOf` member (`{a,b}`) takes a value either alternative takes, and nothing else.
    #[test]
    fn wa5_any_of_takes_either_alternative() {
        let c =
            Contract::parse("> op POST /v1/x 200|207 R\nR results:{@B,a[@B} ~n:{s,i}?\nB ok:b\n");
        let ok = json!({"ok": true});
        for results in [ok.clone(), json!([ok.clone(), ok])] {
            let answer = json!({"results": results, "n": null});
            assert_eq!(c.check_answer("R", &answer), vec![]);
        }
        let found = c.check_answer("R", &json!({"results": "x", "n": 1.5}));
        let kinds: Vec<(&str, &str)> = found.iter().map(|d| (d.field.as_str(), d.kind)).collect();
        assert_eq!(
            kinds,
            vec![("results", TYPE_MISMATCH), ("n", TYPE_MISMATCH)]
        );
    }

    #[test]
    fn an_answer_off_the_contract_is_named_by_path_and_kind_only() {
        let c = contract();
        let mut pay = json!({ "data": payment() });
        assert_eq!(c.check_answer("PaymentResponse", &pay), vec![]);
        pay["data"]["status"] = json!("em_atraso");
        pay["data"]["amount_cents"] = json!("100");
        pay["data"].as_object_mut().unwrap().remove("created_at");
        let found = c.check_answer("PaymentResponse", &pay);
        let kinds: Vec<(&str, &str)> = found.iter().map(|d| (d.field.as_str(), d.kind)).collect();
        assert!(kinds.contains(&("data.status", UNKNOWN_ENUM)), "{kinds:?}");
        assert!(
            kinds.contains(&("data.amount_cents", TYPE_MISMATCH)),
            "{kinds:?}"
        );
        assert!(
            kinds.contains(&("data.created_at", MISSING_REQUIRED)),
            "{kinds:?}"
        );
        assert!(!format!("{found:?}").contains("em_atraso"));
        let mut odd = payment();
        odd["status"] = json!("nope");
        let list = json!({"data": [odd.clone(), odd], "meta": {"total": 2, "page": 1,
            "per_page": 20, "total_pages": 1}});
        let found = c.check_answer("PaymentListResponse", &list);
        assert_eq!(
            found.iter().filter(|d| d.field == "data[].status").count(),
            1,
            "{found:?}"
        );
    }
}
