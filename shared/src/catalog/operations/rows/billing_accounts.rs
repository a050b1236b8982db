//! `/v1/billing_accounts`.

use crate::catalog::operations::row::{Class, Row, Unit};
use crate::catalog::operations::units::UNTYPED_INVOICE;

/// The sentence of both ways to close an account (DELETE and POST close).
const CLOSE: &str = "Encerrar a conta de cobrança {record}? A conta deixa de faturar e de cobrar. Não existe reabertura: para voltar a cobrar este cliente, é preciso criar outra conta de cobrança.";

/// The rows of `/v1/billing_accounts`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-billing-accounts",
        title: "Listar contas de cobrança",
        words: "contas de cobrança clientes saldo devedor credor mrr receita recorrente suspensas encerradas cobrança automática list billing accounts balance",
        class: Class::Read,
        units: &[
            ("query.balance_min", Unit::Cents),
            ("query.balance_max", Unit::Cents),
            ("query.mrr_min", Unit::Cents),
            ("query.mrr_max", Unit::Cents),
            ("query.allowed_negative_balance_min", Unit::Cents),
            ("query.allowed_negative_balance_max", Unit::Cents),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-billing-accounts",
        title: "Criar conta de cobrança",
        words: "nova conta de cobrança abrir conta faturamento prazo de vencimento create billing account",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id",
        title: "Ver conta de cobrança",
        words: "detalhes conta de cobrança saldo e-mail de cobrança prazo cobrança automática get billing account",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-billing-accounts-id",
        title: "Alterar conta de cobrança",
        words: "editar atualizar conta de cobrança do cliente trocar e-mail de cobrança financeiro prazo de pagamento dias cobrança automática update billing account email",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-billing-accounts-id",
        title: "Encerrar conta de cobrança (exclusão)",
        words: "excluir apagar fechar encerrar conta de cobrança delete billing account",
        class: Class::Destructive { asks: CLOSE },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-billing-accounts-id-close",
        title: "Encerrar conta de cobrança",
        words: "fechar encerrar conta de cobrança cliente saiu close billing account",
        class: Class::Destructive { asks: CLOSE },
        units: &[],
        excluded: None,
        why: "A POST that closes the account for good: there is no reopening.",
    },
    Row {
        operation: "post-billing-accounts-id-suspend",
        title: "Suspender conta de cobrança",
        words: "suspender bloquear conta cliente inadimplente régua de cobrança dunning suspend account",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-billing-accounts-id-reactivate",
        title: "Reativar conta de cobrança suspensa",
        words: "reativar desbloquear liberar conta suspensa cliente regularizou reactivate account",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id-invoices",
        title: "Listar faturas da conta de cobrança",
        words: "faturas do cliente da conta histórico de cobranças invoices of account",
        class: Class::Read,
        units: UNTYPED_INVOICE,
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id-subscriptions",
        title: "Listar assinaturas da conta de cobrança",
        words: "assinaturas do cliente da conta contratos subscriptions of account",
        class: Class::Read,
        units: &[
            ("answer.data.recurring_amount_cents", Unit::Cents),
            ("answer.data.discount_percent", Unit::Percent),
        ],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id-entitlements",
        title: "Ver produtos liberados para a conta",
        words: "acessos liberados produtos contratados direitos entitlements o que o cliente tem",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-billing-accounts-id-credits",
        title: "Listar créditos da conta de cobrança",
        words: "saldo de crédito do cliente créditos disponíveis expirados account credits balance",
        class: Class::Read,
        units: &[
            ("answer.data.amount_cents", Unit::Cents),
            ("answer.data.amount_remaining_cents", Unit::Cents),
        ],
        excluded: None,
        why: "",
    },
];
