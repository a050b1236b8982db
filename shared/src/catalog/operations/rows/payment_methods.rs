//! `/v1/payment_methods`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/payment_methods`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-payment-methods",
        title: "Listar meios de pagamento salvos",
        words: "meios de pagamento cartões salvos conta bancária pix boleto do cliente list payment methods",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payment-methods",
        title: "Cadastrar meio de pagamento",
        words: "cadastrar salvar cartão tokenizado conta bancária débito meio de pagamento create payment method",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-payment-methods-id",
        title: "Ver meio de pagamento",
        words: "detalhes cartão salvo bandeira final validade get payment method",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-payment-methods-id",
        title: "Atualizar validade do cartão",
        words: "atualizar validade vencimento do cartão mês ano expiração update card expiry",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-payment-methods-id",
        title: "Remover meio de pagamento",
        words: "remover excluir cartão salvo meio de pagamento delete payment method",
        class: Class::Destructive {
            asks: "Remover o meio de pagamento {record}? Ele deixa de poder ser usado em cobranças, inclusive nas automáticas; para voltar a usá-lo, é preciso cadastrá-lo de novo.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-payment-methods-id-set-default",
        title: "Tornar meio de pagamento padrão",
        words: "cartão padrão principal meio de pagamento preferido cobrança automática set default",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
