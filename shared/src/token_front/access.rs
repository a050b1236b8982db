//! The access token the front hands out (HD-2, TF-1): the billing token the person proved,
//! sealed ([`Purpose::Access`]) with the MCP endpoint it is for (its audience), its expiry and
//! the person's consent. The host holds only this; the HTTP front opens it on each request
//! ([`TokenFront::open_access`]) back into the billing token and the consent. The billing token
//! inside is never visible, and Kobana, sent the sealed token, refuses it: it is no billing
//! token.
//!
//! **Its life.** [`ACCESS_TTL_SECS`], thirty days, or less when the billing token itself
//! expires sooner; the token response states it in `expires_in`. Claude's connectors ignore
//! refresh tokens, so a short life would have the person paste the billing token again each
//! time it ends; a month keeps that rare, while what a leaked access token gives is bounded:
//! this one endpoint only, the consent given, at most a month, and it ends at once when the
//! front's key is rotated or the billing token is revoked in Kobana. No refresh token is issued:
//! stateless, it would have to carry the billing token too, a second long-lived secret that the
//! host that matters most would never use. When the access token ends, `/mcp` answers `401
//! invalid_token` and the host runs the flow again.

use serde::{Deserialize, Serialize};

use super::TokenFront;
use super::seal::{KeyError, Purpose, Sealer};
use crate::access::{BearerToken, Consent, jwt_part};

/// How long an access token lives at most: thirty days.
pub const ACCESS_TTL_SECS: i64 = 30 * 24 * 60 * 60;

/// What an access token carries.
#[derive(Debug, Serialize, Deserialize)]
struct AccessGrant {
    /// The billing token.
    #[serde(rename = "t")]
    token: String,
    /// The MCP endpoint it is for.
    #[serde(rename = "o")]
    resource: String,
    /// Unix seconds after which it is refused.
    #[serde(rename = "e")]
    expires_at: i64,
    /// What the person allowed.
    #[serde(rename = "a")]
    consent: Consent,
}

/// What an access token opens to.
#[derive(Debug)]
pub struct Opened {
    /// The billing token, for Kobana.
    pub token: BearerToken,
    /// What the person allowed.
    pub consent: Consent,
}

/// Why an access token was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum AccessRefusal {
    /// It does not open under the front's key (altered, another key) or names another
    /// endpoint.
    #[error("the access token does not open here")]
    Invalid,
    /// It is past its expiry.
    #[error("the access token has expired")]
    Expired,
    /// The front's key could not be had (Secrets Manager failed).
    #[error("the token front's key is unavailable")]
    Unavailable,
}

/// Whether `token` has the shape of one of the front's access tokens.
pub fn is_access_token(token: &str) -> bool {
    token.starts_with(Purpose::Access.prefix())
}

/// When an access token for `token` issued at `now` ends: [`ACCESS_TTL_SECS`] later, or when
/// the billing JWT's own `exp` says, whichever comes first.
fn expiry(token: &str, now: i64) -> i64 {
    let longest = now + ACCESS_TTL_SECS;
    jwt_part(token, 1)
        .and_then(|claims| claims.get("exp")?.as_i64())
        .map_or(longest, |exp| exp.min(longest))
}

/// A sealed access token for `token` on `resource` with `consent`, and its life in seconds
/// from `now` (the token response's `expires_in`).
pub(super) fn seal(
    sealer: &Sealer,
    token: String,
    resource: String,
    consent: Consent,
    now: i64,
) -> Result<(String, i64), KeyError> {
    let expires_at = expiry(&token, now);
    let grant = AccessGrant {
        token,
        resource,
        expires_at,
        consent,
    };
    Ok((sealer.seal(Purpose::Access, &grant)?, expires_at - now))
}

impl TokenFront {
    /// Opens an access token the front issued for the MCP endpoint `resource` (the one the
    /// request reached; `None`, unknown, opens nothing).
    pub async fn open_access(
        &self,
        token: &str,
        resource: Option<&str>,
    ) -> Result<Opened, AccessRefusal> {
        let sealer = self
            .keys
            .sealer()
            .await
            .map_err(|_| AccessRefusal::Unavailable)?;
        let grant: AccessGrant = sealer
            .open(Purpose::Access, token)
            .ok_or(AccessRefusal::Invalid)?;
        if resource != Some(grant.resource.as_str()) {
            return Err(AccessRefusal::Invalid);
        }
        if grant.expires_at <= (self.clock)() {
            return Err(AccessRefusal::Expired);
        }
        Ok(Opened {
            token: BearerToken::new(grant.token),
            consent: grant.consent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    #[test]
    fn tf1_an_access_token_lives_a_month_or_until_the_billing_token_ends() {
        let jwt = |exp: i64| {
            let claims = URL_SAFE_NO_PAD.encode(format!(r#"{{"sub":"a","exp":{exp}}}"#));
            format!("eyJhbGciOiJIUzUxMiJ9.{claims}.c2ln")
        };
        assert_eq!(expiry("opaque-token", 1_000), 1_000 + ACCESS_TTL_SECS);
        assert_eq!(expiry(&jwt(5_000), 1_000), 5_000);
        assert_eq!(
            expiry(&jwt(i64::MAX), 1_000),
            1_000 + ACCESS_TTL_SECS,
            "never longer than a month"
        );
        let sealer = Sealer::random().unwrap();
        let (sealed, life) = seal(
            &sealer,
            jwt(5_000),
            "https://r/mcp".into(),
            Consent::Read,
            1_000,
        )
        .unwrap();
        assert_eq!(life, 4_000);
        assert!(is_access_token(&sealed), "{sealed}");
        assert!(
            !sealed.contains("eyJ"),
            "the billing token is not visible: {sealed}"
        );
    }
}
