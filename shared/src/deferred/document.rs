//! Streaming a PDF inside the JSON-RPC answer.
//!
//! rmcp builds the whole `resources/read` answer — era envelope, `resultType`, cache hints,
//! `_meta` — around a short placeholder in place of the blob. The front then sends that
//! answer with the placeholder replaced by Kobana's body, base64-encoded chunk by chunk as it
//! arrives. Memory does not grow with the document; a document that turns out larger than
//! the limit, or that breaks off, aborts the stream, so the client never gets a blob that
//! parses but is truncated.

use std::pin::Pin;

use bytes::{Bytes, BytesMut};
use futures_util::{Stream, StreamExt, stream};
use http_body::Frame;
use http_body_util::{BodyExt, StreamBody};

use super::{Deferred, DeferredSlot, split_at_placeholder};
use crate::body::{BoxError, ResponseBody};
use crate::kobana::DownloadResponse;

/// A document waiting to be spliced into the answer of the request that fetched it.
#[derive(Debug)]
pub struct PendingDocument {
    /// The string standing in for the blob in rmcp's answer.
    pub placeholder: String,
    /// Kobana's response, status and size already checked.
    pub download: DownloadResponse,
    /// Abort beyond this many bytes.
    pub limit: u64,
}

/// Handler side: parks Kobana's `download` (status and announced size already checked) in
/// `slot` and returns the unguessable placeholder that stands in for its base64 in the answer
/// (random, so nothing else in the answer can match it).
pub fn defer(
    slot: &DeferredSlot,
    download: DownloadResponse,
    limit: u64,
) -> Result<String, getrandom::Error> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random)?;
    let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let placeholder = format!("kobana-document-{hex}");
    slot.put(Deferred::Document(PendingDocument {
        placeholder: placeholder.clone(),
        download,
        limit,
    }));
    Ok(placeholder)
}

/// The document grew past the limit, or Kobana's body broke off: the stream is cut.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Too large.
    #[error("document exceeds {limit} bytes; stream aborted")]
    TooLarge {
        /// The limit.
        limit: u64,
    },
    /// Upstream failure.
    #[error("Kobana's body broke off: {0}")]
    Upstream(String),
}

type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>;

/// Base64 bytes gathered before one frame is sent: fewer frames and writes, memory still
/// bounded by this plus one upstream chunk.
const FRAME: usize = 128 * 1024;

/// Incremental base64: each upstream chunk is encoded straight into the output buffer (SIMD
/// where the CPU has it), with at most two bytes carried to the next chunk so that groups of
/// three never straddle a frame boundary.
///
/// Frames are split off one `BytesMut`; once the HTTP layer has written and dropped them,
/// `reserve` takes the same allocation back, so a long document does not allocate (and
/// fault in) fresh memory for every frame.
#[derive(Debug)]
struct Encoder {
    carry: [u8; 3],
    carried: usize,
    out: BytesMut,
}

impl Encoder {
    fn new() -> Self {
        Self {
            carry: [0; 3],
            carried: 0,
            out: BytesMut::with_capacity(4 * FRAME),
        }
    }

    fn push(&mut self, mut chunk: &[u8]) {
        if self.carried > 0 {
            let take = (3 - self.carried).min(chunk.len());
            self.carry[self.carried..self.carried + take].copy_from_slice(&chunk[..take]);
            self.carried += take;
            chunk = &chunk[take..];
            if self.carried < 3 {
                return;
            }
            let carry = self.carry;
            self.append(&carry);
            self.carried = 0;
        }
        let whole = chunk.len() / 3 * 3;
        self.append(&chunk[..whole]);
        let rest = &chunk[whole..];
        self.carry[..rest.len()].copy_from_slice(rest);
        self.carried = rest.len();
    }

    /// Encodes the carried bytes with padding: the end of the document.
    fn finish(&mut self) {
        let carry = self.carry;
        self.append(&carry[..self.carried]);
        self.carried = 0;
    }

    #[allow(
        unsafe_code,
        reason = "base64 written straight into the spare capacity, no copy"
    )]
    fn append(&mut self, src: &[u8]) {
        let n = base64_simd::STANDARD.encoded_length(src.len());
        self.out.reserve(n);
        let spare = &mut self.out.spare_capacity_mut()[..n];
        let written = base64_simd::STANDARD
            .encode(src, base64_simd::Out::from_uninit_slice(spare))
            .len();
        assert_eq!(written, n, "base64 writes exactly its encoded length");
        // SAFETY: `encode` has just initialised the first `written` bytes of the spare
        // capacity (it returns the slice it wrote), and `written <= n <= spare capacity`.
        unsafe { self.out.set_len(self.out.len() + written) };
    }

    /// Takes the encoded bytes so far as one frame, if there are any.
    fn frame(&mut self) -> Option<Bytes> {
        if self.out.is_empty() {
            return None;
        }
        Some(self.out.split().freeze())
    }
}

