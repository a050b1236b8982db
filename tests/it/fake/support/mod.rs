//! Helpers shared by the `fake_*` tests: a started fake and a small HTTP client around it.

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

use fake_kobana::auth::full_token_in;
use fake_kobana::readings::ScopeWords;
use fake_kobana::{FakeKobana, ViolationKind};
use reqwest::{Method, Response};
use serde_json::Value;

/// The `User-Agent` the tests send.
pub const UA: &str = "Kobana MCP Tests/0.1 <ops@example.com.br>";

/// Sends `request` and answers its JSON body.
pub async fn json_body(request: reqwest::RequestBuilder) -> Value {
    request.send().await.unwrap().json().await.unwrap()
}

/// A running fake plus a client that sends the `User-Agent` and a full token by default.
pub struct Api {
    pub fake: FakeKobana,
    pub http: reqwest::Client,
    pub token: String,
}

impl Api {
    /// A fake of the default profile (`ours`), whatever `KOBANA_FAKE_READINGS` says: these
    /// tests pin the fake's own behaviour; `readings.rs` covers the other profile.
    pub async fn new() -> Api {
        Api::with_fake(FakeKobana::start_with_readings(fake_kobana::Readings::ours()).await)
    }

    /// Around an already started fake.
    pub fn with_fake(fake: FakeKobana) -> Api {
        Api {
            fake,
            http: kobana_mcp::net::client_builder()
                .build()
                .expect("HTTP client"),
            token: full_token_in(ScopeWords::ResourceLevel),
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
        // The document asks `Content-Type: application/json` of every request (WA-3).
        let mut req = self
            .http
            .request(method, self.url(path))
            .header("Content-Type", "application/json");
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

/// Starts the `fake-kobana` binary on an ephemeral port with `env` and reads the first `lines`
/// lines it prints (`base_url=…`, …).
pub async fn start_fake_binary(
    env: &[(&str, &std::path::Path)],
    lines: usize,
) -> (std::process::Child, Vec<String>) {
    use std::io::{BufRead, BufReader};
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_fake-kobana"));
    command
        .args(["--bind", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("spawn fake-kobana");
    let stdout = child.stdout.take().unwrap();
    let printed = tokio::task::spawn_blocking(move || {
        BufReader::new(stdout)
            .lines()
            .take(lines)
            .map(|l| l.unwrap())
            .collect()
    })
    .await
    .unwrap();
    (child, printed)
}

/// What a list must hold.
pub enum Listed<'a> {
    /// Exactly these ids, in this order.
    Exactly(&'a [&'a str]),
    /// These ids, in any order.
    AnyOrder(&'a [&'a str]),
    /// This many rows.
    Count(usize),
}

impl Api {
    /// Asserts what each path lists.
    pub async fn assert_lists(&self, cases: Vec<(String, Listed<'_>)>) {
        for (path, want) in cases {
            let mut got = self.list_ids(&path).await;
            match want {
                Listed::Exactly(ids) => assert_eq!(got, ids, "{path}"),
                Listed::AnyOrder(ids) => {
                    let mut ids = ids.to_vec();
                    ids.sort_unstable();
                    got.sort_unstable();
                    assert_eq!(got, ids, "{path}");
                }
                Listed::Count(n) => assert_eq!(got.len(), n, "{path}"),
            }
        }
    }
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
