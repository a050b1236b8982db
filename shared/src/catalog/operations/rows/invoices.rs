//! `/v1/invoices` (provisional rows for the 39 operations of the contract; the reviewed rows replace them).

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/invoices`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-invoices",
        title: "Listar faturas",
        words: "faturas lista cobranças invoices list",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-invoices",
        title: "Criar fatura",
        words: "nova fatura cobrança avulsa create invoice",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-invoices-pending-payment",
        title: "Faturas aguardando pagamento",
        words: "faturas pendentes em aberto pagamento pending payment",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-invoices-pending-nfe",
        title: "Faturas sem NF-e",
        words: "faturas pendentes nota fiscal nfe pending",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-invoices-id",
        title: "Ver fatura",
        words: "fatura dados invoice get",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-invoices-id",
        title: "Excluir rascunho de fatura",
        words: "excluir apagar fatura rascunho delete invoice",
        class: Class::Destructive {
            asks: "Excluir {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-invoices-id-finalize",
        title: "Finalizar fatura",
        words: "finalizar emitir fatura rascunho finalize invoice",
        class: Class::Destructive {
            asks: "Finalizar {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-invoices-id-void",
        title: "Anular fatura",
        words: "anular cancelar fatura void invoice",
        class: Class::Destructive {
            asks: "Anular {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-invoices-id-send-reminder",
        title: "Lembrar cliente da fatura",
        words: "lembrete cobrar enviar email fatura reminder",
        class: Class::Write,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-invoices-id-issue-nfe",
        title: "Emitir NF-e da fatura",
        words: "emitir nota fiscal nfe fatura issue",
        class: Class::Destructive {
            asks: "Emitir a NF-e de {record}",
        },
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "get-invoices-id-pdf",
        title: "PDF da fatura",
        words: "pdf boleto documento fatura invoice pdf",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
];
