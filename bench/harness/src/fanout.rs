//! Section 4: fan-out under 100 ms of injected upstream latency.

use super::*;

pub(crate) fn fanout(bench: &Bench, fake: SocketAddr, ours: SocketAddr) -> Result<Report, String> {
    let mut r = Report::default();
    let prompt = http1::request(
        "POST",
        ours,
        "/mcp",
        &http1::mcp_headers(
            &bench.token,
            "prompts/get",
            Some("review_pending_nfes"),
            true,
        ),
        &http1::mcp_body(
            1,
            "prompts/get",
            json!({"name": "review_pending_nfes", "arguments": {}}),
            true,
        ),
    );
    let tool = http1::request(
        "POST",
        ours,
        "/mcp",
        &http1::mcp_headers(
            &bench.token,
            "tools/call",
            Some("billing_organization_get"),
            true,
        ),
        &http1::mcp_body(
            1,
            "tools/call",
            json!({"name": "billing_organization_get", "arguments": {}}),
            true,
        ),
    );
    bench.control(fake, "DELETE", "/__fake/faults", None)?;
    bench.control(
        fake,
        "POST",
        "/__fake/faults",
        Some(json!({"method": null, "path_prefix": "/v1/", "kind": {"delay": {"ms": 100}}, "times": null})),
    )?;
    let result = (|| -> Result<Report, String> {
        // How many upstream calls the prompt makes.
        bench.control(fake, "DELETE", "/__fake/calls", None)?;
        let (status, body) = bench.send(ours, &prompt)?;
        let text = String::from_utf8_lossy(&body);
        if status != 200 || !text.contains("\"messages\"") {
            return Err(format!(
                "review_pending_nfes answered {status}: {}",
                text.chars().take(300).collect::<String>()
            ));
        }
        let calls_request = http1::request("GET", fake, "/__fake/calls", &[], b"");
        let (_, calls) = bench.send(fake, &calls_request)?;
        let calls: Value = serde_json::from_slice(&calls).unwrap_or(Value::Null);
        let upstream_calls = calls.as_array().map_or(0, Vec::len);

        let mut t_prompt = Vec::new();
        let mut t_tool = Vec::new();
        bench.block_on(async {
            let mut conn = http1::Conn::connect(ours)
                .await
                .map_err(|e| e.to_string())?;
            for _ in 0..bench.counts.fanout_reps {
                for (req, out, tool_call) in
                    [(&prompt, &mut t_prompt, false), (&tool, &mut t_tool, true)]
                {
                    let t0 = Instant::now();
                    let status = conn.send(req, true).await.map_err(|e| e.to_string())?;
                    let dt = t0.elapsed().as_secs_f64() * 1e3;
                    if status != 200 || !loadgen::answer_ok(&conn.body, tool_call) {
                        return Err(format!(
                            "fan-out: answer {status}: {}",
                            String::from_utf8_lossy(&conn.body[..conn.body.len().min(300)])
                        ));
                    }
                    out.push(dt);
                }
            }
            Ok::<_, String>(())
        })?;
        let (mp, mt) = (stats::median(&t_prompt), stats::median(&t_tool));
        let q = mp / mt;
        r.row(
            "4",
            format!("Fan-out, 100 ms on every upstream call: prompt `review_pending_nfes` ({upstream_calls} upstream calls) vs `billing_organization_get` (1 call)"),
            ms(mp),
            ms(mt),
            ratio(q),
            "≤ 1.3×",
            Verdict::of(q <= 1.3),
        );
        r.raw.insert(
            "fanout".into(),
            json!({"prompt_ms": t_prompt, "tool_ms": t_tool, "upstream_calls": upstream_calls}),
        );
        Ok(r)
    })();
    bench.control(fake, "DELETE", "/__fake/faults", None)?;
    result
}
