//! Completions (C-1…C-4): suggestions while a person types an argument.
//!
//! Ids come from the matching Kobana list, searched by what was typed, under that list's
//! permission (one upstream call); `{resource}` from the schema catalog by prefix; `month`
//! as the last twelve months in America/Sao_Paulo. Arguments named after an id that a write
//! tool takes (`billing_account_id`, `plan_id`, `product_id`) are completed from their list
//! whatever the prompt, like `customer_id`; `price_id` from plan items (the only documented
//! source of price ids): the plan named by a `plan_id` in the request's context, else the
//! first plans. Anything else: an empty list.

use rmcp::model::{CompletionInfo, Reference};
use serde_json::Value;

use std::collections::HashMap;

use crate::catalog::{ToolCtx, Visibility, registry, schemas, uuid_arg};
use crate::format::sao_paulo;
use crate::resources;

/// Most values in one answer (spec maximum).
pub const MAX_VALUES: usize = 100;

/// Where suggestions for one argument come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Ids from a Kobana list: (list tool, Kobana path segment, searchable).
    Ids(&'static str, &'static str, bool),
    /// Price ids from plan items, under `plans:read`.
    Prices,
    /// Names in the schema catalog.
    SchemaNames,
    /// The last twelve `YYYY-MM`.
    Months,
    /// Nothing to suggest.
    None,
}

/// The source for `argument` of `reference`.
pub fn source(reference: &Reference, argument: &str) -> Source {
    match reference {
        Reference::Prompt(prompt) => match (prompt.name.as_str(), argument) {
            (_, "customer_id") => Source::Ids("billing_customers_list", "customers", true),
            (_, "billing_account_id") => {
                Source::Ids("billing_accounts_list", "billing_accounts", true)
            }
            (_, "plan_id") => Source::Ids("billing_plans_list", "plans", true),
            (_, "product_id") => Source::Ids("billing_products_list", "products", true),
            (_, "price_id") => Source::Prices,
            (_, "month") => Source::Months,
            _ => Source::None,
        },
        Reference::Resource(template) => {
            let Some(entry) = resources::ENTRIES.iter().find(|e| e.uri == template.uri) else {
                return Source::None;
            };
            use resources::Kind::*;
            match (entry.kind, argument) {
                (Schema, "resource") => Source::SchemaNames,
                (Customer, "id") => Source::Ids("billing_customers_list", "customers", true),
                (Subscription, "id") => {
                    Source::Ids("billing_subscriptions_list", "subscriptions", true)
                }
                (Invoice | InvoicePdf, "id") => {
                    Source::Ids("billing_invoices_list", "invoices", true)
                }
                (Nfe | NfePdf | NfeXml, "id") => Source::Ids("billing_nfes_list", "nfes", false),
                _ => Source::None,
            }
        }
        _ => Source::None,
    }
}

fn info(values: Vec<String>, total: usize) -> CompletionInfo {
    let has_more = total > values.len();
    let mut info = CompletionInfo::default();
    info.values = values;
    info.total = Some(u32::try_from(total).unwrap_or(u32::MAX));
    info.has_more = Some(has_more);
    info
}

/// The last twelve months, newest first, that start with `prefix`.
pub fn months(prefix: &str, now: jiff::Timestamp) -> Vec<String> {
    let today = now.to_zoned_datetime(sao_paulo()).date();
    let (mut year, mut month) = (i32::from(today.year()), i32::from(today.month()));
    let mut out = Vec::with_capacity(12);
    for _ in 0..12 {
        let value = format!("{year:04}-{month:02}");
        if value.starts_with(prefix) {
            out.push(value);
        }
        month -= 1;
        if month == 0 {
            month = 12;
            year -= 1;
        }
    }
    out
}

/// Plans whose items are read for `price_id` when the context names no plan.
const PRICE_PLANS: usize = 20;

/// Price ids of plan items starting with `typed`: the items of `plan` (a UUID from the
/// completion context), else of the first [`PRICE_PLANS`] plans, read concurrently.
async fn prices(ctx: &ToolCtx, plan: Option<&str>, typed: &str) -> CompletionInfo {
    let plans: Vec<String> = match plan.filter(|p| uuid_arg("plan_id", p).is_ok()) {
        Some(plan) => vec![plan.trim().to_owned()],
        None => {
            let query = [
                ("page".to_owned(), "1".to_owned()),
                ("per_page".to_owned(), PRICE_PLANS.to_string()),
            ];
            match ctx
                .kobana
                .get(&ctx.principal.token, &["plans"], &query)
                .await
            {
                Ok(envelope) => ids_of(&envelope.data),
                Err(error) => {
                    tracing::info!(%error, "completion source failed; no suggestions");
                    return info(Vec::new(), 0);
                }
            }
        }
    };
    let reads = plans.iter().map(|plan| async move {
        ctx.kobana
            .get(&ctx.principal.token, &["plans", plan, "items"], &[])
            .await
            .map(|envelope| envelope.data)
    });
    let mut values: Vec<String> = Vec::new();
    for items in futures_util::future::join_all(reads)
        .await
        .into_iter()
        .flatten()
    {
        for price in items
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|item| item.get("price_id").and_then(Value::as_str))
        {
            if price.starts_with(typed.trim()) && !values.iter().any(|v| v == price) {
                values.push(price.to_owned());
            }
        }
    }
    let total = values.len();
    values.truncate(MAX_VALUES);
    info(values, total)
}

