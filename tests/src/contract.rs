//! Kobana's billing API v1 as a contract (`tests/contract/billing-v1.json`): the operations the
//! MCP server may call, their parameters and bodies, and the schemas of their answers.
//!
//! The fake checks every `/v1` request against it ([`check_request`]) and every successful
//! answer ([`check_answer`]); each deviation is one short English text naming the place, such
//! as `query.status: "paid" is not one of pending, processing, …` or
//! `body.line_items[0].description: unknown field`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{clock, ids};

/// The contract file, verbatim.
pub const CONTRACT_JSON: &str = include_str!("../contract/billing-v1.json");

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
}

/// One operation: method, path template and what it takes and answers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// Stable id, e.g. `invoices.get`.
    pub id: String,
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
    /// The JSON body schema, or `None` when the operation takes no body.
    pub body: Option<SchemaRef>,
    /// The successful answer.
    pub success: Success,
    /// Remarks from the document.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// A reference to a named schema.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchemaRef {
    /// The schema name (a key of [`Contract::schemas`]).
    #[serde(rename = "ref")]
    pub schema: String,
}

/// The documented successful answer of an operation.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Success {
    /// HTTP status.
    pub status: u16,
    /// JSON answer schema name.
    #[serde(default)]
    pub schema: Option<String>,
    /// A binary answer, described as `content-type <media type>`.
    #[serde(default)]
    pub binary: Option<String>,
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
    /// Smallest accepted number.
    #[serde(default)]
    pub minimum: Option<f64>,
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
    /// Money unit: `cents`, `subcents` or `reais`.
    #[serde(default)]
    pub unit: Option<String>,
    /// The document's description, in English.
    #[serde(rename = "desc_en", default)]
    pub desc: Option<String>,
    /// The fields of an object; absent means any keys.
    #[serde(default)]
    pub fields: Option<BTreeMap<String, Field>>,
    /// The fields an object must have.
    #[serde(default)]
    pub required: Vec<String>,
    /// Whether an object with `fields` accepts other keys too.
    #[serde(default)]
    pub additional: Option<bool>,
    /// The item of an array.
    #[serde(default)]
    pub items: Option<Box<Field>>,
    /// A named schema this field is (resolved in [`Contract::schemas`]).
    #[serde(rename = "ref", default)]
    pub schema: Option<String>,
}

/// The formats the checker knows.
pub const FORMATS: [&str; 4] = ["uuid", "date", "date-time", "email"];

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
    /// The operation with this id.
    pub fn operation(&self, id: &str) -> Option<&Operation> {
        self.operations.iter().find(|op| op.id == id)
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

/// Checks one request: operation, path parameters, query, body, `User-Agent` and
/// `X-Idempotency-Key`.
pub fn check_request(req: &Request<'_>) -> RequestVerdict {
    let c = contract();
    let Some((op, params)) = c.find(req.method, req.path) else {
        return RequestVerdict {
            operation: None,
            violations: vec![format!(
                "unknown operation {} {}",
                req.method.to_ascii_uppercase(),
                req.path
            )],
        };
    };
    let mut ck = Checker::new(c);
    for (name, raw) in params {
        match op.path_params.get(name) {
            Some(field) => ck.scalar(&format!("path.{name}"), field, &percent_decode_path(raw)),
            None => ck.push(format!("path.{name}: not declared by the operation")),
        }
    }
    ck.query(op, req.query.unwrap_or(""));
    ck.body(op, req.body);
    ck.headers(req.user_agent, req.idempotency_key);
    RequestVerdict {
        operation: Some(op),
        violations: ck.out,
    }
}

/// Checks a 2xx answer of `op`: the documented status, the content type, and for JSON
/// answers the body against the success schema.
pub fn check_answer(op: &Operation, answer: &Answer<'_>) -> Vec<String> {
    let mut ck = Checker::new(contract());
    if answer.status != op.success.status {
        ck.push(format!(
            "answer: status {}, the contract says {}",
            answer.status, op.success.status
        ));
    }
    let content_type = answer.content_type.unwrap_or("");
    if let Some(binary) = &op.success.binary {
        let media = binary.trim_start_matches("content-type").trim();
        if !content_type.starts_with(media) {
            ck.push(format!(
                "answer: content-type {content_type:?}, the contract says {media}"
            ));
        }
    } else if let Some(schema) = &op.success.schema {
        if !content_type.starts_with("application/json") {
            ck.push(format!(
                "answer: content-type {content_type:?}, the contract says application/json"
            ));
        } else {
            match serde_json::from_slice::<Value>(answer.body.unwrap_or_default()) {
                Ok(v) => ck.named("answer", schema, &v),
                Err(_) => ck.push("answer: not valid JSON".to_string()),
            }
        }
    }
    ck.out
}

/// Checks a JSON value against a named schema; `at` names the value in the texts.
pub fn check_schema(schema: &str, value: &Value, at: &str) -> Vec<String> {
    let mut ck = Checker::new(contract());
    ck.named(at, schema, value);
    ck.out
}

/// Whether a `User-Agent` carries a contact e-mail (`Name/1.0 <ops@example.com>`).
pub fn has_contact_email(user_agent: &str) -> bool {
    user_agent
        .split(|c: char| c.is_whitespace() || "<>()[],;\"'".contains(c))
        .any(is_email)
}

fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.split('.').count() >= 2
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
        })
}

