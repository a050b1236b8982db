//! Section 2: warm load, ours against the TypeScript and Python SDK peers serving the same
//! tools (#9: ≥ 10× the faster peer's requests per second, ≤ 0.2× its p50).
//!
//! The load generator: `clients` keep-alive connections on one single-threaded runtime (one
//! CPU), each sending the same pre-built request back to back for a warm-up and then a
//! measured window; every answer is checked.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use fake_kobana::FakeKobana;

use super::*;

/// What one run of the generator saw.
#[derive(Default)]
struct Run {
    /// Latencies inside the measured window, µs.
    latencies: Vec<f64>,
    /// Correct answers, warm-up included (for CPU per request).
    answered: u64,
    errors: u64,
    first_error: Option<String>,
}

/// `clients` connections to `addr` sending `request` for `warmup` + `window`.
fn generate(
    addr: SocketAddr,
    request: &[u8],
    clients: usize,
    warmup: Duration,
    window: Duration,
    tool_call: bool,
) -> Run {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let run = Rc::new(RefCell::new(Run::default()));
    let measure_from = Instant::now() + warmup;
    let deadline = measure_from + window;
    let local = tokio::task::LocalSet::new();
    for _ in 0..clients {
        let (run, request) = (run.clone(), request.to_vec());
        local.spawn_local(async move {
            let (mut conn, mut failures) = (None, 0);
            while Instant::now() < deadline && failures < 20 {
                if conn.is_none() {
                    conn = http1::Conn::connect(addr).await.ok();
                }
                let Some(c) = conn.as_mut() else {
                    failures += 1;
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                };
                let t0 = Instant::now();
                let sent = c.send(&request, true).await;
                let mut run = run.borrow_mut();
                match sent {
                    Ok(200) if http1::answer_ok(&c.body, tool_call) => {
                        failures = 0;
                        run.answered += 1;
                        if t0 >= measure_from && Instant::now() <= deadline {
                            run.latencies.push(t0.elapsed().as_secs_f64() * 1e6);
                        }
                        continue;
                    }
                    Ok(status) => {
                        let text =
                            String::from_utf8_lossy(&c.body[..c.body.len().min(300)]).into_owned();
                        run.first_error
                            .get_or_insert(format!("status {status}: {text}"));
                    }
                    Err(e) => {
                        run.first_error.get_or_insert(format!("io: {e}"));
                        conn = None;
                    }
                }
                (run.errors, failures) = (run.errors + 1, failures + 1);
            }
        });
    }
    runtime.block_on(local);
    run.take()
}

/// A peer on a free port, serving `tools.json` and forwarding to `fake`.
fn start_peer(
    bench: &Bench,
    name: &str,
    fake: SocketAddr,
    tools: &Path,
) -> Result<(Proc, SocketAddr), String> {
    let port = procs::free_port()?;
    let peers = bench.opts.path("peers").unwrap_or_default();
    let path = |p: &Path| p.display().to_string();
    let (program, script) = if name == "TS" {
        ("node", "ts_peer.mjs")
    } else {
        ("python", "py_peer.py")
    };
    let mut args = vec![
        path(&peers.join(script)),
        "--port".into(),
        port.to_string(),
        "--tools".into(),
        path(tools),
        "--upstream".into(),
        format!("http://{fake}"),
    ];
    if name == "TS" {
        args.extend([
            "--sdk".into(),
            path(&bench.opts.path("sdk").unwrap_or_default()),
        ]);
    }
    bench.start(
        &format!("peer-{name}"),
        &bench.opts.path(program).unwrap_or_default(),
        &args,
        &[],
        port,
    )
}

/// Each server answers the same tools and the same call.
fn same_surface(
    bench: &Bench,
    servers: &[(&str, SocketAddr, u32)],
    tools: &Value,
    r: &mut Report,
) -> Result<(), String> {
    for (name, addr, _) in servers {
        let (_, list, _) = bench.mcp(*addr, "tools/list", json!({}), true)?;
        let count = |v: &Value| v.as_array().map_or(0, Vec::len);
        if count(&list["result"]["tools"]) != count(&tools["tools"]) {
            return Err(format!(
                "{name}: tools/list has {} tools, ours {}",
                count(&list["result"]["tools"]),
                count(&tools["tools"])
            ));
        }
        if list["result"]["tools"] != tools["tools"] {
            r.notes.push(format!(
                "{name}: tools/list differs from ours in some field (names and count match)."
            ));
        }
        let (status, call, _) = bench.mcp(
            *addr,
            "tools/call",
            json!({"name": "billing_customers_list", "arguments": {}}),
            true,
        )?;
        if status != 200 || call["result"]["structuredContent"]["total"] != 4 {
            return Err(format!(
                "{name}: billing_customers_list answered {status}: {call:.400}"
            ));
        }
    }
    Ok(())
}

