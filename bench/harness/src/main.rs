//! `kobana-bench`: the benchmark of kobana-mcp, run by `bench/run.sh`.
//!
//! ```text
//! kobana-bench run [--smoke] --kobana-bin P --hello-bin P [--arm64-bin P] --node P --python P --peers DIR
//!                  --sdk DIR --out DIR [--benchmarks-md P] [--sections a,b] [--info K=V]…
//! kobana-bench fake [--bind 127.0.0.1:PORT]     the fake Kobana as its own process
//! kobana-bench answers [--write BENCHMARKS.md]  answer sizes per list tool and prompt (CX-5)
//! kobana-bench serve --bind ADDR --kobana URL   our server (library code) for profiling
//! kobana-bench probe-startup                    one process's start-up costs, as JSON
//! kobana-bench hammer --url URL [--tool NAME] [--clients N] [--secs S]   load, for profiling
//! ```
//!
//! Everything runs on loopback. Servers are pinned to CPU 0; the harness (load generator,
//! fake Kobana, Lambda emulator) to CPU 1. Every measurement loop is bounded in count and
//! time. The exit status is 1 only when a step failed, never because a target was missed.

mod answer_size;
mod audit_cost;
mod bench;
mod bodies;
mod bounded;
mod canned;
mod cold;
mod context_cost;
mod emulator;
mod fanout;
mod finish;
mod generic;
mod http1;
mod in_process;
mod inproc;
mod load;
mod loadgen;
mod memory_size;
mod pdf;
mod procs;
mod relay;
mod report;
mod stats;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use kobana_mcp::catalog::Toolset;
use serde_json::{Value, json};

use bench::{Bench, Counts, Opts, machine_info};
use cold::cold;
use context_cost::context_cost;
use fanout::fanout;
use finish::finish;
use in_process::in_process;
use load::load;
use pdf::pdf;
use procs::{HARNESS_CPU, Proc, SERVER_CPU};
use report::{Report, Verdict, mb, ms, ratio, thousands, us};

const INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("fake") => fake(&args[1..]),
        Some("answers") => answer_size::main(&args[1..]),
        Some("serve") => serve(&args[1..]),
        Some("probe-startup") => probe_startup(),
        Some("hammer") => hammer(&args[1..]),
        Some("run") => match Opts::parse(&args[1..]) {
            Ok(opts) => run(opts),
            Err(e) => {
                eprintln!("kobana-bench: {e}");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!(
                "usage: kobana-bench run … | kobana-bench fake [--bind ADDR]  (see bench/run.sh)"
            );
            ExitCode::from(2)
        }
    }
}

/// `fake`: the fake Kobana on a loopback address; prints its base URL as the first line.
fn fake(args: &[String]) -> ExitCode {
    let mut bind: SocketAddr = "127.0.0.1:0".parse().expect("addr");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--bind" {
            match it.next().and_then(|v| v.parse().ok()) {
                Some(addr) => bind = addr,
                None => return ExitCode::from(2),
            }
        }
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let fake = match fake_kobana::FakeKobana::start_on(bind).await {
            Ok(f) => f,
            Err(e) => {
                eprintln!("fake: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!("{}", fake.base_url());
        // Bounded: a forgotten fake ends by itself after an hour.
        tokio::time::sleep(Duration::from_secs(3600)).await;
        ExitCode::SUCCESS
    })
}

/// `serve`: `App::new` + `kobana_mcp::serve`, the code `kobana-mcp` runs outside Lambda, in
/// this binary (which a profiling build keeps symbols for).
fn serve(args: &[String]) -> ExitCode {
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let (Some(bind), Some(kobana)) = (arg("--bind"), arg("--kobana")) else {
        eprintln!("usage: kobana-bench serve --bind 127.0.0.1:PORT --kobana http://127.0.0.1:PORT");
        return ExitCode::from(2);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let config = kobana_mcp::Config {
            kobana_api_url: kobana,
            ..kobana_mcp::Config::default()
        };
        let app = match kobana_mcp::App::new(config) {
            Ok(app) => app,
            Err(e) => {
                eprintln!("serve: {e}");
                return ExitCode::FAILURE;
            }
        };
        let listener = match tokio::net::TcpListener::bind(&bind).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("serve: {bind}: {e}");
                return ExitCode::FAILURE;
            }
        };
        match kobana_mcp::serve(app, listener).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        }
    })
}

