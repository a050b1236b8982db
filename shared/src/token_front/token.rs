//! The token endpoint: an authorization code for the front's own access token.
//!
//! A code is sealed ([`Purpose::Code`]) and names its client, redirect URI, PKCE challenge,
//! resource, the billing token, the person's consent and its expiry (60 s). It is redeemed
//! once: the issuing step recorded it in the confirmation store (DynamoDB, with the table's
//! TTL, or memory locally), and redemption is the store's conditional delete, which only one
//! caller can win. Every check comes first (client, exact redirect URI, S256 verifier,
//! resource, expiry), so a refused attempt leaves the code to its owner. The access token
//! answered is sealed ([`super::access`]): the billing token never leaves again. Its life is in
//! `expires_in` and the consent in `scope` (TF-8: the read scopes for a read-only consent).
//! No refresh token ([`super::access`] says why).

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use http::{Response, StatusCode, header};
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::params::{Params, body, content_type_is, json_answer, oauth_error};
use super::seal::Purpose;
use super::{FrontRequest, TokenFront};
use crate::access::{Consent, default_scope, scopes_supported};
use crate::body::ResponseBody;

/// How long a code lives.
pub const CODE_TTL_SECS: i64 = 60;
/// Largest token request read.
pub const MAX_TOKEN_REQUEST_BYTES: usize = 16 * 1024;
/// Prefix of a code's key in the confirmation store (confirmations use `kc1_`).
const STORE_PREFIX: &str = "tfc1_";
/// PKCE verifier length bounds (RFC 7636 §4.1).
const VERIFIER_CHARS: std::ops::RangeInclusive<usize> = 43..=128;

/// What a code carries.
#[derive(Debug, Serialize, Deserialize)]
pub struct CodeGrant {
    /// Random id: its key in the store.
    #[serde(rename = "i")]
    pub id: String,
    /// The client it was issued to.
    #[serde(rename = "c")]
    pub client_id: String,
    /// The redirect URI of the authorization request.
    #[serde(rename = "r")]
    pub redirect_uri: String,
    /// The S256 PKCE challenge.
    #[serde(rename = "p")]
    pub code_challenge: String,
    /// The MCP endpoint it is for.
    #[serde(rename = "o")]
    pub resource: String,
    /// The billing token the person proved.
    #[serde(rename = "t")]
    pub token: String,
    /// What the person allowed.
    #[serde(rename = "a")]
    pub consent: Consent,
    /// Unix seconds after which it is refused.
    #[serde(rename = "e")]
    pub expires_at: i64,
}

impl CodeGrant {
    /// The code's key in the confirmation store.
    pub fn store_key(&self) -> String {
        format!("{STORE_PREFIX}{}", self.id)
    }
}

/// A fresh code id (128 random bits).
pub fn new_code_id() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// What the store binds a code's record to: a digest of the code.
pub fn digest(code: &str) -> String {
    let hash = Sha256::digest(code.as_bytes());
    URL_SAFE_NO_PAD.encode(&hash[..16])
}

/// The S256 challenge of `verifier`.
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `challenge` has the shape of an S256 challenge (43 base64url characters).
pub fn is_s256_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && URL_SAFE_NO_PAD
            .decode(challenge)
            .is_ok_and(|b| b.len() == 32)
}

