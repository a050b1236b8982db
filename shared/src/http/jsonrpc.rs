//! The first look at a POST body: read it within the size limit, scan and parse it once
//! ([`super::body`]), and check that it is one JSON-RPC message, so malformed input gets the
//! JSON-RPC answer clients expect (400 with -32700 or -32600) before anything else runs.

use bytes::Bytes;
use http::{HeaderMap, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::Deserialize as _;
use serde_json::{Value, json};

use super::body::{self, Message};
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
            &format!("O corpo da requisição passa de {limit} bytes"),
        )),
        Err(_) => Err(error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Não foi possível ler o corpo da requisição",
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
    let problem = match method {
        "tools/call" if !string("name") => "`name` deve ser o nome da tool, um texto",
        "tools/call" if !object_or_absent("arguments") => "`arguments` deve ser um objeto",
        "tools/call" if !string_or_absent("requestState") => "`requestState` deve ser um texto",
        "tools/call" if !object_or_absent("inputResponses") => {
            "`inputResponses` deve ser um objeto"
        }
        "resources/read" if !string("uri") => "`uri` deve ser um texto",
        "prompts/get" if !string("name") => "`name` deve ser o nome do prompt, um texto",
        "prompts/get" => return prompt_arguments_problem(params),
        "completion/complete" => return completion_problem(params),
        "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list"
            if params.get("cursor").is_some_and(|c| !c.is_null()) =>
        {
            "`cursor` desconhecido: este servidor devolve todos os itens numa página só"
        }
        "initialize" => return initialize_problem(params),
        _ => return None,
    };
    Some(problem.to_owned())
}

/// `prompts/get`'s `arguments`: absent, null, or an object of strings.
fn prompt_arguments_problem(params: &serde_json::Map<String, Value>) -> Option<String> {
    match params.get("arguments") {
        None | Some(Value::Null) => None,
        Some(Value::Object(args)) => args
            .iter()
            .find(|(_, v)| !v.is_string())
            .map(|(key, _)| format!("o argumento `{key}` do prompt deve ser um texto")),
        Some(_) => Some("`arguments` deve ser um objeto de textos".into()),
    }
}

/// `completion/complete`: a prompt or resource `ref`, and an `argument` {name, value}.
fn completion_problem(params: &serde_json::Map<String, Value>) -> Option<String> {
    let reference = params.get("ref").and_then(Value::as_object);
    let ref_ok = reference.is_some_and(|r| match r.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => r.get("name").is_some_and(Value::is_string),
        Some("ref/resource") => r.get("uri").is_some_and(Value::is_string),
        _ => false,
    });
    if !ref_ok {
        return Some("`ref` deve ser {type: ref/prompt, name} ou {type: ref/resource, uri}".into());
    }
    let argument = params.get("argument").and_then(Value::as_object);
    let argument_ok = argument.is_some_and(|a| {
        a.get("name").is_some_and(Value::is_string) && a.get("value").is_some_and(Value::is_string)
    });
    (!argument_ok).then(|| "`argument` deve ser {name, value}, ambos textos".into())
}

/// `initialize`: a `protocolVersion`, `capabilities`, and `clientInfo` {name, version}.
fn initialize_problem(params: &serde_json::Map<String, Value>) -> Option<String> {
    if !params.get("protocolVersion").is_some_and(Value::is_string) {
        return Some("`protocolVersion` deve ser um texto".into());
    }
    if !params.get("capabilities").is_some_and(Value::is_object) {
        return Some("`capabilities` deve ser um objeto".into());
    }
    let info = params.get("clientInfo").and_then(Value::as_object);
    let info_ok = info.is_some_and(|i| {
        i.get("name").is_some_and(Value::is_string)
            && i.get("version").is_some_and(Value::is_string)
    });
    (!info_ok).then(|| "`clientInfo` deve ser {name, version}".into())
}

/// Reads `bytes` as one JSON text, after the byte scan bounded what the parse may build:
/// 400 -32600 for a body over the scan's bounds, -32700 for one that is not JSON.
pub fn read_message(bytes: &[u8]) -> Result<Message, Box<Response<ResponseBody>>> {
    if let Err(refusal) = body::scan(bytes) {
        tracing::info!(%refusal, "a body over the scan's bounds refused");
        return Err(invalid(&refusal.to_string()));
    }
    body::parse(bytes).map_err(|_| {
        error(
            StatusCode::BAD_REQUEST,
            -32700,
            "Erro de leitura: o corpo não é um JSON válido",
        )
    })
}

/// Checks that `message` (the body `bytes`, read once) is one JSON-RPC 2.0 request,
/// notification or response, and that the params of the methods we serve have the right
/// shape, answering with the JSON-RPC error a client expects (`id` echoed whenever there is a
/// usable one).
pub fn check(
    bytes: &[u8],
    message: &Message,
    headers: &HeaderMap,
) -> Result<(), Box<Response<ResponseBody>>> {
    check_shape(Some(&message.value), headers)?;
    // Whatever rmcp still cannot read becomes its plain-text 415: one JSON-RPC error instead.
    // The tree is rmcp's reading of the bytes unless a member was repeated (the tree keeps the
    // last, rmcp may refuse): only then are the bytes read again.
    let readable = if message.repeated_member {
        serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(bytes).is_ok()
    } else {
        rmcp::model::ClientJsonRpcMessage::deserialize(&message.value).is_ok()
    };
    if !readable {
        return Err(error(
            StatusCode::BAD_REQUEST,
            -32600,
            "Requisição inválida: a mensagem não pode ser lida (membros repetidos ou malformados)",
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
        return Err(invalid("`id` deve ser um texto ou um número inteiro"));
    }
    let Some(method) = method.as_str().filter(|m| !m.is_empty()) else {
        return Err(invalid("`method` deve ser um texto não vazio"));
    };
    let empty = serde_json::Map::new();
    let params = match object.get("params") {
        None => &empty,
        Some(Value::Object(params)) => params,
        Some(_) => return Err(invalid("`params` deve ser um objeto")),
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
        &format!("Requisição inválida: {why}"),
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
            "Erro de leitura: o corpo não é um JSON válido",
        )
    })?;
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(invalid(
                "lotes JSON-RPC não são aceitos; envie uma mensagem por POST",
            ));
        }
        _ => return Err(invalid("uma mensagem JSON-RPC deve ser um objeto JSON")),
    };
    if object.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(invalid("`jsonrpc` deve ser \"2.0\""));
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
        (None, None) => Err(invalid("falta `method`, `result` ou `error`")),
        _ => Err(invalid(
            "uma resposta leva um `id` e exatamente um de `result` ou `error` {code, message}",
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
            "Parâmetros inválidos: `_meta` deve ser um objeto",
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
            "Cabeçalho incoerente: initialize é da era 2025, mas MCP-Protocol-Version nomeia uma versão da era 2026",
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
            &format!("Parâmetros inválidos para {method}: {problem}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_bytes(bytes: &[u8]) -> Result<(), Box<Response<ResponseBody>>> {
        let message = read_message(bytes)?;
        check(bytes, &message, &HeaderMap::new())
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
