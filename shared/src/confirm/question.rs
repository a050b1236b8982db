//! The question a person answers before a destructive write: rendered from the request that
//! would be sent, never from the raw arguments.
//!
//! [`Destructive::from_planned`] reads the captured [`PlannedWrite`] — method, path and body
//! after the handler parsed, validated and normalized its arguments — into one typed
//! description per destructive tool. [`Destructive::question`] reads the record the path names
//! (and, for the payer, its billing account) and puts into words:
//!
//! - the **action** and every consequence the request decides, stated whether or not the
//!   argument was given ("imediatamente" / "no fim do período atual, em 01/09/2026"; "o valor
//!   total restante, R$ 499,00" / "parcialmente R$ 10,00");
//! - the **object**: number, amount in BRL, due or issue date;
//! - then, last, each **free text** — the reason given, and names or strings from Kobana's
//!   records that anyone with write access may have set — as quoted data: labelled as given
//!   text, between «…», one plain line (controls, bidi and zero-width format characters and
//!   line/paragraph separators removed), delimiters inside replaced; a record's text cut to a
//!   length cap, the reason whole (BW-6: it is sent, so every character of it is shown — the
//!   tools normalize it the same way before sending).
//!
//! Reading the record is part of asking: a 401, 403 or 404 refuses with the error the tool
//! itself would give, and so does any other failure (a timeout, a 5xx) — the person cannot
//! confirm facts the server cannot state — before anything is stored. Only the payer is
//! optional: when the token cannot read the billing account (403) or it is gone (404), the
//! question says so in so many words.

use reqwest::Method;
use serde_json::{Map, Value};

use crate::access::slugs::{BILLING_ACCOUNTS, CUSTOMERS, INVOICES, NFES, PAYMENTS, SUBSCRIPTIONS};
use crate::catalog::{Asks, PlannedWrite, ToolCtx, ToolError};
use crate::format::{brl_from_cents, brl_from_unsigned_cents, plain_line, quotable_line};

/// Longest free text from a record shown (a name, a number), in characters, the `…`
/// included. A reason is shown whole: it is what is sent.
pub const MAX_QUOTED_CHARS: usize = 120;

/// The sentence every question carries.
pub const IRREVERSIBLE: &str = "Esta ação não pode ser desfeita.";

