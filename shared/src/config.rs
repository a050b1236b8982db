//! Runtime configuration, read once from the environment with embedded defaults.
//!
//! Every variable is optional: with none set the server talks to Kobana's billing sandbox,
//! listens on loopback and keeps confirmations in memory.

mod audit;
pub mod origin;
pub mod variables;

use std::borrow::Cow;
use std::net::SocketAddr;
use std::time::Duration;

pub use audit::{AuditConfig, DEFAULT_AUDIT_RETENTION_DAYS};
use variables::LAMBDA_RUNTIME_API;
pub use variables::{VARIABLES, Variable};

/// The default budget: about 24 KB of text per answer.
pub const DEFAULT_ANSWER_BUDGET_BYTES: usize = 24 * 1024;
/// The smallest budget accepted (a page must hold its envelope and a row or two).
pub const MIN_ANSWER_BUDGET_BYTES: usize = 2 * 1024;

/// How list answers are shaped: compact rows under a byte budget, or whole records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowPolicy {
    /// List rows are Kobana's whole records (enriched), as before compact rows (CX-1; `MCP_LIST_ROWS=full`).
    pub full_records: bool,
    /// Largest text of one list answer, in bytes (`MCP_ANSWER_BUDGET_BYTES`).
    pub budget_bytes: usize,
}

impl Default for RowPolicy {
    fn default() -> Self {
        Self {
            full_records: false,
            budget_bytes: DEFAULT_ANSWER_BUDGET_BYTES,
        }
    }
}

/// What one request may make Kobana do (BW-1): calls (retries included), calls at once, and
/// bytes read from one answer. Every Kobana call of a request goes through one
/// [`crate::kobana::WorkBudget`] built from these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkLimits {
    /// Most Kobana calls one request makes, every retry counted (`KOBANA_MAX_CALLS`).
    pub max_calls: u32,
    /// Most Kobana calls of one request in flight at once (`KOBANA_MAX_IN_FLIGHT`).
    pub max_in_flight: u32,
    /// Most bytes read from one successful JSON answer (`KOBANA_MAX_JSON_BYTES`).
    pub max_json_bytes: u64,
    /// Most bytes read from one error answer (`KOBANA_MAX_ERROR_BYTES`); beyond it the
    /// error is the status's own, without Kobana's text.
    pub max_error_bytes: u64,
    /// Most bytes of one document (PDF, NF-e XML) served (`KOBANA_MAX_DOCUMENT_BYTES`; R-5:
    /// at most 10 MiB).
    pub max_document_bytes: u64,
}

/// Default [`WorkLimits::max_calls`]: the busiest request (`review_pending_nfes`: two lists
/// and a name, each list read up to three times) makes 7.
pub const DEFAULT_MAX_KOBANA_CALLS: u32 = 10;
/// Default [`WorkLimits::max_in_flight`]: the most any request sends at once is 2.
pub const DEFAULT_MAX_KOBANA_IN_FLIGHT: u32 = 4;
/// Default [`WorkLimits::max_json_bytes`]: a page of 100 records is a few hundred KB.
pub const DEFAULT_MAX_KOBANA_JSON_BYTES: u64 = 2 * 1024 * 1024;
/// Default [`WorkLimits::max_error_bytes`]: Kobana's error envelope is a few hundred bytes.
pub const DEFAULT_MAX_KOBANA_ERROR_BYTES: u64 = 16 * 1024;
/// Largest document served (R-5): 10 MiB, the default and the ceiling of
/// [`WorkLimits::max_document_bytes`].
pub const MAX_DOCUMENT_BYTES: u64 = 10 * 1024 * 1024;

impl Default for WorkLimits {
    fn default() -> Self {
        Self {
            max_calls: DEFAULT_MAX_KOBANA_CALLS,
            max_in_flight: DEFAULT_MAX_KOBANA_IN_FLIGHT,
            max_json_bytes: DEFAULT_MAX_KOBANA_JSON_BYTES,
            max_error_bytes: DEFAULT_MAX_KOBANA_ERROR_BYTES,
            max_document_bytes: MAX_DOCUMENT_BYTES,
        }
    }
}

