//! The questions that name an NF-e: cancelling it, issuing (or retrying) it.

use serde_json::Value;

use super::words::{Question, cents, day, text, word};
use super::{Destructive, labels, payer};
use crate::catalog::{ToolCtx, ToolError};

/// Why the NF-e's state makes the request impossible: cancelling one already cancelled or
/// being cancelled; issuing one already issued, at the provider, or cancelled.
pub(super) fn impossible(request: &Destructive, record: &Value) -> Option<String> {
    let status = word(record, "status");
    let why = match (request, status) {
        (Destructive::CancelNfe { .. }, "canceled") => "A NF-e já está cancelada.",
        (Destructive::CancelNfe { .. }, "pending_cancel" | "canceling") => {
            "O cancelamento desta NF-e já foi pedido e está em andamento."
        }
        (Destructive::IssueNfe { .. }, "issued") => "A NF-e já foi emitida.",
        (Destructive::IssueNfe { .. }, "processing") => {
            "A NF-e já está em processamento na prefeitura; consulte-a depois com billing_nfes_get."
        }
        (Destructive::IssueNfe { .. }, "canceled" | "pending_cancel" | "canceling") => {
            "Uma NF-e cancelada (ou em cancelamento) não se emite de novo."
        }
        _ => return None,
    };
    Some(format!(
        "{why} Situação atual da NF-e: {}.",
        labels::nfe_status(status)
    ))
}

/// Cancelling or issuing an NF-e: the action, the NF-e, where the request goes, the taker
/// (the name on the note, else the payer), the reason.
pub(super) async fn describe(
    ctx: &ToolCtx,
    request: &Destructive,
    record: &Value,
    q: &mut Question,
) -> Result<(), ToolError> {
    let object = nfe_object(record);
    match request {
        Destructive::CancelNfe { .. } => {
            q.fact(format!("Cancelar {object}"));
            q.note("O pedido de cancelamento vai à prefeitura.");
        }
        Destructive::IssueNfe { .. } => {
            let rest = object.strip_prefix("a NF-e ").unwrap_or(&object);
            q.fact(match word(record, "status") {
                "error" => format!("Reenviar à prefeitura a NF-e rejeitada {rest}"),
                "pending" => format!("Reenviar à prefeitura a NF-e na fila {rest}"),
                _ => format!("Emitir {object}"),
            });
            q.note("O pedido vai à prefeitura.");
            q.closing("Uma NF-e emitida só se desfaz cancelando-a.");
        }
        _ => {}
    }
    match record
        .get("customer_snapshot")
        .and_then(|c| text(c, "name"))
    {
        Some(name) => q.quote("Tomador (nome na nota)", &name),
        None => payer::payer(ctx, record, q).await?,
    }
    if let Destructive::CancelNfe { reason, .. } = request {
        q.reason(Some(reason));
    }
    Ok(())
}

/// "a NF-e nº 1042 de R$ 1.200,00, emitida em 14/08/2026".
fn nfe_object(record: &Value) -> String {
    let mut object = match record.get("nfe_number").and_then(Value::as_u64) {
        Some(n) => format!("a NF-e nº {n}"),
        None => "a NF-e sem número".to_owned(),
    };
    if let Some(amount) = cents(record, "amount_cents") {
        object.push_str(&format!(" de {amount}"));
    }
    if let Some(issued) = day(record, "issue_date") {
        object.push_str(&format!(", emitida em {issued}"));
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fh3_the_nfe_state_decides_what_is_not_asked() {
        let cancel = Destructive::CancelNfe {
            id: "x".into(),
            reason: "Serviço não prestado".into(),
        };
        let issue = Destructive::IssueNfe { id: "x".into() };
        for (request, status, asked) in [
            (&cancel, "issued", true),
            (&cancel, "canceled", false),
            (&cancel, "pending_cancel", false),
            (&cancel, "canceling", false),
            (&issue, "draft", true),
            (&issue, "error", true),
            (&issue, "pending", true),
            (&issue, "issued", false),
            (&issue, "processing", false),
            (&issue, "canceled", false),
        ] {
            let why = impossible(request, &json!({"status": status}));
            assert_eq!(why.is_none(), asked, "{request:?} {status}: {why:?}");
        }
    }
}
