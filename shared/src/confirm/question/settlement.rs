//! The questions that settle an invoice: recording it paid off the platform, undoing that
//! payment, applying the account's credits to it.

use serde_json::Value;

use super::invoices::{invoice_object, of};
use super::words::{Question, day, joined, word};
use super::{Destructive, forbids, labels, payer};
use crate::catalog::{CREDITS, MAX_CREDIT_IDS, ToolCtx, ToolError};
use crate::format::{brl_from_cents, brl_from_unsigned_cents};

/// What is still owed, in cents (a member whose unit is not in doubt).
fn owed(record: &Value) -> Option<i64> {
    record.get("amount_remaining_cents").and_then(Value::as_i64)
}

/// An amount asked for that is more than the invoice owes.
fn over_owed(amount: Option<u64>, record: &Value) -> Option<String> {
    let (amount, owed) = (amount?, owed(record)?);
    (i64::try_from(amount).map_or(true, |a| a > owed)).then(|| {
        format!(
            "O valor informado ({}) é maior que o saldo em aberto da fatura ({}).",
            brl_from_unsigned_cents(amount),
            brl_from_cents(owed)
        )
    })
}

/// Why the invoice's state makes the request impossible: recording a payment of an invoice
/// that is paid, a draft or void; undoing the payment of one that is not paid; applying
/// credits to one that is not open (Kobana: `status = open`); an amount over what is owed;
/// installments the invoice does not show as pending.
pub(super) fn impossible(request: &Destructive, record: &Value) -> Option<String> {
    let status = word(record, "status");
    let why = match request {
        Destructive::MarkInvoicePaid { .. } if status == "paid" => {
            "A fatura já está paga.".to_owned()
        }
        Destructive::MarkInvoicePaid { .. } if status == "draft" => {
            "Um rascunho não recebe pagamento: finalize a fatura antes.".to_owned()
        }
        Destructive::MarkInvoicePaid { .. } if status == "void" => {
            "Uma fatura anulada não recebe pagamento.".to_owned()
        }
        Destructive::MarkInvoicePaid {
            amount_cents,
            installment_ids,
            ..
        } => match over_owed(*amount_cents, record) {
            Some(why) => why,
            None => missing_installments(installment_ids, record)?,
        },
        Destructive::UndoInvoicePayment { .. } if status != "paid" => {
            "Só se desfaz o pagamento de uma fatura paga.".to_owned()
        }
        Destructive::ApplyCredits { .. } if status != "open" => {
            "Créditos só se aplicam a uma fatura em aberto.".to_owned()
        }
        Destructive::ApplyCredits { amount_cents, .. } => over_owed(*amount_cents, record)?,
        _ => return None,
    };
    Some(format!(
        "{why} Situação atual da fatura: {}.",
        labels::invoice_status(status)
    ))
}

/// The installments named that the invoice does not show as pending.
fn missing_installments(ids: &[String], record: &Value) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    let Some(shown) = record.get("installments").and_then(Value::as_array) else {
        return Some(
            "O Kobana não mostrou as parcelas desta fatura; não dá para confirmar quais seriam registradas como pagas."
                .to_owned(),
        );
    };
    let missing: Vec<String> = ids
        .iter()
        .filter(|id| {
            !shown
                .iter()
                .any(|i| word(i, "id") == id.as_str() && word(i, "status") == "pending")
        })
        .cloned()
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "A fatura não tem em aberto a(s) parcela(s) {}.",
            joined(&missing)
        )
    })
}

/// Recording a payment, undoing it, applying credits: the action, the amounts, the invoice,
/// the payer, the reason.
pub(super) async fn describe(
    ctx: &ToolCtx,
    request: &Destructive,
    record: &Value,
    q: &mut Question,
) -> Result<(), ToolError> {
    match request {
        Destructive::MarkInvoicePaid {
            amount_cents,
            installment_ids,
            ..
        } => mark_paid(record, *amount_cents, installment_ids, q),
        Destructive::UndoInvoicePayment { .. } => {
            let object = invoice_object(record, q);
            let paid_on = day(record, "paid_at")
                .map(|d| format!(", paga em {d}"))
                .unwrap_or_default();
            q.fact(format!("Desfazer o pagamento {}{paid_on}", of(&object)));
            q.note("Ela volta a ficar em aberto, com o valor a receber.");
            q.closing("Para voltar atrás, registre o pagamento de novo.");
        }
        Destructive::ApplyCredits {
            credit_ids,
            amount_cents,
            ..
        } => apply_credits(ctx, record, credit_ids, *amount_cents, q).await?,
        _ => {}
    }
    payer::payer(ctx, record, q).await?;
    if let Destructive::UndoInvoicePayment { reason, .. } = request {
        q.reason(reason.as_deref());
    }
    Ok(())
}

