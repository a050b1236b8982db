//! UUID helpers: validation and deterministic generation (no randomness, so runs repeat).

use sha2::{Digest, Sha256};

/// True when `s` has the canonical 8-4-4-4-12 hexadecimal UUID shape.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A version-4-shaped UUID derived from `seed` by SHA-256 (same seed, same id).
pub fn derived_uuid(seed: &str) -> String {
    let hash = Sha256::digest(seed.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&hash[..16]);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_uuids() {
        let id = derived_uuid("x");
        assert!(is_uuid(&id));
        assert_eq!(id, derived_uuid("x"));
        assert_ne!(id, derived_uuid("y"));
        assert_eq!(&id[14..15], "4");
        assert!(!is_uuid("not-a-uuid"));
    }
}
