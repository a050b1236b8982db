//! Tool errors as every client can read them (CL-7): an `isError` result carries its pt-BR text
//! as content and its machine-readable error in `_meta["br.com.kobana/error"]`, never
//! `structuredContent` (which would have to match the tool's `outputSchema`; clients that check
//! it, like the TypeScript SDK v1, would throw the text away). The same through a real client:
//! `real_clients::cl7_*`.

use crate::common;
use crate::confirm::support::memory_rig;
use fake_kobana::fixtures::ids::{INV_OPEN, UNKNOWN};

use common::{ERROR_META, Stack, error_of, text_of};
use fake_kobana::{full_token, readonly_token};
use serde_json::{Value, json};

/// `result` is a tool error whose code is `code` and whose pt-BR text holds `words`: no
/// `structuredContent`, and the `_meta` error's message is the text itself.
fn assert_tool_error(label: &str, result: &Value, code: &str, words: &str) {
    assert_eq!(result["isError"], true, "{label}: {result}");
    assert!(
        result.get("structuredContent").is_none(),
        "{label}: an error result carries no structuredContent: {result}"
    );
    let error = error_of(result);
    assert_eq!(
        error["error"], code,
        "{label}: _meta[{ERROR_META}]: {result}"
    );
    let text = text_of(result);
    assert!(text.contains(words), "{label}: pt-BR text: {text}");
    assert_eq!(error["message"], text.as_str(), "{label}: {result}");
}

#[tokio::test]
async fn cl7_every_tool_error_has_its_code_in_meta_and_no_structured_content() {
    let stack = Stack::start().await;
    let cases = [
        (
            "bad arguments",
            full_token(),
            "billing_customers_list",
            json!({"per_page": "ten"}),
            "INVALID_ARGUMENTS",
            "Argumentos inválidos",
            Value::Null,
        ),
        (
            "permission denied",
            readonly_token(),
            "billing_customers_create",
            json!({"name": "Nova Ltda"}),
            "PERMISSION_DENIED",
            "Permissão insuficiente",
            Value::Null,
        ),
        (
            "Kobana's 404",
            full_token(),
            "billing_customers_get",
            json!({"id": UNKNOWN}),
            "KOBANA_NOT_FOUND",
            "Não encontrado no Kobana",
            json!(404),
        ),
    ];
    for (label, token, tool, args, code, words, kobana_status) in cases {
        let result = stack.call(&token, tool, args).await;
        assert_tool_error(label, &result, code, words);
        assert_eq!(
            error_of(&result)["kobana_status"],
            kobana_status,
            "{label}: Kobana's status rides along where there is one: {result}"
        );
    }
}

#[tokio::test]
async fn cl7_a_declined_confirmation_has_its_code_in_meta_in_era_2026() {
    let rig = memory_rig().await;
    let args = json!({"id": INV_OPEN, "reason": "Cobrança emitida em duplicidade"});
    let asked = rig
        .call(&full_token(), "billing_invoices_void", &args, json!({}))
        .await;
    let state = asked["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("the first call asks: {asked}"));
    let declined = rig
        .call(
            &full_token(),
            "billing_invoices_void",
            &args,
            json!({"requestState": state, "inputResponses": {"confirm": {"action": "decline"}}}),
        )
        .await;
    assert_tool_error(
        "declined",
        &declined["result"],
        "USER_DECLINED",
        "A pessoa recusou a confirmação",
    );
}
