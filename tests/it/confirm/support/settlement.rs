//! This suite's reading of the questions of the destructive tools added after CF-1's six:
//! finalizing an invoice, issuing an NF-e (of an invoice, or the NF-e itself), recording a
//! payment by hand, undoing it, applying credits. Each question's facts are held to the
//! request the fake received and the records it names, never to the server's code.

use serde_json::Value;

use super::{Snapshot, brl, day, find, plain_reference};
use fake_kobana::RecordedCall;

/// What one comparison needs: the question read, the request received, the records before
/// (and after) the yes, and the checks the older tools share.
pub struct Seen<'a> {
    pub tool: &'a str,
    pub facts: &'a str,
    pub body: &'a Value,
    pub call: &'a RecordedCall,
    pub segments: &'a [&'a str],
    pub record: &'a Value,
    pub before: &'a Snapshot,
    pub after: &'a Snapshot,
    pub succeeded: bool,
    pub quote: &'a dyn Fn(&str) -> Option<String>,
    pub payer: &'a dyn Fn(&Value) -> Result<(), String>,
    pub reason: &'a dyn Fn() -> Result<(), String>,
}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

impl Seen<'_> {
    fn sent(&self, method: &str, verb: &str) -> Result<(), String> {
        ensure!(
            self.call.method == method && self.segments.len() == 3 && self.segments[2] == verb,
            "sent {} {}",
            self.call.method,
            self.call.path
        );
        Ok(())
    }

    /// The invoice as every question names it: number (plain, or quoted), total, due day.
    fn invoice(&self, expected: &mut Vec<String>) -> Result<(), String> {
        let (facts, record) = (self.facts, self.record);
        match record["number"].as_str() {
            Some(n) if plain_reference(n) => {
                ensure!(
                    facts.contains(&format!("a fatura {n} ")),
                    "number {n} not in {facts}"
                )
            }
            Some(n) => {
                let q = (self.quote)("Número da fatura (no cadastro)").ok_or("number not shown")?;
                ensure!(super::same_quote(&q, n), "number {q:?} ≠ {n:?}");
            }
            None => ensure!(
                facts.contains("rascunho") || facts.contains("sem número"),
                "{facts}"
            ),
        }
        let total = record["total_subcents"].as_i64().ok_or("no total")?;
        expected.push(brl((total.abs() + 50) / 100 * total.signum()));
        if let Some(due) = day(&record["due_date"]) {
            ensure!(
                facts.contains(&format!("vencimento {due}")),
                "due {due} not in {facts}"
            );
        }
        Ok(())
    }

    /// What the invoice owes now, after the yes.
    fn owed_after(&self) -> Option<i64> {
        let id = self.record["id"].as_str()?;
        find(&self.after.records, id)?["amount_remaining_cents"].as_i64()
    }
}

/// The questions of the tools past CF-1's six; `expected` gathers every amount the facts
/// must show (and may show).
pub fn compare_settlement(s: &Seen, expected: &mut Vec<String>) -> Result<(), String> {
    match s.tool {
        "billing_invoices_finalize" => finalize(s, expected),
        "billing_invoices_issue_nfe" => {
            s.sent("POST", "issue-nfe")?;
            ensure!(
                s.facts.starts_with("Emitir a NF-e d"),
                "action: {}",
                s.facts
            );
            s.invoice(expected)?;
            (s.payer)(s.record)
        }
        "billing_nfes_issue" => nfe_issue(s, expected),
        "billing_invoices_mark_paid" => mark_paid(s, expected),
        "billing_invoices_undo_payment" => {
            s.sent("POST", "undo-payment")?;
            ensure!(
                s.facts.starts_with("Desfazer o pagamento da fatura"),
                "action: {}",
                s.facts
            );
            s.invoice(expected)?;
            if let Some(paid) = day(&s.record["paid_at"]) {
                ensure!(s.facts.contains(&format!("paga em {paid}")), "{}", s.facts);
            }
            if s.succeeded {
                let id = s.record["id"].as_str().unwrap_or_default();
                let now = find(&s.after.records, id).map(|r| r["status"].clone());
                ensure!(now == Some("open".into()), "undone, yet {now:?}");
            }
            (s.payer)(s.record)?;
            (s.reason)()
        }
        "billing_invoices_apply_credits" => apply_credits(s, expected),
        other => Err(format!("not a destructive tool: {other}")),
    }
}

fn finalize(s: &Seen, expected: &mut Vec<String>) -> Result<(), String> {
    s.sent("POST", "finalize")?;
    ensure!(s.facts.starts_with("Finalizar "), "action: {}", s.facts);
    s.invoice(expected)?;
    let charges = s.record["collection_method"] == "charge_automatically";
    ensure!(
        s.facts.contains("tenta cobrar") == charges,
        "collection_method {}, asked: {}",
        s.record["collection_method"],
        s.facts
    );
    let issues = s.record["nfe_issuance_policy"] == "on_finalization";
    ensure!(
        s.facts.contains("NF-e é emitida na finalização") == issues,
        "nfe_issuance_policy {}, asked: {}",
        s.record["nfe_issuance_policy"],
        s.facts
    );
    (s.payer)(s.record)
}

