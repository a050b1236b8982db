//! Section 1: cold start under the Lambda Runtime API emulator.

use super::*;

pub(crate) fn cold(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let body = String::from_utf8(http1::mcp_body(1, "tools/list", json!({}), false)).expect("utf8");
    let event = emulator::apigw_event(&bench.token, &body);
    let ours_env = vec![
        ("MCP_ALLOWED_HOSTS".to_owned(), "*".to_owned()),
        ("KOBANA_API_URL".to_owned(), "http://127.0.0.1:9".to_owned()),
    ];
    // A first event that needs Kobana: the client's first-use set-up lands in the cold start.
    let (fake, fake_addr) = bench.start_fake()?;
    let call_body = String::from_utf8(http1::mcp_body(
        1,
        "tools/call",
        json!({"name": "billing_customers_list", "arguments": {}}),
        false,
    ))
    .expect("utf8");
    let call_event = emulator::apigw_event(&bench.token, &call_body);
    let call_env = vec![
        ("MCP_ALLOWED_HOSTS".to_owned(), "*".to_owned()),
        ("KOBANA_API_URL".to_owned(), format!("http://{fake_addr}")),
    ];
    let mut ours_runs = Vec::new();
    let mut hello_runs = Vec::new();
    let mut call_runs = Vec::new();
    // One unrecorded start each (page cache), then alternate.
    for i in 0..bench.counts.cold_runs + 1 {
        let o = emulator::cold_start(
            &bench.opts.kobana_bin,
            &ours_env,
            &event,
            "\"tools\"",
            bench.cpu(),
        )?;
        let h = emulator::cold_start(&bench.opts.hello_bin, &[], &event, "hello", bench.cpu())?;
        let c = emulator::cold_start(
            &bench.opts.kobana_bin,
            &call_env,
            &call_event,
            "\"total\"",
            bench.cpu(),
        )?;
        if i > 0 {
            ours_runs.push(o);
            hello_runs.push(h);
            call_runs.push(c);
        }
    }
    drop(fake);
    let field = |runs: &[emulator::ColdRun], f: fn(&emulator::ColdRun) -> f64| {
        stats::median(&runs.iter().map(f).collect::<Vec<_>>())
    };
    let (mo, mh) = (
        field(&ours_runs, |c| c.elapsed_ms),
        field(&hello_runs, |c| c.elapsed_ms),
    );
    let q = mo / mh;
    let mode = ours_runs
        .first()
        .map(|c| c.mode.clone())
        .unwrap_or_default();
    r.row(
        "1",
        format!("Cold start: process start → first event answered ({mode}) under the Runtime API emulator, median of {}", ours_runs.len()),
        ms(mo),
        format!("hello-world lambda_http {}", ms(mh)),
        ratio(q),
        "≤ 1.5×",
        Verdict::of(q <= 1.5),
    );
    let mc = field(&call_runs, |c| c.elapsed_ms);
    r.row(
        "1",
        "Cold start whose first event is `tools/call billing_customers_list` (1 call to the fake Kobana, which sets up the Kobana HTTP client on first use)",
        ms(mc),
        format!("hello-world lambda_http {}", ms(mh)),
        ratio(mc / mh),
        "info",
        Verdict::Info,
    );
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let (so, sh) = (size(&bench.opts.kobana_bin), size(&bench.opts.hello_bin));
    r.row(
        "1",
        "Release binary size, stripped (`strip = true`), host x86_64",
        format!("{} ({} B)", mb(so as f64), thousands(so as f64)),
        format!("hello-world {}", mb(sh as f64)),
        "",
        "≤ 12 MB",
        Verdict::of((so as f64) <= 12e6),
    );
    if let Some(arm64) = &bench.opts.arm64_bin {
        let sa = size(arm64);
        if sa == 0 {
            return Err(format!("--arm64-bin {}: no such binary", arm64.display()));
        }
        r.row(
            "1",
            "Release binary size, stripped, arm64 (`cargo lambda build --release --arm64`, what `sam build` deploys)",
            format!("{} ({} B)", mb(sa as f64), thousands(sa as f64)),
            "",
            "",
            "≤ 12 MB",
            Verdict::of((sa as f64) <= 12e6),
        );
    }
    let (ro, rh) = (
        field(&ours_runs, |c| c.rss_kib as f64),
        field(&hello_runs, |c| c.rss_kib as f64),
    );
    r.row(
        "1",
        "RSS after the first event (VmRSS, median)",
        mb(ro * 1024.0),
        format!("hello-world {}", mb(rh * 1024.0)),
        ratio(ro / rh),
        "info",
        Verdict::Info,
    );
    // Where a fresh process spends its start-up (same library code, in this binary).
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut probes: Vec<Value> = Vec::new();
    for _ in 0..bench.counts.cold_runs.max(3) {
        let mut command = std::process::Command::new(&me);
        command
            .arg("probe-startup")
            .env_clear()
            .envs(procs::base_env());
        procs::pinned(&mut command, bench.cpu());
        let output = command
            .output()
            .map_err(|e| format!("probe-startup: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "probe-startup failed: {}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        probes.push(
            serde_json::from_slice(&output.stdout).map_err(|e| format!("probe-startup: {e}"))?,
        );
    }
    let probe = |k: &str| {
        stats::median(
            &probes
                .iter()
                .filter_map(|p| p[k].as_f64())
                .collect::<Vec<_>>(),
        )
    };
    r.row(
        "1",
        "Start-up costs in a fresh process (median, in-process): `App::new` · first `tools/list` · second · first `tools/call` (canned upstream) · second",
        format!(
            "{} · {} · {} · {} · {}",
            ms(probe("app_new_ms")),
            ms(probe("first_tools_list_ms")),
            ms(probe("second_tools_list_ms")),
            ms(probe("first_tools_call_ms")),
            ms(probe("second_tools_call_ms"))
        ),
        "",
        "",
        "info",
        Verdict::Info,
    );
    r.notes.push(format!(
        "Cold start: the bench's own Runtime API emulator (TCP_NODELAY, TCP_QUICKACK re-armed before every read) hands one API Gateway REST event (`tools/list`) to a fresh process pinned to CPU {SERVER_CPU}; the clock runs from just before fork/exec to the last byte of the function's answer. One unrecorded start of each binary first (page cache), then they alternate. The hello world is `bench/hello-lambda` (lambda_http with the same features, `run_with_streaming_response`, same release profile). The measured binary is built as `sam build` builds it (default features: no `demo`); `bench/run.sh --arm64` also builds and sizes the arm64 artifact."
    ));
    r.raw.insert("cold".into(), json!({"ours": ours_runs, "hello": hello_runs, "ours_tools_call": call_runs, "ours_bytes": so, "hello_bytes": sh, "startup_probes": probes}));
    Ok(r)
}
