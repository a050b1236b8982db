//! What the operator reads: the log filter (`RUST_LOG`, read by the log set-up before the
//! configuration) and the metric lines (`MCP_METRICS`).

use const_format::formatcp;

use super::variables::{Read, Variable};

/// The log filter when `RUST_LOG` is unset or cannot be read.
pub const DEFAULT_LOG_FILTER: &str = "info";

/// `MCP_METRICS`: on under Lambda, off elsewhere, unless set.
pub(super) const METRICS: Variable = Variable::new(
    "MCP_METRICS",
    "under Lambda: `on`; elsewhere: `off`",
    "CloudWatch metrics as Embedded Metric Format lines on stdout.",
    Read::Text(|config, value| {
        config.metrics = match value.to_ascii_lowercase().as_str() {
            "on" | "true" | "1" | "emf" => true,
            "off" | "false" | "0" => false,
            _ => return Err("must be on or off".into()),
        };
        Ok(())
    }),
)
.more("Namespace `KobanaMcp`; see docs/deploy.md \"Operating it\".")
.unset_under_lambda(|config| {
    config.metrics = true;
    Ok(())
});

/// `RUST_LOG`.
pub(super) const LOG_FILTER: Variable = Variable::new(
    "RUST_LOG",
    formatcp!("`{DEFAULT_LOG_FILTER}`"),
    "Log filter (`level`, or `target=level` pairs); never logs tokens or arguments.",
    Read::Logging,
)
.more(
    "Pairs are separated by commas (e.g. `warn,kobana_mcp=debug`). Whatever it says, `rmcp` \
     stays at `error` (below that it echoes what clients send), and the Lambda crates and the \
     AWS SDK at `info` (below that they log whole events and requests): no argument value or \
     token reaches a log line at any level. Logs are JSON lines under Lambda, with one \
     `kobana_mcp::request` line per request, Kobana calls and rounds included \
     ([docs/deploy.md](docs/deploy.md) \"Operating it\").",
);

#[cfg(test)]
mod tests {
    use crate::config::tests::{LAMBDA, config};

    #[test]
    fn metrics_are_on_under_lambda_and_off_elsewhere_unless_asked_for() {
        assert!(config(&[LAMBDA]).unwrap().metrics);
        assert!(!config(&[]).unwrap().metrics);
        assert!(config(&[("MCP_METRICS", "on")]).unwrap().metrics);
        assert!(!config(&[LAMBDA, ("MCP_METRICS", "off")]).unwrap().metrics);
        let err = config(&[("MCP_METRICS", "loud")]).unwrap_err().to_string();
        assert!(err.contains("MCP_METRICS"), "{err}");
    }
}
