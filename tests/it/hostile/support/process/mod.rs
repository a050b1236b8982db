//! Support for the hostile-upstream suite (BW-8): a scriptable hostile Kobana
//! ([`upstream`]) and the server as a child process whose memory, CPU and logs are its own
//! ([`server`]).

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

pub mod server;
pub use fake_kobana::hostile as upstream;
pub use fake_kobana::hostile::{invoice_page, json_answer};

use serde_json::{Value, json};

use server::Server;
use upstream::Upstream;

pub use crate::common::error_code;

/// The text of a tool result.
pub fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

/// A hostile upstream and the server pointed at it (with `env` added), warmed up: registry,
/// HTTP client and first connection, through one `billing_organization_get`.
pub async fn started(env: &[(&str, &str)]) -> (Upstream, Server) {
    let upstream = Upstream::start().await;
    let server = Server::start(&upstream.base, env);
    upstream.route("GET", "/v1/organization", |_| {
        json_answer(200, json!({"data": {"id": "org", "name": "Org"}}))
    });
    let mark = server.mark();
    let warm = server.call("billing_organization_get", json!({})).await;
    assert_ne!(warm["isError"], true, "{warm}");
    // Its lines are read from the process's stderr as they come: wait for its request line, so
    // a test's own mark starts after everything the warm-up logged.
    server.request_line(mark, "billing_organization_get").await;
    (upstream, server)
}
