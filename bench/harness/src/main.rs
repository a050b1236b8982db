//! `kobana-bench`: the benchmark of kobana-mcp, run by `bench/run.sh`.
//!
//! ```text
//! kobana-bench [--smoke] --kobana-bin P --hello-bin P [--arm64-bin P] --node P --python P
//!              --peers DIR --sdk DIR --out DIR [--benchmarks-md P] [--sections a,b] [--info K=V]…
//! ```
//!
//! Every section proves a stated target (bench/README.md lists them). Everything runs on
//! loopback; measured servers are pinned to CPU 0, the harness (load generator, fake Kobana,
//! Lambda emulator) to CPU 1. Every loop is bounded in count and time. The exit status is 1
//! only when a step failed, never because a target was missed.

mod answers;
mod audit;
mod bench;
mod bounded;
mod calls;
mod cold;
mod http1;
mod inproc;
mod load;
mod memory;
mod pdf;
mod procs;
mod report;
mod stats;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use bench::{Bench, Opts};
use procs::{HARNESS_CPU, Proc, SERVER_CPU};
use report::{Report, cells, mb, ms, ratio, thousands, us};

/// The demo invoice whose documents the PDF and memory sections read.
const INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match Opts::parse(&args) {
        Ok(opts) => run(opts),
        Err(e) => {
            eprintln!("kobana-bench: {e} (see bench/run.sh)");
            ExitCode::from(2)
        }
    }
}

fn run(opts: Opts) -> ExitCode {
    let mut info = bench::machine_info();
    let pin = info[0].1.parse().unwrap_or(1) > HARNESS_CPU;
    procs::pin(pin.then_some(HARNESS_CPU));
    let started = Instant::now();
    let out = opts.path("out").unwrap_or_default();
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let work = out.join(format!("run-{stamp}"));
    if let Err(e) = std::fs::create_dir_all(&work) {
        eprintln!("bench: cannot create {}: {e}", work.display());
        return ExitCode::FAILURE;
    }
    let bench = Bench::new(opts, work, pin);
    eprintln!(
        "bench: {} run; logs in {}",
        if bench.opts.smoke { "SMOKE" } else { "full" },
        bench.work.display()
    );
    let mut report = Report::default();
    report.notes.push(if pin {
        format!("Pinning: measured servers on CPU {SERVER_CPU}, the harness (load generator, fake Kobana, emulator) on CPU {HARNESS_CPU}.")
    } else {
        "Pinning: skipped (one CPU): figures are less stable.".to_owned()
    });
    let on_the_running_server = ["context", "load", "fanout", "generic"];
    if on_the_running_server.iter().any(|s| bench.opts.wants(s)) {
        let fake = bench.fake();
        match bench.start_ours(fake.addr(), "main") {
            Err(e) => report.fail("start kobana-mcp", e),
            Ok((ours, addr)) => {
                let pid = ours.pid();
                section(&mut report, &bench, "context", || {
                    calls::context(&bench, addr)
                });
                section(&mut report, &bench, "load", || {
                    load::run(&bench, &fake, addr, pid)
                });
                section(&mut report, &bench, "fanout", || {
                    calls::fanout(&bench, &fake, addr)
                });
                section(&mut report, &bench, "generic", || {
                    calls::generic(&bench, &fake, addr, pid)
                });
            }
        }
    }
    section(&mut report, &bench, "pdf", || pdf::run(&bench));
    section(&mut report, &bench, "cold", || cold::run(&bench));
    section(&mut report, &bench, "inproc", || inproc::run(&bench));
    section(&mut report, &bench, "bounded", || bounded::run(&bench));
    section(&mut report, &bench, "audit", || audit::run(&bench));
    section(&mut report, &bench, "memory", || memory::run(&bench));
    section(&mut report, &bench, "answers", || answers::run(&bench));

    info.extend(bench.opts.info.iter().cloned());
    info.push((
        "wall time of the run".into(),
        format!("{:.0} s", started.elapsed().as_secs_f64()),
    ));
    let heading = if bench.opts.smoke {
        "Results (SMOKE: tiny counts, the figures only prove the steps work)"
    } else {
        "Results (full)"
    };
    let text = report.text(heading, &info);
    println!("\n{text}");
    let _ = std::fs::write(out.join("latest.md"), &text);
    if let (Some(path), false) = (bench.opts.path("benchmarks-md"), bench.opts.smoke) {
        if let Err(e) = report::write_benchmarks_md(&path, &text) {
            eprintln!("bench: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("bench: wrote {}", path.display());
    }
    if report.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs section `name` when it is wanted; its error becomes a failed step.
fn section(
    report: &mut Report,
    bench: &Bench,
    name: &str,
    f: impl FnOnce() -> Result<Report, String>,
) {
    if !bench.opts.wants(name) {
        return;
    }
    eprintln!("bench: {name}…");
    let t0 = Instant::now();
    match f() {
        Ok(part) => report.extend(part),
        Err(e) => report.fail(name, e),
    }
    eprintln!("bench: {name} done in {:.1} s", t0.elapsed().as_secs_f64());
}
