//! Where the front's key comes from: a random one made at start when no secret is configured
//! (one process: local runs), or the Secrets Manager secret the template creates, fetched once
//! per instance on the first request that needs it. `App::new` does no I/O and `/mcp` never
//! waits on it; a failed fetch is not kept, so the next request tries again.

use tokio::sync::OnceCell;

use super::seal::{KeyError, Sealer};
use super::secrets::{SecretError, secret_string};

/// Why no key is at hand.
#[derive(Debug, thiserror::Error)]
pub enum KeyUnavailable {
    /// Secrets Manager could not give the secret.
    #[error(transparent)]
    Secret(#[from] SecretError),
    /// The secret cannot key anything.
    #[error(transparent)]
    Key(#[from] KeyError),
}

/// The front's key, ready or to be fetched.
#[derive(Debug)]
pub struct Keys {
    secret_id: Option<String>,
    sealer: OnceCell<Sealer>,
}

impl Keys {
    /// A random key now when `secret_id` is `None`; else the secret, fetched on first use.
    pub fn new(secret_id: Option<String>) -> Result<Self, KeyError> {
        let sealer = match secret_id {
            Some(_) => OnceCell::new(),
            None => OnceCell::new_with(Some(Sealer::random()?)),
        };
        Ok(Self { secret_id, sealer })
    }

    /// The sealer, fetching the secret the first time.
    pub async fn sealer(&self) -> Result<&Sealer, KeyUnavailable> {
        self.sealer
            .get_or_try_init(|| async {
                let id = self.secret_id.as_deref().unwrap_or_default();
                let loaded = match secret_string(id).await {
                    Ok(secret) => {
                        Sealer::from_secret(secret.as_bytes()).map_err(KeyUnavailable::from)
                    }
                    Err(error) => Err(error.into()),
                };
                match &loaded {
                    Ok(_) => tracing::info!("token front: key loaded from Secrets Manager"),
                    Err(error) => tracing::error!(%error, "token front: no key"),
                }
                loaded
            })
            .await
    }
}
