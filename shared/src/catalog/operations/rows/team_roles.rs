//! `/v1/team_roles`.

use super::TEAM_ADMIN;
use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/team_roles`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-team-roles",
        title: "Listar papéis da equipe",
        words: "papéis perfis de acesso permissões da equipe roles",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "Not excluded: reading who has which access grants none; only the writes administer the team.",
    },
    Row {
        operation: "post-team-roles",
        title: "Criar papel da equipe",
        words: "novo papel perfil de acesso permissões create role",
        class: Class::Write,
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
    Row {
        operation: "get-team-roles-id",
        title: "Ver papel da equipe",
        words: "detalhes papel permissões usuários vinculados get role",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "Not excluded: reading who has which access grants none; only the writes administer the team.",
    },
    Row {
        operation: "patch-team-roles-id",
        title: "Alterar papel da equipe",
        words: "alterar permissões do papel perfil de acesso update role",
        class: Class::Write,
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
    Row {
        operation: "delete-team-roles-id",
        title: "Excluir papel da equipe",
        words: "excluir papel perfil de acesso delete role",
        class: Class::Destructive {
            asks: "Excluir o papel {record}? Quem o tem perde as permissões que ele concede, e o papel não pode ser restaurado.",
        },
        units: &[],
        excluded: Some(TEAM_ADMIN),
        why: "",
    },
];
