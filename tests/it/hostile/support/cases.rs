//! A case of the hostile corpus: the request bytes, the headers, and the exact answer expected.

use base64::Engine as _;
use serde_json::{Value, json};

/// The era-2025 version the corpus speaks.
pub const LEGACY: &str = "2025-11-25";
/// The era-2026 version.
pub const MODERN: &str = "2026-07-28";

/// The answer a case must get.
#[derive(Debug, Clone)]
pub enum Expect {
    /// This HTTP status and a JSON-RPC error with this code, echoing this `id`.
    Rpc(u16, i64, Value),
    /// Resource not found: HTTP 200, -32002 (era 2025) or -32602 (era 2026), `data.uri`.
    NotFound { modern: bool, uri: String },
    /// This HTTP status; the body is not a JSON-RPC answer (transport-level refusal).
    Status(u16),
    /// HTTP 200 with a tool result carrying `isError: true`.
    ToolError,
    /// HTTP 200 with a `result`, echoing this `id`.
    Result(Value),
    /// HTTP 202 with an empty body.
    Accepted,
}

/// A header change applied to the defaults (JSON content type, both media types accepted,
/// the full-scope bearer token).
#[derive(Debug, Clone)]
pub enum H {
    Set(String, Vec<u8>),
    Append(String, Vec<u8>),
    Remove(String),
}

pub fn set(name: &str, value: impl AsRef<[u8]>) -> H {
    H::Set(name.to_owned(), value.as_ref().to_vec())
}

#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub body: Vec<u8>,
    pub headers: Vec<H>,
    pub expect: Expect,
}

pub fn case(
    name: impl Into<String>,
    body: impl Into<Vec<u8>>,
    headers: Vec<H>,
    expect: Expect,
) -> Case {
    Case {
        name: name.into(),
        body: body.into(),
        headers,
        expect,
    }
}

pub fn legacy_headers() -> Vec<H> {
    vec![set("mcp-protocol-version", LEGACY)]
}

pub fn legacy(id: Value, method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "0"}
    })
}

pub fn modern(id: Value, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

/// How a client writes `value` in an `Mcp-*` header: as is when it is plain visible ASCII,
/// else `=?base64?…?=` (SEP-2243).
pub fn header_text(value: &str) -> Vec<u8> {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x21..=0x7e).contains(&b))
        && !value.starts_with("=?");
    if plain {
        value.as_bytes().to_vec()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
        .into_bytes()
    }
}

pub fn modern_headers(method: &str, name: Option<&str>) -> Vec<H> {
    let mut headers = vec![
        set("mcp-protocol-version", MODERN),
        set("mcp-method", method),
    ];
    if let Some(name) = name {
        headers.push(H::Set("mcp-name".to_owned(), header_text(name)));
    }
    headers
}

pub fn rpc(status: u16, code: i64, id: Value) -> Expect {
    Expect::Rpc(status, code, id)
}

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const HEADER_MISMATCH: i64 = -32020;
pub const UNSUPPORTED_VERSION: i64 = -32022;
