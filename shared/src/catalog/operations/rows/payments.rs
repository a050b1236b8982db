//! `/v1/payments` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/payments`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "post-payments",
        title: "Criar pagamento",
        words: "pagamento cartão cobrar create payment card",
        class: Class::Destructive {
            asks: "Cobrar {body.amountCents}",
        },
        units: &[],
        excluded: Some("recebe número de cartão e CVV, que nunca passam por um modelo."),
        why: "",
    },
    Row {
        operation: "get-payments",
        title: "Listar pagamentos",
        words: "pagamentos lista recebimentos payments list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-payments-id",
        title: "Ver pagamento",
        words: "pagamento dados payment get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payments-id-refund",
        title: "Estornar pagamento",
        words: "estornar devolver reembolso pagamento refund payment",
        class: Class::Destructive {
            asks: "Estornar {record}[, valor {body.amount_cents}]",
        },
        units: &[("body.amount_cents", Unit::Cents)],
        excluded: None,
        why: "",
    },
];
