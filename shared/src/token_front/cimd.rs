//! Client ID metadata documents: a client whose `client_id` is an `https` URL publishes its
//! metadata there, and the front fetches it when the person opens the authorization page.
//!
//! That fetch is a request our server makes to an address a stranger chose, so it is
//! bounded: `https` only, with a path, no user info or fragment; no proxy and no redirects;
//! the name must resolve to public addresses only (no loopback, private, link-local —
//! Lambda's runtime API and the instance metadata service included — checked on the resolved
//! addresses, so a name pointing inward is refused); connect within 3 s, the whole fetch
//! within 5 s, at most 16 KiB. The document must name itself (`client_id` equal to the URL)
//! and pass the same checks as a registration. Tests (only) may allow plain `http` to
//! loopback ([`crate::config::TokenFrontConfig::loopback_client_metadata`]).
//!
//! Each instance keeps the documents it fetched (TF-4) for as long as their `Cache-Control`
//! allows (`max-age`; `no-store` or `no-cache`: not kept), at most [`MAX_CACHE_AGE`], and at most
//! [`MAX_CACHED`] of them, so opening the page again costs no fetch.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use serde_json::Value;

use super::client::{Client, ClientMetadata, MetadataError, is_loopback_host};

/// Deadline of the whole fetch.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
/// Deadline of the connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// Largest document read.
pub const MAX_DOCUMENT_BYTES: usize = 16 * 1024;
/// Longest URL client id accepted.
pub const MAX_CLIENT_ID_BYTES: usize = 512;
/// Longest a fetched document is kept, whatever its `Cache-Control` says.
pub const MAX_CACHE_AGE: Duration = Duration::from_secs(300);
/// Most documents one instance keeps.
pub const MAX_CACHED: usize = 256;

