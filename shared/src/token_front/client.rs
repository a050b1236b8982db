//! Clients: who may ask for a code, and where the code may be sent.
//!
//! The front keeps no client table. A client is either
//! - **registered** (RFC 7591): its `client_id` is its own metadata, sealed
//!   ([`Purpose::Client`]), so any instance reads it back and nobody can alter it; or
//! - **a client ID metadata document**: its `client_id` is an `https` URL, and the document
//!   fetched from it ([`super::cimd`]) names it.
//!
//! Either way the same rules hold for what a client declares ([`ClientMetadata::check`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::seal::{Purpose, Sealer};

/// Most redirect URIs one client may declare (TF-6: a registered client's id is its sealed
/// metadata, and rides in every authorization URL; four of 512 bytes keep it under 3.5 KB).
pub const MAX_REDIRECT_URIS: usize = 4;
/// Longest redirect URI, in bytes.
pub const MAX_REDIRECT_URI_BYTES: usize = 512;
/// Longest client name shown on the page, in characters.
pub const MAX_CLIENT_NAME_CHARS: usize = 100;
/// The private-use schemes of the hosts people use that are not in reverse-domain form, the
/// only such schemes a redirect URI may use (TF-2): Cursor's, and VS Code's (stable and
/// Insiders). Any other scheme must be `https`, `http` to this machine, or reverse-domain.
pub const HOST_SCHEMES: [&str; 3] = ["cursor", "vscode", "vscode-insiders"];

/// What a client declares about itself, checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientMetadata {
    /// The name it gives itself (shown on the page as the client's own words).
    #[serde(rename = "n", default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    /// Where codes may be sent: exact strings.
    #[serde(rename = "r")]
    pub redirect_uris: Vec<String>,
}

/// A declaration refused: RFC 7591's `invalid_redirect_uri` or `invalid_client_metadata`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// A redirect URI is unusable.
    #[error("{0}")]
    RedirectUri(String),
    /// Something else is unusable.
    #[error("{0}")]
    Other(String),
}

impl MetadataError {
    /// The RFC 7591 error code.
    pub fn code(&self) -> &'static str {
        match self {
            MetadataError::RedirectUri(_) => "invalid_redirect_uri",
            MetadataError::Other(_) => "invalid_client_metadata",
        }
    }
}

impl ClientMetadata {
    /// Checks a client's JSON metadata (a registration request or a metadata document).
    pub fn check(document: &Value) -> Result<Self, MetadataError> {
        let other = |m: &str| MetadataError::Other(m.to_owned());
        let object = document
            .as_object()
            .ok_or_else(|| other("client metadata must be a JSON object"))?;
        let uris = object
            .get("redirect_uris")
            .and_then(Value::as_array)
            .filter(|u| !u.is_empty() && u.len() <= MAX_REDIRECT_URIS)
            .ok_or_else(|| {
                MetadataError::RedirectUri(format!(
                    "redirect_uris must list 1 to {MAX_REDIRECT_URIS} URIs"
                ))
            })?;
        let mut redirect_uris = Vec::with_capacity(uris.len());
        for uri in uris {
            let uri = uri
                .as_str()
                .ok_or_else(|| MetadataError::RedirectUri("redirect URIs are strings".into()))?;
            check_redirect_uri(uri).map_err(|e| MetadataError::RedirectUri(e.to_owned()))?;
            redirect_uris.push(uri.to_owned());
        }
        // Public clients only: a secret-based method is answered with `none` (RFC 7591 lets
        // the server choose), a key-based one cannot be honoured.
        if let Some(method) = object.get("token_endpoint_auth_method")
            && !matches!(
                method.as_str(),
                Some("none" | "client_secret_basic" | "client_secret_post")
            )
        {
            return Err(other(
                "only public clients (token_endpoint_auth_method none)",
            ));
        }
        if let Some(types) = object.get("response_types").and_then(Value::as_array)
            && !types.iter().any(|t| t == "code")
        {
            return Err(other("response_types must include code"));
        }
        let client_name = match object.get("client_name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => check_name(name)?,
            Some(_) => return Err(other("client_name must be a string")),
        };
        Ok(Self {
            client_name,
            redirect_uris,
        })
    }
}

/// The name as the page shows it: one plain line, without bidi, format or control characters
/// (TF-3), and `None` when nothing is left.
fn check_name(name: &str) -> Result<Option<String>, MetadataError> {
    let name = crate::format::plain_line(name);
    if name.chars().count() > MAX_CLIENT_NAME_CHARS {
        return Err(MetadataError::Other(format!(
            "client_name must be at most {MAX_CLIENT_NAME_CHARS} characters"
        )));
    }
    Ok((!name.is_empty()).then_some(name))
}

/// Whether `host` names this machine.
pub fn is_loopback_host(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1")
}

/// Whether `scheme` is a private-use scheme in reverse-domain form (RFC 8252 §7.1:
/// `com.example.app`): at least two dot-separated labels of letters, digits and `-`, the first
/// starting with a letter.
fn is_reverse_domain(scheme: &str) -> bool {
    let labels: Vec<&str> = scheme.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
        && scheme.starts_with(|c: char| c.is_ascii_lowercase())
}

