//! The HTTP client proper.

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, StatusCode, header};
use serde_json::Value;
use tokio::time::Instant;

use super::body::{BodyError, read_within};
use super::{KobanaError, WorkBudget};
use crate::access::BearerToken;
use crate::config::{Config, WorkLimits};
use crate::telemetry::RequestRecord;

/// Attempts for a retryable call (the first one included).
const MAX_ATTEMPTS: u32 = 3;
/// First back-off when Kobana sends no `Retry-After`; doubles per attempt.
const BASE_BACKOFF: Duration = Duration::from_millis(200);
/// Longest `Retry-After` this client keeps (one day). Kobana's number is never used in
/// arithmetic that can overflow: the wait is checked against the call's deadline, and a wait
/// past it ends the call with Kobana's error instead of sleeping.
pub const MAX_RETRY_AFTER_SECS: u64 = 86_400;
/// Longest deadline of one call, whatever the configuration says (keeps `Instant` arithmetic
/// in range).
const MAX_DEADLINE: Duration = Duration::from_secs(86_400);
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

/// One request to Kobana, as the retry loop needs it.
struct Outgoing<'a> {
    method: Method,
    segments: &'a [&'a str],
    query: &'a [(String, String)],
    body: Option<&'a Value>,
    idempotency_key: Option<&'a str>,
    accept: &'a str,
    retryable: bool,
}

/// Client for one Kobana billing host. Cheap to clone; connections are reused.
#[derive(Clone)]
pub struct KobanaClient {
    inner: Arc<Inner>,
    /// The request this clone works for: each call is noted in its record.
    record: Option<Arc<RequestRecord>>,
    /// The work budget of that request (see [`WorkBudget`]); `None` only on the shared
    /// client [`KobanaClient::new`] builds, which serves no request itself.
    budget: Option<Arc<WorkBudget>>,
}

struct Inner {
    /// Built on first use: loading the TLS roots costs milliseconds that a cold start that
    /// only lists tools should not pay.
    http: std::sync::OnceLock<reqwest::Client>,
    base: String,
    user_agent: String,
    deadline: Duration,
    limits: WorkLimits,
}

impl std::fmt::Debug for KobanaClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KobanaClient")
            .field("base", &self.inner.base)
            .finish()
    }
}

