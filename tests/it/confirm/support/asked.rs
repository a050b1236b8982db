//! The question's facts of each curated destructive tool against what the fake received (the
//! settlements are in `settlement`).

use serde_json::Value;

use super::*;

/// What one asked call showed and sent, for the checks of its tool.
#[derive(Clone, Copy)]
pub struct Asked<'a> {
    pub tool: &'a str,
    pub facts: &'a str,
    pub message: &'a str,
    pub body: &'a Value,
    pub call: &'a RecordedCall,
    pub segments: &'a [&'a str],
    pub record: &'a Value,
    pub succeeded: bool,
    pub refunded: i64,
    pub quote: &'a dyn Fn(&str) -> Option<&'a str>,
    pub payer: &'a dyn Fn(&Value) -> Result<(), String>,
    pub reason: &'a dyn Fn() -> Result<(), String>,
}

impl Asked<'_> {
    /// The request sent is `method` on the record's `verb` (`POST …/{id}/cancel`).
    fn sent(&self, method: &str, verb: &str) -> Result<(), String> {
        let (call, segments) = (self.call, self.segments);
        ensure!(
            call.method == method && segments.len() == 3 && segments[2] == verb,
            "sent {} {}",
            call.method,
            call.path
        );
        Ok(())
    }
}

/// The reason: what Kobana received, quoted; none received, none quoted.
pub fn reason<'q>(
    body: &Value,
    facts: &str,
    quote: &dyn Fn(&str) -> Option<&'q str>,
) -> Result<(), String> {
    match body.get("reason").and_then(Value::as_str) {
        Some(reason) => {
            ensure!(
                !reason.chars().any(hidden),
                "a hidden character reached Kobana: {reason:?}"
            );
            let q = quote("Motivo informado").ok_or("the reason sent is not shown")?;
            ensure!(
                same_whole_quote(q, reason),
                "shown reason {q:?} ≠ sent {reason:?}"
            );
        }
        None => {
            ensure!(
                quote("Motivo informado").is_none(),
                "a reason shown that was not sent"
            );
            ensure!(
                facts.contains("Sem motivo informado"),
                "no reason sent, not said: {facts}"
            );
        }
    }
    Ok(())
}

/// The payer: the customer's name in the record, or (reading `account_customer` =
/// when_loaded) the account's billing e-mail; none, none named.
pub fn payer<'q>(
    snapshot: &Snapshot,
    record: &Value,
    quote: &dyn Fn(&str) -> Option<&'q str>,
) -> Result<(), String> {
    if !fake_kobana::Readings::from_env().account_customer.embeds() {
        let label = "Cliente (e-mail de cobrança no cadastro)";
        match snapshot
            .payer_email(record)
            .filter(|e| !shown(e).is_empty())
        {
            Some(email) => {
                let q = quote(label).ok_or("the payer's e-mail is not named")?;
                ensure!(same_quote(q, &email), "shown e-mail {q:?} ≠ {email:?}");
            }
            None => ensure!(
                quote(label).is_none(),
                "an e-mail named where there is none"
            ),
        }
        return Ok(());
    }
    match snapshot.payer_name(record).filter(|n| !shown(n).is_empty()) {
        Some(name) => {
            let q = quote("Cliente (nome no cadastro)").ok_or("the customer is not named")?;
            ensure!(same_quote(q, &name), "shown customer {q:?} ≠ {name:?}");
        }
        None => ensure!(
            quote("Cliente (nome no cadastro)").is_none(),
            "a customer named where there is none"
        ),
    }
    Ok(())
}

/// A customer removal: the DELETE sent, the name and the document shown.
pub fn customers_delete(a: &Asked) -> Result<(), String> {
    let Asked {
        facts,
        message,
        call,
        segments,
        record,
        quote,
        ..
    } = *a;
    ensure!(
        call.method == "DELETE" && segments.len() == 2 && segments[0] == "customers",
        "sent {} {}",
        call.method,
        call.path
    );
    ensure!(facts.starts_with("Remover o cliente"), "action: {facts}");
    match record["name"].as_str().filter(|n| !shown(n).is_empty()) {
        Some(name) => {
            let q = quote("Cliente (nome no cadastro)").ok_or("no name")?;
            ensure!(same_quote(q, name), "shown {q:?} ≠ {name:?}");
        }
        None => ensure!(quote("Cliente (nome no cadastro)").is_none(), "{message}"),
    }
    if let Some(doc) = record["document_number"].as_str() {
        let plain = doc
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'-'));
        if plain {
            ensure!(facts.contains(doc), "document {doc} not in {facts}");
        } else {
            let q = quote("Documento (no cadastro)").ok_or("document not shown")?;
            ensure!(same_quote(q, doc), "document {q:?} ≠ {doc:?}");
        }
    }
    Ok(())
}

/// A subscription cancel: now or at the period end as sent, the amount, payer and reason.
pub fn subscriptions_cancel(a: &Asked, expected_amounts: &mut Vec<String>) -> Result<(), String> {
    let Asked {
        facts,
        body,
        record,
        payer: check_payer,
        reason: check_reason,
        ..
    } = *a;
    a.sent("POST", "cancel")?;
    let at_end = body["cancel_at_period_end"] == true;
    if at_end {
        ensure!(
            facts.starts_with("Cancelar no fim do período atual")
                && !facts.contains("imediatamente"),
            "sent at period end, asked: {facts}"
        );
        if let Some(end) = day(&record["current_period_end"]) {
            ensure!(facts.contains(&end), "period end {end} not in {facts}");
        }
    } else {
        ensure!(
            facts.starts_with("Cancelar imediatamente") && !facts.contains("fim do período"),
            "sent immediate, asked: {facts}"
        );
    }
    if let Some(cents) = record["recurring_amount_cents"].as_i64() {
        expected_amounts.push(brl(cents));
    }
    check_payer(record)?;
    check_reason()?;
    Ok(())
}

