//! Toolset `invoices`: faturas, their PDF, reminders, NF-e issuance, void and delete.
//!
//! Every invoice record this toolset returns carries `_derived` (computed here, not sent by
//! Kobana): `is_overdue` = `status == "open"` and the due date is before today in
//! America/Sao_Paulo, `days_overdue`, and `as_of` (the São Paulo date used).

use const_format::formatcp;
use jiff::civil::Date;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::access::slugs::INVOICES;
use crate::access::{Permission, Resource};
use crate::catalog::Asks;
use crate::catalog::ToolCtx;
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{
    date_arg, date_range, destructive_description, document_schema, push_opt, reason_arg, text_arg,
    uuid_arg,
};
use crate::catalog::{Effect, Output, Paging, ToolError, ToolMeta, ToolSpec, Toolset};
use crate::format::{brl_from_cents, brl_from_unsigned_cents};
use crate::kobana::KobanaError;

pub(super) const RECORD: Output = Output::Record {
    key: "invoice",
    schema: Resource::Invoices,
};

/// Most line items Kobana takes on one invoice.
pub const MAX_LINE_ITEMS: usize = 200;
/// Longest description of one line item, in characters.
const MAX_LINE_DESCRIPTION_CHARS: usize = 500;
/// Longest description of an invoice, in characters.
const MAX_DESCRIPTION_CHARS: usize = 1000;

/// The description of `billing_invoices_create`'s `line_items`.
const LINE_ITEMS_TEXT: &str = formatcp!("1 to {MAX_LINE_ITEMS} lines.");

wire_enum! {
    // An invoice status.
    InvoiceStatus {
        // Editable draft; not charged yet.
        Draft => "draft",
        // Finalized, awaiting payment (overdue once due_date passed).
        Open => "open",
        // Paid.
        Paid => "paid",
        // Voided (cancelled).
        Void => "void",
        // Written off.
        Uncollectible => "uncollectible",
    }
}

// Arguments of `billing_invoices_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    // Status.
    pub status: Option<InvoiceStatus>,
    /// Billing account UUID.
    pub billing_account_id: Option<String>,
    /// Subscription UUID.
    pub subscription_id: Option<String>,
    /// Due from, YYYY-MM-DD.
    pub due_date_from: Option<String>,
    /// Due until, YYYY-MM-DD.
    pub due_date_to: Option<String>,
    /// Created from, YYYY-MM-DD.
    pub date_from: Option<String>,
    /// Created until, YYYY-MM-DD.
    pub date_to: Option<String>,
    /// Number or customer.
    pub search: Option<String>,
    /// Customer CPF/CNPJ.
    pub document_number: Option<String>,
    /// Open past due; only with billing_account_id and paging.
    pub overdue: Option<bool>,
    /// Paid, NF-e missing or failed; same limits.
    pub without_nfe: Option<bool>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

// One line of a new invoice.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct LineItem {
    // What is billed.
    pub description: String,
    /// Default 1.
    #[schemars(range(min = 1))]
    pub quantity: Option<u32>,
    /// Unit price in cents (R$ 150,00 = 15000).
    pub unit_amount_cents: u64,
}

// Arguments of `billing_invoices_create`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CreateArgs {
    /// Payer's billing account UUID.
    pub billing_account_id: String,
    // 1 to MAX_LINE_ITEMS lines.
    #[schemars(length(min = 1, max = MAX_LINE_ITEMS), description = LINE_ITEMS_TEXT)]
    pub line_items: Vec<LineItem>,
    /// YYYY-MM-DD (default: payment terms).
    pub due_date: Option<String>,
    /// Shown on the invoice.
    pub description: Option<String>,
}

// Arguments of `billing_invoices_void`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VoidArgs {
    /// UUID.
    pub id: String,
    /// Why (required).
    pub reason: String,
}

/// Adds `_derived` to one invoice record: the days overdue as a list row counts them
/// ([`crate::catalog::lists::compact::days_overdue`]), 0 when it is not.
fn derive(invoice: &mut Value, today: Date) {
    let Some(map) = invoice.as_object_mut() else {
        return;
    };
    let days = crate::catalog::lists::compact::days_overdue(map, today).unwrap_or(0);
    map.insert(
        "_derived".to_owned(),
        json!({"is_overdue": days > 0, "days_overdue": days, "as_of": today.to_string()}),
    );
}

