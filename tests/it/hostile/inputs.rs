//! Hostile input corpus: several hundred malformed and adversarial requests over raw HTTP
//! against the in-process server and the fake Kobana — bad JSON, wrong JSON-RPC shapes,
//! wrong types in every params position, huge strings and arrays, deep nesting, unicode
//! tricks in ids and URIs, path traversal in `{id}`, header mismatches in both eras, batch
//! abuse, wrong `_meta`, oversized bodies, foreign `Origin` and `Host`.
//!
//! Every case names the exact answer it must get (HTTP status, JSON-RPC code and echoed
//! `id`, or a tool error). Across the whole corpus the server must never panic, must always
//! answer, and must never send Kobana a path whose id is not a valid id (nor a query with an
//! injected key). A failing test lists every case that got the wrong answer.

use crate::common;
use fake_kobana::fixtures::ids::UNKNOWN;

use common::Stack;
use fake_kobana::full_token;
use kobana_mcp::Config;
use serde_json::json;

use crate::hostile::support::argument_corpus::*;
use crate::hostile::support::cases::*;
use crate::hostile::support::header_corpus::*;
use crate::hostile::support::protocol_corpus::*;
use crate::hostile::support::runner::*;

#[test]
fn the_corpus_has_more_than_five_hundred_cases() {
    let id_tools: Vec<String> = (0..22).map(|i| format!("tool{i}")).collect();
    let total = parse_errors().len()
        + invalid_envelopes().len()
        + wrong_param_types().len()
        + hostile_tool_arguments(&id_tools).len()
        + hostile_uri_cases().len()
        + header_abuse(1).len()
        + odd_ids().len()
        + integral_float_ids().len()
        + notifications().len()
        + oversized(1024).len()
        + over_the_scan().len();
    eprintln!("hostile corpus: {total} requests (22 id-taking tools)");
    assert!(total > 500, "{total}");
}

/// LH-2: the corpora are data (`tests/fixtures/hostile/*.json`): each file says what it
/// holds, each group why, and every group has its entries; every name a case may use
/// (`${NAME}`, an `@` form, a header change, an answer) is one the loader knows, or loading
/// the corpus above panics.
#[test]
fn lh2_every_hostile_corpus_group_is_data_with_its_why() {
    use crate::hostile::support::corpus::file;
    for name in ["arguments", "headers", "protocol"] {
        let data = file(name);
        let groups = data.as_object().expect("groups");
        assert!(
            groups["_about"].is_string(),
            "{name}.json says what it holds"
        );
        for (group, body) in groups.iter().filter(|(g, _)| *g != "_about") {
            let why = body["why"].as_str().unwrap_or_default();
            assert!(why.len() > 20, "{name}.json {group}: a why");
            let entries: usize = ["cases", "accepted", "refused"]
                .iter()
                .filter_map(|key| body[key].as_array().map(Vec::len))
                .sum();
            assert!(entries > 0, "{name}.json {group}: entries");
        }
    }
}

#[tokio::test]
async fn bodies_that_are_not_json_are_parse_errors_with_a_null_id() {
    let stack = Stack::start().await;
    let cases = parse_errors();
    assert!(cases.len() >= 45, "{}", cases.len());
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    assert!(stack.fake.calls().is_empty(), "nothing reaches Kobana");
}

#[tokio::test]
async fn hd1_bodies_past_the_byte_scan_are_refused_unread() {
    let stack = Stack::start().await;
    let cases = over_the_scan();
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    assert!(stack.fake.calls().is_empty(), "nothing reaches Kobana");
}

#[tokio::test]
async fn json_that_is_not_one_json_rpc_message_is_invalid_request_and_batches_are_refused() {
    let stack = Stack::start().await;
    let cases = invalid_envelopes();
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    assert!(stack.fake.calls().is_empty(), "nothing reaches Kobana");
}

#[tokio::test]
async fn wrong_types_in_params_are_invalid_params_echoing_the_id() {
    let stack = Stack::start().await;
    let cases = wrong_param_types();
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    assert!(
        stack.fake.calls().is_empty(),
        "nothing reaches Kobana: {:?}",
        stack.fake.calls()
    );
}

