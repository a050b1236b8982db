//! Answer sizes (CX-5) and the work behind them (BW-2): text bytes and ≈tokens per row and per
//! page of every list tool, and of every prompt's messages, on the demo data, with whole
//! records (`MCP_LIST_ROWS=full`, no budget) beside the compact rows under the default budget;
//! and for every list tool and prompt, the Kobana calls and sequential rounds of calls it
//! cost, read from the request's own record, on a server whose caches are cold.
//!
//! `kobana-bench answers [--write BENCHMARKS.md]` runs the server in-process (`App::handle`)
//! against the fake Kobana in-process; sizes do not depend on timing, so the figures are
//! exact and the same in debug and release builds. With `--write` the section between the
//! markers below is replaced (or appended); a full `bench/run.sh` keeps it (see
//! [`keep_section`]).

use std::process::ExitCode;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use kobana_mcp::{App, Config};
use serde_json::{Value, json};

use crate::http1;
use crate::report::thousands;
use crate::stats::median;

const BEGIN: &str = "<!-- answer-sizes:begin -->";
const END: &str = "<!-- answer-sizes:end -->";

/// Every list tool and the member holding its rows, as the registry declares them.
fn list_tools() -> Vec<(&'static str, &'static str)> {
    kobana_mcp::catalog::registry()
        .all()
        .iter()
        .filter_map(|tool| match tool.meta.output {
            kobana_mcp::catalog::Output::List(resource) => Some((tool.meta.name, resource.slug())),
            _ => None,
        })
        .collect()
}

/// Targets: a page of 20 rows and the median invoice row (CX-5); the Kobana work of a list
/// and of a prompt (BW-2).
const PAGE_OF_20_MAX: usize = 8 * 1024;
const INVOICE_ROW_MAX: f64 = 400.0;
const LIST_MAX_CALLS: usize = 2;
const MAX_ROUNDS: u32 = 2;

/// What one request made Kobana do, from its record.
#[derive(Debug, Clone, Copy, Default)]
struct Work {
    calls: usize,
    rounds: u32,
}

/// One list page as measured.
#[derive(Debug, Clone, Default)]
struct Page {
    rows: usize,
    text: usize,
    chars: usize,
    median_row: f64,
    largest_row: usize,
    /// The text around the rows (page, total, hint…).
    envelope: usize,
    /// The Kobana work of the call.
    work: Work,
}

impl Page {
    /// A page of 20 rows of this list's largest row: the worst case the target bounds.
    fn worst_of_20(&self) -> usize {
        self.envelope + 20 * (self.largest_row + 1)
    }
    /// A page of 20 median rows.
    fn typical_of_20(&self) -> usize {
        self.envelope + (20.0 * (self.median_row + 1.0)) as usize
    }
}

fn tokens(chars: usize) -> String {
    thousands((chars as f64 / 4.0).round())
}

async fn call(
    app: &App,
    token: &str,
    method: &str,
    params: Value,
) -> Result<(Value, Work), String> {
    let body = http1::mcp_body(1, method, params, false);
    let mut builder = http::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", "127.0.0.1");
    for (k, v) in http1::mcp_headers(token, method, None, false) {
        builder = builder.header(k, v);
    }
    let record = std::sync::Arc::new(kobana_mcp::telemetry::RequestRecord::new(
        "bench".to_owned(),
        "POST",
    ));
    let request = builder
        .extension(record.clone())
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| e.to_string())?;
    let response = app.handle(request).await;
    let status = response.status();
    let bytes = response
        .into_body()
        .collect()
        .await
        .map_err(|e| format!("{method}: body: {e}"))?
        .to_bytes();
    let value: Value = serde_json::from_slice(&bytes).map_err(|e| format!("{method}: {e}"))?;
    if status != 200 || value.get("result").is_none() {
        return Err(format!("{method}: {status} {value}"));
    }
    let fields = record.snapshot();
    let work = Work {
        calls: fields.kobana.len(),
        rounds: fields.kobana_rounds,
    };
    Ok((value["result"].clone(), work))
}

