//! The HTTP front: routes, the OAuth protected-resource metadata, the 401 challenge, and the
//! hand-off to rmcp's stateless Streamable HTTP service for everything MCP.
//!
//! Gates run in this order: route, `Host` (403, before anything names the endpoint),
//! authentication (401 before anything is parsed; the token front's access token opened),
//! `Origin` (403), the body within its size limit (413), the byte scan that bounds its depth
//! and node count before any parse (400), its one parse and JSON-RPC shape (400, or -32602 for
//! params a served method cannot take), then rmcp's own checks (method, content type, protocol
//! era and headers) and the handler. The token front's routes go to [`crate::token_front`].

mod auth;
mod body;
mod cors;
mod guard;
mod identity;
mod jsonrpc;
mod local;
mod metadata;
mod request_line;
mod token_help;
mod unknown_method;

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Request, Response, StatusCode, header};
use http_body::Body;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use body::{MAX_DEPTH as MAX_BODY_DEPTH, MAX_NODES as MAX_BODY_NODES};
pub use identity::GatewayContext;
pub use local::serve;

use crate::catalog::Narrowing;
use crate::config::origin::AllowedOrigin;
use crate::config::{Config, ConfigError};
use crate::confirm::{Clock, DynamoStore, MemoryStore, NonceStore, system_clock};
use crate::kobana::KobanaClient;
use crate::server::{AppState, KobanaMcp};
use crate::token_front::{self, TokenFront};

pub(crate) use crate::body::fixed;
use crate::body::full;
pub use crate::body::{BoxError, ResponseBody};
use crate::deferred::DeferredSlot;

/// Why the app could not be built.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The Kobana client could not be built.
    #[error("kobana client: {0}")]
    Kobana(Box<crate::kobana::KobanaError>),
    /// A configuration value is outside what the front accepts.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// The token front could not make its key.
    #[error("token front: {0}")]
    TokenFront(#[from] token_front::FrontError),
}

/// The whole server as one `http::Request → http::Response` function, shared by the Lambda
/// entry point and the local server. Cheap to clone.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    config: Config,
    telemetry: request_line::Telemetry,
    mcp: StreamableHttpService<KobanaMcp, NeverSessionManager>,
    token_front: Option<TokenFront>,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App").finish_non_exhaustive()
    }
}

/// Whether `path` is the protected-resource metadata (root or path-suffixed form).
pub(crate) fn is_metadata_path(path: &str) -> bool {
    path.ends_with("/.well-known/oauth-protected-resource")
        || path.ends_with("/.well-known/oauth-protected-resource/mcp")
}

/// Whether `path` is the MCP endpoint (`/mcp`, or under a stage prefix such as `/Prod/mcp`).
pub(crate) fn is_mcp_path(path: &str) -> bool {
    path.ends_with("/mcp") && !is_metadata_path(path)
}

/// rmcp's (small, in-memory) answer rewritten: `splice` gets the whole answer and returns the
/// new body, or `None` to keep the answer as it is (rmcp answered an error, without the
/// stand-in a deferred answer looks for).
async fn spliced(
    response: Response<ResponseBody>,
    splice: impl FnOnce(&Bytes) -> Option<ResponseBody>,
) -> Response<ResponseBody> {
    let (mut parts, body) = response.into_parts();
    let answer = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            tracing::error!(%error, "could not read rmcp's answer");
            return fixed(
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "Erro interno do servidor",
            );
        }
    };
    match splice(&answer) {
        Some(body) => {
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, body)
        }
        None => Response::from_parts(parts, full(answer)),
    }
}

/// The client's narrowing headers, read once here and handed on beside the `Principal`; an
/// unknown toolset travels as the error text the handler answers with.
fn narrowing(headers: &http::HeaderMap) -> Result<Narrowing, String> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    Narrowing::parse(header("x-mcp-toolsets"), header("x-mcp-readonly"))
}

