//! Kobana's billing API v1 as a contract (`tests/contract/billing-v1.json`): the operations the
//! MCP server may call, their parameters and bodies, and the schemas of their answers.
//!
//! The fake checks every `/v1` request against it ([`check_request`]) and every successful
//! answer ([`check_answer`]); each deviation is one short English text naming the place, such
//! as `query.status: "paid" is not one of pending, processing, …` or
//! `body.line_items[0].description: unknown field`.
//!
//! The types and the loading are here; the checks are in [`check`], the text helpers (formats,
//! percent-decoding, query strings) in [`text`].

mod check;
pub mod multipart;
pub mod operations;
pub mod subset;
#[cfg(test)]
mod tests;
mod text;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use check::{JSON, check_answer, check_field, check_request, check_schema};
pub use text::{has_contact_email, has_format, percent_decode, percent_decode_path, query_pairs};
/// The contract file, verbatim.
pub const CONTRACT_JSON: &str = include_str!("../../contract/billing-v1.json");

static CONTRACT: LazyLock<Contract> = LazyLock::new(|| {
    serde_json::from_str(CONTRACT_JSON).expect("tests/contract/billing-v1.json is a valid contract")
});

/// The parsed contract (loaded once per process).
pub fn contract() -> &'static Contract {
    &CONTRACT
}

/// The whole contract file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contract {
    /// What the file is.
    #[serde(default)]
    pub about: String,
    /// Where the facts were transcribed from.
    #[serde(default)]
    pub source: Value,
    /// Rules shared by every operation (headers, error envelope).
    #[serde(default)]
    pub common: Value,
    /// Every operation the server may call.
    pub operations: Vec<Operation>,
    /// Named schemas, referenced by `ref`.
    pub schemas: BTreeMap<String, Field>,
    /// Readings of unclear passages and the one chosen (binding for the fake).
    #[serde(default)]
    pub ambiguities: Vec<Value>,
    /// The open points: what Kobana's material leaves open, each alternative with its source,
    /// the one followed, and which one each profile of the fake plays ([`crate::readings`]).
    #[serde(default)]
    pub readings: Vec<Reading>,
}

/// One open point of Kobana's material.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reading {
    /// Stable id, e.g. `invoice_totals_unit` (the fake's profile names it).
    pub id: String,
    /// Its row in the table of open points behind RK-1, when it is one of them.
    #[serde(default)]
    pub row: Option<u8>,
    /// What is open.
    pub point: String,
    /// Every reading found, each with where it is written.
    pub alternatives: Vec<Alternative>,
    /// The alternative the server follows (`both`: it handles each; `none`: it relies on
    /// neither).
    pub follow: String,
    /// Why.
    pub why: String,
    /// How the server is right under every alternative.
    pub server: String,
    /// Whether `kobana-mcp check` settles it against a real account (`read-only: …`), or how
    /// an operator settles it and what the server does meanwhile (`not read-only …`).
    pub check: String,
    /// The alternative each profile of the fake plays; `None` when the fake cannot play it.
    #[serde(default)]
    pub fake: Option<FakePlay>,
}

/// One alternative reading of an open point.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Alternative {
    /// Stable id within the point, e.g. `cents`.
    pub id: String,
    /// What it says.
    pub reading: String,
    /// Where it is written.
    pub source: String,
}

/// The alternatives the fake's two profiles play.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FakePlay {
    /// The default profile's alternative.
    pub ours: String,
    /// The `others` profile's alternative.
    pub others: String,
}

/// One operation: method, path template and what it takes and answers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// Stable id: ours for the first 39 (`invoices.get`), Kobana's `operationId` for the rest.
    pub id: String,
    /// Kobana's `operationId` (`get-invoices-id`).
    pub operation_id: String,
    /// HTTP method, upper case.
    pub method: String,
    /// Path template, parameters written `{id}`.
    pub path: String,
    /// Where in Kobana's document the operation is described.
    #[serde(default)]
    pub source: String,
    /// The path parameters.
    #[serde(default)]
    pub path_params: BTreeMap<String, Field>,
    /// The query parameters, by name.
    #[serde(default)]
    pub query: BTreeMap<String, Field>,
    /// The query parameters a request must carry.
    #[serde(default)]
    pub required_query: Vec<String>,
    /// The body, or `None` when the operation takes no body.
    pub body: Option<Body>,
    /// The successful answer.
    pub success: Success,
    /// Remarks from the document.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// The body an operation takes: a named schema or an inline one, JSON unless the operation
/// declares another media type (`multipart/form-data`: one part per member, files as parts
/// with a file name).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// The schema name (a key of [`Contract::schemas`]).
    #[serde(rename = "ref", default)]
    pub schema: Option<String>,
    /// An inline schema.
    #[serde(default)]
    pub field: Option<Field>,
    /// The media type when it is not `application/json`.
    #[serde(default)]
    pub content_type: Option<String>,
}

