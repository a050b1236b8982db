//! Bearer JWTs and permission checks: the billing product's HS512 JWTs, and (reading
//! `token_issuer`, alternative `kobana_app_oauth`) RS256 JWTs of Kobana's app OAuth.

use std::sync::OnceLock;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use hmac::{Hmac, Mac};
use ring::signature::{
    RSA_PKCS1_2048_8192_SHA256, RSA_PKCS1_SHA256, RsaKeyPair, RsaPublicKeyComponents,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Sha512;

use crate::api::ApiError;
use crate::readings::ScopeWords;

/// The organization every §10 fixture belongs to.
pub const FIXTURE_ORG_ID: &str = "bdd640fb-0667-4ad1-9c80-317fa3b1799d";

/// The fake's fixed HS512 signing secret.
pub const JWT_SECRET: &[u8] = b"fake-kobana-billing-hs512-secret-not-for-production";

/// The resources a permission can name (`<resource>:read`, `<resource>:write`; `write`
/// implies `read`, and the coarse `read`, `write` and `all` cover every resource): the first
/// path segment under `/v1` of every operation of the contract.
pub const RESOURCES: [&str; 28] = [
    "organization",
    "customers",
    "billing_accounts",
    "subscriptions",
    "plans",
    "products",
    "invoices",
    "payments",
    "nfes",
    "plan_groups",
    "product_groups",
    "companies",
    "certificates",
    "coupons",
    "credits",
    "payment_methods",
    "proposals",
    "proposal_templates",
    "plan_changes",
    "subscription_changes",
    "subscription_item_changes",
    "usage",
    "tax_rules",
    "tax_periods",
    "withholdings",
    "service_items",
    "dashboard_users",
    "team_roles",
];

/// The claims carried by a fake Kobana token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The person (dashboard user or API key) the token belongs to.
    pub sub: String,
    /// The organization whose data the token sees.
    pub org_id: String,
    /// Space-separated permissions: `all`, `read`, `write`, or slugs such as `invoices:read`.
    pub scope: String,
    /// Display name of the subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Expiry, seconds since the Unix epoch (checked against the real clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exp: Option<i64>,
}

fn signature(signing_input: &str) -> Vec<u8> {
    let mut mac = Hmac::<Sha512>::new_from_slice(JWT_SECRET).expect("HMAC accepts any key length");
    mac.update(signing_input.as_bytes());
    mac.finalize().into_bytes().to_vec()
}

/// Signs `claims` as an HS512 JWT with the fake's secret.
pub fn mint_token(claims: &Claims) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS512","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialize"));
    let input = format!("{header}.{payload}");
    let sig = URL_SAFE_NO_PAD.encode(signature(&input));
    format!("{input}.{sig}")
}

/// A token for `person-ana` in the fixture organization with full access: scope `all`, or
/// `billing.all` when `$KOBANA_FAKE_READINGS` plays the other scope vocabulary.
pub fn full_token() -> String {
    full_token_in(crate::Readings::from_env().scope_words)
}

/// [`full_token`] in the given vocabulary.
pub fn full_token_in(words: ScopeWords) -> String {
    scoped_token(
        "person-ana",
        FIXTURE_ORG_ID,
        &permission(words, None, "all"),
    )
}

/// A permission word in a vocabulary: `<resource>:<action>` / `<action>`, or
/// `billing.<resource>.<action>` / `billing.<action>`.
pub fn permission(words: ScopeWords, resource: Option<&str>, action: &str) -> String {
    match (words, resource) {
        (ScopeWords::ResourceLevel, Some(r)) => format!("{r}:{action}"),
        (ScopeWords::ResourceLevel, None) => action.to_string(),
        (ScopeWords::OtherVocabulary, Some(r)) => format!("billing.{r}.{action}"),
        (ScopeWords::OtherVocabulary, None) => format!("billing.{action}"),
    }
}

