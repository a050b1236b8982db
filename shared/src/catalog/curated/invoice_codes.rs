//! The codes an open invoice is paid with, for `billing_invoices_get` (and the invoice view):
//! the Pix copia-e-cola and the boleto's digitable line. Kobana's document types neither
//! (payments carry gateway ids; the `pay` answer is untyped): where they live is the reading
//! `payment_codes` of the contract. The server looks where a read can find them — the
//! metadata of the invoice's payments awaiting payment, and the invoice's own — and takes
//! only strings that pass their own check digits ([`crate::format::pay_codes`]). Found or not,
//! the invoice says so in `payment_codes`; nothing is made up, and no write (`pay`) is made
//! to get one.

use serde_json::{Map, Value, json};

use crate::access::slugs::PAYMENTS;
use crate::access::{Permission, Resource};
use crate::catalog::context::MAX_PER_PAGE;
use crate::catalog::{Paging, ToolCtx};
use crate::format::brl_from_cents;
use crate::format::pay_codes::{PayCodes, line_amount_cents};

/// The member an open invoice carries.
pub const PAYMENT_CODES: &str = "payment_codes";

/// The payment statuses whose codes can still be paid.
const AWAITING: [&str; 2] = ["pending", "processing"];

/// Adds [`PAYMENT_CODES`] to the open invoice of `result` (one payment list read, when the
/// token may read payments); any other invoice is left as it is.
pub async fn with_codes(ctx: &ToolCtx, mut result: Value) -> Value {
    let Some(invoice) = result.get_mut("invoice").and_then(Value::as_object_mut) else {
        return result;
    };
    if invoice.get("status").and_then(Value::as_str) != Some("open") {
        return result;
    }
    let mut codes = PayCodes::default();
    if let Some(metadata) = invoice.get("metadata") {
        codes.collect(metadata);
    }
    let id = invoice
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let read = payments_codes(ctx, id, &mut codes).await;
    let entry = entry(invoice, &codes, read.err());
    invoice.insert(PAYMENT_CODES.to_owned(), entry);
    result
}

/// Collects the codes of the invoice's payments awaiting payment; `Err` says in pt-BR why
/// they were not read.
async fn payments_codes(
    ctx: &ToolCtx,
    invoice_id: &str,
    codes: &mut PayCodes,
) -> Result<(), String> {
    if !ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::Payments))
    {
        return Err("o token não tem payments:read, e os códigos de pagamento ficam nos pagamentos da fatura".to_owned());
    }
    let paging = Paging {
        per_page: Some(MAX_PER_PAGE),
        ..Paging::default()
    };
    let query = vec![("invoice_id".to_owned(), invoice_id.to_owned())];
    let list = ctx
        .list_records(&[PAYMENTS], Resource::Payments, &paging, query)
        .await
        .map_err(|e| format!("os pagamentos desta fatura não puderam ser lidos agora ({e})"))?;
    for payment in list
        .get(PAYMENTS)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let status = payment
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if AWAITING.contains(&status)
            && let Some(metadata) = payment.get("metadata")
        {
            codes.collect(metadata);
        }
    }
    Ok(())
}

/// The `payment_codes` member: each code or `null`, and a pt-BR note on what is missing or
/// does not match.
fn entry(invoice: &Map<String, Value>, codes: &PayCodes, unread: Option<String>) -> Value {
    let pix = codes.pix.first();
    let line = codes.lines.first();
    let mut notes = Vec::new();
    if let Some(why) = unread {
        notes.push(format!("Códigos de pagamento não lidos: {why}."));
    } else if pix.is_none() && line.is_none() {
        notes.push("O Kobana não enviou código Pix nem linha digitável desta fatura nas leituras da API; o PDF (billing_invoices_pdf) ou o link hosted_invoice_url trazem a forma de pagamento.".to_owned());
    } else if pix.is_none() {
        notes.push("O Kobana não enviou código Pix desta fatura.".to_owned());
    } else if line.is_none() {
        notes.push("O Kobana não enviou linha digitável de boleto desta fatura.".to_owned());
    }
    let amount = line.and_then(|l| line_amount_cents(l));
    let owed = invoice
        .get("amount_remaining_cents")
        .and_then(Value::as_i64);
    if let (Some(amount), Some(owed)) = (amount, owed)
        && amount != owed
    {
        notes.push(format!(
            "O valor da linha digitável ({}) difere do valor em aberto da fatura ({}); confira antes de pagar.",
            brl_from_cents(amount),
            brl_from_cents(owed)
        ));
    }
    json!({
        "pix_code": pix,
        "boleto_line": line,
        "boleto_amount_brl": amount.map(brl_from_cents),
        "note": (!notes.is_empty()).then(|| notes.join(" ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui2_absent_codes_are_said_and_a_line_off_the_amount_is_flagged() {
        let invoice = json!({"amount_remaining_cents": 49_900});
        let invoice = invoice.as_object().unwrap();
        let none = entry(invoice, &PayCodes::default(), None);
        assert!(none["pix_code"].is_null() && none["boleto_line"].is_null());
        assert!(
            none["note"].as_str().unwrap().contains("não enviou"),
            "{none}"
        );
        let unread = entry(invoice, &PayCodes::default(), Some("sem permissão".into()));
        assert!(
            unread["note"]
                .as_str()
                .unwrap()
                .contains("não lidos: sem permissão")
        );
        let codes = PayCodes {
            pix: vec![],
            lines: vec!["23793.38128 60000.000004 00004.004008 9 15490000049900".into()],
        };
        let found = entry(invoice, &codes, None);
        assert_eq!(found["boleto_amount_brl"], "R$ 499,00");
        assert!(
            found["note"].as_str().unwrap().contains("código Pix"),
            "{found}"
        );
        let owes_more = json!({"amount_remaining_cents": 50_000});
        let off = entry(owes_more.as_object().unwrap(), &codes, None);
        assert!(off["note"].as_str().unwrap().contains("difere"), "{off}");
    }
}
