//! The request-line middleware: around [`crate::App::handle`], it gives every request a
//! [`RequestRecord`] (as a request extension the handler and the Kobana client fill in), and
//! wraps the answer's body so that when the body has been sent — a streamed PDF included —
//! exactly one request line is logged and, when asked for, the EMF metrics are written.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use serde_json::Value;

use super::{BoxError, ResponseBody};
use crate::access::Principal;
use crate::telemetry::emf;
use crate::telemetry::record::{Described, RequestId, RequestRecord, record_of};

/// Longest client name or version kept (client-chosen text).
const MAX_CLIENT_TEXT: usize = 64;

/// Answers up to this size are kept to read their JSON-RPC error code (errors are small).
const KEPT_ANSWER_BYTES: usize = 16 * 1024;

/// Where the per-request output goes.
#[derive(Debug, Clone)]
pub struct Telemetry {
    /// Write EMF metric lines to stdout (`MCP_METRICS`; on under Lambda by default).
    pub metrics: bool,
    /// The `Function` dimension (`AWS_LAMBDA_FUNCTION_NAME`, else `kobana-mcp`).
    pub function: String,
}

impl Telemetry {
    /// Metrics as configured, the function name from the environment.
    pub fn new(metrics: bool) -> Self {
        Self {
            metrics,
            function: std::env::var("AWS_LAMBDA_FUNCTION_NAME")
                .ok()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(|| "kobana-mcp".to_owned()),
        }
    }
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    if getrandom::fill(&mut bytes).is_err() {
        return "local-unknown".to_owned();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("local-{hex}")
}

/// Starts the record of `request` (Lambda's request id when the entry point put one in,
/// else a new one) and puts it in the request's extensions.
pub fn start<B>(request: &mut Request<B>) -> Arc<RequestRecord> {
    // A caller inside the process (the benchmark, a test) may bring its own record to read
    // back once the answer is sent; a remote client cannot set an extension.
    if let Some(record) = record_of(request.extensions()) {
        return record;
    }
    let id = request
        .extensions()
        .get::<RequestId>()
        .map_or_else(new_request_id, |id| id.0.clone());
    let record = Arc::new(RequestRecord::new(id, request.method().as_str()));
    request.extensions_mut().insert(record.clone());
    record
}

/// Notes, from an authenticated POST whose body has been read, who calls and what the
/// message is about.
pub fn note_message(parts: &http::request::Parts, message: Option<&Value>) {
    let Some(record) = record_of(&parts.extensions) else {
        return;
    };
    if let Some(principal) = parts.extensions.get::<Arc<Principal>>() {
        record.principal(principal);
    }
    let header = parts
        .headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    if let Some(Value::Object(message)) = message {
        record.described(describe(message, header));
    }
}

/// Wraps the answer so the request line (and metrics) are written once its body is done.
pub fn finish(
    telemetry: &Telemetry,
    record: Arc<RequestRecord>,
    response: Response<ResponseBody>,
) -> Response<ResponseBody> {
    let status = response.status().as_u16();
    let telemetry = telemetry.clone();
    response.map(|inner| {
        http_body_util::BodyExt::boxed_unsync(Tracked {
            inner,
            kept: Vec::new(),
            bytes: 0,
            status,
            done: Some((record, telemetry)),
        })
    })
}

struct Tracked {
    inner: ResponseBody,
    kept: Vec<u8>,
    bytes: u64,
    status: u16,
    done: Option<(Arc<RequestRecord>, Telemetry)>,
}

impl Body for Tracked {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled
            && let Some(data) = frame.data_ref()
        {
            self.bytes += data.len() as u64;
            if self.kept.len() + data.len() <= KEPT_ANSWER_BYTES {
                self.kept.extend_from_slice(data);
            } else {
                self.kept.clear();
                self.kept.shrink_to_fit();
                self.kept.push(b'!');
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The JSON-RPC error code of a (small, whole) answer.
fn jsonrpc_error(answer: &[u8]) -> Option<i64> {
    let value: Value = serde_json::from_slice(answer).ok()?;
    value.get("error")?.get("code")?.as_i64()
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let Some((record, telemetry)) = self.done.take() else {
            return;
        };
        record.answer(self.status, jsonrpc_error(&self.kept), self.bytes);
        emit(&telemetry, &record);
    }
}

/// Writes the request line and, when on, the EMF lines.
fn emit(telemetry: &Telemetry, record: &RequestRecord) {
    let f = record.snapshot();
    let duration_ms = (record.elapsed().as_secs_f64() * 1_000_000.0).round() / 1000.0;
    let error_code = f
        .tool_error
        .clone()
        .or_else(|| f.jsonrpc_error.map(|c| c.to_string()));
    let kobana_ms = (f.kobana_millis() * 1000.0).round() / 1000.0;
    tracing::info!(
        target: "kobana_mcp::request",
        request_id = %record.request_id,
        http_method = %f.http_method,
        http_status = f.http_status,
        mcp_method = f.mcp_method.as_deref(),
        target = f.target.as_deref(),
        era = f.era,
        protocol_version = f.protocol_version.as_deref(),
        client_name = f.client_name.as_deref(),
        client_version = f.client_version.as_deref(),
        person = f.person.as_deref(),
        outcome = f.outcome(),
        error_code = error_code.as_deref(),
        kobana_calls = f.kobana.len() as u64,
        kobana_rounds = f.kobana_rounds,
        kobana_statuses = %f.kobana_statuses(),
        kobana_ms,
        confirmation = f.confirmation.map(|c| c.as_str()),
        duration_ms,
        bytes_out = f.bytes_out,
        "request"
    );
    if telemetry.metrics {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let lines = emf::lines(
            &f,
            &telemetry.function,
            &record.request_id,
            duration_ms,
            now,
        );
        use std::io::Write as _;
        let mut out = std::io::stdout().lock();
        for line in lines {
            if writeln!(out, "{line}").is_err() {
                break;
            }
        }
        let _ = out.flush();
    }
}

/// Client-chosen text, cut short and [escaped](crate::telemetry::escaped) (BW-3).
fn short(value: Option<&Value>) -> Option<String> {
    Some(crate::telemetry::escaped(value?.as_str()?, MAX_CLIENT_TEXT))
}

/// A version-shaped string (`2025-06-18`), else nothing: the field is client-chosen.
fn version(value: Option<&str>) -> Option<String> {
    let v = value?.trim();
    (v.len() == 10 && v.bytes().all(|b| b.is_ascii_digit() || b == b'-')).then(|| v.to_owned())
}

fn known_method(method: &str) -> String {
    // The served methods plus the ones clients send that rmcp answers itself.
    const ALSO: [&str; 3] = [
        "logging/setLevel",
        "notifications/initialized",
        "notifications/cancelled",
    ];
    if crate::server::SERVED_METHODS.contains(&method) || ALSO.contains(&method) {
        method.to_owned()
    } else {
        "other".to_owned()
    }
}

fn describe(message: &serde_json::Map<String, Value>, header: Option<&str>) -> Described {
    let mut out = Described::default();
    let empty = serde_json::Map::new();
    let params = message
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let meta = params.get("_meta").and_then(Value::as_object);
    let method = match message.get("method").and_then(Value::as_str) {
        Some(method) => known_method(method),
        None => "response".to_owned(),
    };
    let name = params.get("name").and_then(Value::as_str);
    out.target = match method.as_str() {
        "tools/call" => name.map(|n| {
            crate::catalog::registry()
                .get(n)
                .map_or("unknown", |t| t.meta.name)
                .to_owned()
        }),
        "prompts/get" => name.map(|n| {
            crate::prompts::PROMPTS
                .iter()
                .find(|p| p.name == n)
                .map_or("unknown", |p| p.name)
                .to_owned()
        }),
        "resources/read" => params.get("uri").and_then(Value::as_str).map(|uri| {
            crate::resources::parse(uri)
                .map_or("unknown", |t| crate::resources::entry(t.kind).uri)
                .to_owned()
        }),
        "completion/complete" => params
            .get("ref")
            .and_then(|r| r.get("name").or_else(|| r.get("uri")))
            .and_then(Value::as_str)
            .map(|r| {
                crate::prompts::PROMPTS
                    .iter()
                    .find(|p| p.name == r)
                    .map(|p| p.name)
                    .or_else(|| {
                        crate::resources::parse(r).map(|t| crate::resources::entry(t.kind).uri)
                    })
                    .unwrap_or("unknown")
                    .to_owned()
            }),
        _ => None,
    };
    let meta_version = meta
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .and_then(Value::as_str);
    let init_version = (method == "initialize")
        .then(|| params.get("protocolVersion").and_then(Value::as_str))
        .flatten();
    out.protocol_version = version(meta_version.or(init_version).or(header));
    out.era = Some(match (&out.protocol_version, meta_version) {
        (_, Some(_)) => "2026",
        (Some(v), None) if v.as_str() >= "2026-07-28" => "2026",
        _ => "2025",
    });
    let client = meta
        .and_then(|m| m.get("io.modelcontextprotocol/clientInfo"))
        .or_else(|| params.get("clientInfo"))
        .and_then(Value::as_object);
    if let Some(client) = client {
        out.client_name = short(client.get("name"));
        out.client_version = short(client.get("version"));
    }
    out.method = Some(method);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::record::Fields;
    use serde_json::json;

    #[test]
    fn only_a_whole_small_answer_gives_a_jsonrpc_code() {
        assert_eq!(
            jsonrpc_error(br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}"#),
            Some(-32602)
        );
        assert_eq!(
            jsonrpc_error(br#"{"jsonrpc":"2.0","id":1,"result":{"error":{"code":1}}}"#),
            None
        );
        assert_eq!(jsonrpc_error(b"!"), None);
    }

    fn described(body: Value, header: Option<&str>) -> Fields {
        let record = RequestRecord::new("r".into(), "POST");
        let Value::Object(message) = body else {
            panic!("a message is an object")
        };
        record.described(describe(&message, header));
        record.snapshot()
    }

    #[test]
    fn the_message_is_described_by_names_never_by_values() {
        let f = described(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "billing_customers_get", "arguments": {"id": "secret-value"},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "9"}}}}),
            None,
        );
        assert_eq!(f.mcp_method.as_deref(), Some("tools/call"));
        assert_eq!(f.target.as_deref(), Some("billing_customers_get"));
        assert_eq!(f.era, Some("2026"));
        assert_eq!(f.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(f.client_name.as_deref(), Some("c"));
        assert!(!format!("{f:?}").contains("secret-value"));
        let f = described(
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                   "params": {"uri": "kobana://billing/invoices/abc-1/pdf"}}),
            Some("2025-06-18"),
        );
        assert_eq!(
            f.target.as_deref(),
            Some("kobana://billing/invoices/{id}/pdf")
        );
        assert_eq!(
            (f.era, f.protocol_version.as_deref()),
            (Some("2025"), Some("2025-06-18"))
        );
        let f = described(
            json!({"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": {"name": "a@b.c"}}),
            Some("not a version"),
        );
        assert_eq!(f.mcp_method.as_deref(), Some("other"));
        assert_eq!(f.protocol_version, None);
        let f = described(
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x@y.z"}}),
            None,
        );
        assert_eq!(f.target.as_deref(), Some("unknown"));
    }

    #[test]
    fn n9_the_client_s_name_is_escaped() {
        let f = described(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "evil\n\u{202e}kcatta\u{200b}", "version": "1\r\n2"}}}),
            None,
        );
        assert_eq!(
            f.client_name.as_deref(),
            Some("evil\\u{a}\\u{202e}kcatta\\u{200b}")
        );
        assert_eq!(f.client_version.as_deref(), Some("1\\u{d}\\u{a}2"));
    }
}
