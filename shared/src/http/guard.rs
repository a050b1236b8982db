//! Host and Origin checks (DNS-rebinding protection, browser origins), with the one grammar
//! of [`crate::config::origin`]: a value outside it is refused, whatever the allow list says.
//!
//! The `Host` check runs before anything else reads the request — before the 401 challenge
//! and the protected-resource metadata, which name the endpoint after the `Host` — and the
//! `Origin` check right after authentication, so a foreign page never gets past the door.

use http::{HeaderMap, Response, StatusCode, header};
use serde_json::json;

use super::{ResponseBody, fixed};
use crate::config::Config;
use crate::config::origin;

fn forbidden(message: &str) -> Box<Response<ResponseBody>> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}});
    Box::new(fixed(
        StatusCode::FORBIDDEN,
        "application/json",
        body.to_string(),
    ))
}

/// Whether `origin` (an `Origin` header value) is one of `MCP_ALLOWED_ORIGINS`.
pub(super) fn origin_allowed(config: &Config, origin: &str) -> bool {
    origin::origin_allowed(&config.allowed_origins, origin)
}

/// Refuses a foreign `Host` with 403 (no check when `MCP_ALLOWED_HOSTS` is empty).
pub fn check_host(config: &Config, headers: &HeaderMap) -> Result<(), Box<Response<ResponseBody>>> {
    if config.allowed_hosts.is_empty() {
        return Ok(());
    }
    if let Some(host) = headers.get(header::HOST) {
        let host = host.to_str().map_err(|_| forbidden("Host não permitido"))?;
        if !origin::host_allowed(&config.allowed_hosts, host) {
            return Err(forbidden("Host não permitido"));
        }
    }
    Ok(())
}

/// Refuses a foreign `Origin` with 403 (requests without one pass).
pub fn check_origin(
    config: &Config,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin
            .to_str()
            .map_err(|_| forbidden("Origem não permitida"))?;
        if !origin_allowed(config, origin) {
            return Err(forbidden("Origem não permitida"));
        }
    }
    Ok(())
}

/// Both checks: `Host`, then `Origin`.
pub fn check(config: &Config, headers: &HeaderMap) -> Result<(), Box<Response<ResponseBody>>> {
    check_host(config, headers)?;
    check_origin(config, headers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
        }
        headers
    }

    #[test]
    fn loopback_hosts_and_origins_pass_foreign_ones_do_not() {
        let config = Config::default();
        for host in ["localhost:3000", "127.0.0.1", "[::1]:3000", "LOCALHOST"] {
            assert!(check(&config, &headers(host, None)).is_ok(), "{host}");
        }
        for host in [
            "evil.example.com",
            "127.0.0.1.evil.com",
            "localhost.evil:3000",
            "localhost:1\", x=\"y",
            "localhost:3000/evil",
        ] {
            assert!(check(&config, &headers(host, None)).is_err(), "{host}");
        }
        for origin in [
            "http://localhost:5173",
            "http://127.0.0.1",
            "http://[::1]:8080",
        ] {
            assert!(origin_allowed(&config, origin), "{origin}");
        }
        for origin in [
            "https://evil.example.com",
            "http://localhost.evil.com",
            "null",
            "file://x",
            "http://127.0.0.1:80@evil",
            "http://localhost:abc",
            "http://[::1]evil:1",
        ] {
            assert!(!origin_allowed(&config, origin), "{origin}");
        }
        let mut open = Config::default();
        open.allowed_hosts.clear();
        assert!(check_host(&open, &headers("anything.example", None)).is_ok());
    }
}