/// `hammer`: the load generator alone against one MCP URL (`tools/list`, or `tools/call` of
/// `--tool` with no arguments), for profiling a server under load. Bounded by `--secs`.
fn hammer(args: &[String]) -> ExitCode {
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let Some(addr) = arg("--url").and_then(|u| http1::addr_of(&u).ok()) else {
        eprintln!(
            "usage: kobana-bench hammer --url http://127.0.0.1:PORT/mcp [--tool NAME] [--clients N] [--secs S]"
        );
        return ExitCode::from(2);
    };
    let clients = arg("--clients").and_then(|v| v.parse().ok()).unwrap_or(32);
    let secs: f64 = arg("--secs")
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(5.0)
        .min(600.0);
    let tool = arg("--tool");
    let token = fake_kobana::full_token();
    let (method, params) = match &tool {
        Some(name) => ("tools/call", json!({"name": name, "arguments": {}})),
        None => ("tools/list", json!({})),
    };
    let headers = http1::mcp_headers(&token, method, tool.as_deref(), true);
    let body = http1::mcp_body(1, method, params, true);
    let spec = loadgen::LoadSpec {
        addr,
        request: Rc::new(http1::request("POST", addr, "/mcp", &headers, &body)),
        concurrency: clients,
        warmup: Duration::from_millis(200),
        duration: Duration::from_secs_f64(secs),
        tool_call: tool.is_some(),
    };
    match loadgen::run(&spec) {
        Ok(r) => {
            println!("{}", serde_json::to_string(&r).unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("hammer: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `probe-startup`: in this fresh process, how long `App::new` takes, then the first and
/// second in-process `tools/list`, then the first and second `tools/call` against a canned
/// upstream (the first one pays for whatever the Kobana client sets up on first use).
fn probe_startup() -> ExitCode {
    use http_body_util::BodyExt;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("probe: {e}");
                return ExitCode::FAILURE;
            }
        };
        let upstream = listener.local_addr().expect("addr");
        let canned_body = br#"{"data":[],"meta":{"total":0,"page":1,"per_page":20,"total_pages":1}}"#;
        tokio::spawn(canned::serve(
            listener,
            std::sync::Arc::new(canned::response("application/json", canned_body)),
        ));
        let config = kobana_mcp::Config {
            kobana_api_url: format!("http://{upstream}"),
            allowed_hosts: Vec::new(),
            ..kobana_mcp::Config::default()
        };
        let t0 = Instant::now();
        let app = match kobana_mcp::App::new(config) {
            Ok(app) => app,
            Err(e) => {
                eprintln!("probe: {e}");
                return ExitCode::FAILURE;
            }
        };
        let app_ms = t0.elapsed().as_secs_f64() * 1e3;
        let token = fake_kobana::full_token();
        let mut times = Vec::new();
        let call = json!({"name": "billing_customers_list", "arguments": {}});
        for (method, params) in [
            ("tools/list", json!({})),
            ("tools/list", json!({})),
            ("tools/call", call.clone()),
            ("tools/call", call),
        ] {
            let body = http1::mcp_body(1, method, params, false);
            let mut builder = http::Request::builder()
                .method("POST")
                .uri("/mcp")
                .header("host", "127.0.0.1");
            for (k, v) in http1::mcp_headers(&token, method, None, false) {
                builder = builder.header(k, v);
            }
            let request = builder
                .body(http_body_util::Full::new(bytes::Bytes::from(body)))
                .expect("request");
            let t0 = Instant::now();
            let response = app.handle(request).await;
            let status = response.status();
            let body = response
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            times.push(t0.elapsed().as_secs_f64() * 1e3);
            if status != 200 || !loadgen::answer_ok(&body, method == "tools/call") {
                eprintln!(
                    "probe: {method} failed: {status} {}",
                    String::from_utf8_lossy(&body[..body.len().min(300)])
                );
                return ExitCode::FAILURE;
            }
        }
        println!(
            "{}",
            json!({"app_new_ms": app_ms, "first_tools_list_ms": times[0], "second_tools_list_ms": times[1],
                   "first_tools_call_ms": times[2], "second_tools_call_ms": times[3]})
        );
        ExitCode::SUCCESS
    })
}

fn run(opts: Opts) -> ExitCode {
    let pin = procs::have_cpu(1);
    if pin && let Err(e) = procs::pin(0, HARNESS_CPU) {
        eprintln!("bench: cannot pin the harness to CPU {HARNESS_CPU}: {e}");
    }
    let started = Instant::now();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let work = opts.out.join(format!("run-{stamp}"));
    if let Err(e) = std::fs::create_dir_all(&work) {
        eprintln!("bench: cannot create {}: {e}", work.display());
        return ExitCode::FAILURE;
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let counts = Counts::new(opts.smoke);
    let bench = Bench {
        opts,
        counts,
        rt,
        work: work.clone(),
        token: fake_kobana::full_token(),
        pin,
    };
    let mut report = Report::default();
    let machine = machine_info();
    report.raw.insert(
        "machine".into(),
        json!(
            machine
                .iter()
                .cloned()
                .collect::<std::collections::BTreeMap<_, _>>()
        ),
    );
    eprintln!(
        "bench: {} run; logs and results in {}",
        if bench.opts.smoke { "SMOKE" } else { "full" },
        work.display()
    );
    if pin {
        report.notes.push(format!(
            "Pinning: measured servers on CPU {SERVER_CPU}; the harness (load generator, fake Kobana, Lambda emulator) on CPU {HARNESS_CPU} (`taskset -c {HARNESS_CPU}` for the harness, `sched_setaffinity` = `taskset -c {SERVER_CPU}` for each server). Harness affinity as seen by itself: {:?}.",
            procs::affinity()
        ));
    } else {
        report
            .notes
            .push("Pinning: skipped (fewer than 2 CPUs): figures are less stable.".into());
    }

    let mut tools_json: Option<Value> = None;
    match bench.start_fake() {
        Err(e) => report.fail("start the fake Kobana", e),
        Ok((mut fake, fake_addr)) => {
            if ["context", "load", "fanout", "generic"]
                .iter()
                .any(|s| bench.opts.wants(s))
            {
                match bench.start_ours(fake_addr, "main") {
                    Err(e) => report.fail("start kobana-mcp", e),
                    Ok((ours, ours_addr)) => {
                        section(&mut report, "6 context cost", || {
                            context_cost(&bench, ours_addr, &mut tools_json)
                        });
                        if bench.opts.wants("load") {
                            section(&mut report, "2 warm load", || {
                                load(&bench, fake_addr, ours_addr, ours.pid(), &tools_json)
                            });
                        }
                        if bench.opts.wants("fanout") {
                            section(&mut report, "4 fan-out", || {
                                fanout(&bench, fake_addr, ours_addr, &bench.log("kobana-mcp-main"))
                            });
                        }
                        if bench.opts.wants("generic") {
                            section(&mut report, "10 generic tools", || {
                                generic::generic(&bench, fake_addr, ours_addr, ours.pid())
                            });
                        }
                        drop(ours);
                    }
                }
            }
            if bench.opts.wants("pdf") {
                section(&mut report, "5 PDF streaming", || pdf(&bench, fake_addr));
            }
            if let Err(e) = fake.check_alive() {
                report.fail("fake Kobana", e);
            }
            drop(fake);
        }
    }
    if bench.opts.wants("cold") {
        section(&mut report, "1 cold start", || cold(&bench));
    }
    if bench.opts.wants("inproc") {
        section(&mut report, "3 in-process", || in_process(&bench));
    }
    if bench.opts.wants("bounded") {
        section(&mut report, "8 bounded work", || bounded::bounded(&bench));
    }
    if bench.opts.wants("audit") {
        section(&mut report, "9 audit cost", || {
            audit_cost::audit_cost(&bench)
        });
    }
    if bench.opts.wants("memory") {
        section(&mut report, "7 memory size", || memory_size::run(&bench));
    }
    finish(bench, report, machine, started)
}

/// Runs one section; its error becomes a failed step, its rows join the report.
fn section(report: &mut Report, name: &str, f: impl FnOnce() -> Result<Report, String>) {
    eprintln!("bench: {name}…");
    let t0 = Instant::now();
    match f() {
        Ok(part) => {
            report.rows.extend(part.rows);
            report.details.extend(part.details);
            report.notes.extend(part.notes);
            report.failures.extend(part.failures);
            report.raw.extend(part.raw);
        }
        Err(e) => report.fail(name, e),
    }
    eprintln!("bench: {name} done in {:.1} s", t0.elapsed().as_secs_f64());
}
