//! The token front's flow over plain HTTP, as a host's backend and a person's browser would
//! drive it: register, open the page, paste a token, confirm, follow the redirect, redeem the
//! code. Shared by the in-process tests (`flow.rs`) and the two-binary one
//! (`instances.rs`).

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

mod front;

pub use front::{Front, Issued};

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// moto's endpoint (`AWS_ENDPOINT_URL_DYNAMODB`; the same server answers Secrets Manager).
pub fn moto() -> String {
    std::env::var("AWS_ENDPOINT_URL_DYNAMODB")
        .expect("AWS_ENDPOINT_URL_DYNAMODB (moto) is not set: run through scripts/test.sh")
}

/// Creates a secret holding `value` in moto's Secrets Manager with boto3 (the `.venv`'s
/// Python, `KOBANA_MCP_PYTHON`); answers its ARN.
pub fn create_secret(python: &std::path::Path, value: &str) -> String {
    let name = format!("kobana-mcp-front-{}", &Pkce::new().verifier[..12]);
    let output = std::process::Command::new(python)
        .args([
            "-c",
            "import boto3,sys; c=boto3.client('secretsmanager',endpoint_url=sys.argv[1],region_name='us-east-1'); print(c.create_secret(Name=sys.argv[2],SecretString=sys.argv[3])['ARN'])",
            &moto(),
            &name,
            value,
        ])
        .output()
        .expect("python with boto3 (the .venv) runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// The access token of a token response, checked to be the front's own (TF-1): sealed
/// (`kmt1.`), with no part of the billing token `token` in it, and a life in `expires_in`.
#[track_caller]
pub fn sealed_access(answer: &Value, token: &str) -> String {
    let access = answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no access token: {answer}"));
    assert!(
        access.starts_with("kmt1."),
        "the front's own token: {answer}"
    );
    for part in token.split('.') {
        assert!(
            !access.contains(part),
            "a part of the billing token shows: {answer}"
        );
    }
    assert!(
        answer["expires_in"].as_i64().is_some_and(|s| s > 0),
        "{answer}"
    );
    access.to_owned()
}

/// The loopback redirect URI the tests register (nothing listens there: the redirect is read,
/// not followed).
pub const REDIRECT: &str = "http://127.0.0.1:8976/oauth/callback";

/// A PKCE pair.
#[derive(Debug, Clone)]
pub struct Pkce {
    /// The verifier the client keeps.
    pub verifier: String,
    /// Its S256 challenge.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair.
    pub fn new() -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let seed = format!(
            "{:?}-{}",
            std::time::SystemTime::now(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let verifier = URL_SAFE_NO_PAD.encode(Sha256::digest(seed.as_bytes()));
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Self {
            verifier,
            challenge,
        }
    }
}

/// One HTTP answer, read whole.
#[derive(Debug)]
pub struct Page {
    /// HTTP status.
    pub status: u16,
    /// Its headers.
    pub headers: reqwest::header::HeaderMap,
    /// Its body as text.
    pub body: String,
}

impl Page {
    /// A header as text (empty when absent).
    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    /// The sealed form token of the page's form.
    pub fn form(&self) -> String {
        let marker = "name=\"form\" value=\"";
        let start = self
            .body
            .find(marker)
            .unwrap_or_else(|| panic!("no form on the page ({}): {}", self.status, self.body))
            + marker.len();
        let end = self.body[start..].find('"').unwrap() + start;
        self.body[start..end].to_owned()
    }

    /// The query parameters of the `Location` this answer redirects to.
    pub fn redirect_params(&self) -> HashMap<String, String> {
        assert_eq!(self.status, 303, "a redirect: {}", self.body);
        let location = reqwest::Url::parse(self.header("location")).expect("a Location URL");
        location.query_pairs().into_owned().collect()
    }
}

/// `application/x-www-form-urlencoded` text of `fields`.
pub fn encoded(fields: &[(&str, &str)]) -> String {
    let mut url = reqwest::Url::parse("http://x/").unwrap();
    {
        let mut query = url.query_pairs_mut();
        for (name, value) in fields {
            query.append_pair(name, value);
        }
    }
    url.query().unwrap_or_default().to_owned()
}

/// `fields` with each of `overrides` in place of the field of its name (an empty value leaves
/// the field out).
fn overridden<'a>(
    mut fields: Vec<(&'a str, &'a str)>,
    overrides: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    for (name, value) in overrides {
        fields.retain(|(n, _)| n != name);
        if !value.is_empty() {
            fields.push((name, value));
        }
    }
    fields
}

/// The flow against one server.
#[derive(Debug, Clone)]
pub struct Flow {
    /// A client that never follows redirects.
    pub http: reqwest::Client,
    /// The issuer: `http://127.0.0.1:PORT` (the MCP endpoint is `{base}/mcp`).
    pub base: String,
}

impl Flow {
    /// The flow against the server whose MCP endpoint is `mcp_url`.
    pub fn new(mcp_url: &str) -> Self {
        Self {
            http: kobana_mcp::net::client_builder().build().unwrap(),
            base: mcp_url.trim_end_matches("/mcp").to_owned(),
        }
    }

    async fn read(response: reqwest::Response) -> Page {
        Page {
            status: response.status().as_u16(),
            headers: response.headers().clone(),
            body: response.text().await.unwrap_or_default(),
        }
    }

    /// `GET {base}{path}`.
    pub async fn get(&self, path: &str) -> Page {
        Self::read(
            self.http
                .get(format!("{}{path}", self.base))
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    /// A form post of `fields` to `{base}{path}`, with `extra` headers.
    pub async fn post_form(
        &self,
        path: &str,
        fields: &[(&str, &str)],
        extra: &[(&str, &str)],
    ) -> Page {
        let mut request = self
            .http
            .post(format!("{}{path}", self.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encoded(fields));
        for (name, value) in extra {
            request = request.header(*name, *value);
        }
        Self::read(request.send().await.unwrap()).await
    }

    /// Registers a client with `redirect_uris`; answers the registration's JSON.
    pub async fn register_with(&self, document: &Value) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/oauth/register", self.base))
            .header("content-type", "application/json")
            .body(document.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Registers a client redirecting to [`REDIRECT`]; answers its `client_id`.
    pub async fn register(&self) -> String {
        let (status, answer) = self
            .register_with(&json!({
                "client_name": "Teste do front",
                "redirect_uris": [REDIRECT],
                "token_endpoint_auth_method": "none",
            }))
            .await;
        assert_eq!(status, 201, "{answer}");
        answer["client_id"].as_str().unwrap().to_owned()
    }

    /// The authorization page for `client_id`, `redirect_uri`, `pkce` and `state`.
    pub async fn authorize(
        &self,
        client_id: &str,
        redirect_uri: &str,
        pkce: &Pkce,
        state: &str,
    ) -> Page {
        self.authorize_with(
            client_id,
            pkce,
            &[("redirect_uri", redirect_uri), ("state", state)],
        )
        .await
    }

    /// The authorization request of a client redirecting to [`REDIRECT`] with `pkce` and
    /// state `s`, `overrides` replacing its parameters (an empty value leaves one out).
    pub async fn authorize_with(
        &self,
        client_id: &str,
        pkce: &Pkce,
        overrides: &[(&str, &str)],
    ) -> Page {
        let resource = format!("{}/mcp", self.base);
        let fields = overridden(
            vec![
                ("response_type", "code"),
                ("client_id", client_id),
                ("redirect_uri", REDIRECT),
                ("code_challenge", &pkce.challenge),
                ("code_challenge_method", "S256"),
                ("state", "s"),
                ("resource", &resource),
            ],
            overrides,
        );
        self.get(&format!("/oauth/authorize?{}", encoded(&fields)))
            .await
    }

    /// Pastes `token` into the page's form; answers the next page.
    pub async fn paste(&self, page: &Page, token: &str) -> Page {
        let form = page.form();
        self.post_form(
            "/oauth/authorize",
            &[("form", &form), ("token", token), ("action", "check")],
            &[],
        )
        .await
    }

    /// Presses `action` on the confirmation page; "allow" with full access chosen (see
    /// [`Flow::allow`] for another choice).
    pub async fn press(&self, page: &Page, action: &str) -> Page {
        let access = (action == "allow").then_some("full");
        self.submit(page, action, access).await
    }

    /// Presses "Conectar" with `access` chosen (`None`: no choice made).
    pub async fn allow(&self, page: &Page, access: Option<&str>) -> Page {
        self.submit(page, "allow", access).await
    }

    async fn submit(&self, page: &Page, action: &str, access: Option<&str>) -> Page {
        let form = page.form();
        let mut fields = vec![("form", form.as_str()), ("action", action)];
        fields.extend(access.map(|a| ("access", a)));
        self.post_form("/oauth/authorize", &fields, &[]).await
    }

    /// The whole page part for `token`: answers the redirect's parameters (`code`, `state`, `iss`).
    pub async fn code_for(
        &self,
        client_id: &str,
        pkce: &Pkce,
        state: &str,
        token: &str,
    ) -> HashMap<String, String> {
        let page = self.authorize(client_id, REDIRECT, pkce, state).await;
        assert_eq!(page.status, 200, "{}", page.body);
        let confirm = self.paste(&page, token).await;
        assert!(
            confirm.body.contains("Confirme a organização"),
            "{}",
            confirm.body
        );
        self.press(&confirm, "allow").await.redirect_params()
    }

    /// Redeems `code` with `fields` overriding the usual ones; answers status and JSON.
    pub async fn exchange(
        &self,
        code: &str,
        client_id: &str,
        verifier: &str,
        overrides: &[(&str, &str)],
    ) -> (u16, Value) {
        self.exchange_with_headers(code, client_id, verifier, overrides, &[])
            .await
    }

    /// [`Flow::exchange`] with `headers` added to the token request.
    pub async fn exchange_with_headers(
        &self,
        code: &str,
        client_id: &str,
        verifier: &str,
        overrides: &[(&str, &str)],
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let fields = overridden(
            vec![
                ("grant_type", "authorization_code"),
                ("code", code),
                ("client_id", client_id),
                ("redirect_uri", REDIRECT),
                ("code_verifier", verifier),
            ],
            overrides,
        );
        let page = self.post_form("/oauth/token", &fields, headers).await;
        (
            page.status,
            serde_json::from_str(&page.body).unwrap_or(Value::Null),
        )
    }

    /// [`Flow::exchange`] that must be refused with 400 and no token; answers the error code.
    pub async fn refused(
        &self,
        code: &str,
        client_id: &str,
        verifier: &str,
        overrides: &[(&str, &str)],
    ) -> String {
        let (status, answer) = self.exchange(code, client_id, verifier, overrides).await;
        assert_eq!(status, 400, "{overrides:?}: {answer}");
        assert!(answer.get("access_token").is_none(), "{answer}");
        answer["error"].as_str().unwrap_or_default().to_owned()
    }
}
