//! Resources (R-1…R-6): documents a person attaches to the conversation, each read through
//! the tool that serves it, under the same permission.

use std::sync::LazyLock;

use const_format::formatcp;
use rmcp::model::{Resource, ResourceContents, ResourceTemplate};
use serde_json::{Value, json};

use crate::access::slugs::{CUSTOMERS, INVOICES, NFES, ORGANIZATION, SUBSCRIPTIONS};
use crate::catalog::{ToolCtx, ToolError, Toolset, Visibility, registry};
use crate::deferred::DeferredSlot;
use crate::kobana::KobanaError;

pub use crate::config::MAX_DOCUMENT_BYTES;

/// [`MAX_DOCUMENT_BYTES`] in MB, as the resources' descriptions quote it.
const DOCUMENT_MB: u64 = MAX_DOCUMENT_BYTES / (1024 * 1024);

/// The schema catalog's segment of its URIs (`kobana://billing/schemas/…`).
const SCHEMAS: &str = Toolset::SCHEMAS;

/// The audit trail's segment (`kobana://billing/audit`).
const AUDIT: &str = Toolset::AUDIT;

/// The one media type a PDF read serves (BW-7).
pub const PDF_MEDIA_TYPE: &str = "application/pdf";

/// Longest media type quoted back when Kobana sends the wrong one.
const MAX_SHOWN_MEDIA_TYPE: usize = 60;

/// What a URI names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `kobana://billing/organization`
    Organization,
    /// `kobana://billing/schemas`
    Schemas,
    /// `kobana://billing/audit`
    Audit,
    /// `kobana://billing/schemas/{resource}`
    Schema,
    /// `kobana://billing/customers/{id}`
    Customer,
    /// `kobana://billing/subscriptions/{id}`
    Subscription,
    /// `kobana://billing/invoices/{id}`
    Invoice,
    /// `kobana://billing/invoices/{id}/pdf`
    InvoicePdf,
    /// `kobana://billing/nfes/{id}`
    Nfe,
    /// `kobana://billing/nfes/{id}/pdf`
    NfePdf,
    /// `kobana://billing/nfes/{id}/xml`
    NfeXml,
}

/// One entry of the resource table.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    /// What it is.
    pub kind: Kind,
    /// URI or URI template.
    pub uri: &'static str,
    /// Short name.
    pub name: &'static str,
    /// pt-BR title.
    pub title: &'static str,
    /// pt-BR description.
    pub description: &'static str,
    /// MIME type of the contents.
    pub mime_type: &'static str,
    /// The tool that reads it.
    pub tool: &'static str,
}

/// The eleven resources, fixed ones first.
pub const ENTRIES: [Entry; 11] = [
    Entry {
        kind: Kind::Organization,
        uri: "kobana://billing/organization",
        name: ORGANIZATION,
        title: "Organização",
        description: "A organização do token (JSON).",
        mime_type: "application/json",
        tool: "billing_organization_get",
    },
    Entry {
        kind: Kind::Schemas,
        uri: "kobana://billing/schemas",
        name: SCHEMAS,
        title: "Catálogo de recursos",
        description: "O catálogo de recursos da API de faturamento (JSON).",
        mime_type: "application/json",
        tool: "billing_schemas_list",
    },
    Entry {
        kind: Kind::Audit,
        uri: "kobana://billing/audit",
        name: AUDIT,
        title: "Trilha de auditoria",
        description: formatcp!(
            "As {} ações de escrita mais recentes desta organização: quem, quando, o quê, como foi confirmado e o resultado (JSON).",
            crate::catalog::curated::audit::RESOURCE_ENTRIES
        ),
        mime_type: "application/json",
        tool: crate::catalog::curated::audit::NAME,
    },
    Entry {
        kind: Kind::Schema,
        uri: "kobana://billing/schemas/{resource}",
        name: "schema",
        title: "Esquema de um recurso",
        description: "Os campos de um recurso: tipo, enum, significado e quais ordenam (JSON).",
        mime_type: "application/json",
        tool: "billing_schemas_get",
    },
    Entry {
        kind: Kind::Customer,
        uri: "kobana://billing/customers/{id}",
        name: "customer",
        title: "Cliente",
        description: "Um cliente, com suas contas de cobrança (JSON).",
        mime_type: "application/json",
        tool: "billing_customers_get",
    },
    Entry {
        kind: Kind::Subscription,
        uri: "kobana://billing/subscriptions/{id}",
        name: "subscription",
        title: "Assinatura",
        description: "Uma assinatura (JSON).",
        mime_type: "application/json",
        tool: "billing_subscriptions_get",
    },
    Entry {
        kind: Kind::Invoice,
        uri: "kobana://billing/invoices/{id}",
        name: "invoice",
        title: "Fatura",
        description: "Uma fatura, com itens e valores em reais (JSON).",
        mime_type: "application/json",
        tool: "billing_invoices_get",
    },
    Entry {
        kind: Kind::InvoicePdf,
        uri: "kobana://billing/invoices/{id}/pdf",
        name: "invoice_pdf",
        title: "PDF da fatura",
        description: formatcp!("O PDF da fatura, em base64 (até {DOCUMENT_MB} MB)."),
        mime_type: "application/pdf",
        tool: "billing_invoices_pdf",
    },
    Entry {
        kind: Kind::Nfe,
        uri: "kobana://billing/nfes/{id}",
        name: "nfe",
        title: "NF-e",
        description: "Uma NF-e / NFS-e (JSON).",
        mime_type: "application/json",
        tool: "billing_nfes_get",
    },
    Entry {
        kind: Kind::NfePdf,
        uri: "kobana://billing/nfes/{id}/pdf",
        name: "nfe_pdf",
        title: "DANFE da NF-e",
        description: formatcp!("O DANFE da NF-e em PDF, em base64 (até {DOCUMENT_MB} MB)."),
        mime_type: "application/pdf",
        tool: "billing_nfes_pdf",
    },
    Entry {
        kind: Kind::NfeXml,
        uri: "kobana://billing/nfes/{id}/xml",
        name: "nfe_xml",
        title: "XML da NF-e",
        description: "O XML autorizado da NF-e (texto).",
        mime_type: "application/xml",
        tool: "billing_nfes_xml",
    },
];

