//! `/v1/subscription_item_changes`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/subscription_item_changes`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-subscription-item-changes",
        title: "Listar mudanças de itens de assinaturas",
        words: "mudanças de itens adições remoções quantidade troca de preço proração list subscription item changes",
        class: Class::Read,
        units: &[
            ("query.proration_charge_min", Unit::Reais),
            ("query.proration_charge_max", Unit::Reais),
            ("query.proration_credit_min", Unit::Reais),
            ("query.proration_credit_max", Unit::Reais),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-subscription-item-changes-id",
        title: "Ver mudança de itens da assinatura",
        words: "detalhes mudança de itens proração fatura crédito gerados get subscription item change",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
