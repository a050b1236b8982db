//! Bearer authentication and the 401 challenge.
//!
//! The token is read here, turned into a [`Principal`] and removed from the request before
//! anything else (rmcp included) sees the headers, so it cannot end up in a log line.

use std::sync::Arc;

use http::{HeaderValue, Request, Response, StatusCode, header};
use serde_json::json;

use super::identity::endpoint;
use super::metadata::metadata_url;
use super::{ResponseBody, fixed, token_help};
use crate::access::{AuthError, BearerToken, Principal, Resource};
use crate::config::Config;

fn now() -> i64 {
    jiff::Timestamp::now().as_second()
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

/// Reads the bearer token. On success the request carries an `Arc<Principal>` extension and
/// no `Authorization` header; on failure the answer is a 401 challenge.
pub fn authenticate<B>(
    config: &Config,
    mut request: Request<B>,
) -> Result<Request<B>, Box<Response<ResponseBody>>> {
    let header_value = request.headers().get(header::AUTHORIZATION);
    let result = match header_value {
        None => match &config.anonymous_token {
            Some(token) => Principal::from_token(BearerToken::new(token.clone()), now()),
            None => Err(AuthError::Missing),
        },
        Some(value) => match value.to_str() {
            Ok(text) => Principal::from_authorization(Some(text), now()),
            Err(_) => Err(AuthError::Malformed),
        },
    };
    match result {
        Ok(principal) => {
            request.headers_mut().remove(header::AUTHORIZATION);
            request.extensions_mut().insert(Arc::new(principal));
            Ok(request)
        }
        Err(error) => Err(Box::new(challenge(config, &request, &error))),
    }
}

/// A `quoted-string` (RFC 9110 §5.6.4) holding `value`: `"` and `\\` escaped, and any byte a
/// header value cannot carry (controls, non-ASCII) percent-encoded, so a value can never end
/// the string early, add a parameter or break the header.
pub(crate) fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for byte in value.bytes() {
        match byte {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(char::from(byte));
            }
            b' '..=b'~' => out.push(char::from(byte)),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out.push('"');
    out
}

/// The `WWW-Authenticate` value: the metadata's URL when the endpoint is known, the default
/// scope, and the RFC 6750 error code (none for a request that carried no token).
fn challenge_value(metadata: Option<&str>, error: &AuthError) -> String {
    let mut params = Vec::with_capacity(3);
    if let Some(url) = metadata {
        params.push(format!("resource_metadata={}", quoted(url)));
    }
    params.push(format!("scope={}", quoted(&default_scope())));
    if let Some(code) = error.oauth_code() {
        params.push(format!("error={}", quoted(code)));
    }
    format!("Bearer {}", params.join(", "))
}

fn challenge<B>(
    config: &Config,
    request: &Request<B>,
    error: &AuthError,
) -> Response<ResponseBody> {
    let metadata = endpoint(config, request).map(|e| metadata_url(&e.resource));
    let value = challenge_value(metadata.as_deref(), error);
    let body = json!({
        "error": error.oauth_code().unwrap_or("invalid_token"),
        "error_description": error.to_string(),
        "how_to_authenticate": token_help::help(config),
    });
    let mut response = fixed(
        StatusCode::UNAUTHORIZED,
        "application/json",
        body.to_string(),
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer")),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn n3_quoted_values_cannot_add_a_parameter() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("evil\", x=\"y"), "\"evil\\\", x=\\\"y\"");
        assert_eq!(quoted("a\\b"), "\"a\\\\b\"");
        assert_eq!(
            quoted("line\r\nX-Injected: 1"),
            "\"line%0D%0AX-Injected: 1\""
        );
        assert_eq!(quoted("ç"), "\"%C3%A7\"");
        let value = challenge_value(Some("https://h/\", x=\"y"), &AuthError::Malformed);
        assert_eq!(
            value,
            format!(
                "Bearer resource_metadata=\"https://h/\\\", x=\\\"y\", scope=\"{}\", error=\"invalid_request\"",
                default_scope()
            )
        );
        assert!(HeaderValue::from_str(&value).is_ok());
    }

    #[test]
    fn without_a_known_endpoint_the_challenge_names_no_metadata() {
        let value = challenge_value(None, &AuthError::Missing);
        assert_eq!(value, format!("Bearer scope=\"{}\"", default_scope()));
    }
}
