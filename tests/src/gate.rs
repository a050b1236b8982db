//! The `/v1/*` front door: records the call, applies faults, checks `User-Agent`, the bearer
//! token and the permission, then the request against the contract (off-contract requests get
//! `400 contract_violation` and never reach a handler), replays idempotent requests, checks
//! the handler's successful answers against the contract, and stamps `Request-Id` and
//! `X-RateLimit-*` on every response.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::{Value, json};

use crate::RecordedCall;
use crate::api::ApiError;
use crate::auth::{self, AppOauthKey, AuthCtx};
use crate::contract::{self, Operation, Violation, ViolationKind};
use crate::faults::{self, FaultKind};
use crate::readings::{IdempotencyHeader, RateLimitHeaders, ScopeWords, wire};
use crate::store::{App, StoredResponse};

/// Requests allowed per second and organization (advertised in `X-RateLimit-Limit`).
pub const RATE_LIMIT: u32 = 100;

/// The rate-limit header names of the integration page (limit, remaining, reset).
pub const RATE_LIMIT_HEADERS: [&str; 3] = [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
];

/// The names Kobana's banking API uses (the `others` profile).
pub const BARE_RATE_LIMIT_HEADERS: [&str; 3] =
    ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];

/// Largest request body the fake reads.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// The permission resource a `/v1` path belongs to (its first segment, when it names one of
/// [`crate::auth::RESOURCES`]).
pub fn resource_of(path: &str) -> Option<&'static str> {
    let segment = path.strip_prefix("/v1/")?.split('/').next()?;
    crate::auth::RESOURCES.into_iter().find(|r| *r == segment)
}

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD
}

/// `User-Agent`, token and permission, in that order; a 403 names the permission in the
/// vocabulary `words`. `app_oauth`: the app OAuth keys whose tokens count (reading
/// `token_issuer`).
fn check(
    headers: &HeaderMap,
    method: &Method,
    path: &str,
    words: ScopeWords,
    app_oauth: Option<&[AppOauthKey]>,
) -> Result<AuthCtx, ApiError> {
    if header_str(headers, header::USER_AGENT).is_none() {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_request",
            "Cabeçalho User-Agent ausente.",
        ));
    }
    let ctx = auth::authenticate(
        header_str(headers, header::AUTHORIZATION).as_deref(),
        app_oauth,
    )?;
    if let Some(resource) = resource_of(path) {
        let write = !is_read(method);
        if !ctx.grants(resource, write) {
            let action = if write { "write" } else { "read" };
            let mut err = ApiError::new(
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                "Token válido, porém sem permissão para esta operação.",
            );
            err.details = json!({
                "required": [auth::permission(words, Some(resource), action)],
                "granted": ctx.granted(),
            });
            return Err(err);
        }
    }
    Ok(ctx)
}

fn body_value(bytes: &Bytes) -> Option<Value> {
    if bytes.is_empty() {
        return None;
    }
    Some(
        serde_json::from_slice(bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(bytes).into_owned())),
    )
}

/// The middleware on every route; paths outside `/v1` pass straight through.
pub async fn gate(State(app): State<App>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    if path != "/v1" && !path.starts_with("/v1/") {
        return next.run(req).await;
    }
    let (mut resp, org) = handle(&app, req, next).await;
    stamp(&app, resp.headers_mut(), org.as_deref());
    resp
}

fn stamp(app: &App, h: &mut HeaderMap, org: Option<&str>) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (request_id, used) = {
        let mut inner = app.lock();
        let request_id = inner.request_id();
        let window = &mut inner.rate_window;
        if window.0 != now {
            *window = (now, Default::default());
        }
        let used = window.1.entry(org.unwrap_or("-").to_string()).or_insert(0);
        *used += 1;
        (request_id, *used)
    };
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        h.insert("request-id", v);
    }
    let [limit, remaining, reset] = match app.readings().rate_limit_headers {
        RateLimitHeaders::XRateLimit => RATE_LIMIT_HEADERS,
        RateLimitHeaders::RateLimit => BARE_RATE_LIMIT_HEADERS,
    };
    h.insert(limit, HeaderValue::from(RATE_LIMIT));
    if !h.contains_key(remaining) {
        h.insert(
            remaining,
            HeaderValue::from(RATE_LIMIT.saturating_sub(used)),
        );
    }
    if !h.contains_key(reset) {
        h.insert(reset, HeaderValue::from(now + 1));
    }
}

