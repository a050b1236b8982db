//! The decision for one call of a destructive tool: execute, ask (again), or refuse.

use rmcp::ErrorData as McpError;
use rmcp::model::{ClientCapabilities, InputRequest, InputRequiredResult, InputResponses};
use serde_json::{Value, json};

use super::{
    CONFIRMATION_TTL_SECS, Clock, NonceStore, binding_digest, idempotency_key, is_our_state,
    new_nonce,
};
use crate::catalog::{ToolCtx, ToolDef, ToolError};
use crate::format::{brl_from_cents, brl_from_subcents, sao_paulo_time};

/// Key of our one input request (and of the answer the client sends back).
pub const CONFIRM_KEY: &str = "confirm";

/// What to do with this call.
#[derive(Debug)]
pub enum Decision {
    /// The person confirmed this exact call: run it with this idempotency key.
    Execute {
        /// `X-Idempotency-Key` for the Kobana write.
        idempotency_key: String,
    },
    /// Ask the person: answer with this `input_required` result.
    Ask(InputRequiredResult),
    /// Do not run; answer with this tool error.
    Refuse(ToolError),
}

/// CF-5: `elicitation` present with `form`, or with neither `form` nor `url`.
pub fn form_elicitation_declared(capabilities: Option<&ClientCapabilities>) -> bool {
    capabilities
        .and_then(|c| c.elicitation.as_ref())
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The person's answer, read from `inputResponses.confirm`.
enum Answer {
    Yes,
    No,
    Unusable,
}

fn answer(responses: Option<&InputResponses>) -> Answer {
    let Some(response) = responses.and_then(|r| r.get(CONFIRM_KEY)) else {
        return Answer::Unusable;
    };
    match response.get("action").and_then(Value::as_str) {
        Some("decline") | Some("cancel") => Answer::No,
        Some("accept") => match response.get("content").and_then(|c| c.get(CONFIRM_KEY)) {
            Some(Value::Bool(true)) => Answer::Yes,
            Some(Value::Bool(false)) => Answer::No,
            _ => Answer::Unusable,
        },
        _ => Answer::Unusable,
    }
}

/// Decides what to do with one call of the destructive `tool`.
///
/// Errors (`-32602`) only for a `requestState` that is not even of our format (CF-4: every
/// other mismatch simply asks again).
#[allow(clippy::too_many_arguments)]
pub async fn decide(
    store: &dyn NonceStore,
    clock: &Clock,
    ctx: &ToolCtx,
    tool: &ToolDef,
    arguments: &Value,
    request_state: Option<&str>,
    input_responses: Option<&InputResponses>,
) -> Result<Decision, McpError> {
    let principal = &ctx.principal;
    let digest = binding_digest(
        tool.meta.name,
        arguments,
        &principal.person,
        &principal.organization,
    );
    if let Some(state) = request_state {
        if !is_our_state(state) {
            return Err(McpError::invalid_params(
                "requestState inválido: não foi emitido por este servidor",
                Some(json!({"requestState": "invalid"})),
            ));
        }
        match answer(input_responses) {
            Answer::Unusable => {}
            Answer::No => {
                if let Err(error) = store.consume(state, &digest, clock()).await {
                    tracing::warn!(%error, "could not discard a declined confirmation");
                }
                return Ok(Decision::Refuse(ToolError::UserDeclined));
            }
            Answer::Yes => match store.consume(state, &digest, clock()).await {
                Ok(true) => {
                    return Ok(Decision::Execute {
                        idempotency_key: idempotency_key(state),
                    });
                }
                Ok(false) => {
                    tracing::info!(
                        tool = tool.meta.name,
                        "confirmation unknown, used, expired or mismatched: asking again"
                    );
                }
                Err(error) => {
                    return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable(
                        error.0,
                    )));
                }
            },
        }
    }
    ask(store, clock, ctx, tool, arguments, &digest).await
}

