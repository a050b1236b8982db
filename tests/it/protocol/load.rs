//! Load: many mixed requests at once on loopback against the in-process server and the fake
//! Kobana. Zero failed or lost answers; every answer is matched to its request by id and has
//! the shape its request calls for.
//!
//! The test command runs a smoke (2,000 requests, 32 connections). The longer run is the same
//! test with bigger numbers, e.g.
//!
//! ```sh
//! KOBANA_MCP_LOAD_REQUESTS=20000 KOBANA_MCP_LOAD_CONCURRENCY=64 \
//!   cargo test -p kobana-mcp-tests --test it load:: -- --nocapture
//! ```
//!
//! It prints requests, concurrency, wall time, throughput and latency percentiles.

use crate::common;
use fake_kobana::fixtures::ids::INV_OPEN;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::Stack;
use fake_kobana::full_token;
use serde_json::{Value, json};
use tokio::sync::Mutex;

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

/// A body and its headers.
type Request = (String, Vec<(&'static str, String)>);
/// Whether an answer (status, body) is the one its request calls for.
type Check = fn(u16, &Value) -> bool;

/// One request of the mix: body, headers, and what its answer must look like.
struct Planned {
    body: String,
    headers: Vec<(&'static str, String)>,
    id: Value,
    check: Check,
}

fn legacy(id: &Value, method: &str, params: Value) -> Request {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    (
        body.to_string(),
        vec![("mcp-protocol-version", "2025-11-25".to_owned())],
    )
}

fn modern(id: &Value, method: &str, mut params: Value, name: Option<&str>) -> Request {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let mut headers = vec![
        ("mcp-protocol-version", "2026-07-28".to_owned()),
        ("mcp-method", method.to_owned()),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name", name.to_owned()));
    }
    (body.to_string(), headers)
}

fn ok_tool(status: u16, body: &Value) -> bool {
    status == 200 && body["result"]["isError"] == false
}

/// The `i`-th request: ten kinds in turn, ids alternating between numbers and strings.
fn plan(i: usize) -> Planned {
    let id = if i.is_multiple_of(2) {
        json!(i)
    } else {
        json!(format!("load-{i}"))
    };
    let (request, check): (Request, Check) = match i % 10 {
        0 => (legacy(&id, "tools/list", json!({})), |s, b| {
            s == 200
                && b["result"]["tools"]
                    .as_array()
                    .is_some_and(|t| t.len() > 20)
        }),
        1 => (
            legacy(
                &id,
                "tools/call",
                json!({"name": "billing_organization_get", "arguments": {}}),
            ),
            ok_tool,
        ),
        2 => (
            legacy(
                &id,
                "tools/call",
                json!({"name": "billing_customers_list", "arguments": {"per_page": 5}}),
            ),
            |s, b| ok_tool(s, b) && b["result"]["structuredContent"]["total"] == 4,
        ),
        3 => (modern(&id, "tools/list", json!({}), None), |s, b| {
            s == 200 && b["result"]["resultType"] == "complete"
        }),
        4 => (modern(&id, "server/discover", json!({}), None), |s, b| {
            s == 200
                && b["result"]["supportedVersions"]
                    .as_array()
                    .is_some_and(|v| v.contains(&json!("2026-07-28")))
        }),
        5 => (
            legacy(
                &id,
                "resources/read",
                json!({"uri": format!("kobana://billing/invoices/{INV_OPEN}")}),
            ),
            |s, b| {
                s == 200
                    && b["result"]["contents"][0]["text"]
                        .as_str()
                        .is_some_and(|t| t.contains(INV_OPEN))
            },
        ),
        6 => (legacy(&id, "prompts/list", json!({})), |s, b| {
            s == 200 && b["result"]["prompts"].as_array().is_some()
        }),
        7 => (
            legacy(
                &id,
                "tools/call",
                json!({"name": "billing_nope", "arguments": {}}),
            ),
            |s, b| s == 200 && b["error"]["code"] == -32602,
        ),
        8 => (legacy(&id, "ping", json!({})), |s, b| {
            s == 200 && b["result"] == json!({})
        }),
        _ => (
            modern(
                &id,
                "resources/read",
                json!({"uri": "kobana://billing/schemas"}),
                Some("kobana://billing/schemas"),
            ),
            |s, b| s == 200 && b["result"]["contents"][0]["text"].as_str().is_some(),
        ),
    };
    Planned {
        body: request.0,
        headers: request.1,
        id,
        check,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Sends a planned request: how long its answer took, and the answer's status and bytes.
async fn send(
    client: &reqwest::Client,
    url: &str,
    token: &str,
    planned: &Planned,
) -> (Duration, reqwest::Result<(u16, bytes::Bytes)>) {
    let mut request = client
        .post(url)
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(planned.body.clone());
    for (k, v) in &planned.headers {
        request = request.header(*k, v);
    }
    let sent = Instant::now();
    let answer = match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            response.bytes().await.map(|b| (status, b))
        }
        Err(e) => Err(e),
    };
    (sent.elapsed(), answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mixed_concurrent_requests_all_answered_and_matched_to_their_ids() {
    let total = env_number("KOBANA_MCP_LOAD_REQUESTS", 2_000);
    let concurrency = env_number("KOBANA_MCP_LOAD_CONCURRENCY", 32);
    let stack = Arc::new(Stack::start().await);
    let client = kobana_mcp::net::client_builder()
        .pool_max_idle_per_host(concurrency)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let token = full_token();
    let next = Arc::new(AtomicUsize::new(0));
    let latencies = Arc::new(Mutex::new(Vec::with_capacity(total)));
    let failures = Arc::new(Mutex::new(Vec::new()));
    let lost = Arc::new(AtomicUsize::new(0));
    let matched = Arc::new(AtomicUsize::new(0));

    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (stack, client, token) = (stack.clone(), client.clone(), token.clone());
            let (next, latencies, failures) = (next.clone(), latencies.clone(), failures.clone());
            let (lost, matched) = (lost.clone(), matched.clone());
            tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let planned = plan(i);
                    let (took, answer) = send(&client, &stack.url, &token, &planned).await;
                    mine.push(took);
                    let (status, bytes) = match answer {
                        Ok(answer) => answer,
                        Err(e) => {
                            lost.fetch_add(1, Ordering::Relaxed);
                            failures.lock().await.push(format!("#{i}: lost: {e}"));
                            continue;
                        }
                    };
                    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                    if body["id"] != planned.id {
                        failures.lock().await.push(format!(
                            "#{i}: answer id {} for request id {}",
                            body["id"], planned.id
                        ));
                        continue;
                    }
                    matched.fetch_add(1, Ordering::Relaxed);
                    if !(planned.check)(status, &body) {
                        let shown: String = body.to_string().chars().take(300).collect();
                        failures
                            .lock()
                            .await
                            .push(format!("#{i} (kind {}): {status} {shown}", i % 10));
                    }
                }
                latencies.lock().await.extend(mine);
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("worker finished");
    }
    let wall = started.elapsed();

    let mut latencies = latencies.lock().await.clone();
    latencies.sort();
    let failures = failures.lock().await.clone();
    eprintln!(
        "load: {total} requests, {concurrency} connections, {:.2} s, {:.0} req/s, \
         p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms, failures {}, lost {}, matched {}",
        wall.as_secs_f64(),
        total as f64 / wall.as_secs_f64(),
        percentile(&latencies, 50.0).as_secs_f64() * 1e3,
        percentile(&latencies, 90.0).as_secs_f64() * 1e3,
        percentile(&latencies, 99.0).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        failures.len(),
        lost.load(Ordering::Relaxed),
        matched.load(Ordering::Relaxed),
    );
    assert_eq!(latencies.len(), total, "every request was sent once");
    assert!(
        failures.is_empty(),
        "{} failures, first: {:?}",
        failures.len(),
        &failures[..failures.len().min(10)]
    );
    assert_eq!(lost.load(Ordering::Relaxed), 0);
    assert_eq!(matched.load(Ordering::Relaxed), total);
    // Kobana was really exercised: kinds 1 and 2 each make one upstream call, kind 5 two (the
    // open invoice, then its payments for the codes it is paid with).
    let upstream = stack.fake.calls().len();
    let kinds = |k: &[usize]| (0..total).filter(|i| k.contains(&(i % 10))).count();
    let expected = kinds(&[1, 2]) + 2 * kinds(&[5]);
    assert_eq!(upstream, expected, "one Kobana call per data request");
}
