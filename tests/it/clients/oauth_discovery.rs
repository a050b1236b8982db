//! A real OAuth discovery from no token (A-3, CL-3).
//!
//! The TypeScript SDK's own OAuth support (v1 `@modelcontextprotocol/sdk` and v2
//! `@modelcontextprotocol/client`, `clients/oauth/discover.mjs`) against the server and a
//! local stand-in authorization server (`oauth2-mock-server` with dynamic registration,
//! `clients/oauth/stand_in.mjs`) that issues JWTs with our claims: 401 → protected-resource
//! metadata → the authorization server's metadata → dynamic client registration → PKCE
//! authorization code with the `resource` indicator → token → `tools/list`.
//!
//! Covered: the path-suffixed metadata URL (named by the challenge) and the root one (a client
//! configured with it); the scope a client asks for by default (the challenge's read scopes;
//! `scopes_supported` has the granular scopes only, no alias); and a client using another URL
//! than `MCP_PUBLIC_URL` getting the RFC 9728 resource mismatch; and (reading
//! `token_issuer`) the flow's token in a `tools/call`: it works where Kobana takes tokens of
//! the authorization server (the fake plays the stand-in as Kobana's app OAuth under
//! `others`) and, where Kobana refuses it, the answer says how to pass a billing API token.

use crate::common;

use std::collections::BTreeSet;
use std::process::Stdio;
use std::time::Duration;

use common::{Stack, clients_dir, json_body, node, output_within, succeeded};
use fake_kobana::readings::TokenIssuer;
use fake_kobana::{FIXTURE_ORG_ID, FakeKobana, Readings, full_token, readonly_token};
use kobana_mcp::{App, Config};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

const RUN_TIMEOUT: Duration = Duration::from_secs(90);
use crate::common::RESOURCES;

/// The stand-in authorization server, the fake Kobana and the MCP server with
/// `MCP_PUBLIC_URL` and `MCP_AUTHORIZATION_SERVERS` pointing at them.
struct Setup {
    issuer: String,
    public_url: String,
    http: reqwest::Client,
    fake: FakeKobana,
    _stand_in: tokio::process::Child,
}

impl Setup {
    async fn start() -> Self {
        Self::start_with(Readings::from_env()).await
    }

