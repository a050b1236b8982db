//! What one request may make Kobana do (BW-1): the `KOBANA_MAX_*` variables.

use const_format::formatcp;

use super::variables::{Read, Unit, Variable};

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
/// Largest document served: 10 MiB, the default and the ceiling of
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

/// The most bytes a JSON or error answer limit may allow.
const MAX_ANSWER_BYTES: u64 = 1 << 30;

/// `KOBANA_MAX_CALLS`.
pub(super) const CALLS: Variable = Variable::new(
    "KOBANA_MAX_CALLS",
    formatcp!("`{DEFAULT_MAX_KOBANA_CALLS}`"),
    "Kobana calls one request may make, retries included.",
    Read::Whole {
        unit: Unit::Calls,
        min: 1,
        max: 1000,
        set: |config, n| config.work.max_calls = u32::try_from(n).unwrap_or(u32::MAX),
    },
)
.more("A request that would need more ends with a pt-BR error saying so; nothing is half-written.");

/// `KOBANA_MAX_IN_FLIGHT`.
pub(super) const IN_FLIGHT: Variable = Variable::new(
    "KOBANA_MAX_IN_FLIGHT",
    formatcp!("`{DEFAULT_MAX_KOBANA_IN_FLIGHT}`"),
    "Kobana calls one request may have in flight at once.",
    Read::Whole {
        unit: Unit::Calls,
        min: 1,
        max: 100,
        set: |config, n| config.work.max_in_flight = u32::try_from(n).unwrap_or(u32::MAX),
    },
);

/// `KOBANA_MAX_JSON_BYTES`.
pub(super) const JSON_BYTES: Variable = Variable::new(
    "KOBANA_MAX_JSON_BYTES",
    formatcp!("`{DEFAULT_MAX_KOBANA_JSON_BYTES}`"),
    "Largest JSON answer read from Kobana, counted while streaming.",
    Read::Whole {
        unit: Unit::Bytes,
        min: 1024,
        max: MAX_ANSWER_BYTES,
        set: |config, n| config.work.max_json_bytes = n,
    },
)
.more("Larger is an error, never read whole.");

/// `KOBANA_MAX_ERROR_BYTES`.
pub(super) const ERROR_BYTES: Variable = Variable::new(
    "KOBANA_MAX_ERROR_BYTES",
    formatcp!("`{DEFAULT_MAX_KOBANA_ERROR_BYTES}`"),
    "Largest error body read from Kobana.",
    Read::Whole {
        unit: Unit::Bytes,
        min: 256,
        max: MAX_ANSWER_BYTES,
        set: |config, n| config.work.max_error_bytes = n,
    },
)
.more("The rest is not read.");

/// `KOBANA_MAX_DOCUMENT_BYTES`.
pub(super) const DOCUMENT_BYTES: Variable = Variable::new(
    "KOBANA_MAX_DOCUMENT_BYTES",
    formatcp!("`{MAX_DOCUMENT_BYTES}`"),
    "Largest PDF or XML streamed from Kobana.",
    Read::Whole {
        unit: Unit::Bytes,
        min: 1024,
        max: MAX_DOCUMENT_BYTES,
        set: |config, n| config.work.max_document_bytes = n,
    },
)
.more("The ceiling is R-5's limit.");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::config;

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
            ("KOBANA_MAX_CALLS", "1001"),
            ("KOBANA_MAX_CALLS", "many"),
            ("KOBANA_MAX_IN_FLIGHT", "0"),
            ("KOBANA_MAX_JSON_BYTES", "10"),
            ("KOBANA_MAX_ERROR_BYTES", "-1"),
            ("KOBANA_MAX_DOCUMENT_BYTES", "20971520"),
        ] {
            let err = config(&[(name, value)]).unwrap_err().to_string();
            assert!(err.contains(name) && err.contains(value), "{err}");
        }
    }
}
