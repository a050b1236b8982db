//! The HTTP client proper: the shared [`KobanaClient`] (connections, configuration) and the
//! [`BoundClient`] one request calls Kobana through, bound to one bearer token and that
//! request's work budget and record.

use std::sync::Arc;
use std::time::Duration;

use reqwest::{Method, header};
use serde_json::Value;
use tokio::time::Instant;

use super::answer::{
    DownloadResponse, Envelope, MAX_RETRY_AFTER_SECS, describe, read_answer, read_envelope,
};
use super::{KobanaError, WorkBudget};
use crate::access::BearerToken;
use crate::config::{Config, WorkLimits};
use crate::telemetry::RequestRecord;

/// Attempts for a retryable call (the first one included).
const MAX_ATTEMPTS: u32 = 3;
/// First back-off when Kobana sends no `Retry-After`; doubles per attempt.
const BASE_BACKOFF: Duration = Duration::from_millis(200);
/// Longest deadline of one call, whatever the configuration says (keeps `Instant` arithmetic
/// in range).
const MAX_DEADLINE: Duration = Duration::from_secs(86_400);

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

/// The client of one Kobana billing host, shared by every request of an instance: the
/// connection pool and the configuration. It calls nothing itself; a request calls Kobana
/// through the [`BoundClient`] [`KobanaClient::for_request`] binds. Cheap to clone.
#[derive(Clone)]
pub struct KobanaClient {
    inner: Arc<Inner>,
}

/// The client one request calls Kobana through: bound to the bearer token every call sends
/// (so no call takes one), to the request's [`WorkBudget`] and to its record. Cheap to clone;
/// its clones share the budget. Its `Debug` names the host only, never the token.
#[derive(Clone)]
pub struct BoundClient {
    inner: Arc<Inner>,
    /// The token every call sends, unchanged.
    token: BearerToken,
    /// The request this client works for: each call is noted in its record.
    record: Option<Arc<RequestRecord>>,
    /// The work budget of that request (see [`WorkBudget`]).
    budget: Arc<WorkBudget>,
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

impl std::fmt::Debug for BoundClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token is left out, not redacted: nothing of it is printed.
        f.debug_struct("BoundClient")
            .field("base", &self.inner.base)
            .finish_non_exhaustive()
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
        })
    }

    /// The client one request calls Kobana through, with `token`: the caller's own (the
    /// server binds it where it builds the request's context), or the one a request is
    /// about (the token front's pasted token). A fresh [`WorkBudget`] bounds its calls, and
    /// each call is noted in `record` (the request line's Kobana fields).
    pub fn for_request(
        &self,
        token: BearerToken,
        record: Option<Arc<RequestRecord>>,
    ) -> BoundClient {
        BoundClient {
            inner: self.inner.clone(),
            token,
            record,
            budget: Arc::new(WorkBudget::new(self.inner.limits)),
        }
    }
}

