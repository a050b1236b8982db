//! Runtime configuration, read once from the environment with embedded defaults.
//!
//! Every variable is optional: with none set the server talks to Kobana's billing sandbox,
//! listens on loopback and keeps confirmations in memory. Each variable is declared once, in
//! the module of its concern, and listed in [`VARIABLES`] (see [`variables`]); a bad value
//! names the variable and stops the server at start.

pub mod answers;
pub mod front;
pub mod kobana;
pub mod listener;
pub mod logs;
pub mod origin;
pub mod stores;
pub mod token_front;
pub mod variables;
pub mod work;

use std::borrow::Cow;
use std::net::SocketAddr;
use std::time::Duration;

pub use answers::{DEFAULT_ANSWER_BUDGET_BYTES, MIN_ANSWER_BUDGET_BYTES, RowPolicy};
pub use front::{loopback_hosts, loopback_origins};
pub use kobana::{DEFAULT_KOBANA_API_URL, DEFAULT_KOBANA_TIMEOUT, DEFAULT_USER_AGENT_CONTACT};
pub use listener::{
    DEFAULT_BIND, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_BODY_BYTES,
};
pub use stores::{AuditConfig, DEFAULT_AUDIT_RETENTION_DAYS};
pub use token_front::TokenFrontConfig;
use variables::LAMBDA_RUNTIME_API;
pub use variables::{VARIABLES, Variable};
pub use work::{
    DEFAULT_MAX_KOBANA_CALLS, DEFAULT_MAX_KOBANA_ERROR_BYTES, DEFAULT_MAX_KOBANA_IN_FLIGHT,
    DEFAULT_MAX_KOBANA_JSON_BYTES, MAX_DOCUMENT_BYTES, WorkLimits,
};

/// A configuration value that could not be understood.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The variable is set but its value is not usable.
    #[error("{name}: {reason} (got {value:?})")]
    Invalid {
        /// Environment variable name.
        name: &'static str,
        /// The offending value.
        value: String,
        /// Why it was refused.
        reason: Cow<'static, str>,
    },
}

/// Everything the server needs to know about its surroundings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Kobana billing base URL without the version path (`KOBANA_API_URL`).
    pub kobana_api_url: String,
    /// Local listen address (`MCP_BIND`); unused under Lambda.
    pub bind: SocketAddr,
    /// Hosts accepted in the `Host` header (`MCP_ALLOWED_HOSTS`, comma-separated);
    /// empty disables the check (behind API Gateway, which fixes the host itself). Default:
    /// the loopback names, or empty under Lambda (`AWS_LAMBDA_RUNTIME_API` set).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted in the `Origin` header (`MCP_ALLOWED_ORIGINS`, comma-separated
    /// `scheme://host[:port]` entries, `:*` for any port, see [`origin`]; unset: the loopback
    /// origins; set but empty: none); a request with any other `Origin` is refused with 403.
    /// Requests without `Origin` pass.
    pub allowed_origins: Vec<String>,
    /// Public URL of the MCP endpoint (`MCP_PUBLIC_URL`, e.g. `https://mcp.example.com/mcp`),
    /// used as the protected resource's identifier. When unset it comes from API Gateway's
    /// request context under Lambda, or from a `Host` the host check admitted locally.
    pub public_url: Option<String>,
    /// OAuth authorization servers the protected-resource metadata names
    /// (`MCP_AUTHORIZATION_SERVERS`). Default none: no server we know of issues billing
    /// tokens, and a client sent to one that cannot would end in a token Kobana refuses.
    pub authorization_servers: Vec<String>,
    /// DynamoDB table for confirmation nonces (`CONFIRMATIONS_TABLE`); in memory when unset.
    pub confirmations_table: Option<String>,
    /// The audit trail's store and retention (`AUDIT_TABLE`, `AUDIT_RETENTION_DAYS`).
    pub audit: AuditConfig,
    /// Deadline for one Kobana call including retries (`KOBANA_TIMEOUT_MS`).
    pub kobana_timeout: Duration,
    /// Largest request body accepted (`MCP_MAX_BODY_BYTES`).
    pub max_body_bytes: usize,
    /// Contact sent in the `User-Agent` header Kobana requires (`KOBANA_USER_AGENT_CONTACT`).
    pub user_agent_contact: String,
    /// Token used for requests that carry none. Never read from the environment: only the
    /// `--demo` switch sets it, so a newcomer can point any client at the demo server.
    pub anonymous_token: Option<String>,
    /// The instant (Unix seconds) taken as now for billing dates (days overdue, the default
    /// month, the months completed); `None` is the system's clock. Never read from the
    /// environment: only the `--demo` switch and the tests set it, to the fake Kobana's
    /// clock, so the server and the fake tell one story ([`crate::format::BillingClock`]).
    pub billing_now: Option<i64>,
    /// How list answers are shaped: the byte budget of one answer
    /// (`MCP_ANSWER_BUDGET_BYTES`, default 24 KiB) and whether rows are whole records
    /// (`MCP_LIST_ROWS=full`) instead of compact rows (`compact`, the default).
    pub rows: RowPolicy,
    /// Write CloudWatch EMF metric lines to stdout (`MCP_METRICS`: `on` / `off`); on under
    /// Lambda, off anywhere else unless asked for.
    pub metrics: bool,
    /// What one request may make Kobana do (`KOBANA_MAX_*`, see [`WorkLimits`]).
    pub work: WorkLimits,
    /// The local listener's header-read timeout (`MCP_HEADER_READ_TIMEOUT_MS`).
    pub header_read_timeout: Duration,
    /// The local listener's idle timeout (`MCP_IDLE_TIMEOUT_MS`).
    pub idle_timeout: Duration,
    /// The token front for OAuth-only hosts (`MCP_TOKEN_FRONT`, off by default).
    pub token_front: TokenFrontConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            kobana_api_url: DEFAULT_KOBANA_API_URL.to_owned(),
            bind: DEFAULT_BIND.parse().expect("valid default bind address"),
            allowed_hosts: loopback_hosts(),
            allowed_origins: loopback_origins(),
            public_url: None,
            authorization_servers: Vec::new(),
            confirmations_table: None,
            audit: AuditConfig::default(),
            kobana_timeout: DEFAULT_KOBANA_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            user_agent_contact: DEFAULT_USER_AGENT_CONTACT.to_owned(),
            anonymous_token: None,
            billing_now: None,
            rows: RowPolicy::default(),
            metrics: false,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            token_front: TokenFrontConfig::default(),
            work: WorkLimits::default(),
        }
    }
}

