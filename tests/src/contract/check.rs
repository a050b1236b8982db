//! The checks of requests, answers and values against the contract.

use std::collections::HashMap;
use std::sync::Mutex;

use regex_lite::Regex;

use super::text::{format_label, has_format};
use super::*;
use crate::ids;

/// Checks one request: operation, path parameters, query, body, `User-Agent`, `Content-Type`
/// (`application/json` on every request, bodyless ones too; the multipart operation's own
/// media type), `X-Idempotency-Key` and `Idempotency-Key` (a uuid, equal to the first when
/// both are sent).
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
    match op.body.as_ref().filter(|b| b.is_multipart()) {
        Some(body) => ck.multipart(body, req.content_type, req.body),
        None => ck.body(op, req.body),
    }
    ck.headers(req.user_agent, req.idempotency_key, req.idempotency_key_alt);
    ck.content_type(op, req.content_type);
    RequestVerdict {
        operation: Some(op),
        violations: ck.out,
    }
}

/// Checks a 2xx answer of `op`: the documented status, the content type, and for JSON
/// answers the body against the success schema.
pub fn check_answer(op: &Operation, answer: &Answer<'_>) -> Vec<String> {
    let mut ck = Checker::new(contract());
    if !op.success.allows(answer.status) {
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
    } else if op.success.is_json() {
        if !content_type.starts_with("application/json") {
            ck.push(format!(
                "answer: content-type {content_type:?}, the contract says application/json"
            ));
        } else {
            match serde_json::from_slice::<Value>(answer.body.unwrap_or_default()) {
                Ok(v) => match (&op.success.schema, &op.success.field) {
                    (Some(schema), _) => ck.named("answer", schema, &v),
                    (None, Some(field)) => ck.value("answer", field, &v),
                    (None, None) => {}
                },
                Err(_) => ck.push("answer: not valid JSON".to_string()),
            }
        }
    }
    ck.out
}

/// Checks a JSON value against a field of the contract; `at` names the value in the texts.
pub fn check_field(field: &Field, value: &Value, at: &str) -> Vec<String> {
    let mut ck = Checker::new(contract());
    ck.value(at, field, value);
    ck.out
}

/// Checks a JSON value against a named schema; `at` names the value in the texts.
pub fn check_schema(schema: &str, value: &Value, at: &str) -> Vec<String> {
    let mut ck = Checker::new(contract());
    ck.named(at, schema, value);
    ck.out
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

/// An object's members as the checker sees them: listed fields (merged across `allOf`),
/// required names, and what other keys may be.
struct Members<'f> {
    fields: Option<BTreeMap<&'f str, &'f Field>>,
    required: Vec<&'f str>,
    open: bool,
    extra: Option<&'f Field>,
}

impl<'f> Members<'f> {
    fn of(field: &'f Field) -> Self {
        Members {
            fields: field
                .fields
                .as_ref()
                .map(|fs| fs.iter().map(|(k, v)| (k.as_str(), v)).collect()),
            required: field.required.iter().map(String::as_str).collect(),
            open: field.is_open(),
            extra: field.additional_field(),
        }
    }

    /// Adds another part of an `allOf`: its fields and required names; open when any is.
    fn merge(&mut self, other: Members<'f>) {
        if let Some(theirs) = other.fields {
            self.fields.get_or_insert_with(BTreeMap::new).extend(theirs);
        }
        self.required.extend(other.required);
        self.open |= other.open;
        self.extra = self.extra.or(other.extra);
    }
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