impl Body {
    /// The body's schema name, or `inline` for an inline one (in the checker's texts).
    pub fn name(&self) -> &str {
        self.schema.as_deref().unwrap_or("inline")
    }

    /// Whether the body is `multipart/form-data`.
    pub fn is_multipart(&self) -> bool {
        self.content_type.as_deref() == Some(MULTIPART)
    }
}

/// The media type of a multipart body.
pub const MULTIPART: &str = "multipart/form-data";

/// The documented successful answer of an operation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Success {
    /// HTTP status (the lowest 2xx the document declares).
    pub status: u16,
    /// Other 2xx statuses it declares with the same schema (`207` of the usage batches).
    #[serde(default)]
    pub also: Vec<u16>,
    /// JSON answer schema name.
    #[serde(default)]
    pub schema: Option<String>,
    /// An inline JSON answer schema.
    #[serde(default)]
    pub field: Option<Field>,
    /// A binary answer, described as `content-type <media type>`.
    #[serde(default)]
    pub binary: Option<String>,
}

impl Success {
    /// Whether `status` is one the document declares for success.
    pub fn allows(&self, status: u16) -> bool {
        self.status == status || self.also.contains(&status)
    }

    /// Whether the answer is JSON (a named or inline schema).
    pub fn is_json(&self) -> bool {
        self.schema.is_some() || self.field.is_some()
    }
}

/// The JSON type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Type {
    /// A JSON string.
    String,
    /// A JSON number without a fraction.
    Integer,
    /// Any JSON number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// A JSON object.
    Object,
    /// A JSON array.
    Array,
    /// Anything, `null` included.
    Any,
}

impl Type {
    fn name(self) -> &'static str {
        match self {
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
            Type::Object => "object",
            Type::Array => "array",
            Type::Any => "any",
        }
    }
}

/// A field (or a whole schema): its type and constraints.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Field {
    /// The JSON type; absent on a pure `ref`.
    #[serde(rename = "type", default)]
    pub ty: Option<Type>,
    /// Whether `null` is accepted.
    #[serde(default)]
    pub nullable: bool,
    /// `uuid`, `date` (YYYY-MM-DD), `date-time` (RFC 3339) or `email`.
    #[serde(default)]
    pub format: Option<String>,
    /// The accepted values.
    #[serde(rename = "enum", default)]
    pub allowed: Option<Vec<Value>>,
    /// The one accepted value.
    #[serde(rename = "const", default)]
    pub constant: Option<Value>,
    /// A regular expression a string must match (anchored as written).
    #[serde(default)]
    pub pattern: Option<String>,
    /// Smallest accepted number.
    #[serde(default)]
    pub minimum: Option<f64>,
    /// A number must be greater than this.
    #[serde(default)]
    pub exclusive_minimum: Option<f64>,
    /// Largest accepted number.
    #[serde(default)]
    pub maximum: Option<f64>,
    /// Fewest characters of a string.
    #[serde(default)]
    pub min_length: Option<usize>,
    /// Most characters of a string.
    #[serde(default)]
    pub max_length: Option<usize>,
    /// Fewest items of an array.
    #[serde(default)]
    pub min_items: Option<usize>,
    /// Most items of an array.
    #[serde(default)]
    pub max_items: Option<usize>,
    /// The documented default (not applied by the checker).
    #[serde(default)]
    pub default: Option<Value>,
    /// Money unit: `cents`, `subcents`, `reais` or `percent`; `a|b` when the description
    /// makes it depend on another field (`percent|cents`).
    #[serde(default)]
    pub unit: Option<String>,
    /// The field's name suffix and its description disagree on the unit (`unit` keeps the
    /// reading chosen; the rows decide how to show it).
    #[serde(rename = "unit_conflict", default)]
    pub unit_conflict: bool,
    /// The document's description, in English.
    #[serde(rename = "desc_en", default)]
    pub desc: Option<String>,
    /// The fields of an object; absent means any keys.
    #[serde(default)]
    pub fields: Option<BTreeMap<String, Field>>,
    /// The fields an object must have.
    #[serde(default)]
    pub required: Vec<String>,
    /// Whether an object with `fields` accepts other keys too (`true`), or the field every
    /// other key's value must be.
    #[serde(default)]
    pub additional: Option<Additional>,
    /// The item of an array.
    #[serde(default)]
    pub items: Option<Box<Field>>,
    /// A named schema this field is (resolved in [`Contract::schemas`]).
    #[serde(rename = "ref", default)]
    pub schema: Option<String>,
    /// The value is each of these (their object members merged).
    #[serde(default)]
    pub all_of: Vec<Field>,
    /// The value is at least one of these.
    #[serde(default)]
    pub any_of: Vec<Field>,
    /// The value is exactly one of these.
    #[serde(default)]
    pub one_of: Vec<Field>,
}

