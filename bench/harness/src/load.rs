//! Section 2: warm load, ours against the TypeScript and Python SDK peers.

use super::*;

pub(crate) struct Server {
    pub(crate) name: &'static str,
    pub(crate) addr: SocketAddr,
    pub(crate) pid: u32,
}

#[derive(Clone, Default)]
pub(crate) struct Agg {
    pub(crate) rps: Vec<f64>,
    pub(crate) p50: Vec<f64>,
    pub(crate) p99: Vec<f64>,
    pub(crate) cpu_us: Vec<f64>,
    pub(crate) errors: u64,
    pub(crate) first_error: Option<String>,
    /// Correct answers over all rounds, those that ended after the window included.
    pub(crate) answered: u64,
}

pub(crate) fn start_peer(
    bench: &Bench,
    name: &str,
    fake: SocketAddr,
    tools_file: &Path,
) -> Result<(Proc, SocketAddr), String> {
    let port = procs::free_port()?;
    let (program, script, label) = match name {
        "ts" => (&bench.opts.node, "ts_peer.mjs", "TypeScript SDK peer"),
        _ => (&bench.opts.python, "py_peer.py", "Python SDK peer"),
    };
    let mut args = vec![
        bench.opts.peers.join(script).display().to_string(),
        "--port".into(),
        port.to_string(),
        "--tools".into(),
        tools_file.display().to_string(),
        "--upstream".into(),
        format!("http://{fake}"),
    ];
    if name == "ts" {
        args.extend(["--sdk".into(), bench.opts.sdk.display().to_string()]);
    }
    let proc = procs::spawn(
        label,
        program,
        &args,
        &[],
        bench.cpu(),
        &bench.log(&format!("peer-{name}")),
        false,
    )?;
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    bench.wait_ready(proc, addr)
}