/// One destructive request, as the question describes it: the typed reading of a
/// [`PlannedWrite`] of one of the six destructive tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destructive {
    /// `DELETE /v1/customers/{id}` (`billing_customers_delete`).
    DeleteCustomer {
        /// UUID or `external_id`, as sent.
        id: String,
    },
    /// `POST /v1/subscriptions/{id}/cancel` (`billing_subscriptions_cancel`).
    CancelSubscription {
        /// Subscription UUID.
        id: String,
        /// `cancel_at_period_end` as sent; absent means Kobana's default, immediately.
        at_period_end: bool,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `POST /v1/invoices/{id}/void` (`billing_invoices_void`).
    VoidInvoice {
        /// Invoice UUID.
        id: String,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `DELETE /v1/invoices/{id}` (`billing_invoices_delete`).
    DeleteInvoice {
        /// Invoice UUID.
        id: String,
    },
    /// `POST /v1/payments/{id}/refund` (`billing_payments_refund`).
    RefundPayment {
        /// Payment UUID.
        id: String,
        /// `amount_cents` as sent; absent means all that is left.
        amount_cents: Option<u64>,
        /// `reason`, as sent.
        reason: Option<String>,
    },
    /// `POST /v1/nfes/{id}/cancel` (`billing_nfes_cancel`).
    CancelNfe {
        /// NF-e UUID.
        id: String,
        /// `reason`, as sent.
        reason: String,
    },
}

/// The body's members, refusing any member not in `allowed`.
fn members(body: Option<&Value>, allowed: &[&str]) -> Option<Map<String, Value>> {
    let map = match body {
        None => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return None,
    };
    map.keys()
        .all(|k| allowed.contains(&k.as_str()))
        .then_some(map)
}

fn opt_text(map: &Map<String, Value>, key: &str) -> Option<Option<String>> {
    match map.get(key) {
        None => Some(None),
        Some(Value::String(s)) => Some(Some(s.clone())),
        Some(_) => None,
    }
}

impl Destructive {
    /// Reads the write `tool` would send. `None` when it is not exactly one of the six
    /// destructive requests this server sends — an unknown member, a member of another type,
    /// another method or path — so nothing is described (and nothing asked) that is not
    /// understood in full.
    pub fn from_planned(asks: Asks, write: &PlannedWrite) -> Option<Self> {
        let segments: Vec<&str> = write.segments.iter().map(String::as_str).collect();
        let body = write.body.as_ref();
        let method = &write.method;
        match (asks, segments.as_slice()) {
            (Asks::DeleteCustomer, [CUSTOMERS, id])
                if *method == Method::DELETE && body.is_none() =>
            {
                Some(Self::DeleteCustomer {
                    id: (*id).to_owned(),
                })
            }
            (Asks::CancelSubscription, [SUBSCRIPTIONS, id, "cancel"])
                if *method == Method::POST =>
            {
                let map = members(body, &["cancel_at_period_end", "reason"])?;
                let at_period_end = match map.get("cancel_at_period_end") {
                    None => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return None,
                };
                Some(Self::CancelSubscription {
                    id: (*id).to_owned(),
                    at_period_end,
                    reason: opt_text(&map, "reason")?,
                })
            }
            (Asks::VoidInvoice, [INVOICES, id, "void"]) if *method == Method::POST => {
                let map = members(body, &["reason"])?;
                Some(Self::VoidInvoice {
                    id: (*id).to_owned(),
                    reason: opt_text(&map, "reason")?,
                })
            }
            (Asks::DeleteInvoice, [INVOICES, id])
                if *method == Method::DELETE && body.is_none() =>
            {
                Some(Self::DeleteInvoice {
                    id: (*id).to_owned(),
                })
            }
            (Asks::RefundPayment, [PAYMENTS, id, "refund"]) if *method == Method::POST => {
                let map = members(body, &["amount_cents", "reason"])?;
                let amount_cents = match map.get("amount_cents") {
                    None => None,
                    Some(v) => Some(v.as_u64().filter(|n| *n > 0)?),
                };
                Some(Self::RefundPayment {
                    id: (*id).to_owned(),
                    amount_cents,
                    reason: opt_text(&map, "reason")?,
                })
            }
            (Asks::CancelNfe, [NFES, id, "cancel"]) if *method == Method::POST => {
                let map = members(body, &["reason"])?;
                Some(Self::CancelNfe {
                    id: (*id).to_owned(),
                    reason: opt_text(&map, "reason")??,
                })
            }
            _ => None,
        }
    }

    /// The path segments of the record this request changes.
    fn record_segments(&self) -> [&str; 2] {
        match self {
            Self::DeleteCustomer { id } => [CUSTOMERS, id],
            Self::CancelSubscription { id, .. } => [SUBSCRIPTIONS, id],
            Self::VoidInvoice { id, .. } | Self::DeleteInvoice { id } => [INVOICES, id],
            Self::RefundPayment { id, .. } => [PAYMENTS, id],
            Self::CancelNfe { id, .. } => [NFES, id],
        }
    }

    /// The question: one short pt-BR paragraph. Reads the record (and its payer) from Kobana;
    /// any failure to read the record refuses with the error the tool would give.
    pub async fn question(&self, ctx: &ToolCtx) -> Result<String, ToolError> {
        let segments = self.record_segments();
        let record = ctx
            .kobana
            .get(&ctx.principal.token, &segments, &[])
            .await?
            .data;
        let mut q = Question::default();
        match self {
            Self::DeleteCustomer { .. } => delete_customer(&record, &mut q),
            Self::CancelSubscription {
                at_period_end,
                reason,
                ..
            } => {
                cancel_subscription(&record, *at_period_end, &mut q);
                payer(ctx, &record, &mut q).await?;
                q.reason(reason.as_deref());
            }
            Self::VoidInvoice { reason, .. } => {
                let object = invoice_object(&record, &mut q);
                q.fact(format!("Anular {object}"));
                payer(ctx, &record, &mut q).await?;
                q.reason(reason.as_deref());
            }
            Self::DeleteInvoice { .. } => {
                let object = invoice_object(&record, &mut q);
                q.fact(format!("Excluir {object}"));
                payer(ctx, &record, &mut q).await?;
            }
            Self::RefundPayment {
                amount_cents,
                reason,
                ..
            } => {
                refund_payment(&record, *amount_cents, &mut q);
                payer(ctx, &record, &mut q).await?;
                q.reason(reason.as_deref());
            }
            Self::CancelNfe { reason, .. } => {
                cancel_nfe(&record, &mut q);
                match record
                    .get("customer_snapshot")
                    .and_then(|c| text(c, "name"))
                {
                    Some(name) => q.quote("Tomador (nome na nota)", &name),
                    None => payer(ctx, &record, &mut q).await?,
                }
                q.reason(Some(reason));
            }
        }
        Ok(q.render())
    }
}

/// Removing a customer: its document (shown as it is when it is one, else quoted), that it
/// is a soft delete, and its name.
fn delete_customer(record: &Value, q: &mut Question) {
    let document = text(record, "document_number");
    match document.as_deref() {
        Some(doc) if is_document(doc) => {
            q.fact(format!("Remover o cliente de documento {doc}"));
        }
        Some(doc) => {
            q.fact("Remover o cliente");
            q.quote("Documento (no cadastro)", doc);
        }
        None => q.fact("Remover o cliente sem documento no cadastro"),
    }
    q.note("Ele sai das listas e o histórico é mantido (exclusão lógica).");
    match text(record, "name") {
        Some(name) => q.quote("Cliente (nome no cadastro)", &name),
        None => q.note("O cadastro não tem nome."),
    }
}

/// Cancelling a subscription: when (now, or at the end of the period and on which day), its
/// cycle and amount, and what happens until then.
fn cancel_subscription(record: &Value, at_period_end: bool, q: &mut Question) {
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
        .and_then(cycle_label)
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

/// Refunding a payment: all that is left or how much, of what was paid, how and when; and
/// the payment's status when it is not one Kobana refunds.
fn refund_payment(record: &Value, amount_cents: Option<u64>, q: &mut Question) {
    let paid_cents = record
        .get("paid_amount_cents")
        .and_then(Value::as_i64)
        .or_else(|| record.get("amount_cents").and_then(Value::as_i64));
    let paid = paid_cents.map(brl_from_cents);
    let method = record
        .get("payment_method_type")
        .and_then(Value::as_str)
        .and_then(method_label)
        .map(|m| format!(" por {m}"))
        .unwrap_or_default();
    let paid_on = day(record, "paid_at")
        .map(|d| format!(", pago em {d}"))
        .unwrap_or_default();
    let succeeded = record.get("status").and_then(Value::as_str) == Some("succeeded");
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
        let status = record
            .get("status")
            .and_then(Value::as_str)
            .and_then(payment_status_label)
            .unwrap_or("desconhecida");
        q.note(format!(
            "Situação atual do pagamento: {status} (o Kobana só estorna pagamentos pagos)."
        ));
    }
}

/// Cancelling an NF-e: its number, amount and issue date, and where the request goes.
fn cancel_nfe(record: &Value, q: &mut Question) {
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
    q.fact(format!("Cancelar {object}"));
    q.note("O pedido de cancelamento vai à prefeitura.");
}

/// A question being written: the facts (the server's voice), then the quoted texts.
#[derive(Debug, Default)]
struct Question {
    facts: Vec<String>,
    notes: Vec<String>,
    quoted: Vec<(&'static str, String)>,
}

impl Question {
    fn fact(&mut self, fact: impl Into<String>) {
        self.facts.push(fact.into());
    }

    fn note(&mut self, note: impl Into<String>) {
        self.notes.push(note.into());
    }

    fn quote(&mut self, label: &'static str, text: &str) {
        self.quoted.push((label, quoted(text)));
    }

    fn reason(&mut self, reason: Option<&str>) {
        match reason.map(plain_line).filter(|r| !r.is_empty()) {
            Some(reason) => self
                .quoted
                .push(("Motivo informado", quoted_whole(&reason))),
            None => self.note("Sem motivo informado."),
        }
    }

    fn render(self) -> String {
        let mut out = format!("{}?", self.facts.join(" "));
        for note in &self.notes {
            out.push(' ');
            out.push_str(note);
        }
        out.push(' ');
        out.push_str(IRREVERSIBLE);
        for (label, text) in &self.quoted {
            out.push_str(&format!(" {label}: {text}."));
        }
        out
    }
}

/// `text` as quoted data: one [quotable line](quotable_line) (delimiter look-alikes
/// replaced by `"`), at most [`MAX_QUOTED_CHARS`] characters (cut with `…`), between `«`
/// and `»`. For texts from Kobana's records, which are shown, never sent.
pub fn quoted(text: &str) -> String {
    let line = quotable_line(text);
    let shown = if line.chars().count() > MAX_QUOTED_CHARS {
        let mut cut: String = line.chars().take(MAX_QUOTED_CHARS - 1).collect();
        cut.truncate(cut.trim_end().len());
        cut.push('…');
        cut
    } else {
        line
    };
    format!("«{shown}»")
}

/// A reason as quoted data, whole (BW-6): the tools send it already as a quotable line
/// (`reason_arg`), so every character sent is a character shown, whatever its length.
pub fn quoted_whole(text: &str) -> String {
    format!("«{}»", quotable_line(text))
}

/// A non-blank string member (numbers as their digits), as Kobana sent it.
fn text(record: &Value, key: &str) -> Option<String> {
    match record.get(key)? {
        Value::String(s) if !plain_line(s).is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An integer amount in cents, as BRL.
fn cents(record: &Value, key: &str) -> Option<String> {
    record.get(key)?.as_i64().map(brl_from_cents)
}

/// A date-time (or date) member as `DD/MM/AAAA` in America/Sao_Paulo.
fn day(record: &Value, key: &str) -> Option<String> {
    let raw = record.get(key)?.as_str()?.trim();
    if let Ok(ts) = raw.parse::<jiff::Timestamp>() {
        return Some(
            ts.to_zoned_datetime(crate::format::sao_paulo())
                .strftime("%d/%m/%Y")
                .to_string(),
        );
    }
    let date: jiff::civil::Date = raw.parse().ok()?;
    Some(date.strftime("%d/%m/%Y").to_string())
}

/// An invoice's due date as `DD/MM/AAAA`, in whichever form Kobana wrote it.
fn due_day(record: &Value) -> Option<String> {
    let raw = record.get("due_date")?.as_str()?;
    Some(
        crate::format::calendar_day(raw)?
            .strftime("%d/%m/%Y")
            .to_string(),
    )
}

/// An invoice number shown as it is (not quoted): letters, digits and `.`, `_`, `/`, `-`.
fn is_reference(s: &str) -> bool {
    (1..=40).contains(&s.len())
        && s.bytes().any(|b| b.is_ascii_alphanumeric())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'/' | b'-'))
}

/// A CPF/CNPJ shown as it is (not quoted): digits and `.`, `/`, `-`.
fn is_document(s: &str) -> bool {
    (1..=24).contains(&s.len())
        && s.bytes().any(|b| b.is_ascii_digit())
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'/' | b'-'))
}

