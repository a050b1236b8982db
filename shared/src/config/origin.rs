//! The one grammar for browser origins and `Host` values (BW-5).
//!
//! ```text
//! origin    = scheme "://" authority          ; what an Origin header may hold
//! allowed   = scheme "://" host [ ":" ( port / "*" ) ]   ; an MCP_ALLOWED_ORIGINS entry
//! authority = host [ ":" port ]               ; what a Host header may hold
//! scheme    = "http" / "https"                (ASCII case-insensitive)
//! host      = reg-name / "[" IPv6 "]"        (ASCII case-insensitive)
//! reg-name  = label *( "." label ), label = 1*63( ALPHA / DIGIT / "-" ), at most 253 in all
//! IPv6      = 2*45( HEXDIG / ":" / "." ) holding at least two ":"
//! port      = 1*5DIGIT, at most 65535
//! ```
//!
//! Nothing else: no user info (`http://127.0.0.1:80@evil`), no path, query or fragment, no
//! letters in a port (`http://localhost:abc`), nothing after a bracketed address
//! (`http://[::1]evil:1`), no percent-encoding, no surrounding blanks. Every value this
//! grammar accepts is one rmcp 3.11's own check reads the same way (`http::Uri`, lower-cased
//! scheme and host, the scheme's default port when none is given), so the front's check is
//! the same as rmcp's or stricter, never looser (`tests/it/protocol/origin_grammar.rs` drives both).
//!
//! An allowed entry without a port means the scheme's default port only; rmcp 3.11 would read
//! it as any port, so [`AllowedOrigin::for_rmcp`] hands rmcp the entry with the port spelled.

use std::fmt;

/// Longest host name (RFC 1035).
const MAX_HOST_LEN: usize = 253;
/// Longest label of a host name.
const MAX_LABEL_LEN: usize = 63;
/// Longest bracketed IPv6 address text (an IPv4-mapped address in full).
const MAX_IPV6_LEN: usize = 45;
/// Most digits a port may have.
const MAX_PORT_DIGITS: usize = 5;

/// A host and an optional port: a `Host` value, or an origin's authority. The host is
/// lower-cased; an IPv6 address keeps its brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authority {
    /// The host name or bracketed IPv6 address, lower-cased.
    pub host: String,
    /// The port, when one was given.
    pub port: Option<u16>,
}

impl Authority {
    /// Parses `host[:port]` under the grammar above; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let (host, port) = split_port(text)?;
        let port = match port {
            None => None,
            Some(digits) => Some(parse_port(digits)?),
        };
        Some(Self {
            host: parse_host(host)?,
            port,
        })
    }
}

impl fmt::Display for Authority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.port {
            Some(port) => write!(f, "{}:{port}", self.host),
            None => f.write_str(&self.host),
        }
    }
}

/// A web origin as a browser sends it: `http` or `https`, a host and a port (the scheme's
/// default when the text gives none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The host, lower-cased (IPv6 bracketed).
    pub host: String,
    /// The port, explicit or the scheme's default.
    pub port: u16,
}

impl Origin {
    /// Parses an `Origin` header value; `None` for anything outside the grammar (including
    /// `null`, which is never allowed).
    pub fn parse(text: &str) -> Option<Self> {
        let (scheme, rest) = split_scheme(text)?;
        let authority = Authority::parse(rest)?;
        Some(Self {
            scheme: scheme.name(),
            host: authority.host,
            port: authority.port.unwrap_or(scheme.default_port()),
        })
    }
}

/// Which ports an allowed origin admits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllowedPort {
    /// `:*`: any port.
    Any,
    /// One port (the scheme's default when the entry gives none).
    Exact(u16),
}

/// One entry of `MCP_ALLOWED_ORIGINS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedOrigin {
    /// `http` or `https`.
    pub scheme: &'static str,
    /// The host, lower-cased (IPv6 bracketed).
    pub host: String,
    /// The ports admitted.
    pub port: AllowedPort,
}

impl AllowedOrigin {
    /// Parses one entry (`scheme://host`, `scheme://host:port` or `scheme://host:*`), blanks
    /// around it ignored; `None` for anything else.
    pub fn parse(entry: &str) -> Option<Self> {
        let (scheme, rest) = split_scheme(entry.trim())?;
        let (authority, port) = match rest.strip_suffix(":*") {
            Some(host) => (Authority::parse(host)?, None),
            None => {
                let authority = Authority::parse(rest)?;
                let port = authority.port.unwrap_or(scheme.default_port());
                (authority, Some(port))
            }
        };
        if authority.port.is_some() && port.is_none() {
            return None; // `scheme://host:443:*`
        }
        Some(Self {
            scheme: scheme.name(),
            host: authority.host,
            port: port.map_or(AllowedPort::Any, AllowedPort::Exact),
        })
    }

