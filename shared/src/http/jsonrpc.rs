//! The first look at a POST body: read it within the size limit and check that it is one
//! JSON-RPC message, so malformed input gets the JSON-RPC answer clients expect (400 with
//! -32700 or -32600) before anything else runs.

use bytes::Bytes;
use http::{Response, StatusCode};
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

/// Checks that `bytes` is one JSON-RPC 2.0 request, notification or response.
pub fn check(bytes: &[u8]) -> Result<(), Box<Response<ResponseBody>>> {
    let value: Value = serde_json::from_slice(bytes).map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            -32700,
            "Parse error: the body is not valid JSON",
        )
    })?;
    let invalid = |why: &str| {
        error(
            StatusCode::BAD_REQUEST,
            -32600,
            &format!("Invalid Request: {why}"),
        )
    };
    let object = match &value {
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
    if let Some(id) = object.get("id")
        && !matches!(id, Value::String(_) | Value::Number(_))
        && !(id.is_null() && object.contains_key("error"))
    {
        return Err(invalid("`id` must be a string or a number"));
    }
    match object.get("method") {
        Some(Value::String(m)) if !m.is_empty() => {
            if let Some(params) = object.get("params")
                && !params.is_object()
            {
                return Err(invalid("`params` must be an object"));
            }
            Ok(())
        }
        Some(_) => Err(invalid("`method` must be a non-empty string")),
        None if object.contains_key("result") || object.contains_key("error") => Ok(()),
        None => Err(invalid("no `method`, `result` or `error`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(body: &str) -> Option<(u16, i64)> {
        check(body.as_bytes()).err().map(|r| {
            let status = r.status().as_u16();
            (status, 0)
        })
    }

    #[test]
    fn well_formed_messages_pass() {
        for ok in [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#,
        ] {
            assert!(check(ok.as_bytes()).is_ok(), "{ok}");
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
        ] {
            assert_eq!(code(bad).map(|c| c.0), Some(400), "{bad}");
        }
    }
}