impl Config {
    /// Reads the configuration from the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (the environment, or a map in tests): each
    /// variable of [`VARIABLES`] the configuration reads, through its declaration, and
    /// whether Lambda runs it (which changes what a few unset variables mean).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let under_lambda = lookup(LAMBDA_RUNTIME_API).is_some_and(|v| !v.trim().is_empty());
        let mut config = Self::default();
        let mut unset = Vec::new();
        for variable in VARIABLES.iter().filter(|v| v.read_by_config()) {
            match lookup(variable.name).filter(|raw| variable.is_set(raw)) {
                Some(raw) => variable
                    .apply(&mut config, &raw)
                    .map_err(|reason| invalid(variable.name, raw, reason))?,
                None => unset.push(variable),
            }
        }
        if under_lambda {
            for variable in unset {
                if let Some(apply) = variable.unset_under_lambda {
                    apply(&mut config)
                        .map_err(|reason| invalid(variable.name, String::new(), reason))?;
                }
            }
        }
        config.validate()?;
        Ok(config)
    }

    /// Checks the values that end up in headers and in the front's checks against the one
    /// grammar of [`origin`]: every allowed host and origin, the public URL and each
    /// authorization server (a configuration built in code passes here too).
    pub fn validate(&self) -> Result<(), ConfigError> {
        front::check(self)
    }

    /// The `User-Agent` sent to Kobana: product, version and a contact, as Kobana asks.
    pub fn user_agent(&self) -> String {
        format!(
            "Kobana MCP Server/{} <{}>",
            env!("CARGO_PKG_VERSION"),
            self.user_agent_contact
        )
    }
}

/// The refusal of `value` for the variable `name`.
pub(crate) fn invalid(
    name: &'static str,
    value: String,
    reason: impl Into<Cow<'static, str>>,
) -> ConfigError {
    ConfigError::Invalid {
        name,
        value,
        reason: reason.into(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::HashMap;

    /// What `AWS_LAMBDA_RUNTIME_API` looks like under Lambda.
    pub(crate) const LAMBDA: (&str, &str) = (LAMBDA_RUNTIME_API, "127.0.0.1:9001");

    /// The configuration read from `vars` alone.
    pub(crate) fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    #[test]
    fn a5_defaults_need_no_environment() {
        let c = config(&[]).unwrap();
        assert_eq!(c.kobana_api_url, DEFAULT_KOBANA_API_URL);
        assert_eq!(c.bind.to_string(), "127.0.0.1:3000");
        assert!(c.confirmations_table.is_none());
        assert!(c.allowed_hosts.contains(&"localhost".to_owned()));
    }

    #[test]
    fn env_overrides_are_read_and_trimmed() {
        let c = config(&[
            ("KOBANA_API_URL", "http://127.0.0.1:9/"),
            ("MCP_BIND", "127.0.0.1:4000"),
            ("MCP_ALLOWED_HOSTS", "mcp.example.com, localhost"),
            ("CONFIRMATIONS_TABLE", "confirmations"),
            ("KOBANA_TIMEOUT_MS", "1500"),
        ])
        .unwrap();
        assert_eq!(c.kobana_api_url, "http://127.0.0.1:9");
        assert_eq!(c.bind.port(), 4000);
        assert_eq!(c.allowed_hosts, vec!["mcp.example.com", "localhost"]);
        assert_eq!(c.confirmations_table.as_deref(), Some("confirmations"));
        assert_eq!(c.kobana_timeout, Duration::from_millis(1500));
    }

    #[test]
    fn blank_values_count_as_unset() {
        let c = config(&[("MCP_BIND", "  "), ("KOBANA_MAX_CALLS", "")]).unwrap();
        assert_eq!(c.bind.to_string(), DEFAULT_BIND);
        assert_eq!(c.work.max_calls, DEFAULT_MAX_KOBANA_CALLS);
        assert!(!config(&[(LAMBDA_RUNTIME_API, " ")]).unwrap().metrics);
    }

    #[test]
    fn bad_values_name_the_variable() {
        let err = config(&[("MCP_BIND", "nope")]).unwrap_err().to_string();
        assert!(err.contains("MCP_BIND"), "{err}");
        let err = config(&[("KOBANA_API_URL", "ftp://x")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("KOBANA_API_URL"), "{err}");
    }
}