/// What an object takes besides its `fields`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Additional {
    /// `true`: any other key, any value; `false`: no other key.
    Any(bool),
    /// Any other key, its value this field.
    Field(Box<Field>),
}

impl Field {
    /// Whether an object with `fields` takes keys it does not list.
    pub fn is_open(&self) -> bool {
        !matches!(self.additional, None | Some(Additional::Any(false)))
    }

    /// The field other keys' values must be, when `additional` names one.
    pub fn additional_field(&self) -> Option<&Field> {
        match &self.additional {
            Some(Additional::Field(f)) => Some(f),
            _ => None,
        }
    }
}

/// The formats the checker knows (`binary`: a file part of a multipart body).
pub const FORMATS: [&str; 6] = ["uuid", "date", "date-time", "email", "uri", "binary"];

/// What the check of one request found.
#[derive(Debug)]
pub struct RequestVerdict {
    /// The matched operation (`None`: no operation has this method and path).
    pub operation: Option<&'static Operation>,
    /// Every deviation, in order (empty: on the contract).
    pub violations: Vec<String>,
}

/// One `/v1` request as the checker sees it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Request<'a> {
    /// HTTP method.
    pub method: &'a str,
    /// Path without the query string (percent-encoded as received).
    pub path: &'a str,
    /// Raw query string, if any.
    pub query: Option<&'a str>,
    /// `User-Agent`, if sent.
    pub user_agent: Option<&'a str>,
    /// `X-Idempotency-Key`, if sent.
    pub idempotency_key: Option<&'a str>,
    /// `Idempotency-Key` (the name www.kobana.com.br uses), if sent.
    pub idempotency_key_alt: Option<&'a str>,
    /// `Content-Type`, if sent.
    pub content_type: Option<&'a str>,
    /// The raw body.
    pub body: &'a [u8],
}

/// What the check of one answer needs.
#[derive(Clone, Copy, Debug)]
pub struct Answer<'a> {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`, if sent.
    pub content_type: Option<&'a str>,
    /// The body, for JSON answers (`None` for binary ones, which are not read).
    pub body: Option<&'a [u8]>,
}

impl Contract {
    /// The operation with this id (ours or Kobana's `operationId`).
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations
            .iter()
            .find(|op| op.id == id || op.operation_id == id)
    }

    /// The operation serving `method path`, with its path parameters (raw, as in the path).
    /// Literal segments win over parameters: `/v1/invoices/pending-payment` is
    /// `invoices.pending_payment`, not `invoices.get`.
    pub fn find<'p>(
        &self,
        method: &str,
        path: &'p str,
    ) -> Option<(&Operation, Vec<(&str, &'p str)>)> {
        let segments: Vec<&str> = path.split('/').collect();
        self.operations
            .iter()
            .filter(|op| op.method.eq_ignore_ascii_case(method))
            .filter_map(|op| {
                let template: Vec<&str> = op.path.split('/').collect();
                if template.len() != segments.len() {
                    return None;
                }
                let mut params = Vec::new();
                let mut literals = 0;
                for (t, s) in template.iter().zip(&segments) {
                    match t.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
                        Some(name) if !s.is_empty() => params.push((name, *s)),
                        Some(_) => return None,
                        None if t == s => literals += 1,
                        None => return None,
                    }
                }
                Some((literals, op, params))
            })
            .max_by_key(|(literals, _, _)| *literals)
            .map(|(_, op, params)| (op, params))
    }

    /// The named schema.
    pub fn schema(&self, name: &str) -> Option<&Field> {
        self.schemas.get(name)
    }
}

/// The pt-BR message of a `contract_violation` error, naming the first deviation.
pub fn violation_message(violations: &[String]) -> String {
    let mut msg = String::from("Requisição fora do contrato da API de cobrança");
    if let Some(first) = violations.first() {
        let _ = write!(msg, ": {first}");
    }
    if violations.len() > 1 {
        let _ = write!(msg, " (e mais {} desvio(s))", violations.len() - 1);
    }
    msg.push('.');
    msg
}

/// Which side of the exchange left the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// The request (answered 400 `contract_violation`, no handler ran).
    Request,
    /// The fake's own answer (served as is, but recorded).
    Answer,
}

/// One request or answer off the contract.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// Request or answer.
    pub kind: ViolationKind,
    /// The matched operation id, `None` for an unknown operation.
    pub operation: Option<String>,
    /// HTTP method.
    pub method: String,
    /// Path (and query string, when there was one).
    pub path: String,
    /// The answer's status (answers only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Every deviation.
    pub problems: Vec<String>,
    /// The request's `User-Agent`.
    pub user_agent: Option<String>,
}