async fn ask(
    store: &dyn NonceStore,
    clock: &Clock,
    ctx: &ToolCtx,
    tool: &ToolDef,
    arguments: &Value,
    digest: &str,
) -> Result<Decision, McpError> {
    let message = match describe(ctx, tool, arguments).await {
        Ok(message) => message,
        Err(error) => return Ok(Decision::Refuse(error)),
    };
    let nonce = match new_nonce() {
        Ok(nonce) => nonce,
        Err(error) => {
            return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable(
                error.0,
            )));
        }
    };
    if let Err(error) = store
        .put(&nonce, digest, clock() + CONFIRMATION_TTL_SECS)
        .await
    {
        tracing::error!(%error, "confirmation store unavailable: failing closed");
        return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable(
            error.0,
        )));
    }
    let request: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {CONFIRM_KEY: {
                    "type": "boolean",
                    "title": "Confirmar esta ação?",
                    "description": "Marque para executar exatamente esta ação, com estes dados. Vale por 5 minutos, uma única vez.",
                    "default": false
                }},
                "required": [CONFIRM_KEY]
            }
        }
    }))
    .map_err(|e| McpError::internal_error(format!("elicitation request: {e}"), None))?;
    let mut requests = rmcp::model::InputRequests::new();
    requests.insert(CONFIRM_KEY.to_owned(), request);
    Ok(Decision::Ask(InputRequiredResult::new(
        Some(requests),
        Some(nonce),
    )))
}

/// The verb phrase per destructive tool, for the question the person reads.
fn verb(tool: &str) -> &'static str {
    match tool {
        "billing_customers_delete" => "Remover",
        "billing_subscriptions_cancel" => "Cancelar",
        "billing_invoices_void" => "Anular",
        "billing_invoices_delete" => "Excluir",
        "billing_payments_refund" => "Estornar",
        "billing_nfes_cancel" => "Cancelar",
        _ => "Executar a ação sobre",
    }
}