pub fn run(bench: &Bench, fake: &FakeKobana, ours: SocketAddr, pid: u32) -> Result<Report, String> {
    let mut r = Report::default();
    let (_, tools, _) = bench.mcp(ours, "tools/list", json!({}), true)?;
    let tools_file = bench.work.join("tools.json");
    std::fs::write(&tools_file, tools["result"].to_string()).map_err(|e| e.to_string())?;
    let (ts, ts_addr) = start_peer(bench, "TS", fake.addr(), &tools_file)?;
    let (py, py_addr) = start_peer(bench, "Py", fake.addr(), &tools_file)?;
    let servers = [
        ("ours", ours, pid),
        ("TS", ts_addr, ts.pid()),
        ("Py", py_addr, py.pid()),
    ];
    same_surface(bench, &servers, &tools["result"], &mut r)?;
    let call = json!({"name": "billing_customers_list", "arguments": {}});
    let workloads = [
        ("tools/list", json!({}), "tools/list"),
        (
            "tools/call",
            call,
            "tools/call `billing_customers_list` (1 Kobana call)",
        ),
    ];
    let c = &bench.counts;
    let request = |addr, (method, params, _): &(&str, Value, &str)| {
        http1::mcp_post(addr, &bench.token, method, params.clone(), true)
    };

    // The generator's ceiling: our tools/list answer from a server that costs ~nothing.
    let (_, list_answer) = bench.send(ours, &request(ours, &workloads[0]))?;
    let ceiling = bench.svc.block_on(http1::canned(list_answer.clone()))?;
    let ceiling_rps = generate(
        ceiling,
        &request(ceiling, &workloads[0]),
        32,
        c.load_warmup,
        c.load_window,
        false,
    )
    .latencies
    .len() as f64
        / c.load_window.as_secs_f64();

    // Unrecorded warm-up per server and workload (V8's JIT doubles the TS peer's rate).
    for w in &workloads {
        for (_, addr, _) in &servers {
            generate(
                *addr,
                &request(*addr, w),
                32,
                Duration::ZERO,
                c.server_warmup,
                w.0 == "tools/call",
            );
        }
    }
    // (workload, clients, server) → per round: req/s, p50, p99, CPU per request (µs).
    let mut agg: HashMap<(usize, usize, usize), [Vec<f64>; 4]> = HashMap::new();
    let mut errors = Vec::new();
    for _ in 0..c.load_rounds {
        for (wi, w) in workloads.iter().enumerate() {
            for (ci, clients) in [1, 32].into_iter().enumerate() {
                for (si, (name, addr, pid)) in servers.iter().enumerate() {
                    let cpu0 = procs::cpu_time(*pid)?;
                    let run = generate(
                        *addr,
                        &request(*addr, w),
                        clients,
                        c.load_warmup,
                        c.load_window,
                        wi == 1,
                    );
                    let cpu_us = (procs::cpu_time(*pid)? - cpu0).as_secs_f64() * 1e6
                        / run.answered.max(1) as f64;
                    if run.errors > 0 {
                        errors.push(format!(
                            "{name} {} c={clients}: {} failed; first: {}",
                            w.2,
                            run.errors,
                            run.first_error.unwrap_or_default()
                        ));
                    }
                    if run.answered == 0 {
                        r.fail(
                            &format!("load {} c={clients} {name}", w.2),
                            "no correct answer",
                        );
                    }
                    let rps = run.latencies.len() as f64 / c.load_window.as_secs_f64();
                    let figures = [
                        rps,
                        stats::percentile(&run.latencies, 50.0),
                        stats::percentile(&run.latencies, 99.0),
                        cpu_us,
                    ];
                    let slot = agg.entry((wi, ci, si)).or_default();
                    figures
                        .iter()
                        .zip(slot.iter_mut())
                        .for_each(|(f, v)| v.push(*f));
                }
            }
        }
    }
    drop((ts, py));
    r.notes.extend(errors);
    let mut detail = String::from(
        "| Workload | Clients | Server | req/s | p50 | p99 | server CPU / request |\n|---|---|---|---|---|---|---|\n",
    );
    for (wi, w) in workloads.iter().enumerate() {
        for (ci, clients) in [1, 32].into_iter().enumerate() {
            let med = |si: usize| agg[&(wi, ci, si)].each_ref().map(|v| stats::median(v));
            let [o, t, p] = [med(0), med(1), med(2)];
            for (si, [rps, p50, p99, cpu]) in [o, t, p].into_iter().enumerate() {
                detail += &format!(
                    "| {} | {clients} | {} | {} | {} | {} | {} |\n",
                    w.2,
                    servers[si].0,
                    thousands(rps),
                    us(p50),
                    us(p99),
                    us(cpu)
                );
            }
            let faster = if t[0] >= p[0] { ("TS", t) } else { ("Py", p) };
            let what = format!(
                "{}, {clients} client{}",
                w.2,
                if clients == 1 { "" } else { "s" }
            );
            let (q_rps, q_p50) = (o[0] / faster.1[0], o[1] / faster.1[1]);
            r.row(
                2,
                cells![
                    format!("{what}: req/s"),
                    thousands(o[0]),
                    format!("TS {} · Py {}", thousands(t[0]), thousands(p[0])),
                    format!("{} vs {}", ratio(q_rps), faster.0),
                    "≥ 10× the faster peer (#9)"
                ],
                Some(q_rps >= 10.0),
            );
            r.row(
                2,
                cells![
                    format!("{what}: p50 latency"),
                    us(o[1]),
                    format!("TS {} · Py {}", us(t[1]), us(p[1])),
                    format!("{} vs {}", ratio(q_p50), faster.0),
                    "≤ 0.2× the faster peer (#9)"
                ],
                Some(q_p50 <= 0.2),
            );
        }
    }
    r.details.push(format!(
        "**Warm load, all servers** (medians of {} rounds × {:.1} s after {:.1} s of warm-up, servers interleaved, after {:.0} s of unrecorded load each; protocol 2026-07-28; server CPU / request: the process's user+system time over the run ÷ answers):\n\n{detail}",
        c.load_rounds, c.load_window.as_secs_f64(), c.load_warmup.as_secs_f64(), c.server_warmup.as_secs_f64()
    ));
    r.notes.push(format!(
        "Load generator: its ceiling against a canned server answering our {} B tools/list from memory is {} req/s at 32 clients, so it is not the bottleneck.",
        thousands(list_answer.len() as f64), thousands(ceiling_rps)
    ));
    Ok(r)
}
