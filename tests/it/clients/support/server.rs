//! The server a host connects to: `App` on its own thread under a JSON-lines subscriber that
//! writes into memory (the server's own subscriber at its default filter), backed by the fake
//! Kobana, so a test can read every request line the host caused.

use std::time::Duration;

use fake_kobana::FakeKobana;
use kobana_mcp::Config;
use serde_json::Value;

use crate::common::thread_server::{LogBuffer, ThreadServer};

/// How long the test waits for the last request line after the host has exited: a line is
/// written when its answer's body is dropped.
const LAST_LINE_GRACE: Duration = Duration::from_millis(200);

/// A running server whose log is kept.
pub struct LoggedServer {
    /// The MCP endpoint.
    pub url: String,
    log: LogBuffer,
    server: ThreadServer,
    _fake: FakeKobana,
}

impl LoggedServer {
    /// Starts the fake Kobana (on the caller's runtime) and the server (on its own thread).
    pub async fn start() -> Self {
        let fake = FakeKobana::start().await;
        let config = Config {
            kobana_api_url: fake.base_url(),
            kobana_timeout: Duration::from_secs(10),
            ..Config::default()
        };
        let (server, log) = ThreadServer::start_logged(config);
        Self {
            url: server.url(),
            log,
            server,
            _fake: fake,
        }
    }

    /// Stops the server and answers every line it logged, parsed.
    pub fn stop(mut self) -> Vec<Value> {
        std::thread::sleep(LAST_LINE_GRACE);
        self.server.stop();
        self.log
            .text()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
            .collect()
    }
}
