//! `/v1/organization`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/organization`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-organization",
        title: "Ver organização",
        words: "empresa organização dados cadastro conta quem sou organization company profile",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-organization",
        title: "Alterar dados da organização",
        words: "editar atualizar organização empresa cadastro perfil razão social update organization profile",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