/// Why a metadata document was not used.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The URL itself is not one the front fetches.
    #[error("the client_id URL is not allowed: {0}")]
    NotAllowed(&'static str),
    /// No usable answer (refused address, timeout, connection failure).
    #[error("the client's metadata document could not be fetched")]
    Unreachable,
    /// An answer other than 200 (redirects included).
    #[error("the client's metadata document answered HTTP {0}")]
    Status(u16),
    /// Over [`MAX_DOCUMENT_BYTES`].
    #[error("the client's metadata document is larger than {MAX_DOCUMENT_BYTES} bytes")]
    TooLarge,
    /// Not a JSON object naming this URL as its `client_id`.
    #[error("the client's metadata document does not name this client_id")]
    Mismatch,
    /// Its metadata is refused.
    #[error(transparent)]
    Metadata(#[from] MetadataError),
}

/// Whether `client_id` is a URL (a metadata document) rather than a registered id.
pub fn is_url_client_id(client_id: &str) -> bool {
    client_id.starts_with("https://") || client_id.starts_with("http://")
}

/// The host of a URL client id, as written in it (what the page names as the publisher).
pub fn client_host(client_id: &str) -> Option<&str> {
    if !is_url_client_id(client_id) {
        return None;
    }
    let authority = client_id.split_once("://")?.1;
    let end = authority.find(['/', '?', '#']).unwrap_or(authority.len());
    let authority = &authority[..end];
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.rfind(':') {
        Some(at) if !host.ends_with(']') => &host[..at],
        _ => host,
    };
    (!host.is_empty()).then_some(host)
}

/// How long a document may be kept by its `Cache-Control` (none: `no-store`, `no-cache`,
/// `max-age=0`), at most [`MAX_CACHE_AGE`]; without the header, that longest age.
fn cache_age(headers: &http::HeaderMap) -> Option<Duration> {
    let mut age = MAX_CACHE_AGE;
    for value in headers.get_all(http::header::CACHE_CONTROL) {
        for directive in value.to_str().unwrap_or("no-store").split(',') {
            let directive = directive.trim().to_ascii_lowercase();
            if directive == "no-store" || directive == "no-cache" {
                return None;
            }
            if let Some(seconds) = directive.strip_prefix("max-age=") {
                let seconds: u64 = seconds.trim_matches('"').parse().ok()?;
                age = age.min(Duration::from_secs(seconds));
            }
        }
    }
    (!age.is_zero()).then_some(age)
}

/// Fetches client metadata documents, and keeps them a while.
#[derive(Debug)]
pub struct Fetcher {
    loopback: bool,
    http: OnceLock<Result<reqwest::Client, String>>,
    cache: Mutex<HashMap<String, (Client, Instant)>>,
}

impl Fetcher {
    /// A fetcher; `loopback` lets tests serve documents over `http` from this machine.
    pub fn new(loopback: bool) -> Self {
        Self {
            loopback,
            http: OnceLock::new(),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The client `client_id` names: from this instance's cache while it is fresh, else
    /// from its document, fetched.
    pub async fn client(&self, client_id: &str) -> Result<Client, FetchError> {
        if let Some(client) = self.cached(client_id) {
            return Ok(client);
        }
        let (client, age) = self.fetch(client_id).await?;
        if let Some(age) = age {
            self.keep(client.clone(), age);
        }
        Ok(client)
    }

    fn cached(&self, client_id: &str) -> Option<Client> {
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache
            .get(client_id)
            .filter(|(_, until)| *until > Instant::now())
            .map(|(client, _)| client.clone())
    }

    fn keep(&self, client: Client, age: Duration) {
        let now = Instant::now();
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.retain(|_, (_, until)| *until > now);
        if cache.len() >= MAX_CACHED {
            let oldest = cache
                .iter()
                .min_by_key(|(_, (_, until))| *until)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                cache.remove(&oldest);
            }
        }
        cache.insert(client.id.clone(), (client, now + age));
    }

    fn http(&self) -> Result<&reqwest::Client, FetchError> {
        let built = self.http.get_or_init(|| {
            crate::net::client_builder()
                .no_proxy()
                .dns_resolver(Arc::new(PublicOnly {
                    loopback: self.loopback,
                }))
                .connect_timeout(CONNECT_TIMEOUT)
                .timeout(FETCH_TIMEOUT)
                .build()
                .map_err(|e| e.to_string())
        });
        built.as_ref().map_err(|_| FetchError::Unreachable)
    }

    /// The client `client_id` names, from its document fetched now, and how long the
    /// document may be kept.
    async fn fetch(&self, client_id: &str) -> Result<(Client, Option<Duration>), FetchError> {
        let url = self.check_url(client_id)?;
        let mut response = self
            .http()?
            .get(url)
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|_| FetchError::Unreachable)?;
        let status = response.status().as_u16();
        if status != 200 {
            return Err(FetchError::Status(status));
        }
        let age = cache_age(response.headers());
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DOCUMENT_BYTES as u64)
        {
            return Err(FetchError::TooLarge);
        }
        let mut bytes = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|_| FetchError::Unreachable)?
        {
            if bytes.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(FetchError::TooLarge);
            }
            bytes.extend_from_slice(&chunk);
        }
        let document: Value = serde_json::from_slice(&bytes).map_err(|_| FetchError::Mismatch)?;
        if document.get("client_id").and_then(Value::as_str) != Some(client_id) {
            return Err(FetchError::Mismatch);
        }
        let client = Client {
            id: client_id.to_owned(),
            metadata: ClientMetadata::check(&document)?,
        };
        Ok((client, age))
    }

    fn check_url(&self, client_id: &str) -> Result<reqwest::Url, FetchError> {
        if client_id.len() > MAX_CLIENT_ID_BYTES {
            return Err(FetchError::NotAllowed("too long"));
        }
        let url =
            reqwest::Url::parse(client_id).map_err(|_| FetchError::NotAllowed("not a URL"))?;
        let host = url.host_str().ok_or(FetchError::NotAllowed("no host"))?;
        let loopback_http = self.loopback && url.scheme() == "http" && is_loopback_host(host);
        if url.scheme() != "https" && !loopback_http {
            return Err(FetchError::NotAllowed("https only"));
        }
        if url.path() == "/" || url.fragment().is_some() {
            return Err(FetchError::NotAllowed("needs a path and no fragment"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(FetchError::NotAllowed("no user information"));
        }
        // An address literal is not resolved, so it is checked here.
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = literal.parse::<IpAddr>()
            && !allowed_ip(ip, self.loopback)
        {
            return Err(FetchError::NotAllowed("not a public address"));
        }
        Ok(url)
    }
}

/// A resolver that keeps public addresses only (and loopback ones when allowed).
struct PublicOnly {
    loopback: bool,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let loopback = self.loopback;
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found = tokio::net::lookup_host((host.as_str(), 0)).await?;
            let kept: Vec<SocketAddr> = found.filter(|a| allowed_ip(a.ip(), loopback)).collect();
            if kept.is_empty() {
                return Err("the name resolves to no public address".into());
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// Whether the front may connect to `ip`.
pub fn allowed_ip(ip: IpAddr, loopback: bool) -> bool {
    if ip.is_loopback() {
        return loopback;
    }
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => public_v4(v4),
            None => public_v6(v6),
        },
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_unspecified()
        || ip.is_multicast()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 198 && (18..20).contains(&b))
        || a >= 240)
}