/// Whether `value` has the named format (unknown formats pass).
pub fn has_format(format: &str, value: &str) -> bool {
    match format {
        "uuid" => ids::is_uuid(value),
        "date" => clock::parse_date(value).is_some(),
        "date-time" => clock::parse_datetime(value).is_some(),
        "email" => is_email(value),
        _ => true,
    }
}

fn format_label(format: &str) -> &str {
    match format {
        "uuid" => "a uuid",
        "date" => "a date (YYYY-MM-DD)",
        "date-time" => "a date-time (RFC 3339)",
        "email" => "an e-mail",
        other => other,
    }
}

/// Decodes `%XX` escapes and `+` (form encoding, query strings) into text; bad escapes stay
/// as they are.
pub fn percent_decode(s: &str) -> String {
    decode(s, true)
}

/// Decodes `%XX` escapes of a path segment (`+` stays `+`).
pub fn percent_decode_path(s: &str) -> String {
    decode(s, false)
}

fn decode(s: &str, plus_is_space: bool) -> String {
    let hex = |c: u8| char::from(c).to_digit(16);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'+', _, _) if plus_is_space => out.push(b' '),
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 2;
            }
            (x, _, _) => out.push(x),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits a raw query string into decoded `(name, value)` pairs.
pub fn query_pairs(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        other => {
            let text = other.to_string();
            if text.chars().count() > 40 {
                format!("{}…", text.chars().take(40).collect::<String>())
            } else {
                text
            }
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn one_of(allowed: &[Value]) -> String {
    allowed
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Collects deviations while walking a value and its schema.
struct Checker<'c> {
    contract: &'c Contract,
    out: Vec<String>,
}

impl<'c> Checker<'c> {
    fn new(contract: &'c Contract) -> Self {
        Checker {
            contract,
            out: Vec::new(),
        }
    }

    fn push(&mut self, text: String) {
        self.out.push(text);
    }

    fn named(&mut self, at: &str, schema: &str, v: &Value) {
        match self.contract.schema(schema) {
            Some(field) => self.value(at, field, v),
            None => self.push(format!("{at}: unknown schema {schema}")),
        }
    }

    /// A JSON value against a field.
    fn value(&mut self, at: &str, field: &Field, v: &Value) {
        if v.is_null() {
            let nullable = field.nullable
                || field.ty == Some(Type::Any)
                || (field.ty.is_none() && field.schema.is_none());
            if !nullable {
                self.push(format!("{at}: null is not allowed"));
            }
            return;
        }
        if let Some(name) = &field.schema {
            self.named(at, name, v);
            return;
        }
        let Some(ty) = field.ty.filter(|t| *t != Type::Any) else {
            return;
        };
        let fits = match ty {
            Type::String => v.is_string(),
            Type::Integer => v.is_i64() || v.is_u64(),
            Type::Number => v.is_number(),
            Type::Boolean => v.is_boolean(),
            Type::Object => v.is_object(),
            Type::Array => v.is_array(),
            Type::Any => true,
        };
        if !fits {
            self.push(format!(
                "{at}: expected {}, got {} {}",
                ty.name(),
                kind_of(v),
                shown(v)
            ));
            return;
        }
        if let Some(allowed) = &field.allowed
            && !allowed.contains(v)
        {
            self.push(format!(
                "{at}: {} is not one of {}",
                shown(v),
                one_of(allowed)
            ));
        }
        match v {
            Value::String(s) => self.string(at, field, s),
            Value::Number(n) => self.number(at, field, n.as_f64().unwrap_or(0.0), v),
            Value::Array(items) => self.array(at, field, items),
            Value::Object(map) => self.object(at, field, map),
            _ => {}
        }
    }

    fn string(&mut self, at: &str, field: &Field, s: &str) {
        let len = s.chars().count();
        if let Some(min) = field.min_length
            && len < min
        {
            self.push(format!("{at}: {s:?} is shorter than {min} characters"));
        }
        if let Some(max) = field.max_length
            && len > max
        {
            self.push(format!("{at}: {len} characters, longer than {max}"));
        }
        if let Some(format) = &field.format
            && !has_format(format, s)
        {
            self.push(format!("{at}: {s:?} is not {}", format_label(format)));
        }
    }

    fn number(&mut self, at: &str, field: &Field, x: f64, v: &Value) {
        if let Some(min) = field.minimum
            && x < min
        {
            self.push(format!("{at}: {v} is less than the minimum {min}"));
        }
        if let Some(max) = field.maximum
            && x > max
        {
            self.push(format!("{at}: {v} is more than the maximum {max}"));
        }
    }

    fn array(&mut self, at: &str, field: &Field, items: &[Value]) {
        if let Some(min) = field.min_items
            && items.len() < min
        {
            self.push(format!(
                "{at}: {} items, at least {min} required",
                items.len()
            ));
        }
        if let Some(max) = field.max_items
            && items.len() > max
        {
            self.push(format!(
                "{at}: {} items, at most {max} allowed",
                items.len()
            ));
        }
        if let Some(item) = &field.items {
            for (n, v) in items.iter().enumerate() {
                self.value(&format!("{at}[{n}]"), item, v);
            }
        }
    }

    fn object(&mut self, at: &str, field: &Field, map: &serde_json::Map<String, Value>) {
        for name in &field.required {
            if !map.contains_key(name) {
                self.push(format!("{at}.{name}: required field missing"));
            }
        }
        let Some(fields) = &field.fields else {
            return;
        };
        let open = field.additional == Some(true);
        for (name, v) in map {
            match fields.get(name) {
                Some(f) => self.value(&format!("{at}.{name}"), f, v),
                None if open => {}
                None => self.push(format!("{at}.{name}: unknown field")),
            }
        }
    }

    /// A text value (path or query) against a field: parsed by the field's type first.
    fn scalar(&mut self, at: &str, field: &Field, raw: &str) {
        if raw.is_empty() && field.nullable {
            return;
        }
        let parsed = match field.ty {
            Some(Type::Integer) => raw.parse::<i64>().ok().map(Value::from),
            Some(Type::Number) => raw
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number),
            Some(Type::Boolean) => match raw {
                "true" => Some(Value::Bool(true)),
                "false" => Some(Value::Bool(false)),
                _ => None,
            },
            _ => Some(Value::String(raw.to_string())),
        };
        match parsed {
            Some(v) => self.value(at, field, &v),
            None => self.push(format!(
                "{at}: {raw:?} is not {}",
                match field.ty {
                    Some(Type::Integer) => "an integer",
                    Some(Type::Number) => "a number",
                    _ => "a boolean",
                }
            )),
        }
    }

    fn query(&mut self, op: &Operation, raw: &str) {
        let pairs = query_pairs(raw);
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in &pairs {
            if seen.contains(&name.as_str()) {
                continue;
            }
            seen.push(name);
            let Some(field) = op.query.get(name) else {
                self.push(format!("query.{name}: unknown parameter"));
                continue;
            };
            if pairs.iter().filter(|(n, _)| n == name).count() > 1 {
                self.push(format!("query.{name}: repeated parameter"));
                continue;
            }
            self.scalar(&format!("query.{name}"), field, value);
        }
    }

    fn body(&mut self, op: &Operation, raw: &[u8]) {
        let empty = raw.iter().all(u8::is_ascii_whitespace);
        let Some(body) = &op.body else {
            if !empty {
                self.push("body: the operation takes no body".to_string());
            }
            return;
        };
        if empty {
            self.push(format!(
                "body: missing, expected a JSON object ({})",
                body.schema
            ));
            return;
        }
        match serde_json::from_slice::<Value>(raw) {
            Ok(v @ Value::Object(_)) => self.named("body", &body.schema, &v),
            Ok(other) => self.push(format!(
                "body: expected a JSON object ({}), got {}",
                body.schema,
                kind_of(&other)
            )),
            Err(_) => self.push("body: not valid JSON".to_string()),
        }
    }

    fn headers(&mut self, user_agent: Option<&str>, idempotency_key: Option<&str>) {
        match user_agent {
            None => self.push("header.User-Agent: missing".to_string()),
            Some(ua) if !has_contact_email(ua) => self.push(format!(
                "header.User-Agent: {ua:?} carries no contact e-mail"
            )),
            Some(_) => {}
        }
        if let Some(key) = idempotency_key
            && !ids::is_uuid(key)
        {
            self.push(format!("header.X-Idempotency-Key: {key:?} is not a uuid"));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const UA: &str = "Kobana MCP Tests/0.1 <ops@example.com.br>";

    fn req<'a>(
        method: &'a str,
        path: &'a str,
        query: Option<&'a str>,
        body: &'a [u8],
    ) -> Request<'a> {
        Request {
            method,
            path,
            query,
            user_agent: Some(UA),
            idempotency_key: None,
            body,
        }
    }

    #[test]
    fn every_ref_resolves_and_every_format_is_known() {
        fn walk(c: &Contract, at: &str, f: &Field, bad: &mut Vec<String>) {
            if let Some(r) = &f.schema
                && c.schema(r).is_none()
            {
                bad.push(format!("{at}: ref {r}"));
            }
            if let Some(fmt) = &f.format
                && !FORMATS.contains(&fmt.as_str())
            {
                bad.push(format!("{at}: format {fmt}"));
            }
            for r in &f.required {
                if f.fields.as_ref().is_some_and(|fs| !fs.contains_key(r)) {
                    bad.push(format!("{at}: required {r} not among fields"));
                }
            }
            for (n, sub) in f.fields.iter().flatten() {
                walk(c, &format!("{at}.{n}"), sub, bad);
            }
            if let Some(item) = &f.items {
                walk(c, &format!("{at}[]"), item, bad);
            }
        }
        let c = contract();
        let mut bad = Vec::new();
        for (name, f) in &c.schemas {
            walk(c, name, f, &mut bad);
        }
        for op in &c.operations {
            for (n, f) in op.query.iter().chain(&op.path_params) {
                walk(c, &format!("{}.{n}", op.id), f, &mut bad);
            }
            for name in op.body.iter().map(|b| &b.schema).chain(&op.success.schema) {
                if c.schema(name).is_none() {
                    bad.push(format!("{}: schema {name}", op.id));
                }
            }
            let declared: Vec<&str> = op
                .path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            let params: Vec<&str> = op.path_params.keys().map(String::as_str).collect();
            if declared != params {
                bad.push(format!("{}: path params {declared:?} vs {params:?}", op.id));
            }
        }
        assert!(bad.is_empty(), "{bad:#?}");
        assert_eq!(c.operations.len(), 39);
    }

    #[test]
    fn literal_segments_win_over_parameters() {
        let c = contract();
        let (op, params) = c.find("GET", "/v1/invoices/pending-payment").unwrap();
        assert_eq!(op.id, "invoices.pending_payment");
        assert!(params.is_empty());
        let (op, params) = c.find("get", "/v1/invoices/abc").unwrap();
        assert_eq!(op.id, "invoices.get");
        assert_eq!(params, vec![("id", "abc")]);
        assert_eq!(
            c.find("GET", "/v1/plans/x/items").unwrap().0.id,
            "plans.items"
        );
        assert!(c.find("GET", "/v1/invoices/").is_none());
        assert!(c.find("PATCH", "/v1/invoices/abc").is_none());
    }

    #[test]
    fn request_checks_name_the_place() {
        let id = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
        let cases: Vec<(Request<'_>, &str)> = vec![
            (req("GET", "/v1/foo", None, b""), "unknown operation GET /v1/foo"),
            (req("GET", "/v1/invoices/x", None, b""), "path.id: \"x\" is not a uuid"),
            (req("GET", "/v1/invoices", Some("include=line_items"), b""), "query.include: unknown parameter"),
            (req("GET", "/v1/invoices", Some("page=abc"), b""), "query.page: \"abc\" is not an integer"),
            (req("GET", "/v1/invoices", Some("per_page=101"), b""), "query.per_page: 101 is more than the maximum 100"),
            (req("GET", "/v1/invoices", Some("page=0"), b""), "query.page: 0 is less than the minimum 1"),
            (req("GET", "/v1/invoices", Some("status=overdue"), b""), "query.status: \"overdue\" is not one of draft, open, paid, void, uncollectible"),
            (req("GET", "/v1/invoices", Some("status=open&status=paid"), b""), "query.status: repeated parameter"),
            (req("GET", "/v1/payments", Some("created_after=2026-13-01"), b""), "query.created_after: \"2026-13-01\" is not a date (YYYY-MM-DD)"),
            (req("GET", "/v1/payments", Some("amount_min=abc"), b""), "query.amount_min: \"abc\" is not a number"),
            (req("GET", "/v1/payments", Some("invoice_id=1"), b""), "query.invoice_id: \"1\" is not a uuid"),
            (req("POST", "/v1/subscriptions/43b7a3a6-9a8d-4a03-980d-7b71d8f56413/resume", None, b"{}"), "body: the operation takes no body"),
            (req("POST", "/v1/customers", None, b""), "body: missing, expected a JSON object (CustomerCreateRequest)"),
            (req("POST", "/v1/customers", None, b"[1]"), "body: expected a JSON object (CustomerCreateRequest), got array"),
            (req("POST", "/v1/customers", None, b"{x"), "body: not valid JSON"),
            (req("POST", "/v1/customers", None, br#"{"name":"A","x":1}"#), "body.x: unknown field"),
            (req("POST", "/v1/customers", None, br#"{}"#), "body.name: required field missing"),
            (req("POST", "/v1/customers", None, br#"{"name":1}"#), "body.name: expected string, got integer 1"),
            (req("POST", "/v1/customers", None, br#"{"name":null}"#), "body.name: null is not allowed"),
            (req("POST", "/v1/customers", None, br#"{"name":"A","kind":"company"}"#), "body.kind: \"company\" is not one of natural, juridical"),
            (req("POST", "/v1/customers", None, br#"{"name":"A","phones":[{"kind":"x"}]}"#), "body.phones[0].value: required field missing"),
            (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[]}"#), "body.line_items: 0 items, at least 1 required"),
            (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[{"description":"","unit_amount_subcents":1}]}"#), "body.line_items[0].description: \"\" is shorter than 1 characters"),
            (req("POST", "/v1/invoices", None, br#"{"billing_account_id":"6c307511-b2b9-437a-a8df-6ec4ce4a2bbd","line_items":[{"description":"a","unit_amount_subcents":1,"type":"x"}]}"#), "body.line_items[0].type: unknown field"),
        ];
        for (r, want) in cases {
            let v = check_request(&r);
            assert_eq!(
                v.violations.first().map(String::as_str),
                Some(want),
                "{r:?}: {:?}",
                v.violations
            );
        }
        let ok = check_request(&req("GET", &format!("/v1/invoices/{id}"), None, b""));
        assert_eq!(ok.operation.unwrap().id, "invoices.get");
        assert!(ok.violations.is_empty(), "{:?}", ok.violations);
        let mut no_contact = req("GET", "/v1/organization", None, b"");
        no_contact.user_agent = Some("curl/8.0");
        assert_eq!(
            check_request(&no_contact).violations,
            vec!["header.User-Agent: \"curl/8.0\" carries no contact e-mail"]
        );
    }

    #[test]
    fn answers_are_checked_against_the_success_schema() {
        let op = contract().operation("payments.get").unwrap();
        let body = json!({"data": {"id": "x", "status": "paid", "refunded_at": null}}).to_string();
        let found = check_answer(
            op,
            &Answer {
                status: 200,
                content_type: Some("application/json"),
                body: Some(body.as_bytes()),
            },
        );
        for want in [
            "answer.data.id: \"x\" is not a uuid",
            "answer.data.status: \"paid\" is not one of pending, processing, succeeded, failed, canceled, partial, refunded, partially_refunded",
            "answer.data.refunded_at: unknown field",
            "answer.data.amount_cents: required field missing",
        ] {
            assert!(found.iter().any(|f| f == want), "{want} not in {found:#?}");
        }
        let pdf = contract().operation("invoices.pdf").unwrap();
        let wrong = Answer {
            status: 201,
            content_type: Some("application/json"),
            body: None,
        };
        assert_eq!(check_answer(pdf, &wrong).len(), 2);
    }

    #[test]
    fn decoding_and_contacts() {
        assert_eq!(percent_decode("a%20b+c%"), "a b c%");
        assert_eq!(percent_decode_path("crm+1%2F2"), "crm+1/2");
        assert_eq!(percent_decode("%C3%A9%zz"), "é%zz");
        assert_eq!(
            query_pairs("a=1&&b&c=x%3Dy"),
            vec![
                ("a".into(), "1".into()),
                ("b".into(), "".into()),
                ("c".into(), "x=y".into())
            ]
        );
        assert!(has_contact_email(
            "Kobana MCP Server/0.1.0 <ops@example.com>"
        ));
        assert!(has_contact_email("bot (mailto:ops@acme.com.br)"));
        assert!(!has_contact_email(
            "Kobana MCP Server/0.1.0 <ops@localhost>"
        ));
        assert!(!has_contact_email("curl/8"));
        assert_eq!(
            violation_message(&["a".into(), "b".into()]),
            "Requisição fora do contrato da API de cobrança: a (e mais 1 desvio(s))."
        );
    }
}