/// Kobana's billing sandbox host (the spec's `servers` entry). Production is
/// `https://api.billing.kobana.com.br`.
pub const DEFAULT_KOBANA_API_URL: &str = "https://api.billing.sandbox.kobana.com.br";
/// Where the local server listens when `MCP_BIND` is unset.
pub const DEFAULT_BIND: &str = "127.0.0.1:3000";
/// Deadline for one Kobana call, retries included (`KOBANA_TIMEOUT_MS`).
pub const DEFAULT_KOBANA_TIMEOUT: Duration = Duration::from_secs(25);
/// The contact in the `User-Agent` sent to Kobana (`KOBANA_USER_AGENT_CONTACT`).
pub const DEFAULT_USER_AGENT_CONTACT: &str = "suporte@kobana.com.br";
/// Largest JSON-RPC request body accepted, in bytes.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// How long the local listener waits for a request head to be complete, counted from the
/// moment the connection is ready for one (`MCP_HEADER_READ_TIMEOUT_MS`).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a local connection may move no byte either way before it is closed
/// (`MCP_IDLE_TIMEOUT_MS`). Longer than two Kobana deadlines in a row (a list answer's two
/// rounds), so a slow Kobana never cuts an answer short.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

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

impl TokenFrontConfig {
    fn from_lookup(
        get: impl Fn(&str) -> Option<String>,
        under_lambda: bool,
    ) -> Result<Self, ConfigError> {
        let enabled = match get("MCP_TOKEN_FRONT").map(|v| v.trim().to_ascii_lowercase()) {
            None => false,
            Some(v) if v == "on" => true,
            Some(v) if v == "off" => false,
            Some(value) => {
                return Err(invalid("MCP_TOKEN_FRONT", value, "must be on or off"));
            }
        };
        let key_secret = get("MCP_TOKEN_FRONT_KEY_SECRET").map(|s| s.trim().to_owned());
        if enabled && under_lambda && key_secret.is_none() {
            return Err(invalid(
                "MCP_TOKEN_FRONT_KEY_SECRET",
                String::new(),
                "is required under Lambda when MCP_TOKEN_FRONT=on (instances share the key)",
            ));
        }
        Ok(Self {
            enabled,
            key_secret,
            loopback_client_metadata: false,
        })
    }
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

/// The browser origins a loopback server accepts: pages served from this machine.
pub fn loopback_origins() -> Vec<String> {
    ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// The hosts a loopback server answers to (DNS-rebinding protection).
pub fn loopback_hosts() -> Vec<String> {
    ["localhost", "127.0.0.1", "::1", "[::1]"]
        .into_iter()
        .map(str::to_owned)
        .collect()
}

impl Config {
    /// Reads the configuration from the process environment.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup` (the environment, or a map in tests): the
    /// variables of [`VARIABLES`] read by the configuration, and whether Lambda runs it.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let mut config = Self::default();
        let get = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        config.read_kobana(&get)?;
        config.audit = AuditConfig::from_lookup(&get)?;
        // Under Lambda the function sits behind API Gateway, which sets `Host` itself: the
        // DNS-rebinding guard has nothing to guard, and a deployment made without our template
        // (CDK, Terraform, the console) would otherwise refuse every request. Still settable.
        let under_lambda = get(LAMBDA_RUNTIME_API).is_some();
        if under_lambda {
            config.allowed_hosts = Vec::new();
        }
        config.token_front = TokenFrontConfig::from_lookup(get, under_lambda)?;
        config.metrics = metrics(&get, under_lambda)?;
        config.read_front(&get, &lookup)?;
        config.read_listener(&get)?;
        config.rows = row_policy(&get)?;
        config.work = work_limits(&get)?;
        config.validate()?;
        Ok(config)
    }

    /// Where Kobana is and how it is called: `KOBANA_API_URL`, `CONFIRMATIONS_TABLE`,
    /// `KOBANA_TIMEOUT_MS`, `KOBANA_USER_AGENT_CONTACT`.
    fn read_kobana(&mut self, get: &impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        if let Some(url) = get("KOBANA_API_URL") {
            let url = url.trim().trim_end_matches('/').to_owned();
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(invalid(
                    "KOBANA_API_URL",
                    url,
                    "must start with http:// or https://",
                ));
            }
            self.kobana_api_url = url;
        }
        self.confirmations_table = get("CONFIRMATIONS_TABLE").map(|t| t.trim().to_owned());
        if let Some(ms) = get("KOBANA_TIMEOUT_MS") {
            let ms: u64 = ms.trim().parse().map_err(|_| {
                invalid(
                    "KOBANA_TIMEOUT_MS",
                    ms.clone(),
                    "must be a whole number of milliseconds",
                )
            })?;
            self.kobana_timeout = Duration::from_millis(ms);
        }
        if let Some(contact) = get("KOBANA_USER_AGENT_CONTACT") {
            self.user_agent_contact = contact.trim().to_owned();
        }
        Ok(())
    }

