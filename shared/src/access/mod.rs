//! Who is calling: the bearer token, and the person, organization and permissions it carries.
//!
//! The token is a Kobana-issued JWT. Its payload is read **without verifying the signature**:
//! the claims decide only what this server *shows* (tools, resources, prompts) and how a
//! confirmation is bound. Kobana verifies the token on every call and stays the final judge.
//!
//! Claims read: `sub` (person), `org_id` (organization) — each replaced by a digest of the
//! token when absent — and the permissions from `scope`
//! (space-separated string), or `scp` / `permissions` (string or array). Each permission is a
//! fine slug `<resource>:<read|write>` or a coarse `read` / `write` / `all`. A token carrying
//! any other word (Kobana has published no vocabulary: reading `scope_words` of the contract)
//! counts as [`Permissions::Unknown`]: every tool is listed and Kobana decides; the words are
//! kept, made safe, for one log field and one metric.

use std::collections::BTreeSet;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

mod resource;

pub use resource::{Resource, slugs};

/// Read or write access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// May read.
    Read,
    /// May change (implies read).
    Write,
}

/// One permission: a level on a resource, written `<resource>:<level>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Permission {
    /// The resource.
    pub resource: Resource,
    /// The level.
    pub level: Level,
}

impl Permission {
    /// `<resource>:read`.
    pub const fn read(resource: Resource) -> Self {
        Self {
            resource,
            level: Level::Read,
        }
    }
    /// `<resource>:write`.
    pub const fn write(resource: Resource) -> Self {
        Self {
            resource,
            level: Level::Write,
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Read => "read",
            Level::Write => "write",
        };
        write!(f, "{}:{}", self.resource.slug(), level)
    }
}

/// What a token may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permissions {
    /// The claims could not be read: show everything and let Kobana refuse.
    Unknown,
    /// The granted set, coarse scopes already expanded (write implies read).
    Granted(BTreeSet<Permission>),
}

/// Most unrecognised scope words kept for the log and the metric.
pub const MAX_UNRECOGNISED_WORDS: usize = 8;

/// Longest unrecognised scope word kept, in characters.
pub const MAX_SCOPE_WORD_CHARS: usize = 48;

/// Adds what one scope word grants to `set`; `false` when the word is not one this server
/// knows (`all`, `read`, `write`, `<resource>:read`, `<resource>:write`).
fn grant(word: &str, set: &mut BTreeSet<Permission>) -> bool {
    let both = |set: &mut BTreeSet<Permission>, r: Resource| {
        set.insert(Permission::read(r));
        set.insert(Permission::write(r));
    };
    match word {
        "all" | "write" => Resource::ALL.into_iter().for_each(|r| both(set, r)),
        "read" => set.extend(Resource::ALL.map(Permission::read)),
        fine => {
            let Some((resource, level)) = fine.split_once(':') else {
                return false;
            };
            let Some(resource) = Resource::from_slug(resource) else {
                return false;
            };
            match level {
                "read" => {
                    set.insert(Permission::read(resource));
                }
                "write" => both(set, resource),
                _ => return false,
            }
        }
    }
    true
}

/// The scope words this server does not recognise (reading `scope_words`), made safe for a
/// log line: at most [`MAX_UNRECOGNISED_WORDS`], each cut to [`MAX_SCOPE_WORD_CHARS`] and
/// holding only ASCII letters, digits and `.:_-/` (anything else becomes `?`).
pub fn unrecognised_scopes<'a>(words: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut scratch = BTreeSet::new();
    words
        .into_iter()
        .filter(|w| !grant(w, &mut scratch))
        .take(MAX_UNRECOGNISED_WORDS)
        .map(|w| {
            w.chars()
                .take(MAX_SCOPE_WORD_CHARS)
                .map(|c| {
                    if c.is_ascii_alphanumeric() || ".:_-/".contains(c) {
                        c
                    } else {
                        '?'
                    }
                })
                .collect()
        })
        .collect()
}