    /// The set-up with a fake playing `readings`. The stand-in plays Kobana's app OAuth: a
    /// fake whose `token_issuer` is `kobana_app_oauth` takes tokens signed by its keys.
    async fn start_with(readings: Readings) -> Self {
        let script = clients_dir().join("oauth/stand_in.mjs");
        assert!(
            clients_dir()
                .join("oauth/node_modules/oauth2-mock-server/package.json")
                .is_file()
                && node().is_file(),
            "oauth2-mock-server (clients/oauth) or Node 22 missing: run scripts/setup.sh"
        );
        let mut stand_in = tokio::process::Command::new(node())
            .arg(&script)
            .arg(FIXTURE_ORG_ID)
            .current_dir(clients_dir().join("oauth"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .expect("node starts the stand-in authorization server");
        let mut lines = BufReader::new(stand_in.stdout.take().unwrap()).lines();
        let first = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the stand-in starts in time")
            .unwrap()
            .expect("the stand-in prints its issuer");
        let issuer = serde_json::from_str::<Value>(&first).unwrap()["issuer"]
            .as_str()
            .unwrap()
            .to_owned();
        let fake = FakeKobana::start_with_readings(readings).await;
        let http = kobana_mcp::net::client_builder().build().unwrap();
        let discovery: Value =
            json_body(http.get(format!("{issuer}/.well-known/openid-configuration"))).await;
        let jwks: Value = json_body(http.get(discovery["jwks_uri"].as_str().unwrap())).await;
        assert_eq!(
            fake.trust_app_oauth(&jwks),
            1,
            "the stand-in's RSA key: {jwks}"
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let public_url = format!("http://{}/mcp", listener.local_addr().unwrap());
        // Discovery needs MCP_AUTHORIZATION_SERVERS set: by default none is advertised (RK-5).
        let env = [
            ("KOBANA_API_URL", fake.base_url()),
            ("MCP_PUBLIC_URL", public_url.clone()),
            ("MCP_AUTHORIZATION_SERVERS", issuer.clone()),
        ];
        let config = Config::from_lookup(|name| {
            env.iter().find(|(n, _)| *n == name).map(|(_, v)| v.clone())
        })
        .expect("the configuration reads");
        assert_eq!(config.authorization_servers, std::slice::from_ref(&issuer));
        tokio::spawn(kobana_mcp::serve(App::new(config).unwrap(), listener));
        Self {
            issuer,
            public_url,
            http,
            fake,
            _stand_in: stand_in,
        }
    }

    /// The root metadata URL (`http://host/.well-known/oauth-protected-resource`).
    fn root_metadata_url(&self) -> String {
        self.public_url
            .replace("/mcp", "/.well-known/oauth-protected-resource")
    }

    /// Runs `discover.mjs SDK MODE URL METADATA_URL`; returns its report.
    async fn discover(&self, sdk: &str, mode: &str, url: &str) -> Value {
        self.run(sdk, mode, url, "").await
    }

    /// [`Setup::discover`], then a `tools/call` with the token the flow got.
    async fn discover_and_call(&self, sdk: &str, mode: &str, url: &str) -> Value {
        self.run(sdk, mode, url, "call").await
    }

    async fn run(&self, sdk: &str, mode: &str, url: &str, call: &str) -> Value {
        let metadata = self.root_metadata_url();
        let output = tokio::process::Command::new(node())
            .arg(clients_dir().join("oauth/discover.mjs"))
            .args([sdk, mode, url, &metadata, call])
            .current_dir(clients_dir().join("oauth"))
            .kill_on_drop(true)
            .output();
        let output = output_within(RUN_TIMEOUT, output, "the discovery").await;
        let (stdout, _) = succeeded(&output, &format!("{sdk} {mode}"));
        serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{sdk} {mode} printed no JSON ({e}): {stdout}"))
    }

    /// Every request the stand-in recorded (`register`, `authorize`, `token`), in order.
    async fn recorded(&self) -> Vec<Value> {
        let response = self
            .http
            .get(format!("{}/_requests", self.issuer))
            .send()
            .await
            .unwrap();
        response.json::<Vec<Value>>().await.unwrap()
    }
}

fn scopes(words: &str) -> BTreeSet<String> {
    words.split_whitespace().map(str::to_owned).collect()
}

fn granular(kind: &str) -> BTreeSet<String> {
    RESOURCES.iter().map(|r| format!("{r}:{kind}")).collect()
}

fn path_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    path.split('?').next().unwrap_or(path).to_owned()
}

/// `(method, path, status)` of every HTTP request the client made, in order.
fn steps(report: &Value) -> Vec<(String, String, u64)> {
    report["fetches"]
        .as_array()
        .unwrap_or_else(|| panic!("no fetches: {report}"))
        .iter()
        .map(|f| {
            (
                f["method"].as_str().unwrap().to_owned(),
                path_of(f["url"].as_str().unwrap()),
                f["status"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn names(report: &Value) -> BTreeSet<String> {
    report["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {report}"))
        .iter()
        .map(|t| t.as_str().unwrap().to_owned())
        .collect()
}

async fn reference_tools(token: &str) -> BTreeSet<String> {
    Stack::start()
        .await
        .tool_names(token, &[])
        .await
        .into_iter()
        .collect()
}

/// The authorize and token requests of one run, checked for PKCE, the registered client and
/// the `resource` indicator; returns the scope the client asked for.
fn authorized_scope(recorded: &[Value], public_url: &str) -> BTreeSet<String> {
    let endpoints: Vec<&str> = recorded
        .iter()
        .map(|r| r["endpoint"].as_str().unwrap())
        .collect();
    assert_eq!(
        endpoints,
        ["register", "authorize", "token"],
        "dynamic registration, then the authorization code, then the token: {recorded:?}"
    );
    let (register, authorize, token) = (
        &recorded[0]["body"],
        &recorded[1]["query"],
        &recorded[2]["body"],
    );
    assert!(register["redirect_uris"].is_array(), "{register}");
    assert_eq!(authorize["response_type"], "code");
    assert_eq!(
        authorize["code_challenge_method"], "S256",
        "PKCE: {authorize}"
    );
    assert!(authorize["code_challenge"].is_string(), "{authorize}");
    assert_eq!(authorize["resource"], public_url, "RFC 8707: {authorize}");
    assert!(
        authorize["client_id"]
            .as_str()
            .unwrap()
            .starts_with("client-"),
        "the client registered itself: {authorize}"
    );
    assert_eq!(token["grant_type"], "authorization_code");
    assert_eq!(token["code_verifier"], "<present>", "PKCE: {token}");
    assert_eq!(token["resource"], public_url, "RFC 8707: {token}");
    scopes(authorize["scope"].as_str().unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_from_no_token_a_real_client_discovers_registers_authorizes_and_lists_read_tools() {
    let setup = Setup::start().await;
    let read_only = reference_tools(&readonly_token()).await;
    let everything = reference_tools(&full_token()).await;
    assert!(read_only.len() < everything.len());
    let mut seen = 0;
    for sdk in ["v1", "v2"] {
        let report = setup.discover(sdk, "challenge", &setup.public_url).await;
        assert_eq!(report["ok"], true, "{sdk}: {report}");
        let steps = steps(&report);
        let expected_start = [
            ("POST", "/mcp", 401),
            ("GET", "/.well-known/oauth-protected-resource/mcp", 200),
        ];
        for (i, (method, path, status)) in expected_start.iter().enumerate() {
            assert_eq!(
                (steps[i].0.as_str(), steps[i].1.as_str(), steps[i].2),
                (*method, *path, *status),
                "{sdk}: 401, then the path-suffixed metadata the challenge names: {steps:?}"
            );
        }
        let position = |path: &str, status: u64| {
            steps
                .iter()
                .position(|s| s.1 == path && s.2 == status)
                .unwrap_or_else(|| panic!("{sdk}: no {path} answered {status}: {steps:?}"))
        };
        let as_metadata = position("/.well-known/openid-configuration", 200);
        let register = position("/register", 201);
        let authorize = position("/authorize", 302);
        let token = position("/token", 200);
        assert!(
            as_metadata < register && register < authorize && authorize < token,
            "{sdk}: AS metadata → registration → authorization → token: {steps:?}"
        );
        assert!(
            steps[token..]
                .iter()
                .any(|s| s.0 == "POST" && s.1 == "/mcp" && s.2 == 200),
            "{sdk}: the token opens /mcp: {steps:?}"
        );
        let recorded = setup.recorded().await;
        let asked = authorized_scope(&recorded[seen..], &setup.public_url);
        seen = recorded.len();
        assert_eq!(
            asked,
            granular("read"),
            "{sdk}: by default a client asks for the read scopes the challenge names"
        );
        assert_eq!(
            scopes(report["tokenScope"].as_str().unwrap_or_default()),
            granular("read")
        );
        assert_eq!(
            names(&report),
            read_only,
            "{sdk}: the token's read scopes show exactly the read tools"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_a_client_configured_with_the_root_metadata_url_asks_for_granular_scopes_only() {
    let setup = Setup::start().await;
    let everything = reference_tools(&full_token()).await;
    let published: Value = json_body(setup.http.get(setup.root_metadata_url())).await;
    assert_eq!(published["resource"], setup.public_url, "{published}");
    assert_eq!(published["authorization_servers"][0], setup.issuer);
    let mut all = granular("read");
    all.extend(granular("write"));
    let supported: BTreeSet<String> = published["scopes_supported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        supported, all,
        "granular scopes only, no alias: {published}"
    );
    let mut seen = 0;
    for sdk in ["v1", "v2"] {
        let report = setup.discover(sdk, "root", &setup.public_url).await;
        assert_eq!(report["ok"], true, "{sdk}: {report}");
        let steps = steps(&report);
        assert_eq!(
            (steps[0].1.as_str(), steps[0].2),
            ("/.well-known/oauth-protected-resource", 200),
            "{sdk}: the root metadata URL: {steps:?}"
        );
        let recorded = setup.recorded().await;
        let asked = authorized_scope(&recorded[seen..], &setup.public_url);
        seen = recorded.len();
        assert_eq!(
            asked, all,
            "{sdk}: without the challenge a client asks for scopes_supported, never an alias"
        );
        assert_eq!(
            names(&report),
            everything,
            "{sdk}: write granted on purpose"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a3_a_client_using_another_url_than_the_public_one_gets_the_rfc9728_mismatch() {
    let setup = Setup::start().await;
    let other = setup.public_url.replace("127.0.0.1", "localhost");
    for sdk in ["v1", "v2"] {
        let report = setup.discover(sdk, "challenge", &other).await;
        assert_eq!(report["ok"], false, "{sdk}: {report}");
        let error = report["error"].as_str().unwrap();
        assert!(
            error.contains(&setup.public_url) && error.contains("does not match"),
            "{sdk}: RFC 9728 §3.3, the metadata names another resource: {error}"
        );
        let steps = steps(&report);
        assert!(
            steps.iter().all(|s| s.1 != "/register" && s.1 != "/token"),
            "{sdk}: the client stops before registering: {steps:?}"
        );
    }
    assert!(setup.recorded().await.is_empty());
}

/// Reading `token_issuer`, with `MCP_AUTHORIZATION_SERVERS` set: the OAuth flow ends in a
/// `tools/call` that works where Kobana takes the authorization server's tokens as billing
/// tokens (`kobana_app_oauth`), and where it does not (`billing_jwt`) the call's answer tells
/// the person, in pt-BR, how to pass a billing API token. The server passes the token either
/// way; Kobana decides. Both SDKs: v1 checks a tool error against the tool's output schema
/// after `listTools`, so the explanation reaches its person only because an error result
/// carries no `structuredContent` (CL-7).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rk1_rk5_an_oauth_token_works_where_kobana_takes_it_and_is_explained_where_not() {
    for readings in [Readings::ours(), Readings::others()] {
        let issuer = readings.token_issuer;
        let setup = Setup::start_with(readings).await;
        for sdk in ["v1", "v2"] {
            let organization_reads = || {
                setup
                    .fake
                    .calls()
                    .into_iter()
                    .filter(|c| c.path == "/v1/organization")
                    .map(|c| c.authorized)
                    .collect::<Vec<bool>>()
            };
            let before = organization_reads().len();
            let report = setup
                .discover_and_call(sdk, "challenge", &setup.public_url)
                .await;
            assert_eq!(report["ok"], true, "{sdk} {issuer:?}: {report}");
            let call = &report["call"];
            let sent = organization_reads().split_off(before);
            if issuer == TokenIssuer::KobanaAppOauth {
                assert_eq!(call["isError"], false, "{sdk} {issuer:?}: {call}");
                assert_eq!(call["organizationId"], FIXTURE_ORG_ID, "{sdk}: {call}");
                assert_eq!(sent, [true], "{sdk}: Kobana took the token");
            } else {
                assert_eq!(call["isError"], true, "{sdk} {issuer:?}: {call}");
                let text = call["text"].as_str().unwrap_or_default();
                for needle in [
                    "O Kobana recusou o token",
                    "token de API do Faturamento Automático",
                    "`Authorization: Bearer <token>`",
                ] {
                    assert!(text.contains(needle), "{sdk}: {needle}: {text}");
                }
                assert_eq!(
                    sent,
                    [false],
                    "{sdk}: the server passed it on; Kobana refused it"
                );
            }
        }
    }
}
