//! What the catalog tests share: the fixture ids (reference §10) and small helpers to read a
//! tool result.

#![allow(dead_code)]

use serde_json::{Value, json};

use crate::common::{Stack, text_of};

pub const ACCOUNT_MARIANA: &str = "6c307511-b2b9-437a-a8df-6ec4ce4a2bbd";
pub const ACCOUNT_PAO: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
pub const ACCOUNT_HORIZONTE: &str = "1a2a73ed-562b-4f79-8374-59eef50bea63";
pub const PLAN_PRO: &str = "759cde66-bacf-43d0-8b1f-9163ce9ff57f";
pub const PRODUCT_EXTRA_USER: &str = "38a847db-b6bd-46a7-b8ae-bf1a956e8fcc";
pub const PRICE_EXTRA_USER: &str = "afb266c8-b379-492a-9bf7-fde6eb806a8a";
pub const SUB_ACTIVE: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";
pub const SUB_PAST_DUE: &str = "ec1b8ca1-f91e-4d4c-9ff4-9b7889463e85";
pub const SUB_CANCELED: &str = "e2acf72f-9e57-4f7a-a0ee-89aed453dd32";
pub const INV_DRAFT: &str = "3139d32c-93cd-49bf-9c94-1cf0dc98d2c1";
pub const INV_OPEN: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
pub const INV_OVERDUE: &str = "c5fd4a91-2d3e-4b7a-8e61-0a9f3b2c7d11";
pub const INV_PAID_WITH_NFE: &str = "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55";
pub const INV_PAID_NFE_ERROR: &str = "0d6e1f2a-3b4c-4d5e-8f60-718293a4b5c6";
pub const PAY_CARD: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
pub const PAY_PIX: &str = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
pub const PAY_FAILED: &str = "e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1f0";
pub const NFE_ISSUED: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
pub const NFE_ERROR: &str = "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a";
pub const UNKNOWN: &str = "00000000-0000-4000-8000-000000000000";

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

/// Today in America/Sao_Paulo (UTC-3, no DST since 2019) as days since the epoch.
pub fn sao_paulo_today() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    fake_kobana::clock::local_day(now)
}

pub fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}
