//! The protocol errors (JSON-RPC `error` objects) the server raises itself, and the rule of
//! the language of every message it writes.
//!
//! **Error language.** Every message text our code writes for a person is pt-BR: tool error
//! results, the JSON-RPC error messages the server itself raises (unknown tool, invalid
//! params, resource not found, method not found, internal errors, and the front's parse and
//! request errors), the confirmation form, prompt messages, the token front's page. What stays
//! English: the machine-readable identifiers beside a message (JSON-RPC codes, `data` member
//! names, tool error codes such as `AMOUNT_MISMATCH`), log lines and metrics, and texts rmcp
//! raises itself before our code runs. The 401's help is pt-BR and English (RK-5). The codes
//! and `data` of every error are the protocol's; only the words are ours (NM-6).

use rmcp::ErrorData as McpError;
use serde_json::json;

/// The start of every unknown-method message (`-32601`).
pub const UNKNOWN_METHOD_PREFIX: &str = "Método não encontrado: ";

/// The pt-BR message for an unknown method: a sentence, not the bare name.
pub fn unknown_method_sentence(method: &str) -> String {
    format!("{UNKNOWN_METHOD_PREFIX}{method}")
}

/// A tool that does not exist, or that the client narrowed away: -32602.
pub fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(format!("Tool desconhecida: {name}"), None)
}

/// A resource URI that names nothing this token may read: -32002, the URI in `data.uri`
/// (the front turns it into -32602 in era 2026, R-6).
pub fn resource_not_found(uri: &str) -> McpError {
    McpError::resource_not_found("Recurso não encontrado", Some(json!({"uri": uri})))
}

/// A resource that names something real with nothing to read yet (a draft invoice's PDF):
/// the same -32002 (-32602 in era 2026) as [`resource_not_found`], its reason in the message.
pub fn resource_not_found_because(uri: &str, why: &str) -> McpError {
    McpError::resource_not_found(
        format!("Recurso não encontrado: {why}"),
        Some(json!({"uri": uri})),
    )
}

/// A method we serve whose params rmcp could not read: -32602.
pub fn unreadable_params(method: &str) -> McpError {
    McpError::invalid_params(
        format!(
            "Parâmetros inválidos para {method}: um membro falta, se repete ou tem o tipo errado"
        ),
        None,
    )
}

/// Something the server itself failed at (what the front should have put in the request, a
/// store without randomness): -32603, the cause in words.
pub fn internal(cause: impl std::fmt::Display) -> McpError {
    McpError::internal_error(format!("Erro interno do servidor: {cause}"), None)
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorCode;

    use super::*;

    /// NM-6: each constructor keeps the protocol's code and speaks pt-BR.
    #[test]
    fn nm6_protocol_errors_keep_their_codes_and_speak_pt_br() {
        let cases = [
            (
                unknown_tool("x"),
                ErrorCode::INVALID_PARAMS,
                "Tool desconhecida: x",
            ),
            (
                resource_not_found("kobana://x"),
                ErrorCode::RESOURCE_NOT_FOUND,
                "Recurso não encontrado",
            ),
            (
                unreadable_params("tools/call"),
                ErrorCode::INVALID_PARAMS,
                "Parâmetros inválidos para tools/call: um membro falta, se repete ou tem o tipo errado",
            ),
            (
                internal("sem chave"),
                ErrorCode::INTERNAL_ERROR,
                "Erro interno do servidor: sem chave",
            ),
        ];
        for (error, code, message) in cases {
            assert_eq!((error.code, error.message.as_ref()), (code, message));
        }
        let data = resource_not_found("kobana://x").data;
        assert_eq!(data, Some(json!({"uri": "kobana://x"})));
        assert_eq!(unknown_method_sentence("x/y"), "Método não encontrado: x/y");
    }
}
