//! The environment variables the server reads: one table, the source of the binary's usage
//! text, checked against what [`Config::from_lookup`](super::Config::from_lookup) reads and
//! against the README's configuration table (which keeps the longer prose).

use const_format::formatcp;

use super::{
    DEFAULT_ANSWER_BUDGET_BYTES, DEFAULT_AUDIT_RETENTION_DAYS, DEFAULT_BIND,
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_KOBANA_API_URL,
    DEFAULT_KOBANA_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_KOBANA_CALLS,
    DEFAULT_MAX_KOBANA_ERROR_BYTES, DEFAULT_MAX_KOBANA_IN_FLIGHT, DEFAULT_MAX_KOBANA_JSON_BYTES,
    DEFAULT_USER_AGENT_CONTACT, MAX_DOCUMENT_BYTES,
};

/// Who reads a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadBy {
    /// [`Config::from_lookup`](super::Config::from_lookup).
    Config,
    /// The log set-up (`telemetry::logging`), before the configuration is read.
    Logging,
}

/// One variable: its name, its default as the README writes it (without the code marks), and
/// what it means in one line.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    /// The name.
    pub name: &'static str,
    /// The value in force when it is unset.
    pub default: &'static str,
    /// What it sets.
    pub meaning: &'static str,
    /// Who reads it.
    pub read_by: ReadBy,
}

/// The log filter's variable.
pub const RUST_LOG: &str = "RUST_LOG";

/// Set by AWS Lambda's runtime, never by the operator: its presence says the process runs
/// under Lambda (and changes a few defaults below).
pub const LAMBDA_RUNTIME_API: &str = "AWS_LAMBDA_RUNTIME_API";

const fn var(name: &'static str, default: &'static str, meaning: &'static str) -> Variable {
    Variable {
        name,
        default,
        meaning,
        read_by: ReadBy::Config,
    }
}

/// Every variable, in the README's order. All optional.
pub const VARIABLES: &[Variable] = &[
    var(
        "MCP_BIND",
        DEFAULT_BIND,
        "Local listen address (ignored under Lambda).",
    ),
    var(
        "KOBANA_API_URL",
        DEFAULT_KOBANA_API_URL,
        "Kobana billing base URL without /v1.",
    ),
    var(
        "CONFIRMATIONS_TABLE",
        "unset → in memory",
        "DynamoDB table for confirmation nonces.",
    ),
    var(
        "AUDIT_TABLE",
        "unset → in memory",
        "DynamoDB table of the audit trail of writes.",
    ),
    var(
        "AUDIT_RETENTION_DAYS",
        formatcp!("{DEFAULT_AUDIT_RETENTION_DAYS}"),
        "Days an audit entry is kept (the table's TTL).",
    ),
    var(
        "MCP_ALLOWED_HOSTS",
        "localhost,127.0.0.1,::1; under Lambda: off",
        "Host values accepted (DNS-rebinding protection); * disables the check.",
    ),
    var(
        "MCP_ALLOWED_ORIGINS",
        "unset: http://localhost:*,http://127.0.0.1:*,http://[::1]:*; set but empty: none",
        "Browser origins accepted and granted CORS (scheme://host[:port|:*]).",
    ),
    var(
        "MCP_PUBLIC_URL",
        "unset",
        "Canonical URL of the endpoint (the OAuth protected resource).",
    ),
    var(
        "MCP_AUTHORIZATION_SERVERS",
        "none",
        "Authorization servers named in the protected-resource metadata.",
    ),
    var(
        "MCP_HEADER_READ_TIMEOUT_MS",
        formatcp!("{}", DEFAULT_HEADER_READ_TIMEOUT.as_millis()),
        "Local listener: time for a request head to be complete.",
    ),
    var(
        "MCP_IDLE_TIMEOUT_MS",
        formatcp!("{}", DEFAULT_IDLE_TIMEOUT.as_millis()),
        "Local listener: a connection idle this long is closed.",
    ),
    var(
        "KOBANA_TIMEOUT_MS",
        formatcp!("{}", DEFAULT_KOBANA_TIMEOUT.as_millis()),
        "Deadline for one Kobana call, retries included.",
    ),
    var(
        "MCP_MAX_BODY_BYTES",
        formatcp!("{DEFAULT_MAX_BODY_BYTES}"),
        "Largest request body; larger is 413.",
    ),
    var(
        "KOBANA_USER_AGENT_CONTACT",
        DEFAULT_USER_AGENT_CONTACT,
        "Contact in the User-Agent Kobana requires.",
    ),
    var(
        "MCP_ANSWER_BUDGET_BYTES",
        formatcp!("{DEFAULT_ANSWER_BUDGET_BYTES}"),
        "Largest text of one list answer; a longer page is cut and says so.",
    ),
    var(
        "MCP_LIST_ROWS",
        "compact",
        "compact list rows, or full: Kobana's whole records.",
    ),
    var(
        "MCP_TOKEN_FRONT",
        "off",
        "on serves the token front for OAuth-only hosts.",
    ),
    var(
        "MCP_TOKEN_FRONT_KEY_SECRET",
        "unset → a random key made at start",
        "Secrets Manager secret keying the token front (required under Lambda when it is on).",
    ),
    var(
        "MCP_METRICS",
        "under Lambda: on; elsewhere: off",
        "CloudWatch metrics as Embedded Metric Format lines on stdout.",
    ),
    var(
        "KOBANA_MAX_CALLS",
        formatcp!("{DEFAULT_MAX_KOBANA_CALLS}"),
        "Kobana calls one request may make, retries included.",
    ),
    var(
        "KOBANA_MAX_IN_FLIGHT",
        formatcp!("{DEFAULT_MAX_KOBANA_IN_FLIGHT}"),
        "Kobana calls one request may have in flight at once.",
    ),
    var(
        "KOBANA_MAX_JSON_BYTES",
        formatcp!("{DEFAULT_MAX_KOBANA_JSON_BYTES}"),
        "Largest JSON answer read from Kobana.",
    ),
    var(
        "KOBANA_MAX_ERROR_BYTES",
        formatcp!("{DEFAULT_MAX_KOBANA_ERROR_BYTES}"),
        "Largest error body read from Kobana.",
    ),
    var(
        "KOBANA_MAX_DOCUMENT_BYTES",
        formatcp!("{MAX_DOCUMENT_BYTES}"),
        "Largest PDF or XML streamed from Kobana.",
    ),
    Variable {
        name: RUST_LOG,
        default: "info",
        meaning: "Log filter (level, or target=level pairs); never logs tokens or arguments.",
        read_by: ReadBy::Logging,
    },
];

