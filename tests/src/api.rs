//! Envelopes, errors, query parameters, pagination and sorting shared by every route.

use std::cmp::Ordering;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

use crate::clock;

/// A stored record: a JSON object as Kobana serves it.
pub type Record = Map<String, Value>;

/// What every handler returns.
pub type ApiResult = Result<Response, ApiError>;

/// A Kobana billing error (`{"error":{"code","message","details"}}`).
#[derive(Clone, Debug)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable error code.
    pub code: &'static str,
    /// pt-BR message.
    pub message: String,
    /// Error-specific details, `null` when none.
    pub details: Value,
}

impl ApiError {
    /// Any error.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            details: Value::Null,
        }
    }

    /// 401 `invalid_token`.
    pub fn invalid_token(message: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "invalid_token", message)
    }

    /// 404 `not_found`.
    pub fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "Recurso não encontrado na organização atual.",
        )
    }

    /// 422 `invalid_state`.
    pub fn invalid_state(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_state", message)
    }

    /// `validation_error` with `details: {field: [msgs]}`.
    pub fn validation(status: StatusCode, details: Map<String, Value>) -> Self {
        let message = if status == StatusCode::BAD_REQUEST {
            "Parâmetros da requisição inválidos."
        } else {
            "Corpo da requisição falhou na validação."
        };
        ApiError {
            status,
            code: "validation_error",
            message: message.to_string(),
            details: Value::Object(details),
        }
    }

    /// `validation_error` for one field.
    pub fn field(status: StatusCode, field: &str, msg: impl Into<String>) -> Self {
        let mut m = Map::new();
        m.insert(field.to_string(), json!([msg.into()]));
        Self::validation(status, m)
    }

    /// The JSON envelope.
    pub fn body(&self) -> Value {
        json!({"error": {"code": self.code, "message": self.message, "details": self.details}})
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (self.status, axum::Json(self.body())).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            resp.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
        }
        resp
    }
}

/// Collects `{field: [msgs]}` validation errors.
#[derive(Default)]
pub struct Errors(Map<String, Value>);

impl Errors {
    /// Adds a message for a field.
    pub fn add(&mut self, field: &str, msg: &str) {
        let entry = self
            .0
            .entry(field.to_string())
            .or_insert_with(|| Value::Array(vec![]));
        if let Value::Array(a) = entry {
            a.push(Value::String(msg.to_string()));
        }
    }

    /// Whether a field already has an error.
    pub fn has(&self, field: &str) -> bool {
        self.0.contains_key(field)
    }

    /// `Ok` when empty, else a `validation_error` with this status.
    pub fn finish(self, status: StatusCode) -> Result<(), ApiError> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(status, self.0))
        }
    }
}

/// `200 {"data": …}`.
pub fn data(value: Value) -> Response {
    axum::Json(json!({ "data": value })).into_response()
}

/// `201 {"data": …}`.
pub fn created(value: Value) -> Response {
    (StatusCode::CREATED, axum::Json(json!({ "data": value }))).into_response()
}

/// `200 {"data":{"deleted":true}}`.
pub fn deleted() -> Response {
    data(json!({"deleted": true}))
}

/// Parses a JSON object body; an empty body is `{}`.
pub fn parse_body(bytes: &[u8]) -> Result<Record, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Record::new());
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(ApiError::field(
            StatusCode::BAD_REQUEST,
            "body",
            "deve ser um objeto JSON",
        )),
        Err(_) => Err(ApiError::field(
            StatusCode::BAD_REQUEST,
            "body",
            "JSON inválido",
        )),
    }
}

/// Query-string parameters (`a=1&b=2`; the contract refuses repeated and unknown keys before
/// a handler runs).
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Wraps decoded pairs.
    pub fn new(pairs: Vec<(String, String)>) -> Self {
        Params(pairs)
    }

    /// The first non-empty value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, v)| k == key && !v.trim().is_empty())
            .map(|(_, v)| v.trim())
    }
}

