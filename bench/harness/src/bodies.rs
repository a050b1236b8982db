//! Section 8, RP-1 (HD-1): any request body up to the limit is cheap, under any bearer. For
//! the review's body (1 MiB of tiny nested objects) and the worst body of every shape the
//! front still reads (`fake_kobana::bodies`, built against the server's own bounds), sent with
//! `Authorization: Bearer x`: the server's peak RSS growth and its CPU per request, targets
//! ≤ 32 MiB and ≤ 100 ms; then four of the heaviest at once, target ≤ 64 MiB. The test
//! `hostile_bodies.rs` asserts the same bodies with a debug build's margins.

use fake_kobana::bodies::{Body, Bounds, bodies};
use kobana_mcp::config::DEFAULT_MAX_BODY_BYTES;
use kobana_mcp::http::{MAX_BODY_DEPTH, MAX_BODY_NODES};

use super::*;
use crate::bounded::measure;

/// Peak RSS growth one body may cause.
const MAX_RSS_GROWTH_BYTES: f64 = 32.0 * 1024.0 * 1024.0;
/// Peak RSS growth four bodies at once may cause.
const MAX_RSS_GROWTH_FOUR_BYTES: f64 = 64.0 * 1024.0 * 1024.0;
/// Server CPU one body may cost.
const MAX_CPU_MS: f64 = 100.0;
/// The review's bearer: any text passes authentication.
const ANY_BEARER: &str = "x";

/// The raw HTTP request that posts `body` in era 2025 under [`ANY_BEARER`].
fn post(addr: SocketAddr, body: &Body) -> Vec<u8> {
    let headers = http1::mcp_headers(ANY_BEARER, "tools/call", None, false);
    http1::request("POST", addr, "/mcp", &headers, &body.bytes)
}

/// Whether `status` is the answer `body` must get: the scan's 400, a notification's 202, or
/// a JSON-RPC answer.
fn right(body: &Body, status: u16) -> bool {
    match (body.over_bounds, body.name.contains("notification")) {
        (true, _) => status == 400,
        (false, true) => status == 202,
        (false, false) => status == 200,
    }
}

/// One body against a fresh server (warmed by the ready check's `tools/list`), so no memory an
/// earlier request freed hides its cost: the first request's peak RSS growth and CPU, then the
/// median CPU per request over batches (10 ms ticks), and the largest growth of all.
fn one(bench: &Bench, kobana: SocketAddr, body: &Body) -> Result<(f64, f64, f64), String> {
    let (mut server, addr) = bench.start_ours(kobana, "rp1")?;
    let pid = server.pid();
    let request = post(addr, body);
    let send = || -> Result<(), String> {
        let (status, answer) = bench.send(addr, &request)?;
        if right(body, status) {
            return Ok(());
        }
        let answer = String::from_utf8_lossy(&answer);
        Err(format!("RP-1 {}: HTTP {status} {answer:.300}", body.name))
    };
    let ((), first) = measure(pid, send)?;
    let (batches, per) = bench.counts.bounded_batches;
    let mut cpu = Vec::new();
    let mut growth = first.rss_growth_bytes;
    for _ in 0..batches {
        let ((), cost) = measure(pid, || (0..per).try_for_each(|_| send()))?;
        cpu.push(cost.cpu_ms / per as f64);
        growth = growth.max(cost.rss_growth_bytes);
    }
    server.check_alive()?;
    Ok((first.cpu_ms, stats::median(&cpu), growth))
}

/// The RP-1 rows of section 8, and their raw figures: each body, then four of the heaviest at
/// once, each against a fresh server of ours pointed at `kobana`.
pub(crate) fn rows(bench: &Bench, kobana: SocketAddr, r: &mut Report) -> Result<Value, String> {
    let all = bodies(Bounds {
        bytes: DEFAULT_MAX_BODY_BYTES,
        depth: MAX_BODY_DEPTH,
        nodes: MAX_BODY_NODES,
    });
    let mut raw = serde_json::Map::new();
    for body in &all {
        let (first_cpu, cpu, growth) = one(bench, kobana, body)?;
        let holds = first_cpu.max(cpu) <= MAX_CPU_MS && growth <= MAX_RSS_GROWTH_BYTES;
        r.row(
            "8",
            format!(
                "RP-1: {} ({} B, `Bearer x`), a fresh server: peak RSS growth · CPU of the first request · CPU per request after (median)",
                body.name,
                thousands(body.bytes.len() as f64)
            ),
            format!("{} · {} · {}", mb(growth), ms(first_cpu), ms(cpu)),
            if body.over_bounds { "refused by the scan" } else { "read" },
            "",
            "≤ 32 MiB · ≤ 100 ms",
            Verdict::of(holds),
        );
        raw.insert(
            body.name.into(),
            json!({"bytes": body.bytes.len(), "first_cpu_ms": first_cpu, "cpu_ms": cpu,
                   "peak_rss_growth_bytes": growth}),
        );
    }
    let growth = four_at_once(bench, kobana, &all)?;
    r.row(
        "8",
        format!(
            "RP-1: four at once (the review's body, nested objects, one repeated member name, many long strings), a fresh server: peak RSS growth (rounds: {}; largest)",
            bench.counts.bounded_reps
        ),
        mb(growth),
        "",
        "",
        "≤ 64 MiB",
        Verdict::of(growth <= MAX_RSS_GROWTH_FOUR_BYTES),
    );
    raw.insert(
        "four at once".into(),
        json!({"peak_rss_growth_bytes": growth}),
    );
    Ok(Value::Object(raw))
}

/// The largest peak RSS growth of four of the heaviest bodies sent at once.
fn four_at_once(bench: &Bench, kobana: SocketAddr, all: &[Body]) -> Result<f64, String> {
    let heaviest: Vec<&Body> = all
        .iter()
        .filter(|b| {
            b.over_bounds
                || [
                    "nested objects",
                    "one repeated member name",
                    "many long strings",
                ]
                .contains(&b.name)
        })
        .collect();
    let (mut server, addr) = bench.start_ours(kobana, "rp1-four")?;
    let requests: Vec<Vec<u8>> = heaviest.iter().map(|b| post(addr, b)).collect();
    let mut growth: f64 = 0.0;
    for _ in 0..bench.counts.bounded_reps {
        let (answers, cost) = measure(server.pid(), || {
            Ok(bench.block_on(async {
                let sent: Vec<_> = requests
                    .iter()
                    .cloned()
                    .map(|q| tokio::spawn(async move { http1::once(addr, &q).await }))
                    .collect();
                let mut answers = Vec::new();
                for one in sent {
                    let answer = one.await.map_err(|e| e.to_string());
                    answers.push(answer.and_then(|a| a.map_err(|e| e.to_string())));
                }
                answers
            }))
        })?;
        for (body, answer) in heaviest.iter().zip(answers) {
            let (status, _) = answer.map_err(|e| format!("RP-1 four at once: {e}"))?;
            if !right(body, status) {
                return Err(format!("RP-1 four at once, {}: HTTP {status}", body.name));
            }
        }
        growth = growth.max(cost.rss_growth_bytes);
    }
    server.check_alive()?;
    Ok(growth)
}
