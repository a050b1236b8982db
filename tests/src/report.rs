//! The run-wide contract report (`contract-report <dir>`): reads every file the fakes (and
//! the tests that saw the server refuse an excluded operation) of a test run wrote (see
//! [`crate::contract_log`]) and names every operation of the contract: exercised by the
//! server, refused without a call, or neither; and which of the server's requests, or of the
//! fake's answers, left the contract.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::contract::{Violation, contract};

/// Why the record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The directory (or a file in it) could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// What could not be read.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
}

/// What a run's record says.
#[derive(Debug, Default)]
pub struct Report {
    /// Files read.
    pub files: usize,
    /// Operation ids the server called.
    pub exercised: BTreeSet<String>,
    /// `operationId`s the server refused without a call (excluded operations).
    pub refused: BTreeSet<String>,
    /// Every recorded violation, in file order.
    pub violations: Vec<Violation>,
    /// Lines that are not a record line (`file:line: text`).
    pub unreadable: Vec<String>,
}

impl Report {
    /// Reads every regular file in `dir` (sorted by name).
    pub fn from_dir(dir: &Path) -> Result<Report, ReportError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ReportError::Io { path, source }
        };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(io(dir))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_file())
            .collect();
        paths.sort();
        let mut report = Report::default();
        for path in paths {
            let text = std::fs::read_to_string(&path).map_err(io(&path))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            report.add_file(&name, &text);
        }
        Ok(report)
    }

    /// Adds the lines of one file (`name` is used in the unreadable-line texts).
    pub fn add_file(&mut self, name: &str, text: &str) {
        self.files += 1;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            let parsed: Option<Value> = serde_json::from_str(line).ok();
            let exercised = parsed
                .as_ref()
                .and_then(|v| v.get("exercised"))
                .and_then(Value::as_str);
            let violation = parsed
                .as_ref()
                .and_then(|v| v.get("violation"))
                .and_then(|v| serde_json::from_value::<Violation>(v.clone()).ok());
            let refused = parsed
                .as_ref()
                .and_then(|v| v.get("refused"))
                .and_then(Value::as_str)
                .filter(|op| contract().operation(op).is_some());
            match (exercised, violation, refused) {
                (Some(op), _, _) => {
                    self.exercised.insert(op.to_string());
                }
                (None, Some(v), _) => self.violations.push(v),
                (None, None, Some(op)) => {
                    let op = contract().operation(op).expect("filtered above");
                    self.refused.insert(op.operation_id.clone());
                }
                (None, None, None) => self.unreadable.push(format!("{name}:{}: {line}", n + 1)),
            }
        }
    }

    /// The contract's operations the server neither called nor refused, in contract order.
    pub fn never_exercised(&self) -> Vec<&'static str> {
        contract()
            .operations
            .iter()
            .filter(|op| {
                !self.exercised.contains(&op.id) && !self.refused.contains(&op.operation_id)
            })
            .map(|op| op.id.as_str())
            .collect()
    }

    /// Operations recorded refused without a call that the server called all the same.
    pub fn refused_but_called(&self) -> Vec<&'static str> {
        contract()
            .operations
            .iter()
            .filter(|op| self.exercised.contains(&op.id) && self.refused.contains(&op.operation_id))
            .map(|op| op.id.as_str())
            .collect()
    }

    /// True when every operation was called or refused without a call (never both), nothing
    /// left the contract and every line read.
    pub fn passed(&self) -> bool {
        self.never_exercised().is_empty() && self.refused_but_called().is_empty() && self.clean()
    }

    /// True when nothing left the contract and every line read (a partial run, e.g. one test
    /// file, need not call every operation).
    pub fn clean(&self) -> bool {
        self.violations.is_empty() && self.unreadable.is_empty()
    }

    /// The report as printed by `contract-report`.
    pub fn render(&self) -> String {
        let ops = &contract().operations;
        let missing = self.never_exercised();
        let both = self.refused_but_called();
        let exercised = ops
            .iter()
            .filter(|op| self.exercised.contains(&op.id))
            .count();
        let refused = ops.len() - missing.len() - exercised;
        let mut out = format!(
            "contract: {} operations: {exercised} exercised, {refused} refused without a call, {} violations\n",
            ops.len(),
            self.violations.len()
        );
        if !missing.is_empty() {
            let _ = writeln!(out, "neither exercised nor refused ({}):", missing.len());
            out.push_str(&by_resource(&missing));
        }
        if !both.is_empty() {
            let _ = writeln!(out, "refused without a call, yet called ({}):", both.len());
            out.push_str(&by_resource(&both));
        }
        if !self.violations.is_empty() {
            let _ = writeln!(out, "violations ({}):", self.violations.len());
            for v in &self.violations {
                let kind = match v.kind {
                    crate::contract::ViolationKind::Request => "request",
                    crate::contract::ViolationKind::Answer => "answer",
                };
                let _ = writeln!(
                    out,
                    "  {kind} {} {} {}{}",
                    v.operation.as_deref().unwrap_or("(unknown operation)"),
                    v.method,
                    v.path,
                    v.status.map(|s| format!(" → {s}")).unwrap_or_default(),
                );
                for p in &v.problems {
                    let _ = writeln!(out, "    - {p}");
                }
            }
        }
        if !self.unreadable.is_empty() {
            let _ = writeln!(out, "unreadable lines ({}):", self.unreadable.len());
            for line in &self.unreadable {
                let _ = writeln!(out, "  {line}");
            }
        }
        if self.files == 0 {
            out.push_str("(no record files: did any test run the server against the fake?)\n");
        }
        out
    }
}

