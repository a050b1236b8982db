//! `/v1/customers` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/customers`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-customers",
        title: "Listar clientes",
        words: "clientes buscar procurar lista customers list search",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-customers",
        title: "Cadastrar cliente",
        words: "novo cliente cadastrar criar create customer",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-customers-id",
        title: "Ver cliente",
        words: "cliente dados cadastro customer get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "patch-customers-id",
        title: "Alterar cliente",
        words: "editar atualizar cliente cadastro update customer",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-customers-id",
        title: "Remover cliente",
        words: "remover excluir apagar cliente delete customer",
        class: Class::Destructive {
            asks: "Remover {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
