//! The first look at a POST body: read it within the size limit and check that it is one
//! JSON-RPC message, so malformed input gets the JSON-RPC answer clients expect (400 with
//! -32700 or -32600) before anything else runs.

use bytes::Bytes;
use http::{HeaderMap, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde_json::{Value, json};

use super::{ResponseBody, fixed};

fn error(status: StatusCode, code: i64, message: &str) -> Box<Response<ResponseBody>> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    Box::new(fixed(status, "application/json", body.to_string()))
}

/// Reads the whole body, refusing more than `limit` bytes with 413.
pub async fn read_body<B>(body: B, limit: usize) -> Result<Bytes, Box<Response<ResponseBody>>>
where
    B: Body + Send + 'static,
    B::Error: std::fmt::Display,
{
    let limited = Limited::new(
        body.map_err(|e| std::io::Error::other(e.to_string())),
        limit,
    );
    match limited.collect().await {
        Ok(collected) => Ok(collected.to_bytes()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(error(
            StatusCode::PAYLOAD_TOO_LARGE,
            -32600,
            &format!("Request body exceeds {limit} bytes"),
        )),
        Err(_) => Err(error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Could not read the request body",
        )),
    }
}

/// An answer that echoes the request `id`: 200 for bad params (a handler error in both eras),
/// 400 for the transport-level faults of era 2026.
fn error_with_id(
    status: StatusCode,
    id: &Value,
    code: i64,
    message: &str,
) -> Box<Response<ResponseBody>> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    Box::new(fixed(status, "application/json", body.to_string()))
}

fn valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        // Integers, including ones written as 1.0 or 1e2; never fractions or beyond i64.
        Value::Number(n) => {
            n.is_i64()
                || n.as_f64().is_some_and(|f| {
                    f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64
                })
        }
        _ => false,
    }
}

/// Why the params of a method we serve do not have the shape the method needs.
fn params_problem(method: &str, params: &serde_json::Map<String, Value>) -> Option<String> {
    let string = |key: &str| params.get(key).is_some_and(Value::is_string);
    let object_or_absent = |key: &str| params.get(key).is_none_or(Value::is_object);
    let string_or_absent = |key: &str| params.get(key).is_none_or(Value::is_string);
    match method {
        "tools/call" => {
            if !string("name") {
                return Some("`name` must be the tool name, a string".into());
            }
            if !object_or_absent("arguments") {
                return Some("`arguments` must be an object".into());
            }
            if !string_or_absent("requestState") {
                return Some("`requestState` must be a string".into());
            }
            if !object_or_absent("inputResponses") {
                return Some("`inputResponses` must be an object".into());
            }
        }
        "resources/read" if !string("uri") => {
            return Some("`uri` must be a string".into());
        }
        "prompts/get" => {
            if !string("name") {
                return Some("`name` must be the prompt name, a string".into());
            }
            match params.get("arguments") {
                None | Some(Value::Null) => {}
                Some(Value::Object(args)) => {
                    if let Some((key, _)) = args.iter().find(|(_, v)| !v.is_string()) {
                        return Some(format!("prompt argument `{key}` must be a string"));
                    }
                }
                Some(_) => return Some("`arguments` must be an object of strings".into()),
            }
        }
        "completion/complete" => {
            let reference = params.get("ref").and_then(Value::as_object);
            let ref_ok = reference.is_some_and(|r| match r.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => r.get("name").is_some_and(Value::is_string),
                Some("ref/resource") => r.get("uri").is_some_and(Value::is_string),
                _ => false,
            });
            if !ref_ok {
                return Some(
                    "`ref` must be {type: ref/prompt, name} or {type: ref/resource, uri}".into(),
                );
            }
            let argument = params.get("argument").and_then(Value::as_object);
            if !argument.is_some_and(|a| {
                a.get("name").is_some_and(Value::is_string)
                    && a.get("value").is_some_and(Value::is_string)
            }) {
                return Some("`argument` must be {name, value}, both strings".into());
            }
        }
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list"
            if params.get("cursor").is_some_and(|c| !c.is_null()) =>
        {
            return Some("unknown `cursor`: this server returns every item in one page".into());
        }
        "initialize" => {
            if !string("protocolVersion") {
                return Some("`protocolVersion` must be a string".into());
            }
            if !params.get("capabilities").is_some_and(Value::is_object) {
                return Some("`capabilities` must be an object".into());
            }
            let info = params.get("clientInfo").and_then(Value::as_object);
            if !info.is_some_and(|i| {
                i.get("name").is_some_and(Value::is_string)
                    && i.get("version").is_some_and(Value::is_string)
            }) {
                return Some("`clientInfo` must be {name, version}".into());
            }
        }
        _ => {}
    }
    None
}

/// Checks that `bytes` is one JSON-RPC 2.0 request, notification or response, and that the
/// params of the methods we serve have the right shape, answering with the JSON-RPC error a
/// client expects (`id` echoed whenever there is a usable one). `parsed` is `bytes` already
/// read as JSON by the front (`None`: not JSON), so the body is parsed once for every use.
pub fn check(
    bytes: &[u8],
    parsed: Option<&Value>,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    check_shape(parsed, headers)?;
    // Whatever rmcp still cannot read (duplicate members, for one: `Value` keeps the last,
    // rmcp refuses) would become its plain-text 415: one JSON-RPC error instead.
    if serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes).is_err() {
        return Err(error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Invalid Request: the message cannot be read (duplicate or malformed members)",
        ));
    }
    Ok(())
}