/// Checks one redirect URI against the allowlist (TF-2): `https`; `http` to this machine only
/// (RFC 8252 native apps); a private-use scheme in reverse-domain form (`com.example.app:/cb`);
/// or one of the [`HOST_SCHEMES`]. Anything else — `ms-msdt:`, `search-ms:`, `javascript:`,
/// any scheme an operating system or browser hands to a program of its own — is refused. No
/// fragment, no user information, no characters that would need quoting in a header or a page.
pub fn check_redirect_uri(uri: &str) -> Result<(), &'static str> {
    if uri.len() > MAX_REDIRECT_URI_BYTES {
        return Err("a redirect URI is too long");
    }
    if !uri.bytes().all(|b| {
        b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'<' | b'>' | b'\\' | b';' | b',')
    }) {
        return Err("a redirect URI has characters that are not allowed");
    }
    let url = reqwest::Url::parse(uri).map_err(|_| "a redirect URI is not a URL")?;
    if url.fragment().is_some() {
        return Err("a redirect URI may not have a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("a redirect URI may not carry user information");
    }
    match url.scheme() {
        "https" if url.host_str().is_some() => Ok(()),
        "http" if url.host_str().is_some_and(is_loopback_host) => Ok(()),
        "http" => Err("http redirect URIs must point to this machine (localhost)"),
        scheme if HOST_SCHEMES.contains(&scheme) || is_reverse_domain(scheme) => Ok(()),
        _ => Err(
            "a redirect URI must be https, http to localhost, a reverse-domain private-use \
             scheme (com.example.app:/cb) or a known host's scheme (cursor, vscode)",
        ),
    }
}

/// The CSP `form-action` source that lets the confirmation form's redirect reach `uri`: its
/// origin, or its scheme for a private-use scheme.
pub fn form_action_source(uri: &str) -> String {
    match reqwest::Url::parse(uri) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => url.origin().ascii_serialization(),
        Ok(url) => format!("{}:", url.scheme()),
        Err(_) => "'none'".to_owned(),
    }
}

/// A client the front knows by its `client_id`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Client {
    /// The `client_id` as the client sends it.
    pub id: String,
    /// What it declared.
    pub metadata: ClientMetadata,
}

impl Client {
    /// Whether `uri` is one of its redirect URIs: exactly, save the port of an `http`
    /// loopback one, which may be any (RFC 8252 §7.3: a native app picks it at run time; TF-7).
    pub fn redirects_to(&self, uri: &str) -> bool {
        self.metadata
            .redirect_uris
            .iter()
            .any(|r| r == uri || same_loopback_but_port(r, uri))
    }
}

/// Whether `registered` is an `http` loopback redirect URI and `asked` the same one with any
/// port (scheme, host, path and query alike).
fn same_loopback_but_port(registered: &str, asked_text: &str) -> bool {
    let parse = reqwest::Url::parse;
    let (Ok(registered), Ok(asked)) = (parse(registered), parse(asked_text)) else {
        return false;
    };
    let loopback =
        |url: &reqwest::Url| url.scheme() == "http" && url.host_str().is_some_and(is_loopback_host);
    loopback(&registered)
        && loopback(&asked)
        && check_redirect_uri(asked_text).is_ok()
        && registered.host_str() == asked.host_str()
        && registered.path() == asked.path()
        && registered.query() == asked.query()
        && asked.fragment().is_none()
        && asked.username().is_empty()
}

/// A registered client's `client_id`: its metadata, sealed.
pub fn registered_id(sealer: &Sealer, metadata: &ClientMetadata) -> Option<String> {
    sealer.seal(Purpose::Client, metadata).ok()
}

