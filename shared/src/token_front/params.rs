//! Form and query parameters, and the small answers every endpoint shares.

use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::body::{ResponseBody, fixed};

/// `application/x-www-form-urlencoded` (or query) parameters, each named once.
#[derive(Debug, Default)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Parses `input`; `None` when a parameter appears twice (RFC 6749 §3.1: never).
    pub fn parse(input: &[u8]) -> Option<Self> {
        let mut pairs: Vec<(String, String)> = Vec::new();
        for (name, value) in form_urlencoded::parse(input) {
            if pairs.iter().any(|(n, _)| *n == name) {
                return None;
            }
            pairs.push((name.into_owned(), value.into_owned()));
        }
        Some(Self(pairs))
    }

    /// The value of `name`; an empty value counts as absent.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }
}

/// Whether the request's `Content-Type` is `expected` (parameters such as `charset` aside).
pub fn content_type_is(headers: &HeaderMap, expected: &str) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case(expected))
}

/// The request's body when it was read whole and holds at most `limit` bytes.
pub fn body(request: &super::FrontRequest, limit: usize) -> Option<&[u8]> {
    request
        .body()
        .as_deref()
        .filter(|bytes| bytes.len() <= limit)
}

/// A JSON answer that no cache keeps.
pub fn json_answer(status: StatusCode, body: &Value) -> Response<ResponseBody> {
    let mut response = fixed(status, "application/json", body.to_string());
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    response
}

/// An OAuth error answer (RFC 6749 §5.2, RFC 7591 §3.2.2). `description` is for developers:
/// plain ASCII, as the RFC requires.
pub fn oauth_error(status: StatusCode, code: &str, description: &str) -> Response<ResponseBody> {
    json_answer(
        status,
        &json!({"error": code, "error_description": description}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_decoded_and_a_repeated_one_refuses_the_request() {
        let params = Params::parse(b"a=1&b=x%20y+z&c=").unwrap();
        assert_eq!(params.get("a"), Some("1"));
        assert_eq!(params.get("b"), Some("x y z"));
        assert_eq!(params.get("c"), None);
        assert_eq!(params.get("d"), None);
        assert!(Params::parse(b"a=1&a=2").is_none());
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded; charset=UTF-8"),
        );
        assert!(content_type_is(
            &headers,
            "application/x-www-form-urlencoded"
        ));
        assert!(!content_type_is(&headers, "application/json"));
    }
}