async fn list_page(app: &App, token: &str, tool: &str, key: &str) -> Result<Page, String> {
    let (result, work) = call(
        app,
        token,
        "tools/call",
        json!({"name": tool, "arguments": {"per_page": 20}}),
    )
    .await?;
    if result["isError"] == json!(true) {
        return Err(format!("{tool}: {result}"));
    }
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let parsed: Value = serde_json::from_str(text).map_err(|e| format!("{tool}: {e}"))?;
    let rows = parsed[key].as_array().cloned().unwrap_or_default();
    if rows.is_empty() {
        return Err(format!("{tool}: no rows on the demo data"));
    }
    let sizes: Vec<f64> = rows.iter().map(|r| r.to_string().len() as f64).collect();
    let sum: f64 = sizes.iter().sum::<f64>() + rows.len().saturating_sub(1) as f64;
    Ok(Page {
        rows: rows.len(),
        text: text.len(),
        chars: text.chars().count(),
        median_row: median(&sizes),
        largest_row: sizes.iter().copied().fold(0.0, f64::max) as usize,
        envelope: text.len().saturating_sub(sum as usize),
        work,
    })
}

/// The prompts and the arguments they are measured with.
fn prompts() -> Vec<(&'static str, Value)> {
    vec![
        ("collect_overdue_invoices", json!({})),
        ("review_pending_nfes", json!({})),
        (
            "customer_overview",
            json!({"customer_id": "972a8469-1641-4f82-8b9d-2434e465e150"}),
        ),
        ("monthly_billing_summary", json!({"month": "2026-08"})),
    ]
}

/// The text of every message of a prompt (text blocks and embedded resources), as (bytes,
/// chars), and the Kobana work of getting it.
async fn prompt_text(
    app: &App,
    token: &str,
    name: &str,
    args: Value,
) -> Result<((usize, usize), Work), String> {
    let (result, work) = call(
        app,
        token,
        "prompts/get",
        json!({"name": name, "arguments": args}),
    )
    .await?;
    let mut text = String::new();
    for message in result["messages"].as_array().cloned().unwrap_or_default() {
        let content = &message["content"];
        for part in [&content["text"], &content["resource"]["text"]] {
            if let Some(t) = part.as_str() {
                text.push_str(t);
            }
        }
    }
    if text.is_empty() {
        return Err(format!("{name}: no text"));
    }
    Ok(((text.len(), text.chars().count()), work))
}

/// A prompt's text as (bytes, chars).
type Text = (usize, usize);

struct Measured {
    lists: Vec<(Page, Page)>,
    /// Before, after, and the work after.
    prompts: Vec<(Text, Text, Work)>,
}

async fn measure() -> Result<Measured, String> {
    let fake = fake_kobana::FakeKobana::start().await;
    let token = fake_kobana::full_token();
    let app_with = |full_records: bool| {
        let mut config = Config {
            kobana_api_url: fake.base_url(),
            ..Config::default()
        };
        config.rows.full_records = full_records;
        if full_records {
            // Before CX-3 there was no budget.
            config.rows.budget_bytes = usize::MAX;
        }
        App::new(config).map_err(|e| format!("app: {e}"))
    };
    let before = app_with(true)?;
    // Each list and prompt after the change on a server of its own: its caches are cold, so
    // its Kobana work is the most it can cost.
    let mut lists = Vec::new();
    for (tool, key) in list_tools() {
        lists.push((
            list_page(&before, &token, tool, key).await?,
            list_page(&app_with(false)?, &token, tool, key).await?,
        ));
    }
    let mut measured_prompts = Vec::new();
    for (name, args) in prompts() {
        let (before_text, _) = prompt_text(&before, &token, name, args.clone()).await?;
        let (after_text, work) = prompt_text(&app_with(false)?, &token, name, args).await?;
        measured_prompts.push((before_text, after_text, work));
    }
    Ok(Measured {
        lists,
        prompts: measured_prompts,
    })
}