/// Base64 of `upstream`, 3-byte aligned between chunks, failing past `limit` bytes.
fn encoded(upstream: ByteStream, limit: u64) -> ByteStream {
    struct State {
        upstream: ByteStream,
        encoder: Encoder,
        seen: u64,
        done: bool,
    }
    let state = State {
        upstream,
        encoder: Encoder::new(),
        seen: 0,
        done: false,
    };
    Box::pin(stream::unfold(state, move |mut s| async move {
        loop {
            if s.done {
                return None;
            }
            match s.upstream.next().await {
                Some(Ok(chunk)) => {
                    s.seen = s.seen.saturating_add(chunk.len() as u64);
                    if s.seen > limit {
                        s.done = true;
                        let error: BoxError = Box::new(StreamError::TooLarge { limit });
                        return Some((Err(error), s));
                    }
                    s.encoder.push(&chunk);
                    if s.encoder.out.len() < FRAME {
                        continue;
                    }
                    let frame = s.encoder.frame()?;
                    return Some((Ok(frame), s));
                }
                Some(Err(error)) => {
                    s.done = true;
                    return Some((Err(error), s));
                }
                None => {
                    s.done = true;
                    s.encoder.finish();
                    let frame = s.encoder.frame()?;
                    return Some((Ok(frame), s));
                }
            }
        }
    }))
}

/// Front side: splices `document` into rmcp's `answer` (a small, complete body holding the placeholder
/// once). Returns `None` when the placeholder is not there (rmcp answered an error).
pub(super) fn splice(answer: &Bytes, document: PendingDocument) -> Option<ResponseBody> {
    let (prefix, suffix) = split_at_placeholder(answer, document.placeholder.as_bytes())?;
    let upstream: ByteStream = Box::pin(
        document
            .download
            .response
            .bytes_stream()
            .map(|r| r.map_err(|e| Box::new(StreamError::Upstream(e.to_string())) as BoxError)),
    );
    let body = stream::once(async move { Ok::<_, BoxError>(prefix) })
        .chain(encoded(upstream, document.limit))
        .chain(stream::once(async move { Ok::<_, BoxError>(suffix) }))
        .map(|r| r.map(Frame::data));
    Some(BodyExt::boxed_unsync(StreamBody::new(body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;

    fn chunks(parts: Vec<Vec<u8>>) -> ByteStream {
        Box::pin(stream::iter(parts.into_iter().map(|p| Ok(Bytes::from(p)))))
    }

    async fn collect(s: ByteStream) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut s = s;
        while let Some(item) = s.next().await {
            out.extend_from_slice(&item.map_err(|e| e.to_string())?);
        }
        Ok(out)
    }

    #[tokio::test]
    async fn r5_incremental_base64_equals_whole_base64_for_any_chunking() {
        let data: Vec<u8> = (0..300_007u32).map(|i| (i * 31 % 251) as u8).collect();
        for sizes in [
            vec![1usize],
            vec![2, 5],
            vec![3],
            vec![4096],
            vec![7, 1, 1, 13],
            vec![200_000, 1, 2],
            vec![300_007],
        ] {
            let mut parts = Vec::new();
            let mut i = 0;
            let mut k = 0;
            while i < data.len() {
                let n = sizes[k % sizes.len()].min(data.len() - i);
                parts.push(data[i..i + n].to_vec());
                i += n;
                k += 1;
            }
            let out = collect(encoded(chunks(parts), 1 << 20)).await.unwrap();
            assert_eq!(out, STANDARD.encode(&data).into_bytes(), "{sizes:?}");
        }
    }

    #[test]
    fn r5_frames_reuse_one_buffer_once_the_http_layer_has_dropped_them() {
        let mut encoder = Encoder::new();
        let start = encoder.out.as_ptr() as usize;
        let end = start + encoder.out.capacity();
        // 50 frames of 128 KiB: 6.4 MB through a 512 KiB buffer.
        for _ in 0..50 {
            encoder.push(&[42u8; 96 * 1024]);
            let frame = encoder.frame().expect("a frame");
            let at = frame.as_ptr() as usize;
            assert!(
                at >= start && at + frame.len() <= end,
                "frame in a new allocation"
            );
            assert_eq!(frame.len(), 128 * 1024);
        }
    }

    #[tokio::test]
    async fn r5_stream_aborts_past_the_limit() {
        let err = collect(encoded(chunks(vec![vec![0; 600], vec![0; 600]]), 1000))
            .await
            .unwrap_err();
        assert!(err.contains("exceeds 1000"), "{err}");
    }
}
