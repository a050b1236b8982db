//! The checks of requests, answers and values against the contract.

use super::text::{format_label, has_format};
use super::*;
use crate::ids;

/// Checks one request: operation, path parameters, query, body, `User-Agent`,
/// `X-Idempotency-Key` and `Idempotency-Key` (a uuid, equal to the first when both are sent).
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
    ck.headers(req.user_agent, req.idempotency_key, req.idempotency_key_alt);
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
}