/// Recording a payment received off the platform: all that is owed, part of it, or named
/// installments.
fn mark_paid(record: &Value, amount: Option<u64>, installments: &[String], q: &mut Question) {
    let object = invoice_object(record, q);
    let owed_text = owed(record).map_or_else(|| "não informado".to_owned(), brl_from_cents);
    let whole = amount.is_none()
        || owed(record).and_then(|o| u64::try_from(o).ok()) == amount && installments.is_empty();
    if !installments.is_empty() {
        let chosen: Vec<&Value> = record["installments"]
            .as_array()
            .map(|all| {
                all.iter()
                    .filter(|i| installments.iter().any(|id| id == word(i, "id")))
                    .collect()
            })
            .unwrap_or_default();
        let numbers: Vec<String> = chosen
            .iter()
            .map(|i| i["number"].as_i64().map_or("?".into(), |n| n.to_string()))
            .collect();
        let sum: i64 = chosen
            .iter()
            .filter_map(|i| i["amount_cents"].as_i64())
            .sum();
        q.fact(format!(
            "Registrar como paga(s), por um recebimento fora da plataforma, a(s) parcela(s) nº {} ({} no total) {}",
            joined(&numbers),
            brl_from_cents(sum),
            of(&object)
        ));
    } else if whole {
        q.fact(format!(
            "Registrar como paga, por um recebimento fora da plataforma, {object}, pelo saldo em aberto inteiro, {owed_text}"
        ));
        q.closing("Se for engano, o pagamento pode ser desfeito depois.");
    } else if let Some(amount) = amount {
        q.fact(format!(
            "Registrar um pagamento parcial de {}, recebido fora da plataforma, {}, que tem saldo em aberto de {owed_text}",
            brl_from_unsigned_cents(amount),
            of(&object)
        ));
    }
    q.note("Nada é cobrado do cliente: o Kobana só registra o recebimento.");
}

/// One credit as the question states it, once read and checked against the invoice.
struct Credit {
    remaining: i64,
    line: String,
}

/// Reads one credit and checks it can pay this invoice: the same account, something left,
/// not expired.
async fn credit(ctx: &ToolCtx, id: &str, invoice: &Value) -> Result<Credit, ToolError> {
    let record = ctx.kobana.get(&[CREDITS, id], &[]).await?.data;
    let remaining = record["amount_remaining_cents"].as_i64().unwrap_or(0);
    let why = if word(&record, "billing_account_id") != word(invoice, "billing_account_id") {
        Some(format!("O crédito {id} é de outra conta de cobrança."))
    } else if remaining <= 0 {
        Some(format!("O crédito {id} já foi todo usado."))
    } else {
        expired(&record).map(|on| format!("O crédito {id} expirou em {on}."))
    };
    if let Some(why) = why {
        return Err(forbids(why, invoice));
    }
    let kind = labels::credit_type(word(&record, "type"))
        .map(|k| format!(" {k}"))
        .unwrap_or_default();
    let of_total = record["amount_cents"]
        .as_i64()
        .map(|t| format!(" de {}", brl_from_cents(t)))
        .unwrap_or_default();
    let expiry = day(&record, "expires_at")
        .map(|d| format!(", válido até {d}"))
        .unwrap_or_default();
    Ok(Credit {
        remaining,
        line: format!(
            "{} restantes do crédito{kind}{of_total}{expiry}",
            brl_from_cents(remaining)
        ),
    })
}

/// The day a credit expired, when `expires_at` is past.
fn expired(credit: &Value) -> Option<String> {
    let at: jiff::Timestamp = credit.get("expires_at")?.as_str()?.parse().ok()?;
    (at <= jiff::Timestamp::now())
        .then(|| day(credit, "expires_at"))
        .flatten()
}