/// rmcp's own configuration: stateless, JSON answers, the body limit, and the same hosts and
/// origins as the front's checks (each origin with its port spelled, so rmcp admits exactly
/// what the front does).
fn rmcp_config(config: &Config) -> StreamableHttpServerConfig {
    let mut mcp_config = StreamableHttpServerConfig::default();
    mcp_config.legacy_session_mode = false;
    mcp_config.json_response = true;
    mcp_config.sse_keep_alive = None;
    mcp_config.sse_retry = None;
    mcp_config.max_request_body_bytes = config.max_body_bytes;
    mcp_config = if config.allowed_hosts.is_empty() {
        mcp_config.disable_allowed_hosts()
    } else {
        mcp_config.with_allowed_hosts(config.allowed_hosts.clone())
    };
    let origins = config
        .allowed_origins
        .iter()
        .filter_map(|entry| AllowedOrigin::parse(entry))
        .map(|entry| entry.for_rmcp());
    mcp_config
        .with_allowed_origins(origins)
        .enforce_origin_validation()
}

impl App {
    /// Builds the app with the store the configuration names (DynamoDB when
    /// `CONFIRMATIONS_TABLE` is set, else in memory) and the wall clock. No network I/O.
    pub fn new(config: Config) -> Result<Self, AppError> {
        let store: Arc<dyn NonceStore> = match &config.confirmations_table {
            Some(table) => Arc::new(DynamoStore::new(table.clone())),
            None => Arc::new(MemoryStore::new()),
        };
        Self::with_store(config, store, system_clock())
    }

    /// Builds the app with an explicit confirmation store and clock (tests inject both), and
    /// the audit store the configuration names (`AUDIT_TABLE`, else in memory).
    pub fn with_store(
        config: Config,
        store: Arc<dyn NonceStore>,
        clock: Clock,
    ) -> Result<Self, AppError> {
        let audit = crate::audit::store_for(&config);
        Self::with_audit(config, store, clock, audit)
    }

