//! Section 7: memory size (#18, OP-4: the template's size is the cheapest of 128–1,024 MB
//! whose figures stay within 1.5× of 1,024 MB's). Lambda gives CPU in proportion to memory
//! (one vCPU at 1,769 MB): each size is a cgroup v1 CPU quota around the function, which a
//! two-line `sh` wrapper joins before it `exec`s the binary. At each size: the cold start
//! (emulator, `tools/list`), then, warm in the same cap, `tools/list`, a tool call and a 9.9 MB
//! PDF, and peak RSS. Without a writable cgroup v1 cpu controller a smoke skips it (saying why)
//! and a full run fails it.

use std::os::unix::fs::PermissionsExt as _;

use super::*;

const CGROUP_CPU: &str = "/sys/fs/cgroup/cpu";
/// The CFS period (the kernel's default), µs.
const PERIOD_US: u64 = 100_000;
/// Memory at which Lambda gives one full vCPU.
const FULL_VCPU_MB: u64 = 1_769;
/// A typical wait on the real Kobana per tool call (docs/deploy.md's cost example), ms.
const KOBANA_WAIT_MS: f64 = 300.0;
/// Lambda arm64 price per GB-second (us-east-1) and per million requests, USD.
const GB_SECOND_USD: f64 = 0.000_013_333_4;
const MILLION_REQUESTS_USD: f64 = 0.20;

/// A cgroup v1 CPU quota, removed when dropped.
struct CpuCap(PathBuf);

impl CpuCap {
    fn new(memory_mb: u64) -> Result<Self, String> {
        let cap = CpuCap(Path::new(CGROUP_CPU).join(format!("kobana-bench-{memory_mb}mb")));
        let quota = (PERIOD_US * memory_mb / FULL_VCPU_MB).max(1_000);
        let _ = std::fs::create_dir(&cap.0);
        for (file, value) in [
            ("cpu.cfs_period_us", PERIOD_US),
            ("cpu.cfs_quota_us", quota),
        ] {
            std::fs::write(cap.0.join(file), value.to_string())
                .map_err(|e| format!("{}/{file}: {e}", cap.0.display()))?;
        }
        Ok(cap)
    }

    /// A script that joins this cgroup, then becomes `binary`.
    fn wrapper(&self, binary: &Path, work: &Path) -> Result<PathBuf, String> {
        let path = work.join(format!(
            "capped-{}.sh",
            self.0.display().to_string().replace('/', "-")
        ));
        let script = format!(
            "#!/bin/sh\necho $$ > {}/cgroup.procs || exit 97\nexec {} \"$@\"\n",
            self.0.display(),
            binary.display()
        );
        std::fs::write(&path, script).map_err(|e| e.to_string())?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        Ok(path)
    }
}

