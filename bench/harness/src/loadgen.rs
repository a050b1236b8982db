//! The load generator: `concurrency` keep-alive connections on one single-threaded tokio
//! runtime (one CPU), each sending the same pre-built request back to back for a warm-up and
//! then a measured window. Every answer is checked (status 200, a JSON-RPC `result`, and for
//! tool calls no `isError: true`).

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::http1::Conn;
use crate::stats;

/// What to send, how hard, for how long.
#[derive(Clone)]
pub struct LoadSpec {
    /// Server address (loopback).
    pub addr: SocketAddr,
    /// The full request bytes.
    pub request: Rc<Vec<u8>>,
    /// Connections (= clients with one request in flight each).
    pub concurrency: usize,
    /// Unrecorded warm-up.
    pub warmup: Duration,
    /// Measured window.
    pub duration: Duration,
    /// The answer is a tool result: refuse `isError: true`.
    pub tool_call: bool,
}

/// The outcome of one run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LoadResult {
    /// Answers completed in the measured window.
    pub requests: u64,
    /// Failed requests (any phase).
    pub errors: u64,
    /// Answers per second in the measured window.
    pub rps: f64,
    /// Latency percentiles, microseconds.
    pub p50_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Mean response body size, bytes.
    pub body_bytes: f64,
    /// The first failure, if any.
    pub first_error: Option<String>,
    /// Answers completed including the warm-up (for CPU per request).
    pub completed_total: u64,
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Whether a response body is a successful JSON-RPC answer.
pub fn answer_ok(body: &[u8], tool_call: bool) -> bool {
    let head = &body[..body.len().min(160)];
    // SSE framing ("event: message\ndata: {…}") is accepted too.
    if !contains(head, b"\"result\"") {
        return false;
    }
    !(tool_call && (contains(body, b"\"isError\":true") || contains(body, b"\"isError\": true")))
}

#[derive(Default)]
struct Shared {
    latencies_us: Vec<f64>,
    errors: u64,
    bytes: u64,
    total: u64,
    first_error: Option<String>,
}

/// Runs the load on a fresh single-threaded runtime on the calling thread.
pub fn run(spec: &LoadSpec) -> Result<LoadResult, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("runtime: {e}"))?;
    let shared = Rc::new(RefCell::new(Shared::default()));
    let started = Instant::now();
    let measure_from = started + spec.warmup;
    let deadline = measure_from + spec.duration;
    runtime.block_on(async {
        let local = tokio::task::LocalSet::new();
        for _ in 0..spec.concurrency {
            let spec = spec.clone();
            let shared = shared.clone();
            local.spawn_local(async move {
                client(spec, shared, measure_from, deadline).await;
            });
        }
        local.await;
    });
    let shared = shared.take();
    let mut lat = shared.latencies_us;
    lat.sort_by(|a, b| a.total_cmp(b));
    let requests = lat.len() as u64;
    Ok(LoadResult {
        requests,
        errors: shared.errors,
        rps: requests as f64 / spec.duration.as_secs_f64(),
        p50_us: stats::percentile_sorted(&lat, 50.0),
        p90_us: stats::percentile_sorted(&lat, 90.0),
        p99_us: stats::percentile_sorted(&lat, 99.0),
        body_bytes: if requests > 0 {
            shared.bytes as f64 / requests as f64
        } else {
            0.0
        },
        first_error: shared.first_error,
        completed_total: shared.total,
    })
}

async fn client(
    spec: LoadSpec,
    shared: Rc<RefCell<Shared>>,
    measure_from: Instant,
    deadline: Instant,
) {
    let mut local_lat: Vec<f64> = Vec::with_capacity(4096);
    let mut bytes = 0u64;
    let mut total = 0u64;
    let mut conn: Option<Conn> = None;
    let mut consecutive_failures = 0;
    let fail = |shared: &Rc<RefCell<Shared>>, msg: String| {
        let mut s = shared.borrow_mut();
        s.errors += 1;
        if s.first_error.is_none() {
            s.first_error = Some(msg);
        }
    };
    while Instant::now() < deadline && consecutive_failures < 20 {
        if conn.is_none() {
            match Conn::connect(spec.addr).await {
                Ok(c) => conn = Some(c),
                Err(e) => {
                    fail(&shared, format!("connect: {e}"));
                    consecutive_failures += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            }
        }
        let c = conn.as_mut().expect("connected");
        let t0 = Instant::now();
        match c.send(&spec.request, true).await {
            Ok(200) if answer_ok(&c.body, spec.tool_call) => {
                let t1 = Instant::now();
                consecutive_failures = 0;
                total += 1;
                if t0 >= measure_from && t1 <= deadline {
                    local_lat.push((t1 - t0).as_secs_f64() * 1e6);
                    bytes += c.body_len as u64;
                }
            }
            Ok(status) => {
                let snippet =
                    String::from_utf8_lossy(&c.body[..c.body.len().min(300)]).into_owned();
                fail(&shared, format!("status {status}: {snippet}"));
                consecutive_failures += 1;
            }
            Err(e) => {
                fail(&shared, format!("io: {e}"));
                conn = None;
                consecutive_failures += 1;
            }
        }
    }
    let mut s = shared.borrow_mut();
    s.latencies_us.extend_from_slice(&local_lat);
    s.bytes += bytes;
    s.total += total;
}