/// The private key (PKCS#8 DER, base64) of the fake's stand-in for Kobana's app OAuth: a
/// throwaway RSA key made for these tests, guarding nothing.
const APP_OAUTH_KEY: &str = include_str!("../fixtures/app-oauth-key.pk8.b64");

/// The fake's app OAuth key pair, decoded once.
fn app_key_pair() -> &'static RsaKeyPair {
    static PAIR: OnceLock<RsaKeyPair> = OnceLock::new();
    PAIR.get_or_init(|| {
        let der = STANDARD
            .decode(APP_OAUTH_KEY.split_whitespace().collect::<String>())
            .expect("the app OAuth key is base64");
        RsaKeyPair::from_pkcs8(&der).expect("the app OAuth key is an RSA PKCS#8 key")
    })
}

/// An RSA public key Kobana's app OAuth signs access tokens with (a JWK's `n` and `e`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppOauthKey {
    n: Vec<u8>,
    e: Vec<u8>,
}

impl AppOauthKey {
    /// The key of the fake's own app OAuth stand-in, the one [`app_oauth_token`] signs with.
    pub fn builtin() -> Self {
        let public = RsaPublicKeyComponents::<Vec<u8>>::from(app_key_pair().public());
        AppOauthKey {
            n: public.n,
            e: public.e,
        }
    }

    /// The RSA keys of a JWK set (`{"keys": [{"kty": "RSA", "n": …, "e": …}]}`), as an
    /// authorization server publishes them; other keys are skipped.
    pub fn from_jwks(jwks: &Value) -> Vec<Self> {
        let part = |key: &Value, name: &str| {
            URL_SAFE_NO_PAD
                .decode(key.get(name)?.as_str()?.trim_end_matches('='))
                .ok()
        };
        jwks.get("keys")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|key| key.get("kty").and_then(Value::as_str) == Some("RSA"))
            .filter_map(|key| {
                Some(AppOauthKey {
                    n: part(key, "n")?,
                    e: part(key, "e")?,
                })
            })
            .collect()
    }

    fn verifies(&self, input: &[u8], signature: &[u8]) -> bool {
        RsaPublicKeyComponents {
            n: &self.n,
            e: &self.e,
        }
        .verify(&RSA_PKCS1_2048_8192_SHA256, input, signature)
        .is_ok()
    }
}

/// Signs `claims` as an RS256 JWT with the fake's app OAuth key: a token of Kobana's app
/// OAuth (reading `token_issuer`), which is not a billing JWT.
pub fn app_oauth_token(claims: &Claims) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","typ":"JWT"}"#);
    let payload = URL_SAFE_NO_PAD.encode(serde_json::to_vec(claims).expect("claims serialize"));
    let input = format!("{header}.{payload}");
    let pair = app_key_pair();
    let mut sig = vec![0; pair.public().modulus_len()];
    pair.sign(
        &RSA_PKCS1_SHA256,
        &ring::rand::SystemRandom::new(),
        input.as_bytes(),
        &mut sig,
    )
    .expect("RSA signing");
    format!("{input}.{}", URL_SAFE_NO_PAD.encode(sig))
}

/// An app OAuth token for `person-oauth` in the fixture organization with full access, in
/// the given vocabulary.
pub fn app_oauth_token_in(words: ScopeWords) -> String {
    app_oauth_token(&Claims {
        sub: "person-oauth".to_string(),
        org_id: FIXTURE_ORG_ID.to_string(),
        scope: permission(words, None, "all"),
        name: None,
        exp: None,
    })
}

/// A token for `person-ana` in the fixture organization with scope `read`.
pub fn readonly_token() -> String {
    scoped_token("person-ana", FIXTURE_ORG_ID, "read")
}

/// [`full_token`]'s claims, but expired in 2001.
pub fn expired_token() -> String {
    mint_token(&Claims {
        sub: "person-ana".to_string(),
        org_id: FIXTURE_ORG_ID.to_string(),
        scope: "all".to_string(),
        name: None,
        exp: Some(1_000_000_000),
    })
}

