//! `/v1/customers`.

use crate::catalog::operations::row::{Class, Row};

/// The sentence of both ways to invite a portal user.
const INVITE: &str = "Convidar um usuário para o portal do cliente {record}? O convite vai por e-mail agora, para o endereço informado abaixo, e dá acesso às faturas, aos boletos e aos dados de cobrança deste cliente. O e-mail enviado não volta; o acesso pode ser retirado depois, removendo o usuário.";

/// Why inviting asks first.
const INVITE_WHY: &str = "First reading: write (it sends an e-mail). It grants an outside address access to this customer's invoices, slips and billing data, and the invitation leaves at once: it asks first.";

/// The rows of `/v1/customers`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-customers",
        title: "Listar clientes",
        words: "clientes buscar procurar cliente por nome cpf cnpj documento pessoa física jurídica tomador pagador list customers search",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers",
        title: "Cadastrar cliente",
        words: "novo cliente cadastrar criar cliente cpf cnpj razão social pagador create customer",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-customers-id",
        title: "Ver cliente",
        words: "dados do cliente cadastro endereço e-mail telefone documento get customer",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-customers-id",
        title: "Alterar cadastro do cliente",
        words: "editar atualizar cliente corrigir endereço e-mail telefone razão social documento update customer",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-customers-id",
        title: "Remover cliente",
        words: "excluir apagar remover cliente delete customer",
        class: Class::Destructive {
            asks: "Remover o cliente {record}? Ele sai das listas (exclusão lógica; o histórico é mantido) e não há operação para restaurá-lo.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-customers-id-statement",
        title: "Extrato do cliente",
        words: "extrato conta corrente razão lançamentos movimentação histórico financeiro faturas pagamentos créditos débitos do cliente statement ledger",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers-id-statement-sync",
        title: "Reconstruir extrato do cliente",
        words: "reconstruir recalcular refazer sincronizar extrato lançamentos do cliente rebuild statement sync",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers-id-recalculate-mrr",
        title: "Recalcular MRR do cliente",
        words: "recalcular mrr receita recorrente mensal do cliente recalculate",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-customers-id-users",
        title: "Listar usuários do portal do cliente",
        words: "usuários acessos logins do portal do cliente quem acessa portal users",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers-id-users",
        title: "Convidar usuário para o portal do cliente",
        words: "convidar dar acesso liberar acesso portal do cliente usuário e-mail invite portal user",
        class: Class::Destructive { asks: INVITE },
        units: &[],
        excluded: None,
        why: INVITE_WHY,
    },
    Row {
        operation: "post-customers-id-users-invite",
        title: "Convidar usuário para o portal do cliente (rota de convite)",
        words: "convidar dar acesso portal do cliente usuário e-mail convite invite portal user",
        class: Class::Destructive { asks: INVITE },
        units: &[],
        excluded: None,
        why: INVITE_WHY,
    },
    Row {
        operation: "get-customers-id-users-user-id",
        title: "Ver usuário do portal do cliente",
        words: "usuário do portal acesso situação último login portal user",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-customers-id-users-user-id",
        title: "Alterar usuário do portal do cliente",
        words: "editar usuário do portal trocar e-mail suspender reativar acesso portal user",
        class: Class::Destructive {
            asks: "Alterar o usuário {record} do portal do cliente[?body.status=suspended:, suspendendo o acesso dele][?body.status=active:, liberando o acesso dele]? Se o e-mail mudar, o acesso às faturas e aos boletos deste cliente passa ao novo endereço.",
        },
        units: &[],
        excluded: None,
        why: "First reading: write. A new e-mail or status moves or restores access to the customer's billing data: it asks first.",
    },
    Row {
        operation: "delete-customers-id-users-user-id",
        title: "Remover usuário do portal do cliente",
        words: "remover tirar acesso usuário do portal revogar convite delete portal user",
        class: Class::Destructive {
            asks: "Remover o usuário {record} do portal do cliente? Um convite pendente é apagado e um usuário ativo é suspenso: ele perde o acesso às faturas e aos boletos deste cliente. Para devolver o acesso, é preciso convidar de novo ou reativar o usuário.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-customers-id-users-user-id-email-preview",
        title: "Prévia do e-mail de convite do portal",
        words: "prévia ver e-mail de convite verificação antes de enviar portal email preview",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers-id-users-user-id-resend",
        title: "Reenviar convite do portal",
        words: "reenviar convite e-mail de verificação portal do cliente resend invitation",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