    /// Whether this entry admits `origin`.
    pub fn admits(&self, origin: &Origin) -> bool {
        self.scheme == origin.scheme
            && self.host == origin.host
            && match self.port {
                AllowedPort::Any => true,
                AllowedPort::Exact(port) => port == origin.port,
            }
    }

    /// The entry as rmcp's own check should get it: the port always spelled (`:*` or the
    /// number), so rmcp admits exactly the ports this entry does.
    pub fn for_rmcp(&self) -> String {
        match self.port {
            AllowedPort::Any => format!("{}://{}:*", self.scheme, self.host),
            AllowedPort::Exact(port) => format!("{}://{}:{port}", self.scheme, self.host),
        }
    }
}

/// Whether the `Origin` header value `origin` is admitted by one of `allowed` (entries that
/// do not parse admit nothing).
pub fn origin_allowed(allowed: &[String], origin: &str) -> bool {
    let Some(origin) = Origin::parse(origin) else {
        return false;
    };
    allowed
        .iter()
        .filter_map(|entry| AllowedOrigin::parse(entry))
        .any(|entry| entry.admits(&origin))
}

/// Whether the `Host` header value `host` is one of `allowed` (`host` or `host:port`; an
/// entry without a port admits any port, as rmcp's own check does; a bare IPv6 address such
/// as `::1` stands for its bracketed form). A value outside the grammar is never allowed.
pub fn host_allowed(allowed: &[String], host: &str) -> bool {
    let Some(host) = Authority::parse(host) else {
        return false;
    };
    allowed
        .iter()
        .filter_map(|entry| allowed_host(entry))
        .any(|entry| {
            entry.host == host.host && entry.port.is_none_or(|port| Some(port) == host.port)
        })
}

/// One `MCP_ALLOWED_HOSTS` entry.
fn allowed_host(entry: &str) -> Option<Authority> {
    let entry = entry.trim();
    if entry.matches(':').count() >= 2 && !entry.starts_with('[') {
        return Authority::parse(&format!("[{entry}]"));
    }
    Authority::parse(entry)
}

/// The first entry of `entries` that is not an allowed host, if any.
pub fn first_invalid_host(entries: &[String]) -> Option<&str> {
    entries
        .iter()
        .find(|entry| allowed_host(entry).is_none())
        .map(String::as_str)
}

/// The first entry of `entries` that is not an allowed origin, if any.
pub fn first_invalid_origin(entries: &[String]) -> Option<&str> {
    entries
        .iter()
        .find(|entry| AllowedOrigin::parse(entry).is_none())
        .map(String::as_str)
}

/// Whether `url` is `http(s)://authority` followed by nothing or by an absolute path of RFC
/// 3986 path characters (no query, fragment, blank, quote or backslash): the form of
/// `MCP_PUBLIC_URL` and of each `MCP_AUTHORIZATION_SERVERS` entry, safe to put in a quoted
/// header parameter as it is.
pub fn is_http_url(url: &str) -> bool {
    let Some((_, rest)) = split_scheme(url) else {
        return false;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    Authority::parse(authority).is_some() && path.bytes().all(is_path_byte)
}

/// An RFC 3986 `pchar` or `/`.
fn is_path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~%!$&'()*+,;=:@/".contains(&b)
}

#[derive(Clone, Copy)]
enum Scheme {
    Http,
    Https,
}

impl Scheme {
    fn name(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Https => "https",
        }
    }

    fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

fn split_scheme(text: &str) -> Option<(Scheme, &str)> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme = if scheme.eq_ignore_ascii_case("http") {
        Scheme::Http
    } else if scheme.eq_ignore_ascii_case("https") {
        Scheme::Https
    } else {
        return None;
    };
    Some((scheme, rest))
}

/// Splits `host[:port]`: a bracketed IPv6 address must end the host right at its `]`.
fn split_port(text: &str) -> Option<(&str, Option<&str>)> {
    if text.starts_with('[') {
        let close = text.find(']')?;
        let (host, tail) = text.split_at(close + 1);
        return match tail {
            "" => Some((host, None)),
            _ => Some((host, Some(tail.strip_prefix(':')?))),
        };
    }
    match text.split_once(':') {
        Some((host, port)) => Some((host, Some(port))),
        None => Some((text, None)),
    }
}

fn parse_port(digits: &str) -> Option<u16> {
    if digits.is_empty()
        || digits.len() > MAX_PORT_DIGITS
        || !digits.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    digits.parse().ok()
}