/// A non-expiring token with the given subject, organization and scope.
pub fn scoped_token(sub: &str, org_id: &str, scope: &str) -> String {
    mint_token(&Claims {
        sub: sub.to_string(),
        org_id: org_id.to_string(),
        scope: scope.to_string(),
        name: None,
        exp: None,
    })
}

/// What a verified token grants, carried to the handlers.
#[derive(Clone, Debug)]
pub struct AuthCtx {
    /// The verified claims.
    pub claims: Claims,
}

impl AuthCtx {
    /// The organization partition of this request.
    pub fn org(&self) -> &str {
        &self.claims.org_id
    }

    /// The token's permission slugs, as granted.
    pub fn granted(&self) -> Vec<String> {
        self.claims
            .scope
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    /// Whether the token grants `<resource>:read` (write = false) or `<resource>:write`, in
    /// either vocabulary (`billing.<resource>.write`, `billing.all`, …): Kobana knows its own
    /// words whichever ones a profile mints.
    pub fn grants(&self, resource: &str, write: bool) -> bool {
        let allows =
            |action: &str| action == "write" || action == "all" || (action == "read" && !write);
        self.claims.scope.split_whitespace().any(|slug| {
            let slug = slug.strip_prefix("billing.").unwrap_or(slug);
            match slug.split_once([':', '.']) {
                Some((r, action)) => r == resource && allows(action),
                None => allows(slug),
            }
        })
    }
}

fn real_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Verifies an `Authorization` header value; errors are `401 invalid_token`. `app_oauth`
/// holds the app OAuth keys whose RS256 tokens count as billing tokens (reading
/// `token_issuer`: `kobana_app_oauth`); `None` takes billing JWTs only (`billing_jwt`).
pub fn authenticate(
    header: Option<&str>,
    app_oauth: Option<&[AppOauthKey]>,
) -> Result<AuthCtx, ApiError> {
    let header = header
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| ApiError::invalid_token("Cabeçalho Authorization ausente."))?;
    let token = match header.split_once(' ') {
        Some((scheme, token)) if scheme.eq_ignore_ascii_case("bearer") => token.trim(),
        _ => {
            return Err(ApiError::invalid_token(
                "Cabeçalho Authorization inválido; use 'Bearer <token>'.",
            ));
        }
    };
    let claims = verify(token, app_oauth)?;
    Ok(AuthCtx { claims })
}

