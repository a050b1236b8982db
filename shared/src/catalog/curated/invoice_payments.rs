//! Toolset `invoices`, continued: settling an invoice by hand — recording a payment received
//! off the platform, undoing it, applying the account's credits. Each moves money on the
//! books, so each asks the person first (CF-1), with its own question.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::invoices::{RECORD, derived};
use super::payments::MAX_AMOUNT_CENTS;
use crate::access::slugs::INVOICES;
use crate::access::{Permission, Resource};
use crate::catalog::args::each_once;
use crate::catalog::context::{MAX_REASON_CHARS, destructive_description, reason_arg, uuid_arg};
use crate::catalog::{Asks, Effect, Output, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset};

/// Kobana's path segment of credits (`/v1/credits`).
pub const CREDITS: &str = crate::access::Resource::Credits.slug();
/// Most credits applied in one call: each is read to state its balance in the question.
pub const MAX_CREDIT_IDS: usize = 5;
/// Most installments recorded paid in one call (Kobana's schedules have 2 to 60).
pub const MAX_INSTALLMENT_IDS: usize = 60;

// Arguments of `billing_invoices_mark_paid`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkPaidArgs {
    /// UUID.
    pub id: String,
    /// Cents received (R$ 100,00 = 10000); omit for all that is owed.
    #[schemars(range(min = 1))]
    pub amount_cents: Option<u64>,
    /// Installment UUIDs, instead of amount_cents.
    #[schemars(length(max = MAX_INSTALLMENT_IDS))]
    pub installment_ids: Option<Vec<String>>,
}

// Arguments of `billing_invoices_undo_payment`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// UUID.
    pub id: String,
    /// Why.
    pub reason: Option<String>,
}

// Arguments of `billing_invoices_apply_credits`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyCreditsArgs {
    /// UUID.
    pub id: String,
    /// Credit UUIDs (billing_accounts_credits).
    #[schemars(length(min = 1, max = MAX_CREDIT_IDS))]
    pub credit_ids: Vec<String>,
    /// Cents to apply; omit: all the credits and the invoice allow.
    #[schemars(range(min = 1))]
    pub amount_cents: Option<u64>,
}

/// The result of a settlement whose answer Kobana leaves untyped (`{data: {}}`): that answer
/// as `answer`, and the invoice read again, as it stands now.
fn settled_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"invoice": {"type": "object"}},
        "required": ["invoice"]
    })
}

/// A positive amount in cents that every JSON reader reads exactly.
fn amount_arg(amount: Option<u64>) -> Result<Option<u64>, ToolError> {
    match amount {
        Some(0) => Err(ToolError::InvalidArguments(
            "`amount_cents` deve ser maior que 0; omita-o para o valor todo".to_owned(),
        )),
        Some(amount) if amount > MAX_AMOUNT_CENTS => Err(ToolError::InvalidArguments(format!(
            "`amount_cents` aceita até {MAX_AMOUNT_CENTS}; recebido {amount}"
        ))),
        other => Ok(other),
    }
}

/// Each id a UUID, each once, between 1 (when `required`) and `max` of them.
fn uuid_list(
    name: &str,
    ids: &[String],
    required: bool,
    max: usize,
) -> Result<Vec<String>, ToolError> {
    let ids = each_once(
        ids.iter()
            .map(|id| uuid_arg(name, id).map(str::to_owned))
            .collect::<Result<Vec<_>, _>>()?,
    );
    if ids.len() > max || (required && ids.is_empty()) {
        return Err(ToolError::InvalidArguments(format!(
            "`{name}` aceita de {} a {max} ids; recebidos {}",
            usize::from(required),
            ids.len()
        )));
    }
    Ok(ids)
}

/// The untyped answer under `answer`, beside the invoice read again (one more call); a
/// failed read is said in the invoice, not as an error: the write was made.
async fn settled(ctx: &ToolCtx, id: &str, mut written: Value) -> Value {
    let answer = written["result"].take();
    let invoice = match ctx.data(&[INVOICES, id], &[]).await {
        Ok(invoice) => invoice,
        Err(error) => json!({"id": id, "read_error": error.to_string()}),
    };
    derived(ctx, json!({"invoice": invoice, "answer": answer}))
}

