//! Unknown methods answer `-32601` with a sentence, `Método não encontrado: <name>`, in both
//! eras, whether rmcp or our fallback handler refuses them (CL-6).

use crate::common;

use common::Stack;
use fake_kobana::full_token;
use serde_json::json;

#[tokio::test]
async fn unknown_methods_are_named_in_a_sentence_in_both_eras() {
    let stack = Stack::start().await;
    let token = full_token();
    let modern = [
        // Removed in era 2026: refused by rmcp itself.
        ("ping", json!({})),
        (
            "resources/subscribe",
            json!({"uri": "kobana://billing/organization"}),
        ),
        // Never served: refused by our fallback handler.
        ("billing/whatever", json!({})),
    ];
    for (method, params) in modern {
        let (status, body) = stack.modern(&token, method, params).await;
        assert_eq!(status, 404, "{method}: {body}");
        assert_eq!(body["error"]["code"], -32601, "{method}: {body}");
        assert_eq!(
            body["error"]["message"],
            format!("Método não encontrado: {method}"),
            "{method}: {body}"
        );
    }
    let legacy = [
        ("logging/setLevel", json!({"level": "debug"})),
        ("billing/whatever", json!({})),
    ];
    for (method, params) in legacy {
        let (status, body) = stack.legacy(&token, method, params).await;
        assert_eq!(status, 200, "{method}: {body}");
        assert_eq!(body["error"]["code"], -32601, "{method}: {body}");
        assert_eq!(
            body["error"]["message"],
            format!("Método não encontrado: {method}"),
            "{method}: {body}"
        );
    }
}

#[tokio::test]
async fn a_long_unknown_method_is_still_named_whole() {
    let stack = Stack::start().await;
    let method = format!("x/{}", "m".repeat(20_000));
    let (status, body) = stack.modern(&full_token(), &method, json!({})).await;
    assert_eq!(status, 404);
    assert_eq!(
        body["error"]["message"],
        format!("Método não encontrado: {method}")
    );
}