    /// Builds the app with explicit confirmation and audit stores (tests and the benchmark).
    pub fn with_audit(
        config: Config,
        store: Arc<dyn NonceStore>,
        clock: Clock,
        audit: Arc<dyn crate::audit::AuditStore>,
    ) -> Result<Self, AppError> {
        config.validate()?;
        let kobana = KobanaClient::new(&config).map_err(|e| AppError::Kobana(Box::new(e)))?;
        let token_front = TokenFront::new(&config, store.clone(), clock.clone(), kobana.clone())?;
        let state = Arc::new(AppState {
            kobana,
            store,
            clock,
            rows: config.rows,
            names: Default::default(),
            audit: crate::audit::trail_for(&config, audit),
            billing_clock: crate::format::BillingClock::new(config.billing_now),
        });
        let mcp_config = rmcp_config(&config);
        let mcp = StreamableHttpService::new(
            move || Ok(KobanaMcp::new(state.clone())),
            Arc::new(NeverSessionManager::default()),
            mcp_config,
        );
        Ok(Self {
            inner: Arc::new(Inner {
                telemetry: request_line::Telemetry::new(config.metrics),
                config,
                mcp,
                token_front,
            }),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// Answers one HTTP request, and writes its request line (and metrics) once the answer
    /// has been sent.
    pub async fn handle<B>(&self, mut request: Request<B>) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: std::fmt::Display,
    {
        let record = request_line::start(&mut request);
        let response = self.answer(request).await;
        request_line::finish(&self.inner.telemetry, record, response)
    }

    /// The token front's routes when it is on, else CORS around [`App::route`].
    async fn answer<B>(&self, request: Request<B>) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: std::fmt::Display,
    {
        if let Some(front) = &self.inner.token_front
            && let Some(route) = token_front::Route::of(request.uri().path())
        {
            // Boxed: the front's futures stay out of the endpoint's (and main's) layout.
            return Box::pin(self.to_front(front, route, request)).await;
        }
        let route = cors::Route::of(request.uri().path());
        if cors::answers(route, request.method()) {
            return cors::preflight(&self.inner.config, route, request.headers());
        }
        let origin = request.headers().get(header::ORIGIN).cloned();
        let mut response = self.route(request).await;
        cors::decorate(
            &self.inner.config,
            route,
            origin.as_ref(),
            response.headers_mut(),
        );
        response
    }

    /// Hands a request on one of the token front's routes to it: the `Host` checked, the
    /// endpoint named (under the route's prefix), the body read within the front's limit.
    async fn to_front<B>(
        &self,
        front: &TokenFront,
        route: token_front::Route,
        request: Request<B>,
    ) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Error: std::fmt::Display,
    {
        let config = &self.inner.config;
        if guard::check_host(config, request.headers()).is_err() {
            return token_front::forbidden_host();
        }
        let urls = identity::endpoint_under(config, &request, &route.prefix).map(|e| {
            let vary = e.vary();
            token_front::Urls::new(e.resource, vary)
        });
        let (parts, body) = request.into_parts();
        let bytes = jsonrpc::read_body(body, token_front::MAX_BODY_BYTES)
            .await
            .ok();
        front
            .handle(route, urls, Request::from_parts(parts, bytes))
            .await
    }

    /// Answers one HTTP request, CORS aside.
    async fn route<B>(&self, request: Request<B>) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: std::fmt::Display,
    {
        let path = request.uri().path().to_owned();
        if is_metadata_path(&path) {
            if let Err(response) = guard::check_host(&self.inner.config, request.headers()) {
                return *response;
            }
            return metadata::response(&self.inner.config, &request);
        }
        if !is_mcp_path(&path) {
            return fixed(
                StatusCode::NOT_FOUND,
                "application/json",
                r#"{"error":"not_found","message":"O endpoint MCP fica em /mcp."}"#,
            );
        }
        if request.method() != Method::POST {
            if let Err(response) = guard::check(&self.inner.config, request.headers()) {
                return *response;
            }
            return self.rmcp(request).await;
        }
        // The Host first (the challenge names the endpoint after it), then authentication (a
        // 401 is never era evidence), then the Origin, and only then is the body read.
        if let Err(response) = guard::check_host(&self.inner.config, request.headers()) {
            return *response;
        }
        let front = self.inner.token_front.as_ref();
        // Boxed, like the front's routes: opening an access token stays out of the layout.
        let authenticated = Box::pin(auth::authenticate(&self.inner.config, front, request));
        let request = match authenticated.await {
            Ok(request) => request,
            Err(response) => return *response,
        };
        if let Err(response) = guard::check_origin(&self.inner.config, request.headers()) {
            return *response;
        }
        let mut request = request;
        let narrowing = narrowing(request.headers());
        request.extensions_mut().insert(narrowing);
        let (parts, body) = request.into_parts();
        let bytes = match jsonrpc::read_body(body, self.inner.config.max_body_bytes).await {
            Ok(bytes) => bytes,
            Err(response) => return *response,
        };
        // The body's one parse (HD-1): scanned, read once, checked, then dropped before rmcp
        // reads the same bytes (its service takes a body, not a message; the scan bounds it).
        let message = jsonrpc::read_message(&bytes);
        request_line::note_message(&parts, message.as_ref().ok().map(|m| &m.value));
        if let Err(response) =
            message.and_then(|message| jsonrpc::check(&bytes, &message, &parts.headers))
        {
            return *response;
        }
        let mut request = Request::from_parts(parts, Full::new(bytes));
        let slot = Arc::new(DeferredSlot::default());
        request.extensions_mut().insert(slot.clone());
        let response = self.rmcp(request).await;
        match slot.take() {
            Some(deferred) => {
                spliced(response, |answer| crate::deferred::splice(answer, deferred)).await
            }
            None => unknown_method::worded(response).await,
        }
    }

    async fn rmcp<B>(&self, request: Request<B>) -> Response<ResponseBody>
    where
        B: Body + Send + 'static,
        B::Data: Send,
        B::Error: std::fmt::Display,
    {
        let response: Response<BoxBody<Bytes, Infallible>> = self.inner.mcp.handle(request).await;
        response.map(|body| body.map_err(|never| match never {}).boxed_unsync())
    }
}
