//! `/v1/plan_groups`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/plan_groups`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-plan-groups",
        title: "Listar grupos de planos",
        words: "grupos de planos categorias família de planos list plan groups",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-plan-groups",
        title: "Criar grupo de planos",
        words: "novo grupo de planos categoria create plan group",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-plan-groups-id",
        title: "Ver grupo de planos",
        words: "detalhes grupo de planos get plan group",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-plan-groups-id",
        title: "Alterar grupo de planos",
        words: "editar renomear grupo de planos update plan group",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-plan-groups-id",
        title: "Excluir grupo de planos",
        words: "excluir apagar remover grupo de planos delete plan group",
        class: Class::Destructive {
            asks: "Excluir o grupo de planos {record}? A exclusão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-plan-groups-reorder",
        title: "Reordenar grupos de planos",
        words: "reordenar ordem de exibição grupos de planos reorder plan groups",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-plan-groups-id-archive",
        title: "Arquivar grupo de planos",
        words: "arquivar esconder grupo de planos archive plan group",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
];
