//! The write a handler plans: what a person confirms is put into words from it, the
//! confirmation is bound to it, and the confirmed run sends it only if it is still the same.

use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::{Value, json};

/// A write exactly as a handler would send it: method, path segments under `/v1`, query and
/// JSON body, after the handler parsed, validated and normalized its arguments. What a person
/// confirms is put into words from this, the confirmation is bound to it, and the confirmed
/// run sends it only if it is still the same.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedWrite {
    /// `POST`, `PUT`, `PATCH` or `DELETE`.
    pub method: Method,
    /// Path segments under `/v1` (`["payments", "<uuid>", "refund"]`).
    pub segments: Vec<String>,
    /// Query pairs (only the generic tools send any on a write).
    pub query: Vec<(String, String)>,
    /// The JSON body, if any.
    pub body: Option<Value>,
    /// Kobana's operationId, when a generic tool plans the write (the question is that
    /// operation's row's sentence).
    pub operation: Option<&'static str>,
}

impl PlannedWrite {
    /// The write of `method` to `segments` with `body`.
    pub fn new(method: Method, segments: &[&str], body: Option<&Value>) -> Self {
        Self {
            method,
            segments: segments.iter().map(|s| (*s).to_owned()).collect(),
            query: Vec::new(),
            body: body.cloned(),
            operation: None,
        }
    }

    /// `/v1/<segments>`.
    pub fn path(&self) -> String {
        format!("/v1/{}", self.segments.join("/"))
    }

    /// The path with its id left out, for a log line: `/v1/payments/{id}/refund` (the id
    /// can be an argument value, such as a customer's `external_id`).
    pub fn path_shape(&self) -> String {
        let shape: Vec<&str> = self
            .segments
            .iter()
            .enumerate()
            .map(|(i, s)| if i == 1 { "{id}" } else { s.as_str() })
            .collect();
        format!("/v1/{}", shape.join("/"))
    }

    /// The canonical request: `{"body","method","path"}` (plus `operation` and `query` when a
    /// generic tool sends them) with every object's keys sorted, compactly serialized. Two
    /// writes are the same request exactly when these are equal.
    pub fn canonical(&self) -> String {
        let mut request = json!({
            "method": self.method.as_str(),
            "path": self.path(),
            "body": self.body,
        });
        if let Some(operation) = self.operation {
            request["operation"] = json!(operation);
        }
        if !self.query.is_empty() {
            request["query"] = json!(self.query);
        }
        crate::canonical::canonical_json(&request)
    }
}

/// What [`ToolCtx::write`] does with the write a handler reaches.
#[derive(Debug, Clone, Default)]
pub enum WriteGate {
    /// Send it.
    #[default]
    Open,
    /// Dry run before a confirmation: record the write here and stop with
    /// [`ToolError::ConfirmationRequired`]. The handler's own argument checks run, nothing
    /// changes, and the person is asked only about a request that would actually be sent.
    Plan(Arc<Mutex<Option<PlannedWrite>>>),
    /// The person confirmed this request: send the write only if it is the same canonical
    /// request, else refuse with [`ToolError::ConfirmationMismatch`] and send nothing.
    Confirmed(Arc<PlannedWrite>),
}
