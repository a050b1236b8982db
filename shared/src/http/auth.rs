//! Bearer authentication and the RFC 9728 protected-resource metadata (A-3).
//!
//! The token is read here, turned into a [`Principal`] and removed from the request before
//! anything else (rmcp included) sees the headers, so it cannot end up in a log line.

use std::sync::Arc;

use http::{HeaderValue, Request, Response, StatusCode, header};
use serde_json::json;

use super::{ResponseBody, fixed};
use crate::access::{AuthError, BearerToken, Principal, Resource};
use crate::config::Config;

const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// `scheme://host` of the request as the client addressed it.
pub(super) fn origin<B>(request: &Request<B>) -> String {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or("localhost");
    let loopback = ["localhost", "127.", "[::1]"]
        .iter()
        .any(|p| host.starts_with(p));
    let scheme = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .filter(|p| matches!(*p, "http" | "https"))
        .unwrap_or(if loopback { "http" } else { "https" });
    format!("{scheme}://{host}")
}

/// The MCP endpoint's canonical URL (the protected resource's identifier).
///
/// Derived from the request when `MCP_PUBLIC_URL` is unset: behind API Gateway's default URL
/// the path carries the stage (`/Prod/mcp`), and the metadata is served under it too
/// (`/Prod/.well-known/oauth-protected-resource/mcp`), so the prefix before the well-known
/// segment belongs to the resource.
fn resource_url<B>(config: &Config, request: &Request<B>) -> String {
    if let Some(url) = &config.public_url {
        return url.clone();
    }
    let path = request.uri().path();
    let mcp_path = match path.find(WELL_KNOWN) {
        Some(i) => {
            let suffix = &path[i + WELL_KNOWN.len()..];
            format!(
                "{}{}",
                &path[..i],
                if suffix.is_empty() { "/mcp" } else { suffix }
            )
        }
        None => path.to_owned(),
    };
    format!("{}{mcp_path}", origin(request))
}

/// Where the metadata of `resource` lives: RFC 9728 puts the well-known segment right after
/// the host (`https://host/.well-known/oauth-protected-resource/mcp`). A resource under a path
/// prefix (API Gateway's `/Prod/mcp`) gets its metadata under the same prefix, the only place
/// such a gateway can route (`https://host/Prod/.well-known/oauth-protected-resource/mcp`).
fn metadata_url(resource: &str) -> String {
    let Some(start) = resource.find("://").map(|i| i + 3) else {
        return format!("{resource}{WELL_KNOWN}");
    };
    let path_at = resource[start..]
        .find('/')
        .map_or(resource.len(), |i| start + i);
    let (origin, path) = resource.split_at(path_at);
    match path.rfind('/') {
        Some(last) if last > 0 => format!("{origin}{}{WELL_KNOWN}{}", &path[..last], &path[last..]),
        _ => format!("{origin}{WELL_KNOWN}{path}"),
    }
}

/// The granular scopes, for `scopes_supported`: `<resource>:read` and `<resource>:write`.
/// The coarse aliases (`read`, `write`, `all`) are still understood in a token but not
/// published, so a client that asks for everything it sees does not ask for an alias.
pub fn scopes_supported() -> Vec<String> {
    let mut scopes = Vec::with_capacity(Resource::ALL.len() * 2);
    for r in Resource::ALL {
        scopes.push(format!("{}:read", r.slug()));
        scopes.push(format!("{}:write", r.slug()));
    }
    scopes
}

/// What a client asks for by default: the challenge's `scope` names every read scope, so
/// write access is a deliberate choice (the client adds the `:write` scopes it wants).
pub fn default_scope() -> String {
    Resource::ALL
        .iter()
        .map(|r| format!("{}:read", r.slug()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `GET /.well-known/oauth-protected-resource[/mcp]`.
pub fn metadata_response<B>(config: &Config, request: &Request<B>) -> Response<ResponseBody> {
    let resource = resource_url(config, request);
    let body = json!({
        "authorization_servers": super::token_front::authorization_servers(config, &resource),
        "resource": resource,
        "scopes_supported": scopes_supported(),
        "bearer_methods_supported": ["header"],
        "resource_name": "Kobana — Faturamento Automático (MCP)",
        "resource_documentation": "https://docs.billing.kobana.com.br",
    });
    let mut response = fixed(StatusCode::OK, "application/json", body.to_string());
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    response
}

/// Reads the bearer token. On success the request carries an `Arc<Principal>` extension and
/// no `Authorization` header; on failure the answer is a 401 challenge.
pub fn authenticate<B>(
    config: &Config,
    mut request: Request<B>,
) -> Result<Request<B>, Box<Response<ResponseBody>>> {
    let header_value = request.headers().get(header::AUTHORIZATION);
    let result = match header_value {
        None => match &config.anonymous_token {
            Some(token) => Principal::from_token(BearerToken::new(token.clone()), now()),
            None => Err(AuthError::Missing),
        },
        Some(value) => match value.to_str() {
            Ok(text) => Principal::from_authorization(Some(text), now()),
            Err(_) => Err(AuthError::Malformed),
        },
    };
    match result {
        Ok(principal) => {
            request.headers_mut().remove(header::AUTHORIZATION);
            request.extensions_mut().insert(Arc::new(principal));
            Ok(request)
        }
        Err(error) => Err(Box::new(challenge(config, &request, &error))),
    }
}

fn challenge<B>(
    config: &Config,
    request: &Request<B>,
    error: &AuthError,
) -> Response<ResponseBody> {
    let resource = resource_url(config, request);
    let mut value = format!(
        "Bearer resource_metadata=\"{}\", scope=\"{}\"",
        metadata_url(&resource),
        default_scope()
    );
    if let Some(code) = error.oauth_code() {
        value.push_str(&format!(", error=\"{code}\""));
    }
    let body = json!({
        "error": error.oauth_code().unwrap_or("invalid_token"),
        "error_description": error.to_string(),
    });
    let mut response = fixed(
        StatusCode::UNAUTHORIZED,
        "application/json",
        body.to_string(),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a3_metadata_url_puts_well_known_before_the_path() {
        assert_eq!(
            metadata_url("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("https://x.execute-api.us-east-1.amazonaws.com/Prod/mcp"),
            "https://x.execute-api.us-east-1.amazonaws.com/Prod/.well-known/oauth-protected-resource/mcp"
        );
    }

    #[test]
    fn a3_resource_url_follows_the_request() {
        let config = Config::default();
        let req = Request::builder()
            .uri("/.well-known/oauth-protected-resource/mcp")
            .header("host", "127.0.0.1:3000")
            .body(())
            .unwrap();
        assert_eq!(resource_url(&config, &req), "http://127.0.0.1:3000/mcp");
        let req = Request::builder()
            .uri("/mcp")
            .header("host", "mcp.example.com")
            .body(())
            .unwrap();
        assert_eq!(resource_url(&config, &req), "https://mcp.example.com/mcp");
        let req = Request::builder()
            .uri("/Prod/.well-known/oauth-protected-resource/mcp")
            .header("host", "x.execute-api.sa-east-1.amazonaws.com")
            .body(())
            .unwrap();
        assert_eq!(
            resource_url(&config, &req),
            "https://x.execute-api.sa-east-1.amazonaws.com/Prod/mcp"
        );
    }
}
