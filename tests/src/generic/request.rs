//! A minimal valid request of any operation, made from the contract: each path parameter, the
//! required query parameters, and a body with only its required members (a multipart body
//! with its files as file parts). Tests send it to prove every operation is played; the
//! `ids` a caller passes put real records into the path and the body.

use serde_json::Value;

use super::synth::{KnownIds, Synth};
use crate::contract::{Operation, contract};

/// The boundary of the multipart bodies made here.
pub const BOUNDARY: &str = "kobana-fake-boundary";

/// One request, ready to send.
#[derive(Debug)]
pub struct Minimal {
    /// HTTP method.
    pub method: String,
    /// The path with its parameters filled in (and the query string, if any).
    pub path: String,
    /// `Content-Type` to send.
    pub content_type: String,
    /// The body (empty when the operation takes none).
    pub body: Vec<u8>,
}

/// The minimal valid request of `op`. `path_id(name, collection)` may name the record a path
/// parameter points at (`collection` is the segment before it); `known` fills id members.
pub fn minimal(
    op: &Operation,
    path_id: &dyn Fn(&str, &str) -> Option<String>,
    known: KnownIds<'_>,
) -> Minimal {
    let synth = Synth::minimal(contract(), &op.operation_id, known);
    let mut segments: Vec<String> = Vec::new();
    for segment in op.path.split('/') {
        let filled = match segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => {
                let collection = segments.last().map_or("", String::as_str);
                path_id(name, collection).unwrap_or_else(|| {
                    let field = &op.path_params[name];
                    scalar(&synth.value(field, name))
                })
            }
            None => segment.to_owned(),
        };
        segments.push(filled);
    }
    let mut path = segments.join("/");
    let query: Vec<String> = op
        .required_query
        .iter()
        .map(|name| format!("{name}={}", scalar(&synth.value(&op.query[name], name))))
        .collect();
    if !query.is_empty() {
        path = format!("{path}?{}", query.join("&"));
    }
    let (content_type, body) = match &op.body {
        None => (crate::contract::JSON.to_owned(), Vec::new()),
        Some(body) => {
            let field = match (&body.schema, &body.field) {
                (Some(name), _) => contract().schema(name).expect("refs resolve"),
                (None, Some(field)) => field,
                (None, None) => unreachable!("a body has a schema"),
            };
            let value = synth.value(field, "body");
            if body.is_multipart() {
                let schema = synth.resolve(field);
                (
                    format!("{}; boundary={BOUNDARY}", crate::contract::MULTIPART),
                    multipart(&value, |name| {
                        schema
                            .fields
                            .as_ref()
                            .and_then(|f| f.get(name))
                            .is_some_and(|f| f.format.as_deref() == Some("binary"))
                    }),
                )
            } else {
                (
                    crate::contract::JSON.to_owned(),
                    value.to_string().into_bytes(),
                )
            }
        }
    };
    Minimal {
        method: op.method.clone(),
        path,
        content_type,
        body,
    }
}

/// A value as text (a path or query parameter, a multipart part).
fn scalar(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

/// The members of `value` as a multipart body; `file(name)` says which are files.
fn multipart(value: &Value, file: impl Fn(&str) -> bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, v) in value.as_object().into_iter().flatten() {
        let disposition = if file(name) {
            format!("form-data; name=\"{name}\"; filename=\"{name}.bin\"")
        } else {
            format!("form-data; name=\"{name}\"")
        };
        out.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: {disposition}\r\n\r\n{}\r\n",
                scalar(v)
            )
            .as_bytes(),
        );
    }
    out.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
    out
}
