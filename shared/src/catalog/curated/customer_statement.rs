//! Toolset `customers`, continued: a customer's statement (extrato) — the invoices, payments
//! and credit applications of their billing account, newest first as Kobana orders them.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::pages::{self, PageArgs};
use crate::access::slugs::CUSTOMERS;
use crate::access::{Permission, Resource};
use crate::catalog::context::{push_opt, ref_arg, uuid_arg};
use crate::catalog::{Effect, Output, ToolError, ToolMeta, ToolSpec, Toolset};

/// The list member of the statement's answer.
const KEY: &str = "statement";

// Arguments of `billing_customers_statement`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct StatementArgs {
    /// UUID or external_id.
    pub id: String,
    /// Needed if the customer has several accounts.
    pub billing_account_id: Option<String>,
    #[serde(flatten)]
    pub paging: PageArgs,
}

/// One statement line: what happened, when, how much (BRL), and what it belongs to.
fn row(item: &Map<String, Value>) -> Value {
    let mut row = pages::pick(
        item,
        &[
            "id",
            "kind",
            "occurred_at",
            "description",
            "amount_brl",
            "parent_type",
            "parent_id",
        ],
    );
    if let Some(at) = row.get_mut("occurred_at") {
        *at = pages::sao_paulo(at);
    }
    row
}

fn schema() -> Value {
    pages::schema(KEY)
}

async fn statement(ctx: crate::catalog::ToolCtx, args: StatementArgs) -> Result<Value, ToolError> {
    let id = ref_arg("id", &args.id)?;
    let mut query = Vec::new();
    if let Some(account) = &args.billing_account_id {
        push_opt(
            &mut query,
            "billing_account_id",
            Some(uuid_arg("billing_account_id", account)?),
        );
    }
    pages::page(
        &ctx,
        &[CUSTOMERS, id, "statement"],
        query,
        &args.paging,
        KEY,
        row,
    )
    .await
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        ToolMeta {
            name: "billing_customers_statement",
            title: "Extrato do cliente",
            description: "A customer's statement (extrato): invoices, payments and credit applications, in BRL.",
            toolset: Toolset::Customers,
            permission: Some(Permission::read(Resource::Customers)),
            effect: Effect::Read,
            output: Output::Custom(schema),
        },
        statement,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wa4_a_statement_row_is_compact_in_brl_and_sao_paulo_time() {
        let mut item = json!({"id": "s1", "billing_account_id": "acc", "kind": "payment",
            "occurred_at": "2026-08-13T19:20:00Z", "description": null,
            "amount_cents": -120_000, "parent_id": "p1", "parent_type": "payment",
            "created_at": "2026-08-13T19:20:00Z"});
        crate::format::enrich(&mut item);
        assert_eq!(
            row(item.as_object().unwrap()),
            json!({"id": "s1", "kind": "payment", "occurred_at": "2026-08-13T16:20:00-03:00",
                "amount_brl": "-R$ 1.200,00", "parent_type": "payment", "parent_id": "p1"})
        );
    }
}
