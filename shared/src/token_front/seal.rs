//! Sealing: everything the front hands out and later takes back — registered client ids,
//! form tokens, authorization codes, access tokens — is a small JSON payload encrypted and authenticated
//! with ChaCha20-Poly1305 under one key, so the front keeps no state of its own.
//!
//! The AEAD is *ring*'s, already in the binary for rustls (no new crate, no size cost). Each
//! sealed value is `<prefix><base64url(nonce ‖ ciphertext ‖ tag)>`, with a random 96-bit
//! nonce and the [`Purpose`] as associated data: a form token never opens as a code, nor a
//! code as a client id.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

/// Bytes of the AEAD key.
pub const KEY_BYTES: usize = 32;
/// Shortest secret accepted from Secrets Manager, in bytes (the template makes 64).
pub const MIN_SECRET_BYTES: usize = 32;
/// Longest sealed text opened; anything longer is refused unread.
pub const MAX_SEALED_CHARS: usize = 16 * 1024;
/// Domain separation for the key derived from the secret.
const KEY_LABEL: &[u8] = b"kobana-mcp token front key v1\0";

/// What a sealed value is for (its prefix and associated data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A dynamically registered client's id: its metadata.
    Client,
    /// The form on the authorization page: the checked request, and later the token.
    Form,
    /// An authorization code.
    Code,
    /// An access token: the billing token, its resource, expiry and consent.
    Access,
}

impl Purpose {
    /// The text every sealed value of this purpose starts with.
    pub fn prefix(self) -> &'static str {
        match self {
            Purpose::Client => "kmc1.",
            Purpose::Form => "kmf1.",
            Purpose::Code => "kma1.",
            Purpose::Access => "kmt1.",
        }
    }

    fn aad(self) -> &'static [u8] {
        match self {
            Purpose::Client => b"kobana-mcp token front v1 client",
            Purpose::Form => b"kobana-mcp token front v1 form",
            Purpose::Code => b"kobana-mcp token front v1 code",
            Purpose::Access => b"kobana-mcp token front v1 access",
        }
    }
}

/// Why a key could not be made.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The secret is too short to key anything.
    #[error("the token front's secret is shorter than {MIN_SECRET_BYTES} bytes")]
    ShortSecret,
    /// The system gave no randomness.
    #[error("no randomness: {0}")]
    Random(String),
}

/// Seals and opens values under one key.
pub struct Sealer {
    key: LessSafeKey,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(<key>)")
    }
}

impl Sealer {
    /// A sealer keyed by SHA-256 over a label and `secret` (the Secrets Manager value).
    pub fn from_secret(secret: &[u8]) -> Result<Self, KeyError> {
        if secret.len() < MIN_SECRET_BYTES {
            return Err(KeyError::ShortSecret);
        }
        let mut hasher = Sha256::new();
        hasher.update(KEY_LABEL);
        hasher.update(secret);
        Ok(Self::from_key(hasher.finalize().into()))
    }

    /// A sealer with a fresh random key (one process only: local runs and tests).
    pub fn random() -> Result<Self, KeyError> {
        let mut key = [0u8; KEY_BYTES];
        getrandom::fill(&mut key).map_err(|e| KeyError::Random(e.to_string()))?;
        Ok(Self::from_key(key))
    }

    fn from_key(key: [u8; KEY_BYTES]) -> Self {
        let unbound = UnboundKey::new(&CHACHA20_POLY1305, &key).expect("a 32-byte key");
        Self {
            key: LessSafeKey::new(unbound),
        }
    }

    /// Seals `value` as JSON for `purpose`.
    pub fn seal<T: Serialize>(&self, purpose: Purpose, value: &T) -> Result<String, KeyError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).map_err(|e| KeyError::Random(e.to_string()))?;
        let mut data = serde_json::to_vec(value).expect("sealed payloads serialize");
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(purpose.aad()),
                &mut data,
            )
            .map_err(|_| KeyError::Random("sealing failed".to_owned()))?;
        let mut out = Vec::with_capacity(NONCE_LEN + data.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&data);
        Ok(format!(
            "{}{}",
            purpose.prefix(),
            URL_SAFE_NO_PAD.encode(out)
        ))
    }

    /// Opens a value sealed for `purpose` by this key; `None` for anything else (another
    /// key, another purpose, altered, truncated, too long, not JSON of that shape).
    pub fn open<T: DeserializeOwned>(&self, purpose: Purpose, text: &str) -> Option<T> {
        if text.len() > MAX_SEALED_CHARS {
            return None;
        }
        let body = text.strip_prefix(purpose.prefix())?;
        let mut bytes = URL_SAFE_NO_PAD.decode(body).ok()?;
        if bytes.len() < NONCE_LEN {
            return None;
        }
        let mut sealed = bytes.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&bytes).ok()?;
        let plain = self
            .key
            .open_in_place(nonce, Aad::from(purpose.aad()), &mut sealed)
            .ok()?;
        serde_json::from_slice(plain).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Serialize, Deserialize, PartialEq)]
    struct Payload {
        a: String,
        n: i64,
    }

    fn payload() -> Payload {
        Payload {
            a: "x".repeat(40),
            n: 7,
        }
    }

    #[test]
    fn a_sealed_value_opens_with_its_key_and_purpose_only() {
        let sealer = Sealer::random().unwrap();
        let sealed = sealer.seal(Purpose::Code, &payload()).unwrap();
        assert!(sealed.starts_with("kma1."), "{sealed}");
        assert!(
            !sealed.contains(&"x".repeat(40)),
            "the payload is encrypted"
        );
        assert_eq!(
            sealer.open::<Payload>(Purpose::Code, &sealed),
            Some(payload())
        );
        let as_form = sealed.replacen("kma1.", "kmf1.", 1);
        assert_eq!(sealer.open::<Payload>(Purpose::Form, &as_form), None);
        let other = Sealer::random().unwrap();
        assert_eq!(other.open::<Payload>(Purpose::Code, &sealed), None);
        let mut altered = sealed.clone().into_bytes();
        let last = altered.len() - 3;
        altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
        let altered = String::from_utf8(altered).unwrap();
        assert_eq!(sealer.open::<Payload>(Purpose::Code, &altered), None);
        assert_eq!(sealer.open::<Payload>(Purpose::Code, "kma1.AAAA"), None);
        assert_eq!(sealer.open::<Payload>(Purpose::Code, "kma1.!!"), None);
    }

    #[test]
    fn the_key_follows_the_secret_and_a_short_secret_is_refused() {
        let secret = b"0123456789abcdef0123456789abcdef-secret";
        let a = Sealer::from_secret(secret).unwrap();
        let b = Sealer::from_secret(secret).unwrap();
        let sealed = a.seal(Purpose::Client, &payload()).unwrap();
        assert_eq!(b.open::<Payload>(Purpose::Client, &sealed), Some(payload()));
        let c = Sealer::from_secret(b"0123456789abcdef0123456789abcdef-other").unwrap();
        assert_eq!(c.open::<Payload>(Purpose::Client, &sealed), None);
        assert!(matches!(
            Sealer::from_secret(b"short"),
            Err(KeyError::ShortSecret)
        ));
        let twice = a.seal(Purpose::Client, &payload()).unwrap();
        assert_ne!(sealed, twice, "a fresh nonce each time");
    }
}
