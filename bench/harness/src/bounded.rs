//! Section 8: bounded work (#25). The figures behind two targets of the bounded-work review,
//! measured here and nowhere else (tests only guard them with generous debug margins):
//!
//! - **BW-1**: the 980 KB request (`billing_invoices_list` with `fields` naming one field
//!   75,000 times) costs at most 50 ms of server CPU (since HD-1, the front's byte scan refuses
//!   it unread: 75,000 values are past its 10,000);
//! - **RP-1** ([`crate::bodies`]): any request body up to the limit, under any bearer, costs at
//!   most 32 MiB of peak RSS growth and 100 ms of CPU, and four at once at most 64 MiB;
//! - **BW-8**: a 400 MB body from Kobana — an error body on a PDF read, an NF-e XML, a JSON
//!   answer chunked or announced, a PDF — grows the server's peak RSS by at most 32 MiB.
//!
//! Our server runs as its own process (pinned like every measured server) against the
//! hostile Kobana of the tests (`fake_kobana::hostile`) on a thread of the harness. CPU is
//! the server's user + system time from `/proc/PID/stat` (10 ms ticks, so BW-1 is timed in
//! batches); peak RSS growth is `VmHWM` after the request minus `VmRSS` before it, with the
//! high-water mark reset through `/proc/PID/clear_refs` first.

use fake_kobana::hostile::{Answer, HUGE, Upstream, invoice_page, json_answer, n1_arguments};
use kobana_mcp::catalog::ERROR_META_KEY;

use super::*;

const NFE: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
/// BW-1's target: server CPU for the 980 KB request.
const N1_MAX_CPU_MS: f64 = 50.0;
/// BW-8's target: peak RSS growth for a 400 MB body.
const N5_MAX_RSS_GROWTH_BYTES: f64 = 32.0 * 1024.0 * 1024.0;

/// What one measured step cost the server.
pub(crate) struct Cost {
    pub(crate) cpu_ms: f64,
    pub(crate) rss_growth_bytes: f64,
}

/// Runs `step` against the server `pid` and answers its result and cost.
pub(crate) fn measure<T>(
    pid: u32,
    step: impl FnOnce() -> Result<T, String>,
) -> Result<(T, Cost), String> {
    // Resets VmHWM to the current RSS (writing 5; needs only to own the process).
    let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
    let (rss_before, _) = procs::memory_kib(pid)?;
    let cpu_before = procs::cpu_time(pid)?;
    let out = step()?;
    // The answer is out; let the server finish the request (its line, its drops).
    std::thread::sleep(Duration::from_millis(100));
    let (_, hwm_after) = procs::memory_kib(pid)?;
    let cpu = procs::cpu_time(pid)? - cpu_before;
    Ok((
        out,
        Cost {
            cpu_ms: cpu.as_secs_f64() * 1e3,
            rss_growth_bytes: hwm_after.saturating_sub(rss_before) as f64 * 1024.0,
        },
    ))
}

/// The hostile Kobana on a thread of its own with its own runtime, alive until the harness
/// ends.
fn spawn_upstream() -> Result<Upstream, String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("hostile-upstream".into())
        .spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let _ = tx.send(Upstream::start().await);
                std::future::pending::<()>().await;
            });
        })
        .map_err(|e| format!("hostile upstream thread: {e}"))?;
    rx.recv_timeout(Duration::from_secs(10))
        .map_err(|_| "the hostile upstream did not start".to_owned())
}

fn stream(status: u16, content_type: &'static str, declared: Option<u64>) -> Answer {
    Answer::Stream {
        status,
        content_type,
        bytes: HUGE,
        declared,
    }
}

/// One BW-8 case: what Kobana sends, the request, and whether the answer is the right refusal.
struct Case {
    label: &'static str,
    route: &'static str,
    answer: Answer,
    method: &'static str,
    params: Value,
    /// Checks the answer (`Err`: the answer broke off, as a cut stream does).
    right: fn(Result<&Value, &str>) -> bool,
}

