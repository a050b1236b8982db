//! Section 11: answer sizes and the Kobana work behind them (#19, CX-5: a page of 20 rows of any
//! list tool ≤ 8 KB, the median invoice row ≤ 400 B; #25, BW-2: a list ≤ 2 Kobana calls in
//! ≤ 2 rounds, a prompt ≤ 2 rounds). Every list tool with `per_page: 20` and every prompt, on the
//! demo data, in-process (`App::handle` over the fake), each on a fresh app (cold caches: the
//! most it can cost), its work read from the request's own record. Sizes do not depend on
//! timing: the figures are exact in any build.

use std::sync::Arc;

use kobana_mcp::catalog::{Output, registry};
use kobana_mcp::telemetry::RequestRecord;

use super::*;

/// The text of a page (or of a prompt's messages), and the Kobana calls and rounds it cost.
async fn call(
    kobana: SocketAddr,
    token: &str,
    method: &str,
    params: Value,
) -> Result<(Value, usize, u32), String> {
    let app = inproc::app(kobana)?;
    let mut request = inproc::request(token, method, params, false);
    let record = Arc::new(RequestRecord::new("bench".to_owned(), "POST"));
    request.extensions_mut().insert(record.clone());
    let body = inproc::handle(&app, request)
        .await
        .map_err(|e| format!("{method}: {e}"))?;
    let value: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
    let work = record.snapshot();
    Ok((
        value["result"].clone(),
        work.kobana.len(),
        work.kobana_rounds,
    ))
}

/// `(bytes, ≈tokens)` of a text.
fn size(text: &str) -> String {
    format!(
        "{} B (≈{} tokens)",
        thousands(text.len() as f64),
        thousands(text.chars().count() as f64 / 4.0)
    )
}

async fn measure(token: &str, r: &mut Report) -> Result<(), String> {
    let fake = fake_kobana::FakeKobana::start().await;
    let lists = registry().all().iter().filter_map(|t| match t.meta.output {
        Output::List(resource) => Some((t.meta.name, resource.slug())),
        _ => None,
    });
    for (tool, key) in lists {
        let (result, calls, rounds) = call(
            fake.addr(),
            token,
            "tools/call",
            json!({"name": tool, "arguments": {"per_page": 20}}),
        )
        .await?;
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let page: Value = serde_json::from_str(text).map_err(|e| format!("{tool}: {e}"))?;
        let rows: Vec<f64> = page[key]
            .as_array()
            .into_iter()
            .flatten()
            .map(|row| row.to_string().len() as f64)
            .collect();
        if rows.is_empty() {
            return Err(format!("{tool}: no rows on the demo data"));
        }
        // The text around the rows, plus 20 of the largest row and its comma.
        let envelope = text.len() as f64 - rows.iter().sum::<f64>() - (rows.len() - 1) as f64;
        let worst = envelope + 20.0 * (rows.iter().copied().fold(0.0, f64::max) + 1.0);
        let median_row = stats::median(&rows);
        let invoices = tool == "billing_invoices_list";
        r.row(11, cells![
            format!("`{tool}` (per_page 20, {} rows on the demo data): text of a page of 20 of its largest row, projected · median row · Kobana calls / rounds", rows.len()),
            format!("{} B (≈{} tokens) · {} B · {calls} / {rounds}", thousands(worst), thousands(worst / 4.0), thousands(median_row)),
            format!("this page: {}", size(text)), "",
            format!("≤ 8,192 B{} · ≤ 2 / ≤ 2 (CX-5, BW-2)", if invoices { " · median row ≤ 400 B" } else { "" }),
        ], Some(worst <= 8192.0 && calls <= 2 && rounds <= 2 && (!invoices || median_row <= 400.0)));
    }
    let customer = json!({"customer_id": "972a8469-1641-4f82-8b9d-2434e465e150"});
    let prompts = [
        ("collect_overdue_invoices", json!({})),
        ("review_pending_nfes", json!({})),
        ("customer_overview", customer),
        ("monthly_billing_summary", json!({"month": "2026-08"})),
    ];
    for (name, args) in prompts {
        let (result, calls, rounds) = call(
            fake.addr(),
            token,
            "prompts/get",
            json!({"name": name, "arguments": args}),
        )
        .await?;
        let mut text = String::new();
        for message in result["messages"].as_array().into_iter().flatten() {
            let content = &message["content"];
            text.extend(
                [&content["text"], &content["resource"]["text"]]
                    .iter()
                    .filter_map(|t| t.as_str()),
            );
        }
        r.row(
            11,
            cells![
                format!("prompt `{name}`: text of its messages · Kobana calls / rounds"),
                format!("{} · {calls} / {rounds}", size(&text)),
                "",
                "",
                "≤ 2 rounds (BW-2)",
            ],
            Some(!text.is_empty() && rounds <= 2),
        );
    }
    Ok(())
}

pub fn run(bench: &Bench) -> Result<Report, String> {
    let mut r = Report::default();
    bench.block_on(measure(&bench.token, &mut r))?;
    Ok(r)
}
