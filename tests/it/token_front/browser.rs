//! The token front from no token to a `tools/call` (HT-1, TF-1): the official
//! TypeScript SDK's OAuth client (v2 and v1) and headless Chromium playing the person,
//! driven by `clients/browser/token_front.mjs`, from the URL `docs/clients.md` tells a person
//! to enter in Claude's or ChatGPT's connector form (its `connector` snippet). Three runs — dynamic registration with each
//! SDK, and a client ID metadata document — each paste a token Kobana rejects first, then the
//! real one, read the organization, choose the access (full in the two registrations, read
//! with the metadata document) and press "Conectar". Each run ends with the access token it
//! got: the front's own (sealed, never the billing token), which lists and runs no write when
//! read was chosen, and which Kobana itself refuses. Then a page on another loopback
//! origin frames the authorization page (refused) and, as a control, the resource metadata
//! (shown). The server runs on its own thread with its logs captured at TRACE for every
//! crate; no token, code or refused token reaches them.

use crate::common;

use std::time::Duration;

use common::thread_server::{LogBuffer, ThreadServer};
use common::{assert_browser_ready, chromium, clients_dir, node, output_within, succeeded};
use fake_kobana::{FIXTURE_ORG_ID, FakeKobana, full_token};
use kobana_mcp::Config;
use kobana_mcp::telemetry::logging::{json_subscriber, log_filter};
use serde_json::Value;

const RUN_TIMEOUT: Duration = Duration::from_secs(150);
/// A well-formed JWT the fake Kobana does not know (it answers 401).
const REJECTED: &str =
    "eyJhbGciOiJIUzUxMiJ9.eyJzdWIiOiJ4In0.cmVqZWN0ZWQtYnkta29iYW5hLXNpZ25hdHVyZQ";

async fn drive(url: &str, token: &str, kobana: &str) -> Value {
    let driver = clients_dir().join("browser/token_front.mjs");
    assert_browser_ready(&driver);
    let output = tokio::process::Command::new(node())
        .arg(&driver)
        .args([url, token, REJECTED])
        .arg(chromium())
        .arg(kobana)
        .current_dir(clients_dir().join("browser"))
        .kill_on_drop(true)
        .output();
    let output = output_within(RUN_TIMEOUT, output, "the token front run").await;
    let (stdout, stderr) = succeeded(&output, "token front run");
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the driver printed no JSON ({e}): {stdout:.1000}\n{stderr}"))
}

