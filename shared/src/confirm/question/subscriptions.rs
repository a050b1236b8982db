//! The question of cancelling a subscription.

use serde_json::Value;

use super::labels;
use super::words::{Question, cents, day, word};

/// A subscription already cancelled cannot be cancelled again.
pub(super) fn impossible(record: &Value) -> Option<String> {
    (word(record, "status") == "canceled").then(|| {
        "A assinatura já está cancelada. Situação atual da assinatura: cancelada.".to_owned()
    })
}

/// Cancelling a subscription: when (now, or at the end of the period and on which day), its
/// cycle and amount, and what happens until then.
pub(super) fn cancel(record: &Value, at_period_end: bool, q: &mut Question) {
    let when = if at_period_end {
        match day(record, "current_period_end") {
            Some(end) => format!("no fim do período atual, em {end},"),
            None => "no fim do período atual (data não informada pelo Kobana)".into(),
        }
    } else {
        "imediatamente".to_owned()
    };
    let mut object = "a assinatura".to_owned();
    if let Some(cycle) = record
        .get("billing_cycle")
        .and_then(Value::as_str)
        .and_then(labels::cycle)
    {
        object.push(' ');
        object.push_str(cycle);
    }
    if let Some(amount) = cents(record, "recurring_amount_cents") {
        object.push_str(&format!(" de {amount}"));
    }
    q.fact(format!("Cancelar {when} {object}"));
    q.note(if at_period_end {
        "Até lá ela segue ativa."
    } else {
        "A cobrança para agora."
    });
}
