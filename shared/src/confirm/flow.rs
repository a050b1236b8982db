//! The decision for one call of a destructive tool: execute, ask (again), or refuse.

use const_format::formatcp;
use rmcp::ErrorData as McpError;
use rmcp::model::{ClientCapabilities, InputRequest, InputRequiredResult, InputResponses};
use serde_json::{Value, json};

use super::question::Destructive;
use super::{
    CONFIRMATION_TTL_SECS, Clock, NonceStore, binding_digest, confirmed_idempotency_key,
    is_our_state, new_nonce,
};
use crate::catalog::{Asks, Effect, PlannedWrite, ToolCtx, ToolDef, ToolError};

/// The form's one checkbox, explained: it quotes how long a confirmation lasts
/// ([`CONFIRMATION_TTL_SECS`]).
pub const CONFIRM_DESCRIPTION: &str = formatcp!(
    "Marque para executar exatamente esta ação, com estes dados. Vale por {} minutos, uma única vez.",
    CONFIRMATION_TTL_SECS / 60
);

/// Key of our one input request (and of the answer the client sends back).
pub const CONFIRM_KEY: &str = "confirm";

/// What to do with this call.
#[derive(Debug)]
pub enum Decision {
    /// The person confirmed this exact request: run it with this idempotency key.
    Execute {
        /// `X-Idempotency-Key` for the Kobana write (derived from the binding digest).
        idempotency_key: String,
    },
    /// Ask the person: answer with this `input_required` result.
    Ask(InputRequiredResult),
    /// The person said no: nothing runs. `consumed`: the answer named a confirmation of ours,
    /// bound to this request, and consumed it now (what the audit entry's organization
    /// rests on).
    Declined {
        /// The confirmation was consumed by this answer.
        consumed: bool,
    },
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

/// Decides what to do with one call of the destructive `tool`, whose dry run planned `write`.
///
/// The confirmation is bound to the digest of (tool, canonical request, person,
/// organization); a confirmed call's idempotency key is derived from that same digest.
/// Errors (`-32602`) only for a `requestState` that is not even of our format (CF-4: every
/// other mismatch simply asks again).
#[allow(
    clippy::too_many_arguments,
    reason = "one decision over the call's own parts; a struct of them would serve this call only"
)]
pub async fn decide(
    store: &dyn NonceStore,
    clock: &Clock,
    ctx: &ToolCtx,
    tool: &ToolDef,
    write: &PlannedWrite,
    request_state: Option<&str>,
    input_responses: Option<&InputResponses>,
) -> Result<Decision, McpError> {
    let principal = &ctx.principal;
    let digest = binding_digest(
        tool.meta.name,
        &write.canonical(),
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
                let consumed = match store.consume(state, &digest, clock()).await {
                    Ok(consumed) => consumed,
                    Err(error) => {
                        tracing::warn!(%error, "could not discard a declined confirmation");
                        false
                    }
                };
                return Ok(Decision::Declined { consumed });
            }
            Answer::Yes => match store.consume(state, &digest, clock()).await {
                Ok(true) => {
                    return Ok(Decision::Execute {
                        idempotency_key: confirmed_idempotency_key(&digest),
                    });
                }
                Ok(false) => {
                    if let Some(record) = ctx.kobana.record() {
                        record.confirmation(crate::telemetry::ConfirmationStep::Mismatched);
                    }
                    tracing::info!(
                        tool = tool.meta.name,
                        "confirmation unknown, used, expired or mismatched: asking again"
                    );
                }
                Err(error) => {
                    tracing::error!(%error, "confirmation store unavailable: failing closed");
                    return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable));
                }
            },
        }
    }
    ask(store, clock, ctx, tool, write, &digest).await
}

/// The question of `write`: the curated tool's own, or the generic tool's row sentence.
async fn question(
    ctx: &ToolCtx,
    tool: &ToolDef,
    write: &PlannedWrite,
) -> Result<String, ToolError> {
    let action = match tool.meta.effect {
        Effect::Destructive {
            asks: Asks::Operation,
            ..
        } => return super::operation::question(ctx, write).await,
        Effect::Destructive { asks, .. } => Destructive::from_planned(asks, write),
        _ => None,
    };
    let Some(action) = action else {
        tracing::error!(
            tool = tool.meta.name,
            method = %write.method,
            path = %write.path_shape(),
            "a destructive write this server cannot describe: refused"
        );
        return Err(ToolError::Undescribable);
    };
    action.question(ctx).await
}

async fn ask(
    store: &dyn NonceStore,
    clock: &Clock,
    ctx: &ToolCtx,
    tool: &ToolDef,
    write: &PlannedWrite,
    digest: &str,
) -> Result<Decision, McpError> {
    // Reading the record comes first: a token Kobana rejects, a record that is not there, or
    // a record that cannot be read refuses here, before anything is stored.
    let message = match question(ctx, tool, write).await {
        Ok(message) => message,
        Err(error) => return Ok(Decision::Refuse(error)),
    };
    let nonce = match new_nonce() {
        Ok(nonce) => nonce,
        Err(error) => {
            tracing::error!(%error, "no nonce: failing closed");
            return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable));
        }
    };
    if let Err(error) = store
        .put(
            &nonce,
            digest,
            clock().saturating_add(CONFIRMATION_TTL_SECS),
        )
        .await
    {
        tracing::error!(%error, "confirmation store unavailable: failing closed");
        return Ok(Decision::Refuse(ToolError::ConfirmationUnavailable));
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
                    "description": CONFIRM_DESCRIPTION,
                    "default": false
                }},
                "required": [CONFIRM_KEY]
            }
        }
    }))
    .map_err(|e| {
        crate::protocol_errors::internal(format!("o pedido de confirmação não se formou ({e})"))
    })?;
    let mut requests = rmcp::model::InputRequests::new();
    requests.insert(CONFIRM_KEY.to_owned(), request);
    Ok(Decision::Ask(InputRequiredResult::new(
        Some(requests),
        Some(nonce),
    )))
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

    /// NM-4: the form says how long a confirmation lasts from the constant that decides it.
    #[test]
    fn nm4_the_form_quotes_the_confirmation_ttl() {
        assert_eq!(CONFIRMATION_TTL_SECS % 60, 0, "whole minutes");
        let minutes = CONFIRMATION_TTL_SECS / 60;
        assert!(
            CONFIRM_DESCRIPTION.contains(&format!("Vale por {minutes} minutos")),
            "{CONFIRM_DESCRIPTION}"
        );
    }
}