/// Adds `_derived` to the invoice (`invoice`) or invoices (`invoices`) of a result, as of
/// the call's billing day ([`crate::format::BillingClock`]).
pub(super) fn derived(ctx: &ToolCtx, mut result: Value) -> Value {
    let today = ctx.clock.today();
    if let Some(invoice) = result.get_mut("invoice") {
        derive(invoice, today);
    }
    if let Some(Value::Array(items)) = result.get_mut(INVOICES) {
        items.iter_mut().for_each(|i| derive(i, today));
    }
    result
}

/// Why Kobana has no PDF for the invoice `id` (it answered `error`): a draft has none until it
/// is finalized, which a 404 alone does not say. On a 404 or 422 the invoice itself is read
/// once (the same permission) and a draft is named as such; anything else keeps Kobana's
/// error ("Confira o id"). Shared by `billing_invoices_pdf` and the PDF resource.
pub(crate) async fn missing_pdf(ctx: &ToolCtx, id: &str, error: KobanaError) -> ToolError {
    if matches!(error.status(), Some(404 | 422))
        && let Ok(invoice) = ctx.kobana.get_once(&[INVOICES, id], &[]).await
        && invoice.data.get("status").and_then(Value::as_str) == Some("draft")
    {
        return ToolError::DraftHasNoPdf {
            invoice_id: id.to_owned(),
        };
    }
    error.into()
}

/// `billing_invoices_issue_nfe`'s result: Kobana's untyped answer (`InvoiceNfeResponse.data`).
fn issuance_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"issuance": {"type": "object"}},
        "required": ["issuance"]
    })
}

fn pdf_schema() -> Value {
    document_schema("pdf", "invoice_id")
}

