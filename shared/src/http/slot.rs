//! A per-request hand-off from a handler to the HTTP front.
//!
//! The front puts an `Arc<Slot<T>>` in the request's extensions before rmcp runs; a handler
//! that wants part of its answer written by the front (a streamed PDF, the pre-serialized tool
//! list) leaves it there, and the front takes it once rmcp has answered.

use std::sync::Mutex;

use bytes::Bytes;

/// One value, left by a handler and taken by the front.
#[derive(Debug)]
pub struct Slot<T>(Mutex<Option<T>>);

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Self(Mutex::new(None))
    }
}

impl<T> Slot<T> {
    /// Leaves `value` for the front (replacing any earlier one).
    pub fn put(&self, value: T) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(value);
        }
    }

    /// Takes the value, if the handler left one.
    pub fn take(&self) -> Option<T> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// The parts of rmcp's `answer` before and after `placeholder` (without copying), or `None`
/// when the placeholder is not there (rmcp answered an error instead).
pub fn split_at_placeholder(answer: &Bytes, placeholder: &[u8]) -> Option<(Bytes, Bytes)> {
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
}
