//! The questions that name an invoice (voiding, deleting a draft, finalizing, issuing its
//! NF-e), and how any question names an invoice.

use serde_json::Value;

use super::words::{Question, calendar, is_reference, text, word};
use super::{Destructive, labels, payer};
use crate::catalog::{ToolCtx, ToolError};
use crate::format::brl_from_cents;

/// Why the invoice's state makes the request impossible: voiding what is not open (Kobana
/// voids `open → void`), deleting what is not a draft, finalizing what is not a draft,
/// issuing the NF-e of a draft or a void invoice.
pub(super) fn impossible(request: &Destructive, record: &Value) -> Option<String> {
    let status = word(record, "status");
    let now = labels::invoice_status(status);
    let why = match request {
        Destructive::VoidInvoice { .. } if status == "void" => "A fatura já está anulada.",
        Destructive::VoidInvoice { .. } if status == "draft" => {
            "Um rascunho não se anula: exclua-o (billing_invoices_delete)."
        }
        Destructive::VoidInvoice { .. } if status == "paid" => {
            "Uma fatura paga não se anula: estorne o pagamento (billing_payments_refund) ou desfaça-o (billing_invoices_undo_payment)."
        }
        Destructive::VoidInvoice { .. } if status != "open" => {
            "Só uma fatura em aberto pode ser anulada."
        }
        Destructive::DeleteInvoice { .. } if status != "draft" => {
            "Só um rascunho de fatura pode ser excluído; uma fatura finalizada se anula (billing_invoices_void)."
        }
        Destructive::FinalizeInvoice { .. } if status != "draft" => {
            "Só um rascunho de fatura pode ser finalizado."
        }
        Destructive::IssueInvoiceNfe { .. } if status == "draft" => {
            "Um rascunho não tem NF-e: finalize a fatura antes."
        }
        Destructive::IssueInvoiceNfe { .. } if status == "void" => {
            "Uma fatura anulada não tem NF-e a emitir."
        }
        _ => return None,
    };
    Some(format!("{why} Situação atual da fatura: {now}."))
}

/// Voiding, deleting, finalizing or issuing the NF-e of an invoice: the action, the invoice,
/// the consequences its record shows, the payer, the reason.
pub(super) async fn describe(
    ctx: &ToolCtx,
    request: &Destructive,
    record: &Value,
    q: &mut Question,
) -> Result<(), ToolError> {
    let object = invoice_object(record, q);
    match request {
        Destructive::VoidInvoice { .. } => q.fact(format!("Anular {object}")),
        Destructive::DeleteInvoice { .. } => q.fact(format!("Excluir {object}")),
        Destructive::FinalizeInvoice { .. } => {
            q.fact(format!("Finalizar {object}"));
            q.note("Ela fica em aberto, recebe um número e pode ser cobrada.");
            finalize_consequences(record, q);
        }
        Destructive::IssueInvoiceNfe { .. } => {
            q.fact(format!("Emitir a NF-e {}", of(&object)));
            q.note("O pedido vai à prefeitura.");
            q.closing("Uma NF-e emitida só se desfaz cancelando-a.");
        }
        _ => {}
    }
    payer::payer(ctx, record, q).await?;
    if let Destructive::VoidInvoice { reason, .. } = request {
        q.reason(reason.as_deref());
    }
    Ok(())
}

/// What finalizing sets off, as the invoice's record says: a charge of the saved method
/// (`collection_method = charge_automatically`) and an NF-e (`nfe_issuance_policy =
/// on_finalization`).
fn finalize_consequences(record: &Value, q: &mut Question) {
    if word(record, "collection_method") == "charge_automatically" {
        q.note("A cobrança é automática: o Kobana tenta cobrar na hora o meio de pagamento salvo da conta (cartão).");
    }
    if word(record, "nfe_issuance_policy") == "on_finalization" {
        q.note("A NF-e é emitida na finalização e vai à prefeitura.");
    }
}

