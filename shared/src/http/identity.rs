//! The endpoint's identity: the canonical URL of the MCP endpoint (the OAuth protected
//! resource), which the 401 challenge and the protected-resource metadata both name.
//!
//! It is never taken from what the client controls (BW-4). In order:
//!
//! 1. `MCP_PUBLIC_URL`, when set;
//! 2. under Lambda, what API Gateway (or a Function URL) reports in the event's request
//!    context: the domain the client reached and the path it asked for, so a deployment made
//!    without our template, custom domain or not, still names itself right;
//! 3. locally, the `Host` header, but only when the host check is on: the front answers 403
//!    to any other `Host` before it builds a challenge or the metadata.
//!
//! `X-Forwarded-Proto` is never read. When none of the three applies (a `Host` nobody checks,
//! no request context), the identity is unknown: the challenge names no metadata and the
//! metadata route says `MCP_PUBLIC_URL` is needed.

use http::Request;

use crate::config::Config;
use crate::config::origin::Authority;

/// The well-known segment of the protected-resource metadata (RFC 9728).
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
/// The MCP endpoint's own path segment.
const MCP_SEGMENT: &str = "/mcp";

/// What API Gateway reports about a request (its request context), attached to the request
/// by the Lambda entry point. REST API (payload 1.0) and HTTP API / Function URL (2.0) alike.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatewayContext {
    /// The domain the client reached (`requestContext.domainName`).
    pub domain_name: Option<String>,
    /// The path the client asked for, stage or base path included (`requestContext.path` in
    /// 1.0, `requestContext.http.path` in 2.0). On the execute-api domain it starts with the
    /// stage (`/Prod/mcp`); on a custom domain it is what the base path mapping left.
    pub path: Option<String>,
}

/// Where an [`Endpoint`] came from, which decides what a cache of the metadata must vary on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// `MCP_PUBLIC_URL`: the same for every request.
    Configured,
    /// API Gateway's request context: follows the domain the request reached.
    Gateway,
    /// A `Host` the host check admitted.
    Host,
}

/// The endpoint's canonical URL and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    /// The MCP endpoint's URL, e.g. `https://mcp.example.com/mcp`.
    pub resource: String,
    /// What it was built from.
    pub source: Source,
}

impl Endpoint {
    /// The request header a cache of a document naming this endpoint must vary on.
    pub fn vary(&self) -> Option<&'static str> {
        match self.source {
            Source::Configured => None,
            Source::Gateway | Source::Host => Some("Host"),
        }
    }
}

/// The endpoint `request` reached, or `None` when nothing trustworthy names it.
pub(crate) fn endpoint<B>(config: &Config, request: &Request<B>) -> Option<Endpoint> {
    let path = request.uri().path();
    let gateway_path = request
        .extensions()
        .get::<GatewayContext>()
        .and_then(|g| g.path.as_deref());
    // Without a path in the context, the request's own: lambda_http has put the stage in
    // front of it already (`/Prod/mcp`; the `$default` stage has no segment).
    let prefix = prefix(gateway_path.unwrap_or(path));
    endpoint_with_prefix(config, request, prefix)
}

/// The endpoint of a request to another route of ours (the token front's `/oauth/…`), whose
/// part before the route, `prefix`, the caller has parsed from the request's path.
pub(crate) fn endpoint_under<B>(
    config: &Config,
    request: &Request<B>,
    prefix: &str,
) -> Option<Endpoint> {
    let path = request.uri().path();
    let route = path.strip_prefix(prefix)?;
    // The context's path names the same route under the prefix the client really used.
    let prefix = match request
        .extensions()
        .get::<GatewayContext>()
        .and_then(|g| g.path.as_deref())
    {
        Some(gateway_path) => gateway_path.strip_suffix(route)?,
        None => prefix,
    };
    let plain = prefix
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~/".contains(&b));
    endpoint_with_prefix(config, request, plain.then_some(prefix))
}

