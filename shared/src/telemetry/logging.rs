//! The log set-up: the `RUST_LOG` filter, and the subscriber — JSON lines under Lambda (what
//! CloudWatch Logs Insights reads field by field), compact text anywhere else.

use tracing::{Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;

/// The filter used when `RUST_LOG` is unset or cannot be read. `rmcp::service` warns on every
/// error answer with the error's message, which can quote client input (an unknown tool's
/// name, say): it stays at error, and the request line carries the error code instead.
pub const DEFAULT_FILTER: &str = "info,rmcp=warn,rmcp::service=error";

/// The log filter: `RUST_LOG` in the `target=level,...` form (default [`DEFAULT_FILTER`]), with
/// the Lambda crates capped at info whatever it says: they log whole events (Authorization
/// header included) at trace level, so the token can never reach a log line.
pub fn log_filter(rust_log: Option<&str>) -> Targets {
    let default = || DEFAULT_FILTER.parse::<Targets>().expect("valid default");
    let filter = match rust_log {
        None => default(),
        Some(spec) => spec.parse().unwrap_or_else(|error| {
            eprintln!("kobana-mcp: RUST_LOG ignored ({error}); using {DEFAULT_FILTER}");
            default()
        }),
    };
    filter
        .with_target("lambda_runtime", Level::INFO)
        .with_target("lambda_http", Level::INFO)
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

/// Installs the process-wide subscriber on stderr: JSON lines when `json` (under Lambda),
/// compact text otherwise, filtered by `RUST_LOG`.
pub fn init(json: bool) {
    let filter = log_filter(std::env::var("RUST_LOG").ok().as_deref());
    if json {
        json_subscriber(filter, std::io::stderr).init();
    } else {
        tracing_subscriber::fmt()
            .with_max_level(tracing::level_filters::LevelFilter::TRACE)
            .with_writer(std::io::stderr)
            .compact()
            .finish()
            .with(filter)
            .init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracing::level_filters::LevelFilter;

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
        let default = log_filter(None);
        assert!(default.would_enable("kobana_mcp", &Level::INFO));
        assert!(default.would_enable("kobana_mcp::request", &Level::INFO));
        assert!(!default.would_enable("rmcp", &Level::INFO));
        assert!(!default.would_enable("rmcp::service", &Level::WARN));
        assert!(default.would_enable("rmcp::transport", &Level::WARN));
        let fallback = log_filter(Some("kobana_mcp=loud"));
        assert_eq!(fallback.default_level(), Some(LevelFilter::INFO));
        assert!(!fallback.would_enable("rmcp", &Level::INFO));
    }
}