/// The registered client behind `client_id`, if it is one of ours.
pub fn registered(sealer: &Sealer, client_id: &str) -> Option<Client> {
    let metadata = sealer.open::<ClientMetadata>(Purpose::Client, client_id)?;
    Some(Client {
        id: client_id.to_owned(),
        metadata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tf2_redirect_uris_are_https_loopback_http_reverse_domain_or_a_hosts_scheme() {
        for ok in [
            "https://claude.ai/api/mcp/auth_callback",
            "https://chatgpt.com/connector_platform_oauth_redirect",
            "http://127.0.0.1:8976/oauth/callback",
            "http://localhost:33418/",
            "http://[::1]:9/cb",
            "cursor://anysphere.cursor-retrieval/oauth/callback",
            "vscode://vscode.github-authentication/did-authenticate",
            "vscode-insiders://vscode.github-authentication/did-authenticate",
            "com.example.app:/oauth/callback",
            "br.com.kobana.app-2://cb",
        ] {
            assert_eq!(check_redirect_uri(ok), Ok(()), "{ok}");
        }
        for bad in [
            "ms-msdt:/id PCWDiagnostic",
            "ms-msdt:-id",
            "search-ms:query=x",
            "evilapp://claude.ai/cb",
            "myapp:/cb",
            "com..example:/cb",
            "1com.example:/cb",
            "ftp://a.example/cb",
            "ws://127.0.0.1/cb",
            "vbscript:x",
            "blob:https://a.example/x",
            "https://user@a.example/cb",
            "http://evil.example/cb",
            "javascript:alert(1)",
            "data:text/html,hi",
            "file:///etc/passwd",
            "https://a.example/cb#frag",
            "https://a.example/cb x",
            "https://a.example/cb;x",
            "not a url",
            "relative/path",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
        assert!(check_redirect_uri(&format!("https://a.example/{}", "x".repeat(600))).is_err());
        assert_eq!(
            form_action_source("https://claude.ai/api/mcp/auth_callback"),
            "https://claude.ai"
        );
        assert_eq!(
            form_action_source("http://127.0.0.1:8976/cb"),
            "http://127.0.0.1:8976"
        );
        assert_eq!(form_action_source("cursor://x/cb"), "cursor:");
    }

    #[test]
    fn tf7_a_loopback_redirect_takes_any_port_and_nothing_else_changes() {
        let client = Client {
            id: "c".into(),
            metadata: ClientMetadata {
                client_name: None,
                redirect_uris: vec![
                    "http://127.0.0.1:8976/oauth/callback".into(),
                    "http://localhost/cb?x=1".into(),
                    "https://claude.ai/cb".into(),
                ],
            },
        };
        for ok in [
            "http://127.0.0.1:8976/oauth/callback",
            "http://127.0.0.1:51234/oauth/callback",
            "http://127.0.0.1/oauth/callback",
            "http://localhost:3000/cb?x=1",
        ] {
            assert!(client.redirects_to(ok), "{ok}");
        }
        for refused in [
            "http://127.0.0.1:51234/oauth/callback/",
            "http://127.0.0.1:51234/oauth/other",
            "http://localhost:51234/oauth/callback",
            "http://[::1]:8976/oauth/callback",
            "http://localhost:3000/cb?x=2",
            "http://localhost:3000/cb",
            "https://127.0.0.1:8976/oauth/callback",
            "http://127.0.0.1:51234/oauth/callback#f",
            "https://claude.ai:8443/cb",
        ] {
            assert!(!client.redirects_to(refused), "{refused}");
        }
    }

    #[test]
    fn metadata_is_checked_and_a_registered_id_opens_to_it() {
        let document = json!({
            "client_name": " Claude ",
            "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"],
            "token_endpoint_auth_method": "none",
            "grant_types": ["authorization_code", "refresh_token"],
        });
        let metadata = ClientMetadata::check(&document).unwrap();
        assert_eq!(metadata.client_name.as_deref(), Some("Claude"));
        let sealer = Sealer::random().unwrap();
        let id = registered_id(&sealer, &metadata).unwrap();
        let client = registered(&sealer, &id).unwrap();
        assert!(client.redirects_to("https://claude.ai/api/mcp/auth_callback"));
        assert!(!client.redirects_to("https://claude.ai/api/mcp/auth_callback/"));
        assert!(!client.redirects_to("https://claude.ai:444/api/mcp/auth_callback"));
        assert!(registered(&Sealer::random().unwrap(), &id).is_none());
        let bidi = json!({"client_name": "Cla\u{202E}ude\u{200B} \n App\u{7}",
                          "redirect_uris": ["https://a.example/cb"]});
        assert_eq!(
            ClientMetadata::check(&bidi).unwrap().client_name.as_deref(),
            Some("Claude App"),
            "bidi, format and control characters go"
        );
        let hidden =
            json!({"client_name": "\u{202E}\u{200B}", "redirect_uris": ["https://a.example/cb"]});
        assert_eq!(ClientMetadata::check(&hidden).unwrap().client_name, None);
        let five: Vec<String> = (0..5).map(|i| format!("https://a.example/{i}")).collect();
        let refused = [
            (json!({"redirect_uris": five}), "invalid_redirect_uri"),
            (
                json!({"redirect_uris": ["ms-msdt:/id x"]}),
                "invalid_redirect_uri",
            ),
            (json!({"redirect_uris": []}), "invalid_redirect_uri"),
            (
                json!({"redirect_uris": ["http://evil.example/cb"]}),
                "invalid_redirect_uri",
            ),
            (json!({"redirect_uris": [1]}), "invalid_redirect_uri"),
            (json!([]), "invalid_client_metadata"),
            (
                json!({"redirect_uris": ["https://a.example/cb"], "client_name": "x".repeat(101)}),
                "invalid_client_metadata",
            ),
            (
                json!({"redirect_uris": ["https://a.example/cb"], "response_types": ["token"]}),
                "invalid_client_metadata",
            ),
            (
                json!({"redirect_uris": ["https://a.example/cb"],
                       "token_endpoint_auth_method": "private_key_jwt", "jwks_uri": "https://a.example/j"}),
                "invalid_client_metadata",
            ),
        ];
        for (document, code) in refused {
            let error = ClientMetadata::check(&document).unwrap_err();
            assert_eq!(error.code(), code, "{document}");
        }
    }
}