impl Permissions {
    /// Expands a list of scope words into permissions. A list with any word this server does
    /// not recognise is [`Permissions::Unknown`]: every tool is listed and Kobana decides
    /// (reading `scope_words`: a vocabulary never published must not hide tools).
    pub fn from_scopes<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        let mut set = BTreeSet::new();
        for word in words {
            if !grant(word, &mut set) {
                return Permissions::Unknown;
            }
        }
        Permissions::Granted(set)
    }

    /// Whether `permission` is granted (always true when the claims were unreadable).
    pub fn allows(&self, permission: Permission) -> bool {
        match self {
            Permissions::Unknown => true,
            Permissions::Granted(set) => set.contains(&permission),
        }
    }

    /// Whether any permission at all is granted (a write implies its read).
    pub fn reads_something(&self) -> bool {
        match self {
            Permissions::Unknown => true,
            Permissions::Granted(set) => !set.is_empty(),
        }
    }

    /// Whether any write permission is granted.
    pub fn can_write(&self) -> bool {
        match self {
            Permissions::Unknown => true,
            Permissions::Granted(set) => set.iter().any(|p| p.level == Level::Write),
        }
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

/// What the person allowed a host at the token front (HD-2): everything the billing token
/// allows, or reading only. A token sent as it is (the `Authorization` header) is `Full`: its
/// own permissions decide.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Consent {
    /// Whatever the billing token allows.
    #[default]
    Full,
    /// Read tools only, whatever the billing token allows.
    Read,
}

impl Consent {
    /// The form value (`full`, `read`).
    pub fn parse(value: &str) -> Option<Self> {
        match value {
            "full" => Some(Consent::Full),
            "read" => Some(Consent::Read),
            _ => None,
        }
    }

    /// Whether only read tools may be listed and run.
    pub fn read_only(self) -> bool {
        self == Consent::Read
    }
}

/// The caller's bearer token. Its `Debug`/`Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// Wraps a raw token.
    pub fn new(raw: impl Into<String>) -> Self {
        Self(raw.into())
    }
    /// The raw token, for the `Authorization` header sent to Kobana and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

/// Why an `Authorization` header was refused (answered with HTTP 401).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// No `Authorization` header at all.
    #[error("Token ausente: envie o cabeçalho Authorization: Bearer <token do Kobana>.")]
    Missing,
    /// A header that is not `Bearer <token>` with a plausible token.
    #[error(
        "Cabeçalho Authorization malformado: use Authorization: Bearer <token do Kobana>, sem espaços ou caracteres de controle no token."
    )]
    Malformed,
    /// A JWT whose `exp` is in the past.
    #[error("Token expirado: obtenha um novo token do Kobana.")]
    Expired,
    /// An access token of the token front that does not open here: altered, sealed under a
    /// key that was rotated away, or issued for another server.
    #[error(
        "Token de acesso inválido: ele não é deste servidor ou a chave que o emitiu foi trocada. Conecte o aplicativo de novo."
    )]
    AccessInvalid,
    /// An access token of the token front past its expiry.
    #[error("O acesso concedido a este aplicativo expirou: conecte-o de novo.")]
    AccessExpired,
}

impl AuthError {
    /// The RFC 6750 `error` code for the `WWW-Authenticate` header.
    pub fn oauth_code(&self) -> Option<&'static str> {
        match self {
            AuthError::Missing => None,
            AuthError::Malformed => Some("invalid_request"),
            AuthError::Expired | AuthError::AccessInvalid | AuthError::AccessExpired => {
                Some("invalid_token")
            }
        }
    }
}

/// The authenticated caller, as far as this server can tell.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The token, forwarded to Kobana unchanged: the server binds it once into the request's
    /// Kobana client, and every call of the request sends it from there.
    pub token: BearerToken,
    /// The person (`sub`), or a digest of the token when absent.
    pub person: String,
    /// The organization (`org_id`), or a digest of the token when absent (`token:…`), so two
    /// tokens without the claim never share a binding.
    pub organization: String,
    /// What the token may do.
    pub permissions: Permissions,
    /// The token's scope words this server does not recognise (see
    /// [`unrecognised_scopes`]): named in one log field and one metric, never the token.
    pub unrecognised_scopes: Vec<String>,
    /// What the person allowed at the token front (`Full` for a token sent as it is).
    pub consent: Consent,
}

impl Principal {
    /// Reads the `Authorization` header value; `now` is Unix seconds, for `exp`.
    pub fn from_authorization(header: Option<&str>, now: i64) -> Result<Self, AuthError> {
        Self::from_token(bearer_of(header.ok_or(AuthError::Missing)?)?, now)
    }

    /// The same principal, with what the person allowed at the token front.
    pub fn with_consent(mut self, consent: Consent) -> Self {
        self.consent = consent;
        self
    }

