//! `/v1/coupons`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/coupons`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-coupons",
        title: "Listar cupons de desconto",
        words: "cupons códigos promocionais descontos promoção ativos list coupons discount codes",
        class: Class::Read,
        units: &[
            ("query.min_purchase_min", Unit::Cents),
            ("query.min_purchase_max", Unit::Cents),
            ("query.max_discount_min", Unit::Cents),
            ("query.max_discount_max", Unit::Cents),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-coupons",
        title: "Criar cupom de desconto",
        words: "novo cupom código promocional desconto percentual valor fixo promoção create coupon discount code",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-coupons-id",
        title: "Ver cupom de desconto",
        words: "detalhes cupom código desconto validade limite de uso get coupon",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-coupons-id",
        title: "Alterar cupom de desconto",
        words: "editar cupom validade limite de resgates planos produtos update coupon",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-coupons-id",
        title: "Excluir cupom de desconto",
        words: "excluir apagar cupom nunca usado delete coupon",
        class: Class::Destructive {
            asks: "Excluir definitivamente o cupom {record}? Só é possível enquanto ele nunca foi resgatado, e a exclusão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-coupons-id-deactivate",
        title: "Desativar cupom de desconto",
        words: "desativar encerrar cupom parar promoção deactivate coupon",
        class: Class::Destructive {
            asks: "Desativar o cupom {record}? Ele deixa de aceitar novos resgates, e não há operação para reativá-lo.",
        },
        units: &[],
        excluded: None,
        why: "A POST with no documented way back: a deactivated coupon cannot be reactivated.",
    },
    Row {
        operation: "get-coupons-id-redemptions",
        title: "Listar resgates do cupom",
        words: "resgates usos quem usou o cupom descontos concedidos redemptions",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