async fn handle(app: &App, req: Request, next: Next) -> (Response, Option<String>) {
    let (parts, body) = req.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_BODY).await else {
        let err = ApiError::field(
            StatusCode::BAD_REQUEST,
            "body",
            "não foi possível ler o corpo da requisição",
        );
        return (err.into_response(), None);
    };
    let readings = *app.readings();
    let app_oauth = app.app_oauth_keys();
    let verdict = check(
        &parts.headers,
        &parts.method,
        parts.uri.path(),
        readings.scope_words,
        app_oauth.as_deref(),
    );
    let org = verdict.as_ref().ok().map(|c| c.org().to_string());
    let idempotency_key = header_str(&parts.headers, readings.idempotency_header.name());
    let fault = record(app, &parts, &verdict, &bytes, idempotency_key.clone());
    let mut after = None;
    match fault {
        Some(FaultKind::Status {
            status,
            retry_after,
        }) => return (faults::status_response(status, retry_after), org),
        Some(FaultKind::Refusal { status, code }) => {
            return (faults::refusal_response(status, &code), org);
        }
        Some(FaultKind::Delay { ms }) => faults::delay(ms).await,
        Some(other) => after = Some(other),
        None => {}
    }
    let resp = match verdict {
        Err(e) => e.into_response(),
        Ok(ctx) => {
            let call = Call {
                parts,
                bytes,
                idempotency_key,
            };
            match serve(app, call, &ctx, after.as_ref(), next).await {
                Ok(resp) => resp,
                Err(early) => return (early, org),
            }
        }
    };
    (fault_after(resp, after).await, org)
}

/// Records the call as the fake received it, and takes the fault armed for it.
fn record(
    app: &App,
    parts: &axum::http::request::Parts,
    verdict: &Result<AuthCtx, ApiError>,
    bytes: &Bytes,
    idempotency_key: Option<String>,
) -> Option<FaultKind> {
    let path = parts.uri.path();
    let idempotency_headers: Vec<String> = IdempotencyHeader::ALL
        .iter()
        .map(|h| h.name())
        .filter(|name| parts.headers.contains_key(*name))
        .map(str::to_string)
        .collect();
    let mut inner = app.lock();
    inner.calls.push(RecordedCall {
        method: parts.method.to_string(),
        path: path.to_string(),
        query: parts.uri.query().map(str::to_string),
        idempotency_key,
        idempotency_headers,
        user_agent: header_str(&parts.headers, header::USER_AGENT),
        authorized: verdict.is_ok(),
        person: verdict.as_ref().ok().map(|c| c.claims.sub.clone()),
        body: body_value(bytes),
    });
    faults::take(&mut inner, parts.method.as_str(), path)
}

/// An authorized request, read whole.
struct Call {
    parts: axum::http::request::Parts,
    bytes: Bytes,
    idempotency_key: Option<String>,
}

/// An authorized call checked against the contract, replayed or run by its handler, its
/// answer checked; `Err` is an answer to send as it is (no fault after it).
async fn serve(
    app: &App,
    call: Call,
    ctx: &AuthCtx,
    after: Option<&FaultKind>,
    next: Next,
) -> Result<Response, Response> {
    let Call {
        mut parts,
        bytes,
        idempotency_key,
    } = call;
    let readings = *app.readings();
    let method = parts.method.clone();
    let path = parts.uri.path().to_string();
    let checked = check_contract(app, &parts, &bytes).map_err(IntoResponse::into_response)?;
    let bytes = match wire::request(&readings, checked.operation, &bytes) {
        Ok(rewritten) => rewritten.unwrap_or(bytes),
        Err(err) => return Err(err.into_response()),
    };
    let key = idempotency_key.filter(|_| !is_read(&method));
    if let Some(key) = &key
        && let Some(replay) = replay(app, ctx.org(), key, method.as_str(), &path)
    {
        return Err(replay);
    }
    parts.extensions.insert(ctx.clone());
    parts
        .extensions
        .insert(crate::generic::Matched(checked.operation));
    app.lock().handled += 1;
    let mut resp = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let intact = !matches!(
        after,
        Some(FaultKind::ResetMidBody | FaultKind::TruncatedJson)
    );
    if intact && resp.status().is_success() {
        resp = check_answer(app, &checked, resp).await;
        resp = wire::answer(&readings, checked.operation, resp).await;
        if let Some(FaultKind::Member { pointer, value }) = after {
            resp = faults::set_member(resp, pointer, value).await;
        }
    }
    Ok(match key {
        Some(key) => remember(app, ctx.org(), key, method.as_str(), &path, resp).await,
        None => resp,
    })
}

/// The fault armed to act on the answer: late, cut mid-body, or truncated JSON.
async fn fault_after(resp: Response, after: Option<FaultKind>) -> Response {
    match after {
        Some(FaultKind::DelayAfter { ms }) => {
            faults::delay(ms).await;
            resp
        }
        Some(FaultKind::ResetMidBody) => {
            let (p, b) = resp.into_parts();
            let full = to_bytes(b, usize::MAX).await.unwrap_or_default();
            faults::reset_mid_body(p, full)
        }
        Some(FaultKind::TruncatedJson) => {
            let full = to_bytes(resp.into_body(), usize::MAX)
                .await
                .unwrap_or_default();
            faults::truncated(full)
        }
        _ => resp,
    }
}