fn parse_host(host: &str) -> Option<String> {
    if let Some(inner) = host.strip_prefix('[') {
        let address = inner.strip_suffix(']')?;
        let valid = (2..=MAX_IPV6_LEN).contains(&address.len())
            && address.matches(':').count() >= 2
            && address
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        return valid.then(|| host.to_ascii_lowercase());
    }
    let valid = !host.is_empty()
        && host.len() <= MAX_HOST_LEN
        && host.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= MAX_LABEL_LEN
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        });
    valid.then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n8_origins_outside_the_grammar_are_refused() {
        for bad in [
            "http://127.0.0.1:80@evil",
            "http://localhost:abc",
            "http://[::1]evil:1",
            "http://localhost:",
            "http://localhost:123456",
            "http://localhost:99999",
            "http://localhost/",
            "http://localhost?x",
            "http://localhost#x",
            "http://user@localhost",
            "http://loc%61lhost",
            " http://localhost",
            "http://localhost ",
            "http://",
            "http://.",
            "http://a..b",
            "http://[]",
            "http://[::1",
            "http://[evil]",
            "ftp://localhost",
            "null",
            "localhost",
            "http://local host",
            "http://localhost:80:80",
        ] {
            assert_eq!(Origin::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn origins_in_the_grammar_are_normalised() {
        let o = Origin::parse("HTTPS://App.Example.COM").unwrap();
        assert_eq!(
            (o.scheme, o.host.as_str(), o.port),
            ("https", "app.example.com", 443)
        );
        let o = Origin::parse("http://[::1]:8080").unwrap();
        assert_eq!((o.scheme, o.host.as_str(), o.port), ("http", "[::1]", 8080));
        let o = Origin::parse("http://127.0.0.1").unwrap();
        assert_eq!(o.port, 80);
    }

    #[test]
    fn allowed_entries_spell_their_ports_for_rmcp() {
        let cases = [
            ("http://localhost:*", "http://localhost:*"),
            ("https://app.example.com", "https://app.example.com:443"),
            (" http://[::1]:* ", "http://[::1]:*"),
            ("http://localhost:6274", "http://localhost:6274"),
        ];
        for (entry, rmcp) in cases {
            assert_eq!(AllowedOrigin::parse(entry).unwrap().for_rmcp(), rmcp);
        }
        for bad in [
            "https://x:443:*",
            "null",
            "https://x/",
            "*",
            "https://*.x.com",
        ] {
            assert_eq!(AllowedOrigin::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_entry_without_a_port_admits_the_default_port_only() {
        let allowed = vec!["https://app.example.com".to_owned()];
        assert!(origin_allowed(&allowed, "https://app.example.com"));
        assert!(origin_allowed(&allowed, "https://app.example.com:443"));
        assert!(!origin_allowed(&allowed, "https://app.example.com:8443"));
        assert!(!origin_allowed(&allowed, "http://app.example.com"));
        let any = vec!["http://localhost:*".to_owned()];
        assert!(origin_allowed(&any, "http://localhost:5173"));
        assert!(!origin_allowed(&any, "http://localhost:abc"));
        assert!(!origin_allowed(&any, "http://localhost.evil:1"));
    }

    #[test]
    fn urls_for_headers_hold_no_quote_blank_or_query() {
        for good in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:3000/mcp",
            "https://auth.example.com",
            "https://x.execute-api.sa-east-1.amazonaws.com/Prod/mcp",
        ] {
            assert!(is_http_url(good), "{good}");
        }
        for bad in [
            "https://mcp.example.com/mcp\", x=\"y",
            "https://evil\", x=\"y/mcp",
            "https://mcp.example.com/m cp",
            "https://mcp.example.com/mcp?x=1",
            "https://mcp.example.com/mcp#x",
            "https://mcp.example.com/a\\b",
            "mcp.example.com/mcp",
            "javascript://x/",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
    }

    #[test]
    fn hosts_parse_with_the_same_grammar() {
        assert_eq!(
            Authority::parse("LocalHost:3000").unwrap().to_string(),
            "localhost:3000"
        );
        assert_eq!(Authority::parse("[::1]").unwrap().host, "[::1]");
        let loopback = crate::config::loopback_hosts();
        assert!(host_allowed(&loopback, "[::1]:3000"));
        assert!(host_allowed(&loopback, "LOCALHOST"));
        assert!(!host_allowed(&loopback, "localhost:1\", x=\"y"));
        assert!(!host_allowed(&loopback, "localhost.evil:3000"));
        assert_eq!(first_invalid_host(&loopback), None);
        for bad in [
            "evil\", x=\"y",
            "localhost:1\", x=\"y",
            "localhost:3000/evil",
            "a@b",
            "",
        ] {
            assert_eq!(Authority::parse(bad), None, "{bad:?}");
        }
    }
}
