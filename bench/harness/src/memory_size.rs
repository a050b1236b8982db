//! Section 7, memory size: Lambda gives CPU in proportion to memory (one vCPU at 1,769 MB).
//! Each size is simulated by a cgroup v1 CPU quota (`cpu.cfs_quota_us` = period × MB ÷ 1769)
//! around the function process — put there by a two-line `sh` wrapper before it `exec`s the
//! binary, so the cap holds from its first instruction — and measured: the cold start (the
//! real binary under the Runtime API emulator, first event `tools/list`), then, warm (the same
//! binary as a local server in the same cap), `tools/list`, a tool call against the fake
//! Kobana and a 9.9 MB PDF as a resource. Peak RSS is reported at each size and a size it would
//! not fit is flagged. The default is the cheapest size whose figures all stay within 1.5× of
//! the 1,024 MB ones.
//!
//! Without a writable cgroup v1 cpu controller (CI containers) the section is skipped with
//! the reason printed; a full run here must produce the table.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use super::{Bench, INVOICE};
use crate::report::{Report, Verdict};
use crate::{emulator, http1, procs, stats};

const CGROUP_CPU: &str = "/sys/fs/cgroup/cpu";
/// CFS period (the kernel's default).
const PERIOD_US: u64 = 100_000;
/// Memory at which Lambda gives one full vCPU.
const FULL_VCPU_MB: u64 = 1_769;
/// The sizes simulated.
const SIZES_MB: [u64; 4] = [128, 256, 512, 1_024];
/// How much slower than at 1,024 MB a figure may be for a size to qualify.
const WITHIN: f64 = 1.5;
/// A typical wait on the real Kobana per tool call (docs/deploy.md's cost example), ms.
const KOBANA_WAIT_MS: f64 = 300.0;
/// Lambda arm64 price per GB-second (us-east-1) and per million requests, USD.
const ARM64_GB_SECOND: f64 = 0.000_013_333_4;
const PER_MILLION_REQUESTS: f64 = 0.20;
const PDF_BYTES: u64 = 9_900_000;

/// A cgroup v1 CPU quota, removed when dropped.
struct CpuCap {
    dir: PathBuf,
}