impl Drop for CpuCap {
    fn drop(&mut self) {
        // The processes are gone by now; an empty cgroup can be removed.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// What one size measured: memory, then medians (ms) of cold start, `tools/list`, tool call,
/// 9.9 MB PDF, and peak RSS (KiB).
struct Figures(u64, [f64; 4], u64);

fn measure(bench: &Bench, fake: SocketAddr, memory_mb: u64) -> Result<Figures, String> {
    let cap = CpuCap::new(memory_mb)?;
    let wrapper = cap.wrapper(&bench.kobana_bin, &bench.work)?;
    let reps = bench.counts.memory_reps;
    let event = cold::tools_list_event(&bench.token);
    let env = [
        ("MCP_ALLOWED_HOSTS", "*".to_owned()),
        ("KOBANA_API_URL", format!("http://{fake}")),
    ]
    .map(|(k, v)| (k.to_owned(), v));
    let (mut cold, mut peak) = (Vec::new(), 0);
    for i in 0..=reps {
        let run = cold::cold_start(bench, &wrapper, &env, &event, "\"tools\"")?;
        peak = peak.max(run.hwm_kib);
        cold.extend((i > 0).then_some(run.ms));
    }
    let (proc, addr) = bench.start_ours_as(&wrapper, fake, &format!("{memory_mb}mb"))?;
    let post = |method, params| http1::mcp_post(addr, &bench.token, method, params, false);
    let list = post("tools/list", json!({}));
    let call = post(
        "tools/call",
        json!({"name": "billing_customers_list", "arguments": {}}),
    );
    let pdf = post(
        "resources/read",
        json!({"uri": format!("kobana://billing/invoices/{INVOICE}/pdf")}),
    );
    let (mut lists, mut calls, mut pdfs) = (Vec::new(), Vec::new(), Vec::new());
    // One unrecorded round first.
    for i in 0..=reps * 3 {
        let (l, c) = (
            bench.checked(addr, &list, false)?,
            bench.checked(addr, &call, true)?,
        );
        if i > 0 {
            lists.push(l);
            calls.push(c);
        }
    }
    for i in 0..=reps {
        let p = bench.checked(addr, &pdf, false)?;
        pdfs.extend((i > 0).then_some(p));
    }
    let peak = peak.max(procs::memory_kib(proc.pid())?.1);
    let timings = [&cold, &lists, &calls, &pdfs].map(|v| stats::median(v));
    Ok(Figures(memory_mb, timings, peak))
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let writable = std::fs::create_dir(Path::new(CGROUP_CPU).join("kobana-bench-probe"))
        .and_then(|()| std::fs::remove_dir(Path::new(CGROUP_CPU).join("kobana-bench-probe")));
    if let Err(e) = writable {
        let reason = format!(
            "no writable cgroup v1 cpu controller at {CGROUP_CPU} ({e}): run as root, outside a container"
        );
        return if bench.opts.smoke {
            Ok(Report {
                notes: vec![format!("7 memory size: skipped: {reason}.")],
                ..Report::default()
            })
        } else {
            Err(reason)
        };
    }
    let fake = bench.fake();
    fake.set_pdf_size(INVOICE, 9_900_000);
    let figures = [128, 256, 512, 1_024].map(|mb| measure(bench, fake.addr(), mb));
    let figures: Vec<Figures> = figures.into_iter().collect::<Result<_, _>>()?;
    let top = figures[3].1;
    let within = |f: &Figures| f.1.iter().zip(top).all(|(t, best)| *t <= best * 1.5);
    let fits = |f: &Figures| f.2 < f.0 * 1024;
    let chosen = figures
        .iter()
        .find(|f| fits(f) && within(f))
        .map_or(0, |f| f.0);
    let mut table = String::from(
        "| Memory | CPU share | Cold start | `tools/list` | Tool call | 9.9 MB PDF | Peak RSS | Fits | Within 1.5× of 1,024 MB | USD per 1M tool calls (arm64) | USD per 1M, +300 ms Kobana wait |\n|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|---:|---:|\n",
    );
    for f in &figures {
        let Figures(memory, [cold, list, call, pdf], peak) = *f;
        // Memory × the call's duration rounded up to Lambda's 1 ms, per million calls.
        let usd = |wait: f64| {
            memory as f64 / 1024.0 * ((call + wait).ceil() / 1000.0) * 1e6 * GB_SECOND_USD
                + MILLION_REQUESTS_USD
        };
        let mark = if memory == chosen {
            " **(default)**"
        } else {
            ""
        };
        let yes = |b: bool| if b { "yes" } else { "no" };
        table += &format!(
            "| {memory} MB{mark} | {:.1} % | {cold:.1} ms | {list:.2} ms | {call:.2} ms | {pdf:.0} ms | {:.1} MB | {} | {} | {:.4} | {:.2} |\n",
            100.0 * memory as f64 / FULL_VCPU_MB as f64,
            peak as f64 / 1024.0,
            yes(fits(f)),
            yes(within(f)),
            usd(0.0),
            usd(KOBANA_WAIT_MS)
        );
    }
    r.details.push(format!(
        "**Memory size** (section 7: CPU capped by a cgroup quota of {PERIOD_US} µs × MB ÷ {FULL_VCPU_MB} per {PERIOD_US} µs, Lambda's CPU share at that memory; medians of {0} cold starts and {1} warm requests, {0} for the PDF, each on a fresh connection; USD at arm64's $0.0000133334 per GB-s plus $0.20 per million requests, with and without a {KOBANA_WAIT_MS:.0} ms wait on Kobana billed at the function's memory):\n\n{table}",
        bench.counts.memory_reps, bench.counts.memory_reps * 3
    ));
    let template = include_str!("../../../template.yaml")
        .split("\n  MemorySize:")
        .nth(1)
        .unwrap_or_default();
    let default = template
        .lines()
        .find_map(|l| l.trim().strip_prefix("Default:")?.trim().parse().ok())
        .unwrap_or(0);
    r.row(7, cells![
        "Memory size: the cheapest of 128–1,024 MB whose cold start, `tools/list`, tool call and 9.9 MB PDF all stay within 1.5× of 1,024 MB's, and whose peak RSS fits",
        format!("{chosen} MB"), format!("template.yaml's `MemorySize`: {default} MB"), "", "the template's (OP-4)",
    ], Some(chosen == default));
    Ok(r)
}