    /// The field a `ref` names, or the field itself.
    fn resolved(&self, field: &'c Field) -> &'c Field {
        match field
            .schema
            .as_deref()
            .and_then(|n| self.contract.schema(n))
        {
            Some(named) => self.resolved(named),
            None => field,
        }
    }

    /// A JSON value against a field.
    fn value(&mut self, at: &str, field: &'c Field, v: &Value) {
        if v.is_null() && field.nullable {
            return;
        }
        if !field.any_of.is_empty() || !field.one_of.is_empty() {
            self.alternatives(at, field, v);
            return;
        }
        if !field.all_of.is_empty() {
            self.all_of(at, field, v);
            return;
        }
        if v.is_null() {
            let untyped = field.ty.is_none() && field.schema.is_none();
            if !(field.ty == Some(Type::Any) || untyped) {
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
        if let Some(constant) = &field.constant
            && constant != v
        {
            self.push(format!("{at}: {} is not {}", shown(v), shown(constant)));
        }
        match v {
            Value::String(s) => self.string(at, field, s),
            Value::Number(n) => self.number(at, field, n.as_f64().unwrap_or(0.0), v),
            Value::Array(items) => self.array(at, field, items),
            Value::Object(map) => self.object(at, Members::of(field), map),
            _ => {}
        }
    }

    /// `anyOf` (at least one alternative) and `oneOf` (exactly one).
    fn alternatives(&mut self, at: &str, field: &'c Field, v: &Value) {
        let (alternatives, exactly_one) = if field.one_of.is_empty() {
            (&field.any_of, false)
        } else {
            (&field.one_of, true)
        };
        let results: Vec<Vec<String>> = alternatives
            .iter()
            .map(|alt| {
                let mut sub = Checker::new(self.contract);
                sub.value(at, alt, v);
                sub.out
            })
            .collect();
        let passed = results.iter().filter(|r| r.is_empty()).count();
        if passed == 0 {
            let closest = results
                .iter()
                .min_by_key(|r| r.len())
                .and_then(|r| r.first())
                .cloned()
                .unwrap_or_default();
            self.push(format!(
                "{at}: matches none of its {} alternatives (closest: {closest})",
                results.len()
            ));
        } else if exactly_one && passed > 1 {
            self.push(format!(
                "{at}: matches {passed} of its oneOf alternatives, exactly one allowed"
            ));
        }
    }

    /// `allOf`: an object is checked once against the parts' members merged (each part
    /// alone would refuse the others' members); any other value against each part.
    fn all_of(&mut self, at: &str, field: &'c Field, v: &Value) {
        if v.is_null() {
            self.push(format!("{at}: null is not allowed"));
            return;
        }
        let Value::Object(map) = v else {
            for part in &field.all_of {
                self.value(at, part, v);
            }
            return;
        };
        let mut members = Members::of(field);
        for part in &field.all_of {
            members.merge(Members::of(self.resolved(part)));
        }
        self.object(at, members, map);
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
        if let Some(pattern) = &field.pattern
            && !matches_pattern(pattern, s)
        {
            self.push(format!("{at}: {s:?} does not match {pattern}"));
        }
    }

    fn number(&mut self, at: &str, field: &Field, x: f64, v: &Value) {
        if let Some(min) = field.minimum
            && x < min
        {
            self.push(format!("{at}: {v} is less than the minimum {min}"));
        }
        if let Some(min) = field.exclusive_minimum
            && x <= min
        {
            self.push(format!("{at}: {v} is not more than {min}"));
        }
        if let Some(max) = field.maximum
            && x > max
        {
            self.push(format!("{at}: {v} is more than the maximum {max}"));
        }
    }

    fn array(&mut self, at: &str, field: &'c Field, items: &[Value]) {
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

    fn object(&mut self, at: &str, members: Members<'c>, map: &serde_json::Map<String, Value>) {
        for name in &members.required {
            if !map.contains_key(*name) {
                self.push(format!("{at}.{name}: required field missing"));
            }
        }
        for (name, v) in map {
            let listed = members
                .fields
                .as_ref()
                .and_then(|fs| fs.get(name.as_str()).copied());
            match (listed, members.extra) {
                (Some(f), _) | (None, Some(f)) => self.value(&format!("{at}.{name}"), f, v),
                (None, None) if members.open || members.fields.is_none() => {}
                (None, None) => self.push(format!("{at}.{name}: unknown field")),
            }
        }
    }

    /// A text value (path, query or a multipart part) against a field: parsed by the
    /// field's type first.
    fn scalar(&mut self, at: &str, field: &'c Field, raw: &str) {
        if raw.is_empty() && field.nullable {
            return;
        }
        let field = self.resolved(field);
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

    fn query(&mut self, op: &'c Operation, raw: &str) {
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
        for name in &op.required_query {
            if !seen.contains(&name.as_str()) {
                self.push(format!("query.{name}: required parameter missing"));
            }
        }
    }

    /// The body's schema (named or inline).
    fn body_field(&self, body: &'c Body) -> Option<&'c Field> {
        match (&body.schema, &body.field) {
            (Some(name), _) => self.contract.schema(name),
            (None, field) => field.as_ref(),
        }
    }

    fn body(&mut self, op: &'c Operation, raw: &[u8]) {
        let empty = raw.iter().all(u8::is_ascii_whitespace);
        let Some(body) = &op.body else {
            if !empty {
                self.push("body: the operation takes no body".to_string());
            }
            return;
        };
        let name = body.name();
        if empty {
            self.push(format!("body: missing, expected a JSON object ({name})"));
            return;
        }
        match serde_json::from_slice::<Value>(raw) {
            Ok(v @ Value::Object(_)) => match self.body_field(body) {
                Some(field) => self.value("body", field, &v),
                None => self.push(format!("body: unknown schema {name}")),
            },
            Ok(other) => self.push(format!(
                "body: expected a JSON object ({name}), got {}",
                kind_of(&other)
            )),
            Err(_) => self.push("body: not valid JSON".to_string()),
        }
    }

    /// A `multipart/form-data` body: each part a member of the body's schema, a `binary`
    /// member a file part, every other one text read by its type.
    fn multipart(&mut self, body: &'c Body, content_type: Option<&str>, raw: &[u8]) {
        let Some(boundary) = content_type.and_then(multipart::boundary) else {
            self.push(format!(
                "body: expected {MULTIPART} with a boundary ({})",
                body.name()
            ));
            return;
        };
        let parts = match multipart::parts(raw, boundary) {
            Ok(parts) => parts,
            Err(why) => return self.push(format!("body: not a multipart body: {why}")),
        };
        let Some(schema) = self.body_field(body).map(|f| self.resolved(f)) else {
            return self.push(format!("body: unknown schema {}", body.name()));
        };
        let members = Members::of(schema);
        for name in &members.required {
            if !parts.iter().any(|p| p.name == *name) {
                self.push(format!("body.{name}: required field missing"));
            }
        }
        for part in &parts {
            let at = format!("body.{}", part.name);
            let listed = members
                .fields
                .as_ref()
                .and_then(|f| f.get(part.name.as_str()).copied());
            match listed {
                None if members.open => {}
                None => self.push(format!("{at}: unknown field")),
                Some(f) if f.format.as_deref() == Some("binary") => {
                    if !part.file {
                        self.push(format!("{at}: expected a file part"));
                    }
                }
                Some(f) => match std::str::from_utf8(part.content) {
                    Ok(text) => self.scalar(&at, f, text),
                    Err(_) => self.push(format!("{at}: not UTF-8 text")),
                },
            }
        }
    }

    fn headers(&mut self, user_agent: Option<&str>, key: Option<&str>, alt: Option<&str>) {
        match user_agent {
            None => self.push("header.User-Agent: missing".to_string()),
            Some(ua) if !has_contact_email(ua) => self.push(format!(
                "header.User-Agent: {ua:?} carries no contact e-mail"
            )),
            Some(_) => {}
        }
        for (name, value) in [("X-Idempotency-Key", key), ("Idempotency-Key", alt)] {
            if let Some(value) = value
                && !ids::is_uuid(value)
            {
                self.push(format!("header.{name}: {value:?} is not a uuid"));
            }
        }
        if let (Some(key), Some(alt)) = (key, alt)
            && key != alt
        {
            self.push("header.Idempotency-Key: differs from X-Idempotency-Key".to_string());
        }
    }

    /// `Content-Type`: the document asks `application/json` of every request, bodyless
    /// ones too; the multipart operation declares its own.
    fn content_type(&mut self, op: &Operation, sent: Option<&str>) {
        let want = op
            .body
            .as_ref()
            .and_then(|b| b.content_type.as_deref())
            .unwrap_or(JSON);
        match sent.map(media_type) {
            None => self.push(format!(
                "header.Content-Type: missing; the contract asks {want} of every request"
            )),
            Some(media) if media != want => self.push(format!(
                "header.Content-Type: {:?}, the contract says {want}",
                sent.unwrap_or_default()
            )),
            Some(_) => {}
        }
    }
}

/// The media type every request but the multipart one carries.
pub const JSON: &str = "application/json";

/// The media type of a `Content-Type` value, lower case, without parameters.
fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Whether `text` matches the contract's `pattern` (compiled once per pattern).
fn matches_pattern(pattern: &str, text: &str) -> bool {
    static COMPILED: LazyLock<Mutex<HashMap<String, Option<Regex>>>> =
        LazyLock::new(Mutex::default);
    let mut cache = COMPILED.lock().unwrap_or_else(|e| e.into_inner());
    cache
        .entry(pattern.to_owned())
        .or_insert_with(|| Regex::new(pattern).ok())
        .as_ref()
        .is_none_or(|re| re.is_match(text))
}
