//! The front's paths and its identity (issuer, endpoint URLs).
//!
//! Every path may sit under a prefix (API Gateway's stage: `/Prod/oauth/token`). The issuer is
//! the MCP endpoint's URL without its last segment: `https://host/Prod` for
//! `https://host/Prod/mcp`. Clients look for its metadata in the places RFC 8414 and OpenID
//! Connect Discovery name, with the issuer's path inserted after the host
//! (`/.well-known/oauth-authorization-server/Prod`) or appended
//! (`/Prod/.well-known/openid-configuration`); all of them are answered, since behind an
//! execute-api URL only the appended form reaches the function.

use crate::config::Config;

/// RFC 8414's well-known segment.
const AS_METADATA: &str = "/.well-known/oauth-authorization-server";
/// OpenID Connect Discovery's well-known segment (the same document).
const OIDC_METADATA: &str = "/.well-known/openid-configuration";
/// Where the front's own endpoints live, under the prefix.
const BASE: &str = "/oauth";

/// One of the front's endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// The authorization server metadata (RFC 8414).
    Metadata,
    /// An empty JWK set (the front signs nothing; OIDC discovery requires the member).
    Jwks,
    /// Dynamic client registration (RFC 7591).
    Register,
    /// The authorization page.
    Authorize,
    /// The token endpoint.
    Token,
}

impl Endpoint {
    const NAMED: [(Endpoint, &'static str); 4] = [
        (Endpoint::Jwks, "jwks"),
        (Endpoint::Register, "register"),
        (Endpoint::Authorize, "authorize"),
        (Endpoint::Token, "token"),
    ];

    /// The last path segment of a named endpoint (`None` for the metadata).
    fn segment(self) -> Option<&'static str> {
        Self::NAMED
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, name)| *name)
    }
}

/// A request path the front answers: which endpoint, and the prefix before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The path before the front's part (`""`, or `/Prod`).
    pub prefix: String,
}

impl Route {
    /// The route of `path`, if the front answers it.
    pub fn of(path: &str) -> Option<Self> {
        for segment in [AS_METADATA, OIDC_METADATA] {
            if let Some(at) = path.find(segment) {
                let rest = &path[at + segment.len()..];
                if rest.is_empty() || rest.starts_with('/') {
                    // The issuer's path is before the segment (appended form) or after it
                    // (inserted form).
                    let prefix = format!("{}{rest}", &path[..at]);
                    return Some(Self::new(Endpoint::Metadata, &prefix));
                }
            }
        }
        let (head, last) = path.rsplit_once('/')?;
        let prefix = head.strip_suffix(BASE)?;
        let endpoint = Endpoint::NAMED
            .iter()
            .find(|(_, name)| *name == last)
            .map(|(e, _)| *e)?;
        Some(Self::new(endpoint, prefix))
    }

    fn new(endpoint: Endpoint, prefix: &str) -> Self {
        Self {
            endpoint,
            prefix: prefix.to_owned(),
        }
    }
}

/// The front's URLs for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Urls {
    /// The issuer identifier.
    pub issuer: String,
    /// The MCP endpoint (the protected resource), which codes and access tokens are bound to.
    pub resource: String,
    /// The request header a cache of a document naming the endpoint must vary on.
    pub vary: Option<&'static str>,
}

impl Urls {
    /// The URLs that go with the MCP endpoint `resource`, as the HTTP front named it for the
    /// request (`MCP_PUBLIC_URL`, API Gateway's request context, or a checked `Host`, under
    /// the route's prefix), and what that name varies on.
    pub fn new(resource: String, vary: Option<&'static str>) -> Self {
        Self {
            issuer: issuer_of(&resource),
            resource,
            vary,
        }
    }

    /// The URL of a named endpoint.
    pub fn endpoint(&self, endpoint: Endpoint) -> String {
        format!(
            "{}{BASE}/{}",
            self.issuer,
            endpoint.segment().unwrap_or_default()
        )
    }
}

/// The issuer that goes with the MCP endpoint `resource`: the URL without its last segment.
pub fn issuer_of(resource: &str) -> String {
    let start = resource.find("://").map_or(0, |i| i + 3);
    match resource[start..].rfind('/') {
        Some(i) => resource[..start + i].to_owned(),
        None => resource.to_owned(),
    }
}

/// The `authorization_servers` of the protected-resource metadata for `resource`: the front's
/// issuer first when it is on, then the configured ones.
pub fn authorization_servers(config: &Config, resource: &str) -> Vec<String> {
    let mut servers = Vec::with_capacity(config.authorization_servers.len() + 1);
    if config.token_front.enabled {
        servers.push(issuer_of(resource));
    }
    servers.extend(config.authorization_servers.iter().cloned());
    servers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_discovery_form_and_endpoint_is_routed_with_its_prefix() {
        let cases = [
            (
                "/.well-known/oauth-authorization-server",
                Endpoint::Metadata,
                "",
            ),
            (
                "/.well-known/oauth-authorization-server/Prod",
                Endpoint::Metadata,
                "/Prod",
            ),
            (
                "/Prod/.well-known/openid-configuration",
                Endpoint::Metadata,
                "/Prod",
            ),
            (
                "/.well-known/openid-configuration/Prod",
                Endpoint::Metadata,
                "/Prod",
            ),
            ("/oauth/authorize", Endpoint::Authorize, ""),
            ("/Prod/oauth/token", Endpoint::Token, "/Prod"),
            ("/Prod/oauth/register", Endpoint::Register, "/Prod"),
            ("/oauth/jwks", Endpoint::Jwks, ""),
        ];
        for (path, endpoint, prefix) in cases {
            assert_eq!(
                Route::of(path),
                Some(Route::new(endpoint, prefix)),
                "{path}"
            );
        }
        for path in [
            "/mcp",
            "/authorize",
            "/oauth/other",
            "/oauthx/token",
            "/.well-known/oauth-authorization-serverx",
            "/.well-known/oauth-protected-resource/mcp",
        ] {
            assert_eq!(Route::of(path), None, "{path}");
        }
    }

    #[test]
    fn the_issuer_is_the_mcp_url_without_its_last_segment() {
        assert_eq!(
            issuer_of("https://mcp.example.com/mcp"),
            "https://mcp.example.com"
        );
        assert_eq!(
            issuer_of("https://x.execute-api.aws/Prod/mcp"),
            "https://x.execute-api.aws/Prod"
        );
        assert_eq!(
            issuer_of("http://127.0.0.1:3000/mcp"),
            "http://127.0.0.1:3000"
        );
        let urls = Urls::new("https://x.execute-api.aws/Prod/mcp".into(), None);
        assert_eq!(urls.resource, "https://x.execute-api.aws/Prod/mcp");
        assert_eq!(
            urls.endpoint(Endpoint::Token),
            "https://x.execute-api.aws/Prod/oauth/token"
        );
    }
}
