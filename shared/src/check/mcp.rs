//! `kobana-mcp check --mcp URL`: an MCP-level smoke of a deployed endpoint, as a client
//! sees it (protocol 2025-11-25, plain JSON-RPC over HTTP): `tools/list`, one read per
//! toolset (its `_list` tool, and `billing_organization_get`), and one invoice PDF through
//! `billing_invoices_pdf` and `resources/read`. Nothing is written.

use base64::Engine as _;
use serde_json::{Value, json};

use super::{Report, Row};
use crate::access::slugs::INVOICES;
use crate::catalog::ERROR_META_KEY;

/// The protocol version the smoke speaks.
const PROTOCOL: &str = "2025-11-25";

pub use crate::catalog::MAX_TOOLS_LIST_BYTES;

/// A JSON-RPC client of one endpoint.
struct Client {
    http: reqwest::Client,
    url: String,
    token: Option<String>,
    next_id: u64,
}

impl Client {
    /// Sends `method` with `params`; the JSON-RPC answer and its size, or why there is none.
    async fn call(&mut self, method: &str, params: Value) -> Result<(Value, usize), String> {
        self.next_id += 1;
        let body =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", PROTOCOL)
            .body(body.to_string());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("unreachable: {e}"))?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| format!("answer broke: {e}"))?;
        if status == 401 {
            return Err("HTTP 401: the endpoint wants a token (--token)".to_owned());
        }
        // A streamed answer carries the JSON-RPC message on its last `data:` line.
        let json_text = text
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("data:"))
            .unwrap_or(&text);
        let answer: Value = serde_json::from_str(json_text.trim())
            .map_err(|_| format!("HTTP {status}: not a JSON-RPC answer"))?;
        if let Some(error) = answer.get("error") {
            return Err(format!("JSON-RPC error {}", error["code"]));
        }
        Ok((answer["result"].clone(), json_text.len()))
    }
}

/// Smokes the endpoint at `url`. `Err` only when no HTTP client can be built.
pub async fn run(url: &str, token: Option<&str>) -> Result<Report, String> {
    let http = crate::net::client_builder()
        .timeout(std::time::Duration::from_secs(60))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    let mut client = Client {
        http,
        url: url.to_owned(),
        token: token.map(str::to_owned),
        next_id: 0,
    };
    let mut report = Report {
        target: url.to_owned(),
        rows: Vec::new(),
    };
    let tools = match client.call("tools/list", json!({})).await {
        Ok((result, bytes)) => tools_row(&mut report, &result, bytes),
        Err(why) => {
            report.rows.push(Row::broken("tools/list", "failed", why));
            return Ok(report);
        }
    };
    let mut invoices = None;
    for tool in tools
        .iter()
        .filter(|t| t.ends_with("_list") || *t == "billing_organization_get")
    {
        let result = call_tool(&mut client, &mut report, tool, json!({})).await;
        if tool == "billing_invoices_list" {
            invoices = result;
        }
    }
    pdf(&mut client, &mut report, invoices.as_ref()).await;
    Ok(report)
}

/// The row of `tools/list`, and the names listed.
fn tools_row(report: &mut Report, result: &Value, bytes: usize) -> Vec<String> {
    let names: Vec<String> = result["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let evidence = format!("{} tools, {bytes} bytes", names.len());
    let row = if names.is_empty() || bytes > MAX_TOOLS_LIST_BYTES {
        Row::broken("tools/list", "unexpected", evidence)
    } else {
        Row::fine("tools/list", "ok", evidence)
    };
    report.rows.push(row);
    names
}

/// Calls one tool: a row, and its structured result when it succeeded.
async fn call_tool(
    client: &mut Client,
    report: &mut Report,
    tool: &str,
    args: Value,
) -> Option<Value> {
    let point = format!("tools/call {tool}");
    match client
        .call("tools/call", json!({"name": tool, "arguments": args}))
        .await
    {
        Ok((result, _)) if result["isError"] == json!(true) => {
            let code = result["_meta"][ERROR_META_KEY]["error"]
                .as_str()
                .unwrap_or("?")
                .to_owned();
            let denied = code.contains("PERMISSION") || code.contains("INSUFFICIENT_SCOPE");
            let row = if denied { Row::fine } else { Row::broken };
            report.rows.push(row(&point, "tool error", code));
            None
        }
        Ok((result, _)) => {
            report.rows.push(Row::fine(&point, "ok", "isError false"));
            Some(result["structuredContent"].clone())
        }
        Err(why) => {
            report.rows.push(Row::broken(&point, "failed", why));
            None
        }
    }
}

/// One invoice PDF: described by `billing_invoices_pdf`, read through `resources/read`.
async fn pdf(client: &mut Client, report: &mut Report, invoices: Option<&Value>) {
    let finalized = invoices
        .and_then(|r| r[INVOICES].as_array())
        .into_iter()
        .flatten()
        .find(|r| r["status"].as_str().is_some_and(|s| s != "draft"))
        .and_then(|r| r["id"].as_str());
    let Some(id) = finalized else {
        report.rows.push(Row::fine(
            "invoice PDF",
            "not probed",
            "no finalized invoice listed",
        ));
        return;
    };
    let described = call_tool(client, report, "billing_invoices_pdf", json!({"id": id})).await;
    let Some(uri) = described
        .as_ref()
        .and_then(|d| d["pdf"]["resource_uri"].as_str())
    else {
        return;
    };
    let row = match client.call("resources/read", json!({"uri": uri})).await {
        Ok((result, bytes)) => {
            let blob = result["contents"][0]["blob"].as_str().unwrap_or("");
            let head = base64::engine::general_purpose::STANDARD
                .decode(blob.get(..8).unwrap_or(""))
                .unwrap_or_default();
            if head.starts_with(b"%PDF") {
                Row::fine(
                    "resources/read PDF",
                    "ok",
                    format!("{uri}: a PDF, {bytes} bytes of answer"),
                )
            } else {
                Row::broken("resources/read PDF", "not a PDF", uri.to_owned())
            }
        }
        Err(why) => Row::broken("resources/read PDF", "failed", why),
    };
    report.rows.push(row);
}
