//! Deferred answers: the part of an answer that the handler leaves for the HTTP front to write.
//!
//! rmcp builds every answer — era envelope, `resultType`, cache hints, `_meta` — around what
//! the handler returns. For two answers the handler returns a short stand-in instead of the
//! real content and parks the content here:
//!
//! - `tools/list`: the visible tools' definitions, serialized once at start ([`tool_list`]);
//! - `resources/read` of a PDF: Kobana's body, streamed as base64 ([`document`], R-5).
//!
//! The front gives each request one [`DeferredSlot`] before rmcp runs and, once rmcp has
//! answered, [`splice`]s the parked content in place of the stand-in. Both halves live here,
//! so the handler does not depend on the front: the handler side takes a slot and returns the
//! stand-in; the front side takes the answer and returns the body.

pub mod document;
pub mod tool_list;

use std::sync::Mutex;

use bytes::Bytes;

use crate::body::{ResponseBody, full};
pub use document::PendingDocument;

/// What a handler left for the front.
#[derive(Debug)]
pub enum Deferred {
    /// The visible tools' definitions, comma-joined as inside a JSON array.
    ToolList(Bytes),
    /// A document to stream as base64 in place of its placeholder.
    Document(PendingDocument),
}

/// One request's hand-off: at most one [`Deferred`], left by the handler, taken by the front.
#[derive(Debug, Default)]
pub struct DeferredSlot(Mutex<Option<Deferred>>);

impl DeferredSlot {
    /// Leaves `value` for the front (replacing any earlier one).
    fn put(&self, value: Deferred) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    /// Takes what the handler left, if anything.
    pub fn take(&self) -> Option<Deferred> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The body of rmcp's (small, complete) `answer` with the deferred content in place of its
/// stand-in; `None` when the stand-in is not there (rmcp answered an error instead), in which
/// case the answer goes out as it is.
pub fn splice(answer: &Bytes, deferred: Deferred) -> Option<ResponseBody> {
    match deferred {
        Deferred::ToolList(definitions) => tool_list::splice(answer, &definitions).map(full),
        Deferred::Document(document) => document::splice(answer, document),
    }
}

/// The parts of `answer` before and after `placeholder` (without copying), or `None` when the
/// placeholder is not there.
fn split_at_placeholder(answer: &Bytes, placeholder: &[u8]) -> Option<(Bytes, Bytes)> {
    let at = answer
        .windows(placeholder.len())
        .position(|w| w == placeholder)?;
    Some((answer.slice(..at), answer.slice(at + placeholder.len()..)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_at_placeholder_gives_both_sides_or_none() {
        let answer = Bytes::from_static(b"{\"blob\":\"PH\"}");
        let (before, after) = split_at_placeholder(&answer, b"PH").expect("found");
        assert_eq!(
            (&before[..], &after[..]),
            (&b"{\"blob\":\""[..], &b"\"}"[..])
        );
        assert!(split_at_placeholder(&answer, b"XX").is_none());
    }

    #[test]
    fn the_slot_hands_over_once() {
        let slot = DeferredSlot::default();
        assert!(slot.take().is_none());
        slot.put(Deferred::ToolList(Bytes::from_static(b"{}")));
        assert!(matches!(slot.take(), Some(Deferred::ToolList(b)) if &b[..] == b"{}"));
        assert!(slot.take().is_none(), "taken twice");
    }
}
