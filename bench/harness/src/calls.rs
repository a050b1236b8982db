//! Sections on the running server: 6, context cost (`tools/list` ≤ 40 KB, #32); 4, fan-out
//! (a prompt that reads two lists ≤ 1.3× one call, #9); 10, the generic tools beside the
//! curated ones (Kobana calls per call ≤ 2, 1 for a one-call operation, and CPU, #32).

use fake_kobana::{FakeKobana, Fault, FaultKind};
use kobana_mcp::catalog::MAX_TOOLS_LIST_BYTES;

use super::*;

/// Section 6: the `tools/list` answer's bytes in both eras.
pub fn context(bench: &Bench, ours: SocketAddr) -> Result<Report, String> {
    let mut r = Report::default();
    let mut sizes = Vec::new();
    for modern in [false, true] {
        let (status, body, bytes) = bench.mcp(ours, "tools/list", json!({}), modern)?;
        let tools = body["result"]["tools"].as_array().map_or(0, Vec::len);
        if status != 200 || tools == 0 {
            return Err(format!("tools/list: {status} {body:.300}"));
        }
        sizes.push((tools, bytes, body.to_string().chars().count() / 4));
    }
    let [(tools, legacy, tokens), (_, modern, _)] = sizes[..] else {
        unreachable!("two eras")
    };
    r.row(6, cells![
        format!("`tools/list`, all {tools} tools: the JSON-RPC answer, era 2025 · era 2026 (tokens ≈ chars/4)"),
        format!("{} B · {} B (≈{} tokens)", thousands(legacy as f64), thousands(modern as f64), thousands(tokens as f64)),
        "", "",
        format!("≤ {} B (40 KB; #32)", thousands(MAX_TOOLS_LIST_BYTES as f64)),
    ], Some(legacy.max(modern) <= MAX_TOOLS_LIST_BYTES));
    Ok(r)
}

/// Section 4: with 100 ms on every `/v1/` call of the fake, `prompts/get review_pending_nfes`
/// against `billing_organization_get` (1 call), once the instance knows the names (three
/// prompts first), alternating on one keep-alive connection.
pub fn fanout(bench: &Bench, fake: &FakeKobana, ours: SocketAddr) -> Result<Report, String> {
    let prompt = http1::mcp_post(
        ours,
        &bench.token,
        "prompts/get",
        json!({"name": "review_pending_nfes", "arguments": {}}),
        true,
    );
    let tool = http1::mcp_post(
        ours,
        &bench.token,
        "tools/call",
        json!({"name": "billing_organization_get", "arguments": {}}),
        true,
    );
    fake.clear_faults();
    let delay = FaultKind::Delay { ms: 100 };
    fake.inject(Fault {
        method: None,
        path_prefix: "/v1/".into(),
        kind: delay,
        times: None,
    });
    let timed = || -> Result<(usize, Vec<f64>, Vec<f64>), String> {
        for _ in 0..3 {
            bench.checked(ours, &prompt, false)?;
        }
        fake.clear_calls();
        bench.checked(ours, &prompt, false)?;
        let calls = fake.calls().len();
        let (mut prompt_ms, mut tool_ms) = (Vec::new(), Vec::new());
        bench.block_on(async {
            let mut conn = http1::Conn::connect(ours)
                .await
                .map_err(|e| e.to_string())?;
            for _ in 0..bench.counts.fanout_reps {
                for (request, times, tool_call) in [
                    (&prompt, &mut prompt_ms, false),
                    (&tool, &mut tool_ms, true),
                ] {
                    let t0 = Instant::now();
                    let status = conn.send(request, true).await.map_err(|e| e.to_string())?;
                    if status != 200 || !http1::answer_ok(&conn.body, tool_call) {
                        return Err(format!("fan-out: answer {status}"));
                    }
                    times.push(t0.elapsed().as_secs_f64() * 1e3);
                }
            }
            Ok::<_, String>(())
        })?;
        Ok((calls, prompt_ms, tool_ms))
    };
    let measured = timed();
    fake.clear_faults();
    let (calls, prompt_ms, tool_ms) = measured?;
    let (p, t) = (stats::median(&prompt_ms), stats::median(&tool_ms));
    let mut r = Report::default();
    r.row(4, cells![
        format!("Fan-out, 100 ms on every Kobana call, names known: prompt `review_pending_nfes` ({calls} Kobana calls) vs `billing_organization_get` (1 call), median of {}", prompt_ms.len()),
        ms(p), ms(t), ratio(p / t), "≤ 1.3× (#9)",
    ], Some(p / t <= 1.3));
    Ok(r)
}

/// Section 10: per call, the Kobana calls (the fake's count) and the server's CPU, medians of
/// rounds; a generic read and write, each beside its curated twin.
pub fn generic(
    bench: &Bench,
    fake: &FakeKobana,
    ours: SocketAddr,
    pid: u32,
) -> Result<Report, String> {
    const CUSTOMER: &str = "23b8c1e9-3924-46de-beb1-3b9046685257";
    let update = json!({"id": CUSTOMER, "nickname": "Mari"});
    let patch = json!({"operation": "patch-customers-id", "path": {"id": CUSTOMER}, "body": {"nickname": "Mari"}});
    let pairs = [
        (
            ("billing_customers_list", json!({})),
            (
                "billing_operations_read",
                json!({"operation": "get-customers"}),
            ),
        ),
        (
            ("billing_customers_update", update),
            ("billing_operations_write", patch),
        ),
    ];
    let (rounds, per_round) = bench.counts.generic;
    let measure = |(tool, args): &(&str, Value)| -> Result<(f64, f64), String> {
        let request = http1::mcp_post(
            ours,
            &bench.token,
            "tools/call",
            json!({"name": tool, "arguments": args}),
            true,
        );
        let (mut calls, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            fake.clear_calls();
            let ((), cpu_ms, _) = procs::cost(pid, || {
                (0..per_round).try_for_each(|_| bench.checked(ours, &request, true).map(drop))
            })?;
            calls.push(fake.calls().len() as f64 / per_round as f64);
            cpu.push(cpu_ms / per_round as f64);
        }
        Ok((stats::median(&calls), stats::median(&cpu)))
    };
    let mut r = Report::default();
    for (curated, generic) in &pairs {
        let ((c_calls, c_cpu), (g_calls, g_cpu)) = (measure(curated)?, measure(generic)?);
        r.row(10, cells![
            format!("`{}` {}: Kobana calls · server CPU per call (median of {rounds} rounds × {per_round})", generic.0, generic.1["operation"].as_str().unwrap_or_default()),
            format!("{g_calls:.2} · {}", ms(g_cpu)),
            format!("`{}`: {c_calls:.2} · {}", curated.0, ms(c_cpu)),
            ratio(g_cpu / c_cpu.max(1e-9)),
            "≤ 2 calls, 1 for a one-call operation (#32)",
        ], Some(g_calls <= 1.0));
    }
    Ok(r)
}
