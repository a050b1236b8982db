//! `/v1/nfes` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/nfes`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-nfes",
        title: "Listar NF-e",
        words: "notas fiscais nfe lista list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-nfes-id",
        title: "Ver NF-e",
        words: "nota fiscal nfe dados get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-nfes-id-issue",
        title: "Emitir NF-e",
        words: "emitir nota fiscal nfe issue",
        class: Class::Destructive {
            asks: "Emitir {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-nfes-id-cancel",
        title: "Cancelar NF-e",
        words: "cancelar nota fiscal nfe cancel",
        class: Class::Destructive {
            asks: "Cancelar {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-nfes-id-pdf",
        title: "PDF da NF-e",
        words: "pdf danfe nota fiscal nfe",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-nfes-id-xml",
        title: "XML da NF-e",
        words: "xml nota fiscal nfe",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