/// "a fatura …" as "da fatura …", "o rascunho …" as "do rascunho …".
pub(super) fn of(object: &str) -> String {
    match (object.strip_prefix("a "), object.strip_prefix("o ")) {
        (Some(rest), _) => format!("da {rest}"),
        (_, Some(rest)) => format!("do {rest}"),
        _ => format!("de {object}"),
    }
}

/// "a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026" (a number that is not a
/// plain reference is quoted at the end instead).
pub(super) fn invoice_object(record: &Value, q: &mut Question) -> String {
    let draft = word(record, "status") == "draft";
    let mut s = match text(record, "number") {
        Some(number) if is_reference(&number) => format!("a fatura {number}"),
        Some(number) => {
            q.quote("Número da fatura (no cadastro)", &number);
            "a fatura".to_owned()
        }
        None if draft => "o rascunho de fatura".to_owned(),
        None => "a fatura sem número".to_owned(),
    };
    // The total only under a scale the invoice's own members confirm (reading
    // `invoice_totals_unit`); else what is still owed, whose unit is not in doubt.
    let remaining = record.get("amount_remaining_cents").and_then(Value::as_i64);
    match (crate::format::money::invoice_total_cents(record), remaining) {
        (Some(total), _) => s.push_str(&format!(" de {}", brl_from_cents(total))),
        (None, Some(owed)) => s.push_str(&format!(
            " de total não conferido (saldo em aberto {})",
            brl_from_cents(owed)
        )),
        (None, None) => s.push_str(" de valor não informado"),
    }
    if let Some(due) = calendar(record, "due_date") {
        s.push_str(&format!(", vencimento {due}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Reading `invoice_totals_unit`: the amount a person confirms is in BRL under the scale
    /// the invoice's own members verify, never a 100× guess.
    #[test]
    fn t3_the_invoice_in_a_question_is_in_brl_under_the_verified_scale() {
        let object = |v: Value| invoice_object(&v, &mut Question::default());
        let invoice = |total: i64, due: i64| {
            json!({"number": "FAT-2026-000812", "status": "open", "total_subcents": total,
                "amount_due_subcents": due, "amount_paid_subcents": 0,
                "amount_remaining_cents": 49_900, "net_value_cents": 49_900,
                "total_withheld_cents": 0, "due_date": "2026-08-25T00:00:00Z"})
        };
        let expected = "a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026";
        assert_eq!(object(invoice(4_990_000, 4_990_000)), expected);
        assert_eq!(object(invoice(49_900, 49_900)), expected);
        // Members that contradict each other: only what is owed is stated.
        assert_eq!(
            object(invoice(4_990_000, 49_900)),
            "a fatura FAT-2026-000812 de total não conferido (saldo em aberto R$ 499,00), vencimento 25/08/2026"
        );
    }

    #[test]
    fn fh3_the_invoice_state_decides_what_is_not_asked() {
        let id = "x".to_owned();
        let void = Destructive::VoidInvoice {
            id: id.clone(),
            reason: None,
        };
        let delete = Destructive::DeleteInvoice { id: id.clone() };
        let finalize = Destructive::FinalizeInvoice { id: id.clone() };
        let issue = Destructive::IssueInvoiceNfe { id };
        let state = |s: &str| json!({"status": s});
        for (request, status, asked) in [
            (&void, "open", true),
            (&void, "void", false),
            (&void, "paid", false),
            (&void, "draft", false),
            (&void, "uncollectible", false),
            (&delete, "draft", true),
            (&delete, "open", false),
            (&finalize, "draft", true),
            (&finalize, "open", false),
            (&issue, "paid", true),
            (&issue, "open", true),
            (&issue, "draft", false),
            (&issue, "void", false),
        ] {
            let why = impossible(request, &state(status));
            assert_eq!(why.is_none(), asked, "{request:?} {status}: {why:?}");
            if let Some(why) = why {
                assert!(why.contains("Situação atual da fatura"), "{why}");
            }
        }
        let already = impossible(&void, &state("void")).unwrap();
        assert!(already.contains("já está anulada"), "{already}");
    }
}
