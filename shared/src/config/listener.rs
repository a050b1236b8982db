//! The local listener: where it listens (`MCP_BIND`), the largest body it reads
//! (`MCP_MAX_BODY_BYTES`) and its timeouts. Under Lambda only the body limit applies.

use std::time::Duration;

use const_format::formatcp;

use super::variables::{Read, Unit, Variable};

/// Where the local server listens when `MCP_BIND` is unset.
pub const DEFAULT_BIND: &str = "127.0.0.1:3000";
/// Largest JSON-RPC request body accepted, in bytes.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1024 * 1024;
/// How long the local listener waits for a request head to be complete, counted from the
/// moment the connection is ready for one (`MCP_HEADER_READ_TIMEOUT_MS`).
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a local connection may move no byte either way before it is closed
/// (`MCP_IDLE_TIMEOUT_MS`). Longer than two Kobana deadlines in a row (a list answer's two
/// rounds), so a slow Kobana never cuts an answer short.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// `MCP_BIND`.
pub(super) const BIND: Variable = Variable::new(
    "MCP_BIND",
    formatcp!("`{DEFAULT_BIND}`"),
    "Local listen address (ignored under Lambda).",
    Read::Text(|config, value| {
        config.bind = value
            .parse()
            .map_err(|_| formatcp!("must be an address like {DEFAULT_BIND}"))?;
        Ok(())
    }),
);

/// `MCP_HEADER_READ_TIMEOUT_MS`.
pub(super) const HEADER_READ_TIMEOUT: Variable = Variable::new(
    "MCP_HEADER_READ_TIMEOUT_MS",
    formatcp!("`{}`", DEFAULT_HEADER_READ_TIMEOUT.as_millis()),
    "Local listener only: time for a request head to be complete.",
    Read::Whole {
        unit: Unit::Milliseconds,
        min: 1,
        max: u64::MAX,
        set: |config, ms| config.header_read_timeout = Duration::from_millis(ms),
    },
)
.more(
    "Counted from the connection being ready for one (accepted, or its previous answer sent); \
     it bounds partial heads and idle kept-alive connections.",
);

/// `MCP_IDLE_TIMEOUT_MS`.
pub(super) const IDLE_TIMEOUT: Variable = Variable::new(
    "MCP_IDLE_TIMEOUT_MS",
    formatcp!("`{}`", DEFAULT_IDLE_TIMEOUT.as_millis()),
    "Local listener only: a connection idle this long is closed.",
    Read::Whole {
        unit: Unit::Milliseconds,
        min: 1,
        max: u64::MAX,
        set: |config, ms| config.idle_timeout = Duration::from_millis(ms),
    },
)
.more(
    "Idle: no byte moves either way (a stalled body, a client that stopped reading). Keep it \
     above twice `KOBANA_TIMEOUT_MS`.",
);

/// `MCP_MAX_BODY_BYTES`.
pub(super) const MAX_BODY_BYTES: Variable = Variable::new(
    "MCP_MAX_BODY_BYTES",
    formatcp!("`{DEFAULT_MAX_BODY_BYTES}`"),
    "Largest request body; larger is 413.",
    Read::Whole {
        unit: Unit::Bytes,
        min: 0,
        max: u64::MAX,
        set: |config, bytes| config.max_body_bytes = usize::try_from(bytes).unwrap_or(usize::MAX),
    },
);

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::tests::config;

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
    fn the_bind_address_and_the_body_limit_are_read_and_checked() {
        let c = config(&[
            ("MCP_BIND", "127.0.0.1:4000"),
            ("MCP_MAX_BODY_BYTES", "2048"),
        ])
        .unwrap();
        assert_eq!((c.bind.port(), c.max_body_bytes), (4000, 2048));
        for (name, bad) in [("MCP_BIND", "nope"), ("MCP_MAX_BODY_BYTES", "1 MB")] {
            let err = config(&[(name, bad)]).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(bad), "{err}");
        }
    }
}
