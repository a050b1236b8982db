//! Support for the Lambda tests: a Runtime API emulator, the function process, and a harness
//! that wires both to an in-process fake Kobana.

pub mod function;
pub mod runtime_api;

use std::time::Duration;

use fake_kobana::FakeKobana;
use function::Function;
use runtime_api::{Outcome, Reply, RuntimeApi};
use serde_json::{Value, json};

/// Longest wait for one invocation (a 13 MB streamed answer takes well under a second).
const INVOKE_TIMEOUT: Duration = Duration::from_secs(60);

/// The event files in `events/`, sorted by name: `(file stem, parsed JSON)`.
pub fn event_files() -> Vec<(String, Value)> {
    let dir = crate::common::root().join("events");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let json = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, json)
        })
        .collect()
}

/// One event file by stem (`events/<stem>.json`).
pub fn event(stem: &str) -> Value {
    event_files()
        .into_iter()
        .find(|(name, _)| name == stem)
        .unwrap_or_else(|| panic!("events/{stem}.json is missing"))
        .1
}

/// A fake Kobana, the Runtime API emulator and the function process, all on loopback.
pub struct Harness {
    /// The fake Kobana the function talks to.
    pub fake: FakeKobana,
    api: RuntimeApi,
    function: Function,
}

impl Harness {
    /// Starts everything; `env` is added to the function's environment (after the defaults:
    /// `KOBANA_API_URL` = the fake, `MCP_ALLOWED_HOSTS=*` as the template sets it,
    /// `RUST_LOG=debug`).
    pub async fn start(env: &[(&str, &str)]) -> Self {
        let mut all = vec![("MCP_ALLOWED_HOSTS", "*")];
        all.extend_from_slice(env);
        Self::start_bare(&all).await
    }

    /// Starts everything with no `MCP_*` variable of ours — a deployment made without our
    /// template — beyond those in `env` (defaults: `KOBANA_API_URL` = the fake,
    /// `RUST_LOG=debug`).
    pub async fn start_bare(env: &[(&str, &str)]) -> Self {
        let fake = FakeKobana::start().await;
        let api = RuntimeApi::start().await;
        let kobana = fake.base_url();
        let mut all = vec![
            ("KOBANA_API_URL", kobana.as_str()),
            ("KOBANA_TIMEOUT_MS", "30000"),
            // The most verbose level the template allows, so the log check means something.
            ("RUST_LOG", "debug"),
        ];
        all.extend_from_slice(env);
        let function = Function::start(&api.address(), &all);
        Self {
            fake,
            api,
            function,
        }
    }

    /// Sends one event through the Runtime API and returns the function's response; panics
    /// (with the function's log) on an invocation error, a timeout or a mid-stream error.
    pub async fn invoke(&mut self, event: &Value) -> Reply {
        let bytes = serde_json::to_vec(event).unwrap();
        let outcome = self.api.invoke(&bytes, INVOKE_TIMEOUT).await;
        let reply = match outcome {
            Ok(Outcome::Response(reply)) => reply,
            Ok(Outcome::Error {
                error_type,
                message,
            }) => self.fail(&format!("invocation failed: {error_type}: {message}")),
            Err(problem) => {
                let exited = self.function.exited();
                self.fail(&format!("{problem}; function exit status: {exited:?}"))
            }
        };
        if let Some((kind, body)) = reply.stream_error() {
            self.fail(&format!("mid-stream error {kind}: {body}"));
        }
        reply
    }

    /// Everything the function logged so far.
    pub fn logs(&self) -> String {
        self.function.logs()
    }

    fn fail(&self, problem: &str) -> ! {
        let logs = self.logs();
        let tail: String = {
            let start = logs.len().saturating_sub(4000);
            let start = (start..logs.len())
                .find(|&i| logs.is_char_boundary(i))
                .unwrap_or(logs.len());
            logs[start..].to_owned()
        };
        panic!("{problem}\n--- function log (tail) ---\n{tail}")
    }
}

/// An era-2026 `server-discover.json` event with another body.
pub fn modern_event(method: &str, params: Value) -> Value {
    let mut event = event("server-discover");
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    event["body"] =
        json!(json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params}).to_string());
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    for (key, value) in [("Mcp-Method", method), ("Mcp-Name", name)] {
        event["headers"][key] = json!(value);
        event["multiValueHeaders"][key] = json!([value]);
    }
    event
}
