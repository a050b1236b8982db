//! `/v1/billing_accounts` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/billing_accounts`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-billing-accounts",
        title: "Listar contas de cobrança",
        words: "contas cobrança lista billing accounts list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id",
        title: "Ver conta de cobrança",
        words: "conta cobrança saldo billing account get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