/// Operation ids, one line per resource (the first path segment): `  nfes (2): a b`.
fn by_resource(ids: &[&str]) -> String {
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for id in ids {
        let op = contract().operation(id).expect("listed from the contract");
        let resource = op
            .path
            .trim_start_matches("/v1/")
            .split('/')
            .next()
            .unwrap_or("");
        match groups.iter_mut().find(|(r, _)| *r == resource) {
            Some((_, list)) => list.push(id),
            None => groups.push((resource, vec![id])),
        }
    }
    let mut out = String::new();
    for (resource, list) in groups {
        let _ = writeln!(out, "  {resource} ({}): {}", list.len(), list.join(" "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all_exercised() -> String {
        contract()
            .operations
            .iter()
            .map(|op| format!("{}\n", json!({"exercised": op.id})))
            .collect()
    }

    #[test]
    fn passes_when_every_operation_ran_and_nothing_deviated() {
        let mut r = Report::default();
        r.add_file("1-0.jsonl", &all_exercised());
        assert!(r.passed(), "{}", r.render());
        assert!(r.render().starts_with(
            "contract: 260 operations: 260 exercised, 0 refused without a call, 0 violations"
        ));
    }

    #[test]
    fn fails_on_a_never_exercised_operation() {
        let mut r = Report::default();
        let lines: String = all_exercised()
            .lines()
            .filter(|l| !l.contains("\"nfes.xml\""))
            .map(|l| format!("{l}\n"))
            .collect();
        r.add_file("1-0.jsonl", &lines);
        assert!(!r.passed());
        assert_eq!(r.never_exercised(), vec!["nfes.xml"]);
        let text = r.render();
        assert!(
            text.starts_with(
                "contract: 260 operations: 259 exercised, 0 refused without a call, 0 violations"
            ),
            "{text}"
        );
        assert!(
            text.contains("neither exercised nor refused (1):\n  nfes (1): nfes.xml\n"),
            "{text}"
        );
    }

    #[test]
    fn fails_on_a_violation_and_on_unreadable_lines() {
        let mut r = Report::default();
        r.add_file("1-0.jsonl", &all_exercised());
        let v = json!({"violation": {"kind": "request", "operation": "customers.get",
            "method": "GET", "path": "/v1/customers/x?include=billing_accounts",
            "problems": ["query.include: unknown parameter"], "user_agent": "Kobana MCP Server/0.1.0 <a@b.co>"}});
        r.add_file("1-1.jsonl", &format!("{v}\n"));
        assert!(!r.passed());
        let text = r.render();
        assert!(
            text.contains("260 exercised, 0 refused without a call, 1 violations"),
            "{text}"
        );
        assert!(
            text.contains("- query.include: unknown parameter"),
            "{text}"
        );

        let mut r = Report::default();
        r.add_file("1-0.jsonl", &all_exercised());
        r.add_file("2-0.jsonl", "{\"exercised\":\n");
        assert!(!r.passed());
        assert_eq!(r.unreadable, vec!["2-0.jsonl:1: {\"exercised\":"]);
    }

    /// An excluded operation recorded refused (by its `operationId`) counts as covered; one
    /// also called by the server fails the report.
    #[test]
    fn refused_operations_are_covered_and_never_called() {
        let lines: String = all_exercised()
            .lines()
            .filter(|l| !l.contains("\"nfes.xml\"") && !l.contains("post-certificates"))
            .map(|l| format!("{l}\n"))
            .collect();
        let mut r = Report::default();
        r.add_file("1-0.jsonl", &lines);
        r.add_file(
            "2-0.jsonl",
            "{\"refused\":\"get-nfes-id-xml\"}\n{\"refused\":\"post-certificates\"}\n",
        );
        assert!(r.passed(), "{}", r.render());
        assert!(r.render().starts_with(
            "contract: 260 operations: 258 exercised, 2 refused without a call, 0 violations"
        ));
        r.add_file(
            "3-0.jsonl",
            "{\"exercised\":\"nfes.xml\"}\n{\"refused\":\"no-such-op\"}\n",
        );
        assert!(!r.passed());
        let text = r.render();
        assert!(
            text.contains("refused without a call, yet called (1):\n  nfes (1): nfes.xml"),
            "{text}"
        );
        assert_eq!(
            r.unreadable,
            vec!["3-0.jsonl:2: {\"refused\":\"no-such-op\"}"]
        );
    }
}
