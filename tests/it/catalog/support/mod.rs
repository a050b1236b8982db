//! What the catalog tests share: the fixture ids (reference §10), small helpers to read a
//! tool result, and the one table of every tool ([`tools`]).

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

use serde_json::{Value, json};

use fake_kobana::full_token;

use crate::common::{Stack, text_of};

pub use fake_kobana::fixtures::ids::*;

pub mod tools;

/// The structured result of a successful call.
#[track_caller]
pub fn ok(result: &Value) -> Value {
    assert_ne!(
        result["isError"],
        json!(true),
        "unexpected tool error: {result}"
    );
    result["structuredContent"].clone()
}

/// The text of a failed call.
#[track_caller]
pub fn fail(result: &Value) -> String {
    assert_eq!(
        result["isError"],
        json!(true),
        "expected a tool error: {result}"
    );
    text_of(result)
}

/// `tools/list` as `token` sees it (era 2025).
pub async fn tools_list(stack: &Stack, token: &str) -> Vec<Value> {
    let (status, body) = stack.legacy(token, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    body["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Kobana calls under `prefix` other than the ones already counted.
pub fn calls(stack: &Stack, prefix: &str) -> usize {
    stack.kobana_calls(prefix).len()
}

/// The billing day of the test stack in America/Sao_Paulo, as days since the epoch: the
/// fake's clock, which the stack's server shares (FH-1).
pub fn sao_paulo_today() -> i64 {
    fake_kobana::clock::today()
}

/// The stack's month, `YYYY-MM` (the fake's clock).
pub fn stack_month() -> String {
    fake_kobana::clock::format_date(fake_kobana::clock::today())[..7].to_owned()
}

pub fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

impl Stack {
    /// Calls `tool` as a full token and answers its structured result (a tool error fails
    /// the test).
    pub async fn ok(&self, tool: &str, args: Value) -> Value {
        ok(&self.call(&full_token(), tool, args).await)
    }

    /// Calls `tool` as a full token and answers the text of its error (a success fails the
    /// test).
    pub async fn refused(&self, tool: &str, args: Value) -> String {
        fail(&self.call(&full_token(), tool, args).await)
    }
}

/// A day `days` after today, `YYYY-MM-DD`, in the future for the server (the real date in
/// São Paulo) and for the fake (its own clock) alike: what a new due date must be.
pub fn future_day(days: i64) -> String {
    let today = sao_paulo_today().max(fake_kobana::clock::today());
    fake_kobana::clock::format_date(today + days)
}

/// A pending boleto of the open invoice FAT-2026-000812, issued through Kobana's gateway
/// (`gateway`: its `payment_gateway`), added to the fake as Kobana itself would have.
pub fn add_pending_boleto(stack: &Stack, id: &str, gateway: Option<&str>) {
    let added = stack.fake.insert_record(
        "payments",
        json!({
            "id": id, "public_id": id, "external_id": null, "invoice_id": INV_OPEN,
            "billing_account_id": BA_PADARIA, "company_id": null, "payment_method_id": null,
            "gateway_id": null, "payment_method_type": "bank_slip", "amount_cents": 49_900,
            "paid_amount_cents": null, "currency": "BRL", "status": "pending",
            "payment_gateway": gateway, "gateway_payment_id": null, "failure_code": null,
            "failure_message": null, "idempotency_key": null, "paid_at": null,
            "metadata": {}, "custom_metadata": null,
            "created_at": "2026-08-11T09:00:00Z", "updated_at": "2026-08-11T09:00:00Z"
        }),
    );
    assert!(added, "the fake keeps payments");
}
