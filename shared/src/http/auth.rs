//! Bearer authentication and the 401 challenge.
//!
//! The token is read here, turned into a [`Principal`] and removed from the request before
//! anything else (rmcp included) sees the headers, so it cannot end up in a log line. An access
//! token of the token front (HD-2) is opened here, on every request, back into the billing
//! token and the person's consent; one that does not open for this endpoint, or has expired,
//! gets the challenge with `invalid_token`, and the host connects again.

use std::sync::Arc;

use http::{HeaderValue, Request, Response, StatusCode, header};
use serde_json::json;

use super::identity::endpoint;
use super::metadata::metadata_url;
use super::{ResponseBody, fixed, token_help};
use crate::access::{AuthError, BearerToken, Principal, bearer_of, default_scope};
use crate::config::Config;
use crate::token_front::{AccessRefusal, TokenFront, is_access_token};

fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

/// Reads the bearer token. On success the request carries an `Arc<Principal>` extension and
/// no `Authorization` header; on failure the answer is a 401 challenge (503 when the token
/// front's key cannot be had to open its access token).
pub async fn authenticate<B>(
    config: &Config,
    front: Option<&TokenFront>,
    mut request: Request<B>,
) -> Result<Request<B>, Box<Response<ResponseBody>>> {
    let result = match principal(config, front, &request).await {
        Ok(result) => result,
        Err(unavailable) => return Err(unavailable),
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

/// The request's principal, or why there is none; `Err` only when the front's key is missing.
async fn principal<B>(
    config: &Config,
    front: Option<&TokenFront>,
    request: &Request<B>,
) -> Result<Result<Principal, AuthError>, Box<Response<ResponseBody>>> {
    let token = match request.headers().get(header::AUTHORIZATION) {
        None => match &config.anonymous_token {
            Some(token) => Ok(BearerToken::new(token.clone())),
            None => Err(AuthError::Missing),
        },
        Some(value) => value
            .to_str()
            .map_err(|_| AuthError::Malformed)
            .and_then(bearer_of),
    };
    let token = match token {
        Ok(token) => token,
        Err(error) => return Ok(Err(error)),
    };
    let Some(front) = front.filter(|_| is_access_token(token.expose())) else {
        return Ok(Principal::from_token(token, now()));
    };
    let resource = endpoint(config, request).map(|e| e.resource);
    match front.open_access(token.expose(), resource.as_deref()).await {
        Ok(opened) => {
            Ok(Principal::from_token(opened.token, now()).map(|p| p.with_consent(opened.consent)))
        }
        Err(AccessRefusal::Invalid) => Ok(Err(AuthError::AccessInvalid)),
        Err(AccessRefusal::Expired) => Ok(Err(AuthError::AccessExpired)),
        Err(AccessRefusal::Unavailable) => {
            tracing::error!("token front: no key to open an access token");
            let body = json!({"error": "temporarily_unavailable",
                "error_description": "Não foi possível conferir o token agora. Tente de novo em instantes."});
            Err(Box::new(fixed(
                StatusCode::SERVICE_UNAVAILABLE,
                "application/json",
                body.to_string(),
            )))
        }
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
