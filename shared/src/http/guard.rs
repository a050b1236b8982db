//! Host and Origin checks (DNS-rebinding protection, browser origins), run before anything
//! else reads the request, so a foreign page never gets past the door whatever it sends.

use http::{HeaderMap, Response, StatusCode, header};
use serde_json::json;

use super::{ResponseBody, fixed};
use crate::config::Config;

fn forbidden(message: &str) -> Box<Response<ResponseBody>> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}});
    Box::new(fixed(
        StatusCode::FORBIDDEN,
        "application/json",
        body.to_string(),
    ))
}

/// Splits `host[:port]` (IPv6 in brackets) into host and port.
fn split_authority(authority: &str) -> (String, Option<u16>) {
    let authority = authority.trim().to_ascii_lowercase();
    if let Some(rest) = authority.strip_prefix('[')
        && let Some((host, tail)) = rest.split_once(']')
    {
        let port = tail.strip_prefix(':').and_then(|p| p.parse().ok());
        return (format!("[{host}]"), port);
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') => (host.to_owned(), port.parse().ok()),
        _ => (authority, None),
    }
}

pub(super) fn host_allowed(config: &Config, host: &str) -> bool {
    if config.allowed_hosts.is_empty() {
        return true;
    }
    let (name, port) = split_authority(host);
    config.allowed_hosts.iter().any(|allowed| {
        let (allowed_name, allowed_port) = split_authority(allowed);
        let same_name = allowed_name == name
            || (allowed_name == "::1" && name == "[::1]")
            || (allowed_name == "[::1]" && name == "::1");
        same_name && allowed_port.is_none_or(|p| Some(p) == port)
    })
}

pub(super) fn origin_allowed(config: &Config, origin: &str) -> bool {
    let Some((scheme, authority)) = origin.trim().split_once("://") else {
        return false;
    };
    let scheme = scheme.to_ascii_lowercase();
    let (name, port) = split_authority(authority);
    let default_port = match scheme.as_str() {
        "https" => 443,
        "http" => 80,
        _ => return false,
    };
    let port = port.unwrap_or(default_port);
    config.allowed_origins.iter().any(|allowed| {
        let Some((allowed_scheme, allowed_authority)) = allowed.split_once("://") else {
            return false;
        };
        if !allowed_scheme.eq_ignore_ascii_case(&scheme) {
            return false;
        }
        let (allowed_name, allowed_port) = match allowed_authority.strip_suffix(":*") {
            Some(host) => (split_authority(host).0, None),
            None => {
                let (host, explicit) = split_authority(allowed_authority);
                (host, Some(explicit.unwrap_or(default_port)))
            }
        };
        allowed_name == name && allowed_port.is_none_or(|p| p == port)
    })
}

/// Refuses a foreign `Host` or `Origin` with 403.
pub fn check(config: &Config, headers: &HeaderMap) -> Result<(), Box<Response<ResponseBody>>> {
    if let Some(host) = headers.get(header::HOST) {
        let host = host.to_str().map_err(|_| forbidden("Forbidden host"))?;
        if !host_allowed(config, host) {
            return Err(forbidden("Forbidden host"));
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().map_err(|_| forbidden("Forbidden origin"))?;
        if !origin_allowed(config, origin) {
            return Err(forbidden("Forbidden origin"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts_and_origins_pass_foreign_ones_do_not() {
        let config = Config::default();
        for host in ["localhost:3000", "127.0.0.1", "[::1]:3000", "LOCALHOST"] {
            assert!(host_allowed(&config, host), "{host}");
        }
        for host in [
            "evil.example.com",
            "127.0.0.1.evil.com",
            "localhost.evil:3000",
        ] {
            assert!(!host_allowed(&config, host), "{host}");
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
        ] {
            assert!(!origin_allowed(&config, origin), "{origin}");
        }
        let mut open = Config::default();
        open.allowed_hosts.clear();
        open.allowed_origins = vec!["https://app.example.com".into()];
        assert!(host_allowed(&open, "anything.example"));
        assert!(origin_allowed(&open, "https://app.example.com"));
        assert!(origin_allowed(&open, "https://app.example.com:443"));
        assert!(!origin_allowed(&open, "https://app.example.com:8443"));
        assert!(!origin_allowed(&open, "http://app.example.com"));
    }
}
