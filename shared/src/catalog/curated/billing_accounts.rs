//! Toolset `billing_accounts`: contas de cobrança, the ids invoices, subscriptions and NF-e
//! point to (`billing_account_id`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::invoice_payments::CREDITS;
use super::pages::{self, PageArgs};
use crate::access::slugs::BILLING_ACCOUNTS;
use crate::access::{Permission, Resource};
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{push_opt, ref_arg, uuid_arg};
use crate::catalog::{Effect, Output, Paging, ToolError, ToolMeta, ToolSpec, Toolset};

wire_enum! {
    // A billing account status.
    AccountStatus {
        // Billing normally.
        Active => "active",
        // Suspended.
        Suspended => "suspended",
        // Closed (final).
        Closed => "closed",
    }
}

// Arguments of `billing_accounts_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct ListArgs {
    /// Customer UUID.
    pub customer_id: Option<String>,
    /// Customer CPF/CNPJ.
    pub document_number: Option<String>,
    // Free text.
    pub search: Option<String>,
    // Status.
    pub status: Option<AccountStatus>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

wire_enum! {
    // Which credits.
    CreditUsage {
        // Something left to use.
        Available => "available",
        // Used up.
        Used => "used",
        // Expired.
        Expired => "expired",
    }
}

// Arguments of `billing_accounts_credits`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CreditsArgs {
    /// UUID.
    pub id: String,
    // Which credits.
    pub usage: Option<CreditUsage>,
    #[serde(flatten)]
    pub paging: PageArgs,
}

/// The list member of the credits' answer.
const CREDITS_KEY: &str = crate::access::Resource::Credits.slug();

/// One credit: its id (what `billing_invoices_apply_credits` takes), kind, what is left of
/// how much, until when.
fn credit_row(credit: &Map<String, Value>) -> Value {
    let mut row = pages::pick(
        credit,
        &[
            "id",
            "type",
            "amount_remaining_brl",
            "amount_brl",
            "expires_at",
            "description",
        ],
    );
    if let Some(at) = row.get_mut("expires_at") {
        *at = pages::sao_paulo(at);
    }
    row
}

fn credits_schema() -> Value {
    pages::schema(CREDITS_KEY)
}

/// The query of `GET /v1/billing_accounts` for these arguments (also used by
/// `billing_customers_get` to attach a customer's accounts).
pub fn list_query(args: &ListArgs) -> Result<Vec<(String, String)>, ToolError> {
    let mut query = Vec::new();
    if let Some(id) = &args.customer_id {
        // Kobana's `person_id` is the customer's id (see tests/contract, ambiguities).
        push_opt(&mut query, "person_id", Some(ref_arg("customer_id", id)?));
    }
    push_opt(
        &mut query,
        "person_document_number",
        args.document_number.as_deref(),
    );
    push_opt(&mut query, "search", args.search.as_deref());
    push_opt(&mut query, "status", args.status.map(AccountStatus::as_str));
    Ok(query)
}

pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::BillingAccounts));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_accounts_list",
                title: "Listar contas de cobrança",
                description: "Lists billing accounts (contas de cobrança), whose ids invoices and subscriptions take.",
                toolset: Toolset::BillingAccounts,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::BillingAccounts),
            },
            |ctx, args: ListArgs| async move {
                let query = list_query(&args)?;
                ctx.list(&[BILLING_ACCOUNTS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_accounts_get",
                title: "Ver conta de cobrança",
                description: "One billing account: status, billing_email, terms, balance, customer.",
                toolset: Toolset::BillingAccounts,
                permission: read,
                effect: Effect::Read,
                output: Output::Record {
                    key: "billing_account",
                    schema: Resource::BillingAccounts,
                },
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                let result = ctx.record(&[BILLING_ACCOUNTS, id], &[]).await?;
                // The account read itself: its customer's name for later list rows.
                if let Some(account) = result.get("billing_account") {
                    ctx.names.learn_read(
                        &ctx.principal.organization,
                        id,
                        account,
                        std::time::Instant::now(),
                    );
                }
                Ok(result)
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_accounts_credits",
                title: "Créditos da conta",
                description: "A billing account's credits: what is left (BRL), expiry, and their ids for applying them.",
                toolset: Toolset::BillingAccounts,
                permission: read,
                effect: Effect::Read,
                output: Output::Custom(credits_schema),
            },
            |ctx, args: CreditsArgs| async move {
                let mut query = Vec::new();
                push_opt(
                    &mut query,
                    "billing_account_id",
                    Some(uuid_arg("id", &args.id)?),
                );
                push_opt(&mut query, "usage", args.usage.map(CreditUsage::as_str));
                pages::page(
                    &ctx,
                    &[CREDITS],
                    query,
                    &args.paging,
                    CREDITS_KEY,
                    credit_row,
                )
                .await
            },
        ),
    ]
}