/// An invoice void or delete: the request sent, the number, total, due date, payer (and the
/// void's reason).
pub fn invoices_void_or_delete(
    a: &Asked,
    expected_amounts: &mut Vec<String>,
) -> Result<(), String> {
    let Asked {
        tool,
        facts,
        call,
        segments,
        record,
        quote,
        payer: check_payer,
        reason: check_reason,
        ..
    } = *a;
    let void = tool == "billing_invoices_void";
    ensure!(
        if void {
            call.method == "POST" && segments.len() == 3 && segments[2] == "void"
        } else {
            call.method == "DELETE" && segments.len() == 2
        },
        "sent {} {}",
        call.method,
        call.path
    );
    ensure!(
        facts.starts_with(if void { "Anular " } else { "Excluir " }),
        "action: {facts}"
    );
    match record["number"].as_str() {
        Some(n) if plain_reference(n) => {
            ensure!(
                facts.contains(&format!("a fatura {n} ")),
                "number {n} not in {facts}"
            )
        }
        Some(n) => {
            let q = quote("Número da fatura (no cadastro)").ok_or("number not shown")?;
            ensure!(same_quote(q, n), "number {q:?} ≠ {n:?}");
        }
        None => ensure!(
            facts.contains("rascunho") || facts.contains("sem número"),
            "{facts}"
        ),
    }
    let total = record["total_subcents"].as_i64().ok_or("no total")?;
    let cents = (total.abs() + 50) / 100 * total.signum();
    expected_amounts.push(brl(cents));
    if let Some(due) = day(&record["due_date"]) {
        ensure!(
            facts.contains(&format!("vencimento {due}")),
            "due {due} not in {facts}"
        );
    }
    check_payer(record)?;
    if void {
        check_reason()?;
    }
    Ok(())
}

/// A refund: the whole remainder or the amount sent, what was refunded, the day paid, payer and
/// reason.
pub fn payments_refund(a: &Asked, expected_amounts: &mut Vec<String>) -> Result<(), String> {
    let Asked {
        facts,
        body,
        record,
        succeeded,
        refunded,
        payer: check_payer,
        reason: check_reason,
        ..
    } = *a;
    a.sent("POST", "refund")?;
    let paid = record["paid_amount_cents"]
        .as_i64()
        .or_else(|| record["amount_cents"].as_i64())
        .ok_or("no paid amount")?;
    expected_amounts.push(brl(paid));
    match body.get("amount_cents").and_then(Value::as_i64) {
        None => {
            ensure!(
                body.get("amount_cents").is_none(),
                "an amount Kobana cannot read was sent: {body}"
            );
            ensure!(
                facts.starts_with(&format!("Estornar o valor total restante, {}, ", brl(paid)))
                    && !facts.contains("parcial"),
                "sent a full refund, asked: {facts}"
            );
            if succeeded {
                ensure!(refunded == paid, "refunded {refunded}, shown {paid}");
            }
        }
        Some(amount) => {
            let whole = amount == paid && record["status"] == "succeeded";
            ensure!(
                if whole {
                    facts.starts_with(&format!("Estornar {}, todo o valor pago, ", brl(amount)))
                } else {
                    facts.starts_with(&format!("Estornar parcialmente {} ", brl(amount)))
                } && !facts.contains("total restante"),
                "sent {amount}, asked: {facts}"
            );
            expected_amounts.push(brl(amount));
            if succeeded {
                ensure!(refunded == amount, "refunded {refunded}, shown {amount}");
            }
        }
    }
    if !succeeded {
        ensure!(refunded == 0, "a refused refund refunded {refunded}");
    }
    if let Some(paid_on) = day(&record["paid_at"]) {
        ensure!(facts.contains(&paid_on), "paid on {paid_on} not in {facts}");
    }
    check_payer(record)?;
    check_reason()?;
    Ok(())
}

/// An NF-e cancel: its number, amount, taker (or payer) and reason.
pub fn nfes_cancel(a: &Asked, expected_amounts: &mut Vec<String>) -> Result<(), String> {
    let Asked {
        facts,
        record,
        quote,
        payer: check_payer,
        reason: check_reason,
        ..
    } = *a;
    a.sent("POST", "cancel")?;
    let number = record["nfe_number"].as_u64().ok_or("no number")?;
    ensure!(
        facts.starts_with(&format!("Cancelar a NF-e nº {number} ")),
        "action: {facts}"
    );
    expected_amounts.push(brl(record["amount_cents"].as_i64().ok_or("no amount")?));
    match record["customer_snapshot"]["name"].as_str() {
        Some(name) => {
            let q = quote("Tomador (nome na nota)").ok_or("taker not shown")?;
            ensure!(same_quote(q, name), "taker {q:?} ≠ {name:?}");
        }
        None => check_payer(record)?,
    }
    check_reason()?;
    Ok(())
}
