//! A stand-in for a host's model endpoint. A host without a model account cannot chat, but
//! pointed at this endpoint (each host has a documented base-URL setting) it sends its first
//! model request, and that request lists every tool the host offers the model. The endpoint
//! records each request and refuses it with an error, so no tool is ever called.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use serde_json::{Value, json};

type Seen = Arc<Mutex<Vec<(String, Value)>>>;

/// A running stand-in model endpoint.
pub struct StandInModel {
    /// Its base URL, e.g. `http://127.0.0.1:41234`.
    pub url: String,
    seen: Seen,
}

impl StandInModel {
    /// Serves on an ephemeral loopback port on the caller's runtime.
    pub async fn start() -> Self {
        let seen = Seen::default();
        let router = Router::new().fallback(refuse).with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self { url, seen }
    }

    /// The paths the host posted to.
    pub fn paths(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Every tool name offered in any recorded request whose name starts with `prefix`, the
    /// prefix taken off (the host's name for our server's tools, e.g. `mcp__kobana__`).
    pub fn offered(&self, prefix: &str) -> BTreeSet<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .flat_map(|(_, body)| tool_names(body))
            .filter_map(|name| name.strip_prefix(prefix).map(str::to_owned))
            .collect()
    }
}

/// Records the request and answers 400 with an error body every vendor's client can read.
async fn refuse(State(seen): State<Seen>, uri: Uri, body: Bytes) -> (StatusCode, String) {
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    seen.lock().unwrap().push((uri.to_string(), body));
    let error = json!({
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "code": 400,
            "status": "INVALID_ARGUMENT",
            "message": "stand-in model: this endpoint only records requests"
        }
    });
    (StatusCode::BAD_REQUEST, error.to_string())
}

/// The tool names in one model request, in any of the three wire shapes the hosts use:
/// Anthropic Messages (`tools[].name`), OpenAI chat completions (`tools[].function.name`) and
/// Gemini (`tools[].functionDeclarations[].name`).
fn tool_names(body: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in body["tools"].as_array().into_iter().flatten() {
        let direct = [&tool["name"], &tool["function"]["name"]];
        let declared = tool["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten();
        for name in direct.into_iter().chain(declared.map(|d| &d["name"])) {
            if let Some(name) = name.as_str() {
                names.push(name.to_owned());
            }
        }
    }
    names
}