async fn list(ctx: crate::catalog::ToolCtx, args: ListArgs) -> Result<Value, ToolError> {
    let overdue = args.overdue == Some(true);
    let without_nfe = args.without_nfe == Some(true);
    if overdue && without_nfe {
        return Err(ToolError::InvalidArguments(
            "`overdue` e `without_nfe` são listas diferentes do Kobana e não se combinam; faça uma chamada para cada".to_owned(),
        ));
    }
    let due_from = date_arg("due_date_from", args.due_date_from.as_deref())?;
    let due_to = date_arg("due_date_to", args.due_date_to.as_deref())?;
    date_range("due_date_from", &due_from, "due_date_to", &due_to)?;
    let from = date_arg("date_from", args.date_from.as_deref())?;
    let to = date_arg("date_to", args.date_to.as_deref())?;
    date_range("date_from", &from, "date_to", &to)?;
    let mut query = Vec::new();
    if let Some(id) = &args.billing_account_id {
        push_opt(
            &mut query,
            "billing_account_id",
            Some(uuid_arg("billing_account_id", id)?),
        );
    }
    let segments: &[&str] = if overdue || without_nfe {
        let flag = if overdue { "overdue" } else { "without_nfe" };
        let set = |name: &'static str, present: bool| present.then_some(name);
        let refused: Vec<&str> = [
            set("status", args.status.is_some()),
            set("subscription_id", args.subscription_id.is_some()),
            set("due_date_from", due_from.is_some()),
            set("due_date_to", due_to.is_some()),
            set("date_from", from.is_some()),
            set("date_to", to.is_some()),
            set(
                "search",
                args.search.as_deref().is_some_and(|s| !s.trim().is_empty()),
            ),
            set(
                "document_number",
                args.document_number
                    .as_deref()
                    .is_some_and(|s| !s.trim().is_empty()),
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !refused.is_empty() {
            return Err(ToolError::InvalidArguments(format!(
                "com `{flag}: true` o Kobana só aceita billing_account_id, page, per_page, sort_by e sort_order; remova {} (ou chame sem `{flag}` e filtre a lista geral)",
                refused.join(", ")
            )));
        }
        if overdue {
            &[INVOICES, "pending-payment"]
        } else {
            &[INVOICES, "pending-nfe"]
        }
    } else {
        push_opt(&mut query, "status", args.status.map(InvoiceStatus::as_str));
        if let Some(id) = &args.subscription_id {
            push_opt(
                &mut query,
                "subscription_id",
                Some(uuid_arg("subscription_id", id)?),
            );
        }
        push_opt(&mut query, "due_date_from", due_from);
        push_opt(&mut query, "due_date_to", due_to);
        push_opt(&mut query, "date_from", from);
        push_opt(&mut query, "date_to", to);
        push_opt(&mut query, "search", args.search);
        push_opt(&mut query, "document_number", args.document_number);
        &[INVOICES]
    };
    // Whole records keep `_derived`; a row says `days_overdue` itself (see `catalog::lists::compact`).
    let whole = ctx.rows.full_records && args.paging.fields.is_none();
    let result = ctx.list(segments, &args.paging, query).await?;
    Ok(if whole { derived(&ctx, result) } else { result })
}

/// The request's subtotal in cents (Σ quantity × unit_amount_cents), `None` on overflow.
fn requested_subtotal_cents(args: &CreateArgs) -> Option<u64> {
    args.line_items.iter().try_fold(0u64, |sum, item| {
        sum.checked_add(u64::from(item.quantity.unwrap_or(1)).checked_mul(item.unit_amount_cents)?)
    })
}

/// The member a single-invoice read carries when Kobana sent no line items (reading
/// `line_items`: they come only with `include=line_items`, which no operation declares).
const LINE_ITEMS_NOTE: &str = "line_items_note";

/// Says in pt-BR, on a single-invoice result, when Kobana sent no line items.
fn with_line_items_note(mut result: Value) -> Value {
    if let Some(invoice) = result.get_mut("invoice").and_then(Value::as_object_mut)
        && !invoice.contains_key("line_items")
    {
        invoice.insert(
            LINE_ITEMS_NOTE.to_owned(),
            json!("O Kobana não enviou os itens desta fatura (line_items) nesta leitura; os totais acima valem, mas os itens não podem ser listados aqui."),
        );
    }
    result
}

/// Checks a created invoice against the cents the person asked for, on the one member whose
/// unit is not in doubt: `amount_remaining_cents` of a new draft is its total (readings
/// `invoice_totals_unit`, `line_item_input_unit`). A match adds `amounts` to the result; a
/// mismatch (a unit read 100× off on either side), or an invoice that cannot be checked,
/// is an error naming both figures and how to undo it.
fn check_created(mut result: Value, requested_cents: Option<u64>) -> Result<Value, ToolError> {
    let invoice = result.get("invoice");
    let id = invoice
        .and_then(|i| i.get("id"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned();
    let kobana = invoice
        .and_then(|i| i.get("amount_remaining_cents"))
        .and_then(Value::as_i64);
    let asked = requested_cents.and_then(|c| i64::try_from(c).ok());
    match (asked, kobana) {
        (Some(asked), Some(kobana)) if asked == kobana => {
            result["amounts"] = json!({
                "requested_brl": brl_from_cents(asked),
                "kobana_total_brl": brl_from_cents(kobana),
                "verified_by": "amount_remaining_cents",
            });
            Ok(result)
        }
        _ => Err(ToolError::AmountMismatch {
            invoice_id: id,
            requested: requested_cents.map_or_else(|| "?".to_owned(), brl_from_unsigned_cents),
            kobana: kobana.map(brl_from_cents),
        }),
    }
}

fn create_body(args: &CreateArgs) -> Result<Value, ToolError> {
    let account = uuid_arg("billing_account_id", &args.billing_account_id)?;
    let count = args.line_items.len();
    if !(1..=MAX_LINE_ITEMS).contains(&count) {
        return Err(ToolError::InvalidArguments(format!(
            "`line_items` deve ter de 1 a {MAX_LINE_ITEMS} itens; recebido {count}"
        )));
    }
    let mut items = Vec::with_capacity(count);
    for (n, item) in args.line_items.iter().enumerate() {
        let description = text_arg(
            &format!("line_items[{n}].description"),
            &item.description,
            MAX_LINE_DESCRIPTION_CHARS,
        )?;
        let quantity = item.quantity.unwrap_or(1);
        if quantity == 0 {
            return Err(ToolError::InvalidArguments(format!(
                "`line_items[{n}].quantity` deve ser ao menos 1"
            )));
        }
        let subcents = item.unit_amount_cents.checked_mul(100).ok_or_else(|| {
            ToolError::InvalidArguments(format!(
                "`line_items[{n}].unit_amount_cents` é grande demais"
            ))
        })?;
        items.push(json!({"description": description, "quantity": quantity,
            "unit_amount_subcents": subcents}));
    }
    let mut body = Map::new();
    body.insert("billing_account_id".into(), json!(account));
    body.insert("line_items".into(), Value::Array(items));
    if let Some(due) = date_arg("due_date", args.due_date.as_deref())? {
        body.insert("due_date".into(), json!(due));
    }
    if let Some(description) = args.description.as_deref().filter(|d| !d.trim().is_empty()) {
        body.insert(
            "description".into(),
            json!(text_arg("description", description, MAX_DESCRIPTION_CHARS)?),
        );
    }
    Ok(Value::Object(body))
}

/// `POST /v1/invoices/{id}/<action>` without a body, answering with the invoice.
fn action(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
    path: &'static str,
    output: Output,
) -> ToolSpec {
    ToolSpec::new(
        ToolMeta {
            name,
            title,
            description,
            toolset: Toolset::Invoices,
            permission: Some(Permission::write(Resource::Invoices)),
            effect,
            output,
        },
        move |ctx, args: IdArgs| async move {
            let id = uuid_arg("id", &args.id)?.to_owned();
            let result = ctx
                .write(Method::POST, &[INVOICES, &id, path], None)
                .await?;
            Ok(derived(&ctx, result))
        },
    )
}

#[allow(
    clippy::too_many_lines,
    reason = "a toolset's declaration list is data, one entry per tool"
)]
pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Invoices));
    let write = Some(Permission::write(Resource::Invoices));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_list",
                title: "Listar faturas",
                description: "Lists invoices (faturas), with days_overdue.",
                toolset: Toolset::Invoices,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Invoices),
            },
            list,
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_get",
                title: "Ver fatura",
                description: "One invoice: totals (cents and BRL), line items when sent, _derived.is_overdue and, when open, payment_codes (Pix, boleto line).",
                toolset: Toolset::Invoices,
                permission: read,
                effect: Effect::Read,
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                let result = ctx.record(&[INVOICES, id], &[]).await?;
                let result = with_line_items_note(derived(&ctx, result));
                Ok(super::invoice_codes::with_codes(&ctx, result).await)
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_pdf",
                title: "PDF da fatura",
                description: "Describes a finalized invoice's PDF (size, resource_uri); never the bytes.",
                toolset: Toolset::Invoices,
                permission: read,
                effect: Effect::Read,
                output: Output::Custom(pdf_schema),
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                match ctx
                    .describe_document(
                        &[INVOICES, id, "pdf"],
                        "application/pdf",
                        "pdf",
                        "invoice_id",
                        id,
                        format!("kobana://billing/invoices/{id}/pdf"),
                    )
                    .await
                {
                    Err(ToolError::Kobana(error)) => Err(missing_pdf(&ctx, id, *error).await),
                    done => done,
                }
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_create",
                title: "Criar fatura",
                description: formatcp!(
                    "Creates a draft invoice of 1-{MAX_LINE_ITEMS} line_items in cents, its stored total checked. Then finalize."
                ),
                toolset: Toolset::Invoices,
                permission: write,
                effect: Effect::Write { idempotent: false },
                output: RECORD,
            },
            |ctx, args: CreateArgs| async move {
                let body = create_body(&args)?;
                let result = ctx.write(Method::POST, &[INVOICES], Some(body)).await?;
                check_created(derived(&ctx, result), requested_subtotal_cents(&args))
            },
        ),
        action(
            "billing_invoices_finalize",
            "Finalizar fatura",
            destructive_description!(
                "Finalizes a draft: open, numbered, payable; may charge the saved card and issue the NF-e."
            ),
            Effect::Destructive {
                idempotent: true,
                asks: Asks::FinalizeInvoice,
            },
            "finalize",
            RECORD,
        ),
        action(
            "billing_invoices_send_reminder",
            "Enviar lembrete de fatura",
            "E-mails a payment reminder of an open invoice to the billing_email; one per call.",
            Effect::Write { idempotent: false },
            "send-reminder",
            RECORD,
        ),
        action(
            "billing_invoices_issue_nfe",
            "Emitir NF-e da fatura",
            destructive_description!("Issues the invoice's NF-e (async); see billing_nfes_list."),
            Effect::Destructive {
                idempotent: false,
                asks: Asks::IssueInvoiceNfe,
            },
            "issue-nfe",
            Output::Keyed {
                key: "issuance",
                schema: issuance_schema,
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_void",
                title: "Anular fatura",
                description: destructive_description!(
                    "Voids (anula) an open invoice; reason required."
                ),
                toolset: Toolset::Invoices,
                permission: write,
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::VoidInvoice,
                },
                output: RECORD,
            },
            |ctx, args: VoidArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                let reason = reason_arg(
                    "reason",
                    &args.reason,
                    crate::catalog::context::MAX_REASON_CHARS,
                )?;
                let result = ctx
                    .write(
                        Method::POST,
                        &[INVOICES, &id, "void"],
                        Some(json!({"reason": reason})),
                    )
                    .await?;
                Ok(derived(&ctx, result))
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_invoices_delete",
                title: "Excluir rascunho de fatura",
                description: destructive_description!(
                    "Deletes a draft invoice (finalized ones are voided)."
                ),
                toolset: Toolset::Invoices,
                permission: write,
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::DeleteInvoice,
                },
                output: Output::Record {
                    key: "result",
                    schema: Resource::Invoices,
                },
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                ctx.write(Method::DELETE, &[INVOICES, &id], None).await
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn created(items: Value) -> CreateArgs {
        serde_json::from_value(json!({
            "billing_account_id": "371ecd7b-27cd-4130-8722-9389571aa876",
            "line_items": items
        }))
        .unwrap()
    }

    #[test]
    fn contract_4_line_items_are_sent_in_subcents_and_the_created_total_is_checked() {
        let args = created(json!([
            {"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_cents": 25000},
            {"description": "Deslocamento", "unit_amount_cents": 1050}
        ]));
        let body = create_body(&args).unwrap();
        assert_eq!(body["line_items"][0]["unit_amount_subcents"], 2_500_000);
        assert_eq!(body["line_items"][1]["unit_amount_subcents"], 105_000);
        assert_eq!(requested_subtotal_cents(&args), Some(51_050));
        // Kobana's draft owes what was asked (amount_remaining_cents, unit not in doubt).
        let ok = check_created(
            json!({"invoice": {"id": "inv-1", "amount_remaining_cents": 51_050}}),
            Some(51_050),
        )
        .unwrap();
        assert_eq!(ok["amounts"]["kobana_total_brl"], "R$ 510,50");
        assert_eq!(ok["amounts"]["requested_brl"], "R$ 510,50");
        assert_eq!(ok["amounts"]["verified_by"], "amount_remaining_cents");
        // 100× off (the unit read as centavos on Kobana's side): an error with both figures
        // and the undo, whatever the *_subcents members say.
        for kobana in [json!(5_105_000), json!(null)] {
            let off = check_created(
                json!({"invoice": {"id": "inv-1", "amount_remaining_cents": kobana,
                    "total_subcents": 5_105_000}}),
                Some(51_050),
            )
            .unwrap_err();
            assert_eq!(off.code(), "AMOUNT_MISMATCH");
            assert_eq!(off.details()["invoice_id"], "inv-1");
            let text = off.to_string();
            assert!(
                text.contains("R$ 510,50") && text.contains("billing_invoices_delete id=inv-1"),
                "{text}"
            );
            if kobana.is_i64() {
                assert!(text.contains("R$ 51.050,00"), "{text}");
            }
        }
    }

    #[test]
    fn contract_line_items_absent_are_said_in_pt_br() {
        let without = with_line_items_note(json!({"invoice": {"id": "x"}}));
        assert!(
            without["invoice"][LINE_ITEMS_NOTE]
                .as_str()
                .unwrap()
                .contains("não enviou")
        );
        let with = with_line_items_note(json!({"invoice": {"id": "x", "line_items": []}}));
        assert!(with["invoice"].get(LINE_ITEMS_NOTE).is_none());
    }

    #[test]
    fn t3_overdue_is_derived_in_sao_paulo() {
        let today: Date = "2026-08-20".parse().unwrap();
        let mut open = json!({"status": "open", "due_date": "2026-08-05T03:00:00Z"});
        derive(&mut open, today);
        assert_eq!(
            open["_derived"],
            json!({"is_overdue": true, "days_overdue": 15, "as_of": "2026-08-20"})
        );
        // Due today (midnight in São Paulo) is not overdue yet.
        let mut due_today = json!({"status": "open", "due_date": "2026-08-20T03:00:00Z"});
        derive(&mut due_today, today);
        assert_eq!(due_today["_derived"]["is_overdue"], false);
        // Midnight UTC and a bare date are the same calendar day (reading due_date_form).
        let mut utc = json!({"status": "open", "due_date": "2026-08-20T00:00:00Z"});
        derive(&mut utc, today);
        assert_eq!(utc["_derived"]["is_overdue"], false);
        let mut utc = json!({"status": "open", "due_date": "2026-08-19T00:00:00Z"});
        derive(&mut utc, today);
        assert_eq!(utc["_derived"]["days_overdue"], 1);
        let mut paid = json!({"status": "paid", "due_date": "2026-07-25"});
        derive(&mut paid, today);
        assert_eq!(paid["_derived"]["days_overdue"], 0);
    }
}