/// Whether `segment` may be put in a Kobana path as it is: ASCII letters, digits, `-`, `_`,
/// `.` (not `.` or `..` alone), 1..=128 chars. Ids that fail this never reach Kobana.
pub fn segment_is_safe(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 128
        && segment != "."
        && segment != ".."
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Whether `text` is shaped like a Kobana id: a UUID (`8-4-4-4-12` hex digits).
pub fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

impl KobanaClient {
    /// Builds the client (no network I/O, and no TLS set-up until the first call).
    pub fn new(config: &Config) -> Result<Self, KobanaError> {
        Ok(Self {
            inner: Arc::new(Inner {
                http: std::sync::OnceLock::new(),
                base: format!("{}/v1", config.kobana_api_url.trim_end_matches('/')),
                user_agent: config.user_agent(),
                deadline: config.kobana_timeout,
                limits: config.work,
            }),
            record: None,
            budget: None,
        })
    }

    /// The clone one request works with: a fresh [`WorkBudget`] bounds its calls, and each
    /// call is noted in `record` (the request line's Kobana fields).
    pub fn for_request(&self, record: Option<Arc<RequestRecord>>) -> Self {
        Self {
            inner: self.inner.clone(),
            record,
            budget: Some(Arc::new(WorkBudget::new(self.inner.limits))),
        }
    }

    /// The limits every request's budget and every answer's read are held to.
    pub fn limits(&self) -> &WorkLimits {
        &self.inner.limits
    }

    /// The record of the request this clone works for, if any.
    pub fn record(&self) -> Option<&RequestRecord> {
        self.record.as_deref()
    }

    fn http(&self) -> Result<&reqwest::Client, KobanaError> {
        if let Some(client) = self.inner.http.get() {
            return Ok(client);
        }
        let client = crate::net::client_builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| KobanaError::Unreachable(format!("HTTP client: {e}")))?;
        Ok(self.inner.http.get_or_init(|| client))
    }

    /// `GET /v1/<segments>?<query>`: safe, so retried on 429/5xx within the deadline.
    pub async fn get(
        &self,
        token: &BearerToken,
        segments: &[&str],
        query: &[(String, String)],
    ) -> Result<Envelope, KobanaError> {
        self.call(Method::GET, token, segments, query, None, None)
            .await
    }

    /// `GET` sent once, never retried: for what an answer can do without (a customer's
    /// name), so a failing Kobana costs the request one call, not three.
    pub async fn get_once(
        &self,
        token: &BearerToken,
        segments: &[&str],
        query: &[(String, String)],
    ) -> Result<Envelope, KobanaError> {
        let request = Outgoing {
            method: Method::GET,
            segments,
            query,
            body: None,
            idempotency_key: None,
            accept: "application/json",
            retryable: false,
        };
        let (limits, timeout_ms) = (self.inner.limits, self.inner.deadline.as_millis());
        let envelope = self
            .execute(token, request, |r| read_envelope(r, limits, timeout_ms))
            .await?;
        super::drift::check(
            "GET",
            segments,
            &envelope.data,
            envelope.meta.as_ref(),
            self.record.as_deref(),
        );
        Ok(envelope)
    }

    /// A write (`POST`, `PUT`, `PATCH`, `DELETE`), or one of the document's `POST` look-ups.
    /// Retried only when it carries an idempotency key, which Kobana honours for 24 h (the
    /// same key replays the original answer).
    pub async fn send(
        &self,
        method: Method,
        token: &BearerToken,
        segments: &[&str],
        query: &[(String, String)],
        body: Option<&Value>,
        idempotency_key: Option<&str>,
    ) -> Result<Envelope, KobanaError> {
        self.call(method, token, segments, query, body, idempotency_key)
            .await
    }

    async fn call(
        &self,
        method: Method,
        token: &BearerToken,
        segments: &[&str],
        query: &[(String, String)],
        body: Option<&Value>,
        idempotency_key: Option<&str>,
    ) -> Result<Envelope, KobanaError> {
        let method_name = method.clone();
        let request = Outgoing {
            retryable: method == Method::GET || idempotency_key.is_some(),
            method,
            segments,
            query,
            body,
            idempotency_key,
            accept: "application/json",
        };
        let (limits, timeout_ms) = (self.inner.limits, self.inner.deadline.as_millis());
        // Read as the contract describes the answer: Kobana's envelope, or the body itself.
        let bare = super::contract::contract().answers_bare(method_name.as_str(), segments);
        let envelope = self
            .execute(token, request, |r| read_answer(r, limits, timeout_ms, bare))
            .await?;
        super::drift::check(
            method_name.as_str(),
            segments,
            &envelope.data,
            envelope.meta.as_ref(),
            self.record.as_deref(),
        );
        Ok(envelope)
    }

    /// Sends `request`, reading each answer with `read`; a retryable request is sent again on
    /// 429/5xx or a broken connection, honouring `Retry-After`, within one deadline. Every
    /// attempt is admitted by the request's budget first.
    async fn execute<T, F, Fut>(
        &self,
        token: &BearerToken,
        request: Outgoing<'_>,
        read: F,
    ) -> Result<T, KobanaError>
    where
        F: Fn(reqwest::Response) -> Fut,
        Fut: std::future::Future<Output = Result<T, KobanaError>>,
    {
        let url = self.url(request.segments)?;
        let http = self.http()?;
        let budget = self.inner.deadline.min(MAX_DEADLINE);
        let deadline = Instant::now() + budget;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let error = match self
                .attempt(http, &url, token, &request, deadline, &read)
                .await
            {
                Ok(value) => return Ok(value),
                Err(error) => error,
            };
            if !(request.retryable && attempt < MAX_ATTEMPTS && error.is_retryable()) {
                return Err(error);
            }
            let wait = match &error {
                KobanaError::Api {
                    retry_after: Some(secs),
                    ..
                } => Duration::from_secs((*secs).min(MAX_RETRY_AFTER_SECS)),
                _ => BASE_BACKOFF.saturating_mul(2u32.saturating_pow(attempt - 1)),
            };
            // A wait that would end past the deadline (or overflow the clock) is not waited:
            // the call ends with Kobana's own error, which says how long to wait.
            if Instant::now()
                .checked_add(wait)
                .is_none_or(|resume| resume >= deadline)
            {
                return Err(error);
            }
            tracing::warn!(
                attempt,
                status = error.status(),
                wait_ms = wait.as_millis() as u64,
                "retrying a safe Kobana call"
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// One attempt: admitted by the budget (a slot and a call), sent, its answer read with
    /// `read`, and noted in the request's record.
    async fn attempt<T, F, Fut>(
        &self,
        http: &reqwest::Client,
        url: &str,
        token: &BearerToken,
        request: &Outgoing<'_>,
        deadline: Instant,
        read: &F,
    ) -> Result<T, KobanaError>
    where
        F: Fn(reqwest::Response) -> Fut,
        Fut: std::future::Future<Output = Result<T, KobanaError>>,
    {
        let timeout_ms = self.inner.deadline.as_millis();
        let _slot = match &self.budget {
            Some(budget) => Some(budget.admit(deadline, timeout_ms).await?),
            None => None,
        };
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(KobanaError::Timeout(timeout_ms));
        }
        let mut builder = http
            .request(request.method.clone(), url)
            .timeout(remaining)
            .bearer_auth(token.expose())
            .header(header::USER_AGENT, &self.inner.user_agent)
            .header(header::ACCEPT, request.accept)
            // The document asks it of every request, bodyless ones too (docs/contract.md).
            .header(header::CONTENT_TYPE, "application/json");
        if !request.query.is_empty() {
            builder = builder.query(request.query);
        }
        if let Some(key) = request.idempotency_key {
            // Reading `idempotency_header`: the document's name and the one Kobana's
            // integration pages use, with the same key; each ignores the other.
            builder = builder
                .header("X-Idempotency-Key", key)
                .header("Idempotency-Key", key);
        }
        if let Some(body) = request.body {
            builder = builder.json(body);
        }
        let flight = self.record.as_ref().map(RequestRecord::kobana_started);
        let (status, outcome) = match builder.send().await {
            Ok(response) => (Some(response.status().as_u16()), read(response).await),
            Err(e) if e.is_timeout() => (None, Err(KobanaError::Timeout(timeout_ms))),
            Err(e) => (None, Err(KobanaError::Unreachable(describe(&e)))),
        };
        if let Some(flight) = flight {
            flight.finish(status);
        }
        outcome
    }

    /// `GET` a binary document (PDF, XML), retried like any read until its status is known.
    /// Errors are read from the envelope before any byte of the document is handed out; the
    /// body is left to stream.
    pub async fn download(
        &self,
        token: &BearerToken,
        segments: &[&str],
        accept: &str,
    ) -> Result<DownloadResponse, KobanaError> {
        let request = Outgoing {
            method: Method::GET,
            segments,
            query: &[],
            body: None,
            idempotency_key: None,
            accept,
            retryable: true,
        };
        let (limits, timeout_ms) = (self.inner.limits, self.inner.deadline.as_millis());
        self.execute(token, request, |response| async move {
            if !response.status().is_success() {
                let status = response.status().as_u16();
                return Err(read_envelope(response, limits, timeout_ms)
                    .await
                    .err()
                    .unwrap_or(KobanaError::InvalidResponse {
                        status,
                        reason: "error status without an error body".to_owned(),
                    }));
            }
            Ok(DownloadResponse {
                content_type: response
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned),
                content_length: response.content_length(),
                response,
            })
        })
        .await
    }

    fn url(&self, segments: &[&str]) -> Result<String, KobanaError> {
        let mut url = self.inner.base.clone();
        for segment in segments {
            if !segment_is_safe(segment) {
                return Err(KobanaError::InvalidResponse {
                    status: 0,
                    reason: format!("refused to build a Kobana path with segment {segment:?}"),
                });
            }
            url.push('/');
            url.push_str(segment);
        }
        Ok(url)
    }
}

fn describe(error: &reqwest::Error) -> String {
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

async fn read_envelope(
    response: reqwest::Response,
    limits: WorkLimits,
    timeout_ms: u128,
) -> Result<Envelope, KobanaError> {
    read_answer(response, limits, timeout_ms, false).await
}

/// Reads an answer: a success's `{data, meta}` envelope unwrapped, or (`bare`, an operation
/// whose documented answer has no envelope) the whole JSON body as its data; an error's
/// envelope as [`KobanaError::Api`].
async fn read_answer(
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