async fn mark_paid(ctx: ToolCtx, args: MarkPaidArgs) -> Result<Value, ToolError> {
    let id = uuid_arg("id", &args.id)?.to_owned();
    let amount = amount_arg(args.amount_cents)?;
    let installments = uuid_list(
        "installment_ids",
        args.installment_ids.as_deref().unwrap_or_default(),
        false,
        MAX_INSTALLMENT_IDS,
    )?;
    if amount.is_some() && !installments.is_empty() {
        return Err(ToolError::InvalidArguments(
            "informe `amount_cents` ou `installment_ids`, não os dois".to_owned(),
        ));
    }
    // No `payment_method`: Kobana records the invoice as paid, and charges nothing.
    let mut body = Map::new();
    if let Some(amount) = amount {
        body.insert("amount_cents".into(), json!(amount));
    }
    if !installments.is_empty() {
        body.insert("installment_ids".into(), json!(installments));
    }
    let written = ctx
        .write(
            Method::POST,
            &[INVOICES, &id, "pay"],
            Some(Value::Object(body)),
        )
        .await?;
    Ok(settled(&ctx, &id, written).await)
}

async fn undo_payment(ctx: ToolCtx, args: UndoArgs) -> Result<Value, ToolError> {
    let id = uuid_arg("id", &args.id)?.to_owned();
    let mut body = Map::new();
    if let Some(reason) = args.reason.as_deref().filter(|r| !r.trim().is_empty()) {
        body.insert(
            "reason".into(),
            json!(reason_arg("reason", reason, MAX_REASON_CHARS)?),
        );
    }
    let result = ctx
        .write(
            Method::POST,
            &[INVOICES, &id, "undo-payment"],
            Some(Value::Object(body)),
        )
        .await?;
    Ok(derived(&ctx, result))
}

async fn apply_credits(ctx: ToolCtx, args: ApplyCreditsArgs) -> Result<Value, ToolError> {
    let id = uuid_arg("id", &args.id)?.to_owned();
    let credits = uuid_list("credit_ids", &args.credit_ids, true, MAX_CREDIT_IDS)?;
    let mut body = Map::new();
    body.insert("credit_ids".into(), json!(credits));
    if let Some(amount) = amount_arg(args.amount_cents)? {
        body.insert("amount_cents".into(), json!(amount));
    }
    let written = ctx
        .write(
            Method::POST,
            &[INVOICES, &id, "apply-credits"],
            Some(Value::Object(body)),
        )
        .await?;
    Ok(settled(&ctx, &id, written).await)
}

pub(super) fn tools() -> Vec<ToolSpec> {
    let write = Some(Permission::write(Resource::Invoices));
    let meta = |name, title, description, idempotent, asks, output| ToolMeta {
        name,
        title,
        description,
        toolset: Toolset::Invoices,
        permission: write,
        effect: Effect::Destructive { idempotent, asks },
        output,
    };
    vec![
        ToolSpec::new(
            meta(
                "billing_invoices_mark_paid",
                "Dar baixa manual na fatura",
                destructive_description!(
                    "Records an open invoice paid off the platform (baixa manual), charging nothing."
                ),
                false,
                Asks::MarkInvoicePaid,
                Output::Custom(settled_schema),
            ),
            mark_paid,
        ),
        ToolSpec::new(
            meta(
                "billing_invoices_undo_payment",
                "Desfazer pagamento da fatura",
                destructive_description!("Undoes a paid invoice's payment: it is open again."),
                true,
                Asks::UndoInvoicePayment,
                RECORD,
            ),
            undo_payment,
        ),
        ToolSpec::new(
            meta(
                "billing_invoices_apply_credits",
                "Aplicar créditos na fatura",
                destructive_description!(
                    "Applies account credits (billing_accounts_credits) to an open invoice."
                ),
                false,
                Asks::ApplyCredits,
                Output::Custom(settled_schema),
            ),
            apply_credits,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wa4_settlement_arguments_are_checked_before_anything_is_sent() {
        assert!(amount_arg(Some(0)).is_err());
        assert!(amount_arg(Some(MAX_AMOUNT_CENTS + 1)).is_err());
        assert_eq!(amount_arg(Some(10_000)).unwrap(), Some(10_000));
        let id = "47378190-96da-4dac-b2ff-5d2a386ecbe0".to_owned();
        assert_eq!(
            uuid_list("credit_ids", &[id.clone(), format!(" {id} ")], true, 5).unwrap(),
            [id]
        );
        assert!(uuid_list("credit_ids", &[], true, 5).is_err());
        assert!(uuid_list("credit_ids", &["FAT-1".into()], true, 5).is_err());
        let six: Vec<String> = (0..6)
            .map(|n| format!("47378190-96da-4dac-b2ff-5d2a386ecbe{n}"))
            .collect();
        let e = uuid_list("credit_ids", &six, true, 5)
            .unwrap_err()
            .to_string();
        assert!(e.contains("de 1 a 5"), "{e}");
    }
}
