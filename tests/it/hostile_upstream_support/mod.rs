//! Support for the hostile-upstream suite (#25): a scriptable hostile Kobana
//! ([`upstream`]) and the server as a child process whose memory, CPU and logs are its own
//! ([`server`]).

#![allow(dead_code)]

pub mod server;
pub mod upstream;

use serde_json::{Value, json};

use server::Server;
use upstream::{Answer, Upstream};

/// `status` with `body` as its JSON answer.
pub fn json_answer(status: u16, body: Value) -> Answer {
    Answer::Json {
        status,
        body: body.to_string(),
    }
}

/// The tool error code of a tool result (`structuredContent.error`).
pub fn error_code(result: &Value) -> &str {
    result["structuredContent"]["error"]
        .as_str()
        .unwrap_or_default()
}

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
    let warm = server.call("billing_organization_get", json!({})).await;
    assert_ne!(warm["isError"], true, "{warm}");
    (upstream, server)
}

/// A page of `n` open invoices, each on its own billing account, each with two line items.
pub fn invoice_page(n: usize) -> Value {
    let invoices: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "id": format!("00000000-0000-4000-8000-{i:012}"),
                "number": format!("FAT-2026-{i:06}"),
                "status": "open",
                "billing_account_id": format!("10000000-0000-4000-8000-{i:012}"),
                "total_subcents": 4_990_000, "subtotal_subcents": 4_990_000,
                "amount_due_subcents": 4_990_000, "amount_paid_subcents": 0,
                "amount_remaining_cents": 49_900, "net_value_cents": 49_900,
                "total_withheld_cents": 0, "due_date": "2026-08-25T03:00:00Z",
                "line_items": [
                    {"description": "Assinatura", "amount_cents": 40_000},
                    {"description": "Adicional", "amount_cents": 9_900}
                ]
            })
        })
        .collect();
    json!({"data": invoices, "meta": {"current_page": 1, "per_page": n, "total_count": n, "total_pages": 1}})
}
