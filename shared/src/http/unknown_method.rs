//! Unknown-method errors as a sentence in pt-BR: `Método não encontrado: <name>`.
//!
//! rmcp answers `-32601` with the bare method name as the message (`"ping"` for a ping in
//! era 2026, `"resources/subscribe"`, …). Our own fallback handler words it directly; the
//! errors rmcp makes itself are reworded here, on the way out. Only small JSON answers are
//! looked at (an error is a few hundred bytes), so results are never parsed twice.

use bytes::Bytes;
use http::{Response, header};
use http_body::Body;
use serde_json::Value;

use super::{ResponseBody, full, spliced};
use crate::protocol_errors::{
    UNKNOWN_METHOD_PREFIX as PREFIX, unknown_method_sentence as sentence,
};

/// Largest answer inspected, in bytes.
const LIMIT: u64 = 16 * 1024;
const CODE: &[u8] = b"-32601";

/// Rewords a `-32601` answer whose message is not yet a sentence; other answers pass as they are.
pub async fn worded(response: Response<ResponseBody>) -> Response<ResponseBody> {
    let small = response
        .body()
        .size_hint()
        .exact()
        .is_some_and(|n| n <= LIMIT);
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(small && json) {
        return response;
    }
    spliced(response, |answer| reword(answer).map(full)).await
}

fn reword(answer: &Bytes) -> Option<Bytes> {
    if !answer.windows(CODE.len()).any(|w| w == CODE) {
        return None;
    }
    let mut value: Value = serde_json::from_slice(answer).ok()?;
    let error = value.get_mut("error")?.as_object_mut()?;
    if error.get("code")?.as_i64()? != -32601 {
        return None;
    }
    let message = error.get("message")?.as_str()?;
    if message.starts_with(PREFIX) {
        return None;
    }
    let worded = sentence(message);
    error.insert("message".to_owned(), Value::String(worded));
    serde_json::to_vec(&value).ok().map(Bytes::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_names_become_sentences_once() {
        let bare = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"ping"}}"#,
        );
        let worded: Value = serde_json::from_slice(&reword(&bare).unwrap()).unwrap();
        assert_eq!(worded["error"]["message"], "Método não encontrado: ping");
        assert_eq!(worded["id"], 7);
        let again = Bytes::from(serde_json::to_vec(&worded).unwrap());
        assert!(reword(&again).is_none());
        let other = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"-32601"}}"#,
        );
        assert!(reword(&other).is_none());
    }
}
