//! Shapes a list page for the model (#19): compact rows or the `fields` asked for (see
//! [`super::rows`]), the customer's name looked up where the record only names its billing
//! account, and the byte budget (see [`super::budget`]).

use std::collections::{HashMap, HashSet};

use futures_util::future::join_all;
use serde_json::Value;

use super::rows::{RowContext, shape_rows};
use super::{ToolCtx, ToolError, budget, rows};
use crate::access::{Permission, Resource};

/// Most distinct billing accounts looked up for one page (a page holds at most 100 rows).
const MAX_LOOKUPS: usize = 100;

/// Checks `fields` for the list of `resource` before anything is sent.
pub fn check(resource: &str, fields: Option<&[String]>) -> Result<(), ToolError> {
    match (rows::shape(resource), fields) {
        (Some(shape), Some(fields)) => {
            if fields.is_empty() {
                return Err(ToolError::InvalidArguments(
                    "`fields` não pode ser vazio: omita-o para a linha compacta ou nomeie os campos".to_owned(),
                ));
            }
            rows::check_fields(shape, fields).map_err(ToolError::InvalidArguments)
        }
        _ => Ok(()),
    }
}

/// Turns the list `result` (Kobana's enriched records under `key`) into the answer.
pub async fn shape(
    ctx: &ToolCtx,
    resource: &str,
    key: &str,
    fields: Option<&[String]>,
    mut result: Value,
) -> Value {
    let Some(shape) = rows::shape(resource) else {
        return result;
    };
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
            today: Some(rows_today()),
        };
        result[key] = Value::Array(shape_rows(shape, records, fields, &context));
    }
    budget::fit(&mut result, key, ctx.rows.budget_bytes);
    result
}

fn rows_today() -> jiff::civil::Date {
    jiff::Timestamp::now()
        .to_zoned_datetime(crate::format::sao_paulo())
        .date()
}

/// The customer's name for each billing account the records point to, read concurrently
/// with `GET /v1/billing_accounts/{id}` (best effort: a token without `billing_accounts:read`
/// or a failed read just leaves the name out).
async fn customer_names(ctx: &ToolCtx, records: &[Value]) -> HashMap<String, String> {
    if !ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::BillingAccounts))
    {
        return HashMap::new();
    }
    let mut seen = HashSet::new();
    let ids: Vec<&str> = records
        .iter()
        .filter_map(|r| r.get("billing_account_id").and_then(Value::as_str))
        .filter(|id| super::uuid_arg("billing_account_id", id).is_ok() && seen.insert(*id))
        .take(MAX_LOOKUPS)
        .collect();
    let reads = ids.iter().map(|id| async move {
        let envelope = ctx
            .kobana
            .get(&ctx.principal.token, &["billing_accounts", id], &[])
            .await
            .ok()?;
        let name = envelope
            .data
            .pointer("/customer/name")?
            .as_str()?
            .to_owned();
        Some(((*id).to_owned(), name))
    });
    join_all(reads).await.into_iter().flatten().collect()
}
