//! `/v1/subscriptions` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/subscriptions`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-subscriptions",
        title: "Listar assinaturas",
        words: "assinaturas lista recorrência subscriptions list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-subscriptions",
        title: "Criar assinatura",
        words: "nova assinatura assinar plano create subscription",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-subscriptions-id",
        title: "Ver assinatura",
        words: "assinatura dados subscription get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-subscriptions-id-pause",
        title: "Pausar assinatura",
        words: "pausar suspender cobrança assinatura pause subscription",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-subscriptions-id-resume",
        title: "Retomar assinatura",
        words: "retomar reativar assinatura resume subscription",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-subscriptions-id-cancel",
        title: "Cancelar assinatura",
        words: "cancelar encerrar assinatura cancel subscription",
        class: Class::Destructive {
            asks: "Cancelar {record}[ (no fim do período: {body.cancel_at_period_end})]",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
