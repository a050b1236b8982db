//! The tools that link an MCP Apps view (extension `io.modelcontextprotocol/ui`, stable
//! revision 2026-01-26): each declares its view's `ui://` URI in `_meta.ui.resourceUri`, with
//! the legacy flat `_meta["ui/resourceUri"]` beside it, for hosts that still read that one.
//!
//! The link is negotiated, never a condition of the tool: a client that may render views
//! gets the definitions with the links, one that cannot gets the same tools without them
//! (the views add `_meta` only; `content` stays meaningful text either way). Era 2026 clients
//! declare the extension on every request; era 2025 clients declared it at `initialize`,
//! which a stateless server never keeps, so they always may.

use rmcp::model::{ClientCapabilities, MetaObject, Tool};
use serde_json::{Value, json};

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The media type of a view.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The legacy flat `_meta` key of the link.
pub const LEGACY_KEY: &str = "ui/resourceUri";

/// Each linked tool and the URI of its view.
pub const LINKS: [(&str, &str); 3] = [
    ("billing_invoices_get", "ui://kobana/invoice"),
    ("billing_customers_get", "ui://kobana/customer"),
    ("billing_reports_month", "ui://kobana/month"),
];

/// The view `tool` links, if any.
pub fn view_of(tool: &str) -> Option<&'static str> {
    LINKS.iter().find(|(t, _)| *t == tool).map(|(_, uri)| *uri)
}

/// The `_meta` of a tool linking `uri`.
pub fn meta(uri: &str) -> MetaObject {
    let mut meta = MetaObject::new();
    meta.0.insert("ui".to_owned(), json!({"resourceUri": uri}));
    meta.0.insert(LEGACY_KEY.to_owned(), json!(uri));
    meta
}

/// `tool` without its view links (and without `_meta` when nothing else is in it).
pub fn without_links(tool: &Tool) -> Tool {
    let mut plain = tool.clone();
    if let Some(meta) = plain.meta.as_mut() {
        meta.0.remove("ui");
        meta.0.remove(LEGACY_KEY);
        if meta.0.is_empty() {
            plain.meta = None;
        }
    }
    plain
}

/// Whether capabilities declare the extension with the view media type (a declaration that
/// names no media types counts: it can only mean HTML views today).
pub fn declared(capabilities: Option<&ClientCapabilities>) -> bool {
    let Some(settings) = capabilities
        .and_then(|c| c.extensions.as_ref())
        .and_then(|e| e.get(EXTENSION))
    else {
        return false;
    };
    match serde_json::to_value(settings)
        .ok()
        .and_then(|v| v.get("mimeTypes").cloned())
    {
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(VIEW_MIME_TYPE)),
        Some(_) => false,
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(value: Value) -> ClientCapabilities {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn ui3_the_extension_counts_when_declared_with_the_view_type() {
        assert!(!declared(None));
        assert!(!declared(Some(&caps(json!({})))));
        assert!(!declared(Some(&caps(
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        ))));
        assert!(declared(Some(&caps(json!({"extensions": {EXTENSION: {
            "mimeTypes": [VIEW_MIME_TYPE]}}})))));
        assert!(declared(Some(&caps(
            json!({"extensions": {EXTENSION: {}}})
        ))));
        assert!(!declared(Some(&caps(json!({"extensions": {EXTENSION: {
            "mimeTypes": ["text/uri-list"]}}})))));
    }

    #[test]
    fn ui3_links_come_off_and_leave_the_rest() {
        let mut tool: Tool =
            serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}}))
                .unwrap();
        tool.meta = Some(meta("ui://kobana/invoice"));
        let wire = serde_json::to_value(&tool).unwrap();
        assert_eq!(wire["_meta"]["ui"]["resourceUri"], "ui://kobana/invoice");
        assert_eq!(wire["_meta"][LEGACY_KEY], "ui://kobana/invoice");
        assert!(without_links(&tool).meta.is_none());
        tool.meta
            .as_mut()
            .unwrap()
            .0
            .insert("other".into(), json!(1));
        assert_eq!(without_links(&tool).meta.unwrap().0.len(), 1);
    }
}
