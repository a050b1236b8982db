//! `/v1/products` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/products`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-products",
        title: "Listar produtos",
        words: "produtos lista products list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-products-id",
        title: "Ver produto",
        words: "produto dados product get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