#[tokio::test]
async fn hostile_tool_arguments_are_tool_errors_and_never_reach_kobana() {
    let stack = Stack::start().await;
    let tools = id_tools(&stack).await;
    assert!(tools.len() >= 20, "tools that take an id: {tools:?}");
    let cases = hostile_tool_arguments(&tools);
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    let calls = stack.fake.calls();
    assert!(
        calls.is_empty(),
        "{} hostile calls reached Kobana, first: {:?}",
        calls.len(),
        calls.first()
    );
}

#[tokio::test]
async fn hostile_resource_uris_are_not_found_in_both_eras_with_the_uri() {
    let stack = Stack::start().await;
    let cases = hostile_uri_cases();
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
    // The only call that may reach Kobana is the well-formed UUID that does not exist.
    for call in stack.fake.calls() {
        assert_eq!(call.path, format!("/v1/invoices/{UNKNOWN}"), "{call:?}");
    }
}

#[tokio::test]
async fn header_mismatches_wrong_meta_and_foreign_host_or_origin_get_the_right_refusal() {
    let stack = Stack::start().await;
    let port: u16 = stack
        .url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let cases = header_abuse(port);
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
}

#[tokio::test]
async fn odd_json_rpc_ids_are_echoed_exactly() {
    let stack = Stack::start().await;
    let mut cases = odd_ids();
    cases.extend(integral_float_ids());
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
}

#[tokio::test]
async fn notifications_are_accepted_with_202_and_responses_refused_with_400() {
    let stack = Stack::start().await;
    let cases = notifications();
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
}

#[tokio::test]
async fn bodies_over_the_limit_are_413_before_parsing() {
    let limit = kobana_mcp::config::DEFAULT_MAX_BODY_BYTES;
    let stack = Stack::start().await;
    let cases = oversized(limit);
    let problems = run(&stack, &cases).await;
    assert!(problems.is_empty(), "{}", report(&problems, cases.len()));
}

#[tokio::test]
async fn a_chunked_body_over_the_limit_is_413_too() {
    let stack = Stack::start_with(|c| c.max_body_bytes = 64 * 1024).await;
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..40)
        .map(|i| {
            Ok(if i == 0 {
                br#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#.to_vec()
            } else {
                vec![b'x'; 4096]
            })
        })
        .collect();
    let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
    let response = stack
        .post_raw(
            body,
            Some(&full_token()),
            &[("mcp-protocol-version", LEGACY)],
        )
        .await;
    assert_eq!(response.status().as_u16(), 413);
    let (_, body) = common::read(response).await;
    assert_eq!(body["error"]["code"], INVALID_REQUEST, "{body}");
}

// ---------------------------------------------------------------------------------------
// Origin and Host (DNS rebinding).

async fn origin_status(stack: &Stack, origin: &str) -> u16 {
    let body = legacy(json!(1), "ping", json!({}));
    stack
        .post_raw(
            body,
            Some(&full_token()),
            &[("mcp-protocol-version", LEGACY), ("origin", origin)],
        )
        .await
        .status()
        .as_u16()
}

