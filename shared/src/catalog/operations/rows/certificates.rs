//! `/v1/certificates`.

use crate::catalog::operations::row::{Class, Row};

/// The rows of `/v1/certificates`.
pub const ROWS: &[Row] = &[
    Row {
        operation: "get-certificates",
        title: "Listar certificados digitais",
        words: "certificados digitais a1 validade vencimento do certificado e-cnpj list certificates",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "post-certificates",
        title: "Enviar certificado digital",
        words: "enviar subir instalar certificado digital a1 pfx senha upload certificate",
        class: Class::Write,
        units: &[],
        excluded: Some(
            "O envio de certificado digital leva o arquivo do certificado e a senha dele; esse segredo nunca passa pelo assistente. Envie o certificado pelo painel do Kobana.",
        ),
        why: "",
    },
    Row {
        operation: "get-certificates-id",
        title: "Ver certificado digital",
        words: "detalhes certificado digital validade emissor titular get certificate",
        class: Class::Read,
        units: &[],
        excluded: None,
        why: "",
    },
    Row {
        operation: "delete-certificates-id",
        title: "Remover certificado digital",
        words: "remover excluir certificado digital delete certificate",
        class: Class::Destructive {
            asks: "Remover o certificado digital {record}? O que depende dele (emissão de NF-e, consultas à SEFAZ) passa a falhar até que outro certificado seja enviado, e não há operação para restaurá-lo.",
        },
        units: &[],
        excluded: None,
        why: "",
    },
];