fn ids_of(records: &Value) -> Vec<String> {
    records
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r.get("id").and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

/// Suggestions for `argument` = `value` of `reference`; `context` holds the arguments the
/// person already chose. Never an error (C-4).
pub async fn complete(
    ctx: ToolCtx,
    visibility: &Visibility,
    reference: &Reference,
    argument: &str,
    value: &str,
    context: Option<&HashMap<String, String>>,
) -> CompletionInfo {
    match source(reference, argument) {
        Source::None => info(Vec::new(), 0),
        Source::Prices => {
            let allowed = registry()
                .get("billing_plans_get")
                .is_some_and(|t| visibility.may_run(t));
            if !allowed {
                return info(Vec::new(), 0);
            }
            let plan = context.and_then(|c| c.get("plan_id")).map(String::as_str);
            prices(&ctx, plan, value).await
        }
        Source::Months => {
            let values = months(value, jiff::Timestamp::now());
            let total = values.len();
            info(values, total)
        }
        Source::SchemaNames => {
            let values: Vec<String> = schemas::catalog()
                .resources
                .iter()
                .map(|r| r.name.clone())
                .filter(|n| n.starts_with(value))
                .collect();
            let total = values.len();
            info(values, total)
        }
        Source::Ids(tool, path, searchable) => {
            let allowed = registry().get(tool).is_some_and(|t| visibility.may_run(t));
            if !allowed {
                return info(Vec::new(), 0);
            }
            let typed = value.trim();
            let mut query = vec![
                ("page".to_owned(), "1".to_owned()),
                ("per_page".to_owned(), MAX_VALUES.to_string()),
            ];
            if searchable && !typed.is_empty() && !looks_like_id_prefix(typed) {
                query.push(("search".to_owned(), typed.to_owned()));
            }
            let envelope = match ctx.kobana.get(&ctx.principal.token, &[path], &query).await {
                Ok(envelope) => envelope,
                Err(error) => {
                    tracing::info!(%error, tool, "completion source failed; no suggestions");
                    return info(Vec::new(), 0);
                }
            };
            let records = envelope.data.as_array().cloned().unwrap_or_default();
            let by_prefix = typed.is_empty() || looks_like_id_prefix(typed) || !searchable;
            let values: Vec<String> = records
                .iter()
                .filter_map(|r| r.get("id").and_then(Value::as_str))
                .filter(|id| !by_prefix || id.starts_with(typed))
                .map(str::to_owned)
                .take(MAX_VALUES)
                .collect();
            let total = if by_prefix && !typed.is_empty() {
                values.len()
            } else {
                envelope
                    .meta
                    .as_ref()
                    .and_then(|m| m.get("total"))
                    .and_then(Value::as_u64)
                    .map_or(values.len(), |t| t as usize)
                    .max(values.len())
            };
            info(values, total)
        }
    }
}

/// Typed text that is the start of a UUID (hex digits and dashes) is matched by prefix.
fn looks_like_id_prefix(typed: &str) -> bool {
    typed.len() >= 4 && typed.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_4_write_tool_ids_complete_from_their_lists_by_argument_name() {
        let prompt = Reference::for_prompt("customer_overview");
        assert_eq!(
            source(&prompt, "billing_account_id"),
            Source::Ids("billing_accounts_list", "billing_accounts", true)
        );
        assert_eq!(
            source(&prompt, "plan_id"),
            Source::Ids("billing_plans_list", "plans", true)
        );
        assert_eq!(
            source(&prompt, "product_id"),
            Source::Ids("billing_products_list", "products", true)
        );
        assert_eq!(source(&prompt, "price_id"), Source::Prices);
        assert_eq!(source(&prompt, "unknown_id"), Source::None);
    }

    #[test]
    fn c3_last_twelve_months_in_sao_paulo_filtered_by_prefix() {
        // 2026-03-01T01:00Z is still February in São Paulo.
        let now: jiff::Timestamp = "2026-03-01T01:00:00Z".parse().unwrap();
        let all = months("", now);
        assert_eq!(all.len(), 12);
        assert_eq!(all[0], "2026-02");
        assert_eq!(all[11], "2025-03");
        assert_eq!(months("2025-1", now), vec!["2025-12", "2025-11", "2025-10"]);
        assert!(months("1999", now).is_empty());
    }
}