/// Applying credits: how much (the amount asked, or up to what the credits hold and the
/// invoice owes), to which invoice, from which credits.
async fn apply_credits(
    ctx: &ToolCtx,
    record: &Value,
    ids: &[String],
    amount: Option<u64>,
    q: &mut Question,
) -> Result<(), ToolError> {
    if ids.len() > MAX_CREDIT_IDS {
        return Err(ToolError::Undescribable);
    }
    let mut credits = Vec::with_capacity(ids.len());
    for id in ids {
        credits.push(credit(ctx, id, record).await?);
    }
    let available: i64 = credits.iter().map(|c| c.remaining).sum();
    if let Some(amount) = amount
        && i64::try_from(amount).map_or(true, |a| a > available)
    {
        return Err(forbids(
            format!(
                "O valor informado ({}) passa do que resta nos créditos escolhidos ({}).",
                brl_from_unsigned_cents(amount),
                brl_from_cents(available)
            ),
            record,
        ));
    }
    let object = invoice_object(record, q);
    let owed_text = owed(record).map_or_else(|| "não informado".to_owned(), brl_from_cents);
    q.fact(match amount {
        Some(amount) => format!(
            "Aplicar {} de crédito n{object}, que tem saldo em aberto de {owed_text}",
            brl_from_unsigned_cents(amount)
        ),
        None => format!(
            "Aplicar até {} de crédito (o que resta nos créditos escolhidos, limitado ao saldo em aberto de {owed_text}) n{object}",
            brl_from_cents(available)
        ),
    });
    let lines: Vec<String> = credits.into_iter().map(|c| c.line).collect();
    q.note(format!("Créditos: {}.", lines.join("; ")));
    q.closing("Enquanto a fatura estiver em aberto, os créditos aplicados podem voltar à conta.");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fh3_the_invoice_state_decides_what_is_not_asked() {
        let paid = |amount: Option<u64>, ids: Vec<String>| Destructive::MarkInvoicePaid {
            id: "x".into(),
            amount_cents: amount,
            installment_ids: ids,
        };
        let undo = Destructive::UndoInvoicePayment {
            id: "x".into(),
            reason: None,
        };
        let apply = |amount| Destructive::ApplyCredits {
            id: "x".into(),
            credit_ids: vec!["c".into()],
            amount_cents: amount,
        };
        let invoice = |status: &str| json!({"status": status, "amount_remaining_cents": 49_900});
        for (request, status, asked) in [
            (paid(None, vec![]), "open", true),
            (paid(None, vec![]), "uncollectible", true),
            (paid(None, vec![]), "paid", false),
            (paid(None, vec![]), "draft", false),
            (paid(None, vec![]), "void", false),
            (paid(Some(49_900), vec![]), "open", true),
            (paid(Some(49_901), vec![]), "open", false),
            (paid(None, vec!["i1".into()]), "open", false),
            (undo.clone(), "paid", true),
            (undo.clone(), "open", false),
            (undo, "void", false),
            (apply(None), "open", true),
            (apply(Some(49_900)), "open", true),
            (apply(Some(49_901)), "open", false),
            (apply(None), "paid", false),
            (apply(None), "draft", false),
        ] {
            let why = impossible(&request, &invoice(status));
            assert_eq!(why.is_none(), asked, "{request:?} {status}: {why:?}");
        }
        let with_installments = json!({"status": "open", "amount_remaining_cents": 49_900,
            "installments": [{"id": "i1", "status": "pending"}, {"id": "i2", "status": "paid"}]});
        assert_eq!(
            impossible(&paid(None, vec!["i1".into()]), &with_installments),
            None
        );
        let why = impossible(&paid(None, vec!["i2".into()]), &with_installments).unwrap();
        assert!(why.contains("i2"), "{why}");
    }

    #[test]
    fn wa4_marking_paid_states_what_is_owed_and_how_much_is_recorded() {
        let invoice = json!({"number": "FAT-2026-000812", "status": "open",
            "total_subcents": 4_990_000, "amount_due_subcents": 4_990_000,
            "amount_paid_subcents": 0, "amount_remaining_cents": 49_900,
            "net_value_cents": 49_900, "total_withheld_cents": 0,
            "due_date": "2026-08-25T03:00:00Z",
            "installments": [{"id": "i1", "number": 1, "amount_cents": 20_000, "status": "pending"},
                {"id": "i2", "number": 2, "amount_cents": 29_900, "status": "pending"}]});
        let say = |amount, ids: &[&str]| {
            let mut q = Question::default();
            let ids: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
            mark_paid(&invoice, amount, &ids, &mut q);
            q.render()
        };
        let whole = say(None, &[]);
        assert!(
            whole.starts_with("Registrar como paga, por um recebimento fora da plataforma, a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026, pelo saldo em aberto inteiro, R$ 499,00?"),
            "{whole}"
        );
        assert!(whole.contains("pode ser desfeito depois"), "{whole}");
        assert_eq!(say(Some(49_900), &[]), whole);
        let part = say(Some(10_000), &[]);
        assert!(
            part.starts_with("Registrar um pagamento parcial de R$ 100,00, recebido fora da plataforma, da fatura FAT-2026-000812"),
            "{part}"
        );
        assert!(part.contains("não pode ser desfeita"), "{part}");
        let two = say(None, &["i1", "i2"]);
        assert!(
            two.contains("parcela(s) nº 1 e 2 (R$ 499,00 no total) da fatura FAT-2026-000812"),
            "{two}"
        );
    }
}
