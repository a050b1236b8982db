//! Confirmation of destructive tools (CF-1…CF-6).
//!
//! In era 2026, when the client declares form elicitation, the first call of a destructive
//! tool runs nothing: the handler runs as a dry run up to its write, which is captured as a
//! [`PlannedWrite`](crate::catalog::PlannedWrite) — the method, path and body that would be
//! sent. The question the person reads is rendered from that request (and the record it
//! names, read from Kobana), never from the raw arguments ([`question`]). The answer is
//! `input_required` with a one-question form and a `requestState` that is an opaque random
//! nonce. The record behind the nonce — a digest of (tool, canonical request, person,
//! organization) and an expiry five minutes ahead — lives in a [`NonceStore`]. The retry runs
//! the dry run again and executes only if the person said yes **and** one conditional delete
//! of a record bound to that same digest succeeds, so a replay, a swapped argument, another
//! person or a race executes nothing; the confirmed run then sends the write only if it is
//! still the same canonical request. The Kobana call's `X-Idempotency-Key` is derived from the
//! digest ([`confirmed_idempotency_key`]), so the same call confirmed again after an uncertain
//! outcome is replayed by Kobana, not applied twice.

mod dynamo;
mod flow;
mod gate;
mod memory;
pub mod operation;
pub mod question;

use std::sync::Arc;

use async_trait_like::BoxFuture;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use crate::canonical::idempotency_key;

pub use dynamo::{DynamoStore, sdk_config};
pub use flow::{Decision, decide, form_elicitation_declared};
pub use gate::{Gate, gate};
pub use memory::MemoryStore;

/// How long a confirmation stays valid.
pub const CONFIRMATION_TTL_SECS: i64 = 300;
/// Prefix of our `requestState` values (format version 1).
pub const STATE_PREFIX: &str = "kc1_";

/// Small boxed-future alias so the store trait stays object safe without extra crates.
mod async_trait_like {
    use std::future::Future;
    use std::pin::Pin;
    /// A boxed, sendable future.
    pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
}

/// The confirmation store could not be reached or answered an error.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct StoreError(pub String);

/// Where confirmation nonces live (CF-6).
pub trait NonceStore: Send + Sync + std::fmt::Debug {
    /// Records a new nonce bound to `digest`, valid until `expires_at` (Unix seconds).
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Consumes the nonce if it exists, is bound to `digest` and has not expired at `now`,
    /// in one atomic step. `Ok(true)`: consumed now, by this caller and no other.
    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// A clock in Unix seconds; injectable so tests can expire confirmations without sleeping.
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

/// The wall clock.
pub fn system_clock() -> Clock {
    Arc::new(|| jiff::Timestamp::now().as_second())
}

/// A fresh nonce: 32 random bytes, URL-safe, with our prefix.
pub fn new_nonce() -> Result<String, StoreError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| StoreError(format!("no randomness: {e}")))?;
    Ok(format!("{STATE_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)))
}

/// Whether `state` is one of our nonces by shape (not whether it exists).
pub fn is_our_state(state: &str) -> bool {
    state
        .strip_prefix(STATE_PREFIX)
        .is_some_and(|rest| rest.len() == 43 && URL_SAFE_NO_PAD.decode(rest).is_ok())
}

/// What a confirmation is bound to: this tool, this canonical request
/// ([`PlannedWrite::canonical`](crate::catalog::PlannedWrite::canonical)), this person, this
/// organization — what the question shows and what the confirmed run sends.
pub fn binding_digest(tool: &str, request: &str, person: &str, organization: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [tool, request, person, organization] {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part.as_bytes());
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `X-Idempotency-Key` of a confirmed destructive write: derived from its binding digest
/// (tool, canonical request, person, organization), not from the nonce. The same call
/// confirmed again — after a timeout or a broken connection left its outcome unknown — sends
/// the same key, and Kobana, which keeps keys for 24 hours, replays its first answer instead
/// of applying it twice.
pub fn confirmed_idempotency_key(digest: &str) -> String {
    idempotency_key(&format!("kobana-mcp confirmed write v1:{digest}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::canonical_json;
    use serde_json::json;

    #[test]
    fn cf4_digest_binds_every_part_and_ignores_key_order() {
        let a = canonical_json(
            &json!({"path": "/v1/invoices/x/void", "body": {"reason": "dup", "a": 1}}),
        );
        let b = canonical_json(
            &json!({"body": {"a": 1, "reason": "dup"}, "path": "/v1/invoices/x/void"}),
        );
        let y = canonical_json(
            &json!({"path": "/v1/invoices/y/void", "body": {"reason": "dup", "a": 1}}),
        );
        let base = binding_digest("billing_invoices_void", &a, "ana", "org");
        assert_eq!(
            base,
            binding_digest("billing_invoices_void", &b, "ana", "org")
        );
        for other in [
            binding_digest("billing_invoices_delete", &a, "ana", "org"),
            binding_digest("billing_invoices_void", &y, "ana", "org"),
            binding_digest("billing_invoices_void", &a, "bia", "org"),
            binding_digest("billing_invoices_void", &a, "ana", "org2"),
            // Length-prefixed parts: moving a boundary changes the digest.
            binding_digest("billing_invoices_voi", &format!("d{a}"), "ana", "org"),
        ] {
            assert_ne!(base, other);
        }
        let key = confirmed_idempotency_key(&base);
        assert_eq!(key, confirmed_idempotency_key(&base));
        assert_ne!(
            key,
            confirmed_idempotency_key(&binding_digest("billing_invoices_void", &y, "ana", "org"))
        );
        assert_eq!(&key[14..15], "4");
    }

    #[test]
    fn nonces_are_random_well_formed_and_give_uuid_keys() {
        let a = new_nonce().unwrap();
        let b = new_nonce().unwrap();
        assert_ne!(a, b);
        assert!(is_our_state(&a));
        assert!(!is_our_state("kc1_short"));
        assert!(!is_our_state("anything"));
        let key = idempotency_key(&a);
        assert_eq!(key.len(), 36);
        assert_eq!(&key[14..15], "4");
        assert_eq!(key, idempotency_key(&a));
    }
}