    /// Who may call and how the endpoint names itself: `MCP_ALLOWED_HOSTS`,
    /// `MCP_ALLOWED_ORIGINS`, `MCP_PUBLIC_URL`, `MCP_AUTHORIZATION_SERVERS`. `lookup` is the
    /// raw reader: an origin list set but empty means none.
    fn read_front(
        &mut self,
        get: &impl Fn(&str) -> Option<String>,
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        if let Some(hosts) = get("MCP_ALLOWED_HOSTS") {
            self.allowed_hosts = if hosts.trim() == "*" {
                Vec::new()
            } else {
                split_list(&hosts)
            };
        }
        // Set but empty means no browser origin at all (the template's default); only an
        // unset variable keeps the loopback origins.
        if let Some(origins) = lookup("MCP_ALLOWED_ORIGINS") {
            self.allowed_origins = split_list(&origins);
        }
        self.public_url = get("MCP_PUBLIC_URL").map(|u| u.trim().to_owned());
        if let Some(servers) = get("MCP_AUTHORIZATION_SERVERS") {
            self.authorization_servers = split_list(&servers);
        }
        Ok(())
    }

    /// The local listener: `MCP_BIND`, `MCP_MAX_BODY_BYTES`, `MCP_HEADER_READ_TIMEOUT_MS`,
    /// `MCP_IDLE_TIMEOUT_MS`.
    fn read_listener(&mut self, get: &impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        if let Some(bind) = get("MCP_BIND") {
            self.bind = bind.trim().parse().map_err(|_| {
                invalid(
                    "MCP_BIND",
                    bind.clone(),
                    "must be an address like 127.0.0.1:3000",
                )
            })?;
        }
        if let Some(bytes) = get("MCP_MAX_BODY_BYTES") {
            self.max_body_bytes = bytes.trim().parse().map_err(|_| {
                invalid(
                    "MCP_MAX_BODY_BYTES",
                    bytes.clone(),
                    "must be a whole number of bytes",
                )
            })?;
        }
        if let Some(ms) = get("MCP_HEADER_READ_TIMEOUT_MS") {
            self.header_read_timeout = millis("MCP_HEADER_READ_TIMEOUT_MS", &ms)?;
        }
        if let Some(ms) = get("MCP_IDLE_TIMEOUT_MS") {
            self.idle_timeout = millis("MCP_IDLE_TIMEOUT_MS", &ms)?;
        }
        Ok(())
    }

    /// Checks the values that end up in headers and in the front's checks against the one
    /// grammar of [`origin`]: every allowed host and origin, the public URL and each
    /// authorization server. A value outside it is refused here, at start-up, rather than
    /// silently matching nothing (or something else) later.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(bad) = origin::first_invalid_host(&self.allowed_hosts) {
            return Err(invalid("MCP_ALLOWED_HOSTS", bad.to_owned(), HOSTS));
        }
        if let Some(bad) = origin::first_invalid_origin(&self.allowed_origins) {
            return Err(invalid("MCP_ALLOWED_ORIGINS", bad.to_owned(), ORIGINS));
        }
        if let Some(url) = self.public_url.iter().find(|u| !origin::is_http_url(u)) {
            return Err(invalid("MCP_PUBLIC_URL", url.clone(), URL));
        }
        if let Some(bad) = self
            .authorization_servers
            .iter()
            .find(|u| !origin::is_http_url(u))
        {
            return Err(invalid("MCP_AUTHORIZATION_SERVERS", bad.clone(), URL));
        }
        Ok(())
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

