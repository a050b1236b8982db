//! Section 4: fan-out under 100 ms of injected upstream latency: the prompt
//! `review_pending_nfes` (two lists read at once, then, for the invoices' accounts whose names
//! the instance does not know yet, the names round: one call, a page of accounts or the one
//! account) against `billing_organization_get` (1 call), with the instance's name cache
//! warm — the target, ≤ 1.3× — and cold (a fresh server per sample: the names round is a
//! second round, ≈ 2×). The names round is the design choice that makes a list answer cost at
//! most 2 calls (`catalog/lists/names.rs`); the cold row shows what it costs until the
//! instance has learned the names. Each row names the prompt's upstream calls (counted by the
//! fake) and rounds (read from the server's request line).

use super::*;

const PROMPT: &str = "review_pending_nfes";

/// What one cache state measured: wall times, and the prompt's upstream calls and rounds.
struct Measured {
    prompt_ms: Vec<f64>,
    tool_ms: Vec<f64>,
    calls: usize,
    rounds: u64,
}

/// The prompt's and the tool's requests to `addr`.
fn requests(bench: &Bench, addr: SocketAddr) -> (Vec<u8>, Vec<u8>) {
    let post = |method: &str, name: &str, params: Value| {
        http1::request(
            "POST",
            addr,
            "/mcp",
            &http1::mcp_headers(&bench.token, method, Some(name), true),
            &http1::mcp_body(1, method, params, true),
        )
    };
    (
        post(
            "prompts/get",
            PROMPT,
            json!({"name": PROMPT, "arguments": {}}),
        ),
        post(
            "tools/call",
            "billing_organization_get",
            json!({"name": "billing_organization_get", "arguments": {}}),
        ),
    )
}

/// One request on a fresh connection, checked; its wall time in ms.
fn timed(bench: &Bench, addr: SocketAddr, request: &[u8], tool_call: bool) -> Result<f64, String> {
    let t0 = Instant::now();
    let (status, body) = bench.send(addr, request)?;
    let dt = t0.elapsed().as_secs_f64() * 1e3;
    if status != 200 || !loadgen::answer_ok(&body, tool_call) {
        return Err(format!(
            "fan-out: answer {status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ));
    }
    Ok(dt)
}

/// `line` without ANSI styling.
fn plain(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(char::is_ascii_alphabetic);
        } else {
            out.push(c);
        }
    }
    out
}

/// The request lines of the prompt in the server's `log`.
fn prompt_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(plain)
        .filter(|l| {
            l.contains("kobana_mcp::request") && l.contains(&format!("target=\"{PROMPT}\""))
        })
        .collect()
}

/// The prompt's upstream calls and rounds: the calls the fake received since `/__fake/calls`
/// was cleared, the rounds from its request line, the one after the `seen` already in `log`.
fn work(bench: &Bench, fake: SocketAddr, log: &Path, seen: usize) -> Result<(usize, u64), String> {
    let calls_request = http1::request("GET", fake, "/__fake/calls", &[], b"");
    let (_, calls) = bench.send(fake, &calls_request)?;
    let calls: Value = serde_json::from_slice(&calls).unwrap_or(Value::Null);
    let calls = calls.as_array().map_or(0, Vec::len);
    let mut rounds = None;
    procs::wait_until("the prompt's request line", Duration::from_secs(2), || {
        let lines = prompt_lines(log);
        rounds = lines.get(seen).and_then(|line| {
            line.split(' ')
                .find_map(|w| w.strip_prefix("kobana_rounds="))
                .and_then(|n| n.parse().ok())
        });
        rounds
            .map(|_| ())
            .ok_or_else(|| format!("{} lines", lines.len()))
    })?;
    Ok((calls, rounds.unwrap_or(0)))
}

/// Cold name cache: a fresh server per sample; its HTTP client warmed by one tool call
/// (no names), then the prompt, then the tool. Answers the times and the prompt's work.
fn cold(bench: &Bench, fake: SocketAddr) -> Result<Measured, String> {
    let (mut prompt_ms, mut tool_ms, mut work_done) = (Vec::new(), Vec::new(), (0, 0));
    for i in 0..bench.counts.fanout_cold_reps {
        let tag = format!("fanout-cold-{i}");
        let (fresh, addr) = bench.start_ours(fake, &tag)?;
        let (prompt, tool) = requests(bench, addr);
        timed(bench, addr, &tool, true)?;
        bench.control(fake, "DELETE", "/__fake/calls", None)?;
        prompt_ms.push(timed(bench, addr, &prompt, false)?);
        work_done = work(bench, fake, &bench.log(&format!("kobana-mcp-{tag}")), 0)?;
        tool_ms.push(timed(bench, addr, &tool, true)?);
        drop(fresh);
    }
    let (calls, rounds) = work_done;
    Ok(Measured {
        prompt_ms,
        tool_ms,
        calls,
        rounds,
    })
}

