//! Section 6: context cost — what `tools/list` and the other lists cost a model's context.

use super::*;
use kobana_mcp::catalog::MAX_TOOLS_LIST_BYTES;

pub(crate) fn context_cost(
    bench: &Bench,
    ours: SocketAddr,
    tools_out: &mut Option<Value>,
) -> Result<Report, String> {
    let mut r = Report::default();
    let (status, body, bytes) = bench.mcp(ours, "tools/list", json!({}), None, false, &[])?;
    if status != 200 {
        return Err(format!("tools/list: {status} {body}"));
    }
    let result = body["result"].clone();
    let count = result["tools"].as_array().map_or(0, Vec::len);
    if count == 0 {
        return Err(format!("tools/list returned no tools: {body}"));
    }
    let chars = |v: &Value| v.to_string().chars().count();
    let full_chars = chars(&body);
    let (_, modern_body, modern_bytes) =
        bench.mcp(ours, "tools/list", json!({}), None, true, &[])?;
    let tokens = |c: usize| (c as f64 / 4.0).round();
    let largest = bytes.max(modern_bytes);
    r.row(
        "6",
        format!("`tools/list` size, all {count} tools (JSON-RPC answer; tokens ≈ chars/4)"),
        format!(
            "{} B · ≈{} tokens (era 2026: {} B)",
            thousands(bytes as f64),
            thousands(tokens(full_chars)),
            thousands(modern_bytes as f64)
        ),
        "",
        "",
        format!(
            "≤ {} KB ({} B)",
            MAX_TOOLS_LIST_BYTES / 1024,
            thousands(MAX_TOOLS_LIST_BYTES as f64)
        ),
        Verdict::of(largest <= MAX_TOOLS_LIST_BYTES),
    );
    let _ = modern_body;
    let mut per_set = serde_json::Map::new();
    for set in Toolset::ALL.map(Toolset::slug) {
        let (status, body, bytes) = bench.mcp(
            ours,
            "tools/list",
            json!({}),
            None,
            false,
            &[("x-mcp-toolsets", set)],
        )?;
        if status != 200 {
            return Err(format!("tools/list X-MCP-Toolsets: {set}: {status} {body}"));
        }
        let n = body["result"]["tools"].as_array().map_or(0, Vec::len);
        r.row(
            "6",
            format!(
                "`tools/list` with `X-MCP-Toolsets: {set}` ({n} tool{})",
                if n == 1 { "" } else { "s" }
            ),
            format!(
                "{} B · ≈{} tokens",
                thousands(bytes as f64),
                thousands(tokens(chars(&body)))
            ),
            "",
            "",
            "info",
            Verdict::Info,
        );
        per_set.insert(
            set.into(),
            json!({"tools": n, "bytes": bytes, "chars": chars(&body)}),
        );
    }
    r.raw.insert(
        "context".into(),
        json!({"tools": count, "bytes_legacy": bytes, "bytes_modern": modern_bytes, "chars": full_chars, "toolsets": per_set}),
    );
    let path = bench.work.join("tools.json");
    std::fs::write(
        &path,
        serde_json::to_vec_pretty(&result).map_err(|e| e.to_string())?,
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    *tools_out = Some(result);
    Ok(r)
}