impl Entry {
    fn is_template(&self) -> bool {
        self.uri.contains('{')
    }
}

/// A parsed URI: which entry and the value of its `{id}` / `{resource}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The entry.
    pub kind: Kind,
    /// The template variable, if any.
    pub param: Option<String>,
}

/// Parses a `kobana://billing/…` URI. Anything else, or a variable with characters an id never
/// has (`/`, `..`, `%`, spaces, unicode tricks), is `None` (not found).
pub fn parse(uri: &str) -> Option<Target> {
    let rest = uri.strip_prefix("kobana://billing/")?;
    let parts: Vec<&str> = rest.split('/').collect();
    let param = |p: &str| crate::kobana::segment_is_safe(p).then(|| p.to_owned());
    let (kind, param) = match parts.as_slice() {
        [ORGANIZATION] => (Kind::Organization, None),
        [SCHEMAS] => (Kind::Schemas, None),
        [AUDIT] => (Kind::Audit, None),
        [SCHEMAS, r] => (Kind::Schema, Some(param(r)?)),
        [CUSTOMERS, id] => (Kind::Customer, Some(param(id)?)),
        [SUBSCRIPTIONS, id] => (Kind::Subscription, Some(param(id)?)),
        [INVOICES, id] => (Kind::Invoice, Some(param(id)?)),
        [INVOICES, id, "pdf"] => (Kind::InvoicePdf, Some(param(id)?)),
        [NFES, id] => (Kind::Nfe, Some(param(id)?)),
        [NFES, id, "pdf"] => (Kind::NfePdf, Some(param(id)?)),
        [NFES, id, "xml"] => (Kind::NfeXml, Some(param(id)?)),
        _ => return None,
    };
    Some(Target { kind, param })
}

/// The entry of `kind`.
pub fn entry(kind: Kind) -> &'static Entry {
    ENTRIES
        .iter()
        .find(|e| e.kind == kind)
        .expect("every kind has an entry")
}

/// Whether the token may read `entry` (it may run the tool behind it).
pub fn readable(visibility: &Visibility, entry: &Entry) -> bool {
    registry()
        .get(entry.tool)
        .is_some_and(|tool| visibility.may_run(tool))
}

static RESOURCES: LazyLock<Vec<(Entry, Resource)>> = LazyLock::new(|| {
    ENTRIES
        .iter()
        .filter(|e| !e.is_template())
        .map(|e| {
            let raw: Resource = serde_json::from_value(json!({
                "uri": e.uri, "name": e.name, "title": e.title,
                "description": e.description, "mimeType": e.mime_type
            }))
            .expect("valid resource");
            (*e, raw)
        })
        .collect()
});

