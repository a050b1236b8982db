//! Section 3: in-process handler overhead.

use super::*;

pub(crate) fn in_process(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let c = &bench.counts;
    let (warmup, n) = (c.inproc_warmup, c.inproc_n);
    let cpu = bench.cpu();
    let timings = std::thread::scope(|s| {
        s.spawn(|| {
            if let Some(cpu) = cpu {
                let _ = procs::pin(0, cpu);
            }
            inproc::run(warmup, n)
        })
        .join()
        .map_err(|_| "in-process bench panicked".to_owned())?
    })?;
    for t in &timings {
        let upstream = t.floor_p50_us > 0.0;
        let (ours, reference) = if upstream {
            (
                format!(
                    "p50 {} · p99 {} (net of upstream)",
                    us(t.net_p50_us),
                    us(t.net_p99_us)
                ),
                format!(
                    "raw p50 {} − upstream floor {}",
                    us(t.p50_us),
                    us(t.floor_p50_us)
                ),
            )
        } else {
            (
                format!("p50 {} · p99 {}", us(t.p50_us), us(t.p99_us)),
                "no upstream call".to_owned(),
            )
        };
        let p50 = if upstream { t.net_p50_us } else { t.p50_us };
        r.row(
            "3",
            format!(
                "In-process `App::handle`: {} ({} B answer, n = {})",
                t.op,
                thousands(t.body_bytes as f64),
                thousands(t.n as f64)
            ),
            ours,
            reference,
            "",
            "p50 ≤ 50 µs",
            Verdict::of(p50 <= 50.0),
        );
    }
    r.notes.push(format!(
        "In-process: `App::handle` called directly (no MCP network hop) on one single-threaded runtime pinned to CPU {SERVER_CPU}, protocol 2026-07-28, timing request → body collected. The tool call's upstream is a canned server on the same runtime that answers from memory with the fake Kobana's exact bytes; the median of that upstream round trip alone (bench's raw client, same runtime) is subtracted from p50 and p99."
    ));
    r.raw.insert("inproc".into(), json!(timings));
    Ok(r)
}
