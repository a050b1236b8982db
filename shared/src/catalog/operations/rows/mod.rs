//! The reviewed rows, one file per resource (the first segment of the path under `/v1`), in
//! the document's order within each file.

use super::row::Row;

mod billing_accounts;
mod customers;
mod invoices;
mod nfes;
mod organization;
mod payments;
mod plans;
mod products;
mod subscriptions;

/// Every row, by resource.
pub const ROWS: &[&[Row]] = &[
    organization::ROWS,
    customers::ROWS,
    billing_accounts::ROWS,
    subscriptions::ROWS,
    invoices::ROWS,
    payments::ROWS,
    nfes::ROWS,
    plans::ROWS,
    products::ROWS,
];