fn verify(token: &str, app_oauth: Option<&[AppOauthKey]>) -> Result<Claims, ApiError> {
    let bad = || ApiError::invalid_token("Token inválido.");
    let mut parts = token.split('.');
    let (Some(h), Some(p), Some(s), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let header: serde_json::Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(h).map_err(|_| bad())?)
            .map_err(|_| bad())?;
    let sig = URL_SAFE_NO_PAD.decode(s).map_err(|_| bad())?;
    let input = format!("{h}.{p}");
    let signed = match header.get("alg").and_then(|a| a.as_str()) {
        Some("HS512") => {
            let mut mac =
                Hmac::<Sha512>::new_from_slice(JWT_SECRET).expect("HMAC accepts any key length");
            mac.update(input.as_bytes());
            mac.verify_slice(&sig).is_ok()
        }
        Some("RS256") => {
            app_oauth.is_some_and(|keys| keys.iter().any(|k| k.verifies(input.as_bytes(), &sig)))
        }
        _ => false,
    };
    if !signed {
        return Err(bad());
    }
    let claims: Claims = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).map_err(|_| bad())?)
        .map_err(|_| bad())?;
    if let Some(exp) = claims.exp
        && real_now() >= exp
    {
        return Err(ApiError::invalid_token("Token expirado."));
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mint_and_verify() {
        let ctx = authenticate(Some(&format!("Bearer {}", full_token())), None).unwrap();
        assert_eq!(ctx.org(), FIXTURE_ORG_ID);
        assert!(ctx.grants("invoices", true));
        let ro = authenticate(Some(&format!("Bearer {}", readonly_token())), None).unwrap();
        assert!(ro.grants("nfes", false));
        assert!(!ro.grants("nfes", true));
        let mut t = full_token();
        t.push('x');
        assert!(authenticate(Some(&format!("Bearer {t}")), None).is_err());
    }

    /// Reading `token_issuer`: an app OAuth token is a billing token only where the profile
    /// takes the app OAuth's keys, and only when one of them signed it.
    #[test]
    fn app_oauth_tokens_pass_only_with_a_trusted_key() {
        let token = app_oauth_token_in(ScopeWords::ResourceLevel);
        let bearer = format!("Bearer {token}");
        let builtin = [AppOauthKey::builtin()];
        assert!(authenticate(Some(&bearer), None).is_err());
        let ctx = authenticate(Some(&bearer), Some(&builtin)).unwrap();
        assert_eq!(ctx.claims.sub, "person-oauth");
        assert!(ctx.grants("invoices", true));
        assert!(authenticate(Some(&bearer), Some(&[])).is_err());
        // Another organization's claims under the same signature.
        let parts: Vec<&str> = token.split('.').collect();
        let other = URL_SAFE_NO_PAD.encode(br#"{"sub":"x","org_id":"other","scope":"all"}"#);
        let tampered = format!("{}.{other}.{}", parts[0], parts[2]);
        assert!(authenticate(Some(&format!("Bearer {tampered}")), Some(&builtin)).is_err());
        let jwks = serde_json::json!({"keys": [
            {"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"},
            {"kty": "RSA", "alg": "RS256",
             "n": URL_SAFE_NO_PAD.encode(&builtin[0].n), "e": URL_SAFE_NO_PAD.encode(&builtin[0].e)},
        ]});
        assert_eq!(AppOauthKey::from_jwks(&jwks), builtin);
    }

    #[test]
    fn fine_slugs() {
        let ctx = AuthCtx {
            claims: Claims {
                sub: "s".into(),
                org_id: "o".into(),
                scope: "invoices:write customers:read".into(),
                name: None,
                exp: None,
            },
        };
        assert!(ctx.grants("invoices", false));
        assert!(ctx.grants("invoices", true));
        assert!(ctx.grants("customers", false));
        assert!(!ctx.grants("customers", true));
        assert!(!ctx.grants("nfes", false));
        assert!(!ctx.grants("billing_accounts", false), "its own resource");
    }

    #[test]
    fn the_other_vocabulary_grants_the_same() {
        let ctx = |scope: &str| AuthCtx {
            claims: Claims {
                sub: "s".into(),
                org_id: "o".into(),
                scope: scope.into(),
                name: None,
                exp: None,
            },
        };
        let full = ctx("billing.all");
        assert!(RESOURCES.iter().all(|r| full.grants(r, true)));
        let fine = ctx("billing.invoices.write billing.customers.read");
        assert!(fine.grants("invoices", true) && fine.grants("customers", false));
        assert!(!fine.grants("customers", true) && !fine.grants("nfes", false));
        assert!(ctx("billing.read").grants("nfes", false));
        assert!(!ctx("billing.read").grants("nfes", true));
        assert_eq!(
            permission(ScopeWords::OtherVocabulary, Some("invoices"), "write"),
            "billing.invoices.write"
        );
    }

    #[test]
    fn coarse_slugs_cover_every_resource() {
        let ro = authenticate(Some(&format!("Bearer {}", readonly_token())), None).unwrap();
        let full = authenticate(Some(&format!("Bearer {}", full_token())), None).unwrap();
        for r in RESOURCES {
            assert!(ro.grants(r, false) && !ro.grants(r, true), "{r}");
            assert!(full.grants(r, true), "{r}");
        }
    }
}