const HOSTS: &str =
    "each entry must be host or host:port (letters, digits, dots, hyphens; IPv6 in brackets)";
const ORIGINS: &str =
    "each entry must be scheme://host, scheme://host:port or scheme://host:* (http or https)";
const URL: &str = "must be an http(s):// URL without blanks, quotes, query or fragment";

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

/// `MCP_METRICS`: on under Lambda, off elsewhere, unless set.
fn metrics(get: &impl Fn(&str) -> Option<String>, under_lambda: bool) -> Result<bool, ConfigError> {
    let Some(metrics) = get("MCP_METRICS") else {
        return Ok(under_lambda);
    };
    match metrics.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "1" | "emf" => Ok(true),
        "off" | "false" | "0" => Ok(false),
        _ => Err(invalid("MCP_METRICS", metrics, "must be on or off")),
    }
}

/// `MCP_ANSWER_BUDGET_BYTES` and `MCP_LIST_ROWS`.
fn row_policy(get: &impl Fn(&str) -> Option<String>) -> Result<RowPolicy, ConfigError> {
    let mut rows = RowPolicy::default();
    if let Some(bytes) = get("MCP_ANSWER_BUDGET_BYTES") {
        rows.budget_bytes = bytes
            .trim()
            .parse()
            .ok()
            .filter(|b| *b >= MIN_ANSWER_BUDGET_BYTES)
            .ok_or_else(|| {
                invalid(
                    "MCP_ANSWER_BUDGET_BYTES",
                    bytes.clone(),
                    format!("must be a whole number of bytes, at least {MIN_ANSWER_BUDGET_BYTES}"),
                )
            })?;
    }
    if let Some(form) = get("MCP_LIST_ROWS") {
        rows.full_records = match form.trim() {
            "compact" => false,
            "full" => true,
            _ => return Err(invalid("MCP_LIST_ROWS", form, "must be compact or full")),
        };
    }
    Ok(rows)
}

/// A positive whole number of milliseconds.
fn millis(name: &'static str, value: &str) -> Result<Duration, ConfigError> {
    match value.trim().parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
        _ => Err(invalid(
            name,
            value.to_owned(),
            "must be a positive whole number of milliseconds",
        )),
    }
}

/// A whole number of `unit` from `name`, within `min..=max`, or `default` when unset; the
/// refusal quotes the bounds.
pub(crate) fn bounded(
    get: &impl Fn(&str) -> Option<String>,
    name: &'static str,
    (min, max): (u64, u64),
    default: u64,
    unit: &str,
) -> Result<u64, ConfigError> {
    let Some(text) = get(name) else {
        return Ok(default);
    };
    match text.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(invalid(
            name,
            text,
            format!("must be a whole number of {unit} from {min} to {max}"),
        )),
    }
}

/// Most Kobana calls one request may be allowed (`KOBANA_MAX_CALLS`).
const MAX_KOBANA_CALLS: u64 = 1000;
/// Most Kobana calls in flight one request may be allowed (`KOBANA_MAX_IN_FLIGHT`).
const MAX_KOBANA_IN_FLIGHT: u64 = 100;
/// The bounds of the byte limits `KOBANA_MAX_JSON_BYTES` and `KOBANA_MAX_ERROR_BYTES`.
const JSON_BYTES: (u64, u64) = (1024, 1 << 30);
const ERROR_BYTES: (u64, u64) = (256, 1 << 30);
/// The smallest `KOBANA_MAX_DOCUMENT_BYTES`.
const MIN_DOCUMENT_BYTES: u64 = 1024;

