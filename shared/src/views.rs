//! The MCP Apps views (UI-2): three self-contained HTML documents a host renders beside the
//! result of the tool that links them (`catalog::ui_links`), served by `resources/read` at
//! their `ui://kobana/…` URIs with `mimeType` `text/html;profile=mcp-app`.
//!
//! Each document is assembled at compile time from `shared/views/`: the shared style, the
//! view's own markup, the shared runtime (the postMessage protocol spoken directly, theme,
//! pt-BR formatting), and the view's own script; the invoice view also inlines the QR
//! encoder. Nothing is loaded from the network: no CDN, no font, no image by URL; the
//! resource declares no CSP domains, so hosts apply the restrictive default.
//!
//! A view is readable under the permission of the tool that links it, like every resource
//! it is the same document for everyone and carries no data: the data comes from the
//! tool result the host hands it.

use rmcp::model::{MetaObject, ResourceContents};
use serde_json::json;

use crate::catalog::ui_links::VIEW_MIME_TYPE;
use crate::catalog::{Visibility, registry};

/// Largest view document, in bytes (UI-2).
pub const MAX_VIEW_BYTES: usize = 150 * 1024;

/// One view.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// `ui://kobana/<name>`.
    pub uri: &'static str,
    /// The tool that links it (and whose permission reads it).
    pub tool: &'static str,
    /// The whole HTML document.
    pub html: &'static str,
}

/// Assembles one view's document: style, markup, runtime, script.
macro_rules! document {
    ($title:literal, $body:literal, $($script:literal),+) => {
        concat!(
            "<!doctype html>\n<html lang=\"pt-BR\"><head><meta charset=\"utf-8\">",
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
            "<title>", $title, "</title><style>\n",
            include_str!("../views/common.css"),
            "</style></head><body>\n",
            include_str!($body),
            "<script>\n\"use strict\";\n",
            include_str!("../views/common.js"),
            $(include_str!($script),)+
            "</script></body></html>\n"
        )
    };
}

/// The three views.
pub const VIEWS: [View; 3] = [
    View {
        uri: "ui://kobana/invoice",
        tool: "billing_invoices_get",
        html: document!(
            "Fatura",
            "../views/invoice.html",
            "../views/qr.js",
            "../views/invoice.js"
        ),
    },
    View {
        uri: "ui://kobana/customer",
        tool: "billing_customers_get",
        html: document!("Cliente", "../views/customer.html", "../views/customer.js"),
    },
    View {
        uri: "ui://kobana/month",
        tool: "billing_reports_month",
        html: document!("Resumo do mês", "../views/month.html", "../views/month.js"),
    },
];

/// The view at `uri`, if any.
pub fn find(uri: &str) -> Option<&'static View> {
    VIEWS.iter().find(|v| v.uri == uri)
}

/// Whether the token may read `view`: it may run the tool that links it.
pub fn readable(visibility: &Visibility, view: &View) -> bool {
    registry()
        .get(view.tool)
        .is_some_and(|tool| visibility.may_run(tool))
}

/// The `resources/read` contents of `view`: the document, and `_meta.ui` asking for the
/// host's border (no CSP domains: the view needs none).
pub fn contents(view: &View) -> ResourceContents {
    let mut meta = MetaObject::new();
    meta.0
        .insert("ui".to_owned(), json!({"prefersBorder": true}));
    ResourceContents::TextResourceContents {
        uri: view.uri.to_owned(),
        mime_type: Some(VIEW_MIME_TYPE.to_owned()),
        text: view.html.to_owned(),
        meta: Some(meta),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ui_links::view_of;

    #[test]
    fn ui2_each_view_is_one_small_document_that_loads_nothing() {
        for view in &VIEWS {
            assert_eq!(view_of(view.tool), Some(view.uri), "{}", view.uri);
            eprintln!("{}: {} bytes", view.uri, view.html.len());
            // The SVG namespace names elements; nothing is fetched from it.
            let html = view
                .html
                .replace("\"http://www.w3.org/2000/svg\"", "SVG_NS");
            assert!(
                html.len() <= MAX_VIEW_BYTES,
                "{}: {} bytes",
                view.uri,
                html.len()
            );
            assert!(html.starts_with("<!doctype html>"), "{}", view.uri);
            for network in [
                "http://",
                "https://",
                "src=",
                "@import",
                "url(",
                "fetch(",
                "XMLHttpRequest",
                "WebSocket",
                "EventSource",
                "sendBeacon",
                "<link",
                "<iframe",
                "import(",
            ] {
                assert!(
                    !html.contains(network),
                    "{} may reach the network: {network}",
                    view.uri
                );
            }
        }
        assert!(find("ui://kobana/invoice").is_some_and(|v| v.html.contains("function qrMatrix")));
        assert!(find("ui://kobana/other").is_none());
    }
}