    /// Builds a principal from a token that is known to be well formed.
    pub fn from_token(token: BearerToken, now: i64) -> Result<Self, AuthError> {
        let claims = jwt_claims(token.expose());
        if let Some(exp) = claims.as_ref().and_then(|c| c.get("exp")?.as_i64())
            && exp <= now
        {
            return Err(AuthError::Expired);
        }
        let text = |key: &str| {
            claims
                .as_ref()
                .and_then(|c| c.get(key)?.as_str().map(str::to_owned))
                .filter(|s| !s.is_empty())
        };
        let person = text("sub").unwrap_or_else(|| format!("token:{}", token_digest(&token)));
        let organization =
            text("org_id").unwrap_or_else(|| format!("token:{}", token_digest(&token)));
        let words = claims.as_ref().and_then(scope_words);
        let permissions = words
            .as_ref()
            .map(|words| Permissions::from_scopes(words.iter().map(String::as_str)))
            .unwrap_or(Permissions::Unknown);
        let unrecognised_scopes = words
            .as_ref()
            .map(|words| unrecognised_scopes(words.iter().map(String::as_str)))
            .unwrap_or_default();
        Ok(Self {
            token,
            person,
            organization,
            permissions,
            unrecognised_scopes,
            consent: Consent::Full,
        })
    }
}

/// The token of an `Authorization` header value: `Bearer <token>`, the token at most 8 KiB of
/// visible ASCII.
pub fn bearer_of(header: &str) -> Result<BearerToken, AuthError> {
    let (scheme, token) = header.trim().split_once(' ').ok_or(AuthError::Malformed)?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Err(AuthError::Malformed);
    }
    let token = token.trim();
    if token.is_empty() || token.len() > 8192 || !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(AuthError::Malformed);
    }
    Ok(BearerToken::new(token))
}