/// `400 contract_violation`: the first deviation in the message, all of them in `details`.
pub fn contract_error(operation: Option<&Operation>, violations: &[String]) -> ApiError {
    let mut err = ApiError::new(
        StatusCode::BAD_REQUEST,
        "contract_violation",
        contract::violation_message(violations),
    );
    err.details = json!({
        "operation": operation.map(|op| op.id.as_str()),
        "violations": violations,
    });
    err
}

/// A request that passed the contract check: what its answer is checked against.
struct Checked {
    operation: &'static Operation,
    method: String,
    /// Path and query string, as recorded in a violation.
    path: String,
    user_agent: Option<String>,
}

impl Checked {
    fn violation(
        &self,
        kind: ViolationKind,
        status: Option<u16>,
        problems: Vec<String>,
    ) -> Violation {
        Violation {
            kind,
            operation: Some(self.operation.id.clone()),
            method: self.method.clone(),
            path: self.path.clone(),
            status,
            problems,
            user_agent: self.user_agent.clone(),
        }
    }
}

/// Matches and checks a request against the contract (noting the operation as exercised);
/// off the contract, the `400 contract_violation` to answer (the violation recorded).
fn check_contract(
    app: &App,
    parts: &axum::http::request::Parts,
    body: &[u8],
) -> Result<Checked, ApiError> {
    let path = parts.uri.path();
    let user_agent = header_str(&parts.headers, header::USER_AGENT);
    let key = |name: IdempotencyHeader| header_str(&parts.headers, name.name());
    let (x_key, alt_key) = (
        key(IdempotencyHeader::XIdempotencyKey),
        key(IdempotencyHeader::IdempotencyKey),
    );
    let verdict = contract::check_request(&contract::Request {
        method: parts.method.as_str(),
        path,
        query: parts.uri.query(),
        user_agent: user_agent.as_deref(),
        idempotency_key: x_key.as_deref(),
        idempotency_key_alt: alt_key.as_deref(),
        content_type: header_str(&parts.headers, header::CONTENT_TYPE).as_deref(),
        body,
    });
    if let Some(op) = verdict.operation {
        app.contract().exercised(&op.id, user_agent.as_deref());
    }
    let shown_path = match parts.uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    match verdict.operation {
        Some(operation) if verdict.violations.is_empty() => Ok(Checked {
            operation,
            method: parts.method.to_string(),
            path: shown_path,
            user_agent,
        }),
        operation => {
            let err = contract_error(operation, &verdict.violations);
            app.contract().violation(Violation {
                kind: ViolationKind::Request,
                operation: operation.map(|op| op.id.clone()),
                method: parts.method.to_string(),
                path: shown_path,
                status: None,
                problems: verdict.violations,
                user_agent,
            });
            Err(err)
        }
    }
}

/// Checks a successful answer against the contract (JSON bodies are read and put back);
/// deviations are recorded, the answer is served as is.
async fn check_answer(app: &App, checked: &Checked, resp: Response) -> Response {
    let content_type = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let status = resp.status().as_u16();
    let json = content_type
        .as_deref()
        .is_some_and(|c| c.starts_with("application/json"));
    let (resp, body) = if json {
        let (parts, body) = resp.into_parts();
        let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
        (
            Response::from_parts(parts, Body::from(body.clone())),
            Some(body),
        )
    } else {
        (resp, None)
    };
    let problems = contract::check_answer(
        checked.operation,
        &contract::Answer {
            status,
            content_type: content_type.as_deref(),
            body: body.as_deref(),
        },
    );
    if !problems.is_empty() {
        app.contract()
            .violation(checked.violation(ViolationKind::Answer, Some(status), problems));
    }
    resp
}

/// A stored response for this key, or a 422 when the key was used for another request.
fn replay(app: &App, org: &str, key: &str, method: &str, path: &str) -> Option<Response> {
    let stored = app
        .lock()
        .idempotency
        .get(&(org.to_string(), key.to_string()))
        .cloned()?;
    if stored.method != method || stored.path != path {
        return Some(
            ApiError::field(
                StatusCode::UNPROCESSABLE_ENTITY,
                "X-Idempotency-Key",
                "já foi usada em outra requisição",
            )
            .into_response(),
        );
    }
    let mut resp = Response::new(Body::from(stored.body));
    *resp.status_mut() = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    if let Some(ct) = stored
        .content_type
        .and_then(|c| HeaderValue::from_str(&c).ok())
    {
        resp.headers_mut().insert(header::CONTENT_TYPE, ct);
    }
    resp.headers_mut()
        .insert("x-idempotent-replay", HeaderValue::from_static("true"));
    Some(resp)
}

async fn remember(
    app: &App,
    org: &str,
    key: String,
    method: &str,
    path: &str,
    resp: Response,
) -> Response {
    let (parts, body) = resp.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    app.lock().idempotency.insert(
        (org.to_string(), key),
        StoredResponse {
            method: method.to_string(),
            path: path.to_string(),
            status: parts.status.as_u16(),
            content_type: parts
                .headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            body: body.clone(),
        },
    );
    Response::from_parts(parts, Body::from(body))
}
