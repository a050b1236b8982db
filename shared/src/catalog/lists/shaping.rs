//! Shapes a list page for the model (CX-1…CX-3): compact rows or the `fields` asked for (see
//! [`super::compact`]), the customer's name where the record only names its billing account
//! (see [`super::names`]: from the instance's cache, at most one call per answer), and the
//! byte budget (see [`super::budget`]).

use std::collections::HashMap;
use std::time::Instant;

use serde_json::Value;

use super::compact::{RowContext, shape_rows};
use super::names;
use super::{budget, compact};
use crate::access::{Permission, Resource};
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
        let context = RowContext {
            customer_names: if shape.needs_customer_lookup() {
                customer_names(ctx, &records).await
            } else {
                HashMap::new()
            },
            today: Some(ctx.clock.today()),
        };
        let fields = fields.unwrap_or_default();
        result[key] = Value::Array(shape_rows(shape, records, fields, &context));
    }
    budget::fit(&mut result, key, ctx.rows.budget_bytes);
    result
}

/// The customer's name for each billing account the records point to: what the instance's
/// cache knows, plus at most one `GET /v1/billing_accounts/{id}` (sent once, best effort)
/// for the unknown account with most rows. A token without `billing_accounts:read` gets no
/// names; an account read without an embedded customer, or one the token may not read
/// (403/404), is remembered as unnamed.
async fn customer_names(ctx: &ToolCtx, records: &[Value]) -> HashMap<String, String> {
    if !ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::BillingAccounts))
    {
        return HashMap::new();
    }
    let org = ctx.principal.organization.as_str();
    let accounts: Vec<(&str, usize)> = names::accounts_of(records)
        .into_iter()
        .filter(|(id, _)| crate::catalog::uuid_arg("billing_account_id", id).is_ok())
        .collect();
    let (mut known, unknown) = names::known_names(&ctx.names, org, &accounts, Instant::now());
    let Some(id) = names::next_to_read(&unknown) else {
        return known;
    };
    match ctx
        .kobana
        .get_once(
            &ctx.principal.token,
            &[Resource::BillingAccounts.slug(), id],
            &[],
        )
        .await
    {
        Ok(envelope) => {
            let kept = ctx
                .names
                .learn_read(org, id, &envelope.data, Instant::now());
            if let Some(name) = kept {
                known.insert(id.to_owned(), name);
            }
        }
        Err(error) if matches!(error.status(), Some(403 | 404)) => {
            ctx.names.remember(org, id, None, Instant::now());
        }
        Err(_) => {}
    }
    known
}