/// The `KOBANA_MAX_*` variables (see [`WorkLimits`]).
fn work_limits(get: &impl Fn(&str) -> Option<String>) -> Result<WorkLimits, ConfigError> {
    let calls = bounded(
        get,
        "KOBANA_MAX_CALLS",
        (1, MAX_KOBANA_CALLS),
        DEFAULT_MAX_KOBANA_CALLS.into(),
        "calls",
    )?;
    let in_flight = bounded(
        get,
        "KOBANA_MAX_IN_FLIGHT",
        (1, MAX_KOBANA_IN_FLIGHT),
        DEFAULT_MAX_KOBANA_IN_FLIGHT.into(),
        "calls",
    )?;
    Ok(WorkLimits {
        max_calls: u32::try_from(calls).unwrap_or(u32::MAX),
        max_in_flight: u32::try_from(in_flight).unwrap_or(u32::MAX),
        max_json_bytes: bounded(
            get,
            "KOBANA_MAX_JSON_BYTES",
            JSON_BYTES,
            DEFAULT_MAX_KOBANA_JSON_BYTES,
            "bytes",
        )?,
        max_error_bytes: bounded(
            get,
            "KOBANA_MAX_ERROR_BYTES",
            ERROR_BYTES,
            DEFAULT_MAX_KOBANA_ERROR_BYTES,
            "bytes",
        )?,
        max_document_bytes: bounded(
            get,
            "KOBANA_MAX_DOCUMENT_BYTES",
            (MIN_DOCUMENT_BYTES, MAX_DOCUMENT_BYTES),
            MAX_DOCUMENT_BYTES,
            "bytes",
        )?,
    })
}