fn nfe_issue(s: &Seen, expected: &mut Vec<String>) -> Result<(), String> {
    s.sent("POST", "issue")?;
    let action = match s.record["status"].as_str() {
        Some("error") => "Reenviar à prefeitura a NF-e rejeitada",
        Some("pending") => "Reenviar à prefeitura a NF-e na fila",
        _ => "Emitir a NF-e",
    };
    ensure!(s.facts.starts_with(action), "action: {}", s.facts);
    if let Some(n) = s.record["nfe_number"].as_u64() {
        ensure!(s.facts.contains(&format!("nº {n} ")), "{}", s.facts);
    }
    if let Some(cents) = s.record["amount_cents"].as_i64() {
        expected.push(brl(cents));
    }
    match s.record["customer_snapshot"]["name"].as_str() {
        Some(name) => {
            let q = (s.quote)("Tomador (nome na nota)").ok_or("taker not shown")?;
            ensure!(super::same_quote(&q, name), "taker {q:?} ≠ {name:?}");
            Ok(())
        }
        None => (s.payer)(s.record),
    }
}

fn mark_paid(s: &Seen, expected: &mut Vec<String>) -> Result<(), String> {
    s.sent("POST", "pay")?;
    ensure!(
        s.body.get("payment_method").is_none() && s.body.get("card").is_none(),
        "a charge was sent for a mark-paid: {}",
        s.body
    );
    s.invoice(expected)?;
    let owed = s.record["amount_remaining_cents"]
        .as_i64()
        .ok_or("no remaining")?;
    let amount = s.body.get("amount_cents").and_then(Value::as_i64);
    let installments = s.body.get("installment_ids").and_then(Value::as_array);
    let settled = if let Some(ids) = installments {
        let sum: i64 = s.record["installments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|i| ids.contains(&i["id"]))
            .filter_map(|i| i["amount_cents"].as_i64())
            .sum();
        ensure!(
            s.facts.contains(&format!("({} no total)", brl(sum))),
            "installments of {sum}, asked: {}",
            s.facts
        );
        expected.push(brl(sum));
        sum
    } else if amount.is_none_or(|a| a == owed) {
        ensure!(
            s.facts
                .starts_with("Registrar como paga, por um recebimento fora da plataforma, ")
                && s.facts
                    .contains(&format!("pelo saldo em aberto inteiro, {}", brl(owed))),
            "sent all that is owed, asked: {}",
            s.facts
        );
        expected.push(brl(owed));
        owed
    } else {
        let amount = amount.unwrap_or_default();
        ensure!(
            s.facts.starts_with(&format!(
                "Registrar um pagamento parcial de {}, ",
                brl(amount)
            )) && s
                .facts
                .contains(&format!("saldo em aberto de {}", brl(owed))),
            "sent {amount}, asked: {}",
            s.facts
        );
        expected.extend([brl(amount), brl(owed)]);
        amount
    };
    if s.succeeded {
        ensure!(
            s.owed_after() == Some(owed - settled),
            "recorded {settled} of {owed}, now owes {:?}",
            s.owed_after()
        );
    }
    (s.payer)(s.record)
}

fn apply_credits(s: &Seen, expected: &mut Vec<String>) -> Result<(), String> {
    s.sent("POST", "apply-credits")?;
    s.invoice(expected)?;
    let owed = s.record["amount_remaining_cents"]
        .as_i64()
        .ok_or("no remaining")?;
    expected.push(brl(owed));
    let ids = s.body["credit_ids"]
        .as_array()
        .ok_or("no credit_ids sent")?;
    let mut available = 0;
    for id in ids {
        let credit = find(&s.before.credits, id.as_str().unwrap_or_default())
            .ok_or_else(|| format!("no credit {id}"))?;
        let left = credit["amount_remaining_cents"].as_i64().unwrap_or(0);
        available += left;
        expected.push(brl(left));
        if let Some(total) = credit["amount_cents"].as_i64() {
            expected.push(brl(total));
        }
        ensure!(
            s.facts
                .contains(&format!("{} restantes do crédito", brl(left))),
            "credit {id} not stated: {}",
            s.facts
        );
    }
    let amount = s.body.get("amount_cents").and_then(Value::as_i64);
    let action = match amount {
        Some(a) => format!("Aplicar {} de crédito na fatura", brl(a)),
        None => format!("Aplicar até {} de crédito", brl(available)),
    };
    ensure!(
        s.facts.starts_with(&action),
        "sent {amount:?}, asked: {}",
        s.facts
    );
    expected.push(brl(amount.unwrap_or(available)));
    if s.succeeded {
        let applied = amount.unwrap_or(available).min(owed);
        ensure!(
            s.owed_after() == Some(owed - applied),
            "applied {applied} of {owed}, now owes {:?}",
            s.owed_after()
        );
    }
    (s.payer)(s.record)
}
