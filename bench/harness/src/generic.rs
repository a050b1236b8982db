//! Section 10: the generic tools beside the curated ones (#32). A generic read
//! (`billing_operations_read get-customers`) against the curated `billing_customers_list`, and a
//! generic write (`billing_operations_write patch-customers-id`) against the curated
//! `billing_customers_update`, on the running server: per call, the Kobana calls it made
//! (counted by the fake through `/__fake/calls`; target ≤ 2, and 1 where the operation is one
//! call) and the server's CPU time (`/proc/PID/stat`, 10 ms ticks, so each round runs many
//! calls), medians over rounds. Also the embedded operation facts: their size and the time to
//! parse them (in the harness's own process, once per generic-tool process).

use super::*;

const CUSTOMER: &str = "23b8c1e9-3924-46de-beb1-3b9046685257";

/// One workload: the tool and its arguments.
struct Workload {
    label: &'static str,
    tool: &'static str,
    args: Value,
}

fn workloads() -> [Workload; 4] {
    [
        Workload {
            label: "curated read `billing_customers_list`",
            tool: "billing_customers_list",
            args: json!({}),
        },
        Workload {
            label: "generic read `billing_operations_read` get-customers",
            tool: "billing_operations_read",
            args: json!({"operation": "get-customers"}),
        },
        Workload {
            label: "curated write `billing_customers_update`",
            tool: "billing_customers_update",
            args: json!({"id": CUSTOMER, "nickname": "Mari"}),
        },
        Workload {
            label: "generic write `billing_operations_write` patch-customers-id",
            tool: "billing_operations_write",
            args: json!({"operation": "patch-customers-id", "path": {"id": CUSTOMER},
                "body": {"nickname": "Mari"}}),
        },
    ]
}

/// What one workload measured: per round, Kobana calls per call and server CPU per call (ms).
struct Measured {
    calls: Vec<f64>,
    cpu_ms: Vec<f64>,
    wall_ms: Vec<f64>,
}

/// The calls the fake received since they were last cleared.
fn fake_calls(bench: &Bench, fake: SocketAddr) -> Result<usize, String> {
    let request = http1::request("GET", fake, "/__fake/calls", &[], b"");
    let (_, calls) = bench.send(fake, &request)?;
    let calls: Value = serde_json::from_slice(&calls).unwrap_or(Value::Null);
    Ok(calls.as_array().map_or(0, Vec::len))
}

fn measure(
    bench: &Bench,
    fake: SocketAddr,
    ours: SocketAddr,
    pid: u32,
    workload: &Workload,
) -> Result<Measured, String> {
    let (rounds, per_round) = bench.counts.generic;
    let request = http1::request(
        "POST",
        ours,
        "/mcp",
        &http1::mcp_headers(&bench.token, "tools/call", Some(workload.tool), true),
        &http1::mcp_body(
            1,
            "tools/call",
            json!({"name": workload.tool, "arguments": workload.args}),
            true,
        ),
    );
    let mut measured = Measured {
        calls: Vec::new(),
        cpu_ms: Vec::new(),
        wall_ms: Vec::new(),
    };
    for _ in 0..rounds {
        bench.control(fake, "DELETE", "/__fake/calls", None)?;
        let cpu_before = procs::cpu_time(pid)?;
        let t0 = Instant::now();
        for _ in 0..per_round {
            let (status, body) = bench.send(ours, &request)?;
            if status != 200 || !loadgen::answer_ok(&body, true) {
                return Err(format!(
                    "{}: answer {status}: {}",
                    workload.tool,
                    String::from_utf8_lossy(&body[..body.len().min(300)])
                ));
            }
        }
        let wall = t0.elapsed().as_secs_f64() * 1e3;
        let cpu = procs::cpu_time(pid)?.saturating_sub(cpu_before);
        let n = per_round as f64;
        measured.calls.push(fake_calls(bench, fake)? as f64 / n);
        measured.cpu_ms.push(cpu.as_secs_f64() * 1e3 / n);
        measured.wall_ms.push(wall / n);
    }
    Ok(measured)
}

/// The embedded facts' size, and the median time to parse them (µs).
fn facts_figures(bench: &Bench) -> (usize, f64, usize) {
    use kobana_mcp::catalog::operations::facts::{Facts, OPERATIONS_TXT};
    let reps = if bench.opts.smoke { 5 } else { 101 };
    let mut times = Vec::with_capacity(reps);
    let mut operations = 0;
    for _ in 0..reps {
        let t0 = Instant::now();
        let facts = Facts::parse(OPERATIONS_TXT);
        times.push(t0.elapsed().as_secs_f64() * 1e6);
        operations = facts.operations().len();
    }
    (OPERATIONS_TXT.len(), stats::median(&times), operations)
}

/// Section 10.
pub fn generic(
    bench: &Bench,
    fake: SocketAddr,
    ours: SocketAddr,
    pid: u32,
) -> Result<Report, String> {
    let mut report = Report::default();
    let results: Vec<(Workload, Measured)> = workloads()
        .into_iter()
        .map(|w| measure(bench, fake, ours, pid, &w).map(|m| (w, m)))
        .collect::<Result<_, _>>()?;
    let median = stats::median;
    let (rounds, per_round) = bench.counts.generic;
    for pair in results.chunks(2) {
        let [(curated, c), (generic, g)] = pair else {
            continue;
        };
        let calls = median(&g.calls);
        report.row(
            "10",
            format!(
                "{}: Kobana calls per call · server CPU per call (median of {rounds} rounds × {per_round})",
                generic.label
            ),
            format!("{calls:.2} calls · {}", ms(median(&g.cpu_ms))),
            format!(
                "{}: {:.2} calls · {}",
                curated.label,
                median(&c.calls),
                ms(median(&c.cpu_ms))
            ),
            ratio(median(&g.cpu_ms) / median(&c.cpu_ms).max(1e-9)),
            "≤ 1 call (a one-call operation)",
            Verdict::of(calls <= 1.0),
        );
        report.details.push(format!(
            "Generic vs curated wall time per call (sequential, fresh connections): {} {} · {} {}",
            generic.tool,
            ms(median(&g.wall_ms)),
            curated.tool,
            ms(median(&c.wall_ms))
        ));
    }
    let (bytes, parse_us, operations) = facts_figures(bench);
    report.row(
        "10",
        format!(
            "Operation facts (`shared/data/operations.txt`, {operations} operations): size · parse time, once per process on the first generic call (median, harness process)"
        ),
        format!("{} B · {}", thousands(bytes as f64), us(parse_us)),
        String::new(),
        String::new(),
        "info",
        Verdict::Info,
    );
    Ok(report)
}
