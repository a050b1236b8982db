//! The server under attack: the `kobana-mcp` binary (`KOBANA_MCP_BIN`) as its own process,
//! listening on loopback and pointed at a hostile upstream, so its memory and CPU are its
//! own whatever else the test binary runs: peak RSS from `/proc/<pid>/status` (`VmHWM`,
//! reset through `clear_refs` before each attack), CPU from `/proc/<pid>/stat` (user +
//! system, every thread), and every line it logs.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::lambda::support::function;

/// Longest wait for the server to say where it listens.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running server process; killed when dropped.
pub struct Server {
    child: Child,
    /// The MCP endpoint.
    pub url: String,
    log: Arc<Mutex<Vec<String>>>,
    http: reqwest::Client,
}

/// What one attack cost the server.
#[derive(Debug, Clone, Copy)]
pub struct Cost {
    /// Peak RSS during the attack minus RSS before it, in MiB.
    pub rss_growth_mib: f64,
    /// CPU time (user + system, all threads), in milliseconds (10 ms resolution).
    pub cpu_ms: u64,
}

fn status_kib(pid: u32, key: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command (which may hold spaces) start past the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command.
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    tick(11) + tick(12)
}

impl Server {
    /// Starts the binary against `upstream` (a base URL) with `env` added.
    pub fn start(upstream: &str, env: &[(&str, &str)]) -> Self {
        let bin = function::binary();
        assert!(
            bin.is_file(),
            "{} not found: run `cargo build -p kobana-mcp` (scripts/test.sh does) or set KOBANA_MCP_BIN",
            bin.display()
        );
        let mut command = Command::new(&bin);
        command
            .env_clear()
            .env("MCP_BIND", "127.0.0.1:0")
            .env("KOBANA_API_URL", upstream)
            .env("KOBANA_TIMEOUT_MS", "3000")
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command.spawn().expect("the server starts");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (url_tx, url_rx) = std::sync::mpsc::channel();
        let stderr = child.stderr.take().expect("piped stderr");
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).split(b'\n').map_while(Result::ok) {
                let line = String::from_utf8_lossy(&line).into_owned();
                if let Some(url) = line.split("serving ").nth(1) {
                    let _ = url_tx.send(url.trim().to_owned());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let url = url_rx
            .recv_timeout(START_TIMEOUT)
            .unwrap_or_else(|_| panic!("the server did not start: {:?}", log.lock().unwrap()));
        Self {
            child,
            url,
            log,
            http: kobana_mcp::net::client_builder().build().expect("client"),
        }
    }

    /// Every line the server has written to stderr so far.
    pub fn logs(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Waits (at most 2 s) until the server has logged `lines` lines, then answers them.
    pub async fn logs_at_least(&self, lines: usize) -> Vec<String> {
        let until = Instant::now() + Duration::from_secs(2);
        while self.log.lock().unwrap().len() < lines && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.logs()
    }

    /// How many lines the server has logged so far: pass it to [`Server::request_line`].
    pub fn mark(&self) -> usize {
        self.log.lock().unwrap().len()
    }

    /// The request line (target `kobana_mcp::request`) of the request about `target` (a
    /// tool, prompt or resource template) logged after `mark`, waiting up to 2 s for it;
    /// ANSI styling removed.
    pub async fn request_line(&self, mark: usize, target: &str) -> String {
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            let found = self.log.lock().unwrap()[mark..]
                .iter()
                .map(|l| plain(l))
                .find(|l| l.contains("kobana_mcp::request") && field(l, "target") == Some(target));
            if let Some(line) = found {
                return line;
            }
            assert!(
                Instant::now() < until,
                "no request line for {target}: {:#?}",
                &self.logs()[mark..]
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Resets the peak RSS to the current one; answers the current RSS in KiB.
    fn reset_peak(&self) -> u64 {
        let pid = self.child.id();
        let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
        status_kib(pid, "VmRSS:")
    }

    /// Runs `attack` and answers its result and what it cost the server.
    pub async fn measure<T>(&self, attack: impl std::future::Future<Output = T>) -> (T, Cost) {
        let pid = self.child.id();
        let before = self.reset_peak();
        let cpu = cpu_ticks(pid);
        let out = attack.await;
        // The answer is out; let the server finish the request (its line, its drops).
        tokio::time::sleep(Duration::from_millis(100)).await;
        let peak = status_kib(pid, "VmHWM:");
        let ticks = cpu_ticks(pid) - cpu;
        let cost = Cost {
            rss_growth_mib: peak.saturating_sub(before) as f64 / 1024.0,
            cpu_ms: ticks * 10,
        };
        (out, cost)
    }

    /// POSTs `body` (one JSON-RPC message) in era 2025 as the full token.
    async fn post(&self, body: String) -> reqwest::Response {
        self.post_as(&fake_kobana::full_token(), body.into_bytes())
            .await
    }

    /// POSTs `body` in era 2025 with `Authorization: Bearer <bearer>`.
    async fn post_as(&self, bearer: &str, body: Vec<u8>) -> reqwest::Response {
        self.http
            .post(&self.url)
            .bearer_auth(bearer)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(body)
            .timeout(Duration::from_secs(60))
            .send()
            .await
            .expect("the server answers")
    }

    /// `prompts/get` of `name` without arguments; answers the HTTP status and the body.
    pub async fn prompt(&self, name: &str) -> (u16, Value) {
        self.rpc("prompts/get", json!({"name": name, "arguments": {}}))
            .await
    }

    /// POSTs one JSON-RPC message in era 2025 as the full token; answers the HTTP status and
    /// the body (JSON, or the text when it is not; a broken body reads as `"<broken: …>"`).
    pub async fn rpc_raw(&self, body: String) -> (u16, Value) {
        let response = self.post(body).await;
        let status = response.status().as_u16();
        match response.bytes().await {
            Ok(bytes) => (
                status,
                serde_json::from_slice(&bytes)
                    .unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes))),
            ),
            Err(e) => (status, json!(format!("<broken: {e}>"))),
        }
    }

    /// POSTs the bytes `body` with `Authorization: Bearer <bearer>`; answers the HTTP status
    /// and the body (JSON, or its text; empty for a 202).
    pub async fn raw_as(&self, bearer: &str, body: Vec<u8>) -> (u16, Value) {
        let response = self.post_as(bearer, body).await;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap_or_default();
        let body = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes)));
        (status, body)
    }

    /// POSTs `method` with `params` like [`Server::rpc`] and reads the answer chunk by
    /// chunk: the HTTP status, the bytes received, and whether the body ended cleanly (a
    /// stream the server aborts ends with an error).
    pub async fn rpc_streamed(&self, method: &str, params: Value) -> Streamed {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut response = self.post(body.to_string()).await;
        let status = response.status().as_u16();
        let mut streamed = Streamed {
            status,
            received: 0,
            head: Vec::new(),
            ended: Ok(()),
        };
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    streamed.received += chunk.len() as u64;
                    let room = 4096usize.saturating_sub(streamed.head.len());
                    streamed
                        .head
                        .extend_from_slice(&chunk[..chunk.len().min(room)]);
                }
                Ok(None) => break,
                Err(e) => {
                    streamed.ended = Err(e.to_string());
                    break;
                }
            }
        }
        streamed
    }

    /// [`Server::rpc_raw`] of `method` with `params`.
    pub async fn rpc(&self, method: &str, params: Value) -> (u16, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.rpc_raw(body.to_string()).await
    }

    /// Calls `tool` with `args`; answers the JSON-RPC result.
    pub async fn call(&self, tool: &str, args: Value) -> Value {
        let (status, body) = self
            .rpc("tools/call", json!({"name": tool, "arguments": args}))
            .await;
        assert_eq!(status, 200, "{body}");
        body["result"].clone()
    }
}

/// An answer read chunk by chunk ([`Server::rpc_streamed`]).
#[derive(Debug)]
pub struct Streamed {
    /// HTTP status.
    pub status: u16,
    /// Body bytes received.
    pub received: u64,
    /// The first 4 KiB of the body.
    pub head: Vec<u8>,
    /// `Ok` when the body ended cleanly, else how it broke.
    pub ended: Result<(), String>,
}

/// `line` without ANSI styling (`ESC [ … m`).
pub fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The value of `name=value` in a (plain) log line, up to the next space.
pub fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    line.split(' ')
        .find_map(|word| word.strip_prefix(name)?.strip_prefix('='))
        .map(|v| v.trim_matches('"'))
}

/// A number field of a (plain) log line.
pub fn number(line: &str, name: &str) -> Option<u64> {
    field(line, name)?.parse().ok()
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