impl Inner {
    fn http(&self) -> Result<&reqwest::Client, KobanaError> {
        if let Some(client) = self.http.get() {
            return Ok(client);
        }
        let client = crate::net::client_builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| KobanaError::Unreachable(format!("HTTP client: {e}")))?;
        Ok(self.http.get_or_init(|| client))
    }

    fn url(&self, segments: &[&str]) -> Result<String, KobanaError> {
        let mut url = self.base.clone();
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

impl BoundClient {
    /// The limits every request's budget and every answer's read are held to.
    pub fn limits(&self) -> &WorkLimits {
        &self.inner.limits
    }

    /// The record of the request this client works for, if any.
    pub fn record(&self) -> Option<&RequestRecord> {
        self.record.as_deref()
    }

    /// `GET /v1/<segments>?<query>`: safe, so retried on 429/5xx within the deadline.
    pub async fn get(
        &self,
        segments: &[&str],
        query: &[(String, String)],
    ) -> Result<Envelope, KobanaError> {
        self.call(Method::GET, segments, query, None, None).await
    }

    /// `GET` sent once, never retried: for what an answer can do without (a customer's
    /// name), so a failing Kobana costs the request one call, not three.
    pub async fn get_once(
        &self,
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
            .execute(request, |r| read_envelope(r, limits, timeout_ms))
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
        segments: &[&str],
        query: &[(String, String)],
        body: Option<&Value>,
        idempotency_key: Option<&str>,
    ) -> Result<Envelope, KobanaError> {
        self.call(method, segments, query, body, idempotency_key)
            .await
    }

    async fn call(
        &self,
        method: Method,
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
            .execute(request, |r| read_answer(r, limits, timeout_ms, bare))
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
    async fn execute<T, F, Fut>(&self, request: Outgoing<'_>, read: F) -> Result<T, KobanaError>
    where
        F: Fn(reqwest::Response) -> Fut,
        Fut: std::future::Future<Output = Result<T, KobanaError>>,
    {
        let url = self.inner.url(request.segments)?;
        let http = self.inner.http()?;
        let budget = self.inner.deadline.min(MAX_DEADLINE);
        let deadline = Instant::now() + budget;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let error = match self.attempt(http, &url, &request, deadline, &read).await {
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
        request: &Outgoing<'_>,
        deadline: Instant,
        read: &F,
    ) -> Result<T, KobanaError>
    where
        F: Fn(reqwest::Response) -> Fut,
        Fut: std::future::Future<Output = Result<T, KobanaError>>,
    {
        let timeout_ms = self.inner.deadline.as_millis();
        let _slot = self.budget.admit(deadline, timeout_ms).await?;
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining.is_zero() {
            return Err(KobanaError::Timeout(timeout_ms));
        }
        let mut builder = http
            .request(request.method.clone(), url)
            .timeout(remaining)
            .bearer_auth(self.token.expose())
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
        self.execute(request, |response| async move {
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
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    /// A Kobana on loopback that notes each request's `Authorization` header and answers
    /// `{"data": {}}`, or a PDF on a path ending in `pdf`. One request per connection.
    async fn kobana_noting_tokens() -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("address"));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let noted = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n")
                    && stream.read(&mut byte).await.is_ok_and(|n| n == 1)
                {
                    head.push(byte[0]);
                }
                let head = String::from_utf8_lossy(&head).into_owned();
                let header = |name: &str| {
                    head.lines()
                        .filter_map(|line| line.split_once(':'))
                        .find(|(key, _)| key.eq_ignore_ascii_case(name))
                        .map(|(_, value)| value.trim().to_owned())
                };
                let length: usize = header("content-length").map_or(0, |n| n.parse().unwrap_or(0));
                let mut body = vec![0u8; length];
                let _ = stream.read_exact(&mut body).await;
                noted
                    .lock()
                    .unwrap()
                    .push(header("authorization").unwrap_or_default());
                let pdf = head.lines().next().is_some_and(|l| l.contains("pdf "));
                let (kind, answer) = if pdf {
                    ("application/pdf", "%PDF-1.4")
                } else {
                    ("application/json", r#"{"data":{}}"#)
                };
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}",
                    answer.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            }
        });
        (base, seen)
    }

    /// LH-3: a bound client sends its own token, exactly, on every kind of call (no call takes
    /// one), two clients bound from one shared client each send their own, and a `Debug`
    /// print of the client names none of it.
    #[tokio::test]
    async fn lh3_a_bound_client_sends_exactly_its_token_and_its_debug_shows_none() {
        let (base, seen) = kobana_noting_tokens().await;
        let config = Config {
            kobana_api_url: base,
            ..Config::default()
        };
        let shared = KobanaClient::new(&config).expect("client");
        let (mine, theirs) = ("lh3-mine.c2VjcmV0", "lh3-theirs.b3RoZXI");
        let bound = shared.for_request(BearerToken::new(mine), None);
        let other = shared.for_request(BearerToken::new(theirs), None);
        let body = serde_json::json!({"customer_id": "x"});
        bound.get(&["organization"], &[]).await.expect("get");
        bound
            .get_once(&["organization"], &[])
            .await
            .expect("get_once");
        let key = Some("6f1c2a3b-4d5e-4f60-8a71-b2c3d4e5f607");
        (bound
            .send(Method::POST, &["customers"], &[], Some(&body), key)
            .await)
            .expect("send");
        let pdf = ["invoices", "47378190-96da-4dac-b2ff-5d2a386ecbe0", "pdf"];
        bound
            .download(&pdf, "application/pdf")
            .await
            .expect("download");
        other
            .get(&["organization"], &[])
            .await
            .expect("the other get");
        let expected: Vec<String> = [mine, mine, mine, mine, theirs]
            .iter()
            .map(|token| format!("Bearer {token}"))
            .collect();
        assert_eq!(*seen.lock().unwrap(), expected);
        for shown in [
            format!("{bound:?}"),
            format!("{bound:#?}"),
            format!("{shared:?}"),
        ] {
            assert!(!shown.contains("lh3-"), "{shown}");
            assert!(!shown.contains("c2VjcmV0"), "{shown}");
        }
    }
}