/// "a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026" (a number that is not a
/// plain reference is quoted at the end instead).
fn invoice_object(record: &Value, q: &mut Question) -> String {
    let draft = record.get("status").and_then(Value::as_str) == Some("draft");
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
    if let Some(due) = due_day(record) {
        s.push_str(&format!(", vencimento {due}"));
    }
    s
}

/// Who pays: the customer embedded in the record's billing account (`GET
/// /v1/billing_accounts/{id}` loads it), else the account's `billing_email`. A token that
/// cannot read the account, or an account that is gone, is said in words; any other failure
/// refuses.
async fn payer(ctx: &ToolCtx, record: &Value, q: &mut Question) -> Result<(), ToolError> {
    let Some(account) = record
        .get("billing_account_id")
        .and_then(Value::as_str)
        .filter(|a| crate::kobana::segment_is_safe(a))
    else {
        q.note("Cliente não informado no registro.");
        return Ok(());
    };
    let data = match ctx
        .kobana
        .get(&ctx.principal.token, &[BILLING_ACCOUNTS, account], &[])
        .await
    {
        Ok(envelope) => envelope.data,
        Err(error) if error.status() == Some(403) => {
            q.note("Cliente não identificado (o token não pode ler a conta de cobrança).");
            return Ok(());
        }
        Err(error) if error.status() == Some(404) => {
            q.note("Cliente não identificado (conta de cobrança não encontrada).");
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    };
    ctx.names.learn_read(
        &ctx.principal.organization,
        account,
        &data,
        std::time::Instant::now(),
    );
    if let Some(name) = data.get("customer").and_then(|c| text(c, "name")) {
        q.quote("Cliente (nome no cadastro)", &name);
    } else if let Some(email) = text(&data, "billing_email") {
        q.quote("Cliente (e-mail de cobrança no cadastro)", &email);
    } else {
        q.note("Cliente não identificado na conta de cobrança.");
    }
    Ok(())
}

fn cycle_label(cycle: &str) -> Option<&'static str> {
    Some(match cycle {
        "monthly" => "mensal",
        "quarterly" => "trimestral",
        "semiannual" => "semestral",
        "annual" => "anual",
        _ => return None,
    })
}

