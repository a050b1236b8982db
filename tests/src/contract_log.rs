//! The run-wide contract record: when `KOBANA_CONTRACT_LOG` names a directory, every fake
//! instance appends JSON lines to its own file there (`<pid>-<n>.jsonl`):
//! `{"exercised":"<op id>"}` the first time the server calls an operation, and
//! `{"violation":{…}}` for every request or answer of the server off the contract.
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

/// Records that a test saw the generic tools refuse `operation` (an excluded row) without
/// calling Kobana: one `{"refused":"<operationId>"}` line in this process's
/// `<pid>-refused.jsonl` under `$KOBANA_CONTRACT_LOG`, when it is set. I/O errors are ignored.
pub fn record_refused(operation: &str) {
    let Some(dir) = std::env::var_os(ENV).filter(|d| !d.is_empty()) else {
        return;
    };
    let path = Path::new(&dir).join(format!("{}-refused.jsonl", std::process::id()));
    if let Ok(mut file) = OpenOptions::new().create(true).append(true).open(path) {
        let mut line = json!({ "refused": operation }).to_string();
        line.push('\n');
        let _ = file.write_all(line.as_bytes());
    }
}
