//! `/v1/usage`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/usage`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-usage",
        title: "Listar lançamentos de consumo",
        words: "consumo uso medido registros lançados por item da assinatura metered usage records",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-usage",
        title: "Registrar consumo",
        words: "registrar lançar informar reportar consumo uso medido corrigir consumo report usage metered",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-usage-summary",
        title: "Resumo do consumo do período",
        words: "consumo uso do mês até agora total consumido custo estimado quanto vai pagar usage summary metered",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-usage-snapshots-daily",
        title: "Listar consolidados diários de consumo",
        words: "consumo diário por dia snapshots daily usage",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-usage-snapshots-daily",
        title: "Gravar consolidados diários de consumo",
        words: "gravar consumo diário consolidado por dia snapshots daily usage",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-usage-snapshots-monthly",
        title: "Listar consolidados mensais de consumo",
        words: "consumo mensal por mês excedente franquia snapshots monthly usage",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-usage-snapshots-monthly",
        title: "Gravar consolidados mensais de consumo",
        words: "gravar consumo mensal consolidado excedente snapshots monthly usage",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
