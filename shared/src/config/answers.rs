//! How list answers are shaped for a model: compact rows under a byte budget
//! (`MCP_ANSWER_BUDGET_BYTES`), or Kobana's whole records (`MCP_LIST_ROWS=full`).

use const_format::formatcp;

use super::variables::{Read, Unit, Variable};

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

/// `MCP_ANSWER_BUDGET_BYTES`.
pub(super) const BUDGET_BYTES: Variable = Variable::new(
    "MCP_ANSWER_BUDGET_BYTES",
    formatcp!("`{DEFAULT_ANSWER_BUDGET_BYTES}`"),
    "Largest text of one list answer.",
    Read::Whole {
        unit: Unit::Bytes,
        min: MIN_ANSWER_BUDGET_BYTES as u64,
        max: u64::MAX,
        set: |config, bytes| {
            config.rows.budget_bytes = usize::try_from(bytes).unwrap_or(usize::MAX);
        },
    },
)
.more(
    "A page that would exceed it is cut to the rows that fit; the answer says so (`cut`, \
     `returned`, `next_page` + `next_per_page`, a pt-BR `hint`) and the next call continues \
     right after the last row shown.",
);

/// `MCP_LIST_ROWS`.
pub(super) const LIST_ROWS: Variable = Variable::new(
    "MCP_LIST_ROWS",
    "`compact`",
    "`compact` list rows, or `full`: Kobana's whole records.",
    Read::Text(|config, value| {
        config.rows.full_records = match value {
            "compact" => false,
            "full" => true,
            _ => return Err("must be compact or full".into()),
        };
        Ok(())
    }),
)
.more(
    "Compact rows carry the fields listed in [docs/features.md](docs/features.md); whole \
     records carry every companion (for clients with room to spare).",
);

#[cfg(test)]
mod tests {
    use crate::config::tests::config;

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
}
