//! `/v1/subscription_changes`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/subscription_changes`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-subscription-changes-config",
        title: "Ver política de mudança de itens da assinatura",
        words: "configuração política adicionar remover itens quantidade proração portal autoatendimento subscription changes config",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "Kobana creates the default settings on the first read. Still a read: the row it writes holds the defaults already in force, changes no policy and moves no money, and every later read answers the same.",
    },
    Row {
        operation: "put-subscription-changes-config",
        title: "Alterar política de mudança de itens da assinatura",
        words: "configurar adicionar remover itens quantidade proração reembolso crédito portal update subscription changes config",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
