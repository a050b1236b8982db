//! A per-request hand-off from a handler to the HTTP front.
//!
//! The front puts an `Arc<Slot<T>>` in the request's extensions before rmcp runs; a handler
//! that wants part of its answer written by the front (a streamed PDF, the pre-serialized tool
//! list) leaves it there, and the front takes it once rmcp has answered.

use std::sync::Mutex;

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