#[tokio::test]
async fn configured_origins_are_allowed_and_every_other_origin_is_403() {
    let stack = Stack::start_with(|c| {
        c.allowed_origins = vec![
            "https://app.example.com".to_owned(),
            "http://localhost:6274".to_owned(),
        ]
    })
    .await;
    assert_eq!(origin_status(&stack, "https://app.example.com").await, 200);
    assert_eq!(origin_status(&stack, "https://APP.example.com").await, 200);
    assert_eq!(origin_status(&stack, "http://localhost:6274").await, 200);
    for foreign in [
        "https://evil.example.com",
        "http://app.example.com",
        "https://app.example.com.evil.example.com",
        "https://evilapp.example.com",
        "http://localhost:6275",
        "null",
        "https://app.example.com@evil.example.com",
    ] {
        assert_eq!(origin_status(&stack, foreign).await, 403, "{foreign}");
    }
    // Without an Origin (a non-browser client) the request passes.
    let (status, _) = stack.legacy(&full_token(), "ping", json!({})).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn mcp_allowed_origins_from_the_environment_reaches_the_origin_check() {
    let config = Config::from_lookup(|name| {
        (name == "MCP_ALLOWED_ORIGINS")
            .then(|| " https://one.example.com , https://two.example.com ".to_owned())
    })
    .unwrap();
    assert_eq!(
        config.allowed_origins,
        ["https://one.example.com", "https://two.example.com"]
    );
    let origins = config.allowed_origins.clone();
    let stack = Stack::start_with(move |c| c.allowed_origins = origins).await;
    assert_eq!(origin_status(&stack, "https://two.example.com").await, 200);
    assert_eq!(
        origin_status(&stack, "https://three.example.com").await,
        403
    );
}

#[tokio::test]
async fn the_default_list_admits_only_pages_served_from_loopback() {
    let stack = Stack::start().await;
    for origin in [
        "http://localhost:6274",
        "http://127.0.0.1:5173",
        "http://[::1]:8080",
    ] {
        assert_eq!(origin_status(&stack, origin).await, 200, "{origin}");
    }
    for origin in [
        "https://evil.example.com",
        "http://localhost.evil.example.com",
        "http://127.0.0.1.nip.io",
        "https://localhost",
        "null",
        "https://claude.ai",
    ] {
        assert_eq!(origin_status(&stack, origin).await, 403, "{origin}");
    }
}

#[tokio::test]
async fn an_empty_allowed_list_refuses_every_browser_origin() {
    let stack = Stack::start_with(|c| c.allowed_origins.clear()).await;
    for origin in ["http://127.0.0.1:5173", "http://localhost", "null"] {
        assert_eq!(origin_status(&stack, origin).await, 403, "{origin}");
    }
    let (status, _) = stack.legacy(&full_token(), "ping", json!({})).await;
    assert_eq!(status, 200, "no Origin, no browser: served");
}

#[tokio::test]
async fn a_foreign_origin_without_a_token_is_still_challenged_first() {
    // §12 gate order: authentication, then Origin — a 401 is never era or origin evidence.
    let stack = Stack::start().await;
    let response = stack
        .post_raw(
            legacy(json!(1), "ping", json!({})),
            None,
            &[("origin", "https://evil.example.com")],
        )
        .await;
    assert_eq!(response.status().as_u16(), 401);
}

#[tokio::test]
async fn loopback_serving_checks_host_and_an_empty_list_turns_the_check_off() {
    let stack = Stack::start().await;
    let port = stack
        .url
        .split(':')
        .nth(2)
        .unwrap()
        .trim_end_matches("/mcp");
    let ping = || legacy(json!(1), "ping", json!({}));
    for (host, expected) in [
        (format!("127.0.0.1:{port}"), 200),
        (format!("localhost:{port}"), 200),
        ("evil.example.com".to_owned(), 403),
        (format!("attacker.example:{port}"), 403),
    ] {
        let response = stack
            .post_raw(
                ping(),
                Some(&full_token()),
                &[("mcp-protocol-version", LEGACY), ("host", &host)],
            )
            .await;
        assert_eq!(response.status().as_u16(), expected, "{host}");
    }
    // Behind API Gateway the host is fixed upstream: an empty list accepts any Host.
    let open = Stack::start_with(|c| c.allowed_hosts.clear()).await;
    let response = open
        .post_raw(
            ping(),
            Some(&full_token()),
            &[
                ("mcp-protocol-version", LEGACY),
                ("host", "abc123.execute-api.us-east-1.amazonaws.com"),
            ],
        )
        .await;
    assert_eq!(response.status().as_u16(), 200);
    // A configured public host is accepted and others are not.
    let public = Stack::start_with(|c| c.allowed_hosts = vec!["mcp.example.com".to_owned()]).await;
    for (host, expected) in [("mcp.example.com", 200), ("evil.example.com", 403)] {
        let response = public
            .post_raw(
                ping(),
                Some(&full_token()),
                &[("mcp-protocol-version", LEGACY), ("host", host)],
            )
            .await;
        assert_eq!(response.status().as_u16(), expected, "{host}");
    }
}

#[tokio::test]
async fn get_and_delete_with_a_foreign_origin_are_refused() {
    let stack = Stack::start().await;
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        assert_eq!(
            stack
                .bodiless_status(method.clone(), ("origin", "https://evil.example.com"))
                .await,
            403,
            "{method}"
        );
    }
}