/// First 16 hex digits of the token's SHA-256: an identifier that reveals nothing.
pub fn token_digest(token: &BearerToken) -> String {
    let digest = Sha256::digest(token.expose().as_bytes());
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

fn jwt_claims(token: &str) -> Option<serde_json::Map<String, Value>> {
    jwt_part(token, 1)
}

/// Part `index` of a three-part JWT (0: header, 1: claims) as a JSON object, read without
/// verifying anything; `None` for a token that is not a JWT.
pub fn jwt_part(token: &str, index: usize) -> Option<serde_json::Map<String, Value>> {
    let parts: Vec<&str> = token.split('.').collect();
    if parts.len() != 3 {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(parts.get(index)?.trim_end_matches('='))
        .ok()?;
    match serde_json::from_slice(&bytes).ok()? {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// The scope words of a token's claims: `scope` (space-separated), or `scp` / `permissions`
/// (text or list).
pub fn scope_words(claims: &serde_json::Map<String, Value>) -> Option<Vec<String>> {
    ["scope", "scp", "permissions"]
        .into_iter()
        .find_map(|key| match claims.get(key)? {
            Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect(),
            ),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(payload: &str) -> String {
        format!(
            "eyJhbGciOiJIUzUxMiJ9.{}.c2ln",
            URL_SAFE_NO_PAD.encode(payload)
        )
    }

    #[test]
    fn a3_missing_and_malformed_headers_are_refused() {
        assert_eq!(
            Principal::from_authorization(None, 0).unwrap_err(),
            AuthError::Missing
        );
        for bad in ["Basic abc", "Bearer", "Bearer   ", "Bearer a b", "token"] {
            assert_eq!(
                Principal::from_authorization(Some(bad), 0).unwrap_err(),
                AuthError::Malformed,
                "{bad}"
            );
        }
    }

    #[test]
    fn t1_claims_give_person_org_and_fine_permissions() {
        let token =
            jwt(r#"{"sub":"ana","org_id":"org-1","scope":"customers:read invoices:write"}"#);
        let p = Principal::from_authorization(Some(&format!("Bearer {token}")), 0).unwrap();
        assert_eq!(p.person, "ana");
        assert_eq!(p.organization, "org-1");
        assert!(p.permissions.allows(Permission::read(Resource::Customers)));
        assert!(p.permissions.allows(Permission::read(Resource::Invoices)));
        assert!(p.permissions.allows(Permission::write(Resource::Invoices)));
        assert!(!p.permissions.allows(Permission::write(Resource::Customers)));
        assert!(!p.permissions.allows(Permission::read(Resource::Nfes)));
    }

    #[test]
    fn t1_coarse_scopes_expand() {
        let read = Permissions::from_scopes(["read"]);
        assert!(read.allows(Permission::read(Resource::Payments)));
        assert!(!read.can_write());
        let all = Permissions::from_scopes(["all"]);
        assert!(all.allows(Permission::write(Resource::Nfes)));
        let scp = jwt(r#"{"sub":"x","scp":["nfes:read"]}"#);
        let p = Principal::from_token(BearerToken::new(scp), 0).unwrap();
        assert!(p.permissions.allows(Permission::read(Resource::Nfes)));
        assert!(!p.permissions.allows(Permission::read(Resource::Invoices)));
    }

    /// Reading `scope_words`: words of a vocabulary this server does not know never hide a
    /// tool; they are named (made safe) for the log and the metric.
    #[test]
    fn t1_unrecognised_scope_words_count_as_unknown_and_are_named() {
        for scope in [
            "billing.all",
            "inbox.emails invoices:read",
            "invoices:admin",
            "frobnicate:read",
        ] {
            let token = jwt(&format!(
                r#"{{"sub":"ana","org_id":"o","scope":"{scope}"}}"#
            ));
            let p = Principal::from_token(BearerToken::new(token), 0).unwrap();
            assert_eq!(p.permissions, Permissions::Unknown, "{scope}");
            assert!(
                p.permissions.allows(Permission::write(Resource::Nfes)),
                "{scope}"
            );
            assert!(!p.unrecognised_scopes.is_empty(), "{scope}");
        }
        let known = Principal::from_token(
            BearerToken::new(jwt(r#"{"sub":"a","scope":"invoices:read all"}"#)),
            0,
        )
        .unwrap();
        assert!(known.unrecognised_scopes.is_empty());
        assert!(matches!(known.permissions, Permissions::Granted(_)));
        let hostile = "a\nb\u{1b}[31m".to_owned() + &"x".repeat(100);
        let words = unrecognised_scopes([hostile.as_str(), "billing.read", "read"]);
        assert_eq!(words.len(), 2);
        assert!(words[0].chars().all(|c| c.is_ascii_graphic()), "{words:?}");
        assert_eq!(words[0].chars().count(), MAX_SCOPE_WORD_CHARS);
        assert_eq!(words[1], "billing.read");
    }

    #[test]
    fn opaque_tokens_show_everything_and_expired_jwts_are_refused() {
        let p = Principal::from_token(BearerToken::new("opaque-api-token"), 0).unwrap();
        assert_eq!(p.permissions, Permissions::Unknown);
        assert!(p.person.starts_with("token:"));
        let expired = jwt(r#"{"sub":"x","exp":100}"#);
        assert_eq!(
            Principal::from_token(BearerToken::new(expired), 200).unwrap_err(),
            AuthError::Expired
        );
    }

    /// A token without `sub` or `org_id` binds to a digest of itself, never to a shared
    /// placeholder: two such tokens never share a person or an organization.
    #[test]
    fn cf4_tokens_without_person_or_organization_bind_to_their_own_digest() {
        let a = Principal::from_token(BearerToken::new(jwt(r#"{"sub":"ana","scope":"all"}"#)), 0)
            .unwrap();
        let b = Principal::from_token(
            BearerToken::new(jwt(r#"{"sub":"ana","scope":"all","n":1}"#)),
            0,
        )
        .unwrap();
        assert_eq!(a.person, "ana");
        assert!(a.organization.starts_with("token:"), "{}", a.organization);
        assert_ne!(a.organization, b.organization);
        assert_ne!(a.organization, "unknown");
        let c = Principal::from_token(BearerToken::new(jwt(r#"{"org_id":"o1"}"#)), 0).unwrap();
        let d =
            Principal::from_token(BearerToken::new(jwt(r#"{"org_id":"o1","x":2}"#)), 0).unwrap();
        assert_eq!(c.organization, "o1");
        assert!(c.person.starts_with("token:"));
        assert_ne!(c.person, d.person);
        let opaque = Principal::from_token(BearerToken::new("opaque-api-token"), 0).unwrap();
        assert!(opaque.organization.starts_with("token:"));
    }

    #[test]
    fn a3_token_never_appears_in_debug_output() {
        let p = Principal::from_token(BearerToken::new("super-secret-token"), 0).unwrap();
        let shown = format!("{p:?}");
        assert!(!shown.contains("super-secret-token"), "{shown}");
    }
}
