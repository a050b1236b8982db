//! The token front for OAuth-only hosts: whether it is served (`MCP_TOKEN_FRONT`) and the
//! secret that keys it (`MCP_TOKEN_FRONT_KEY_SECRET`).

use const_format::formatcp;

use super::variables::{Read, Variable};

/// The token front: a small OAuth authorization server, served by this function, where a
/// person pastes a billing API token for hosts that only speak OAuth (HT-1).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenFrontConfig {
    /// Whether it is served at all (`MCP_TOKEN_FRONT=on`; default off: its paths are 404s).
    pub enabled: bool,
    /// The Secrets Manager secret (ARN or name) whose value keys the sealed client ids, forms,
    /// codes and access tokens (`MCP_TOKEN_FRONT_KEY_SECRET`). Unset: a random key made at start, which only one
    /// process knows (local runs); required under Lambda, where instances must share it.
    pub key_secret: Option<String>,
    /// Client metadata documents may be fetched over plain HTTP from loopback addresses.
    /// Never read from the environment: only tests set it.
    pub loopback_client_metadata: bool,
}

/// `MCP_TOKEN_FRONT`.
pub(super) const TOKEN_FRONT: Variable = Variable::new(
    "MCP_TOKEN_FRONT",
    "`off`",
    "`on` serves the token front for OAuth-only hosts.",
    Read::Text(|config, value| {
        config.token_front.enabled = match value.to_ascii_lowercase().as_str() {
            "on" => true,
            "off" => false,
            _ => return Err("must be on or off".into()),
        };
        Ok(())
    }),
)
.more("See [docs/access.md](docs/access.md#the-token-front-claude-and-chatgpt-connectors).");

/// `MCP_TOKEN_FRONT_KEY_SECRET`: required under Lambda when the front is on, since the
/// instances must share the key.
pub(super) const KEY_SECRET: Variable = Variable::new(
    "MCP_TOKEN_FRONT_KEY_SECRET",
    "unset → a random key made at start",
    "Secrets Manager secret keying the token front (required under Lambda when it is on).",
    Read::Text(|config, value| {
        config.token_front.key_secret = Some(value.to_owned());
        Ok(())
    }),
)
.more(
    "An ARN or a name; its value keys the front's sealed client ids, forms, codes and access \
     tokens (a new value revokes every access token). The endpoint can be overridden with \
     `AWS_ENDPOINT_URL_SECRETS_MANAGER`.",
)
.unset_under_lambda(|config| {
    if config.token_front.enabled {
        return Err(formatcp!(
            "is required under Lambda when {}=on (instances share the key)",
            TOKEN_FRONT.name
        )
        .into());
    }
    Ok(())
});

#[cfg(test)]
mod tests {
    use crate::config::tests::{LAMBDA, config};

    #[test]
    fn the_token_front_is_off_by_default_and_needs_a_shared_key_under_lambda() {
        assert!(!config(&[]).unwrap().token_front.enabled);
        let on = config(&[("MCP_TOKEN_FRONT", " ON ")]).unwrap().token_front;
        assert!(on.enabled && on.key_secret.is_none() && !on.loopback_client_metadata);
        let err = config(&[LAMBDA, ("MCP_TOKEN_FRONT", "on")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_TOKEN_FRONT_KEY_SECRET"), "{err}");
        let secret = ("MCP_TOKEN_FRONT_KEY_SECRET", "arn:aws:secretsmanager:x");
        let set = config(&[LAMBDA, ("MCP_TOKEN_FRONT", "on"), secret]).unwrap();
        assert_eq!(set.token_front.key_secret.as_deref(), Some(secret.1));
        assert!(config(&[LAMBDA]).is_ok(), "off needs no key");
        let err = config(&[("MCP_TOKEN_FRONT", "yes")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_TOKEN_FRONT"), "{err}");
    }
}
