//! Section 5: PDF streaming.

use super::*;

pub(crate) fn pdf(bench: &Bench, fake: SocketAddr) -> Result<Report, String> {
    let mut r = Report::default();
    let limit = kobana_mcp::resources::MAX_DOCUMENT_BYTES;
    let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
    let direct = http1::request(
        "GET",
        fake,
        &format!("/v1/invoices/{INVOICE}/pdf"),
        &[
            ("authorization".into(), format!("Bearer {}", bench.token)),
            (
                "user-agent".into(),
                "kobana-bench/0 <suporte@kobana.com.br>".into(),
            ),
            ("accept".into(), "application/pdf".into()),
            // Asked of every request, bodyless ones too (docs/contract.md).
            ("content-type".into(), "application/json".into()),
        ],
        b"",
    );
    let mut raw = serde_json::Map::new();
    for (label, size) in [("1 MB", 1_000_000u64), ("9.9 MB", 9_900_000u64)] {
        if size > limit {
            return Err(format!("{size} bytes is over MAX_DOCUMENT_BYTES ({limit})"));
        }
        bench.control(
            fake,
            "POST",
            "/__fake/pdf-size",
            Some(json!({"id": INVOICE, "bytes": size})),
        )?;
        let (status, bytes) = bench.send(fake, &direct)?;
        if status != 200 || bytes.len() as u64 != size {
            return Err(format!("direct PDF fetch: {status}, {} bytes", bytes.len()));
        }
        let (ours, ours_addr) = bench.start_ours(fake, &format!("pdf-{size}"))?;
        let read = http1::request(
            "POST",
            ours_addr,
            "/mcp",
            &http1::mcp_headers(&bench.token, "resources/read", Some(&uri), true),
            &http1::mcp_body(1, "resources/read", json!({"uri": uri}), true),
        );
        // Warm-up without any PDF: a JSON resource and the tool list.
        let (s1, _, _) = bench.mcp(
            ours_addr,
            "resources/read",
            json!({"uri": format!("kobana://billing/invoices/{INVOICE}")}),
            Some(&format!("kobana://billing/invoices/{INVOICE}")),
            true,
            &[],
        )?;
        let (s2, _, _) = bench.mcp(ours_addr, "tools/list", json!({}), None, true, &[])?;
        if s1 != 200 || s2 != 200 {
            return Err(format!("warm-up answered {s1}/{s2}"));
        }
        // Two floors on the same CPU as our server: the document's bytes forwarded untouched,
        // and the same bytes as base64 inside a fixed JSON answer (see relay.rs).
        let cpu = bench.pin.then_some(SERVER_CPU);
        let prefix = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"contents":[{{"uri":"{uri}","mimeType":"application/pdf","blob":""#
        );
        let suffix = br#""}]}}"#.to_vec();
        let relay_raw = relay::start(relay::Mode::Raw, fake, direct.clone(), vec![], vec![], cpu)
            .map_err(|e| format!("raw forward: {e}"))?;
        let relay_b64 = relay::start(
            relay::Mode::Base64,
            fake,
            direct.clone(),
            prefix.into_bytes(),
            suffix,
            cpu,
        )
        .map_err(|e| format!("base64 relay: {e}"))?;
        let relay_request = |addr| http1::request("POST", addr, "/mcp", &[], b"{}");
        // In the order they run in each round; `true` where the answer is base64 in JSON.
        let contenders = [
            ("plain GET", fake, direct.clone(), false),
            (
                "raw forward",
                relay_raw.addr,
                relay_request(relay_raw.addr),
                false,
            ),
            (
                "base64 relay",
                relay_b64.addr,
                relay_request(relay_b64.addr),
                true,
            ),
            ("resources/read", ours_addr, read, true),
        ];
        let (_, hwm_before) = procs::memory_kib(ours.pid())?;
        let cpu_before = procs::cpu_time(ours.pid())?;
        let mut times: [Vec<f64>; 4] = Default::default();
        bench.block_on(async {
            let mut conns = Vec::new();
            for (name, addr, _, _) in &contenders {
                conns.push(
                    http1::Conn::connect(*addr)
                        .await
                        .map_err(|e| format!("{name}: {e}"))?,
                );
            }
            for round in 0..bench.counts.pdf_reps + 1 {
                // The first round is a warm-up (connection set-up, first PDF through each
                // server), and its answers are checked byte for byte against the fake's PDF.
                let keep = round == 0;
                for (k, ((name, _, request, blob), conn)) in
                    contenders.iter().zip(conns.iter_mut()).enumerate()
                {
                    let t0 = Instant::now();
                    let status = conn
                        .send(request, keep)
                        .await
                        .map_err(|e| format!("{name}: {e}"))?;
                    let took = t0.elapsed().as_secs_f64() * 1e3;
                    if status != 200 {
                        return Err(format!(
                            "{name}: {status}: {}",
                            String::from_utf8_lossy(&conn.body[..conn.body.len().min(300)])
                        ));
                    }
                    if keep {
                        let checked = if *blob {
                            check_blob(&conn.body, &bytes)
                        } else {
                            (conn.body == bytes)
                                .then_some(())
                                .ok_or_else(|| "the body differs from the fake's PDF".to_owned())
                        };
                        checked.map_err(|e| format!("{name}: {e}"))?;
                    } else {
                        times[k].push(took);
                    }
                }
            }
            Ok::<_, String>(())
        })?;
        let (rss_after, hwm_after) = procs::memory_kib(ours.pid())?;
        let cpu_per_read_ms = (procs::cpu_time(ours.pid())? - cpu_before).as_secs_f64() * 1e3
            / (bench.counts.pdf_reps + 1) as f64;
        drop(ours);
        drop((relay_raw, relay_b64));
        let growth_bytes = (hwm_after.saturating_sub(hwm_before)) as f64 * 1024.0;
        let [md, mraw, mr, mo] = times.each_ref().map(|t| stats::median(t));
        let q = mo / md;
        r.row(
            "5",
            format!("PDF {label} ({} B): `resources/read` wall time vs a plain GET of the same bytes from the fake", thousands(size as f64)),
            ms(mo),
            ms(md),
            ratio(q),
            "≤ 1.3×",
            Verdict::of(q <= 1.3),
        );
        r.row(
            "5",
            format!("PDF {label}: floor 1 — raw forward (one blocking thread on the server's CPU relays the bytes untouched) vs the plain GET"),
            ms(mraw),
            ms(md),
            ratio(mraw / md),
            "info",
            Verdict::Info,
        );
        r.row(
            "5",
            format!("PDF {label}: floor 2 — bare base64 relay (the same thread; base64 in a fixed JSON answer, same encoder, no MCP) vs the plain GET"),
            ms(mr),
            ms(md),
            ratio(mr / md),
            "info",
            Verdict::Info,
        );
        r.row(
            "5",
            format!("PDF {label}: our `resources/read` vs the bare base64 relay — what MCP and the runtime add"),
            ms(mo),
            ms(mr),
            ratio(mo / mr),
            "info",
            Verdict::Info,
        );
        r.row(
            "5",
            format!("PDF {label}: our server's CPU time per read (user+system, all threads)"),
            ms(cpu_per_read_ms),
            format!(
                "{} B in, {} B out",
                thousands(size as f64),
                thousands((size.div_ceil(3) * 4) as f64)
            ),
            "",
            "info",
            Verdict::Info,
        );
        r.row(
            "5",
            format!("PDF {label}: server peak RSS growth (VmHWM after − before the PDF reads)"),
            mb(growth_bytes),
            format!(
                "VmHWM {} → {}",
                mb(hwm_before as f64 * 1024.0),
                mb(hwm_after as f64 * 1024.0)
            ),
            "",
            "≤ 16 MB",
            Verdict::of(growth_bytes <= 16e6),
        );
        let [t_direct, t_raw, t_relay, t_ours] = times;
        raw.insert(label.into(), json!({"bytes": size, "ours_ms": t_ours, "direct_ms": t_direct, "raw_forward_ms": t_raw, "base64_relay_ms": t_relay,
            "hwm_before_kib": hwm_before, "hwm_after_kib": hwm_after, "rss_after_kib": rss_after, "server_cpu_ms_per_read": cpu_per_read_ms}));
    }
    r.notes.push(format!(
        "PDF: MAX_DOCUMENT_BYTES = {} B (10 MiB); \"10 MB\" is measured as 9,900,000 B. Each size runs against a fresh server process (fake Kobana in its own process); every request uses the bench's raw keep-alive client, which only counts the body bytes. Floors (same rounds, on the server's CPU, one blocking thread each, `relay.rs`): floor 1 forwards the fake's bytes untouched, floor 2 answers them as base64 in a fixed JSON string with our encoder and no MCP. The first round's answers (plain GET, both floors, ours) are checked byte for byte against the fake's PDF and not timed.",
        thousands(limit as f64)
    ));
    r.raw.insert("pdf".into(), Value::Object(raw));
    Ok(r)
}

/// The blob of a `resources/read` answer (or the relay's), decoded and compared with `pdf`.
pub(crate) fn check_blob(body: &[u8], pdf: &[u8]) -> Result<(), String> {
    use base64::Engine as _;
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("answer is not JSON: {e}"))?;
    let blob = v["result"]["contents"][0]["blob"]
        .as_str()
        .ok_or("no blob in the answer")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .map_err(|e| format!("blob: {e}"))?;
    if decoded != pdf {
        return Err("the streamed blob differs from the fake's PDF".into());
    }
    Ok(())
}