fn split_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn config(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
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
    fn under_lambda_the_host_check_is_off_by_default_and_still_settable() {
        let lambda = ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001");
        assert!(config(&[lambda]).unwrap().allowed_hosts.is_empty());
        let set = config(&[lambda, ("MCP_ALLOWED_HOSTS", "mcp.example.com")]).unwrap();
        assert_eq!(set.allowed_hosts, vec!["mcp.example.com"]);
        assert!(!config(&[]).unwrap().allowed_hosts.is_empty());
    }

    #[test]
    fn the_answer_budget_and_the_row_form_are_configurable_and_checked() {
        let c = config(&[]).unwrap();
        assert_eq!(c.rows.budget_bytes, 24 * 1024);
        assert!(!c.rows.full_records);
        let c = config(&[
            ("MCP_ANSWER_BUDGET_BYTES", " 8192 "),
            ("MCP_LIST_ROWS", "full"),
        ])
        .unwrap();
        assert_eq!(c.rows.budget_bytes, 8192);
        assert!(c.rows.full_records);
        for (name, value) in [
            ("MCP_ANSWER_BUDGET_BYTES", "100"),
            ("MCP_ANSWER_BUDGET_BYTES", "24k"),
            ("MCP_LIST_ROWS", "tiny"),
        ] {
            let err = config(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn metrics_are_on_under_lambda_and_off_elsewhere_unless_asked_for() {
        let lambda = ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001");
        assert!(config(&[lambda]).unwrap().metrics);
        assert!(!config(&[]).unwrap().metrics);
        assert!(config(&[("MCP_METRICS", "on")]).unwrap().metrics);
        assert!(!config(&[lambda, ("MCP_METRICS", "off")]).unwrap().metrics);
        let err = config(&[("MCP_METRICS", "loud")]).unwrap_err().to_string();
        assert!(err.contains("MCP_METRICS"), "{err}");
    }

    #[test]
    fn n7_an_empty_origin_list_means_no_origin_and_unset_means_loopback() {
        assert!(
            config(&[("MCP_ALLOWED_ORIGINS", "")])
                .unwrap()
                .allowed_origins
                .is_empty()
        );
        assert!(
            config(&[("MCP_ALLOWED_ORIGINS", " , ")])
                .unwrap()
                .allowed_origins
                .is_empty()
        );
        assert_eq!(config(&[]).unwrap().allowed_origins, loopback_origins());
        for bad in [
            "http://127.0.0.1:80@evil",
            "null",
            "https://*.example.com",
            "localhost",
        ] {
            let err = config(&[("MCP_ALLOWED_ORIGINS", bad)])
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("MCP_ALLOWED_ORIGINS") && err.contains(bad),
                "{err}"
            );
        }
        let err = config(&[("MCP_ALLOWED_HOSTS", "mcp.example.com, evil\", x=\"y")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_ALLOWED_HOSTS"), "{err}");
    }

    #[test]
    fn no_authorization_server_by_default_and_urls_are_checked() {
        assert!(config(&[]).unwrap().authorization_servers.is_empty());
        let set = config(&[(
            "MCP_AUTHORIZATION_SERVERS",
            "https://a.example, https://b.example",
        )]);
        assert_eq!(
            set.unwrap().authorization_servers,
            ["https://a.example", "https://b.example"]
        );
        for (name, bad) in [
            ("MCP_AUTHORIZATION_SERVERS", "https://a.example\", x=\"y"),
            ("MCP_PUBLIC_URL", "https://mcp.example.com/mcp\", evil=\"1"),
            ("MCP_PUBLIC_URL", "mcp.example.com/mcp"),
        ] {
            let err = config(&[(name, bad)]).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }

    #[test]
    fn n10_listener_timeouts_have_defaults_and_are_configurable() {
        let c = config(&[]).unwrap();
        assert_eq!(c.header_read_timeout, DEFAULT_HEADER_READ_TIMEOUT);
        assert_eq!(c.idle_timeout, DEFAULT_IDLE_TIMEOUT);
        assert!(DEFAULT_IDLE_TIMEOUT > 2 * c.kobana_timeout);
        let c = config(&[
            ("MCP_HEADER_READ_TIMEOUT_MS", "250"),
            ("MCP_IDLE_TIMEOUT_MS", "1500"),
        ])
        .unwrap();
        assert_eq!(c.header_read_timeout, Duration::from_millis(250));
        assert_eq!(c.idle_timeout, Duration::from_millis(1500));
        for name in ["MCP_HEADER_READ_TIMEOUT_MS", "MCP_IDLE_TIMEOUT_MS"] {
            for bad in ["0", "-1", "10s"] {
                let err = config(&[(name, bad)]).unwrap_err().to_string();
                assert!(err.contains(name), "{err}");
            }
        }
    }

    #[test]
    fn the_token_front_is_off_by_default_and_needs_a_shared_key_under_lambda() {
        assert!(!config(&[]).unwrap().token_front.enabled);
        let on = config(&[("MCP_TOKEN_FRONT", " ON ")]).unwrap().token_front;
        assert!(on.enabled && on.key_secret.is_none() && !on.loopback_client_metadata);
        let lambda = ("AWS_LAMBDA_RUNTIME_API", "127.0.0.1:9001");
        let err = config(&[lambda, ("MCP_TOKEN_FRONT", "on")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_TOKEN_FRONT_KEY_SECRET"), "{err}");
        let secret = ("MCP_TOKEN_FRONT_KEY_SECRET", "arn:aws:secretsmanager:x");
        let set = config(&[lambda, ("MCP_TOKEN_FRONT", "on"), secret]).unwrap();
        assert_eq!(set.token_front.key_secret.as_deref(), Some(secret.1));
        assert!(config(&[lambda]).is_ok(), "off needs no key");
        let err = config(&[("MCP_TOKEN_FRONT", "yes")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("MCP_TOKEN_FRONT"), "{err}");
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

    #[test]
    fn the_work_limits_are_configurable_and_checked() {
        let c = config(&[]).unwrap();
        assert_eq!(c.work, WorkLimits::default());
        assert_eq!(c.work.max_document_bytes, 10 * 1024 * 1024);
        let c = config(&[
            ("KOBANA_MAX_CALLS", " 3 "),
            ("KOBANA_MAX_IN_FLIGHT", "1"),
            ("KOBANA_MAX_JSON_BYTES", "65536"),
            ("KOBANA_MAX_ERROR_BYTES", "512"),
            ("KOBANA_MAX_DOCUMENT_BYTES", "2048"),
        ])
        .unwrap();
        assert_eq!(
            c.work,
            WorkLimits {
                max_calls: 3,
                max_in_flight: 1,
                max_json_bytes: 65536,
                max_error_bytes: 512,
                max_document_bytes: 2048,
            }
        );
        for (name, value) in [
            ("KOBANA_MAX_CALLS", "0"),
            ("KOBANA_MAX_CALLS", "many"),
            ("KOBANA_MAX_IN_FLIGHT", "0"),
            ("KOBANA_MAX_JSON_BYTES", "10"),
            ("KOBANA_MAX_ERROR_BYTES", "-1"),
            ("KOBANA_MAX_DOCUMENT_BYTES", "20971520"),
        ] {
            let err = config(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name), "{err}");
        }
    }
}
