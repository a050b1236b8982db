//! The run-wide contract record: when `KOBANA_CONTRACT_LOG` names a directory, every fake
//! instance appends JSON lines to its own file there (`<pid>-<n>.jsonl`):
//! `{"exercised":"<op id>"}` the first time the server calls an operation, and
//! `{"violation":{…}}` for every request or answer of the server off the contract. A test
//! that saw the server refuse an excluded operation without calling Kobana appends
//! `{"refused":"<operationId>"}` ([`record_refused`]) to its process's own file.
//!
//! Only requests whose `User-Agent` starts with [`SERVER_USER_AGENT`] are written: a test
//! talking to the fake directly is not the server. Writes are one `write` per line on a file
//! opened with `O_APPEND`, created on the first line; I/O errors are ignored.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use crate::contract::Violation;

/// The environment variable naming the record's directory.
pub const ENV: &str = "KOBANA_CONTRACT_LOG";

/// The prefix of the MCP server's `User-Agent` (`Kobana MCP Server/<version> <contact>`).
pub const SERVER_USER_AGENT: &str = "Kobana MCP Server/";

/// Records, in this run's log (when `KOBANA_CONTRACT_LOG` names a directory), that the server
/// refused `operation` (Kobana's `operationId`) without calling Kobana: an operation that
/// must never pass through a model. The contract report counts it as covered. Written once
/// per operation and process, to the process's own `<pid>-<n>.jsonl`.
pub fn record_refused(operation: &str) {
    static LOG: std::sync::OnceLock<Option<ContractLog>> = std::sync::OnceLock::new();
    if let Some(log) = LOG.get_or_init(ContractLog::from_env) {
        log.refused(operation);
    }
}

/// Whether a request came from the MCP server.
pub fn is_server(user_agent: Option<&str>) -> bool {
    user_agent.is_some_and(|ua| ua.starts_with(SERVER_USER_AGENT))
}

/// One fake instance's file in the record directory.
#[derive(Debug)]
pub struct ContractLog {
    path: PathBuf,
    state: Mutex<LogState>,
}

#[derive(Debug, Default)]
struct LogState {
    file: Option<File>,
    exercised: HashSet<String>,
    refused: HashSet<String>,
}

impl ContractLog {
    /// The log in `$KOBANA_CONTRACT_LOG`, when set and not empty.
    pub fn from_env() -> Option<ContractLog> {
        let dir = std::env::var_os(ENV).filter(|d| !d.is_empty())?;
        Some(ContractLog::in_dir(Path::new(&dir)))
    }

    /// A new file of this process in `dir`: `<pid>-<n>.jsonl`, `n` counting instances.
    pub fn in_dir(dir: &Path) -> ContractLog {
        static INSTANCES: AtomicU64 = AtomicU64::new(0);
        let n = INSTANCES.fetch_add(1, Ordering::Relaxed);
        ContractLog {
            path: dir.join(format!("{}-{n}.jsonl", std::process::id())),
            state: Mutex::new(LogState::default()),
        }
    }

    /// The file this instance writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records that the server called `operation` (written once per instance).
    pub fn exercised(&self, operation: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.exercised.insert(operation.to_string()) {
            Self::write(&self.path, &mut state, &json!({ "exercised": operation }));
        }
    }

    /// Records that the server refused `operation` (an `operationId`) without a call
    /// (written once per instance).
    pub fn refused(&self, operation: &str) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.refused.insert(operation.to_string()) {
            Self::write(&self.path, &mut state, &json!({ "refused": operation }));
        }
    }

    /// Records a request or answer of the server off the contract.
    pub fn violation(&self, violation: &Violation) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        Self::write(&self.path, &mut state, &json!({ "violation": violation }));
    }

    fn write(path: &Path, state: &mut LogState, line: &serde_json::Value) {
        if state.file.is_none() {
            state.file = OpenOptions::new().create(true).append(true).open(path).ok();
        }
        if let Some(file) = state.file.as_mut() {
            let mut text = line.to_string();
            text.push('\n');
            let _ = file.write_all(text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WA-5: a refusal is written once per operation, by `operationId`, to the instance's own
    /// file, beside what the report reads.
    #[test]
    fn wa5_a_refusal_is_recorded_once_per_operation() {
        let dir = std::env::temp_dir().join(format!("kobana-refused-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = ContractLog::in_dir(&dir);
        log.refused("post-certificates");
        log.refused("post-certificates");
        log.exercised("organization.get");
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert_eq!(
            text,
            "{\"refused\":\"post-certificates\"}\n{\"exercised\":\"organization.get\"}\n"
        );
        let mut report = crate::report::Report::default();
        report.add_file("x", &text);
        assert!(report.refused.contains("post-certificates"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