/// Warm name cache on the running server `ours` (its log: `log`): three unrecorded prompts
/// teach it the names, one more is counted, then prompt and tool alternate on one
/// keep-alive connection.
fn warm(bench: &Bench, fake: SocketAddr, ours: SocketAddr, log: &Path) -> Result<Measured, String> {
    let (prompt, tool) = requests(bench, ours);
    for _ in 0..3 {
        timed(bench, ours, &prompt, false)?;
    }
    let seen = prompt_lines(log).len();
    bench.control(fake, "DELETE", "/__fake/calls", None)?;
    timed(bench, ours, &prompt, false)?;
    let (calls, rounds) = work(bench, fake, log, seen)?;
    let (mut prompt_ms, mut tool_ms) = (Vec::new(), Vec::new());
    bench.block_on(async {
        let mut conn = http1::Conn::connect(ours)
            .await
            .map_err(|e| e.to_string())?;
        for _ in 0..bench.counts.fanout_reps {
            for (req, out, tool_call) in [
                (&prompt, &mut prompt_ms, false),
                (&tool, &mut tool_ms, true),
            ] {
                let t0 = Instant::now();
                let status = conn.send(req, true).await.map_err(|e| e.to_string())?;
                let dt = t0.elapsed().as_secs_f64() * 1e3;
                if status != 200 || !loadgen::answer_ok(&conn.body, tool_call) {
                    return Err(format!(
                        "fan-out: answer {status}: {}",
                        String::from_utf8_lossy(&conn.body[..conn.body.len().min(300)])
                    ));
                }
                out.push(dt);
            }
        }
        Ok::<_, String>(())
    })?;
    Ok(Measured {
        prompt_ms,
        tool_ms,
        calls,
        rounds,
    })
}

pub(crate) fn fanout(
    bench: &Bench,
    fake: SocketAddr,
    ours: SocketAddr,
    log: &Path,
) -> Result<Report, String> {
    let mut r = Report::default();
    bench.control(fake, "DELETE", "/__fake/faults", None)?;
    bench.control(
        fake,
        "POST",
        "/__fake/faults",
        Some(json!({"method": null, "path_prefix": "/v1/", "kind": {"delay": {"ms": 100}}, "times": null})),
    )?;
    let result = (|| -> Result<Report, String> {
        let warm = warm(bench, fake, ours, log)?;
        let cold = cold(bench, fake)?;
        let (mwp, mwt) = (stats::median(&warm.prompt_ms), stats::median(&warm.tool_ms));
        let (mcp, mct) = (stats::median(&cold.prompt_ms), stats::median(&cold.tool_ms));
        let (w_calls, w_rounds) = (warm.calls, warm.rounds);
        let (c_calls, c_rounds, samples) = (cold.calls, cold.rounds, cold.prompt_ms.len());
        r.row(
            "4",
            format!("Fan-out, **warm** name cache, 100 ms on every upstream call: prompt `{PROMPT}` (upstream calls: {w_calls}, rounds: {w_rounds}) vs `billing_organization_get` (1 call)"),
            ms(mwp),
            ms(mwt),
            ratio(mwp / mwt),
            "≤ 1.3×",
            Verdict::of(mwp / mwt <= 1.3),
        );
        r.row(
            "4",
            format!("Fan-out, **cold** name cache (a fresh server per sample; samples: {samples}), 100 ms on every upstream call: prompt `{PROMPT}` (upstream calls: {c_calls}, rounds: {c_rounds}) vs `billing_organization_get` (1 call)"),
            ms(mcp),
            ms(mct),
            ratio(mcp / mct),
            "info (a names round: ≈ 2×)",
            Verdict::Info,
        );
        r.raw.insert(
            "fanout".into(),
            json!({
                "warm": {"prompt_ms": warm.prompt_ms, "tool_ms": warm.tool_ms, "upstream_calls": w_calls, "rounds": w_rounds},
                "cold": {"prompt_ms": cold.prompt_ms, "tool_ms": cold.tool_ms, "upstream_calls": c_calls, "rounds": c_rounds},
            }),
        );
        Ok(r)
    })();
    bench.control(fake, "DELETE", "/__fake/faults", None)?;
    result
}