fn n5_cases() -> Vec<Case> {
    let pdf = json!({"uri": format!("kobana://billing/invoices/{INVOICE}/pdf")});
    let organization = json!({"name": "billing_organization_get", "arguments": {}});
    let too_large = |answer: Result<&Value, &str>| {
        answer.is_ok_and(|b| {
            b["result"]["_meta"][ERROR_META_KEY]["error"] == "KOBANA_ANSWER_TOO_LARGE"
        })
    };
    vec![
        Case {
            label: "error body (404) on a PDF read, chunked",
            route: "/v1/invoices/",
            answer: stream(404, "application/json", None),
            method: "resources/read",
            params: pdf.clone(),
            right: |a| a.is_ok_and(|b| b["error"]["code"] == -32002),
        },
        Case {
            label: "NF-e XML, chunked",
            route: "/v1/nfes/",
            answer: stream(200, "application/xml", None),
            method: "resources/read",
            params: json!({"uri": format!("kobana://billing/nfes/{NFE}/xml")}),
            right: |a| {
                a.is_ok_and(|b| {
                    b["error"]["message"]
                        .as_str()
                        .is_some_and(|m| m.contains("grande demais"))
                })
            },
        },
        Case {
            label: "JSON answer, chunked",
            route: "/v1/organization",
            answer: stream(200, "application/json", None),
            method: "tools/call",
            params: organization.clone(),
            right: too_large,
        },
        Case {
            label: "JSON answer, announced",
            route: "/v1/organization",
            answer: stream(200, "application/json", Some(HUGE)),
            method: "tools/call",
            params: organization,
            right: too_large,
        },
        Case {
            label: "PDF, chunked (cut mid-stream at 10 MiB)",
            route: "/v1/invoices/",
            answer: stream(200, "application/pdf", None),
            method: "resources/read",
            params: pdf,
            right: |a| a.is_err(),
        },
    ]
}

/// One era-2025 request on a fresh connection: the JSON answer, or how it broke off.
fn request(bench: &Bench, addr: SocketAddr, method: &str, params: Value) -> Result<Value, String> {
    let headers = http1::mcp_headers(&bench.token, method, None, false);
    let body = http1::mcp_body(1, method, params, false);
    let (status, answer) =
        bench.send(addr, &http1::request("POST", addr, "/mcp", &headers, &body))?;
    if status != 200 {
        return Err(format!("HTTP {status}"));
    }
    serde_json::from_slice(&answer).map_err(|e| format!("not JSON: {e}"))
}

/// BW-1: per-request server CPU of `arguments` as the median of `batches` batches of `per`.
fn n1_cpu(
    bench: &Bench,
    addr: SocketAddr,
    pid: u32,
    arguments: &Value,
    refused: bool,
) -> Result<(f64, f64), String> {
    let (batches, per) = bench.counts.bounded_batches;
    let params = json!({"name": "billing_invoices_list", "arguments": arguments});
    let mut per_request = Vec::new();
    let mut growth: f64 = 0.0;
    for _ in 0..batches {
        let ((), cost) = measure(pid, || {
            for _ in 0..per {
                let answer = request(bench, addr, "tools/call", params.clone());
                // Refused: the front's scan (400, -32600), before any parse.
                let right = match &answer {
                    Err(status) if refused => status == "HTTP 400",
                    Ok(answer) => {
                        answer["result"]["_meta"][ERROR_META_KEY]["error"] != "INVALID_ARGUMENTS"
                    }
                    Err(_) => false,
                };
                if !right {
                    return Err(format!("BW-1 answered {answer:.300?}"));
                }
            }
            Ok(())
        })?;
        per_request.push(cost.cpu_ms / per as f64);
        growth = growth.max(cost.rss_growth_bytes);
    }
    Ok((stats::median(&per_request), growth))
}