fn verifier_ok(verifier: &str) -> bool {
    VERIFIER_CHARS.contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

fn invalid_grant(description: &str) -> Response<ResponseBody> {
    tracing::info!(reason = description, "token front: code refused");
    oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", description)
}

/// The client of a token request: `client_id`, or the user of HTTP Basic authentication.
fn client_id(params: &Params, headers: &http::HeaderMap) -> Option<String> {
    if let Some(id) = params.get("client_id") {
        return Some(id.to_owned());
    }
    let basic = headers
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Basic ")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(basic.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let user = text.split(':').next()?;
    form_urlencoded::parse(format!("u={user}").as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
}

impl TokenFront {
    /// `POST /token`.
    pub(super) async fn exchange(&self, request: &FrontRequest) -> Response<ResponseBody> {
        if !content_type_is(request.headers(), "application/x-www-form-urlencoded") {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "expected a form body",
            );
        }
        let params = body(request, MAX_TOKEN_REQUEST_BYTES).and_then(Params::parse);
        let Some(params) = params else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "unreadable or repeated parameters",
            );
        };
        if params.get("grant_type") != Some("authorization_code") {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "unsupported_grant_type",
                "only authorization_code is supported (no refresh tokens)",
            );
        }
        let (Some(code), Some(client), Some(verifier)) = (
            params.get("code"),
            client_id(&params, request.headers()),
            params.get("code_verifier"),
        ) else {
            return oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "code, client_id and code_verifier are required",
            );
        };
        let Ok(sealer) = self.keys.sealer().await else {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "try again",
            );
        };
        let Some(grant) = sealer.open::<CodeGrant>(Purpose::Code, code) else {
            return invalid_grant("unknown code");
        };
        if let Err(refusal) = self.check_grant(&grant, &params, &client, verifier) {
            return *refusal;
        }
        match self
            .store
            .consume(&grant.store_key(), &digest(code), (self.clock)())
            .await
        {
            Ok(true) => {}
            Ok(false) => return invalid_grant("code already used or expired"),
            Err(error) => {
                tracing::error!(%error, "token front: the code could not be redeemed");
                return oauth_error(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "temporarily_unavailable",
                    "try again",
                );
            }
        }
        self.answer_access(sealer, grant)
    }

    /// The token response: the sealed access token, its life and the consent as scopes.
    fn answer_access(
        &self,
        sealer: &super::seal::Sealer,
        grant: CodeGrant,
    ) -> Response<ResponseBody> {
        let scope = match grant.consent {
            Consent::Read => default_scope(),
            Consent::Full => scopes_supported().join(" "),
        };
        let now = (self.clock)();
        let Ok((access_token, expires_in)) =
            super::access::seal(sealer, grant.token, grant.resource, grant.consent, now)
        else {
            return oauth_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "temporarily_unavailable",
                "try again",
            );
        };
        tracing::info!("token front: token issued");
        json_answer(
            StatusCode::OK,
            &json!({
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": expires_in,
                "scope": scope,
            }),
        )
    }

    /// Every check a code must pass before it is redeemed.
    fn check_grant(
        &self,
        grant: &CodeGrant,
        params: &Params,
        client: &str,
        verifier: &str,
    ) -> Result<(), Box<Response<ResponseBody>>> {
        let refuse = |description| Err(Box::new(invalid_grant(description)));
        if grant.expires_at <= (self.clock)() {
            return refuse("code expired");
        }
        if grant.client_id != client {
            return refuse("code issued to another client");
        }
        if params.get("redirect_uri") != Some(grant.redirect_uri.as_str()) {
            return refuse("redirect_uri does not match the authorization request");
        }
        if !verifier_ok(verifier) || s256(verifier) != grant.code_challenge {
            return refuse("PKCE verification failed");
        }
        if params.get("resource").is_some_and(|r| r != grant.resource) {
            return Err(Box::new(oauth_error(
                StatusCode::BAD_REQUEST,
                "invalid_target",
                "the code was issued for another resource",
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_follows_rfc7636_appendix_b() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(
            s256(verifier),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert!(is_s256_challenge(&s256(verifier)));
        assert!(!is_s256_challenge("plain-challenge"));
        assert!(verifier_ok(verifier));
        assert!(!verifier_ok("short"));
        assert!(!verifier_ok(&format!("{verifier} ")));
    }

    #[test]
    fn the_client_comes_from_the_body_or_basic_authentication() {
        let params = Params::parse(b"client_id=abc").unwrap();
        assert_eq!(
            client_id(&params, &http::HeaderMap::new()).as_deref(),
            Some("abc")
        );
        let mut headers = http::HeaderMap::new();
        let basic = base64::engine::general_purpose::STANDARD.encode("kmc1.x%2Fy:");
        headers.insert(
            header::AUTHORIZATION,
            format!("Basic {basic}").parse().unwrap(),
        );
        let none = Params::parse(b"").unwrap();
        assert_eq!(client_id(&none, &headers).as_deref(), Some("kmc1.x/y"));
        assert_eq!(client_id(&none, &http::HeaderMap::new()), None);
    }
}
