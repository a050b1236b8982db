//! `/v1/tax_rules`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/tax_rules`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-tax-rules",
        title: "Listar regras tributárias",
        words: "regras tributárias alíquotas impostos retenções iss pis cofins irrf por cliente serviço município list tax rules",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-tax-rules",
        title: "Criar regra tributária",
        words: "nova regra tributária alíquotas impostos retenção create tax rule",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-tax-rules-id",
        title: "Ver regra tributária",
        words: "detalhes regra tributária alíquotas get tax rule",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-tax-rules-id",
        title: "Alterar regra tributária",
        words: "editar regra tributária alíquotas vigência update tax rule",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-tax-rules-id",
        title: "Excluir regra tributária",
        words: "excluir apagar regra tributária delete tax rule",
        class: Class::Destructive {
            asks: "Excluir a regra tributária {record}? As próximas faturas e notas passam a seguir as demais regras, e a exclusão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
