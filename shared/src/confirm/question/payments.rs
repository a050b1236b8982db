//! The question of refunding a payment.

use serde_json::Value;

use super::labels;
use super::words::{Question, day, word};
use crate::format::{brl_from_cents, brl_from_unsigned_cents};

/// Refunds apply to a payment that was paid: one still pending or processing, failed,
/// canceled or already fully refunded has nothing to refund. A payment paid in part, or
/// refunded in part, is asked about (Kobana decides; the question says its status).
pub(super) fn impossible(record: &Value) -> Option<String> {
    let status = word(record, "status");
    let why = match status {
        "pending" | "processing" => "ainda não foi pago",
        "failed" => "falhou e não recebeu nada",
        "canceled" => "foi cancelado",
        "refunded" => "já foi estornado por inteiro",
        _ => return None,
    };
    let label = labels::payment_status(status).unwrap_or(status);
    Some(format!(
        "O pagamento {why}; só se estorna um pagamento pago. Situação atual do pagamento: {label}."
    ))
}

/// Refunding a payment: all that is left or how much, of what was paid, how and when; and
/// the payment's status when it is not one Kobana refunds.
pub(super) fn refund(record: &Value, amount_cents: Option<u64>, q: &mut Question) {
    let paid_cents = record
        .get("paid_amount_cents")
        .and_then(Value::as_i64)
        .or_else(|| record.get("amount_cents").and_then(Value::as_i64));
    let paid = paid_cents.map(brl_from_cents);
    let method = record
        .get("payment_method_type")
        .and_then(Value::as_str)
        .and_then(labels::method)
        .map(|m| format!(" por {m}"))
        .unwrap_or_default();
    let paid_on = day(record, "paid_at")
        .map(|d| format!(", pago em {d}"))
        .unwrap_or_default();
    let succeeded = word(record, "status") == "succeeded";
    let paid_text = paid.unwrap_or_else(|| "valor não informado".into());
    match amount_cents {
        None if succeeded => q.fact(format!(
            "Estornar o valor total restante, {paid_text}, do pagamento{method}{paid_on}"
        )),
        None => q.fact(format!(
            "Estornar o valor total restante (o que ainda não foi estornado de {paid_text}) do pagamento{method}{paid_on}"
        )),
        Some(amount)
            if succeeded && paid_cents.and_then(|p| u64::try_from(p).ok()) == Some(amount) =>
        {
            q.fact(format!(
                "Estornar {paid_text}, todo o valor pago, do pagamento{method}{paid_on}"
            ))
        }
        Some(amount) => q.fact(format!(
            "Estornar parcialmente {} do pagamento{method} de {paid_text}{paid_on}",
            brl_from_unsigned_cents(amount)
        )),
    }
    if !succeeded {
        let status = labels::payment_status(word(record, "status")).unwrap_or("desconhecida");
        q.note(format!(
            "Situação atual do pagamento: {status} (o Kobana só estorna pagamentos pagos)."
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fh3_a_payment_with_nothing_to_refund_is_not_asked_about() {
        for status in ["pending", "processing", "failed", "canceled", "refunded"] {
            let why = impossible(&json!({"status": status})).expect(status);
            assert!(why.contains("Situação atual do pagamento"), "{why}");
        }
        for status in ["succeeded", "partial", "partially_refunded", "novo"] {
            assert_eq!(impossible(&json!({"status": status})), None, "{status}");
        }
    }
}
