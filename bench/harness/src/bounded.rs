//! Section 8: bounded work (#25, #35), measured here and nowhere else (the tests
//! `hostile_upstream.rs`, `hostile_replays.rs` and `hostile_bodies.rs` guard the same attacks
//! with a debug build's margins):
//!
//! - **BW-1**: the ~975 KB request (`fields` naming one field 75,000 times) costs ≤ 50 ms of
//!   server CPU (the front's byte scan refuses it unread);
//! - **BW-8**: a 400 MB body from Kobana grows the server's peak RSS by ≤ 32 MiB;
//! - **RP-1** (HD-1): any request body up to the limit, under any bearer (`Bearer x`), costs
//!   ≤ 32 MiB of peak RSS growth and ≤ 100 ms of CPU, four at once ≤ 64 MiB.
//!
//! Our server runs pinned against the tests' hostile Kobana (`fake_kobana::hostile`). CPU is
//! `/proc/PID/stat`'s (10 ms ticks: timed over batches); peak RSS growth as in
//! [`procs::cost`].

use fake_kobana::bodies::{Body, Bounds, bodies};
use fake_kobana::hostile::{Answer, HUGE, Upstream, invoice_page, json_answer, n1_arguments};
use kobana_mcp::config::DEFAULT_MAX_BODY_BYTES;
use kobana_mcp::http::{MAX_BODY_DEPTH, MAX_BODY_NODES};

use super::*;

const MIB: f64 = 1024.0 * 1024.0;

/// An era-2025 MCP answer's text on a fresh connection, or how it broke off.
fn answer(bench: &Bench, addr: SocketAddr, method: &str, params: Value) -> Result<String, String> {
    match bench.send(
        addr,
        &http1::mcp_post(addr, &bench.token, method, params, false),
    )? {
        (200, body) => Ok(String::from_utf8_lossy(&body).into_owned()),
        (status, _) => Err(format!("HTTP {status}")),
    }
}

/// CPU per request (median over batches) and the largest peak RSS growth of `send`.
fn batches(
    bench: &Bench,
    pid: u32,
    send: impl Fn() -> Result<(), String>,
) -> Result<(f64, f64), String> {
    let (count, per) = bench.counts.batches;
    let (mut cpu, mut growth) = (Vec::new(), 0f64);
    for _ in 0..count {
        let ((), cpu_ms, grew) = procs::cost(pid, || (0..per).try_for_each(|_| send()))?;
        cpu.push(cpu_ms / per as f64);
        growth = growth.max(grew);
    }
    Ok((stats::median(&cpu), growth))
}

/// A BW-8 body: label, route, what Kobana sends, the request (method, params), and what the
/// answer must hold (`None`: it breaks off, as a cut stream does).
type Case = (
    &'static str,
    &'static str,
    Answer,
    &'static str,
    Value,
    Option<&'static str>,
);

