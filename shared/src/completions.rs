//! Completions (C-1…C-4): suggestions while a person types an argument.
//!
//! Ids come from the matching Kobana list, searched by what was typed, under that list's
//! permission (one upstream call); `{resource}` from the schema catalog by prefix; `month`
//! as the last twelve months in America/Sao_Paulo. Only a prompt the token may get, and only
//! one of that prompt's own arguments, is completed (BW-1): an unknown prompt, a prompt the
//! token cannot see, or an argument the prompt does not take gets an empty list without a
//! single Kobana call, however often it is asked.

use rmcp::model::{CompletionInfo, Reference};
use serde_json::Value;

use crate::access::Resource;
use crate::catalog::{ToolCtx, Visibility, registry, schemas};
use crate::format::sao_paulo;
use crate::prompts::{self, PROMPTS};
use crate::resources;

/// Most values in one answer (spec maximum).
pub const MAX_VALUES: usize = 100;

/// Where suggestions for one argument come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Ids from a Kobana list: (list tool, the resource it lists, searchable).
    Ids(&'static str, Resource, bool),
    /// Names in the schema catalog.
    SchemaNames,
    /// The last twelve `YYYY-MM`.
    Months,
    /// Nothing to suggest.
    None,
}

/// The source for `argument` of a prompt named `name`: one of the prompt's own arguments,
/// of a prompt `visibility` lets the token get.
fn prompt_source(name: &str, argument: &str, visibility: &Visibility) -> Source {
    let Some(prompt) = PROMPTS
        .iter()
        .find(|p| p.name == name && prompts::visible(visibility, p))
    else {
        return Source::None;
    };
    if !prompt.args.iter().any(|a| a.name == argument) {
        return Source::None;
    }
    match argument {
        "customer_id" => Source::Ids("billing_customers_list", Resource::Customers, true),
        "month" => Source::Months,
        _ => Source::None,
    }
}

/// The source for `argument` of `reference`.
pub fn source(reference: &Reference, argument: &str, visibility: &Visibility) -> Source {
    match reference {
        Reference::Prompt(prompt) => prompt_source(&prompt.name, argument, visibility),
        Reference::Resource(template) => {
            let Some(entry) = resources::ENTRIES.iter().find(|e| e.uri == template.uri) else {
                return Source::None;
            };
            use resources::Kind::*;
            match (entry.kind, argument) {
                (Schema, "resource") => Source::SchemaNames,
                (Customer, "id") => {
                    Source::Ids("billing_customers_list", Resource::Customers, true)
                }
                (Subscription, "id") => {
                    Source::Ids("billing_subscriptions_list", Resource::Subscriptions, true)
                }
                (Invoice | InvoicePdf, "id") => {
                    Source::Ids("billing_invoices_list", Resource::Invoices, true)
                }
                (Nfe | NfePdf | NfeXml, "id") => {
                    Source::Ids("billing_nfes_list", Resource::Nfes, false)
                }
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

/// Suggestions for `argument` = `value` of `reference`. Never an error (C-4).
pub async fn complete(
    ctx: ToolCtx,
    visibility: &Visibility,
    reference: &Reference,
    argument: &str,
    value: &str,
) -> CompletionInfo {
    match source(reference, argument, visibility) {
        Source::None => info(Vec::new(), 0),
        Source::Months => {
            let values = months(value, ctx.clock.now());
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
        Source::Ids(tool, resource, searchable) => {
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
            let envelope = match ctx.kobana.get(&[resource.slug()], &query).await {
                Ok(envelope) => envelope,
                Err(error) => {
                    // Kobana's text can quote what was typed: the log gets the status only.
                    tracing::info!(
                        tool,
                        status = error.status(),
                        "completion source failed; no suggestions"
                    );
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
    use crate::access::Permissions;

    fn everything() -> Visibility {
        Visibility::of(Permissions::from_scopes(["all"]))
    }

    #[test]
    fn n6_only_a_known_prompt_s_own_arguments_are_completed() {
        let all = everything();
        let overview = Reference::for_prompt("customer_overview");
        assert_eq!(
            source(&overview, "customer_id", &all),
            Source::Ids("billing_customers_list", Resource::Customers, true)
        );
        let summary = Reference::for_prompt("monthly_billing_summary");
        assert_eq!(source(&summary, "month", &all), Source::Months);
        // Arguments the prompt does not take, and prompts that do not exist.
        for argument in [
            "billing_account_id",
            "plan_id",
            "product_id",
            "price_id",
            "month",
        ] {
            assert_eq!(
                source(&overview, argument, &all),
                Source::None,
                "{argument}"
            );
        }
        assert_eq!(source(&summary, "customer_id", &all), Source::None);
        let unknown = Reference::for_prompt("no_such_prompt");
        for argument in ["customer_id", "month", "price_id"] {
            assert_eq!(source(&unknown, argument, &all), Source::None, "{argument}");
        }
        // A prompt the token cannot get is unknown to it (PR-5).
        let read_only = Visibility::of(Permissions::from_scopes(["read"]));
        let collect = Reference::for_prompt("collect_overdue_invoices");
        assert_eq!(source(&collect, "customer_id", &read_only), Source::None);
        assert_ne!(source(&collect, "customer_id", &all), Source::None);
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
