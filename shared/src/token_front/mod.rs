//! The token front (HT-1, HD-2): a small OAuth 2.1 authorization server, served by this same
//! function, for hosts that connect to a remote server with OAuth or not at all (Claude's and
//! ChatGPT's connectors). The person pastes a billing API token into our page and chooses what
//! the host may do with it (consult only, or consult and change); the host gets an access
//! token of the front's own, the billing token sealed with this resource, an expiry and that
//! consent ([`access`]), which the HTTP front opens back into the billing token on each
//! request. The billing token itself never leaves the server again.
//!
//! Off by default (`MCP_TOKEN_FRONT=on` turns it on): then none of its paths is served and the
//! protected-resource metadata is what it was. On, it lists itself first in that metadata's
//! `authorization_servers`, and answers:
//! - its metadata (RFC 8414, also at the OpenID Connect Discovery paths) — [`endpoint`];
//! - client registration (RFC 7591) and client ID metadata documents — [`register`],
//!   [`client`], [`cimd`];
//! - the authorization page — [`authorize`], [`page`];
//! - the token endpoint — [`token`].
//!
//! It keeps no state of its own: client ids, forms, codes and access tokens are sealed
//! ([`seal`]) with a key from Secrets Manager ([`key`], [`secrets`]) or, locally, one made at
//! start; a code's and a confirmation form's single use are the confirmation store's
//! conditional writes. Nothing about a token is logged.
//!
//! A front module of its own, below the HTTP front (`http`), which routes to it, checks the
//! `Host`, reads the body and names the endpoint before handing a request over; it imports
//! nothing of `http`.

mod access;
mod authorize;
mod cimd;
mod client;
mod endpoint;
mod key;
mod page;
mod params;
mod register;
mod seal;
mod secrets;
mod token;

use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use serde_json::json;

pub use access::{AccessRefusal, Opened, is_access_token};
pub use endpoint::{Route, Urls, authorization_servers};

use crate::body::{ResponseBody, fixed};
use crate::config::Config;
use crate::confirm::{Clock, NonceStore};
use crate::kobana::KobanaClient;
use endpoint::Endpoint;
use params::{json_answer, oauth_error};

/// Methods the front's JSON endpoints take from a browser.
const CORS_METHODS: &str = "GET, POST, OPTIONS";
/// Request headers a browser-based client sends them.
const CORS_HEADERS: &str = "Authorization, Content-Type, Accept, Mcp-Protocol-Version";
/// How long its metadata may be cached, in seconds.
const METADATA_MAX_AGE: &str = "public, max-age=3600";

/// Largest body any of the front's endpoints reads (the authorization page's form).
pub const MAX_BODY_BYTES: usize = authorize::MAX_FORM_BYTES;

/// A request to the front, its body read (`None`: longer than [`MAX_BODY_BYTES`] or
/// unreadable). One concrete type, so the front is compiled once whatever the entry point.
pub type FrontRequest = Request<Option<Bytes>>;

/// The front, built once with the app.
pub struct TokenFront {
    keys: key::Keys,
    store: Arc<dyn NonceStore>,
    clock: Clock,
    kobana: KobanaClient,
    fetcher: cimd::Fetcher,
    kobana_host: String,
    kobana_environment: &'static str,
    refused_notice: String,
}

impl std::fmt::Debug for TokenFront {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenFront").finish_non_exhaustive()
    }
}

/// Why the front could not be built.
pub type FrontError = seal::KeyError;

/// The answer to a request on one of the front's routes with a `Host` the front refuses.
pub fn forbidden_host() -> Response<ResponseBody> {
    oauth_error(StatusCode::FORBIDDEN, "invalid_request", "forbidden host")
}

