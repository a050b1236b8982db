//! `/v1/tax_periods`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/tax_periods`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-tax-periods",
        title: "Apurações de impostos do mês (DAS, ISS, PIS/COFINS)",
        words: "apuração de impostos do mês períodos tributários das simples nacional iss pis cofins a recolher guia contador tax periods",
        class: Class::Read,
        units: &[
            ("query.gross_revenue_min", Unit::Reais),
            ("query.gross_revenue_max", Unit::Reais),
            ("query.das_estimated_min", Unit::Reais),
            ("query.das_estimated_max", Unit::Reais),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-tax-periods",
        title: "Calcular nova apuração de impostos",
        words: "calcular apurar impostos competência a partir das notas emitidas create tax period",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-tax-periods-id",
        title: "Ver apuração de impostos",
        words: "detalhes apuração impostos devidos das memória de cálculo get tax period",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-tax-periods-id",
        title: "Recalcular, fechar ou reabrir apuração",
        words: "recalcular fechar encerrar reabrir apuração período tributário update tax period",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-tax-periods-id",
        title: "Excluir apuração de impostos",
        words: "excluir apagar apuração período tributário delete tax period",
        class: Class::Destructive {
            asks: "Excluir definitivamente a apuração {record}? Os valores apurados e a memória de cálculo são apagados e não podem ser recuperados; um novo cálculo exige criar a apuração de novo.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
