//! Toolset `reports`: figures the server computes from Kobana's lists, so no model adds up
//! money itself. `billing_reports_month` reads a month's invoices (by due date) and
//! succeeded payments (by payment date) in at most two sequential rounds: the first page of
//! each list at once, then the pages left, at once, up to [`MAX_PAGES`] per list. A month
//! that holds more is reported as incomplete, with how much was read (`complete: false`,
//! `coverage`, a pt-BR note), never as a smaller total passed off as whole. The arithmetic is
//! [`crate::catalog::month_report`].

use futures_util::future::try_join_all;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::access::{Permission, Resource};
use crate::catalog::context::MAX_PER_PAGE;
use crate::catalog::month_report::{self, Coverage, Inputs, Month};
use crate::catalog::{Effect, Output, Paging, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset};
use crate::kobana::KobanaError;

/// Most pages of each list one report reads (with [`MAX_PER_PAGE`] records each).
pub const MAX_PAGES: u32 = 3;

/// Arguments of `billing_reports_month` (a type-level doc comment stays off the wire).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MonthArgs {
    /// YYYY-MM (default: this month in São Paulo).
    pub month: Option<String>,
}

/// Today in America/Sao_Paulo by the billing clock (`ToolCtx::clock`, FH-1): the one
/// "today" of the report (its default month and what is overdue).
fn today(ctx: &ToolCtx) -> jiff::civil::Date {
    ctx.clock.today()
}

/// One list to read: its resource and its query (without paging).
struct Query {
    resource: Resource,
    query: Vec<(String, String)>,
}

impl Query {
    /// Reads page `page` (of [`MAX_PER_PAGE`] records): `(records, total, total_pages)`.
    async fn page(&self, ctx: &ToolCtx, page: u32) -> Result<(Vec<Value>, u64, u32), ToolError> {
        let paging = Paging {
            page: Some(page),
            per_page: Some(MAX_PER_PAGE),
            ..Paging::default()
        };
        let slug = self.resource.slug();
        let mut result = ctx
            .list_records(&[slug], self.resource, &paging, self.query.clone())
            .await?;
        let records = match result.get_mut(slug).map(Value::take) {
            Some(Value::Array(records)) => records,
            _ => Vec::new(),
        };
        let number = |key: &str| result.get(key).and_then(Value::as_u64);
        let total = number("total").unwrap_or(records.len() as u64);
        let pages = number("total_pages").unwrap_or(1);
        Ok((records, total, u32::try_from(pages).unwrap_or(u32::MAX)))
    }

    /// Reads the pages after the first, up to [`MAX_PAGES`], all at once.
    async fn rest(&self, ctx: &ToolCtx, total_pages: u32) -> Result<Vec<Value>, ToolError> {
        let pages = (2..=total_pages.min(MAX_PAGES)).map(|page| self.page(ctx, page));
        Ok(try_join_all(pages)
            .await?
            .into_iter()
            .flat_map(|(records, _, _)| records)
            .collect())
    }
}

/// A month's bounds widened by a day each side: Kobana's date filters do not say in which
/// zone they read a day, so the server asks for more and keeps the São Paulo days itself.
fn window(month: Month) -> (String, String) {
    let day = jiff::ToSpan::days(1);
    let from = month.first().checked_sub(day).unwrap_or(month.first());
    let to = month.last().checked_add(day).unwrap_or(month.last());
    (from.to_string(), to.to_string())
}

/// Whether a failed payment read means the token may not read payments (Kobana's 403).
fn payments_refused(error: &ToolError) -> bool {
    matches!(error, ToolError::Kobana(e) if matches!(e.as_ref(), KobanaError::Api { status: 403, .. }))
}

async fn month(ctx: ToolCtx, args: MonthArgs) -> Result<Value, ToolError> {
    let today = today(&ctx);
    let month = match args.month.as_deref().map(str::trim) {
        Some(text) if !text.is_empty() => {
            Month::parse(text).map_err(ToolError::InvalidArguments)?
        }
        _ => Month::of(today),
    };
    let (from, to) = window(month);
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    let invoices = Query {
        resource: Resource::Invoices,
        query: vec![pair("due_date_from", &from), pair("due_date_to", &to)],
    };
    let payments = Query {
        resource: Resource::Payments,
        query: vec![
            pair("status", "succeeded"),
            pair("paid_after", &from),
            pair("paid_before", &to),
        ],
    };
    let may_read_payments = ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::Payments));
    // Round 1: the first page of each list.
    let (first_invoices, first_payments) = tokio::join!(invoices.page(&ctx, 1), async {
        if may_read_payments {
            Some(payments.page(&ctx, 1).await)
        } else {
            None
        }
    });
    let (mut invoice_records, invoice_total, invoice_pages) = first_invoices?;
    let first_payments = match first_payments {
        Some(Err(error)) if payments_refused(&error) => None,
        Some(result) => Some(result?),
        None => None,
    };
    // Round 2: the pages left, at once.
    let payment_pages = first_payments.as_ref().map_or(1, |(_, _, pages)| *pages);
    let (more_invoices, more_payments) = tokio::join!(
        invoices.rest(&ctx, invoice_pages),
        payments.rest(&ctx, payment_pages)
    );
    invoice_records.extend(more_invoices?);
    let payments_read = match first_payments {
        Some((mut records, total, _)) => {
            records.extend(more_payments?);
            Some((records, total))
        }
        None => None,
    };
    let coverage = |read: usize, total: u64| Coverage {
        read: read as u64,
        total,
    };
    let inputs = Inputs {
        month,
        today,
        invoices: &invoice_records,
        invoices_read: coverage(invoice_records.len(), invoice_total),
        payments: payments_read
            .as_ref()
            .map(|(records, _)| records.as_slice()),
        payments_read: payments_read
            .as_ref()
            .map_or_else(Coverage::default, |(r, total)| coverage(r.len(), *total)),
    };
    Ok(month_report::compute(&inputs))
}

/// The output schema: the four totals (each `{cents, brl, count}`) and what the view draws.
fn month_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "month": {"type": "string"},
            "billed": {"type": "object"},
            "received": {"type": "object"},
            "open": {"type": "object"},
            "overdue": {"type": "object"},
            "by_day": {"type": "array"},
            "by_status": {"type": "object"},
            "complete": {"type": "boolean"}
        },
        "required": ["month", "billed", "open", "overdue", "complete"]
    })
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        ToolMeta {
            name: "billing_reports_month",
            title: "Resumo do mês",
            description: "Month totals computed by the server: billed, received, open, overdue ({cents, brl, count}), by day and status. Use it instead of adding invoices up.",
            toolset: Toolset::Reports,
            permission: Some(Permission::read(Resource::Invoices)),
            effect: Effect::Read,
            output: Output::Summary {
                schema: month_schema,
                text: month_report::summary,
            },
        },
        month,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui1_the_window_reaches_a_day_past_each_end() {
        let month = Month::parse("2026-02").unwrap();
        assert_eq!(
            window(month),
            ("2026-01-31".to_owned(), "2026-03-01".to_owned())
        );
    }
}
