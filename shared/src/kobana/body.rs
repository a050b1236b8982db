//! Reading an answer's body with a counter (BW-1): never more than a limit, whatever Kobana
//! announces or sends. A `Content-Length` over the limit is refused before a byte is read; a
//! body that grows past it (chunked, or lying about its length) is dropped as soon as it
//! does, which closes the connection.

/// Why a body was not read whole.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Larger than the limit: `seen` is the size announced, or the bytes counted so far.
    TooLarge {
        /// Bytes announced or counted.
        seen: u64,
    },
    /// The connection broke (or the deadline passed) while reading.
    Broken(reqwest::Error),
}

/// The first buffer of a body whose length is not announced.
const FIRST_BUFFER: usize = 8 * 1024;

/// The whole body of `response`, if it is at most `limit` bytes.
pub(crate) async fn read_within(
    mut response: reqwest::Response,
    limit: u64,
) -> Result<Vec<u8>, BodyError> {
    let announced = response.content_length();
    if let Some(size) = announced
        && size > limit
    {
        return Err(BodyError::TooLarge { seen: size });
    }
    let first = announced.map_or(FIRST_BUFFER as u64, |size| size.min(limit));
    let mut body = Vec::with_capacity(usize::try_from(first).unwrap_or(FIRST_BUFFER));
    while let Some(chunk) = response.chunk().await.map_err(BodyError::Broken)? {
        let seen = body.len() as u64 + chunk.len() as u64;
        if seen > limit {
            return Err(BodyError::TooLarge { seen });
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
