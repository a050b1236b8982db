//! `/v1/withholdings`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/withholdings`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-withholdings",
        title: "Listar retenções de impostos",
        words: "retenções na fonte impostos retidos irrf csrf iss inss pagamento a menor cliente pagou menos list withholdings",
        class: Class::Read,
        units: &[
            ("query.amount_min", Unit::Reais),
            ("query.amount_max", Unit::Reais),
            ("query.base_min", Unit::Reais),
            ("query.base_max", Unit::Reais),
            ("query.compensated_min", Unit::Reais),
            ("query.compensated_max", Unit::Reais),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-withholdings-convert-to-credits",
        title: "Converter retenções pendentes em crédito",
        words: "converter todas as retenções em crédito compensar em lote convert withholdings credits",
        class: Class::Destructive {
            asks: "Converter em crédito todas as retenções pendentes[ do tributo {body.tax_type}][, competência {body.competence_month}/{body.competence_year}][!body.competence_month:[, ano {body.competence_year}]]? Cada retenção vira crédito na conta de cobrança de quem reteve e pode abater as faturas dela. A conversão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "A POST that grants money as credits, in bulk.",
    },
    Row {
        operation: "get-withholdings-id",
        title: "Ver retenção de imposto",
        words: "detalhes retenção imposto retido base alíquota compensado get withholding",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-withholdings-id-convert-to-credit",
        title: "Converter retenção em crédito",
        words: "converter retenção em crédito compensar imposto retido convert withholding credit",
        class: Class::Destructive {
            asks: "Converter em crédito a retenção {record}[ no valor de {body.amount_cents}][!body.amount_cents: pelo saldo pendente]? O valor vira crédito na conta de cobrança de quem reteve e pode abater as faturas dela. A conversão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "A POST that grants money as a credit.",
    },
];
