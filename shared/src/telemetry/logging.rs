//! The log set-up: the `RUST_LOG` filter, and the subscriber — JSON lines under Lambda (what
//! CloudWatch Logs Insights reads field by field), compact text anywhere else.

use tracing::{Level, Subscriber};
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The filter used when `RUST_LOG` is unset or cannot be read.
pub const DEFAULT_FILTER: &str = crate::config::logs::DEFAULT_LOG_FILTER;

/// Targets held at a level whatever `RUST_LOG` says, however specific its directive (BW-3):
///
/// - `rmcp` at error: from warn down it echoes what clients send — the error answered to a
///   request (which can quote an argument: `Argumento customer_id inválido: "…"`), every
///   notification, the client's `clientInfo`, whole messages at debug and trace; the request
///   line carries the method, the target and the error code instead;
/// - `lambda_runtime` and `lambda_http` at info: at trace they log whole events,
///   `Authorization` header included;
/// - the AWS SDK (`aws_*`) at info: at debug and trace it logs requests to DynamoDB.
pub const CAPPED_TARGETS: [(&str, Level); 4] = [
    ("rmcp", Level::ERROR),
    ("lambda_runtime", Level::INFO),
    ("lambda_http", Level::INFO),
    ("aws_", Level::INFO),
];

/// The log filter: `RUST_LOG` in the `target=level,...` form (default [`DEFAULT_FILTER`]),
/// with every target under [`CAPPED_TARGETS`] held at its cap — a directive naming such a
/// target, or one under it, is lowered to the cap, and the cap itself is a directive, so
/// neither a bare level (`trace`) nor a specific one (`rmcp::service=trace`) gets past it.
pub fn log_filter(rust_log: Option<&str>) -> Targets {
    let default = || DEFAULT_FILTER.parse::<Targets>().expect("valid default");
    let asked = match rust_log {
        None => default(),
        Some(spec) => spec.parse().unwrap_or_else(|error| {
            eprintln!("kobana-mcp: RUST_LOG ignored ({error}); using {DEFAULT_FILTER}");
            default()
        }),
    };
    let cap_of = |target: &str| {
        CAPPED_TARGETS
            .iter()
            .find(|(prefix, _)| target.starts_with(prefix))
            .map(|(_, cap)| LevelFilter::from_level(*cap))
    };
    let mut filter = Targets::new();
    if let Some(level) = asked.default_level() {
        filter = filter.with_default(level);
    }
    for (target, level) in asked.iter() {
        let level = cap_of(target).map_or(level, |cap| level.min(cap));
        filter = filter.with_target(target.to_owned(), level);
    }
    let base = asked.default_level().unwrap_or(LevelFilter::OFF);
    for (prefix, cap) in CAPPED_TARGETS {
        let cap = LevelFilter::from_level(cap);
        let level = asked
            .iter()
            .find(|(target, _)| *target == prefix)
            .map_or(base, |(_, level)| level);
        filter = filter.with_target(prefix, level.min(cap));
    }
    filter
}

/// The JSON-lines subscriber used under Lambda, writing to `writer` (tests read it back).
pub fn json_subscriber<W>(filter: Targets, writer: W) -> impl Subscriber + Send + Sync
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    // The builder's own level cap is INFO; `filter` alone decides (RUST_LOG=debug works).
    tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_writer(writer)
        .json()
        .with_ansi(false)
        .with_current_span(true)
        .without_time()
        .finish()
        .with(filter)
}

/// The compact text subscriber of a local run, writing to `writer` (tests read it back).
pub fn text_subscriber<W>(filter: Targets, writer: W) -> impl Subscriber + Send + Sync
where
    W: for<'a> MakeWriter<'a> + Send + Sync + 'static,
{
    tracing_subscriber::fmt()
        .with_max_level(tracing::level_filters::LevelFilter::TRACE)
        .with_writer(writer)
        .compact()
        .finish()
        .with(filter)
}

