//! Where Kobana is and how it is called: `KOBANA_API_URL`, `KOBANA_TIMEOUT_MS`,
//! `KOBANA_USER_AGENT_CONTACT`. What one request may make it do is in `work`.

use std::time::Duration;

use const_format::formatcp;

use super::variables::{Read, Unit, Variable};

/// Kobana's billing sandbox host (the spec's `servers` entry).
pub const DEFAULT_KOBANA_API_URL: &str = "https://api.billing.sandbox.kobana.com.br";
/// Kobana's billing production host.
pub const PRODUCTION_KOBANA_API_URL: &str = "https://api.billing.kobana.com.br";
/// Deadline for one Kobana call, retries included (`KOBANA_TIMEOUT_MS`).
pub const DEFAULT_KOBANA_TIMEOUT: Duration = Duration::from_secs(25);
/// The contact in the `User-Agent` sent to Kobana (`KOBANA_USER_AGENT_CONTACT`).
pub const DEFAULT_USER_AGENT_CONTACT: &str = "suporte@kobana.com.br";

/// `KOBANA_API_URL`.
pub const API_URL: Variable = Variable::new(
    "KOBANA_API_URL",
    formatcp!("`{DEFAULT_KOBANA_API_URL}`"),
    "Kobana billing base URL without `/v1`.",
    Read::Text(|config, value| {
        let url = value.trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err("must start with http:// or https://".into());
        }
        config.kobana_api_url = url.to_owned();
        Ok(())
    }),
)
.more(formatcp!(
    "Production is `{PRODUCTION_KOBANA_API_URL}`; any faithful stand-in works."
));

/// `KOBANA_TIMEOUT_MS`.
pub(super) const TIMEOUT: Variable = Variable::new(
    "KOBANA_TIMEOUT_MS",
    formatcp!("`{}`", DEFAULT_KOBANA_TIMEOUT.as_millis()),
    "Deadline for one Kobana call, retries included.",
    Read::Whole {
        unit: Unit::Milliseconds,
        min: 0,
        max: u64::MAX,
        set: |config, ms| config.kobana_timeout = Duration::from_millis(ms),
    },
);

/// `KOBANA_USER_AGENT_CONTACT`.
pub(super) const USER_AGENT_CONTACT: Variable = Variable::new(
    "KOBANA_USER_AGENT_CONTACT",
    formatcp!("`{DEFAULT_USER_AGENT_CONTACT}`"),
    "Contact in the `User-Agent` Kobana requires.",
    Read::Text(|config, value| {
        config.user_agent_contact = value.to_owned();
        Ok(())
    }),
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::config;

    #[test]
    fn kobana_is_found_and_called_as_configured() {
        let c = config(&[
            ("KOBANA_API_URL", " http://127.0.0.1:9/ "),
            ("KOBANA_TIMEOUT_MS", "1500"),
            ("KOBANA_USER_AGENT_CONTACT", " ops@example.com "),
        ])
        .unwrap();
        assert_eq!(c.kobana_api_url, "http://127.0.0.1:9");
        assert_eq!(c.kobana_timeout, Duration::from_millis(1500));
        assert!(
            c.user_agent().ends_with(" <ops@example.com>"),
            "{}",
            c.user_agent()
        );
        for (name, bad) in [("KOBANA_API_URL", "ftp://x"), ("KOBANA_TIMEOUT_MS", "25s")] {
            let err = config(&[(name, bad)]).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(bad), "{err}");
        }
    }
}