fn bw8_cases() -> Vec<Case> {
    let stream = |status, content_type, declared| Answer::Stream {
        status,
        content_type,
        bytes: HUGE,
        declared,
    };
    let pdf = json!({"uri": format!("kobana://billing/invoices/{INVOICE}/pdf")});
    let xml = json!({"uri": "kobana://billing/nfes/2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f/xml"});
    let organization = json!({"name": "billing_organization_get", "arguments": {}});
    let too_large = Some("KOBANA_ANSWER_TOO_LARGE");
    vec![
        (
            "error body (404) on a PDF read, chunked",
            "/v1/invoices/",
            stream(404, "application/json", None),
            "resources/read",
            pdf.clone(),
            Some(r#""code":-32002"#),
        ),
        (
            "NF-e XML, chunked",
            "/v1/nfes/",
            stream(200, "application/xml", None),
            "resources/read",
            xml,
            Some("grande demais"),
        ),
        (
            "JSON answer, chunked",
            "/v1/organization",
            stream(200, "application/json", None),
            "tools/call",
            organization.clone(),
            too_large,
        ),
        (
            "JSON answer, announced",
            "/v1/organization",
            stream(200, "application/json", Some(HUGE)),
            "tools/call",
            organization,
            too_large,
        ),
        (
            "PDF, chunked (cut mid-stream at 10 MiB)",
            "/v1/invoices/",
            stream(200, "application/pdf", None),
            "resources/read",
            pdf,
            None,
        ),
    ]
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let upstream = bench.svc.block_on(Upstream::start());
    let kobana = http1::addr_of(&upstream.base)?;
    let page = invoice_page(100);
    upstream.route("GET", "/v1/invoices", move |_| {
        json_answer(200, page.clone())
    });
    let (mut ours, addr) = bench.start_ours(kobana, "bounded")?;
    let pid = ours.pid();
    answer(
        bench,
        addr,
        "tools/call",
        json!({"name": "billing_invoices_list", "arguments": {"per_page": 100}}),
    )?;
    let attack = json!({"name": "billing_invoices_list", "arguments": n1_arguments(75_000)});
    let (cpu, growth) = batches(bench, pid, || {
        match answer(bench, addr, "tools/call", attack.clone()) {
            Err(status) if status == "HTTP 400" => Ok(()),
            other => Err(format!("BW-1 answered {other:.300?}")),
        }
    })?;
    let (count, per) = bench.counts.batches;
    r.row(8, cells![
        format!("BW-1: the {} B request (`fields` naming one field 75,000 times), refused unread: server CPU per request (median of {count} batches of {per})", thousands(attack.to_string().len() as f64)),
        ms(cpu), format!("peak RSS growth {}", mb(growth)), "", "≤ 50 ms (#25)",
    ], Some(cpu <= 50.0));
    for (label, route, body, method, params, right) in bw8_cases() {
        upstream.route("GET", route, move |_| body.clone());
        let (mut cpu, mut growth) = (Vec::new(), 0f64);
        for _ in 0..bench.counts.reps {
            let (got, cpu_ms, grew) =
                procs::cost(pid, || Ok(answer(bench, addr, method, params.clone())))?;
            let holds = match (&got, right) {
                (Ok(text), Some(marker)) => text.contains(marker),
                (got, None) => got.is_err(),
                _ => false,
            };
            if !holds {
                return Err(format!("BW-8 {label}: wrong answer {got:.300?}"));
            }
            growth = growth.max(grew);
            cpu.push(cpu_ms);
        }
        r.row(
            8,
            cells![
                format!(
                    "BW-8: a 400 MB {label}: server peak RSS growth (largest of {})",
                    cpu.len()
                ),
                mb(growth),
                format!("CPU per request {}", ms(stats::median(&cpu))),
                "",
                "≤ 32 MiB (#25)",
            ],
            Some(growth <= 32.0 * MIB),
        );
    }
    ours.check_alive()?;
    rp1(bench, kobana, &mut r)?;
    r.notes.push("Bounded work (8): BW-8's bodies are 400,000,000 B (chunked unless announced), of which the server reads no more than its limit. RP-1's request bodies are `fake_kobana::bodies`, built against the server's own bounds (`MCP_MAX_BODY_BYTES`, 32 levels, 10,000 values and names), each sent to a fresh server.".into());
    Ok(r)
}

/// Whether `status` is the answer `body` must get: the scan's 400, a notification's 202, or
/// a JSON-RPC answer.
fn right(body: &Body, status: u16) -> bool {
    status
        == if body.over_bounds {
            400
        } else if body.name.contains("notification") {
            202
        } else {
            200
        }
}

/// RP-1: each body against a fresh server (no memory an earlier request freed hides its
/// cost): the first request's CPU and growth, then batches; then four of the heaviest at once.
fn rp1(bench: &Bench, kobana: SocketAddr, r: &mut Report) -> Result<(), String> {
    let all = bodies(Bounds {
        bytes: DEFAULT_MAX_BODY_BYTES,
        depth: MAX_BODY_DEPTH,
        nodes: MAX_BODY_NODES,
    });
    let post = |addr, body: &Body| {
        http1::request(
            "POST",
            addr,
            "/mcp",
            &http1::mcp_headers("x", "tools/call", None, false),
            &body.bytes,
        )
    };
    for body in &all {
        let (mut server, addr) = bench.start_ours(kobana, "rp1")?;
        let request = post(addr, body);
        let send = || match bench.send(addr, &request)? {
            (status, _) if right(body, status) => Ok(()),
            (status, answer) => Err(format!(
                "RP-1 {}: HTTP {status} {:.300}",
                body.name,
                String::from_utf8_lossy(&answer)
            )),
        };
        let ((), first_cpu, first_growth) = procs::cost(server.pid(), send)?;
        let (cpu, growth) = batches(bench, server.pid(), send)?;
        let growth = growth.max(first_growth);
        server.check_alive()?;
        r.row(8, cells![
            format!("RP-1: {} ({} B, `Bearer x`), a fresh server: peak RSS growth · CPU of the first request · CPU per request after (median)", body.name, thousands(body.bytes.len() as f64)),
            format!("{} · {} · {}", mb(growth), ms(first_cpu), ms(cpu)),
            if body.over_bounds { "refused by the scan" } else { "read" }, "", "≤ 32 MiB · ≤ 100 ms (#35)",
        ], Some(first_cpu.max(cpu) <= 100.0 && growth <= 32.0 * MIB));
    }
    let heavy = [
        "nested objects",
        "one repeated member name",
        "many long strings",
    ];
    let heaviest: Vec<&Body> = all
        .iter()
        .filter(|b| b.over_bounds || heavy.contains(&b.name))
        .collect();
    let (mut server, addr) = bench.start_ours(kobana, "rp1-four")?;
    let requests: Vec<Vec<u8>> = heaviest.iter().map(|b| post(addr, b)).collect();
    let mut growth = 0f64;
    for _ in 0..bench.counts.reps {
        let (answers, _, grew) = procs::cost(server.pid(), || {
            Ok(bench.block_on(async {
                let sent: Vec<_> = requests
                    .iter()
                    .cloned()
                    .map(|q| tokio::spawn(async move { http1::once(addr, &q).await }))
                    .collect();
                let mut answers = Vec::new();
                for one in sent {
                    answers.push(
                        one.await
                            .map_err(|e| e.to_string())
                            .and_then(|a| a.map_err(|e| e.to_string())),
                    );
                }
                answers
            }))
        })?;
        for (body, answer) in heaviest.iter().zip(answers) {
            let status = answer.map_err(|e| format!("RP-1 four at once: {e}"))?.0;
            if !right(body, status) {
                return Err(format!("RP-1 four at once, {}: HTTP {status}", body.name));
            }
        }
        growth = growth.max(grew);
    }
    server.check_alive()?;
    let names: Vec<&str> = heaviest.iter().map(|b| b.name).collect();
    r.row(
        8,
        cells![
            format!(
                "RP-1: four at once ({}), a fresh server: peak RSS growth (largest of {} rounds)",
                names.join(", "),
                bench.counts.reps
            ),
            mb(growth),
            "",
            "",
            "≤ 64 MiB (#35)",
        ],
        Some(growth <= 64.0 * MIB),
    );
    Ok(())
}
