//! Canonical forms shared by the tools and the confirmations: a JSON value's canonical text
//! (what "the same request" means) and the idempotency key derived from a seed.
//!
//! It sits below both `catalog` (a planned write's canonical request) and `confirm` (the
//! binding digest and the confirmed write's key), so neither imports the other for them.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The JSON value with object keys sorted, recursively, compactly serialized.
pub fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut entries: Vec<_> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                Value::Object(
                    entries
                        .into_iter()
                        .map(|(k, v)| (k.clone(), sorted(v)))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// A Kobana `X-Idempotency-Key` derived from `seed` (a fresh nonce for an unconfirmed write):
/// a UUID v4-shaped digest.
pub fn idempotency_key(seed: &str) -> String {
    let digest = Sha256::digest(seed.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}