/// The environment part of the binary's usage text: each variable with its default and
/// meaning, one line each.
pub fn usage() -> String {
    let width = VARIABLES.iter().map(|v| v.name.len()).max().unwrap_or(0);
    let mut text = String::from("environment (all optional; defaults in brackets):\n");
    for variable in VARIABLES {
        text.push_str(&format!(
            "  {:width$}  {} [{}]\n",
            variable.name, variable.meaning, variable.default
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeSet;

    use super::*;
    use crate::config::Config;

    /// NM-4: the table names exactly the variables the configuration reads (plus the log
    /// filter), so the usage text generated from it can neither miss nor invent one.
    #[test]
    fn nm4_the_variable_table_is_what_the_configuration_reads() {
        let asked = RefCell::new(BTreeSet::new());
        let config = Config::from_lookup(|name| {
            asked.borrow_mut().insert(name.to_owned());
            None
        });
        assert!(config.is_ok());
        let mut expected: BTreeSet<String> = VARIABLES
            .iter()
            .filter(|v| v.read_by == ReadBy::Config)
            .map(|v| v.name.to_owned())
            .collect();
        expected.insert(LAMBDA_RUNTIME_API.to_owned());
        assert_eq!(asked.into_inner(), expected);
        let logging: Vec<&str> = VARIABLES
            .iter()
            .filter(|v| v.read_by == ReadBy::Logging)
            .map(|v| v.name)
            .collect();
        assert_eq!(logging, [RUST_LOG]);
        let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), VARIABLES.len(), "a variable twice");
    }

    #[test]
    fn nm4_the_usage_text_lists_every_variable_with_its_default() {
        let text = usage();
        for variable in VARIABLES {
            let line = text
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", variable.name)))
                .unwrap_or_else(|| panic!("{} missing:\n{text}", variable.name));
            assert!(
                line.contains(variable.meaning)
                    && line.ends_with(&format!("[{}]", variable.default)),
                "{line}"
            );
        }
        assert!(
            text.contains("[10000]") && text.contains("[25000]"),
            "{text}"
        );
    }
}
