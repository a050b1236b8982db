//! Toolset `nfes`: NF-e / NFS-e (notas fiscais), their DANFE PDF and XML, issue and cancel.

use const_format::formatcp;
use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::access::slugs::NFES;
use crate::access::{Permission, Resource};
use crate::catalog::Asks;
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{
    date_arg, date_range, destructive_description, document_schema, push_opt, reason_arg, uuid_arg,
};
use crate::catalog::{Effect, Output, Paging, ToolError, ToolMeta, ToolSpec, Toolset};

const RECORD: Output = Output::Record {
    key: "nfe",
    schema: Resource::Nfes,
};

/// Shortest cancellation reason Kobana accepts.
pub const MIN_CANCEL_REASON: usize = 15;

/// The description of `billing_nfes_cancel`'s `reason`.
const REASON_TEXT: &str = formatcp!("Why; at least {MIN_CANCEL_REASON} characters.");

wire_enum! {
    // An NF-e status.
    NfeStatus {
        // Not submitted.
        Draft => "draft",
        // Queued.
        Pending => "pending",
        // At the provider.
        Processing => "processing",
        // Authorized.
        Issued => "issued",
        // Cancellation requested.
        PendingCancel => "pending_cancel",
        // Cancellation in progress.
        Canceling => "canceling",
        // Canceled.
        Canceled => "canceled",
        // Rejected/failed (see error_message).
        Error => "error",
    }
}

// Arguments of `billing_nfes_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct ListArgs {
    // Status (issued = authorized, error = rejected).
    pub status: Option<NfeStatus>,
    /// Invoice UUID.
    pub invoice_id: Option<String>,
    /// Billing account UUID.
    pub billing_account_id: Option<String>,
    /// Issued from, YYYY-MM-DD.
    pub issue_date_from: Option<String>,
    /// Issued until, YYYY-MM-DD.
    pub issue_date_to: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

// Arguments of `billing_nfes_cancel`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CancelArgs {
    /// UUID.
    pub id: String,
    // Why; at least MIN_CANCEL_REASON characters.
    #[schemars(length(min = MIN_CANCEL_REASON), description = REASON_TEXT)]
    pub reason: String,
}

fn pdf_schema() -> Value {
    document_schema("pdf", "nfe_id")
}

fn xml_schema() -> Value {
    document_schema("xml", "nfe_id")
}

/// A tool describing one of an NF-e's files (`pdf` or `xml`).
fn file_tool(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    kind: &'static str,
    accept: &'static str,
    schema: fn() -> Value,
) -> ToolSpec {
    ToolSpec::new(
        ToolMeta {
            name,
            title,
            description,
            toolset: Toolset::Nfes,
            permission: Some(Permission::read(Resource::Nfes)),
            effect: Effect::Read,
            output: Output::Custom(schema),
        },
        move |ctx, args: IdArgs| async move {
            let id = uuid_arg("id", &args.id)?;
            ctx.describe_document(
                &[NFES, id, kind],
                accept,
                kind,
                "nfe_id",
                id,
                format!("kobana://billing/nfes/{id}/{kind}"),
            )
            .await
        },
    )
}

#[allow(
    clippy::too_many_lines,
    reason = "a toolset's declaration list is data, one entry per tool"
)]
pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Nfes));
    let write = Some(Permission::write(Resource::Nfes));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_nfes_list",
                title: "Listar notas fiscais",
                description: "Lists NF-e (notas fiscais); status error = rejected by the city hall.",
                toolset: Toolset::Nfes,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Nfes),
            },
            |ctx, args: ListArgs| async move {
                let from = date_arg("issue_date_from", args.issue_date_from.as_deref())?;
                let to = date_arg("issue_date_to", args.issue_date_to.as_deref())?;
                date_range("issue_date_from", &from, "issue_date_to", &to)?;
                let mut query = Vec::new();
                push_opt(&mut query, "status", args.status.map(NfeStatus::as_str));
                if let Some(id) = &args.invoice_id {
                    push_opt(&mut query, "invoice_id", Some(uuid_arg("invoice_id", id)?));
                }
                if let Some(id) = &args.billing_account_id {
                    push_opt(
                        &mut query,
                        "billing_account_id",
                        Some(uuid_arg("billing_account_id", id)?),
                    );
                }
                push_opt(&mut query, "issue_date_from", from);
                push_opt(&mut query, "issue_date_to", to);
                ctx.list(&[NFES], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_nfes_get",
                title: "Ver nota fiscal",
                description: "One NF-e: status, number, access key, amount, tomador, taxes, error_message.",
                toolset: Toolset::Nfes,
                permission: read,
                effect: Effect::Read,
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                ctx.record(&[NFES, id], &[]).await
            },
        ),
        file_tool(
            "billing_nfes_pdf",
            "DANFE da nota fiscal",
            "Describes an issued NF-e's DANFE PDF (size, resource_uri); never the bytes.",
            "pdf",
            "application/pdf",
            pdf_schema,
        ),
        file_tool(
            "billing_nfes_xml",
            "XML da nota fiscal",
            "Describes an issued NF-e's XML (size, resource_uri); never the content.",
            "xml",
            "application/xml",
            xml_schema,
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_nfes_issue",
                title: "Emitir nota fiscal",
                description: destructive_description!(
                    "Issues a draft NF-e or retries a pending/error one (async)."
                ),
                toolset: Toolset::Nfes,
                permission: write,
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::IssueNfe,
                },
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                ctx.write(Method::POST, &[NFES, &id, "issue"], None).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_nfes_cancel",
                title: "Cancelar nota fiscal",
                description: destructive_description!(formatcp!(
                    "Cancels an issued NF-e; reason of {MIN_CANCEL_REASON}+ characters. Async (pending_cancel)."
                )),
                toolset: Toolset::Nfes,
                permission: write,
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::CancelNfe,
                },
                output: RECORD,
            },
            |ctx, args: CancelArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                let reason = reason_arg(
                    "reason",
                    &args.reason,
                    crate::catalog::context::MAX_NFE_REASON_CHARS,
                )?;
                let len = reason.chars().count();
                if len < MIN_CANCEL_REASON {
                    return Err(ToolError::InvalidArguments(format!(
                        "`reason` precisa ter ao menos {MIN_CANCEL_REASON} caracteres (a prefeitura exige uma justificativa); recebido {len}: {reason:?}. Escreva o motivo completo, ex.: \"Serviço não prestado; cancelamento pedido pelo tomador\""
                    )));
                }
                ctx.write(
                    Method::POST,
                    &[NFES, &id, "cancel"],
                    Some(json!({"reason": reason})),
                )
                .await
            },
        ),
    ]
}
