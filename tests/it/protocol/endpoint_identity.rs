//! The endpoint's identity is never taken from what the client controls (BW-4), and
//! by default no authorization server is advertised while the 401 says how to pass a billing
//! API token (RK-5). The local server; the Lambda side is in `lambda::identity`.
//!
//! Replayed: `Host: evil.example` and `X-Forwarded-Proto` trying to change the metadata's
//! `resource` and the challenge's `resource_metadata`; `Host: evil", x="y` trying to add a
//! parameter to `WWW-Authenticate`; the metadata's cache headers.

use crate::common;

use common::{Stack, read};
use serde_json::{Value, json};

/// The port of the stack's endpoint (`http://127.0.0.1:PORT/mcp`).
fn port(stack: &Stack) -> String {
    stack
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .to_owned()
}

fn metadata_url(stack: &Stack) -> String {
    stack
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
}

/// An `initialize` with no token and the given extra headers.
async fn no_token(stack: &Stack, extra: &[(&str, &str)]) -> reqwest::Response {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    stack.post_raw(body.to_string(), None, extra).await
}

async fn metadata(stack: &Stack, extra: &[(&str, &str)]) -> reqwest::Response {
    let mut request = stack.http.get(metadata_url(stack));
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

fn challenge(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .unwrap_or_else(|| panic!("no challenge: {:?}", response.headers()))
        .to_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn n3_a_foreign_host_gets_403_before_the_challenge_and_the_metadata() {
    let stack = Stack::start().await;
    for host in ["evil.example", "evil\", x=\"y", "localhost:1\", x=\"y"] {
        let response = no_token(&stack, &[("host", host)]).await;
        assert_eq!(response.status().as_u16(), 403, "{host}");
        assert!(
            response.headers().get("www-authenticate").is_none(),
            "{host}"
        );
        let response = metadata(&stack, &[("host", host)]).await;
        assert_eq!(response.status().as_u16(), 403, "{host}: metadata");
        let (_, body) = read(response).await;
        assert!(!body.to_string().contains("evil"), "{body}");
    }
}

#[tokio::test]
async fn n3_forwarded_proto_cannot_change_the_resource() {
    let stack = Stack::start().await;
    let forwarded = [
        ("x-forwarded-proto", "https"),
        ("x-forwarded-host", "evil.example"),
    ];
    let response = metadata(&stack, &forwarded).await;
    assert_eq!(response.status().as_u16(), 200);
    let (_, body) = read(response).await;
    assert_eq!(body["resource"], stack.url, "{body}");
    let response = no_token(&stack, &forwarded).await;
    assert_eq!(response.status().as_u16(), 401);
    let value = challenge(&response);
    let expected = format!("resource_metadata=\"{}\"", metadata_url(&stack));
    assert!(value.contains(&expected), "{value}");
}

#[tokio::test]
async fn n3_an_unchecked_host_names_nothing_and_cannot_add_a_parameter() {
    // MCP_ALLOWED_HOSTS=* locally: the Host is the client's word, so nothing is built on it.
    let stack = Stack::start_with(|c| c.allowed_hosts.clear()).await;
    let response = no_token(&stack, &[("host", "evil\", x=\"y")]).await;
    assert_eq!(response.status().as_u16(), 401);
    let value = challenge(&response);
    assert!(value.starts_with("Bearer scope=\""), "{value}");
    assert!(!value.contains("x=") && !value.contains("evil"), "{value}");
    assert!(!value.contains("resource_metadata"), "{value}");
    let response = metadata(&stack, &[("host", "evil.example")]).await;
    assert_eq!(response.status().as_u16(), 500);
    assert_eq!(response.headers()["cache-control"], "no-store");
    let (_, body) = read(response).await;
    assert!(
        body["message"].as_str().unwrap().contains("MCP_PUBLIC_URL"),
        "{body}"
    );
    assert!(!body.to_string().contains("evil"), "{body}");
}

#[tokio::test]
async fn n3_a_public_url_wins_over_any_host_and_needs_no_vary() {
    let public = "https://mcp.example.com/mcp";
    let stack = Stack::start_with(|c| {
        c.allowed_hosts.clear();
        c.public_url = Some(public.to_owned());
    })
    .await;
    let response = metadata(&stack, &[("host", "evil.example")]).await;
    assert_eq!(response.headers()["cache-control"], "public, max-age=3600");
    assert!(
        response.headers().get("vary").is_none(),
        "{:?}",
        response.headers()
    );
    let (_, body) = read(response).await;
    assert_eq!(body["resource"], public);
    let value = challenge(&no_token(&stack, &[("host", "evil.example")]).await);
    assert!(
        value.starts_with(
            "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        ),
        "{value}"
    );
}

#[tokio::test]
async fn n3_metadata_built_from_the_host_varies_on_it() {
    let stack = Stack::start().await;
    for host in [
        format!("127.0.0.1:{}", port(&stack)),
        format!("localhost:{}", port(&stack)),
    ] {
        let response = metadata(&stack, &[("host", &host)]).await;
        assert_eq!(response.status().as_u16(), 200);
        let headers = response.headers().clone();
        assert_eq!(headers["cache-control"], "public, max-age=3600");
        let vary: Vec<&str> = headers
            .get_all("vary")
            .iter()
            .map(|v| v.to_str().unwrap())
            .collect();
        assert!(
            vary.iter().any(|v| v.eq_ignore_ascii_case("host")),
            "{vary:?}"
        );
        let (_, body) = read(response).await;
        assert_eq!(body["resource"], format!("http://{host}/mcp"));
    }
}

#[tokio::test]
async fn rk5_by_default_no_authorization_server_and_the_401_says_how_to_pass_a_token() {
    let stack = Stack::start().await;
    let (_, published) = read(metadata(&stack, &[]).await).await;
    assert!(
        published.get("authorization_servers").is_none(),
        "an authorization server that cannot issue the token is never advertised: {published}"
    );
    let response = no_token(&stack, &[]).await;
    assert_eq!(response.status().as_u16(), 401);
    let (_, body) = read(response).await;
    let help = &body["how_to_authenticate"];
    assert_eq!(help["header"], "Authorization: Bearer <token>", "{body}");
    let pt = help["pt-BR"].as_str().unwrap();
    let en = help["en"].as_str().unwrap();
    for (text, words) in [
        (
            pt,
            [
                "Authorization: Bearer <token>",
                "Faturamento Automático",
                "sandbox",
                "produção",
            ],
        ),
        (
            en,
            [
                "Authorization: Bearer <token>",
                "Automatic Billing",
                "sandbox",
                "production",
            ],
        ),
    ] {
        for word in words {
            let found = text.to_lowercase().contains(&word.to_lowercase());
            assert!(found, "{word:?} missing from {text}");
        }
    }
    assert_eq!(help["kobana_api_url"], stack.fake.base_url());
}

#[tokio::test]
async fn rk5_configured_authorization_servers_are_published() {
    let servers = ["https://auth.example.com", "https://auth2.example.com"];
    let stack =
        Stack::start_with(|c| c.authorization_servers = servers.map(str::to_owned).to_vec()).await;
    let (_, published): (u16, Value) = read(metadata(&stack, &[]).await).await;
    assert_eq!(published["authorization_servers"], json!(servers));
}
