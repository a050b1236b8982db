//! Kobana's answers read: a JSON answer unwrapped from its envelope (or taken bare where the
//! contract documents no envelope), an error envelope as [`KobanaError::Api`], a document
//! left to stream, each within its byte limit.

use reqwest::{StatusCode, header};
use serde_json::Value;

use super::KobanaError;
use super::body::{BodyError, read_within};
use crate::config::WorkLimits;

/// Longest `Retry-After` this client keeps (one day). Kobana's number is never used in
/// arithmetic that can overflow: the wait is checked against the call's deadline, and a wait
/// past it ends the call with Kobana's error instead of sleeping.
pub const MAX_RETRY_AFTER_SECS: u64 = 86_400;
/// [`KobanaError::Unreachable`] reason when the connection could not even be opened: the
/// request was certainly not sent.
pub(crate) const CONNECT_FAILED: &str = "connection refused or failed";

/// A successful JSON answer, unwrapped from Kobana's envelope.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// The `data` member.
    pub data: Value,
    /// The `meta` member of list answers (`total`, `page`, `per_page`, `total_pages`).
    pub meta: Option<Value>,
    /// The HTTP status of the answer.
    pub status: u16,
    /// Kobana's `Request-Id` header, as sent (an outside value: check it before use).
    pub request_id: Option<String>,
}

/// A binary document on its way from Kobana (PDF, XML), status already checked.
#[derive(Debug)]
pub struct DownloadResponse {
    /// `Content-Type` Kobana sent.
    pub content_type: Option<String>,
    /// `Content-Length` Kobana sent, if any.
    pub content_length: Option<u64>,
    /// The body, to be read as a stream.
    pub response: reqwest::Response,
}

impl DownloadResponse {
    /// The whole document, read with a counter: [`KobanaError::TooLarge`] as soon as it
    /// is announced or grows past `limit` bytes (nothing more is read).
    pub async fn bytes_within(self, limit: u64) -> Result<Vec<u8>, KobanaError> {
        read_within(self.response, limit)
            .await
            .map_err(|error| match error {
                BodyError::TooLarge { seen } => KobanaError::TooLarge { size: seen, limit },
                BodyError::Broken(e) => KobanaError::Unreachable(describe(&e)),
            })
    }

    /// The media type Kobana sent (`application/pdf`), without parameters, lower case.
    pub fn media_type(&self) -> Option<String> {
        let raw = self.content_type.as_deref()?.split(';').next()?.trim();
        (!raw.is_empty()).then(|| raw.to_ascii_lowercase())
    }
}

/// What a failed send says, in words that carry no URL or token.
pub(super) fn describe(error: &reqwest::Error) -> String {
    if error.is_connect() {
        CONNECT_FAILED.to_owned()
    } else if error.is_body() || error.is_decode() {
        "connection broke while reading the answer".to_owned()
    } else {
        "request failed".to_owned()
    }
}

/// `Retry-After` in seconds (the delta form), at most [`MAX_RETRY_AFTER_SECS`]: a larger
/// number, even one past `u64`, reads as the cap.
fn retry_after(headers: &header::HeaderMap) -> Option<u64> {
    let text = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(
        text.parse::<u64>()
            .map_or(MAX_RETRY_AFTER_SECS, |secs| secs.min(MAX_RETRY_AFTER_SECS)),
    )
}

/// The body of a JSON answer, read within its limit (see [`WorkLimits`]): a success larger
/// than `max_json_bytes` is an error; an error answer larger than `max_error_bytes` is read
/// as one without a body (the status's own error).
async fn bounded_body(
    response: reqwest::Response,
    limits: WorkLimits,
    timeout_ms: u128,
) -> Result<Option<Value>, KobanaError> {
    let status = response.status();
    let limit = if status.is_success() {
        limits.max_json_bytes
    } else {
        limits.max_error_bytes
    };
    match read_within(response, limit).await {
        Ok(bytes) => Ok(serde_json::from_slice(&bytes).ok()),
        Err(BodyError::TooLarge { .. }) if status.is_success() => {
            Err(KobanaError::AnswerTooLarge { limit })
        }
        Err(BodyError::TooLarge { .. }) => Ok(None),
        Err(BodyError::Broken(e)) if e.is_timeout() => Err(KobanaError::Timeout(timeout_ms)),
        Err(BodyError::Broken(e)) => Err(KobanaError::Unreachable(format!(
            "{} (HTTP {})",
            describe(&e),
            status.as_u16()
        ))),
    }
}

