//! The RFC 9728 protected-resource metadata (A-3), served at
//! `/.well-known/oauth-protected-resource[/mcp]` under the endpoint's prefix.
//!
//! Which authorization servers it names is decided in one place,
//! [`authorization_servers`]: by default none (RK-5), since no server we know of
//! issues billing tokens, and an authorization server that cannot issue the token is never
//! advertised.

use http::{HeaderValue, Request, Response, StatusCode, header};
use serde_json::{Value, json};

use super::identity::{Endpoint, WELL_KNOWN, endpoint};
use super::{ResponseBody, fixed};
use crate::config::Config;

/// How long a client or shared cache may keep the metadata, as a `Cache-Control` value.
const CACHE_CONTROL: &str = "public, max-age=3600";

/// The authorization servers the metadata of `resource` names: the token front first when it
/// is on (`MCP_TOKEN_FRONT`, the one server we know issues billing tokens: the person's own),
/// then those of `MCP_AUTHORIZATION_SERVERS` (default none).
pub(crate) fn authorization_servers(config: &Config, resource: &str) -> Vec<String> {
    crate::token_front::authorization_servers(config, resource)
}

/// Where the metadata of `resource` lives: RFC 9728 puts the well-known segment right after
/// the host (`https://host/.well-known/oauth-protected-resource/mcp`). A resource under a path
/// prefix (API Gateway's `/Prod/mcp`) gets its metadata under the same prefix, the only place
/// such a gateway can route (`https://host/Prod/.well-known/oauth-protected-resource/mcp`).
pub(crate) fn metadata_url(resource: &str) -> String {
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

/// The metadata document of `endpoint`. `authorization_servers` is left out when there is
/// none (RFC 9728 makes it optional), rather than published empty.
fn document(config: &Config, endpoint: &Endpoint) -> Value {
    let mut body = json!({
        "resource": endpoint.resource,
        "scopes_supported": crate::access::scopes_supported(),
        "bearer_methods_supported": ["header"],
        "resource_name": "Kobana — Faturamento Automático (MCP)",
        "resource_documentation": "https://docs.billing.kobana.com.br",
    });
    let servers = authorization_servers(config, &endpoint.resource);
    if !servers.is_empty() {
        body["authorization_servers"] = json!(servers);
    }
    body
}

/// `GET /.well-known/oauth-protected-resource[/mcp]`: the document, cacheable, varying on
/// what the endpoint's identity was built from; a 500 naming `MCP_PUBLIC_URL` when nothing
/// trustworthy names the endpoint.
pub(crate) fn response<B>(config: &Config, request: &Request<B>) -> Response<ResponseBody> {
    let Some(endpoint) = endpoint(config, request) else {
        tracing::warn!("protected-resource metadata asked for, but the endpoint's URL is unknown");
        let body = json!({
            "error": "unknown_endpoint",
            "message": "O endereço público deste servidor não é conhecido: defina MCP_PUBLIC_URL \
                        (por exemplo https://mcp.example.com/mcp).",
        });
        let mut response = fixed(
            StatusCode::INTERNAL_SERVER_ERROR,
            "application/json",
            body.to_string(),
        );
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        return response;
    };
    let body = document(config, &endpoint);
    let mut response = fixed(StatusCode::OK, "application/json", body.to_string());
    let headers = response.headers_mut();
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(CACHE_CONTROL),
    );
    if let Some(vary) = endpoint.vary() {
        headers.append(header::VARY, HeaderValue::from_static(vary));
    }
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
    fn the_document_names_authorization_servers_only_when_configured() {
        let endpoint = Endpoint {
            resource: "https://mcp.example.com/mcp".into(),
            source: super::super::identity::Source::Configured,
        };
        let mut config = Config::default();
        assert!(
            document(&config, &endpoint)
                .get("authorization_servers")
                .is_none()
        );
        config.authorization_servers = vec!["https://auth.example".into()];
        assert_eq!(
            document(&config, &endpoint)["authorization_servers"],
            json!(["https://auth.example"])
        );
    }
}
