//! The table: each figure beside its target and whether it holds; and the run's output.

use std::path::Path;

/// One line of the table.
pub struct Row {
    /// The section (bench/README.md numbers them).
    pub section: u8,
    /// What is measured.
    pub measure: String,
    /// Our figure.
    pub ours: String,
    /// What it is compared with.
    pub reference: String,
    /// Ours ÷ reference, when that is the target's form.
    pub ratio: String,
    /// The target, and where it is stated.
    pub target: String,
    /// Whether it holds; `None` for a figure without a target.
    pub holds: Option<bool>,
}

/// Everything a run found.
#[derive(Default)]
pub struct Report {
    /// The main table.
    pub rows: Vec<Row>,
    /// Supplementary tables (markdown), printed after the main one.
    pub details: Vec<String>,
    /// Notes under the table.
    pub notes: Vec<String>,
    /// Steps that failed (the run is then broken: exit 1).
    pub failures: Vec<String>,
}

impl Report {
    /// Adds a row of section `section`: measure, ours, compared with, ratio, target, holds.
    pub fn row(&mut self, section: u8, cells: [String; 5], holds: Option<bool>) {
        let [measure, ours, reference, ratio, target] = cells;
        self.rows.push(Row {
            section,
            measure,
            ours,
            reference,
            ratio,
            target,
            holds,
        });
    }

    /// Records a failed step.
    pub fn fail(&mut self, step: &str, error: impl std::fmt::Display) {
        let message = format!("{step}: {error}");
        eprintln!("bench: FAILED {message}");
        self.failures.push(message);
    }

    /// Takes in a section's report.
    pub fn extend(&mut self, part: Report) {
        self.rows.extend(part.rows);
        self.details.extend(part.details);
        self.notes.extend(part.notes);
        self.failures.extend(part.failures);
    }

    /// The whole text: machine, table, tally, details, notes, failures.
    pub fn text(&mut self, heading: &str, info: &[(String, String)]) -> String {
        self.rows.sort_by_key(|r| r.section);
        let mut out = format!("## {heading}\n\n");
        for (k, v) in info {
            out += &format!("- {k}: {v}\n");
        }
        out += "\n| # | Measure | Ours | Compared with | Ratio | Target | Holds |\n|---|---|---|---|---|---|---|\n";
        for r in &self.rows {
            let holds = match r.holds {
                Some(true) => "yes",
                Some(false) => "**NO**",
                None => "–",
            };
            out += &format!(
                "| {} | {} | {} | {} | {} | {} | {holds} |\n",
                r.section, r.measure, r.ours, r.reference, r.ratio, r.target
            );
        }
        let count = |v: bool| self.rows.iter().filter(|r| r.holds == Some(v)).count();
        out += &format!(
            "\n{} targets hold, {} missed; {} failed step(s).\n",
            count(true),
            count(false),
            self.failures.len()
        );
        for d in &self.details {
            out += &format!("\n{d}\n");
        }
        for (title, list) in [("Notes", &self.notes), ("Failed steps", &self.failures)] {
            if !list.is_empty() {
                out += &format!("\n**{title}**\n\n");
                list.iter().for_each(|n| out += &format!("- {n}\n"));
            }
        }
        out
    }
}

/// Writes `BENCHMARKS.md` around `results`.
pub fn write_benchmarks_md(path: &Path, results: &str) -> std::io::Result<()> {
    let head = "# Benchmarks\n\n\
        The latest full run of `bench/run.sh` (see [bench/README.md](bench/README.md) for what each \
        section measures, how, and where its target is stated). `bench/run.sh --smoke` is the quick \
        check that runs in the test command. MB = 10^6 bytes, MiB = 2^20. The machine is a shared, \
        noisy 2-core VM: ratios measured side by side in the same run are more trustworthy than \
        absolute figures.\n\n";
    std::fs::write(path, format!("{head}{results}"))
}

/// `12345.6` → `12,346`.
pub fn thousands(v: f64) -> String {
    let digits = (v.round() as i64).unsigned_abs().to_string();
    let mut out = if v < -0.5 {
        "-".to_owned()
    } else {
        String::new()
    };
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Microseconds, readable: `38 µs`, `1.24 ms`.
pub fn us(v: f64) -> String {
    if v >= 1000.0 {
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
        format!("{v:.2}×")
    } else {
        "n/a".to_owned()
    }
}

/// The five text cells of a row: measure, ours, compared with, ratio, target.
macro_rules! cells {
    ($($cell:expr),* $(,)?) => { [$($cell.to_string()),*] };
}
pub(crate) use cells;
