//! One grammar for origins (BW-5): `scheme://host[:digits]`, an empty setting
//! meaning none, and a check that is rmcp 3.11's own or stricter, so the two never disagree.
//!
//! Replayed: the template's empty `AllowedOrigins` must refuse every browser origin;
//! `http://127.0.0.1:80@evil`, `http://localhost:abc` and `http://[::1]evil:1` used to get
//! CORS from the front and a 403 from rmcp. The property test drives rmcp's real
//! `StreamableHttpService` beside `kobana_mcp::config::origin`: whenever the front admits an
//! origin, rmcp does too.

use crate::common;

use std::sync::Arc;

use common::Stack;
use fake_kobana::full_token;
use kobana_mcp::Config;
use kobana_mcp::config::origin::{AllowedOrigin, origin_allowed};
use proptest::prelude::*;
use proptest::sample::select;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

const N8_ORIGINS: [&str; 3] = [
    "http://127.0.0.1:80@evil",
    "http://localhost:abc",
    "http://[::1]evil:1",
];

/// A handler that serves nothing: only rmcp's gate is under test.
#[derive(Clone)]
struct Nothing;

impl rmcp::ServerHandler for Nothing {}

/// rmcp's own service with `allowed` as its origin list, enforced as the front configures it.
fn rmcp_with(allowed: &[String]) -> StreamableHttpService<Nothing, NeverSessionManager> {
    let mut config = StreamableHttpServerConfig::default();
    config.legacy_session_mode = false;
    let config = config
        .disable_allowed_hosts()
        .with_allowed_origins(allowed.to_vec())
        .enforce_origin_validation();
    StreamableHttpService::new(
        || Ok(Nothing),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Whether rmcp lets a request with this `Origin` past its gate (403 means refused; a GET
/// that passes gets 405 from the stateless service).
async fn rmcp_admits(
    service: &StreamableHttpService<Nothing, NeverSessionManager>,
    origin: &http::HeaderValue,
) -> bool {
    let request = http::Request::builder()
        .method("GET")
        .uri("/mcp")
        .header("host", "localhost")
        .header("origin", origin)
        .body(String::new())
        .unwrap();
    let status = service.handle(request).await.status();
    assert!(status == 403 || status == 405, "rmcp answered {status}");
    status == 405
}

/// The lists the comparison runs under, each as an operator writes it and as the front hands
/// it to rmcp (ports spelled).
fn lists() -> Vec<Vec<String>> {
    let written: Vec<Vec<String>> = vec![
        kobana_mcp::config::loopback_origins(),
        vec!["https://app.example.com".into()],
        vec![
            "http://localhost:6274".into(),
            "https://APP.example.com:8443".into(),
        ],
        vec!["http://[::1]:*".into(), "http://127.0.0.1:80".into()],
    ];
    let for_rmcp = written.iter().map(|list| {
        list.iter()
            .map(|e| AllowedOrigin::parse(e).expect("a valid entry").for_rmcp())
            .collect()
    });
    let mut all = written.clone();
    all.extend(for_rmcp);
    all
}

fn origin_text() -> impl Strategy<Value = String> {
    let schemes = || select(vec!["http", "https", "HTTP", "Https", "ftp", "", "http:"]);
    let seps = select(vec!["://", ":/", "//", "", ":///"]);
    let hosts = || {
        select(vec![
            "localhost",
            "127.0.0.1",
            "[::1]",
            "app.example.com",
            "APP.example.com",
            "evil",
            "localhost.evil",
            "[::1]evil",
            "127.0.0.1:80@evil",
            "user@localhost",
            "[0::1]",
            "",
            "[",
            "loc%61lhost",
            "127.1",
            "xn--80ak6aa92e.com",
            "a..b",
            "-x-",
            "[::ffff:127.0.0.1]",
        ])
    };
    let tails = || {
        select(vec![
            "", ":80", ":443", ":8443", ":6274", ":5173", ":abc", ":", ":99999", ":0080", ":65535",
            ":65536", "@evil", "evil:1", "/", "/path", "?q", "#f", " ", ":80:80", ":*", ":1 ",
        ])
    };
    let junk = || {
        let pieces = select(vec![
            "@", ":", "[", "]", "/", "?", "#", "%", "\"", " ", "1", "a", ".",
        ]);
        prop_oneof![
            2 => Just(Vec::new()),
            1 => proptest::collection::vec(pieces, 1..3),
        ]
    };
    // Mostly well-formed starts (a real scheme and separator), so many origins are admitted
    // and rmcp is asked; then anything goes.
    let near = (select(vec!["http", "https"]), hosts(), tails(), junk())
        .prop_map(|(a, c, d, e)| format!("{a}://{c}{d}{}", e.concat()));
    let built = (schemes(), seps, hosts(), tails(), junk())
        .prop_map(|(a, b, c, d, e)| format!("{a}{b}{c}{d}{}", e.concat()));
    prop_oneof![4 => near, 2 => built, 1 => "[ -~]{0,32}"]
}

#[test]
fn n8_whatever_the_front_admits_rmcp_admits_too() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let services: Vec<_> = lists().into_iter().map(|l| (rmcp_with(&l), l)).collect();
    let admitted = std::cell::Cell::new(0usize);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(3000));
    runner
        .run(&origin_text(), |origin| {
            let Ok(value) = http::HeaderValue::from_str(&origin) else {
                return Ok(()); // not a header value: no request can carry it
            };
            for (service, list) in &services {
                if origin_allowed(list, &origin) {
                    admitted.set(admitted.get() + 1);
                    let rmcp = runtime.block_on(rmcp_admits(service, &value));
                    prop_assert!(
                        rmcp,
                        "the front admits {origin:?} under {list:?}, rmcp does not"
                    );
                }
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "the front admitted {} generated (origin, list) pairs",
        admitted.get()
    );
    assert!(
        admitted.get() > 30,
        "the generator reaches admitted origins"
    );
}

#[test]
fn n8_the_two_checks_agree_on_this_table() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let loopback = kobana_mcp::config::loopback_origins();
    let app = vec!["https://app.example.com".to_owned()];
    // (list, origin, front admits, rmcp admits)
    let table: Vec<(&[String], &str, bool, bool)> = vec![
        (&loopback, "http://localhost:6274", true, true),
        (&loopback, "http://127.0.0.1", true, true),
        (&loopback, "http://[::1]:8080", true, true),
        (&loopback, "HTTP://LOCALHOST:1", true, true),
        (&app, "https://app.example.com", true, true),
        (&app, "https://app.example.com:443", true, true),
        // rmcp 3.11 reads a portless entry as any port; the front, as the default port only.
        (&app, "https://app.example.com:8443", false, true),
        // Outside the grammar: refused by the front whatever rmcp makes of it.
        (&loopback, "http://127.0.0.1:80@evil", false, false),
        // rmcp 3.11 reads no port out of `:abc`, and only `[::1]` out of `[::1]evil:1`, and
        // lets `:*` admit both: the front's grammar is the stricter one here.
        (&loopback, "http://localhost:abc", false, true),
        (&loopback, "http://[::1]evil:1", false, true),
        (&loopback, "http://localhost/", false, true),
        (&loopback, "https://localhost", false, false),
        (&loopback, "null", false, false),
    ];
    let mut wrong = Vec::new();
    for (list, origin, front, rmcp) in table {
        let service = rmcp_with(list);
        let value = http::HeaderValue::from_str(origin).unwrap();
        let seen = (
            origin_allowed(list, origin),
            runtime.block_on(rmcp_admits(&service, &value)),
        );
        if seen != (front, rmcp) {
            wrong.push(format!("{origin}: (front, rmcp) = {seen:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

fn has_cors(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .keys()
        .any(|k| k.as_str().starts_with("access-control-"))
}

async fn preflight(stack: &Stack, origin: &str) -> reqwest::Response {
    stack
        .http
        .request(reqwest::Method::OPTIONS, &stack.url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap()
}

async fn post(stack: &Stack, origin: &str) -> reqwest::Response {
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let headers = [("mcp-protocol-version", "2025-11-25"), ("origin", origin)];
    stack.post_raw(ping, Some(&full_token()), &headers).await
}

/// Preflight and request from `origin` both refused: 403 and no CORS header.
async fn assert_refused(stack: &Stack, origin: &str) {
    let response = preflight(stack, origin).await;
    assert_eq!(response.status().as_u16(), 403, "preflight from {origin}");
    assert!(
        !has_cors(response.headers()),
        "{origin}: {:?}",
        response.headers()
    );
    let response = post(stack, origin).await;
    assert_eq!(response.status().as_u16(), 403, "request from {origin}");
    assert!(
        !has_cors(response.headers()),
        "{origin}: {:?}",
        response.headers()
    );
}

#[tokio::test]
async fn n8_origins_outside_the_grammar_get_no_cors_and_403() {
    let stack = Stack::start().await;
    for origin in N8_ORIGINS {
        assert_refused(&stack, origin).await;
    }
    // The same server still grants a well-formed loopback origin.
    let response = preflight(&stack, "http://localhost:6274").await;
    assert_eq!(response.status().as_u16(), 204);
    assert_eq!(
        response.headers()["access-control-allow-origin"],
        "http://localhost:6274"
    );
    assert_eq!(
        post(&stack, "http://localhost:6274")
            .await
            .status()
            .as_u16(),
        200
    );
}

#[tokio::test]
async fn n7_the_templates_empty_allowed_origins_refuses_every_browser_origin() {
    let default = crate::common::template_default("AllowedOrigins");
    assert_eq!(default, "", "the template's default");
    let config =
        Config::from_lookup(|name| (name == "MCP_ALLOWED_ORIGINS").then(|| default.to_owned()))
            .unwrap();
    assert!(
        config.allowed_origins.is_empty(),
        "{:?}",
        config.allowed_origins
    );
    let stack = Stack::start_with(move |c| c.allowed_origins = config.allowed_origins).await;
    for origin in [
        "http://localhost:6274",
        "http://127.0.0.1:5173",
        "http://[::1]:8080",
    ] {
        assert_refused(&stack, origin).await;
    }
    let (status, _) = stack
        .legacy(&full_token(), "ping", serde_json::json!({}))
        .await;
    assert_eq!(status, 200, "a client that sends no Origin is served");
}

#[test]
fn n7_an_origin_entry_outside_the_grammar_stops_the_server_at_start() {
    for bad in N8_ORIGINS.iter().chain(&["null", "https://*.example.com"]) {
        let error = Config::from_lookup(|name| {
            (name == "MCP_ALLOWED_ORIGINS").then(|| format!("http://localhost:*,{bad}"))
        })
        .unwrap_err()
        .to_string();
        assert!(error.contains("MCP_ALLOWED_ORIGINS"), "{error}");
    }
    let config = Config {
        allowed_origins: vec!["http://localhost:abc".into()],
        ..Config::default()
    };
    assert!(
        kobana_mcp::App::new(config).is_err(),
        "the app refuses it too"
    );
}
