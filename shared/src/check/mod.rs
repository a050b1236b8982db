//! `kobana-mcp check`: the first thing an operator runs against a real Kobana account.
//!
//! - `check --token T [--api-url URL] [--json]` ([`api`]) reads every operation the server
//!   reads, read-only, checks each answer against the contract the binary carries
//!   ([`crate::kobana::contract`]), and settles each open point of Kobana's material (the
//!   contract's `readings`) from what Kobana actually answered.
//! - `check --mcp URL [--token T] [--json]` ([`mcp`]) smokes a deployed endpoint: tools/list,
//!   one read per toolset, one invoice PDF.
//!
//! Both print one table (point, reading found, evidence), or JSON with `--json`, and exit 1
//! when anything broke the contract (2 for usage and authentication errors). The token can
//! also come from `KOBANA_TOKEN`, keeping it out of the process list; it is never printed.

pub mod api;
mod ledger;
pub mod mcp;
mod readings;

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::{Value, json};

/// The usage text.
pub const USAGE: &str = "usage: kobana-mcp check --token TOKEN [--api-url URL] [--json]\n\
       kobana-mcp check --mcp URL [--token TOKEN] [--json]\n\
  --token    a Kobana billing API token (or KOBANA_TOKEN)\n\
  --api-url  the billing API (default KOBANA_API_URL, else the sandbox)\n\
  --mcp      a deployed kobana-mcp endpoint (…/mcp) to smoke instead\n\
  --json     one JSON document instead of the table";

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// An operation id (`invoices.get`), a reading id (`invoice_totals_unit`) or a step.
    pub point: String,
    /// What was found (`on contract`, `cents`, …).
    pub reading: String,
    /// Why: statuses, members, values seen.
    pub evidence: String,
    /// Whether this row broke the contract.
    pub broken: bool,
}

impl Row {
    /// A row that did not break anything.
    pub fn fine(point: &str, reading: impl Into<String>, evidence: impl Into<String>) -> Row {
        Row {
            point: point.to_owned(),
            reading: reading.into(),
            evidence: evidence.into(),
            broken: false,
        }
    }

    /// A row that broke the contract.
    pub fn broken(point: &str, reading: impl Into<String>, evidence: impl Into<String>) -> Row {
        Row {
            broken: true,
            ..Row::fine(point, reading, evidence)
        }
    }
}

/// What one check found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// What was checked (the API or MCP URL).
    pub target: String,
    /// The rows, in the order found.
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether nothing broke the contract.
    pub fn ok(&self) -> bool {
        !self.rows.iter().any(|r| r.broken)
    }

    /// The row of `point`, if any.
    pub fn row(&self, point: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.point == point)
    }

    /// One text table, columns padded to their widest cell.
    pub fn table(&self) -> String {
        let width = |cell: fn(&Row) -> &str, title: &str| {
            self.rows
                .iter()
                .map(|r| cell(r).chars().count())
                .max()
                .unwrap_or(0)
                .max(title.len())
        };
        let (wp, wr) = (
            width(|r| &r.point, "point"),
            width(|r| &r.reading, "reading found"),
        );
        let mut out = format!("kobana-mcp check: {}\n", self.target);
        let _ = writeln!(out, "{:wp$}  {:wr$}   evidence", "point", "reading found");
        for row in &self.rows {
            let mark = if row.broken { "!" } else { " " };
            let _ = writeln!(
                out,
                "{:wp$}  {:wr$} {mark} {}",
                row.point, row.reading, row.evidence
            );
        }
        let verdict = if self.ok() {
            "on the contract"
        } else {
            "OFF THE CONTRACT (rows marked !)"
        };
        let _ = writeln!(out, "result: {verdict}");
        out
    }

    /// The report as one JSON document.
    pub fn json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|r| {
                json!({"point": r.point, "reading": r.reading, "evidence": r.evidence,
                    "broken": r.broken})
            })
            .collect();
        json!({"target": self.target, "ok": self.ok(), "rows": rows})
    }
}

/// What the command line asked for.
#[derive(Debug, Default, PartialEq, Eq)]
struct Options {
    token: Option<String>,
    api_url: Option<String>,
    mcp: Option<String>,
    json: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag, Some(value.to_owned())),
            None => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next().cloned())
                .ok_or(format!("{flag} needs a value"))
        };
        match flag {
            "--token" => options.token = Some(value()?),
            "--api-url" => options.api_url = Some(value()?),
            "--mcp" => options.mcp = Some(value()?),
            "--json" => options.json = true,
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(options)
}

/// Runs `kobana-mcp check <args>` and prints the report on stdout.
pub async fn run(args: &[String]) -> ExitCode {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let options = match parse(args) {
        Ok(options) => options,
        Err(error) => {
            eprintln!("kobana-mcp check: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let token = options
        .token
        .clone()
        .or_else(|| std::env::var("KOBANA_TOKEN").ok())
        .filter(|t| !t.trim().is_empty());
    let report = match (&options.mcp, token) {
        (Some(url), token) => mcp::run(url, token.as_deref()).await,
        (None, Some(token)) => {
            let api_url = options
                .api_url
                .clone()
                .or_else(|| std::env::var(crate::config::kobana::API_URL.name).ok())
                .unwrap_or_else(|| crate::config::DEFAULT_KOBANA_API_URL.to_owned());
            api::run(&api_url, &token).await
        }
        (None, None) => Err("--token (or KOBANA_TOKEN) is required".to_owned()),
    };
    match report {
        Ok(report) => {
            if options.json {
                println!("{}", report.json());
            } else {
                print!("{}", report.table());
            }
            if report.ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            }
        }
        Err(error) => {
            eprintln!("kobana-mcp check: {error}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_command_line_reads_every_flag_and_refuses_others() {
        let o = parse(&args(&["--token", "t", "--api-url=http://x", "--json"])).unwrap();
        assert_eq!(o.token.as_deref(), Some("t"));
        assert_eq!(o.api_url.as_deref(), Some("http://x"));
        assert!(o.json);
        assert_eq!(
            parse(&args(&["--mcp", "http://m/mcp"]))
                .unwrap()
                .mcp
                .as_deref(),
            Some("http://m/mcp")
        );
        assert!(parse(&args(&["--token"])).is_err());
        assert!(parse(&args(&["--write"])).is_err());
    }

    #[test]
    fn the_table_marks_broken_rows_and_the_verdict() {
        let report = Report {
            target: "http://k".into(),
            rows: vec![
                Row::fine("invoices.get", "on contract", "HTTP 200"),
                Row::broken(
                    "payments.get",
                    "OFF CONTRACT",
                    "data.status: unknown_enum_value",
                ),
            ],
        };
        let table = report.table();
        assert!(
            table.contains("! data.status: unknown_enum_value"),
            "{table}"
        );
        assert!(
            table.ends_with("result: OFF THE CONTRACT (rows marked !)\n"),
            "{table}"
        );
        assert_eq!(report.json()["ok"], false);
        assert!(!report.ok());
    }
}
