//! Shapes a list page for the model (CX-1…CX-3): compact rows or the `fields` asked for (see
//! [`super::compact`]), the customer's name where the record only names its billing account
//! (see [`super::names`]: from the instance's cache and at most one call per answer, or why
//! not), and the byte budget (see [`super::budget`]).

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;

use super::compact::{RowContext, shape_rows};
use super::names::{self, Missing, NamesCall, PageNames};
use super::{budget, compact};
use crate::access::{Permission, Resource};
use crate::catalog::context::MAX_PER_PAGE;
use crate::catalog::{ToolCtx, ToolError};

/// Checks `fields` for the list of `resource` before anything is sent, and answers the
/// extra names to add (each once; see [`compact::check_fields`]).
pub fn check(
    resource: Resource,
    fields: Option<&[String]>,
) -> Result<Option<Vec<&'static str>>, ToolError> {
    match (compact::shape(resource), fields) {
        (Some(shape), Some(fields)) => {
            if fields.is_empty() {
                return Err(ToolError::InvalidArguments(
                    "`fields` não pode ser vazio: omita-o para a linha compacta ou nomeie os campos".to_owned(),
                ));
            }
            compact::check_fields(shape, fields)
                .map(Some)
                .map_err(ToolError::InvalidArguments)
        }
        _ => Ok(None),
    }
}

/// Turns the list `result` (Kobana's enriched records of `resource`, under its slug) into the
/// answer; `fields` as [`check`] answered it.
pub async fn shape(
    ctx: &ToolCtx,
    resource: Resource,
    fields: Option<&[&'static str]>,
    mut result: Value,
) -> Value {
    let Some(shape) = compact::shape(resource) else {
        return result;
    };
    let key = resource.slug();
    if resource == Resource::BillingAccounts
        && let Some(Value::Array(accounts)) = result.get(key)
    {
        ctx.names
            .learn_listed(&ctx.principal.organization, accounts, Instant::now());
    }
    if fields.is_some() || !ctx.rows.full_records {
        let records = match result.get_mut(key).map(Value::take) {
            Some(Value::Array(records)) => records,
            _ => Vec::new(),
        };
        let (customer_names, customer_missing) = if shape.needs_customer_lookup() {
            customer_names(ctx, &records).await
        } else {
            Default::default()
        };
        let context = RowContext {
            customer_names,
            customer_missing,
            today: Some(ctx.clock.today()),
        };
        let fields = fields.unwrap_or_default();
        result[key] = Value::Array(shape_rows(shape, records, fields, &context));
    }
    budget::fit(&mut result, key, ctx.rows.budget_bytes);
    result
}

/// The customer's name for each billing account the records point to, and why not for the
/// ones without: what the instance's cache knows, plus at most one call, sent once and best
/// effort, planned by [`names::plan`] (a page of the organization's accounts, or one
/// account). A token without `billing_accounts:read` gets no names and says so.
async fn customer_names(
    ctx: &ToolCtx,
    records: &[Value],
) -> (HashMap<String, String>, HashMap<String, Missing>) {
    let accounts: Vec<(&str, usize)> = names::accounts_of(records)
        .into_iter()
        .filter(|(id, _)| crate::catalog::uuid_arg("billing_account_id", id).is_ok())
        .collect();
    if !ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::BillingAccounts))
    {
        let missing = accounts
            .iter()
            .map(|(id, _)| ((*id).to_owned(), Missing::NoPermission));
        return (HashMap::new(), missing.collect());
    }
    let org = ctx.principal.organization.as_str();
    let page = names::lookup_page(&ctx.names, org, &accounts, Instant::now());
    // What the round learned beyond the cache: the accounts a page of accounts sent without
    // their customer, or how the call failed.
    let (sent_bare, failed) = match names::plan(&ctx.names, &page) {
        NamesCall::None => (Vec::new(), None),
        NamesCall::List => match read_accounts_page(ctx, org, &page).await {
            Ok(bare) => (bare, None),
            Err(missing) => (Vec::new(), Some(missing)),
        },
        NamesCall::One(id) => (Vec::new(), read_account(ctx, org, id).await),
    };
    let page = names::lookup_page(&ctx.names, org, &accounts, Instant::now());
    // Once Kobana's account lists are known to come without customers, an account not read
    // yet is one Kobana did not send the customer of (its own read may, later): the same
    // words on every call, whatever the instance has read so far.
    let bare_lists = ctx.names.lists_name() == Some(false);
    let unread = |id: &str| match failed {
        Some(missing) => missing,
        None if bare_lists || sent_bare.iter().any(|b| b == id) => Missing::NotSent,
        None => Missing::NotRead,
    };
    let missing = page
        .unnamed
        .iter()
        .map(|id| ((*id).to_owned(), Missing::NotSent))
        .chain(
            page.unknown
                .iter()
                .chain(&page.unlisted)
                .map(|(id, _)| ((*id).to_owned(), unread(id))),
        )
        .collect();
    (page.names, missing)
}

/// The names round's page of accounts: learns every name it embeds, and which of the
/// page's unknown accounts it did not hold. Answers the page's unknown accounts it sent
/// without their customer, or how it failed.
async fn read_accounts_page(
    ctx: &ToolCtx,
    org: &str,
    page: &PageNames<'_>,
) -> Result<Vec<String>, Missing> {
    let query = [("per_page".to_owned(), MAX_PER_PAGE.to_string())];
    let envelope = ctx
        .kobana
        .get_once(&[Resource::BillingAccounts.slug()], &query)
        .await
        .map_err(|error| unread_because(&error))?;
    let listed = envelope.data.as_array().map_or(&[][..], Vec::as_slice);
    ctx.names.learn_listed(org, listed, Instant::now());
    let on_page = |id: &str| {
        listed
            .iter()
            .find(|a| a.get("id").and_then(Value::as_str) == Some(id))
    };
    let missed: Vec<(&str, usize)> = page
        .unknown
        .iter()
        .filter(|(id, _)| on_page(id).is_none())
        .copied()
        .collect();
    ctx.names.learn_unlisted(org, &missed, Instant::now());
    Ok(page
        .unknown
        .iter()
        .filter(|(id, _)| on_page(id).is_some_and(|a| names::embedded_name(a).is_none()))
        .map(|(id, _)| (*id).to_owned())
        .collect())
}

/// The names round's read of the one account `id`. Answers how it failed, if it did.
async fn read_account(ctx: &ToolCtx, org: &str, id: &str) -> Option<Missing> {
    match ctx
        .kobana
        .get_once(&[Resource::BillingAccounts.slug(), id], &[])
        .await
    {
        Ok(envelope) => {
            ctx.names
                .learn_read(org, id, &envelope.data, Instant::now());
            None
        }
        Err(error) if matches!(error.status(), Some(403 | 404)) => {
            ctx.names.remember(org, id, None, Instant::now());
            None
        }
        Err(error) => Some(unread_because(&error)),
    }
}

/// A names call that did not come back: not sent at all (the request's call budget was
/// spent), or failed.
fn unread_because(error: &crate::kobana::KobanaError) -> Missing {
    match error {
        crate::kobana::KobanaError::BudgetSpent { .. } => Missing::NotRead,
        _ => Missing::ReadFailed,
    }
}