fn text(record: &Value, key: &str) -> Option<String> {
    match record.get(key)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn money(record: &Value, cents: &str, subcents: &str) -> Option<String> {
    record
        .get(subcents)
        .and_then(Value::as_i64)
        .map(brl_from_subcents)
        .or_else(|| {
            record
                .get(cents)
                .and_then(Value::as_i64)
                .map(brl_from_cents)
        })
}

fn day(record: &Value, key: &str) -> Option<String> {
    let local = sao_paulo_time(record.get(key)?.as_str()?)?;
    let (y, rest) = local.split_once('-')?;
    let (m, rest) = rest.split_once('-')?;
    Some(format!("{}/{m}/{y}", &rest[..2]))
}

/// Who a billing account bills, as far as Kobana tells: `cliente <name>` when the account
/// embeds its customer (the document says the relation is present only when loaded, and the
/// account has no `customer_id`), else `conta de cobrança <billing_email>`.
async fn customer_of(ctx: &ToolCtx, record: &Value) -> Option<String> {
    let account = record.get("billing_account_id")?.as_str()?;
    let envelope = ctx
        .kobana
        .get(&ctx.principal.token, &["billing_accounts", account], &[])
        .await
        .ok()?;
    let data = &envelope.data;
    data.get("customer")
        .and_then(|c| text(c, "name"))
        .map(|name| format!("cliente {name}"))
        .or_else(|| text(data, "billing_email").map(|e| format!("conta de cobrança {e}")))
}

/// The pt-BR question: the action and the object in words a person checks.
async fn describe(ctx: &ToolCtx, tool: &ToolDef, arguments: &Value) -> Result<String, ToolError> {
    let toolset = tool.meta.toolset;
    let id = arguments.get("id").and_then(Value::as_str).unwrap_or("");
    let object = if crate::kobana::segment_is_safe(id) {
        match ctx
            .kobana
            .get(&ctx.principal.token, &[toolset, id], &[])
            .await
        {
            Ok(envelope) => Some(envelope.data),
            Err(error) if error.status() == Some(404) => return Err(error.into()),
            Err(_) => None,
        }
    } else {
        None
    };
    let described = match (&object, toolset) {
        (Some(r), "invoices") => {
            let number = text(r, "number")
                .map(|n| format!("a fatura {n}"))
                .unwrap_or_else(|| "o rascunho de fatura".to_owned());
            let mut s = number;
            if let Some(total) = money(r, "total_cents", "total_subcents") {
                s.push_str(&format!(" de {total}"));
            }
            if let Some(due) = day(r, "due_date") {
                s.push_str(&format!(", vencimento {due}"));
            }
            if let Some(payer) = customer_of(ctx, r).await {
                s.push_str(&format!(", {payer}"));
            }
            s
        }
        (Some(r), "nfes") => {
            let mut s = text(r, "nfe_number")
                .map(|n| format!("a NF-e nº {n}"))
                .unwrap_or_else(|| "a NF-e".to_owned());
            if let Some(amount) = money(r, "amount_cents", "amount_subcents") {
                s.push_str(&format!(" de {amount}"));
            }
            if let Some(name) = r.get("customer_snapshot").and_then(|c| text(c, "name")) {
                s.push_str(&format!(", tomador {name}"));
            }
            s
        }
        (Some(r), "payments") => {
            let mut s = "o pagamento".to_owned();
            if let Some(amount) = money(r, "amount_cents", "amount_subcents") {
                s.push_str(&format!(" de {amount}"));
            }
            if let Some(method) = text(r, "payment_method_type") {
                s.push_str(&format!(" ({method})"));
            }
            if let Some(payer) = customer_of(ctx, r).await {
                s.push_str(&format!(", {payer}"));
            }
            s
        }
        (Some(r), "subscriptions") => {
            let mut s = "a assinatura".to_owned();
            if let Some(cycle) = text(r, "billing_cycle") {
                s.push_str(&format!(" {cycle}"));
            }
            if let Some(amount) = money(r, "recurring_amount_cents", "recurring_amount_subcents") {
                s.push_str(&format!(" de {amount}"));
            }
            if let Some(payer) = customer_of(ctx, r).await {
                s.push_str(&format!(", {payer}"));
            }
            s
        }
        (Some(r), "customers") => {
            let mut s = format!("o cliente {}", text(r, "name").unwrap_or_default());
            if let Some(doc) = text(r, "document_number") {
                s.push_str(&format!(" ({doc})"));
            }
            s
        }
        _ => format!("o registro {id}"),
    };
    let mut message = format!("{} {described}?", verb(tool.meta.name));
    if let Some(amount) = arguments.get("amount_cents").and_then(Value::as_i64) {
        message.push_str(&format!(" Valor a estornar: {}.", brl_from_cents(amount)));
    }
    if let Some(reason) = arguments.get("reason").and_then(Value::as_str) {
        message.push_str(&format!(" Motivo: \"{reason}\"."));
    }
    if arguments.get("cancel_at_period_end") == Some(&Value::Bool(true)) {
        message.push_str(" O cancelamento vale no fim do período atual.");
    }
    message.push_str(" Esta ação não pode ser desfeita.");
    Ok(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn cf5_form_support_is_read_like_the_spec() {
        assert!(form_elicitation_declared(Some(&caps(
            json!({"elicitation": {}})
        ))));
        assert!(form_elicitation_declared(Some(&caps(
            json!({"elicitation": {"form": {}}})
        ))));
        assert!(form_elicitation_declared(Some(&caps(
            json!({"elicitation": {"form": {}, "url": {}}})
        ))));
        assert!(!form_elicitation_declared(Some(&caps(
            json!({"elicitation": {"url": {}}})
        ))));
        assert!(!form_elicitation_declared(Some(&caps(json!({})))));
        assert!(!form_elicitation_declared(None));
    }

    #[test]
    fn cf3_only_an_explicit_yes_counts() {
        let mut r = InputResponses::new();
        r.insert(
            CONFIRM_KEY.into(),
            json!({"action": "accept", "content": {"confirm": true}}),
        );
        assert!(matches!(answer(Some(&r)), Answer::Yes));
        for no in [
            json!({"action": "decline"}),
            json!({"action": "cancel"}),
            json!({"action": "accept", "content": {"confirm": false}}),
        ] {
            r.insert(CONFIRM_KEY.into(), no);
            assert!(matches!(answer(Some(&r)), Answer::No));
        }
        for unusable in [
            json!({"action": "accept"}),
            json!({"action": "accept", "content": {"confirm": "true"}}),
            json!({"action": "maybe"}),
            json!("yes"),
        ] {
            r.insert(CONFIRM_KEY.into(), unusable);
            assert!(matches!(answer(Some(&r)), Answer::Unusable));
        }
        assert!(matches!(answer(None), Answer::Unusable));
    }
}