impl CpuCap {
    fn new(name: &str, memory_mb: u64) -> Result<Self, String> {
        let dir = Path::new(CGROUP_CPU).join(name);
        if !dir.exists() {
            std::fs::create_dir(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
        }
        let cap = Self { dir };
        let quota = (PERIOD_US * memory_mb / FULL_VCPU_MB).max(1_000);
        cap.write("cpu.cfs_period_us", &PERIOD_US.to_string())?;
        cap.write("cpu.cfs_quota_us", &quota.to_string())?;
        Ok(cap)
    }

    fn write(&self, file: &str, value: &str) -> Result<(), String> {
        let path = self.dir.join(file);
        std::fs::write(&path, value).map_err(|e| format!("write {}: {e}", path.display()))
    }

    /// A script that joins this cgroup, then becomes `binary`.
    fn wrapper(&self, binary: &Path, work: &Path, tag: &str) -> Result<PathBuf, String> {
        use std::os::unix::fs::PermissionsExt as _;
        let path = work.join(format!("capped-{tag}.sh"));
        let script = format!(
            "#!/bin/sh\necho $$ > {}/cgroup.procs || exit 97\nexec {} \"$@\"\n",
            self.dir.display(),
            binary.display()
        );
        std::fs::write(&path, script).map_err(|e| format!("{}: {e}", path.display()))?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for CpuCap {
    fn drop(&mut self) {
        // The processes are gone by now; an empty cgroup can be removed.
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        eprintln!("bench: could not remove {}", self.dir.display());
    }
}

/// Why CPU capping cannot run here, if it cannot.
fn unavailable() -> Option<String> {
    let quota = Path::new(CGROUP_CPU).join("cpu.cfs_quota_us");
    if !quota.exists() {
        return Some(format!(
            "no cgroup v1 cpu controller at {CGROUP_CPU} (cgroup v2 or a container)"
        ));
    }
    let probe = Path::new(CGROUP_CPU).join(format!("kobana-bench-probe-{}", std::process::id()));
    match std::fs::create_dir(&probe) {
        Ok(()) => {
            let _ = std::fs::remove_dir(&probe);
            None
        }
        Err(e) => Some(format!("{CGROUP_CPU} is not writable ({e}); run as root")),
    }
}

/// What one size measured (milliseconds, medians; KiB).
#[derive(Debug, Clone, serde::Serialize)]
struct Figures {
    memory_mb: u64,
    cpu_share: f64,
    cold_ms: f64,
    tools_list_ms: f64,
    tool_call_ms: f64,
    pdf_ms: f64,
    peak_rss_kib: u64,
}

impl Figures {
    fn timings(&self) -> [f64; 4] {
        [
            self.cold_ms,
            self.tools_list_ms,
            self.tool_call_ms,
            self.pdf_ms,
        ]
    }

    fn fits(&self) -> bool {
        self.peak_rss_kib < self.memory_mb * 1024
    }

    /// GB-seconds for a million tool calls that also wait `wait_ms` on Kobana, each billed
    /// per started millisecond.
    fn gb_seconds_per_million_calls(&self, wait_ms: f64) -> f64 {
        (self.memory_mb as f64 / 1024.0) * ((self.tool_call_ms + wait_ms).ceil() / 1000.0) * 1e6
    }
}

fn timed(bench: &Bench, addr: SocketAddr, request: &[u8], expect: &str) -> Result<f64, String> {
    let t0 = Instant::now();
    let (status, body) = bench.send(addr, request)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let found = body.windows(expect.len()).any(|w| w == expect.as_bytes());
    if status != 200 || !found {
        return Err(format!(
            "{status}: {}",
            String::from_utf8_lossy(&body[..body.len().min(300)])
        ));
    }
    Ok(ms)
}

fn measure(
    bench: &Bench,
    fake: SocketAddr,
    memory_mb: u64,
    reps: usize,
) -> Result<Figures, String> {
    let cap = CpuCap::new(&format!("kobana-bench-{memory_mb}mb"), memory_mb)?;
    let wrapper = cap.wrapper(&bench.opts.kobana_bin, &bench.work, &format!("{memory_mb}"))?;
    let cpu = bench.cpu();

    let body = String::from_utf8(http1::mcp_body(1, "tools/list", json!({}), false)).expect("utf8");
    let event = emulator::apigw_event(&bench.token, &body);
    let env = vec![
        ("MCP_ALLOWED_HOSTS".to_owned(), "*".to_owned()),
        ("KOBANA_API_URL".to_owned(), format!("http://{fake}")),
    ];
    let mut cold = Vec::new();
    let mut peak = 0;
    for i in 0..reps + 1 {
        let run = emulator::cold_start(&wrapper, &env, &event, "\"tools\"", cpu)?;
        peak = peak.max(run.hwm_kib);
        if i > 0 {
            cold.push(run.elapsed_ms);
        }
    }

    let port = procs::free_port()?;
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().expect("addr");
    let proc = procs::spawn(
        "kobana-mcp (capped)",
        &wrapper,
        &[],
        &[
            ("MCP_BIND".into(), addr.to_string()),
            ("KOBANA_API_URL".into(), format!("http://{fake}")),
            ("KOBANA_TIMEOUT_MS".into(), "60000".into()),
        ],
        cpu,
        &bench.log(&format!("kobana-mcp-{memory_mb}mb")),
        false,
    )?;
    let (proc, addr) = bench.wait_ready(proc, addr)?;
    let list = http1::request(
        "POST",
        addr,
        "/mcp",
        &http1::mcp_headers(&bench.token, "tools/list", None, false),
        &http1::mcp_body(1, "tools/list", json!({}), false),
    );
    let call = http1::request(
        "POST",
        addr,
        "/mcp",
        &http1::mcp_headers(
            &bench.token,
            "tools/call",
            Some("billing_customers_list"),
            false,
        ),
        &http1::mcp_body(
            1,
            "tools/call",
            json!({"name": "billing_customers_list", "arguments": {}}),
            false,
        ),
    );
    let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
    let pdf = http1::request(
        "POST",
        addr,
        "/mcp",
        &http1::mcp_headers(&bench.token, "resources/read", Some(&uri), false),
        &http1::mcp_body(1, "resources/read", json!({"uri": uri}), false),
    );
    bench.control(
        fake,
        "POST",
        "/__fake/pdf-size",
        Some(json!({"id": INVOICE, "bytes": PDF_BYTES})),
    )?;
    let mut lists = Vec::new();
    let mut calls = Vec::new();
    let mut pdfs = Vec::new();
    // One unrecorded round first (connections to Kobana, TLS-free here, allocator warm).
    for i in 0..reps * 3 + 1 {
        let l = timed(bench, addr, &list, "\"tools\"")?;
        let c = timed(bench, addr, &call, "\"total\"")?;
        if i > 0 {
            lists.push(l);
            calls.push(c);
        }
    }
    for i in 0..reps + 1 {
        let p = timed(bench, addr, &pdf, "\"blob\"")?;
        if i > 0 {
            pdfs.push(p);
        }
    }
    let (_, hwm) = procs::memory_kib(proc.pid())?;
    peak = peak.max(hwm);
    drop(proc);
    drop(cap);
    Ok(Figures {
        memory_mb,
        cpu_share: memory_mb as f64 / FULL_VCPU_MB as f64,
        cold_ms: stats::median(&cold),
        tools_list_ms: stats::median(&lists),
        tool_call_ms: stats::median(&calls),
        pdf_ms: stats::median(&pdfs),
        peak_rss_kib: peak,
    })
}

/// The cheapest size whose figures are all within [`WITHIN`] of the largest one's, and fits.
fn choose(figures: &[Figures]) -> Option<&Figures> {
    let reference = figures.iter().max_by_key(|f| f.memory_mb)?;
    figures
        .iter()
        .filter(|f| f.fits())
        .filter(|f| {
            f.timings()
                .iter()
                .zip(reference.timings())
                .all(|(ours, best)| *ours <= best * WITHIN)
        })
        .min_by_key(|f| f.memory_mb)
}

/// Runs the section.
pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    if let Some(reason) = unavailable() {
        let note = format!("7 memory size: skipped — {reason}.");
        eprintln!("bench: {note}");
        if bench.opts.smoke {
            r.notes.push(note);
            return Ok(r);
        }
        return Err(reason);
    }
    let reps = if bench.opts.smoke { 1 } else { 11 };
    let (fake_proc, fake) = bench.start_fake()?;
    let mut figures = Vec::new();
    for size in SIZES_MB {
        eprintln!("bench: memory size {size} MB…");
        figures.push(measure(bench, fake, size, reps)?);
    }
    drop(fake_proc);
    let chosen = choose(&figures);
    let reference = figures.last().expect("four sizes").clone();
    let mut table = String::from(
        "| Memory | CPU share | Cold start | `tools/list` | Tool call | 9.9 MB PDF | Peak RSS | Fits | Within 1.5× of 1,024 MB | GB-s per 1M tool calls | USD per 1M (arm64) | GB-s per 1M, +300 ms Kobana wait | USD per 1M, +300 ms |\n\
         |---:|---:|---:|---:|---:|---:|---:|:-:|:-:|---:|---:|---:|---:|\n",
    );
    for f in &figures {
        let within = f
            .timings()
            .iter()
            .zip(reference.timings())
            .all(|(ours, best)| *ours <= best * WITHIN);
        let gbs = f.gb_seconds_per_million_calls(0.0);
        let waiting = f.gb_seconds_per_million_calls(KOBANA_WAIT_MS);
        let chosen_mark = if chosen.is_some_and(|c| c.memory_mb == f.memory_mb) {
            " **(default)**"
        } else {
            ""
        };
        table.push_str(&format!(
            "| {} MB{chosen_mark} | {:.1} % | {:.1} ms | {:.2} ms | {:.2} ms | {:.0} ms | {:.1} MB | {} | {} | {:.0} | {:.4} | {:.0} | {:.2} |\n",
            f.memory_mb,
            f.cpu_share * 100.0,
            f.cold_ms,
            f.tools_list_ms,
            f.tool_call_ms,
            f.pdf_ms,
            f.peak_rss_kib as f64 / 1024.0,
            if f.fits() { "yes" } else { "**no**" },
            if within { "yes" } else { "no" },
            gbs,
            gbs * ARM64_GB_SECOND + PER_MILLION_REQUESTS,
            waiting,
            waiting * ARM64_GB_SECOND + PER_MILLION_REQUESTS,
        ));
    }
    let decision = match chosen {
        Some(c) => format!(
            "Chosen default: **{} MB** — the cheapest size whose cold start, `tools/list`, tool call and 9.9 MB PDF all stay within {WITHIN}× of the 1,024 MB figures, with its peak RSS inside its memory.",
            c.memory_mb
        ),
        None => "No size qualified (not even 1,024 MB fits?)".to_owned(),
    };
    eprintln!("\n{table}\n{decision}");
    r.details.push(format!(
        "### 7. Memory size (CPU capped by cgroup quota)\n\n{table}\n{decision}\n\nEach size is a cgroup v1 CPU quota of {PERIOD_US} µs × MB ÷ {FULL_VCPU_MB} per {PERIOD_US} µs period around the function (Lambda's CPU share at that memory), on one pinned CPU; medians of {reps} cold starts and {} warm requests ({reps} for the PDF), each on a fresh loopback connection. Cold start: process start → answer under the Runtime API emulator (includes the `sh` wrapper's exec). Warm: the same binary as a local server in the same cap. GB-s per million tool calls = memory × the warm tool call's median, rounded up to Lambda's 1 ms billing unit; USD at arm64's $0.0000133334 per GB-s plus $0.20 per million requests. The fake Kobana answers in microseconds; a real call also waits on Kobana, billed as duration at the function's memory whatever its CPU share — the last two columns add a {KOBANA_WAIT_MS:.0} ms wait. The CFS quota only bites once a period's share is used up, so sub-millisecond requests barely feel it while CPU-heavy work (the cold start, the 9.9 MB PDF) does.",
        reps * 3
    ));
    r.raw.insert("memory_size".into(), json!(figures));
    if let Some(c) = chosen {
        r.row(
            "4",
            "memory size: cheapest within 1.5× of 1,024 MB",
            format!("{} MB", c.memory_mb),
            format!(
                "1,024 MB: cold {:.1} ms, call {:.2} ms",
                reference.cold_ms, reference.tool_call_ms
            ),
            "–",
            "≤ 1.5× on every figure",
            Verdict::Info,
        );
    }
    Ok(r)
}
