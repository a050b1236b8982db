//! The embedded store: a map in this process (local runs, no AWS).

use std::collections::HashMap;
use std::sync::Mutex;

use super::async_trait_like::BoxFuture;
use super::{NonceStore, StoreError};

/// Nonces in memory. Single-use holds within one process (one local server).
#[derive(Debug, Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, (String, i64)>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl NonceStore for MemoryStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut entries = self
                .entries
                .lock()
                .map_err(|_| StoreError("poisoned".into()))?;
            if entries.len() > 10_000 {
                let now = jiff::Timestamp::now().as_second();
                entries.retain(|_, (_, exp)| *exp > now);
            }
            if entries.contains_key(nonce) {
                return Err(StoreError("nonce already exists".into()));
            }
            entries.insert(nonce.to_owned(), (digest.to_owned(), expires_at));
            Ok(())
        })
    }

    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut entries = self
                .entries
                .lock()
                .map_err(|_| StoreError("poisoned".into()))?;
            let matches = entries
                .get(nonce)
                .is_some_and(|(d, exp)| d == digest && *exp > now);
            if matches {
                entries.remove(nonce);
            }
            Ok(matches)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cf6_memory_store_consumes_once_and_checks_digest_and_expiry() {
        let store = MemoryStore::new();
        store.put("n1", "d", 100).await.unwrap();
        assert!(
            !store.consume("n1", "other", 50).await.unwrap(),
            "wrong digest"
        );
        assert!(
            !store.consume("n1", "d", 100).await.unwrap(),
            "expired at 100"
        );
        assert!(store.consume("n1", "d", 99).await.unwrap());
        assert!(!store.consume("n1", "d", 99).await.unwrap(), "single use");
        assert!(!store.consume("nope", "d", 0).await.unwrap());
        assert!(store.put("n2", "d", 1).await.is_ok());
        assert!(store.put("n2", "d", 1).await.is_err(), "no overwrite");
    }
}
