//! CORS for browser clients (web-based MCP clients, in-browser agents).
//!
//! Our own small module rather than `tower-http`'s `CorsLayer`: the app is one
//! `Request → Response` function shared by Lambda and the local server (not a tower stack),
//! the allowed origins use the guard's own matching (`:*` for any port, default ports), and
//! the two routes need different policies:
//!
//! - `/mcp`: only the origins of `MCP_ALLOWED_ORIGINS`. Their preflight is answered and their
//!   responses carry `Access-Control-Allow-Origin: <origin>`; any other origin gets no CORS
//!   header at all (and the guard's 403), so the browser refuses the page the answer.
//! - the protected-resource metadata: public by nature (RFC 9728), readable from any origin.
//!
//! Every `/mcp` answer says `Vary: Origin`, since its CORS headers depend on it.

use http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};

use super::{ResponseBody, fixed, full, guard};
use crate::config::Config;

/// Request headers MCP clients send (allowed in a preflight).
pub const ALLOW_HEADERS: &str = "Authorization, Content-Type, Accept, Mcp-Protocol-Version, \
                                 Mcp-Method, Mcp-Name, Last-Event-ID";
/// Response headers MCP clients read (exposed to the page).
pub const EXPOSE_HEADERS: &str = "WWW-Authenticate, Mcp-Protocol-Version";
const MCP_METHODS: &str = "GET, POST, DELETE, OPTIONS";
const METADATA_METHODS: &str = "GET, OPTIONS";
/// How long a browser may cache a preflight, in seconds (Chromium's own cap).
const MAX_AGE: &str = "7200";

/// Which CORS policy a path gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The MCP endpoint: allowed origins only.
    Mcp,
    /// The protected-resource metadata: any origin.
    Metadata,
    /// Anything else (answered 404, no CORS).
    Other,
}

impl Route {
    /// The route of a request path.
    pub fn of(path: &str) -> Self {
        if super::is_metadata_path(path) {
            Route::Metadata
        } else if super::is_mcp_path(path) {
            Route::Mcp
        } else {
            Route::Other
        }
    }
}

/// Whether `request` is a CORS preflight (or any `OPTIONS`) this module answers itself.
pub fn answers(route: Route, method: &Method) -> bool {
    route != Route::Other && method == Method::OPTIONS
}

/// Answers an `OPTIONS` request: 204 with the CORS grant for an allowed origin (any origin on
/// the metadata), 403 without any CORS header for a refused one or a foreign `Host`.
pub fn preflight(config: &Config, route: Route, headers: &HeaderMap) -> Response<ResponseBody> {
    let methods = if route == Route::Metadata {
        METADATA_METHODS
    } else {
        MCP_METHODS
    };
    if route == Route::Mcp
        && let Err(refused) = guard::check(config, headers)
    {
        tracing::debug!("CORS preflight refused");
        return *refused;
    }
    let mut response = Response::builder()
        .status(StatusCode::NO_CONTENT)
        .body(full(""))
        .unwrap_or_else(|_| fixed(StatusCode::NO_CONTENT, "text/plain", ""));
    let out = response.headers_mut();
    out.insert(header::ALLOW, HeaderValue::from_static(methods));
    if let Some(origin) = headers.get(header::ORIGIN) {
        grant(route, origin.clone(), out);
        out.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(methods),
        );
        out.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(ALLOW_HEADERS),
        );
        out.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static(MAX_AGE),
        );
    }
    if route == Route::Mcp {
        out.append(header::VARY, HeaderValue::from_static("Origin"));
    }
    response
}

/// Adds the CORS headers to an actual (non-preflight) answer. `origin` is the request's
/// `Origin` header; a refused origin gets none.
pub fn decorate(
    config: &Config,
    route: Route,
    origin: Option<&HeaderValue>,
    headers: &mut HeaderMap,
) {
    match route {
        Route::Other => {}
        // Always, Origin or not: a shared cache may hand a non-browser's copy to a browser.
        Route::Metadata => grant(route, HeaderValue::from_static("*"), headers),
        Route::Mcp => {
            headers.append(header::VARY, HeaderValue::from_static("Origin"));
            let allowed = origin
                .and_then(|o| o.to_str().ok())
                .is_some_and(|o| guard::origin_allowed(config, o));
            if let (true, Some(origin)) = (allowed, origin) {
                grant(route, origin.clone(), headers);
            }
        }
    }
}

/// Grants `origin` (the metadata: any origin).
fn grant(route: Route, origin: HeaderValue, headers: &mut HeaderMap) {
    let allow = if route == Route::Metadata {
        HeaderValue::from_static("*")
    } else {
        origin
    };
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, allow);
    headers.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSE_HEADERS),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(origin: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("127.0.0.1:3000"));
        headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        headers.insert(
            "access-control-request-method",
            HeaderValue::from_static("POST"),
        );
        headers
    }

    #[test]
    fn preflight_grants_allowed_origins_and_refuses_others_without_cors_headers() {
        let config = Config::default();
        let ok = preflight(&config, Route::Mcp, &request("http://localhost:5173"));
        assert_eq!(ok.status(), StatusCode::NO_CONTENT);
        let h = ok.headers();
        assert_eq!(
            h[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "http://localhost:5173"
        );
        assert!(
            h[header::ACCESS_CONTROL_ALLOW_HEADERS]
                .to_str()
                .unwrap()
                .contains("Mcp-Protocol-Version")
        );
        assert_eq!(h[header::VARY], "Origin");
        let refused = preflight(&config, Route::Mcp, &request("https://evil.example"));
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        assert!(
            refused
                .headers()
                .keys()
                .all(|k| !k.as_str().starts_with("access-control-")),
            "{:?}",
            refused.headers()
        );
        let metadata = preflight(&config, Route::Metadata, &request("https://evil.example"));
        assert_eq!(metadata.status(), StatusCode::NO_CONTENT);
        assert_eq!(metadata.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    }

    #[test]
    fn answers_expose_the_headers_clients_read_only_to_allowed_origins() {
        let config = Config::default();
        let mut headers = HeaderMap::new();
        let allowed = HeaderValue::from_static("http://127.0.0.1:8080");
        decorate(&config, Route::Mcp, Some(&allowed), &mut headers);
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], allowed);
        assert!(
            headers[header::ACCESS_CONTROL_EXPOSE_HEADERS]
                .to_str()
                .unwrap()
                .contains("WWW-Authenticate")
        );
        let mut headers = HeaderMap::new();
        let refused = HeaderValue::from_static("https://evil.example");
        decorate(&config, Route::Mcp, Some(&refused), &mut headers);
        assert!(headers.get(header::ACCESS_CONTROL_ALLOW_ORIGIN).is_none());
        assert_eq!(headers[header::VARY], "Origin");
        let mut headers = HeaderMap::new();
        decorate(&config, Route::Metadata, None, &mut headers);
        assert_eq!(headers[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
    }
}