/// Installs the process-wide subscriber on stderr: JSON lines when `json` (under Lambda),
/// compact text otherwise, filtered by `RUST_LOG`.
pub fn init(json: bool) {
    let filter = log_filter(
        std::env::var(crate::config::variables::RUST_LOG)
            .ok()
            .as_deref(),
    );
    if json {
        json_subscriber(filter, std::io::stderr).init();
    } else {
        text_subscriber(filter, std::io::stderr).init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lambda_crates_stay_at_info_whatever_rust_log_says() {
        for spec in [
            None,
            Some("trace"),
            Some("lambda_runtime=trace,lambda_http=trace"),
            Some("kobana_mcp=loud"),
        ] {
            let filter = log_filter(spec);
            for target in [
                "lambda_runtime",
                "lambda_runtime::layers::trace",
                "lambda_http",
            ] {
                assert!(
                    filter.would_enable(target, &Level::INFO),
                    "{spec:?} {target}"
                );
                assert!(
                    !filter.would_enable(target, &Level::DEBUG),
                    "{spec:?} {target}"
                );
            }
        }
    }

    /// BW-3: with `RUST_LOG=info` (the template's default), `trace`, or a directive naming
    /// rmcp's own modules, nothing below error gets out of rmcp (its warn/info/debug/trace
    /// lines echo arguments, URIs and `clientInfo`), nor below info out of the AWS SDK.
    #[test]
    fn n2_rmcp_and_the_sdk_stay_quiet_at_every_rust_log() {
        for spec in [
            None,
            Some("info"),
            Some("debug"),
            Some("trace"),
            Some("rmcp=trace"),
            Some("rmcp::service=trace,rmcp::transport=debug"),
            Some("r=trace,aws=trace"),
            Some("warn,rmcp::service::server=info,aws_smithy_runtime=trace"),
        ] {
            let filter = log_filter(spec);
            for target in [
                "rmcp",
                "rmcp::service",
                "rmcp::service::server",
                "rmcp::transport::streamable_http_server::tower",
                "rmcp::handler::server",
            ] {
                if filter.default_level().is_some() {
                    assert!(
                        filter.would_enable(target, &Level::ERROR),
                        "{spec:?} {target}"
                    );
                }
                assert!(
                    !filter.would_enable(target, &Level::WARN),
                    "{spec:?} {target}"
                );
            }
            for target in ["aws_smithy_runtime", "aws_sdk_dynamodb", "aws_config"] {
                assert!(
                    !filter.would_enable(target, &Level::DEBUG),
                    "{spec:?} {target}"
                );
            }
        }
        // Quieter than the cap stays quieter.
        let off = log_filter(Some("info,rmcp=off"));
        assert!(!off.would_enable("rmcp::service", &Level::ERROR));
    }

    #[test]
    fn rust_log_debug_reaches_the_json_lines() {
        use std::sync::{Arc, Mutex};
        let lines = Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = lines.clone();
        let writer = move || SinkWriter(sink.clone());
        let subscriber = json_subscriber(log_filter(Some("debug")), writer);
        tracing::subscriber::with_default(subscriber, || {
            tracing::debug!("debug-canary");
            tracing::trace!("trace-canary");
        });
        let text = String::from_utf8(lines.lock().unwrap().clone()).unwrap();
        assert!(text.contains("debug-canary"), "{text}");
        assert!(!text.contains("trace-canary"), "{text}");
    }

    struct SinkWriter(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for SinkWriter {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn rust_log_sets_the_other_levels_and_a_bad_one_falls_back_to_the_default() {
        let filter = log_filter(Some("warn,kobana_mcp=debug"));
        assert!(filter.would_enable("kobana_mcp::http", &Level::DEBUG));
        assert!(!filter.would_enable("hyper", &Level::INFO));
        let trace = log_filter(Some("trace"));
        assert!(trace.would_enable("kobana_mcp::server", &Level::TRACE));
        let default = log_filter(None);
        assert!(default.would_enable("kobana_mcp", &Level::INFO));
        assert!(default.would_enable("kobana_mcp::request", &Level::INFO));
        assert!(!default.would_enable("rmcp", &Level::INFO));
        assert!(!default.would_enable("rmcp::service", &Level::WARN));
        assert!(default.would_enable("rmcp::transport", &Level::ERROR));
        let fallback = log_filter(Some("kobana_mcp=loud"));
        assert_eq!(fallback.default_level(), Some(LevelFilter::INFO));
        assert!(!fallback.would_enable("rmcp", &Level::INFO));
    }
}