static TEMPLATES: LazyLock<Vec<(Entry, ResourceTemplate)>> = LazyLock::new(|| {
    ENTRIES
        .iter()
        .filter(|e| e.is_template())
        .map(|e| {
            let raw: ResourceTemplate = serde_json::from_value(json!({
                "uriTemplate": e.uri, "name": e.name, "title": e.title,
                "description": e.description, "mimeType": e.mime_type
            }))
            .expect("valid template");
            (*e, raw)
        })
        .collect()
});

/// The fixed resources the token may read.
pub fn list(visibility: &Visibility) -> Vec<Resource> {
    RESOURCES
        .iter()
        .filter(|(e, _)| readable(visibility, e))
        .map(|(_, r)| r.clone())
        .collect()
}

/// The templates the token may read.
pub fn templates(visibility: &Visibility) -> Vec<ResourceTemplate> {
    TEMPLATES
        .iter()
        .filter(|(e, _)| readable(visibility, e))
        .map(|(_, t)| t.clone())
        .collect()
}

/// Why a read failed.
#[derive(Debug)]
pub enum ReadError {
    /// Unknown URI, malformed id, no permission, or Kobana 404.
    NotFound,
    /// The document exceeds the document limit (R-5, at most [`MAX_DOCUMENT_BYTES`]).
    TooLarge {
        /// Size Kobana announced, or the bytes counted when it stopped reading.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Nothing to read yet, for a reason the person should hear (a draft invoice has no
    /// PDF until it is finalized): still "not found", with the reason in the message.
    NotYet(String),
    /// Anything else, with a message for the person.
    Failed(String),
}

impl From<ToolError> for ReadError {
    fn from(error: ToolError) -> Self {
        match &error {
            ToolError::InvalidArguments(_) | ToolError::PermissionDenied(_) => ReadError::NotFound,
            ToolError::DraftHasNoPdf { .. } => ReadError::NotYet(error.to_string()),
            ToolError::Kobana(e) => match e.as_ref() {
                KobanaError::Api { status: 404, .. } => ReadError::NotFound,
                KobanaError::TooLarge { size, limit } => ReadError::TooLarge {
                    size: *size,
                    limit: *limit,
                },
                _ => ReadError::Failed(error.to_string()),
            },
            _ => ReadError::Failed(error.to_string()),
        }
    }
}

/// Reads a JSON resource by running its tool; returns the pretty JSON text.
pub async fn read_json(ctx: ToolCtx, target: &Target) -> Result<String, ReadError> {
    let e = entry(target.kind);
    let tool = registry().get(e.tool).ok_or(ReadError::NotFound)?;
    if target.kind == Kind::Audit {
        let document = crate::catalog::curated::audit::latest(&ctx).await?;
        return serde_json::to_string_pretty(&document)
            .map_err(|e| ReadError::Failed(e.to_string()));
    }
    let mut args = serde_json::Map::new();
    match (target.kind, &target.param) {
        (Kind::Schema, Some(r)) => {
            args.insert("resource".into(), Value::String(r.clone()));
        }
        (_, Some(id)) => {
            args.insert("id".into(), Value::String(id.clone()));
        }
        (_, None) => {}
    }
    let structured = tool.run(ctx, Some(args)).await?;
    // Tools wrap their record in one member ({"invoice": {...}}); a resource is the record.
    let body = match (&structured, target.kind) {
        (_, Kind::Schemas) => structured.clone(),
        (Value::Object(map), _) if map.len() == 1 => {
            map.values().next().cloned().unwrap_or_default()
        }
        _ => structured.clone(),
    };
    serde_json::to_string_pretty(&body).map_err(|e| ReadError::Failed(e.to_string()))
}

/// Fetches a PDF and parks it in `slot` for the front to stream as base64; the contents
/// returned hold the placeholder the front replaces. A document Kobana announces as larger
/// than the document limit is refused here, and so is any media type but `application/pdf`
/// (BW-7: nothing of it is passed on); one that turns out larger is cut by the stream.
pub async fn read_pdf(
    ctx: &ToolCtx,
    target: &Target,
    slot: &DeferredSlot,
) -> Result<ResourceContents, ReadError> {
    let id = crate::catalog::uuid_arg("id", target.param.as_deref().unwrap_or(""))
        .map_err(|_| ReadError::NotFound)?;
    let segment = if target.kind == Kind::InvoicePdf {
        INVOICES
    } else {
        NFES
    };
    let limit = ctx.kobana.limits().max_document_bytes;
    let download = match ctx
        .kobana
        .download(&[segment, id, "pdf"], PDF_MEDIA_TYPE)
        .await
    {
        Ok(download) => download,
        Err(error) if target.kind == Kind::InvoicePdf => {
            return Err(
                crate::catalog::curated::invoices::missing_pdf(ctx, id, error)
                    .await
                    .into(),
            );
        }
        Err(error) => return Err(ToolError::from(error).into()),
    };
    if let Some(size) = download.content_length
        && size > limit
    {
        return Err(ReadError::TooLarge { size, limit });
    }
    let media_type = download.media_type();
    if media_type.as_deref() != Some(PDF_MEDIA_TYPE) {
        return Err(ReadError::Failed(wrong_media_type(media_type.as_deref())));
    }
    let blob = crate::deferred::document::defer(slot, download, limit)
        .map_err(|e| ReadError::Failed(format!("sem aleatoriedade para o documento: {e}")))?;
    Ok(ResourceContents::BlobResourceContents {
        uri: entry(target.kind).uri.replace("{id}", id),
        mime_type: Some(PDF_MEDIA_TYPE.to_owned()),
        blob,
        meta: None,
    })
}

/// The pt-BR refusal of a PDF read that Kobana answered with another media type: it names
/// what came (one short plain line), and that nothing was passed on.
fn wrong_media_type(media_type: Option<&str>) -> String {
    let shown = media_type.map_or_else(
        || "nenhum tipo".to_owned(),
        |t| {
            crate::format::plain_line(t)
                .chars()
                .take(MAX_SHOWN_MEDIA_TYPE)
                .collect()
        },
    );
    format!(
        "O Kobana respondeu {shown:?} em vez de {PDF_MEDIA_TYPE}; nada foi repassado. Tente de novo; se persistir, avise o suporte."
    )
}

/// Reads the NF-e XML as text, read with a counter up to the document limit: a larger
/// one is refused as soon as it is announced or grows past it.
pub async fn read_xml(ctx: &ToolCtx, id: &str) -> Result<String, ReadError> {
    let id = crate::catalog::uuid_arg("id", id).map_err(|_| ReadError::NotFound)?;
    let limit = ctx.kobana.limits().max_document_bytes;
    let download = ctx
        .kobana
        .download(&[NFES, id, "xml"], "application/xml")
        .await
        .map_err(ToolError::from)?;
    let bytes = download.bytes_within(limit).await.map_err(|e| match e {
        KobanaError::TooLarge { size, limit } => ReadError::TooLarge { size, limit },
        _ => ReadError::Failed("a conexão com o Kobana caiu durante o XML".into()),
    })?;
    String::from_utf8(bytes).map_err(|_| ReadError::Failed("o XML do Kobana não é UTF-8".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NM-4: the PDF resources quote the document limit from its constant.
    #[test]
    fn nm4_pdf_descriptions_quote_the_document_limit() {
        let mb = MAX_DOCUMENT_BYTES / (1024 * 1024);
        assert_eq!(mb * 1024 * 1024, MAX_DOCUMENT_BYTES, "whole MB");
        for kind in [Kind::InvoicePdf, Kind::NfePdf] {
            let text = entry(kind).description;
            assert!(text.contains(&format!("(até {mb} MB)")), "{text}");
        }
    }

    #[test]
    fn r1_r2_uris_parse_and_hostile_ones_do_not() {
        assert_eq!(
            parse("kobana://billing/organization").unwrap().kind,
            Kind::Organization
        );
        let t =
            parse("kobana://billing/invoices/47378190-96da-4dac-b2ff-5d2a386ecbe0/pdf").unwrap();
        assert_eq!(t.kind, Kind::InvoicePdf);
        assert_eq!(
            t.param.as_deref(),
            Some("47378190-96da-4dac-b2ff-5d2a386ecbe0")
        );
        for bad in [
            "kobana://billing/invoices/../organization",
            "kobana://billing/invoices/a%2Fb",
            "kobana://billing/invoices/",
            "kobana://billing/invoices/x/y",
            "kobana://billing/nfes/x/zip",
            "kobana://other/invoices/x",
            "file:///etc/passwd",
            "kobana://billing/customers/ａｂｃ",
        ] {
            assert!(parse(bad).is_none(), "{bad}");
        }
        assert_eq!(ENTRIES.iter().filter(|e| !e.is_template()).count(), 3);
        assert_eq!(ENTRIES.iter().filter(|e| e.is_template()).count(), 8);
    }
}