pub(crate) fn bounded(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let upstream = spawn_upstream()?;
    let kobana = http1::addr_of(&upstream.base)?;
    let (mut ours, addr) = bench.start_ours(kobana, "bounded")?;
    let pid = ours.pid();
    let page = invoice_page(100);
    upstream.route("GET", "/v1/invoices", move |_| {
        json_answer(200, page.clone())
    });
    // Warm-up: the HTTP client, the first connection, the first page.
    let one = json!({"per_page": 100, "fields": ["line_items"]});
    request(
        bench,
        addr,
        "tools/call",
        json!({"name": "billing_invoices_list", "arguments": one}),
    )?;
    let attack = n1_arguments(75_000);
    let attack_bytes = attack.to_string().len();
    let (base_cpu, _) = n1_cpu(bench, addr, pid, &one, false)?;
    let (cpu, growth) = n1_cpu(bench, addr, pid, &attack, true)?;
    let (batches, per) = bench.counts.bounded_batches;
    r.row(
        "8",
        format!("BW-1: the {} B request (`fields` naming one field 75,000 times): server CPU per request (batches: {batches} of {per}; median), refused unread by the front's scan", thousands(attack_bytes as f64)),
        ms(cpu),
        format!("one field: {}; peak RSS growth {}", ms(base_cpu), mb(growth)),
        "",
        format!("≤ {N1_MAX_CPU_MS} ms"),
        Verdict::of(cpu <= N1_MAX_CPU_MS),
    );
    let mut raw = serde_json::Map::new();
    raw.insert(
        "n1".into(),
        json!({"request_bytes": attack_bytes, "cpu_ms_per_request": cpu, "one_field_cpu_ms": base_cpu}),
    );
    for case in n5_cases() {
        let answer = case.answer.clone();
        upstream.route("GET", case.route, move |_| answer.clone());
        let mut cpu = Vec::new();
        let mut growth: f64 = 0.0;
        for _ in 0..bench.counts.bounded_reps {
            let (answer, cost) = measure(pid, || {
                Ok(request(bench, addr, case.method, case.params.clone()))
            })?;
            if !(case.right)(answer.as_ref().map_err(String::as_str)) {
                return Err(format!("BW-8 {}: wrong answer {answer:.300?}", case.label));
            }
            cpu.push(cost.cpu_ms);
            growth = growth.max(cost.rss_growth_bytes);
        }
        let median = stats::median(&cpu);
        r.row(
            "8",
            format!(
                "BW-8: a 400 MB {}: server peak RSS growth (requests: {}; largest)",
                case.label,
                cpu.len()
            ),
            mb(growth),
            format!("CPU per request {}", ms(median)),
            "",
            "≤ 32 MiB",
            Verdict::of(growth <= N5_MAX_RSS_GROWTH_BYTES),
        );
        raw.insert(
            case.label.into(),
            json!({"cpu_ms": cpu, "peak_rss_growth_bytes": growth}),
        );
    }
    raw.insert("rp1".into(), crate::bodies::rows(bench, kobana, &mut r)?);
    ours.check_alive()?;
    r.notes.push("Bounded work (8): our server alone on its CPU against the tests' hostile Kobana (`fake_kobana::hostile`) on the harness's CPU; BW-8's bodies are 400,000,000 B (chunked unless announced), of which the server reads no more than its limit. RP-1's request bodies are `fake_kobana::bodies` built against the server's own bounds (`MCP_MAX_BODY_BYTES`, 32 levels, 10,000 values and names), sent with `Authorization: Bearer x`, each on a fresh connection. The tests (`hostile_upstream.rs`, `hostile_replays.rs`, `hostile_bodies.rs`) assert the same attacks with generous debug-build margins: they guard against regressions, these rows are the proof.".into());
    r.raw.insert("bounded".into(), Value::Object(raw));
    Ok(r)
}
