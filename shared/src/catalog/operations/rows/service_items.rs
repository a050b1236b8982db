//! `/v1/service_items`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/service_items`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-service-items",
        title: "Listar itens de serviço (LC 116)",
        words: "itens de serviço lc 116 código de serviço municipal cnae nbs iss list service items",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-service-items",
        title: "Criar item de serviço (LC 116)",
        words: "novo item de serviço código lc 116 alíquota iss retenções create service item",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-service-items-id",
        title: "Ver item de serviço (LC 116)",
        words: "detalhes item de serviço código lc 116 alíquota get service item",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-service-items-id",
        title: "Alterar item de serviço (LC 116)",
        words: "editar item de serviço alíquota iss retenções update service item",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-service-items-id",
        title: "Excluir item de serviço (LC 116)",
        words: "excluir apagar item de serviço delete service item",
        class: Class::Destructive {
            asks: "Excluir definitivamente o item de serviço {record}? A exclusão não pode ser desfeita.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
