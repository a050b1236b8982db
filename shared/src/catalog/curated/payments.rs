//! Toolset `payments`: the charges (Pix, boleto, card) behind invoices, and refunds.

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::access::slugs::PAYMENTS;
use crate::access::{Permission, Resource};
use crate::catalog::Asks;
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{destructive_description, push_opt, reason_arg, uuid_arg};
use crate::catalog::{Effect, Output, Paging, ToolError, ToolMeta, ToolSpec, Toolset};

const RECORD: Output = Output::Record {
    key: "payment",
    schema: Resource::Payments,
};

wire_enum! {
    // A payment status.
    PaymentStatus {
        // Awaiting payment.
        Pending => "pending",
        // Being processed.
        Processing => "processing",
        // Paid (received).
        Succeeded => "succeeded",
        // Failed.
        Failed => "failed",
        // Canceled.
        Canceled => "canceled",
        // Partly paid.
        Partial => "partial",
        // Fully refunded.
        Refunded => "refunded",
        // Partly refunded.
        PartiallyRefunded => "partially_refunded",
    }
}

// Arguments of `billing_payments_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Invoice UUID.
    pub invoice_id: Option<String>,
    // Status.
    pub status: Option<PaymentStatus>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

// Arguments of `billing_payments_refund`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefundArgs {
    /// UUID.
    pub id: String,
    /// Cents to refund (R$ 100,00 = 10000); omit for all that is left.
    #[schemars(range(min = 1))]
    pub amount_cents: Option<u64>,
    /// Why.
    pub reason: Option<String>,
}

/// Largest `amount_cents` sent: 2^53 − 1, the largest integer every JSON reader (Kobana's
/// included) reads exactly. A larger one could be read as something else — or as no amount,
/// that is, a full refund.
pub const MAX_AMOUNT_CENTS: u64 = (1 << 53) - 1;

/// The refund's result under both readings of `refund_result`: Kobana answers the refunded
/// payment (its id), or a new payment record for the refund. In the second case the refunded
/// payment is read again and shown under `payment`, the new record under `refund`, and a
/// pt-BR `note` says which is which.
async fn refund_result(
    ctx: &crate::catalog::ToolCtx,
    id: &str,
    mut result: Value,
) -> Result<Value, ToolError> {
    let answered = result
        .get("payment")
        .and_then(|p| p.get("id"))
        .and_then(Value::as_str);
    if answered.is_none_or(|answered| answered == id) {
        return Ok(result);
    }
    let refund = result["payment"].take();
    let mut refunded = match ctx.record(&[PAYMENTS, id], &[]).await {
        Ok(refunded) => refunded,
        // The refund was made; only the re-read failed: say so rather than fail the call.
        Err(error) => json!({"payment": {"id": id, "read_error": error.to_string()}}),
    };
    refunded["refund"] = refund;
    refunded["note"] = json!(
        "O Kobana registrou o estorno como um novo pagamento (refund); payment é o pagamento estornado, lido de novo."
    );
    Ok(refunded)
}

#[allow(
    clippy::too_many_lines,
    reason = "a toolset's declaration list is data, one entry per tool"
)]
pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Payments));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_payments_list",
                title: "Listar pagamentos",
                description: "Lists payments (Pix, boleto, card) of invoices; succeeded = paid.",
                toolset: Toolset::Payments,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Payments),
            },
            |ctx, args: ListArgs| async move {
                let mut query = Vec::new();
                if let Some(id) = &args.invoice_id {
                    push_opt(&mut query, "invoice_id", Some(uuid_arg("invoice_id", id)?));
                }
                push_opt(&mut query, "status", args.status.map(PaymentStatus::as_str));
                ctx.list(&[PAYMENTS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_payments_get",
                title: "Ver pagamento",
                description: "One payment: invoice, method, status, amount and paid_amount (cents and BRL), paid_at.",
                toolset: Toolset::Payments,
                permission: read,
                effect: Effect::Read,
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                ctx.record(&[PAYMENTS, id], &[]).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_payments_refund",
                title: "Estornar pagamento",
                description: destructive_description!(
                    "Refunds (estorna) a succeeded payment: all of it, or amount_cents."
                ),
                toolset: Toolset::Payments,
                permission: Some(Permission::write(Resource::Payments)),
                effect: Effect::Destructive {
                    idempotent: false,
                    asks: Asks::RefundPayment,
                },
                output: RECORD,
            },
            |ctx, args: RefundArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                let mut body = Map::new();
                match args.amount_cents {
                    Some(0) => {
                        return Err(ToolError::InvalidArguments(
                            "`amount_cents` deve ser maior que 0; omita-o para estornar o valor todo"
                                .to_owned(),
                        ));
                    }
                    Some(amount) if amount > MAX_AMOUNT_CENTS => {
                        return Err(ToolError::InvalidArguments(format!(
                            "`amount_cents` aceita até {MAX_AMOUNT_CENTS} (o maior inteiro que todo leitor de JSON lê exatamente); recebido {amount}. Omita-o para estornar o valor todo"
                        )));
                    }
                    Some(amount) => {
                        body.insert("amount_cents".into(), json!(amount));
                    }
                    None => {}
                }
                if let Some(reason) = args.reason.as_deref().filter(|r| !r.trim().is_empty()) {
                    body.insert(
                        "reason".into(),
                        json!(reason_arg(
                            "reason",
                            reason,
                            crate::catalog::context::MAX_REASON_CHARS
                        )?),
                    );
                }
                let result = ctx
                    .write(
                        Method::POST,
                        &[PAYMENTS, &id, "refund"],
                        Some(Value::Object(body)),
                    )
                    .await?;
                refund_result(&ctx, &id, result).await
            },
        ),
    ]
}
