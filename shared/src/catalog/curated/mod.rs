//! The curated tools: one file per toolset (a large toolset continues in files named after
//! what they add: `invoice_due_date`, `invoice_payments`, `customer_statement`), each tool a
//! hand-written declaration with typed arguments, compact rows and, for a destructive tool,
//! its own question. They cover the jobs people do every week; `catalog::operations` reaches
//! every other operation. `pages` shapes the lists that have no compact row shape.

pub(crate) mod audit;
pub(crate) mod billing_accounts;
pub(crate) mod customer_statement;
pub(crate) mod customers;
pub(crate) mod invoice_codes;
pub(crate) mod invoice_due_date;
pub(crate) mod invoice_payments;
pub(crate) mod invoices;
pub(crate) mod nfes;
pub(crate) mod organization;
mod pages;
pub(crate) mod payments;
pub(crate) mod plans;
pub(crate) mod products;
pub mod reports;
pub(crate) mod schema_tools;
pub(crate) mod subscriptions;

use super::ToolSpec;

/// Every curated tool, in catalog order (toolset by toolset).
pub(super) fn tools() -> Vec<ToolSpec> {
    [
        organization::tools(),
        schema_tools::tools(),
        customers::tools(),
        customer_statement::tools(),
        billing_accounts::tools(),
        plans::tools(),
        products::tools(),
        subscriptions::tools(),
        invoices::tools(),
        invoice_due_date::tools(),
        invoice_payments::tools(),
        payments::tools(),
        nfes::tools(),
        reports::tools(),
        audit::tools(),
    ]
    .into_iter()
    .flatten()
    .collect()
}