/// Validated pagination and sorting.
pub struct Page {
    /// 1-based page.
    pub page: usize,
    /// Items per page (1..=100).
    pub per_page: usize,
    /// Field to sort on.
    pub sort_by: String,
    /// Descending when true.
    pub desc: bool,
}

impl Page {
    /// Reads `page`, `per_page`, `sort_by` and `sort_order`; `sortable` is the resource's whitelist.
    pub fn from_params(p: &Params, sortable: &[&str], errors: &mut Errors) -> Page {
        let mut page = 1;
        if let Some(v) = p.get("page") {
            match v.parse::<usize>() {
                Ok(n) if n >= 1 => page = n,
                _ => errors.add("page", "deve ser um inteiro maior ou igual a 1"),
            }
        }
        let mut per_page = 20;
        if let Some(v) = p.get("per_page") {
            match v.parse::<usize>() {
                Ok(n) if (1..=100).contains(&n) => per_page = n,
                _ => errors.add("per_page", "deve ser um inteiro entre 1 e 100"),
            }
        }
        let mut sort_by = "created_at".to_string();
        if let Some(v) = p.get("sort_by") {
            if sortable.contains(&v) {
                sort_by = v.to_string();
            } else {
                errors.add(
                    "sort_by",
                    &format!("deve ser um de: {}", sortable.join(", ")),
                );
            }
        }
        let mut desc = true;
        if let Some(v) = p.get("sort_order") {
            match v {
                "asc" => desc = false,
                "desc" => desc = true,
                _ => errors.add("sort_order", "deve ser um de: asc, desc"),
            }
        }
        Page {
            page,
            per_page,
            sort_by,
            desc,
        }
    }
}

fn field_cmp(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x
            .as_f64()
            .unwrap_or(0.0)
            .partial_cmp(&y.as_f64().unwrap_or(0.0))
            .unwrap_or(Ordering::Equal),
        (Value::String(x), Value::String(y)) => {
            match (clock::parse_datetime(x), clock::parse_datetime(y)) {
                (Some(p), Some(q)) => p.cmp(&q),
                _ => x.cmp(y),
            }
        }
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => Ordering::Equal,
    }
}

/// Sorts (nulls always last, ties by id), paginates and wraps in `{"data","meta"}`.
pub fn list_response(mut items: Vec<Value>, page: &Page) -> Response {
    let key = page.sort_by.as_str();
    items.sort_by(|a, b| {
        let (x, y) = (&a[key], &b[key]);
        let primary = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ if page.desc => field_cmp(y, x),
            _ => field_cmp(x, y),
        };
        primary.then_with(|| field_cmp(&a["id"], &b["id"]))
    });
    let total = items.len();
    let start = (page.page - 1).saturating_mul(page.per_page).min(total);
    let end = (start + page.per_page).min(total);
    let data: Vec<Value> = items.drain(start..end).collect();
    axum::Json(json!({
        "data": data,
        "meta": {
            "total": total,
            "page": page.page,
            "per_page": page.per_page,
            "total_pages": total.div_ceil(page.per_page),
        }
    }))
    .into_response()
}

/// A string field of a record.
pub fn s<'a>(r: &'a Record, key: &str) -> Option<&'a str> {
    r.get(key).and_then(Value::as_str)
}

/// An integer field of a record (0 when absent).
pub fn i(r: &Record, key: &str) -> i64 {
    r.get(key).and_then(Value::as_i64).unwrap_or(0)
}

/// Only the digits of a string (CPF/CNPJ comparison).
pub fn digits_of(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// The São Paulo day of a date-time field, if set and parseable.
pub fn day_of(r: &Record, key: &str) -> Option<i64> {
    s(r, key)
        .and_then(clock::parse_date_or_datetime)
        .map(clock::local_day)
}

/// Case-insensitive substring test.
pub fn contains_ci(haystack: &str, needle_lower: &str) -> bool {
    haystack.to_lowercase().contains(needle_lower)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages() {
        let p = Params::new(vec![("per_page".into(), "101".into())]);
        let mut e = Errors::default();
        Page::from_params(&p, &["created_at"], &mut e);
        assert!(e.finish(StatusCode::BAD_REQUEST).is_err());
    }
}
