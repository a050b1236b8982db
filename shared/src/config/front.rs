//! Who may call and how the endpoint names itself: `MCP_ALLOWED_HOSTS`,
//! `MCP_ALLOWED_ORIGINS`, `MCP_PUBLIC_URL`, `MCP_AUTHORIZATION_SERVERS`. Every value that ends
//! up in a header or in the front's checks is held to the one grammar of [`origin`].

use super::variables::{Read, Variable};
use super::{Config, ConfigError, invalid, origin};

/// The browser origins a loopback server accepts: pages served from this machine.
pub fn loopback_origins() -> Vec<String> {
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The hosts a loopback server answers to (DNS-rebinding protection).
pub fn loopback_hosts() -> Vec<String> {
    ["localhost", "127.0.0.1", "::1", "[::1]"]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// `MCP_ALLOWED_HOSTS`.
pub(super) const ALLOWED_HOSTS: Variable = Variable::new(
    "MCP_ALLOWED_HOSTS",
    "`localhost,127.0.0.1,::1`; under Lambda: off",
    "`Host` values accepted (DNS-rebinding protection), `host` or `host:port`; `*` disables the check.",
    Read::Text(|config, value| {
        config.allowed_hosts = if value == "*" {
            Vec::new()
        } else {
            split_list(value)
        };
        Ok(())
    }),
)
.more(
    "It runs before anything else, the 401 and the metadata included. Under Lambda \
     (`AWS_LAMBDA_RUNTIME_API` set) it is off unless set: API Gateway fixes the `Host`, so a \
     deployment made without our template (CDK, Terraform, the console) works as is.",
)
// Under Lambda the function sits behind API Gateway, which sets `Host` itself: the
// DNS-rebinding guard has nothing to guard, and a deployment made without our template would
// otherwise refuse every request.
.unset_under_lambda(|config| {
    config.allowed_hosts = Vec::new();
    Ok(())
});

/// `MCP_ALLOWED_ORIGINS`: set but empty means no browser origin at all (the template's
/// default); only an unset variable keeps the loopback origins.
pub(super) const ALLOWED_ORIGINS: Variable = Variable::new(
    "MCP_ALLOWED_ORIGINS",
    "unset: `http://localhost:*,http://127.0.0.1:*,http://[::1]:*`; set but empty: none",
    "Browser origins accepted and granted CORS: `scheme://host`, `scheme://host:port` or `scheme://host:*` entries.",
    Read::TextOrBlank(|config, value| {
        config.allowed_origins = split_list(value);
        Ok(())
    }),
)
.more(
    "See [docs/access.md](docs/access.md#browsers-cors). Schemes `http`/`https`; no port = \
     the scheme's default port only; any other entry stops the server at start. An `Origin` \
     outside that grammar (`http://127.0.0.1:80@evil`, `http://localhost:abc`, \
     `http://[::1]evil:1`) or not listed gets 403 and no CORS header; the same list, ports \
     spelled, goes to rmcp's own check, which is never stricter than ours \
     (`tests/it/protocol/origin_grammar.rs`). Requests without `Origin` pass.",
);

/// `MCP_PUBLIC_URL`.
pub(super) const PUBLIC_URL: Variable = Variable::new(
    "MCP_PUBLIC_URL",
    "unset",
    "Canonical URL of the endpoint (the OAuth protected resource).",
    Read::Text(|config, value| {
        config.public_url = Some(value.to_owned());
        Ok(())
    }),
)
.more(
    "Unset: under Lambda, API Gateway's request context (the domain and path the client \
     reached: REST and HTTP API payloads, custom domains included); locally, the `Host` the \
     host check admitted (`http` for loopback, else `https`). Never `X-Forwarded-Proto`, never \
     an unchecked `Host` (with `MCP_ALLOWED_HOSTS=*` and no request context, the challenge \
     names no metadata and the metadata answers 500 asking for this variable). Behind your own \
     reverse proxy, set it. Clients must use exactly this URL: one that connects through \
     another (an alias host, `localhost` for `127.0.0.1`) gets the protected-resource metadata \
     of this one and stops, as RFC 9728 requires.",
);

/// `MCP_AUTHORIZATION_SERVERS`.
pub(super) const AUTHORIZATION_SERVERS: Variable = Variable::new(
    "MCP_AUTHORIZATION_SERVERS",
    "none",
    "Authorization servers named in the protected-resource metadata.",
    Read::Text(|config, value| {
        config.authorization_servers = split_list(value);
        Ok(())
    }),
)
.more(
    "Leave it empty unless you run a server that issues **Faturamento Automático** tokens: \
     none we know of does (the banking OAuth login at `app.kobana.com.br` issues banking \
     tokens, which billing refuses), and a client sent there would end with a token every call \
     refuses. Empty: clients send a billing API token in the header, and the 401 says how \
     ([docs/access.md](docs/access.md)). Set: OAuth discovery works as \
     [docs/access.md](docs/access.md) describes.",
);

const HOSTS: &str =
    "each entry must be host or host:port (letters, digits, dots, hyphens; IPv6 in brackets)";
const ORIGINS: &str =
    "each entry must be scheme://host, scheme://host:port or scheme://host:* (http or https)";
const URL: &str = "must be an http(s):// URL without blanks, quotes, query or fragment";

/// Checks every allowed host and origin, the public URL and each authorization server
/// against the one grammar of [`origin`]: a value outside it is refused at start-up rather
/// than silently matching nothing (or something else) later.
pub(super) fn check(config: &Config) -> Result<(), ConfigError> {
    if let Some(bad) = origin::first_invalid_host(&config.allowed_hosts) {
        return Err(invalid(ALLOWED_HOSTS.name, bad.to_owned(), HOSTS));
    }
    if let Some(bad) = origin::first_invalid_origin(&config.allowed_origins) {
        return Err(invalid(ALLOWED_ORIGINS.name, bad.to_owned(), ORIGINS));
    }
    if let Some(url) = config.public_url.iter().find(|u| !origin::is_http_url(u)) {
        return Err(invalid(PUBLIC_URL.name, url.clone(), URL));
    }
    if let Some(bad) = config
        .authorization_servers
        .iter()
        .find(|u| !origin::is_http_url(u))
    {
        return Err(invalid(AUTHORIZATION_SERVERS.name, bad.clone(), URL));
    }
    Ok(())
}

/// The entries of a comma-separated list, trimmed, blanks left out.
fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::{LAMBDA, config};

    #[test]
    fn under_lambda_the_host_check_is_off_by_default_and_still_settable() {
        assert!(config(&[LAMBDA]).unwrap().allowed_hosts.is_empty());
        let set = config(&[LAMBDA, ("MCP_ALLOWED_HOSTS", "mcp.example.com")]).unwrap();
        assert_eq!(set.allowed_hosts, vec!["mcp.example.com"]);
        assert!(!config(&[]).unwrap().allowed_hosts.is_empty());
        let listed = config(&[("MCP_ALLOWED_HOSTS", "mcp.example.com, localhost")]).unwrap();
        assert_eq!(listed.allowed_hosts, vec!["mcp.example.com", "localhost"]);
        assert!(
            config(&[("MCP_ALLOWED_HOSTS", " * ")])
                .unwrap()
                .allowed_hosts
                .is_empty()
        );
    }

    #[test]
    fn n7_an_empty_origin_list_means_no_origin_and_unset_means_loopback() {
        for empty in ["", " , "] {
            let c = config(&[("MCP_ALLOWED_ORIGINS", empty)]).unwrap();
            assert!(c.allowed_origins.is_empty(), "{empty:?}");
        }
        assert_eq!(config(&[]).unwrap().allowed_origins, loopback_origins());
        for bad in [
            "http://127.0.0.1:80@evil",
            "null",
            "https://*.example.com",
            "localhost",
        ] {
            let err = config(&[("MCP_ALLOWED_ORIGINS", bad)])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("MCP_ALLOWED_ORIGINS") && err.contains(bad),
                "{err}"
            );
        }
        let err = config(&[("MCP_ALLOWED_HOSTS", "mcp.example.com, evil\", x=\"y")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_ALLOWED_HOSTS"), "{err}");
    }

    #[test]
    fn no_authorization_server_by_default_and_urls_are_checked() {
        assert!(config(&[]).unwrap().authorization_servers.is_empty());
        let set = config(&[(
            "MCP_AUTHORIZATION_SERVERS",
            "https://a.example, https://b.example",
        )]);
        assert_eq!(
            set.unwrap().authorization_servers,
            ["https://a.example", "https://b.example"]
        );
        for (name, bad) in [
            ("MCP_AUTHORIZATION_SERVERS", "https://a.example\", x=\"y"),
            ("MCP_PUBLIC_URL", "https://mcp.example.com/mcp\", evil=\"1"),
            ("MCP_PUBLIC_URL", "mcp.example.com/mcp"),
        ] {
            let err = config(&[(name, bad)]).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }
}