pub(crate) fn load(
    bench: &Bench,
    fake: SocketAddr,
    ours: SocketAddr,
    ours_pid: u32,
    tools: &Option<Value>,
) -> Result<Report, String> {
    let mut r = Report::default();
    let tools = tools.as_ref().ok_or("needs the tools/list of section 6")?;
    let tools_file = bench.work.join("tools.json");
    let (ts, ts_addr) = start_peer(bench, "ts", fake, &tools_file)?;
    let (py, py_addr) = start_peer(bench, "py", fake, &tools_file)?;
    let servers = [
        Server {
            name: "ours",
            addr: ours,
            pid: ours_pid,
        },
        Server {
            name: "TS",
            addr: ts_addr,
            pid: ts.pid(),
        },
        Server {
            name: "Py",
            addr: py_addr,
            pid: py.pid(),
        },
    ];
    // Same surface: same tool list, same answer to the benchmarked call.
    let expected = tools["tools"].as_array().map_or(0, Vec::len);
    for s in &servers {
        let (status, body, _) = bench.mcp(s.addr, "tools/list", json!({}), None, true, &[])?;
        let n = body["result"]["tools"].as_array().map_or(0, Vec::len);
        if status != 200 || n != expected {
            return Err(format!(
                "{}: tools/list has {n} tools (ours {expected}), status {status}",
                s.name
            ));
        }
        if body["result"]["tools"] != tools["tools"] {
            r.notes.push(format!(
                "{}: tools/list differs from ours in some field (names and count match).",
                s.name
            ));
        }
        let (status, body, _) = bench.mcp(
            s.addr,
            "tools/call",
            json!({"name": "billing_customers_list", "arguments": {}}),
            Some("billing_customers_list"),
            true,
            &[],
        )?;
        let total = &body["result"]["structuredContent"]["total"];
        if status != 200 || body["result"]["isError"] == true || total != 4 {
            return Err(format!(
                "{}: billing_customers_list answered {status}: {}",
                s.name,
                body.to_string().chars().take(400).collect::<String>()
            ));
        }
    }

    let list_body = http1::mcp_body(1, "tools/list", json!({}), true);
    let call_body = http1::mcp_body(
        1,
        "tools/call",
        json!({"name": "billing_customers_list", "arguments": {}}),
        true,
    );
    // (method, body, Mcp-Name, label, is a tool call)
    type Workload<'a> = (&'a str, &'a [u8], Option<&'a str>, &'a str, bool);
    let workloads: [Workload; 2] = [
        ("tools/list", &list_body, None, "tools/list", false),
        (
            "tools/call",
            &call_body,
            Some("billing_customers_list"),
            "tools/call `billing_customers_list` (1 upstream call)",
            true,
        ),
    ];
    let concurrencies = [1usize, 32];
    let c = &bench.counts;

    // The generator's ceiling: same size of answer, from a server that costs ~nothing.
    let (_, list_answer) = bench.send(
        ours,
        &http1::request(
            "POST",
            ours,
            "/mcp",
            &http1::mcp_headers(&bench.token, "tools/list", None, true),
            &list_body,
        ),
    )?;
    let canned_addr = canned::spawn_thread(
        bench.cpu(),
        canned::response("application/json", &list_answer),
    )?;
    let mut ceiling = Vec::new();
    for conc in concurrencies {
        let spec = loadgen::LoadSpec {
            addr: canned_addr,
            request: Rc::new(http1::request(
                "POST",
                canned_addr,
                "/mcp",
                &http1::mcp_headers(&bench.token, "tools/list", None, true),
                &list_body,
            )),
            concurrency: conc,
            warmup: c.load_warmup,
            duration: c.load_window,
            tool_call: false,
        };
        let res = loadgen::run(&spec)?;
        ceiling.push((conc, res.rps));
    }

    // One unrecorded warm-up per server and workload first, so JITs (V8) and caches settle.
    for (method, body, name, _, tool_call) in workloads.iter() {
        for s in &servers {
            let headers = http1::mcp_headers(&bench.token, method, *name, true);
            let spec = loadgen::LoadSpec {
                addr: s.addr,
                request: Rc::new(http1::request("POST", s.addr, "/mcp", &headers, body)),
                concurrency: 32,
                warmup: Duration::ZERO,
                duration: c.server_warmup,
                tool_call: *tool_call,
            };
            loadgen::run(&spec)?;
        }
    }

    let mut agg: std::collections::BTreeMap<(usize, usize, usize), Agg> = Default::default();
    for round in 0..c.load_rounds {
        for (wi, (method, body, name, _, tool_call)) in workloads.iter().enumerate() {
            for (ci, conc) in concurrencies.iter().enumerate() {
                for (si, s) in servers.iter().enumerate() {
                    let headers = http1::mcp_headers(&bench.token, method, *name, true);
                    let spec = loadgen::LoadSpec {
                        addr: s.addr,
                        request: Rc::new(http1::request("POST", s.addr, "/mcp", &headers, body)),
                        concurrency: *conc,
                        warmup: c.load_warmup,
                        duration: c.load_window,
                        tool_call: *tool_call,
                    };
                    let cpu0 = procs::cpu_time(s.pid)?;
                    let res = loadgen::run(&spec)?;
                    let cpu1 = procs::cpu_time(s.pid)?;
                    eprintln!(
                        "bench:   round {} {method} c={conc} {}: {} req/s, p50 {}, p99 {}, errors {}",
                        round + 1,
                        s.name,
                        thousands(res.rps),
                        us(res.p50_us),
                        us(res.p99_us),
                        res.errors
                    );
                    let a = agg.entry((wi, ci, si)).or_default();
                    a.rps.push(res.rps);
                    a.p50.push(res.p50_us);
                    a.p99.push(res.p99_us);
                    if res.completed_total > 0 {
                        a.cpu_us
                            .push((cpu1 - cpu0).as_secs_f64() * 1e6 / res.completed_total as f64);
                    }
                    a.errors += res.errors;
                    a.answered += res.completed_total;
                    if a.first_error.is_none() {
                        a.first_error = res.first_error.clone();
                    }
                }
            }
        }
    }
    drop(ts);
    drop(py);

    let med = |v: &[f64]| stats::median(v);
    let mut detail = String::from(
        "| Workload | Clients | Server | req/s (median) | p50 | p99 | server CPU / request | errors |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut raw = Vec::new();
    for (wi, (_, _, _, label, _)) in workloads.iter().enumerate() {
        for (ci, conc) in concurrencies.iter().enumerate() {
            let get = |si: usize| agg.get(&(wi, ci, si)).cloned().unwrap_or_default();
            let (o, t, p) = (get(0), get(1), get(2));
            for (si, a) in [&o, &t, &p].iter().enumerate() {
                detail.push_str(&format!(
                    "| {label} | {conc} | {} | {} | {} | {} | {} | {} |\n",
                    servers[si].name,
                    thousands(med(&a.rps)),
                    us(med(&a.p50)),
                    us(med(&a.p99)),
                    us(med(&a.cpu_us)),
                    a.errors
                ));
                raw.push(json!({"workload": label, "clients": conc, "server": servers[si].name,
                    "rps": a.rps, "p50_us": a.p50, "p99_us": a.p99, "cpu_us_per_request": a.cpu_us, "errors": a.errors, "first_error": a.first_error}));
                if a.errors > 0 {
                    r.notes.push(format!(
                        "{} {label} c={conc}: {} failed requests; first: {}",
                        servers[si].name,
                        a.errors,
                        a.first_error.clone().unwrap_or_default()
                    ));
                }
                // A smoke proves the step works, not a rate: its 0.3 s window can end before a
                // slow (debug, loaded machine) answer to 32 clients does, so it asks for one
                // correct answer; a full run asks for answers inside its measured windows.
                let broken = if bench.opts.smoke {
                    a.answered == 0
                } else {
                    a.rps.is_empty() || med(&a.rps) == 0.0
                };
                if broken {
                    r.fail(
                        &format!("load {label} c={conc} {}", servers[si].name),
                        "no successful request",
                    );
                }
            }
            let (ts_rps, py_rps) = (med(&t.rps), med(&p.rps));
            let (faster_name, faster_rps, faster_p50) = if ts_rps >= py_rps {
                ("TS", ts_rps, med(&t.p50))
            } else {
                ("Py", py_rps, med(&p.p50))
            };
            let rps_ratio = med(&o.rps) / faster_rps;
            r.row(
                "2",
                format!(
                    "{label}, {conc} client{}: req/s",
                    if *conc == 1 { "" } else { "s" }
                ),
                thousands(med(&o.rps)),
                format!("TS {} · Py {}", thousands(ts_rps), thousands(py_rps)),
                format!("{} vs {faster_name}", ratio(rps_ratio)),
                "≥ 10× faster peer",
                Verdict::of(rps_ratio >= 10.0),
            );
            let p50_ratio = med(&o.p50) / faster_p50;
            r.row(
                "2",
                format!(
                    "{label}, {conc} client{}: p50 latency",
                    if *conc == 1 { "" } else { "s" }
                ),
                us(med(&o.p50)),
                format!("TS {} · Py {}", us(med(&t.p50)), us(med(&p.p50))),
                format!("{} vs {faster_name}", ratio(p50_ratio)),
                "≤ 0.2× faster peer",
                Verdict::of(p50_ratio <= 0.2),
            );
        }
    }
    r.details.push(format!(
        "**Warm load, all servers** (each server first warmed for {:.0} s per workload; then medians of {} rounds × {:.1} s after {:.1} s warm-up, servers interleaved; protocol 2026-07-28, JSON answers; server CPU / request = the server process's user+system CPU time over the run ÷ answers, all its threads):\n\n{detail}",
        c.server_warmup.as_secs_f64(),
        c.load_rounds,
        c.load_window.as_secs_f64(),
        c.load_warmup.as_secs_f64()
    ));
    let ours_list_32 = agg.get(&(0, 1, 0)).map(|a| med(&a.rps)).unwrap_or(0.0);
    r.notes.push(format!(
        "Load generator: kobana-bench's own HTTP/1.1 keep-alive client, one connection per client, single-threaded on CPU {HARNESS_CPU}, checking every answer. Its ceiling against a canned server returning our {}-byte tools/list answer from memory: {} req/s with 1 client, {} req/s with 32 ({} our tools/list rate at 32), so the generator is not the bottleneck. The fake Kobana shares CPU {HARNESS_CPU} with the generator.",
        thousands(list_answer.len() as f64),
        thousands(ceiling[0].1),
        thousands(ceiling[1].1),
        if ours_list_32 > 0.0 { format!("{:.1}×", ceiling[1].1 / ours_list_32) } else { "n/a".into() }
    ));
    r.raw
        .insert("load".into(), json!({"runs": raw, "ceiling": ceiling}));
    Ok(r)
}
