//! Under Lambda the endpoint's identity comes from API Gateway's request context, never from
//! `Host` or `X-Forwarded-Proto` (BW-4): the real `kobana-mcp` binary under the
//! Runtime API emulator, fed REST API (payload 1.0) and HTTP API (payload 2.0) events, with
//! none of our `MCP_*` variables set (a deployment made without our template).
//!
//! Needs the binary built first: `cargo build -p kobana-mcp`, or `KOBANA_MCP_BIN`.

use crate::lambda::support::runtime_api::HttpReply;
use crate::lambda::support::{Harness, event};
use serde_json::{Value, json};

const DOMAIN: &str = "abc123defg.execute-api.us-east-1.amazonaws.com";
const HTTP_API_DOMAIN: &str = "k7q2w9x1z3.execute-api.sa-east-1.amazonaws.com";

/// `event` with the client's `Host` and `X-Forwarded-Proto` replaced (both header forms).
fn forged(mut event: Value, host: &str) -> Value {
    for (name, value) in [("Host", host), ("X-Forwarded-Proto", "http")] {
        event["headers"][name] = json!(value);
        event["multiValueHeaders"][name] = json!([value]);
    }
    event
}

/// An HTTP API (payload 2.0) event for `GET|POST path` on stage `$default` or a named one.
fn http_api(method: &str, path: &str, stage: &str, host: &str) -> Value {
    let raw_path = match stage {
        "$default" => path.to_owned(),
        named => format!("/{named}{path}"),
    };
    json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": raw_path,
        "rawQueryString": "",
        "headers": {
            "accept": "application/json, text/event-stream",
            "content-type": "application/json",
            "host": host,
            "x-forwarded-proto": "http",
            "mcp-protocol-version": "2025-11-25"
        },
        "requestContext": {
            "accountId": "123456789012", "apiId": "k7q2w9x1z3",
            "domainName": HTTP_API_DOMAIN, "domainPrefix": "k7q2w9x1z3",
            "http": {"method": method, "path": raw_path, "protocol": "HTTP/1.1",
                     "sourceIp": "203.0.113.10", "userAgent": "mcp-client/1.0"},
            "requestId": "JKJaXmPLvHcESHA=", "routeKey": "$default", "stage": stage,
            "time": "30/Nov/2026:12:00:00 +0000", "timeEpoch": 1796040000000i64
        },
        "body": if method == "POST" {
            json!(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#)
        } else {
            Value::Null
        },
        "isBase64Encoded": false
    })
}

fn resource_metadata(reply: &HttpReply) -> String {
    assert_eq!(
        reply.status,
        401,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    let challenge = reply.header("www-authenticate").expect("a challenge");
    let start = challenge
        .find("resource_metadata=\"")
        .expect("resource_metadata")
        + 19;
    let end = challenge[start..].find('"').unwrap() + start;
    assert!(!challenge.contains("evil"), "{challenge}");
    challenge[start..end].to_owned()
}

fn assert_varies_on_host(reply: &HttpReply) {
    assert_eq!(reply.header("cache-control"), Some("public, max-age=3600"));
    let vary = reply
        .header("vary")
        .unwrap_or_default()
        .to_ascii_lowercase();
    assert!(vary.contains("host"), "Vary: {vary:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n3_a_rest_api_event_names_the_gateway_domain_whatever_host_says() {
    let mut harness = Harness::start_bare(&[]).await;
    let reply = harness
        .invoke(&forged(event("no-token"), "evil.example"))
        .await
        .http();
    assert_eq!(
        resource_metadata(&reply),
        format!("https://{DOMAIN}/Prod/.well-known/oauth-protected-resource/mcp")
    );
    let metadata = forged(event("well-known-protected-resource"), "evil.example");
    let reply = harness.invoke(&metadata).await.http();
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.json()["resource"],
        format!("https://{DOMAIN}/Prod/mcp")
    );
    assert!(
        reply.json().get("authorization_servers").is_none(),
        "no authorization server by default: {}",
        reply.json()
    );
    assert_varies_on_host(&reply);
    assert!(harness.fake.calls().is_empty(), "nothing reached Kobana");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n3_a_custom_domain_without_public_url_names_itself_from_the_context() {
    // An empty base path mapping: the context path carries no stage.
    let mut harness = Harness::start_bare(&[]).await;
    let mut metadata = forged(event("well-known-protected-resource"), "evil.example");
    metadata["requestContext"]["domainName"] = json!("mcp.example.com");
    metadata["requestContext"]["path"] = json!("/.well-known/oauth-protected-resource/mcp");
    let reply = harness.invoke(&metadata).await.http();
    assert_eq!(reply.json()["resource"], "https://mcp.example.com/mcp");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n3_an_http_api_event_names_the_gateway_domain_whatever_host_says() {
    let mut harness = Harness::start_bare(&[]).await;
    for (stage, prefix) in [("$default", ""), ("live", "/live")] {
        let no_token = http_api("POST", "/mcp", stage, "evil.example");
        let reply = harness.invoke(&no_token).await.http();
        assert_eq!(
            resource_metadata(&reply),
            format!("https://{HTTP_API_DOMAIN}{prefix}/.well-known/oauth-protected-resource/mcp"),
            "stage {stage}"
        );
        let path = "/.well-known/oauth-protected-resource/mcp";
        let reply = harness
            .invoke(&http_api("GET", path, stage, "evil.example"))
            .await
            .http();
        assert_eq!(
            reply.json()["resource"],
            format!("https://{HTTP_API_DOMAIN}{prefix}/mcp"),
            "stage {stage}"
        );
        assert_varies_on_host(&reply);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn n3_a_public_url_still_wins_under_lambda() {
    let public = "https://mcp.example.com/mcp";
    // As the template sets it up (`MCP_ALLOWED_HOSTS=*`), with a custom domain's URL.
    let mut harness = Harness::start(&[("MCP_PUBLIC_URL", public)]).await;
    let metadata = forged(event("well-known-protected-resource"), "evil.example");
    let reply = harness.invoke(&metadata).await.http();
    assert_eq!(reply.json()["resource"], public);
    assert_eq!(reply.header("vary"), None, "a fixed URL needs no Vary");
}
