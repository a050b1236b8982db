//! The confirmation gate of one tool call: what `tools/call` does next — run the tool (with
//! the confirmed request bound to it), ask the person, or answer without running it.

use std::sync::{Arc, Mutex};

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, InputRequiredResult};
use serde_json::Value;

use super::{Clock, Decision, NonceStore, decide};
use crate::catalog::{Effect, PlannedWrite, ToolCtx, ToolDef, ToolError, WriteGate};
use crate::telemetry::ConfirmationStep;

/// What the call does after the gate.
#[derive(Debug)]
pub enum Gate {
    /// Run the tool with this context: as it came, or bound to the request the person
    /// confirmed (its write gate and idempotency key set).
    Run(ToolCtx),
    /// Ask the person: answer with this `input_required` result.
    Ask(InputRequiredResult),
    /// Answer without running the tool again: the dry run's own answer (its argument checks
    /// refused, or it finished without a write), or a refused confirmation.
    Answer(Result<Value, ToolError>),
}

/// The gate of `call` to `tool`. Only a destructive tool called by a client that can be
/// asked (`asks`: era 2026 with form elicitation, CF-5) is held: its handler runs as a dry
/// run up to its write, and what it would send — method, path and body after parsing,
/// validation and normalization — is what the person is asked about, what the confirmation is
/// bound to, and what may then be sent (CF-2…CF-4). Every other call runs as it came.
pub async fn gate(
    store: &dyn NonceStore,
    clock: &Clock,
    tool: &ToolDef,
    mut ctx: ToolCtx,
    call: &CallToolRequestParams,
    asks: bool,
) -> Result<Gate, McpError> {
    if !(asks && matches!(tool.meta.effect, Effect::Destructive { .. })) {
        return Ok(Gate::Run(ctx));
    }
    let planned = match dry_run(tool, &ctx, call).await? {
        Ok(planned) => planned,
        Err(answer) => return Ok(Gate::Answer(answer)),
    };
    let decision = decide(
        store,
        clock,
        &ctx,
        tool,
        &planned,
        call.request_state.as_deref(),
        call.input_responses.as_ref(),
    )
    .await?;
    note_step(&ctx, &decision);
    Ok(match decision {
        Decision::Execute { idempotency_key } => {
            tracing::info!(tool = tool.meta.name, "confirmed by the person");
            ctx.idempotency_key = Some(idempotency_key);
            ctx.gate = WriteGate::Confirmed(Arc::new(planned));
            if let Some(audit) = &mut ctx.audit {
                audit.confirmed();
            }
            Gate::Run(ctx)
        }
        Decision::Ask(input_required) => Gate::Ask(input_required),
        Decision::Declined { consumed } => {
            if let Some(audit) = &ctx.audit {
                let (method, body) = (planned.method.as_str(), planned.body.as_ref());
                audit
                    .declined(method, &planned.segments, body, consumed)
                    .await;
            }
            Gate::Answer(Err(ToolError::UserDeclined))
        }
        Decision::Refuse(error) => Gate::Answer(Err(error)),
    })
}

/// Runs the handler up to its write (every call: the first and each retry), so its own
/// argument checks answer first. `Ok(write)`: the write it would send; `Err(answer)`: the
/// handler answered by itself, with an error or without writing.
async fn dry_run(
    tool: &ToolDef,
    ctx: &ToolCtx,
    call: &CallToolRequestParams,
) -> Result<Result<PlannedWrite, Result<Value, ToolError>>, McpError> {
    let slot = Arc::new(Mutex::new(None));
    let mut probe = ctx.clone();
    probe.gate = WriteGate::Plan(slot.clone());
    match tool.run(probe, call.arguments.clone()).await {
        Err(ToolError::ConfirmationRequired) => {}
        answered => return Ok(Err(answered)),
    }
    let planned = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
    planned
        .map(Ok)
        .ok_or_else(|| crate::protocol_errors::internal("a simulação não planejou nenhuma escrita"))
}

/// Notes the confirmation step in the request line: confirmed, asked or declined.
fn note_step(ctx: &ToolCtx, decision: &Decision) {
    let step = match decision {
        Decision::Execute { .. } => ConfirmationStep::Confirmed,
        Decision::Ask(_) => ConfirmationStep::Asked,
        Decision::Declined { .. } => ConfirmationStep::Declined,
        Decision::Refuse(_) => return,
    };
    if let Some(record) = ctx.kobana.record() {
        record.confirmation(step);
    }
}
