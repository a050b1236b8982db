//! The table: each figure beside its target and whether it holds.

use serde::Serialize;

/// Whether a figure meets its target.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub enum Verdict {
    /// Meets the target.
    Holds,
    /// Misses the target.
    Fails,
    /// A figure without a target.
    Info,
}

impl Verdict {
    /// `holds` as a verdict.
    pub fn of(holds: bool) -> Self {
        if holds {
            Verdict::Holds
        } else {
            Verdict::Fails
        }
    }

    fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "yes",
            Verdict::Fails => "**NO**",
            Verdict::Info => "–",
        }
    }
}

/// One line of the table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Issue item (1–6).
    pub item: String,
    /// What is measured.
    pub measure: String,
    /// Our figure.
    pub ours: String,
    /// What it is compared with.
    pub reference: String,
    /// Ours ÷ reference, when that is the target's form.
    pub ratio: String,
    /// The target.
    pub target: String,
    /// Whether it holds.
    pub verdict: Verdict,
}

/// Everything a run found.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The main table.
    pub rows: Vec<Row>,
    /// Supplementary tables (markdown), printed after the main one.
    pub details: Vec<String>,
    /// Notes under the table.
    pub notes: Vec<String>,
    /// Steps that failed (the run is then broken: exit 1).
    pub failures: Vec<String>,
    /// Raw measurements, for the JSON output.
    pub raw: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    /// Adds a row.
    #[allow(clippy::too_many_arguments)]
    pub fn row(
        &mut self,
        item: &str,
        measure: impl Into<String>,
        ours: impl Into<String>,
        reference: impl Into<String>,
        ratio: impl Into<String>,
        target: impl Into<String>,
        verdict: Verdict,
    ) {
        self.rows.push(Row {
            item: item.to_owned(),
            measure: measure.into(),
            ours: ours.into(),
            reference: reference.into(),
            ratio: ratio.into(),
            target: target.into(),
            verdict,
        });
    }

    /// Records a failed step.
    pub fn fail(&mut self, step: &str, error: impl std::fmt::Display) {
        let message = format!("{step}: {error}");
        eprintln!("bench: FAILED {message}");
        self.failures.push(message);
    }

    /// The main table as markdown.
    pub fn table(&self) -> String {
        let mut out = String::from(
            "| # | Measure | Ours | Compared with | Ratio | Target | Holds |\n|---|---|---|---|---|---|---|\n",
        );
        for r in &self.rows {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.item,
                r.measure,
                r.ours,
                r.reference,
                r.ratio,
                r.target,
                r.verdict.text()
            ));
        }
        out
    }

    /// Counts of rows that hold / fail.
    pub fn tally(&self) -> (usize, usize) {
        let holds = self
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Holds)
            .count();
        let fails = self
            .rows
            .iter()
            .filter(|r| r.verdict == Verdict::Fails)
            .count();
        (holds, fails)
    }
}

/// `12345.6` → `12,346`.
pub fn thousands(v: f64) -> String {
    let n = v.round() as i64;
    let digits = n.abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// Microseconds, readable: `38 µs`, `1.24 ms`.
pub fn us(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} ms", v / 1000.0)
    } else if v >= 1000.0 {
        format!("{:.2} ms", v / 1000.0)
    } else {
        format!("{v:.0} µs")
    }
}

/// Milliseconds with two decimals.
pub fn ms(v: f64) -> String {
    format!("{v:.2} ms")
}

/// Bytes in decimal megabytes.
pub fn mb(bytes: f64) -> String {
    format!("{:.2} MB", bytes / 1e6)
}

/// A ratio: `1.23×`.
pub fn ratio(v: f64) -> String {
    if v.is_finite() {
        if v >= 100.0 {
            format!("{v:.0}×")
        } else {
            format!("{v:.2}×")
        }
    } else {
        "n/a".to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(thousands(1234567.4), "1,234,567");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(us(38.2), "38 µs");
        assert_eq!(us(1240.0), "1.24 ms");
        assert_eq!(ratio(1.234), "1.23×");
        assert_eq!(mb(12_500_000.0), "12.50 MB");
    }
}