/// Kobana's error code when it is one (`[a-z0-9_]`, at most 64): anything else — a code
/// carrying a newline, a bidi control, a sentence — is replaced by the status's own code, so
/// what is logged and shown as a code is always one.
fn safe_code(code: String, status: StatusCode) -> String {
    let ok = (1..=64).contains(&code.len())
        && code
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        code
    } else {
        default_code(status).to_owned()
    }
}

pub(super) async fn read_envelope(
    response: reqwest::Response,
    limits: WorkLimits,
    timeout_ms: u128,
) -> Result<Envelope, KobanaError> {
    read_answer(response, limits, timeout_ms, false).await
}

/// Reads an answer: a success's `{data, meta}` envelope unwrapped, or (`bare`, an operation
/// whose documented answer has no envelope) the whole JSON body as its data; an error's
/// envelope as [`KobanaError::Api`].
pub(super) async fn read_answer(
    response: reqwest::Response,
    limits: WorkLimits,
    timeout_ms: u128,
    bare: bool,
) -> Result<Envelope, KobanaError> {
    let status = response.status();
    let request_id = response
        .headers()
        .get("request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let retry_after = retry_after(response.headers());
    // Reading `delete_answer`: a 204 carries no envelope; its data is null, and the write that
    // sent it says what that means.
    if status == StatusCode::NO_CONTENT {
        return Ok(Envelope {
            data: Value::Null,
            meta: None,
            status: status.as_u16(),
            request_id,
        });
    }
    let body = bounded_body(response, limits, timeout_ms).await?;
    if status.is_success() && bare {
        let Some(data) = body.filter(|b| b.is_object() || b.is_array()) else {
            return Err(KobanaError::InvalidResponse {
                status: status.as_u16(),
                reason: "body is not a JSON object or array".to_owned(),
            });
        };
        return Ok(Envelope {
            data,
            meta: None,
            status: status.as_u16(),
            request_id,
        });
    }
    if status.is_success() {
        let Some(Value::Object(mut map)) = body else {
            return Err(KobanaError::InvalidResponse {
                status: status.as_u16(),
                reason: "body is not a JSON object".to_owned(),
            });
        };
        let Some(data) = map.remove("data") else {
            return Err(KobanaError::InvalidResponse {
                status: status.as_u16(),
                reason: "no `data` member".to_owned(),
            });
        };
        return Ok(Envelope {
            data,
            meta: map.remove("meta"),
            status: status.as_u16(),
            request_id,
        });
    }
    Err(api_error(status, body.as_ref(), request_id, retry_after))
}

/// Kobana's error envelope (`{"error": {code, message, details}}`) as [`KobanaError::Api`]; a
/// missing or malformed member becomes the status's own.
fn api_error(
    status: StatusCode,
    body: Option<&Value>,
    request_id: Option<String>,
    retry_after: Option<u64>,
) -> KobanaError {
    let error = body.and_then(|b| b.get("error"));
    let text = |key: &str| {
        error
            .and_then(|e| e.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    KobanaError::Api {
        status: status.as_u16(),
        code: text("code").map_or_else(
            || default_code(status).to_owned(),
            |code| safe_code(code, status),
        ),
        message: text("message").unwrap_or_else(|| {
            status
                .canonical_reason()
                .unwrap_or("erro desconhecido")
                .to_owned()
        }),
        details: error
            .and_then(|e| e.get("details"))
            .filter(|d| !d.is_null())
            .cloned(),
        request_id,
        retry_after,
    }
}

fn default_code(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "invalid_token",
        403 => "insufficient_scope",
        404 => "not_found",
        400 | 422 => "validation_error",
        429 => "rate_limited",
        _ => "internal_error",
    }
}
