//! `/v1/plans` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/plans`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-plans",
        title: "Listar planos",
        words: "planos lista plans list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-plans-id",
        title: "Ver plano",
        words: "plano dados plan get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-plans-id-items",
        title: "Itens do plano",
        words: "itens plano preços plan items",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