/// `(method, path, status)` of the SDK's requests.
fn steps(run: &Value) -> Vec<(String, String, u64)> {
    run["fetches"]
        .as_array()
        .unwrap_or_else(|| panic!("no fetches: {run}"))
        .iter()
        .map(|f| {
            let url = reqwest::Url::parse(f["url"].as_str().unwrap()).unwrap();
            (
                f["method"].as_str().unwrap().to_owned(),
                url.path().to_owned(),
                f["status"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn check_run(name: &str, run: &Value, token: &str, base: &str) {
    assert_eq!(run["ok"], true, "{name}: {run}");
    let access = run["accessToken"].as_str().unwrap_or_default();
    assert!(
        access.starts_with("kmt1."),
        "{name}: the front's own token: {run}"
    );
    for part in token.split('.') {
        assert!(!access.contains(part), "{name}: the billing token shows");
    }
    assert!(
        run["expiresIn"].as_i64().is_some_and(|s| s > 0),
        "{name}: {run}"
    );
    assert_eq!(run["refreshToken"], Value::Null, "{name}: no refresh token");
    assert_eq!(
        run["kobanaStatus"], 401,
        "{name}: Kobana refuses the access token"
    );
    let tools: Vec<&str> = run["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}: no tools: {run}"))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let write = "billing_customers_create";
    if run["access"] == "read" {
        assert!(
            !tools.contains(&write),
            "{name}: a read token lists no write: {tools:?}"
        );
        let refused = run["writeError"].as_str().unwrap_or_default();
        assert!(
            refused.contains("-32602"),
            "{name}: the write is refused: {run}"
        );
    } else {
        assert!(
            tools.contains(&write),
            "{name}: full access lists writes: {tools:?}"
        );
        assert_eq!(run["writeError"], Value::Null, "{name}: {run}");
    }
    let returns = run["returnsTo"].as_str().unwrap_or_default();
    assert!(
        returns.starts_with("http://127.0.0.1:"),
        "{name}: {returns}"
    );
    assert_eq!(
        run["stateBack"], run["stateSent"],
        "{name}: state unchanged"
    );
    assert_eq!(run["iss"], base, "{name}: RFC 9207 iss");
    let refusal = run["refusal"].as_str().unwrap();
    assert!(
        refusal.contains("O Kobana recusou este token"),
        "{name}: {refusal}"
    );
    let organization = run["organization"].as_str().unwrap();
    assert!(
        organization.contains("Acme Software Ltda") && organization.contains("11.222.333/0001-81"),
        "{name}: {organization}"
    );
    let csp = run["csp"].as_str().unwrap();
    assert!(
        csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"),
        "{name}: {csp}"
    );
    assert_eq!(run["xFrameOptions"], "DENY", "{name}");
    assert!(
        run["landed"].as_str().unwrap().contains("/callback?"),
        "{name}: {run}"
    );
    assert_eq!(run["toolIsError"], false, "{name}: {run}");
    assert!(
        run["toolText"].as_str().unwrap().contains(FIXTURE_ORG_ID),
        "{name}: {run}"
    );
    check_steps(name, run);
}

/// The requests the browser made: the 401, the discovery, the token, registration unless
/// the client has a metadata document (CIMD), and the token opening `/mcp`.
fn check_steps(name: &str, run: &Value) {
    let steps = steps(run);
    let has = |method: &str, path: &str, status: u64| {
        steps
            .iter()
            .any(|s| s.0 == method && s.1 == path && s.2 == status)
    };
    assert!(has("POST", "/mcp", 401), "{name}: {steps:?}");
    assert!(
        has("GET", "/.well-known/oauth-protected-resource/mcp", 200),
        "{name}: {steps:?}"
    );
    assert!(
        has("GET", "/.well-known/oauth-authorization-server", 200),
        "{name}: {steps:?}"
    );
    assert!(has("POST", "/oauth/token", 200), "{name}: {steps:?}");
    assert!(
        has("POST", "/mcp", 200),
        "{name}: the token opens /mcp: {steps:?}"
    );
    let registered = has("POST", "/oauth/register", 201);
    assert_eq!(registered, !name.ends_with("cimd"), "{name}: {steps:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ht1_from_no_token_to_a_tool_call_with_the_sdk_and_chromium_and_nothing_in_the_logs() {
    let fake = FakeKobana::start().await;
    let mut config = Config {
        kobana_api_url: fake.base_url(),
        kobana_timeout: Duration::from_secs(10),
        ..Config::default()
    };
    config.token_front.enabled = true;
    config.token_front.loopback_client_metadata = true;
    let buffer = LogBuffer::default();
    let writer = buffer.clone();
    let subscriber = json_subscriber(log_filter(Some("trace")), move || writer.clone());
    let mut server = ThreadServer::start(config, tracing::Dispatch::new(subscriber), || {
        tracing::info!("capture-canary-tf");
    });
    let token = full_token();
    // The URL a person enters in Claude's or ChatGPT's connector form, as docs/clients.md
    // writes it, with this server's in the example's place.
    let url = common::clients_snippet("connector", &server.url());
    assert_eq!(
        url.trim(),
        server.url(),
        "the connector block is the MCP URL alone"
    );
    let report = drive(url.trim(), &token, &fake.base_url()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.stop();
    let base = server.url().trim_end_matches("/mcp").to_owned();
    let runs = &report["runs"];
    for name in ["v2-dcr", "v1-dcr", "v2-cimd"] {
        check_run(name, &runs[name], &token, &base);
    }
    assert!(
        runs["v2-cimd"]["clientId"]
            .as_str()
            .unwrap()
            .ends_with("/client.json"),
        "the client id is its metadata document's URL: {}",
        runs["v2-cimd"]
    );

    check_framing(&report);
    check_logs(&buffer.text(), &token, runs);
}

/// The authorization page never renders inside another origin's page; the control does.
fn check_framing(report: &Value) {
    let framing = &report["framing"];
    assert!(
        framing["pageOrigin"]
            .as_str()
            .unwrap()
            .starts_with("http://localhost:"),
        "{framing}"
    );
    let frames = framing["frames"].as_array().unwrap();
    let frame = |name: &str| {
        frames
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("no frame {name}: {framing}"))
    };
    assert_eq!(
        frame("front")["tokenInput"],
        false,
        "the page must not render framed: {framing}"
    );
    assert!(
        !frame("front")["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Token de API"),
        "{framing}"
    );
    assert!(
        frame("control")["text"]
            .as_str()
            .unwrap()
            .contains("resource"),
        "the control frame renders: {framing}"
    );
    let console = report["console"].to_string();
    assert!(
        console.contains("frame-ancestors"),
        "Chromium says why: {console}"
    );
}

/// No token (nor any segment of one), refused token or code reaches any log line.
fn check_logs(log: &str, token: &str, runs: &Value) {
    assert!(log.contains("capture-canary-tf"), "the capture works");
    assert!(
        log.contains("token front: code issued"),
        "the front logs its steps: {log:.2000}"
    );
    let mut secrets = common::token_traces(token);
    secrets.extend(common::token_traces(REJECTED));
    assert!(
        secrets.len() >= 6,
        "both tokens' header, payload and signature: {secrets:?}"
    );
    for name in ["v2-dcr", "v1-dcr", "v2-cimd"] {
        for key in ["code", "accessToken"] {
            secrets.push(runs[name][key].as_str().unwrap().to_owned());
        }
    }
    for secret in &secrets {
        assert!(
            !log.contains(secret.as_str()),
            "a secret in the logs: {:.40}…",
            secret
        );
    }
}
