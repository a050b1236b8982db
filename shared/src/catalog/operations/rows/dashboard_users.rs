//! `/v1/dashboard_users`.

use super::TEAM_ADMIN;
use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/dashboard_users`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-dashboard-users",
        title: "Listar membros da equipe",
        words: "equipe usuários do painel colaboradores quem tem acesso team members",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "Not excluded: reading who has which access grants none; only the writes administer the team.",
    },
    Row {
        operation: "post-dashboard-users",
        title: "Convidar membro da equipe",
        words: "convidar colaborador usuário do painel dar acesso papel invite team member",
        class: Class::Write,
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
    Row {
        operation: "get-dashboard-users-id",
        title: "Ver membro da equipe",
        words: "detalhes membro da equipe papéis permissões último acesso team member",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "Not excluded: reading who has which access grants none; only the writes administer the team.",
    },
    Row {
        operation: "patch-dashboard-users-id",
        title: "Alterar membro da equipe",
        words: "alterar permissões papéis suspender membro da equipe update team member",
        class: Class::Write,
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
    Row {
        operation: "delete-dashboard-users-id",
        title: "Remover membro da equipe",
        words: "remover tirar acesso membro da equipe delete team member",
        class: Class::Destructive {
            asks: "Remover o membro da equipe {record}? Ele perde o acesso ao painel de faturamento; para voltar, precisa ser convidado de novo.",
        },
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
];