/// The endpoint under `prefix` (`None`: the path names no route of ours in plain characters).
fn endpoint_with_prefix<B>(
    config: &Config,
    request: &Request<B>,
    prefix: Option<&str>,
) -> Option<Endpoint> {
    if let Some(url) = &config.public_url {
        return Some(Endpoint {
            resource: url.clone(),
            source: Source::Configured,
        });
    }
    if let Some(gateway) = request.extensions().get::<GatewayContext>() {
        let domain = Authority::parse(gateway.domain_name.as_deref()?)?;
        return Some(Endpoint {
            resource: format!("https://{domain}{}{MCP_SEGMENT}", prefix?),
            source: Source::Gateway,
        });
    }
    if config.allowed_hosts.is_empty() {
        return None;
    }
    let host = request.headers().get(http::header::HOST)?.to_str().ok()?;
    let authority = Authority::parse(host)?;
    let loopback = ["localhost", "127.0.0.1", "[::1]"].contains(&authority.host.as_str());
    let scheme = if loopback { "http" } else { "https" };
    Some(Endpoint {
        resource: format!("{scheme}://{authority}{}{MCP_SEGMENT}", prefix?),
        source: Source::Host,
    })
}

/// What comes before the route in `path` (`/Prod` in `/Prod/mcp`,
/// `/Prod/.well-known/oauth-protected-resource` or
/// `/Prod/.well-known/oauth-protected-resource/mcp`), when made of plain path characters.
fn prefix(path: &str) -> Option<&str> {
    let prefix = match path.strip_suffix(MCP_SEGMENT) {
        Some(rest) => rest.strip_suffix(WELL_KNOWN).unwrap_or(rest),
        None => path.strip_suffix(WELL_KNOWN)?,
    };
    prefix
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-._~/".contains(&b))
        .then_some(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str, host: &str) -> Request<()> {
        Request::builder()
            .uri(path)
            .header("host", host)
            .header("x-forwarded-proto", "http")
            .body(())
            .unwrap()
    }

    fn resource(config: &Config, request: &Request<()>) -> Option<String> {
        endpoint(config, request).map(|e| e.resource)
    }

    #[test]
    fn n3_locally_a_checked_host_names_the_endpoint_and_forwarded_proto_is_ignored() {
        let config = Config::default();
        let metadata = "/.well-known/oauth-protected-resource/mcp";
        let req = request(metadata, "127.0.0.1:3000");
        assert_eq!(
            resource(&config, &req).unwrap(),
            "http://127.0.0.1:3000/mcp"
        );
        assert_eq!(endpoint(&config, &req).unwrap().vary(), Some("Host"));
        let root = request("/.well-known/oauth-protected-resource", "localhost:3000");
        assert_eq!(
            resource(&config, &root).unwrap(),
            "http://localhost:3000/mcp"
        );
        let mut open = Config::default();
        open.allowed_hosts.clear();
        assert_eq!(
            resource(&open, &req),
            None,
            "a Host nobody checks names nothing"
        );
        assert_eq!(resource(&config, &request("/mcp", "evil\", x=\"y")), None);
        assert_eq!(resource(&config, &request("/a\"b/mcp", "localhost")), None);
    }

    #[test]
    fn n3_the_gateway_context_wins_over_host() {
        let mut req = request(
            "/Prod/.well-known/oauth-protected-resource/mcp",
            "evil.example",
        );
        req.extensions_mut().insert(GatewayContext {
            domain_name: Some("abc.execute-api.sa-east-1.amazonaws.com".into()),
            path: Some("/Prod/.well-known/oauth-protected-resource/mcp".into()),
        });
        let mut config = Config::default();
        config.allowed_hosts.clear();
        let found = endpoint(&config, &req).unwrap();
        assert_eq!(
            found.resource,
            "https://abc.execute-api.sa-east-1.amazonaws.com/Prod/mcp"
        );
        assert_eq!(found.source, Source::Gateway);
        // A custom domain's empty base path: the context path has no stage.
        req.extensions_mut().insert(GatewayContext {
            domain_name: Some("mcp.example.com".into()),
            path: Some("/mcp".into()),
        });
        assert_eq!(
            resource(&config, &req).unwrap(),
            "https://mcp.example.com/mcp"
        );
        config.public_url = Some("https://configured.example/mcp".into());
        let found = endpoint(&config, &req).unwrap();
        assert_eq!(found.resource, "https://configured.example/mcp");
        assert_eq!(found.vary(), None);
    }
}