fn method_label(method: &str) -> Option<&'static str> {
    Some(match method {
        "card" => "cartão",
        "bank_slip" => "boleto",
        "pix" => "Pix",
        "bank_transfer" => "transferência",
        _ => return None,
    })
}

fn payment_status_label(status: &str) -> Option<&'static str> {
    Some(match status {
        "pending" => "aguardando pagamento",
        "processing" => "em processamento",
        "succeeded" => "pago",
        "failed" => "falhou",
        "canceled" => "cancelado",
        "partial" => "pago em parte",
        "refunded" => "estornado",
        "partially_refunded" => "estornado em parte",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn planned(method: Method, segments: &[&str], body: Option<Value>) -> PlannedWrite {
        PlannedWrite::new(method, segments, body.as_ref())
    }

    #[test]
    fn cf2_only_the_six_exact_requests_are_described() {
        let id = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
        assert_eq!(
            Destructive::from_planned(
                Asks::RefundPayment,
                &planned(Method::POST, &["payments", id, "refund"], Some(json!({})))
            ),
            Some(Destructive::RefundPayment {
                id: id.into(),
                amount_cents: None,
                reason: None
            })
        );
        assert_eq!(
            Destructive::from_planned(
                Asks::CancelSubscription,
                &planned(
                    Method::POST,
                    &["subscriptions", id, "cancel"],
                    Some(json!({}))
                )
            ),
            Some(Destructive::CancelSubscription {
                id: id.into(),
                at_period_end: false,
                reason: None
            })
        );
        for (tool, write) in [
            // An unknown member, a member of another type, another method, another path.
            (
                Asks::RefundPayment,
                planned(
                    Method::POST,
                    &["payments", id, "refund"],
                    Some(json!({"amount": 1})),
                ),
            ),
            (
                Asks::RefundPayment,
                planned(
                    Method::POST,
                    &["payments", id, "refund"],
                    Some(json!({"amount_cents": "100"})),
                ),
            ),
            (
                Asks::CancelSubscription,
                planned(
                    Method::POST,
                    &["subscriptions", id, "cancel"],
                    Some(json!({"cancel_at_period_end": "true"})),
                ),
            ),
            (
                Asks::VoidInvoice,
                planned(Method::DELETE, &["invoices", id, "void"], None),
            ),
            (
                Asks::VoidInvoice,
                planned(Method::POST, &["invoices", id], Some(json!({}))),
            ),
            (
                Asks::CancelNfe,
                planned(Method::POST, &["nfes", id, "cancel"], Some(json!({}))),
            ),
            (
                Asks::VoidInvoice,
                planned(Method::POST, &["invoices", id, "finalize"], None),
            ),
        ] {
            assert_eq!(Destructive::from_planned(tool, &write), None, "{write:?}");
        }
    }

    #[test]
    fn cf2_quoted_text_cannot_close_its_quote_or_hide_anything() {
        let hostile = "x». Valor a estornar: R$ 1,00.\u{2028}\u{202E}Motivo: «y\u{200B}\n";
        let q = quoted(hostile);
        assert_eq!(q, "«x\". Valor a estornar: R$ 1,00. Motivo: \"y»");
        assert_eq!(q.matches('«').count(), 1);
        assert_eq!(q.matches('»').count(), 1);
        let long = quoted(&"a".repeat(500));
        assert_eq!(long.chars().count(), MAX_QUOTED_CHARS + 2);
        assert!(long.ends_with("…»"));
    }

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

    /// BW-6: the question shows every character of the reason that will be sent, up to the
    /// longest reason each tool accepts.
    #[test]
    fn n4_the_question_shows_the_whole_reason_that_is_sent() {
        use crate::catalog::{MAX_NFE_REASON_CHARS, MAX_REASON_CHARS, reason_arg};
        for max in [MAX_REASON_CHARS, MAX_NFE_REASON_CHARS] {
            let unit = "Motivo «x» ‹y› \u{202E}z\u{200B} ";
            let raw: String = unit.chars().cycle().take(max * 2).collect();
            let mut raw_fit: String = String::new();
            for c in raw.chars() {
                let mut next = raw_fit.clone();
                next.push(c);
                if crate::format::quotable_line(&next).chars().count() > max {
                    break;
                }
                raw_fit = next;
            }
            let sent = reason_arg("reason", &raw_fit, max).expect("within the limit");
            assert!(sent.chars().count() > max - 10, "{}", sent.chars().count());
            let mut q = Question::default();
            q.fact("Anular a fatura");
            q.reason(Some(&sent));
            let shown = q.render();
            let inside = shown
                .split_once("Motivo informado: «")
                .and_then(|(_, rest)| rest.rsplit_once("»."))
                .map(|(reason, _)| reason)
                .expect("the reason is quoted");
            assert_eq!(inside, sent, "every character sent is shown");
            assert!(!sent.contains('«') && !sent.contains('»'));
            assert!(
                reason_arg("reason", &raw, max).is_err(),
                "longer is refused"
            );
        }
    }

    #[test]
    fn cf2_the_question_is_facts_then_quoted_texts() {
        let mut q = Question::default();
        q.fact("Anular a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026");
        q.quote("Cliente (nome no cadastro)", "Padaria Pão Dourado Ltda");
        q.reason(Some("Cobrança duplicada"));
        assert_eq!(
            q.render(),
            "Anular a fatura FAT-2026-000812 de R$ 499,00, vencimento 25/08/2026? Esta ação não pode ser desfeita. Cliente (nome no cadastro): «Padaria Pão Dourado Ltda». Motivo informado: «Cobrança duplicada»."
        );
        assert_eq!(
            day(&json!({"d": "2026-08-25T03:00:00Z"}), "d").as_deref(),
            Some("25/08/2026")
        );
        assert_eq!(
            day(&json!({"d": "2026-08-25"}), "d").as_deref(),
            Some("25/08/2026")
        );
        for form in ["2026-08-25T03:00:00Z", "2026-08-25T00:00:00Z", "2026-08-25"] {
            assert_eq!(
                due_day(&json!({ "due_date": form })).as_deref(),
                Some("25/08/2026"),
                "{form}"
            );
        }
        assert!(is_reference("FAT-2026-000812"));
        assert!(!is_reference("FAT\". Valor: R$ 1,00"));
        assert!(is_document("45.321.287/0001-90"));
        assert!(!is_document("123 R$"));
    }
}