impl TokenFront {
    /// The front when the configuration turns it on (no I/O: a configured secret is fetched
    /// on first use).
    pub fn new(
        config: &Config,
        store: Arc<dyn NonceStore>,
        clock: Clock,
        kobana: KobanaClient,
    ) -> Result<Option<Self>, FrontError> {
        let front = &config.token_front;
        if !front.enabled {
            return Ok(None);
        }
        let kobana_host = config
            .kobana_api_url
            .split_once("://")
            .map_or(config.kobana_api_url.as_str(), |(_, host)| host)
            .to_owned();
        let kobana_environment = if kobana_host.contains("sandbox") {
            "sandbox"
        } else {
            "produção"
        };
        let refused_notice = format!(
            "O Kobana recusou este token. Confira se você copiou o token inteiro e se ele é do \
             ambiente de {kobana_environment} ({kobana_host})."
        );
        Ok(Some(Self {
            keys: key::Keys::new(front.key_secret.clone())?,
            store,
            clock,
            kobana,
            fetcher: cimd::Fetcher::new(front.loopback_client_metadata),
            kobana_host,
            kobana_environment,
            refused_notice,
        }))
    }

    /// Answers one request on one of the front's routes. `urls` is the endpoint the HTTP front
    /// named for it (`None`: nothing trustworthy names it), its `Host` already checked.
    pub async fn handle(
        &self,
        route: Route,
        urls: Option<Urls>,
        request: FrontRequest,
    ) -> Response<ResponseBody> {
        let Some(urls) = urls else {
            return oauth_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the public URL of this server is unknown: set MCP_PUBLIC_URL",
            );
        };
        let endpoint = route.endpoint;
        let method = request.method().clone();
        let mut response = match (endpoint, &method) {
            (Endpoint::Authorize, &Method::GET) => self.start(&urls, &request).await,
            (Endpoint::Authorize, &Method::POST) => self.submit(&urls, &request).await,
            (_, &Method::OPTIONS) if endpoint != Endpoint::Authorize => preflight(),
            (Endpoint::Metadata, &Method::GET | &Method::HEAD) => metadata(&urls),
            (Endpoint::Jwks, &Method::GET | &Method::HEAD) => {
                json_answer(StatusCode::OK, &json!({"keys": []}))
            }
            (Endpoint::Register, &Method::POST) => self.register(&request).await,
            (Endpoint::Token, &Method::POST) => self.exchange(&request).await,
            _ => oauth_error(
                StatusCode::METHOD_NOT_ALLOWED,
                "invalid_request",
                "method not allowed",
            ),
        };
        if endpoint != Endpoint::Authorize {
            // Public JSON endpoints without cookies or credentials: any origin may read them.
            response.headers_mut().insert(
                header::ACCESS_CONTROL_ALLOW_ORIGIN,
                HeaderValue::from_static("*"),
            );
        }
        response
    }
}

fn preflight() -> Response<ResponseBody> {
    let mut response = fixed(StatusCode::NO_CONTENT, "text/plain", "");
    let headers = response.headers_mut();
    for (name, value) in [
        (header::ACCESS_CONTROL_ALLOW_METHODS, CORS_METHODS),
        (header::ACCESS_CONTROL_ALLOW_HEADERS, CORS_HEADERS),
        (header::ACCESS_CONTROL_MAX_AGE, "7200"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The authorization server metadata (RFC 8414). It also carries the three members OpenID
/// Connect Discovery requires (`jwks_uri`, `subject_types_supported`,
/// `id_token_signing_alg_values_supported`), because behind an execute-api URL the
/// discovery path clients reach is OIDC's; no ID token is ever issued (no `openid` scope).
/// Cacheable, and varying on what the endpoint was named from (TF-9).
fn metadata(urls: &Urls) -> Response<ResponseBody> {
    let body = json!({
        "issuer": urls.issuer,
        "authorization_endpoint": urls.endpoint(Endpoint::Authorize),
        "token_endpoint": urls.endpoint(Endpoint::Token),
        "registration_endpoint": urls.endpoint(Endpoint::Register),
        "jwks_uri": urls.endpoint(Endpoint::Jwks),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": crate::access::scopes_supported(),
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["none"],
        "ui_locales_supported": ["pt-BR"],
        "service_documentation": "https://docs.billing.kobana.com.br",
    });
    let mut response = fixed(StatusCode::OK, "application/json", body.to_string());
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(METADATA_MAX_AGE),
    );
    if let Some(vary) = urls.vary {
        headers.append(header::VARY, HeaderValue::from_static(vary));
    }
    response
}