fn render(m: &Measured) -> (String, bool) {
    let mut holds = true;
    let mut out = format!(
        "{BEGIN}\n## Answer sizes and Kobana work: compact list rows and prompts\n\n\
         `kobana-bench answers` (in `bench/run.sh`): every list tool called with `per_page: 20` and every prompt got, \
         on the demo data, in-process; text = the tool result's text block (what a client without structured output \
         shows the model), tokens ≈ chars/4. **Before** = whole Kobana records, enriched, no budget \
         (`MCP_LIST_ROWS=full`, the form before compact rows); **after** = compact rows under the default 24 KiB budget. \
         A page of 20 is projected from the rows measured (the demo data has at most 7 per list): the envelope plus \
         20 median rows, and 20 of the largest row (the target: at most 8 KB). The issue's own \"before\" table \
         (e.g. 16,940 B and 2,420 B per row for invoices) was taken before the contract work made lists leave out \
         invoice line items, so the before column here, measured on today's data, is lower.\n\n\
         Kobana calls / rounds: what the call after the change cost, from its request record (rounds: the longest chain \
         of calls each started after the one before it ended), on a server with cold caches; the targets are at most 2 calls and 2 rounds for a \
         list, at most 2 rounds for a prompt.\n\n\
         | list tool | rows | before: page B (≈tok) | before: median row B | after: page B (≈tok) | after: median row B | after: largest row B | after: page of 20, median / largest rows B (≈tok) | Kobana calls / rounds | holds |\n\
         |---|---|---|---|---|---|---|---|---|---|\n"
    );
    for ((tool, _), (before, after)) in list_tools().iter().zip(&m.lists) {
        let worst = after.worst_of_20();
        let mut ok = worst <= PAGE_OF_20_MAX
            && after.work.calls <= LIST_MAX_CALLS
            && after.work.rounds <= MAX_ROUNDS;
        if *tool == "billing_invoices_list" {
            ok &= after.median_row <= INVOICE_ROW_MAX;
        }
        holds &= ok;
        out.push_str(&format!(
            "| `{tool}` | {} | {} ({}) | {} | {} ({}) | {} | {} | {} / {} (≈{}) | {} / {} | {} |\n",
            after.rows,
            thousands(before.text as f64),
            tokens(before.chars),
            thousands(before.median_row),
            thousands(after.text as f64),
            tokens(after.chars),
            thousands(after.median_row),
            thousands(after.largest_row as f64),
            thousands(after.typical_of_20() as f64),
            thousands(worst as f64),
            tokens(worst),
            after.work.calls,
            after.work.rounds,
            if ok { "yes" } else { "**no**" },
        ));
    }
    out.push_str(
        "\n| prompt | before: messages B (≈tok) | after: messages B (≈tok) | after / before | Kobana calls / rounds |\n|---|---|---|---|---|\n",
    );
    for ((name, _), ((bb, bc), (ab, ac), work)) in prompts().iter().zip(&m.prompts) {
        holds &= work.rounds <= MAX_ROUNDS;
        out.push_str(&format!(
            "| `{name}` | {} ({}) | {} ({}) | {:.2}× | {} / {} |\n",
            thousands(*bb as f64),
            tokens(*bc),
            thousands(*ab as f64),
            tokens(*ac),
            *ab as f64 / (*bb).max(1) as f64,
            work.calls,
            work.rounds,
        ));
    }
    out.push_str(&format!(
        "\nTargets: a page of 20 rows of any list tool ≤ 8 KB and the median invoice row ≤ 400 B (CX-5); every list ≤ 2 Kobana calls in ≤ 2 rounds, every prompt ≤ 2 rounds (BW-2): **{}**. \
         The prompts that only name tools (`collect_overdue_invoices`, `monthly_billing_summary`) carry no rows; \
         `customer_overview` embeds the full customer record (a `_get`, kept whole).\n{END}\n",
        if holds { "hold" } else { "missed" }
    ));
    (out, holds)
}

/// `old` (BENCHMARKS.md as it is) with its answer-sizes section replaced by `section`, or
/// `section` appended when there is none.
fn replace_section(old: &str, section: &str) -> String {
    match (old.find(BEGIN), old.find(END)) {
        (Some(begin), Some(end)) if end > begin => {
            format!(
                "{}{}{}",
                &old[..begin],
                section,
                &old[end + END.len()..].trim_start_matches('\n')
            )
        }
        _ => format!("{}\n\n{}", old.trim_end(), section),
    }
}

/// What a full run writes to `path`: `new`, with the answer-sizes section already in the
/// file at `path` kept at its end.
pub fn keep_section(path: &std::path::Path, new: String) -> String {
    let old = std::fs::read_to_string(path).unwrap_or_default();
    match (old.find(BEGIN), old.find(END)) {
        (Some(begin), Some(end)) if end > begin => {
            replace_section(&new, &old[begin..end + END.len()])
        }
        _ => new,
    }
}

/// `kobana-bench answers [--write PATH]`.
pub fn main(args: &[String]) -> ExitCode {
    let write = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("bench answers: runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let measured = match runtime.block_on(measure()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("bench answers: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (section, holds) = render(&measured);
    println!("{section}");
    if !holds {
        eprintln!("bench answers: a target is missed (reported, not a failure)");
    }
    if let Some(path) = write {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, replace_section(&old, &section)) {
            eprintln!("bench answers: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("bench answers: wrote the section into {}", path.display());
    }
    ExitCode::SUCCESS
}
