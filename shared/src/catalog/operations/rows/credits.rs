//! `/v1/credits`.

use crate::catalog::operations::row::{Class, Row, Unit};

/// The rows of `/v1/credits`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-credits",
        title: "Listar créditos",
        words: "créditos saldo a favor do cliente bonificações ajustes disponíveis expirados list credits",
        class: Class::Read,
        units: &[
            ("query.amount_min", Unit::Reais),
            ("query.amount_max", Unit::Reais),
            ("query.amount_remaining_min", Unit::Reais),
            ("query.amount_remaining_max", Unit::Reais),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-credits",
        title: "Dar crédito ao cliente",
        words: "dar conceder creditar lançar crédito bonificação cortesia abatimento ajuste goodwill saldo a favor grant credit",
        class: Class::Destructive {
            asks: "Conceder {body.amount_cents} de crédito à conta de cobrança {body.billing_account_id}[, válido até {body.expires_at}]? O valor entra no saldo de crédito da conta e pode abater as faturas dela. Enquanto não for usado, o crédito ainda pode ser ajustado ou removido; depois de usado, não.",
        },
        units: &[],
        excluded: None,
        why: "A POST that grants money to the account's balance.",
    },
    Row {
        operation: "get-credits-id",
        title: "Ver crédito",
        words: "detalhes do crédito saldo restante validade aplicações get credit",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-credits-id",
        title: "Alterar crédito",
        words: "ajustar corrigir valor do crédito validade update credit",
        class: Class::Destructive {
            asks: "Alterar o crédito {record}[ para {body.amount_cents}][, com validade até {body.expires_at}]?[?body.amount_cents: O saldo de crédito da conta muda na mesma medida; o Kobana só aceita um novo valor enquanto o crédito não foi usado.][!body.amount_cents: O valor do crédito não muda.]",
        },
        units: &[],
        excluded: None,
        why: "A PATCH that can change the money granted.",
    },
    Row {
        operation: "delete-credits-id",
        title: "Remover crédito",
        words: "remover cancelar excluir crédito não usado estornar crédito delete credit",
        class: Class::Destructive {
            asks: "Remover o crédito {record}? O valor sai do saldo de crédito da conta de cobrança. Só é possível enquanto o crédito não foi usado, e a remoção não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
