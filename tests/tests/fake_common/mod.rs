//! Helpers shared by the `fake_*` tests: a started fake and a small HTTP client around it.

#![allow(dead_code)]

use fake_kobana::{FakeKobana, ViolationKind, full_token};
use reqwest::{Method, Response};
use serde_json::Value;

/// The `User-Agent` the tests send.
pub const UA: &str = "Kobana MCP Tests/0.1 <ops@example.com.br>";

/// Fixture ids used across the tests.
pub mod ids {
    pub const MARIANA: &str = "23b8c1e9-3924-46de-beb1-3b9046685257";
    pub const PADARIA: &str = "972a8469-1641-4f82-8b9d-2434e465e150";
    pub const RAFAEL: &str = "6b65a6a4-8b81-48f6-b38a-088ca65ed389";
    pub const BA_MARIANA: &str = "6c307511-b2b9-437a-a8df-6ec4ce4a2bbd";
    pub const BA_PADARIA: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
    pub const BA_HORIZONTE: &str = "1a2a73ed-562b-4f79-8374-59eef50bea63";
    pub const BA_RAFAEL: &str = "5be6128e-18c2-4797-a142-ea7d17be3111";
    pub const SUB_ACTIVE: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";
    pub const SUB_PAST_DUE: &str = "ec1b8ca1-f91e-4d4c-9ff4-9b7889463e85";
    pub const SUB_CANCELED: &str = "e2acf72f-9e57-4f7a-a0ee-89aed453dd32";
    pub const INV_DRAFT: &str = "3139d32c-93cd-49bf-9c94-1cf0dc98d2c1";
    pub const INV_OPEN: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
    pub const INV_OVERDUE: &str = "c5fd4a91-2d3e-4b7a-8e61-0a9f3b2c7d11";
    pub const INV_PAID_NFE_ISSUED: &str = "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55";
    pub const INV_PAID_NFE_ERROR: &str = "0d6e1f2a-3b4c-4d5e-8f60-718293a4b5c6";
    pub const INV_VOID: &str = "a7b8c9d0-e1f2-4a3b-9c4d-5e6f7a8b9c0d";
    pub const INV_UNCOLLECTIBLE: &str = "f1e2d3c4-b5a6-4978-8695-a4b3c2d1e0f9";
    pub const NFE_ISSUED: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
    pub const NFE_ERROR: &str = "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a";
    pub const PAY_CARD: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
    pub const PAY_PIX: &str = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    pub const PAY_FAILED: &str = "e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1f0";
    pub const PLAN_PRO: &str = "759cde66-bacf-43d0-8b1f-9163ce9ff57f";
    pub const PLAN_ENTERPRISE_HORIZONTE: &str = "4b0dbb41-8d52-48f1-942c-3fe860e7a113";
    pub const PLAN_BASIC_ARCHIVED: &str = "9d77e57d-07e1-4fda-afdf-551fc94f64f8";
    pub const PROD_LICENSE: &str = "9e72db5a-fd0b-47de-aade-7e9d13dd0507";
    pub const PROD_EXTRA_USER: &str = "38a847db-b6bd-46a7-b8ae-bf1a956e8fcc";
    pub const PROD_SUPPORT: &str = "3556dcf7-5205-4688-a950-f2d79d4be0a0";
    pub const PROD_NFSE_OVERAGE: &str = "7afe8fcb-e217-40ab-9a18-ec27796ddfe9";
    pub const PROD_ONBOARDING: &str = "ac6aacab-3773-4cc2-a7a5-51672be3f350";
    pub const PRICE_PRO_LICENSE: &str = "dd1b937f-89b0-4f61-b7bd-3e1896799ed9";
    pub const PRICE_EXTRA_USER: &str = "afb266c8-b379-492a-9bf7-fde6eb806a8a";
    pub const PRICE_ENTERPRISE_LICENSE: &str = "33d3a897-0112-4619-b69a-14c6863ff68b";
}

/// A running fake plus a client that sends the `User-Agent` and a full token by default.
pub struct Api {
    pub fake: FakeKobana,
    pub http: reqwest::Client,
    pub token: String,
}

impl Api {
    pub async fn new() -> Api {
        Api::with_fake(FakeKobana::start().await)
    }

    /// Around an already started fake.
    pub fn with_fake(fake: FakeKobana) -> Api {
        Api {
            fake,
            http: kobana_mcp::net::client_builder()
                .build()
                .expect("HTTP client"),
            token: full_token(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.fake.base_url())
    }

    /// A raw request: `token`/`ua` of `None` leave the header out.
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        ua: Option<&str>,
        body: Option<&Value>,
    ) -> Response {
        let mut req = self.http.request(method, self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(ua) = ua {
            req = req.header("User-Agent", ua);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        req.send().await.expect("request reaches the fake")
    }

    /// A request with the default token and `User-Agent`; returns status and JSON body.
    pub async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        self.call_as(&self.token.clone(), method, path, body).await
    }

    /// Like [`Api::call`] with another token.
    pub async fn call_as(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let resp = self.raw(method, path, Some(token), Some(UA), body).await;
        let status = resp.status().as_u16();
        let text = resp.text().await.expect("body");
        let json = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, json)
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::POST, path, Some(&body)).await
    }

    /// A POST without a body (operations the contract gives none).
    pub async fn post_empty(&self, path: &str) -> (u16, Value) {
        self.call(Method::POST, path, None).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::PATCH, path, Some(&body)).await
    }

    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.call(Method::DELETE, path, None).await
    }

    /// The `id`s of a list response, in order.
    pub async fn list_ids(&self, path: &str) -> Vec<String> {
        let (status, body) = self.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
        ids_of(&body)
    }
}

/// Every test that used the fake also proves the fake's own answers stayed on the contract.
impl Drop for Api {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let answers: Vec<_> = self
            .fake
            .contract_violations()
            .into_iter()
            .filter(|v| v.kind == ViolationKind::Answer)
            .collect();
        assert!(
            answers.is_empty(),
            "the fake answered off the contract: {answers:#?}"
        );
    }
}

/// The `id`s in `data` of a list body.
pub fn ids_of(body: &Value) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {body}"))
        .iter()
        .map(|x| x["id"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Asserts a `400 contract_violation` whose violations include `want`; returns them.
pub fn assert_violation(status: u16, body: &Value, want: &str) -> Vec<String> {
    let details = assert_error(status, body, 400, "contract_violation");
    let found: Vec<String> = details["violations"]
        .as_array()
        .unwrap_or_else(|| panic!("no violations: {body}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        found.iter().any(|v| v == want),
        "{want:?} not in {found:#?}"
    );
    found
}

/// Asserts a Kobana error envelope and returns its `details`.
pub fn assert_error(status: u16, body: &Value, want_status: u16, want_code: &str) -> Value {
    assert_eq!(status, want_status, "body: {body}");
    assert_eq!(body["error"]["code"], want_code, "body: {body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "message missing: {body}"
    );
    assert!(
        body["error"].get("details").is_some(),
        "details key missing: {body}"
    );
    body["error"]["details"].clone()
}