fn public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    // Global unicast (2000::/3) only, documentation (2001:db8::/32) and NAT64 excluded.
    (first & 0xe000) == 0x2000 && !(first == 0x2001 && ip.segments()[1] == 0x0db8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_public_addresses_are_reached_loopback_when_tests_allow_it() {
        for public in ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"] {
            assert!(allowed_ip(public.parse().unwrap(), false), "{public}");
        }
        for inward in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "fe80::1",
            "fd00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "2001:db8::1",
        ] {
            assert!(!allowed_ip(inward.parse().unwrap(), false), "{inward}");
        }
        assert!(allowed_ip("127.0.0.1".parse().unwrap(), true));
        assert!(!allowed_ip("10.0.0.1".parse().unwrap(), true));
    }

    #[test]
    fn the_client_id_url_is_checked_before_anything_is_fetched() {
        let strict = Fetcher::new(false);
        assert!(
            strict
                .check_url("https://claude.ai/oauth/client.json")
                .is_ok()
        );
        for refused in [
            "http://claude.ai/oauth/client.json",
            "https://claude.ai/",
            "https://claude.ai/x#f",
            "https://user:pw@claude.ai/x",
            "https://127.0.0.1/x",
            "https://[::1]/x",
            "https://169.254.169.254/latest",
            "http://127.0.0.1:9001/x",
        ] {
            assert!(strict.check_url(refused).is_err(), "{refused}");
        }
        let tests = Fetcher::new(true);
        assert!(tests.check_url("http://127.0.0.1:9/client.json").is_ok());
        assert!(tests.check_url("http://example.com/client.json").is_err());
    }

    #[test]
    fn tf4_documents_are_kept_as_their_cache_control_allows_at_most_five_minutes() {
        let headers = |values: &[&str]| {
            let mut map = http::HeaderMap::new();
            for v in values {
                map.append(http::header::CACHE_CONTROL, v.parse().unwrap());
            }
            map
        };
        assert_eq!(cache_age(&headers(&[])), Some(MAX_CACHE_AGE));
        assert_eq!(
            cache_age(&headers(&["public, max-age=60"])),
            Some(Duration::from_secs(60))
        );
        assert_eq!(cache_age(&headers(&["max-age=86400"])), Some(MAX_CACHE_AGE));
        for none in [
            &["no-store"][..],
            &["max-age=0"],
            &["max-age=60", "No-Cache"],
            &["max-age=x"],
        ] {
            assert_eq!(cache_age(&headers(none)), None, "{none:?}");
        }
        assert_eq!(
            client_host("https://claude.ai:8443/oauth/c.json"),
            Some("claude.ai")
        );
        assert_eq!(client_host("http://[::1]:9/c.json"), Some("[::1]"));
        assert_eq!(client_host("kmc1.abc"), None);
    }

    #[tokio::test]
    async fn a_name_that_resolves_inward_is_never_connected_to() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = tokio::spawn(async move { listener.accept().await.is_ok() });
        let error = Fetcher::new(false)
            .fetch(&format!("https://localhost:{port}/client.json"))
            .await
            .unwrap_err();
        assert!(matches!(error, FetchError::Unreachable), "{error:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!accepted.is_finished(), "no connection to a loopback name");
        accepted.abort();
    }
}