fn check_shape(
    parsed: Option<&Value>,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    let object = message_object(parsed)?;
    let id = object.get("id");
    let Some(method) = object.get("method") else {
        return check_response(object, id);
    };
    if let Some(id) = id
        && !valid_id(id)
    {
        return Err(invalid("`id` must be a string or an integer"));
    }
    let Some(method) = method.as_str().filter(|m| !m.is_empty()) else {
        return Err(invalid("`method` must be a non-empty string"));
    };
    let empty = serde_json::Map::new();
    let params = match object.get("params") {
        None => &empty,
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid("`params` must be an object")),
    };
    let Some(id) = id else {
        return Ok(()); // a notification: accepted and ignored
    };
    check_request(method, id, params, headers)
}

/// A 400 -32600 saying why the message is not a valid JSON-RPC request.
fn invalid(why: &str) -> Box<Response<ResponseBody>> {
    error(
        StatusCode::BAD_REQUEST,
        -32600,
        &format!("Invalid Request: {why}"),
    )
}

/// The message as a JSON-RPC 2.0 object: JSON, one object (no batch), `jsonrpc: "2.0"`.
fn message_object(
    parsed: Option<&Value>,
) -> Result<&serde_json::Map<String, Value>, Box<Response<ResponseBody>>> {
    let value = parsed.ok_or_else(|| {
        error(
            StatusCode::BAD_REQUEST,
            -32700,
            "Parse error: the body is not valid JSON",
        )
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(invalid(
                "JSON-RPC batches are not supported; send one message per POST",
            ));
        }
        _ => return Err(invalid("a JSON-RPC message must be a JSON object")),
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(invalid("`jsonrpc` must be \"2.0\""));
    }
    Ok(object)
}

/// A response: exactly one of result / error, an error being {code, message}.
fn check_response(
    object: &serde_json::Map<String, Value>,
    id: Option<&Value>,
) -> Result<(), Box<Response<ResponseBody>>> {
    let (result, err) = (object.get("result"), object.get("error"));
    match (result, err) {
        (Some(_), None) if id.is_some_and(valid_id) => Ok(()),
        (None, Some(Value::Object(e)))
            if e.get("code").is_some_and(Value::is_i64)
                && e.get("message").is_some_and(Value::is_string)
                && id.is_some_and(|i| i.is_null() || valid_id(i)) =>
        {
            Ok(())
        }
        (None, None) => Err(invalid("no `method`, `result` or `error`")),
        _ => Err(invalid(
            "a response carries an `id` and exactly one of `result` or `error` {code, message}",
        )),
    }
}

/// A request with an `id`: its `_meta`, its era against the version header, and the shape of
/// the params of a method we serve.
fn check_request(
    method: &str,
    id: &Value,
    params: &serde_json::Map<String, Value>,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    let header_version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .map(str::trim);
    let era_2026_header = header_version.is_some_and(|v| v >= "2026-07-28");
    if let Some(meta) = params.get("_meta")
        && !meta.is_object()
    {
        // Era 2026 makes a malformed `_meta` a 400; in era 2025 it is just bad params.
        let status = if era_2026_header {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        return Err(error_with_id(
            status,
            id,
            -32602,
            "Invalid params: `_meta` must be an object",
        ));
    }
    let claims_modern = params
        .get("_meta")
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .is_some();
    if method == "initialize" && !claims_modern && era_2026_header {
        return Err(error_with_id(
            StatusCode::BAD_REQUEST,
            id,
            -32020,
            "Header mismatch: initialize is era 2025, but MCP-Protocol-Version names an era-2026 version",
        ));
    }
    // `initialize` carrying a modern claim is an era-2026 call of a removed method: rmcp
    // answers 404 / -32601 for it, whatever its params.
    let removed_in_2026 = method == "initialize" && claims_modern;
    if !removed_in_2026 && let Some(problem) = params_problem(method, params) {
        return Err(error_with_id(
            StatusCode::OK,
            id,
            -32602,
            &format!("Invalid params for {method}: {problem}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_bytes(bytes: &[u8]) -> Result<(), Box<Response<ResponseBody>>> {
        let parsed = serde_json::from_slice::<Value>(bytes).ok();
        check(bytes, parsed.as_ref(), &HeaderMap::new())
    }

    fn code(body: &str) -> Option<(u16, i64)> {
        check_bytes(body.as_bytes()).err().map(|r| {
            let status = r.status().as_u16();
            (status, 0)
        })
    }

    #[test]
    fn well_formed_messages_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#,
        ] {
            assert!(check_bytes(ok.as_bytes()).is_ok(), "{ok}");
        }
    }

    #[test]
    fn malformed_messages_are_400() {
        for bad in [
            "{",
            "42",
            "[]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"id":1,"method":"x"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":{},"method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#,
            r#"{"jsonrpc":"2.0","id":1}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        ] {
            assert_eq!(code(bad).map(|c| c.0), Some(400), "{bad}");
        }
    }
}
