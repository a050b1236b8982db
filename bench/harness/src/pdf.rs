//! Section 5: PDF streaming (#9: wall time ≤ 1.3× a plain fetch of the same bytes, peak RSS
//! growth ≤ 16 MB), at 1 MB and 9.9 MB ("10 MB": the limit is 10 MiB), each on a fresh server.

use base64::Engine as _;

use super::*;

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    let fake = bench.fake();
    let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
    let direct = http1::kobana_get(
        fake.addr(),
        &bench.token,
        &format!("/v1/invoices/{INVOICE}/pdf"),
    );
    for (label, size) in [("1 MB", 1_000_000usize), ("9.9 MB", 9_900_000)] {
        fake.set_pdf_size(INVOICE, size);
        let (status, pdf) = bench.send(fake.addr(), &direct)?;
        if status != 200 || pdf.len() != size {
            return Err(format!("plain GET: {status}, {} bytes", pdf.len()));
        }
        let (ours, addr) = bench.start_ours(fake.addr(), &format!("pdf-{size}"))?;
        let read = http1::mcp_post(
            addr,
            &bench.token,
            "resources/read",
            json!({"uri": uri}),
            true,
        );
        // Warm-up without a PDF: a JSON resource.
        let record = json!({"uri": format!("kobana://billing/invoices/{INVOICE}")});
        bench.checked(
            addr,
            &http1::mcp_post(addr, &bench.token, "resources/read", record, true),
            false,
        )?;
        let (_, hwm_before) = procs::memory_kib(ours.pid())?;
        let contenders = [(fake.addr(), &direct), (addr, &read)];
        let mut times = [Vec::new(), Vec::new()];
        bench.block_on(async {
            let mut conns = Vec::new();
            for (addr, _) in contenders {
                conns.push(
                    http1::Conn::connect(addr)
                        .await
                        .map_err(|e| e.to_string())?,
                );
            }
            // The first round warms both up and is checked byte for byte, not timed.
            for round in 0..=bench.counts.pdf_reps {
                for (k, ((_, request), conn)) in contenders.iter().zip(conns.iter_mut()).enumerate()
                {
                    let t0 = Instant::now();
                    let status = conn
                        .send(request, round == 0)
                        .await
                        .map_err(|e| e.to_string())?;
                    let took = t0.elapsed().as_secs_f64() * 1e3;
                    if status != 200 {
                        return Err(format!("PDF {label}: {status}"));
                    }
                    if round == 0 && k == 0 && conn.body != pdf {
                        return Err("the plain GET's body changed".into());
                    }
                    if round == 0 && k == 1 {
                        check_blob(&conn.body, &pdf)?;
                    }
                    if round > 0 {
                        times[k].push(took);
                    }
                }
            }
            Ok::<_, String>(())
        })?;
        let (_, hwm_after) = procs::memory_kib(ours.pid())?;
        let growth = hwm_after.saturating_sub(hwm_before) as f64 * 1024.0;
        let [plain, ours_ms] = times.each_ref().map(|t| stats::median(t));
        r.row(5, cells![
            format!("PDF {label} ({} B): `resources/read` wall time vs a plain GET of the same bytes from the fake (median of {})", thousands(size as f64), times[1].len()),
            ms(ours_ms), ms(plain), ratio(ours_ms / plain), "≤ 1.3× (#9)",
        ], Some(ours_ms / plain <= 1.3));
        r.row(
            5,
            cells![
                format!("PDF {label}: server peak RSS growth (VmHWM after the reads − before)"),
                mb(growth),
                format!(
                    "VmHWM {} → {}",
                    mb(hwm_before as f64 * 1024.0),
                    mb(hwm_after as f64 * 1024.0)
                ),
                "",
                "≤ 16 MB (#9)",
            ],
            Some(growth <= 16e6),
        );
    }
    Ok(r)
}

/// The blob of a `resources/read` answer, decoded and compared with `pdf`.
fn check_blob(body: &[u8], pdf: &[u8]) -> Result<(), String> {
    let v: Value = serde_json::from_slice(body).map_err(|e| format!("answer is not JSON: {e}"))?;
    let blob = v["result"]["contents"][0]["blob"]
        .as_str()
        .ok_or("no blob in the answer")?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .map_err(|e| format!("blob: {e}"))?;
    (decoded == pdf)
        .then_some(())
        .ok_or_else(|| "the blob differs from the fake's PDF".into())
}
