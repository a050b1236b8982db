//! The question of removing a customer.

use serde_json::Value;

use super::words::{Question, is_document, text};

/// Removing a customer: its document (shown as it is when it is one, else quoted), that it
/// is a soft delete, and its name.
pub(super) fn delete(record: &Value, q: &mut Question) {
    let document = text(record, "document_number");
    match document.as_deref() {
        Some(doc) if is_document(doc) => {
            q.fact(format!("Remover o cliente de documento {doc}"));
        }
        Some(doc) => {
            q.fact("Remover o cliente");
            q.quote("Documento (no cadastro)", doc);
        }
        None => q.fact("Remover o cliente sem documento no cadastro"),
    }
    q.note("Ele sai das listas e o histórico é mantido (exclusão lógica).");
    match text(record, "name") {
        Some(name) => q.quote("Cliente (nome no cadastro)", &name),
        None => q.note("O cadastro não tem nome."),
    }
}
