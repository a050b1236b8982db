//! HTTP response bodies: the one type every answer of the front is sent as, whole or
//! streamed, and its error. A base module, so the front and the deferred answers share it
//! without either importing the other.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};

/// Error type of response bodies: a streamed body can fail mid-way (the stream is then cut).
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
/// A response body as the front sends it.
pub type ResponseBody = http_body_util::combinators::UnsyncBoxBody<Bytes, BoxError>;

/// A whole body in memory.
pub fn full(body: impl Into<Bytes>) -> ResponseBody {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// A response with a fixed body.
pub fn fixed(
    status: http::StatusCode,
    content_type: &str,
    body: impl Into<Bytes>,
) -> http::Response<ResponseBody> {
    http::Response::builder()
        .status(status)
        .header(http::header::CONTENT_TYPE, content_type)
        .body(full(body))
        .expect("valid response")
}
