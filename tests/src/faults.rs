//! Fault injection: queued faults match `/v1/*` requests before normal handling.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use http_body::{Frame, SizeHint};
use serde::{Deserialize, Serialize};

use crate::api::ApiError;
use crate::store::Inner;

/// A fault: which requests it hits, what happens, and how many times.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// HTTP method to match (case-insensitive); `None` matches any.
    #[serde(default)]
    pub method: Option<String>,
    /// Path prefix to match, e.g. `/v1/invoices`.
    pub path_prefix: String,
    /// What happens to a matching request.
    pub kind: FaultKind,
    /// How many matching requests it hits; `None` means until cleared.
    #[serde(default)]
    pub times: Option<u32>,
}

/// What a fault does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Answer with this status and the Kobana error envelope (no handler runs).
    Status {
        /// HTTP status code.
        status: u16,
        /// `Retry-After` seconds (429 defaults to 1).
        #[serde(default)]
        retry_after: Option<u64>,
    },
    /// Answer with this status and this error code in the Kobana error envelope (no handler
    /// runs): a refusal other than the usual code of its status, e.g. a 403 that is not
    /// `insufficient_scope` ("API access blocked", as the billing API's return codes put it).
    Refusal {
        /// HTTP status code.
        status: u16,
        /// The envelope's `error.code`.
        code: String,
    },
    /// Answer normally after this many milliseconds.
    Delay {
        /// Latency to add.
        ms: u64,
    },
    /// Handle the request normally (a write is applied and its answer kept for its
    /// idempotency key), then wait this many milliseconds before answering: a write that
    /// lands while the caller has already given up.
    DelayAfter {
        /// Latency added after the request was applied.
        ms: u64,
    },
    /// Send the headers and part of the body, then drop the connection.
    ResetMidBody,
    /// Answer 200 with the JSON body cut in half.
    TruncatedJson,
    /// Handle the request normally, then set the member at this JSON pointer of a successful
    /// JSON answer (after the contract check, so the answer leaves the contract as a changed
    /// Kobana's would): e.g. `/data/status` = `"em_atraso"`. A pointer that names nothing
    /// changes nothing.
    Member {
        /// RFC 6901 pointer into the answer, e.g. `/data/0/status`.
        pointer: String,
        /// The value put there; `null` removes the member instead.
        value: serde_json::Value,
    },
}

/// Sets (or, for `null`, removes) the member at `pointer` of a JSON answer.
pub async fn set_member(resp: Response, pointer: &str, value: &serde_json::Value) -> Response {
    let (mut parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX)
        .await
        .unwrap_or_default();
    let Ok(mut json) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let (parent, last) = pointer.rsplit_once('/').unwrap_or(("", pointer));
    match json.pointer_mut(parent) {
        Some(serde_json::Value::Object(map)) if value.is_null() => {
            map.remove(last);
        }
        Some(serde_json::Value::Object(map)) => {
            map.insert(last.to_string(), value.clone());
        }
        Some(serde_json::Value::Array(items)) => {
            if let Some(slot) = last.parse::<usize>().ok().and_then(|n| items.get_mut(n)) {
                *slot = value.clone();
            }
        }
        _ => {}
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(json.to_string()))
}

/// Takes the first fault matching this request, counting down its `times`.
pub fn take(inner: &mut Inner, method: &str, path: &str) -> Option<FaultKind> {
    let pos = inner.faults.iter().position(|f| {
        f.method
            .as_deref()
            .is_none_or(|m| m.eq_ignore_ascii_case(method))
            && path.starts_with(&f.path_prefix)
    })?;
    let fault = &mut inner.faults[pos];
    let kind = fault.kind.clone();
    if let Some(n) = fault.times.as_mut() {
        *n = n.saturating_sub(1);
        if *n == 0 {
            inner.faults.remove(pos);
        }
    }
    Some(kind)
}

fn code_for(status: StatusCode) -> (&'static str, &'static str) {
    match status.as_u16() {
        400 => (
            "validation_error",
            "Corpo da requisição falhou na validação.",
        ),
        401 => ("invalid_token", "Token bearer ausente ou inválido."),
        403 => (
            "insufficient_scope",
            "Token válido, porém sem permissão para esta operação.",
        ),
        404 => ("not_found", "Recurso não encontrado na organização atual."),
        409 => ("conflict", "Conflito com o estado atual do recurso."),
        422 => (
            "invalid_state",
            "Operação inválida para o estado atual do recurso.",
        ),
        429 => ("rate_limited", "Limite de requisições excedido."),
        500 => ("internal_error", "Erro inesperado no servidor."),
        502..=504 => ("unavailable", "Serviço temporariamente indisponível."),
        _ => ("error", "Erro na requisição."),
    }
}

/// The response of a `Status` fault.
pub fn status_response(status: u16, retry_after: Option<u64>) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let (code, message) = code_for(status);
    let mut resp = ApiError::new(status, code, message).into_response();
    let retry_after = if status == StatusCode::TOO_MANY_REQUESTS {
        Some(retry_after.unwrap_or(1))
    } else {
        retry_after
    };
    let h = resp.headers_mut();
    if let Some(secs) = retry_after {
        h.insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    if status == StatusCode::TOO_MANY_REQUESTS {
        h.insert("x-ratelimit-remaining", HeaderValue::from(0));
        let reset = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
            .saturating_add(retry_after.unwrap_or(1));
        h.insert("x-ratelimit-reset", HeaderValue::from(reset));
    }
    resp
}

/// The response of a `Refusal` fault.
pub fn refusal_response(status: u16, code: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::FORBIDDEN);
    let mut body = ApiError::new(status, "", "Acesso à API bloqueado para este token.").body();
    body["error"]["code"] = serde_json::Value::String(code.to_owned());
    (status, axum::Json(body)).into_response()
}

/// Sleeps for a `Delay` fault.
pub async fn delay(ms: u64) {
    tokio::time::sleep(Duration::from_millis(ms)).await;
}

/// A 200 whose JSON body is cut in half (valid HTTP, invalid JSON).
pub fn truncated(full: Bytes) -> Response {
    let half = full.slice(..full.len() / 2);
    let mut resp = Response::new(Body::from(half));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A body that announces the full length, yields the first half, then fails,
/// which makes the server drop the connection mid-body.
struct ResetBody {
    full_len: u64,
    first: Option<Bytes>,
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl http_body::Body for ResetBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        let sleep = self
            .sleep
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(Duration::from_millis(50))));
        match sleep.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(()) => Poll::Ready(Some(Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "fault: connection reset mid-body",
            )))),
        }
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.full_len)
    }
}

/// The normal response's status and headers with a body that breaks halfway.
pub fn reset_mid_body(parts: axum::http::response::Parts, full: Bytes) -> Response {
    let first = full.slice(..full.len() / 2);
    let body = ResetBody {
        full_len: full.len() as u64,
        first: Some(first),
        sleep: None,
    };
    let mut resp = Response::from_parts(parts, Body::new(body));
    resp.headers_mut().remove(header::TRANSFER_ENCODING);
    resp
}
