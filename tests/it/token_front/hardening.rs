//! Hardening the token front (HD-2, HD-3, HD-4), over plain HTTP against the in-process
//! server: the front's own sealed access token and the person's consent (TF-1), a confirmation
//! form used once, no open redirect (TF-2), cues that cannot be spoofed (TF-3), client metadata
//! documents cached (TF-4), loopback redirects on any port (TF-7), the consent stated as scopes
//! (TF-8) and metadata that varies as the endpoint's name does (TF-9). The browser half of TF-1
//! (the TypeScript SDK and Chromium, ending in a read token and a token Kobana refuses) is
//! `browser.rs`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fake_kobana::full_token;
use kobana_mcp::confirm::MemoryStore;
use serde_json::{Value, json};

use crate::common::Stack;
use crate::token_front::support::{Front, Pkce, REDIRECT, sealed_access};

/// A registered client's code for `token` with `access` chosen, redeemed: the token answer.
async fn token_answer(front: &Front, token: &str, access: &str) -> Value {
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    let page = flow.authorize(&client_id, REDIRECT, &pkce, "s").await;
    let confirm = flow.paste(&page, token).await;
    let back = flow.allow(&confirm, Some(access)).await.redirect_params();
    let (status, answer) = flow
        .exchange(&back["code"], &client_id, &pkce.verifier, &[])
        .await;
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn tool_set(stack: &Stack, token: &str) -> BTreeSet<String> {
    stack.tool_names(token, &[]).await.into_iter().collect()
}

#[tokio::test]
async fn tf1_hd2_a_read_consent_lists_and_runs_no_write_whatever_the_billing_token_allows() {
    let front = Front::start().await;
    let token = full_token();
    let read = token_answer(&front, &token, "read").await;
    let full = token_answer(&front, &token, "full").await;
    let (read, full) = (sealed_access(&read, &token), sealed_access(&full, &token));
    let (read_tools, full_tools) = (
        tool_set(&front.stack, &read).await,
        tool_set(&front.stack, &full).await,
    );
    let writes: Vec<&String> = full_tools.difference(&read_tools).collect();
    assert!(
        writes.len() >= 10,
        "full access lists the writes: {writes:?}"
    );
    assert!(read_tools.is_subset(&full_tools) && !read_tools.is_empty());
    assert_eq!(
        full_tools,
        tool_set(&front.stack, &token).await,
        "full access is what the billing token allows"
    );
    let before = front.stack.fake.calls().len();
    for tool in &writes {
        let (status, answer) = front
            .stack
            .legacy(&read, "tools/call", json!({"name": tool, "arguments": {}}))
            .await;
        assert_eq!(
            (status, &answer["error"]["code"]),
            (200, &json!(-32602)),
            "{tool}: {answer}"
        );
    }
    assert_eq!(
        front.stack.fake.calls().len(),
        before,
        "no write reached Kobana"
    );
    assert_eq!(
        front.person_behind(&read).await.as_deref(),
        Some("person-ana"),
        "the read token opens to the billing token"
    );
}

#[tokio::test]
async fn tf1_hd2_kobana_refuses_the_sealed_token_and_a_foreign_or_expired_one_gets_invalid_token() {
    let front = Front::start().await;
    let token = full_token();
    let access = sealed_access(&token_answer(&front, &token, "full").await, &token);
    // Sent to Kobana itself, the sealed token is no billing token.
    let kobana = kobana_mcp::net::client_builder().build().unwrap();
    let refused = kobana
        .get(format!("{}/v1/organization", front.stack.fake.base_url()))
        .bearer_auth(&access)
        .header("user-agent", "a host that kept the token")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401, "Kobana refuses it");
    // A server without the front passes it through, and Kobana refuses it there too.
    let plain = Stack::start().await;
    let result = plain
        .call(&access, "billing_organization_get", json!({}))
        .await;
    assert_eq!(result["isError"], true, "{result}");
    let calls = plain.kobana_calls("/v1/");
    assert!(
        !calls.is_empty() && calls.iter().all(|c| !c.authorized),
        "{calls:?}"
    );
    // Another front's key (a rotated key) opens nothing: 401 invalid_token, the host reconnects.
    let other = Front::start().await;
    let (status, headers) = challenge(&other, &access).await;
    assert_eq!(status, 401);
    assert!(headers.contains("error=\"invalid_token\""), "{headers}");
    // Altered by one character, it opens nothing either.
    let mut altered = access.clone().into_bytes();
    let at = altered.len() - 5;
    altered[at] = if altered[at] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    assert_eq!(challenge(&front, &altered).await.0, 401);
    // Its life is what the token response said.
    assert_eq!(challenge(&front, &access).await.0, 200);
    front.advance(30 * 24 * 3600);
    let (status, headers) = challenge(&front, &access).await;
    assert_eq!(status, 401, "a month later");
    assert!(headers.contains("error=\"invalid_token\""), "{headers}");
}

/// `tools/list` with `token` on the front's `/mcp`: the status and the `WWW-Authenticate`.
async fn challenge(front: &Front, token: &str) -> (u16, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).to_string();
    let headers = [("mcp-protocol-version", "2025-11-25")];
    let response = front.stack.post_raw(body, Some(token), &headers).await;
    let challenge = response
        .headers()
        .get("www-authenticate")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (response.status().as_u16(), challenge)
}

#[tokio::test]
async fn tf1_hd2_the_confirmation_form_gives_one_code_and_asks_for_a_choice_first() {
    let front = Front::start().await;
    let flow = &front.flow;
    let (_client, page) = front.open().await;
    let confirm = flow.paste(&page, &full_token()).await;
    for value in ["read", "full"] {
        assert!(
            confirm
                .body
                .contains(&format!("name=\"access\" value=\"{value}\" required")),
            "{}",
            confirm.body
        );
    }
    assert!(
        !confirm.body.contains("checked"),
        "no choice is made for the person"
    );
    for access in [None, Some("everything")] {
        let unchosen = flow.allow(&confirm, access).await;
        assert_eq!(unchosen.status, 200, "{access:?}");
        assert!(
            unchosen.header("location").is_empty(),
            "{access:?}: no code"
        );
        assert!(
            unchosen
                .body
                .contains("Escolha o que o aplicativo pode fazer")
        );
    }
    let first = flow.allow(&confirm, Some("read")).await;
    assert_eq!(first.status, 303, "{}", first.body);
    for again in ["read", "full"] {
        let second = flow.allow(&confirm, Some(again)).await;
        assert_eq!(second.status, 409, "{again}: {}", second.body);
        assert!(second.header("location").is_empty(), "no second code");
        assert!(second.body.contains("já foi enviado"), "{}", second.body);
    }
}

#[tokio::test]
async fn tf2_hd3_registration_takes_an_allowlist_of_redirect_schemes() {
    let front = Front::start().await;
    for refused in [
        "ms-msdt:/id PCWDiagnostic",
        "ms-msdt:?id=x",
        "search-ms:query=x",
        "evilapp://claude.ai/cb",
        "myapp:/cb",
        "file:///tmp/x",
        "ws://127.0.0.1/cb",
        "https://user@claude.ai/cb",
    ] {
        let (status, answer) = front
            .flow
            .register_with(&json!({"redirect_uris": [refused]}))
            .await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some("invalid_redirect_uri")),
            "{refused}: {answer}"
        );
    }
    for taken in [
        "https://claude.ai/api/mcp/auth_callback",
        "http://localhost:33418/",
        "com.example.app:/oauth/callback",
        "cursor://anysphere.cursor-retrieval/oauth/user-kobana/callback",
        "vscode://vscode.github-authentication/did-authenticate",
    ] {
        let (status, answer) = front
            .flow
            .register_with(&json!({"redirect_uris": [taken]}))
            .await;
        assert_eq!(status, 201, "{taken}: {answer}");
    }
}

#[tokio::test]
async fn tf3_hd3_the_page_shows_the_scheme_and_host_as_registered_and_a_clean_name() {
    let front = Front::start().await;
    let flow = &front.flow;
    let look_alike = "com.example.app://claude.ai/cb";
    let (status, answer) = flow
        .register_with(&json!({
            "client_name": "Claude\u{202E}ppa\u{200B} oficial\u{7}",
            "redirect_uris": [look_alike],
        }))
        .await;
    assert_eq!(status, 201, "{answer}");
    assert_eq!(answer["client_name"], "Claudeppa oficial", "{answer}");
    let client_id = answer["client_id"].as_str().unwrap();
    let page = flow
        .authorize(client_id, look_alike, &Pkce::new(), "s")
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body
            .contains("<strong id=\"returns-to\">com.example.app://claude.ai</strong>")
            && page
                .body
                .contains("um aplicativo instalado neste computador"),
        "{}",
        page.body
    );
    for hidden in ['\u{202E}', '\u{200B}', '\u{7}'] {
        assert!(!page.body.contains(hidden), "{hidden:?} on the page");
    }
    // A client ID metadata document: the page names the host that publishes it.
    let (docs, _hits) = documents().await;
    let document = flow
        .authorize(&format!("{docs}/kept.json"), REDIRECT, &Pkce::new(), "s")
        .await;
    assert!(
        document
            .body
            .contains("publicado em <strong id=\"client-host\">127.0.0.1</strong>"),
        "{}",
        document.body
    );
}

/// A loopback server of client ID metadata documents, each with its own `Cache-Control`;
/// counts the requests per path.
async fn documents() -> (String, Arc<[AtomicUsize; 2]>) {
    use axum::response::IntoResponse;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
    let (b, h) = (base.clone(), hits.clone());
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let (base, hits) = (b.clone(), h.clone());
        async move {
            let (index, cache) = match uri.path() {
                "/kept.json" => (0, "public, max-age=600"),
                "/fresh.json" => (1, "no-store"),
                _ => return axum::http::StatusCode::NOT_FOUND.into_response(),
            };
            hits[index].fetch_add(1, Ordering::SeqCst);
            let document = json!({"client_id": format!("{base}{}", uri.path()),
                "client_name": "Documento", "redirect_uris": [REDIRECT]});
            ([("cache-control", cache)], document.to_string()).into_response()
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, hits)
}

#[tokio::test]
async fn tf4_hd4_a_metadata_document_is_fetched_once_while_its_cache_headers_allow() {
    let (docs, hits) = documents().await;
    let front = Front::start().await;
    for _ in 0..3 {
        for name in ["kept", "fresh"] {
            let page = front
                .flow
                .authorize(&format!("{docs}/{name}.json"), REDIRECT, &Pkce::new(), "s")
                .await;
            assert_eq!(page.status, 200, "{name}: {}", page.body);
        }
    }
    assert_eq!(
        hits[0].load(Ordering::SeqCst),
        1,
        "max-age=600: kept (five minutes at most)"
    );
    assert_eq!(
        hits[1].load(Ordering::SeqCst),
        3,
        "no-store: fetched each time"
    );
    let other = Front::start_with(Arc::new(MemoryStore::new()), true).await;
    let page = other
        .flow
        .authorize(&format!("{docs}/kept.json"), REDIRECT, &Pkce::new(), "s")
        .await;
    assert_eq!(page.status, 200);
    assert_eq!(hits[0].load(Ordering::SeqCst), 2, "per instance");
}

#[tokio::test]
async fn tf7_hd3_a_loopback_redirect_takes_the_port_the_native_app_picked() {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let picked = "http://127.0.0.1:51234/oauth/callback";
    let pkce = Pkce::new();
    let page = flow.authorize(&client_id, picked, &pkce, "s").await;
    assert_eq!(page.status, 200, "{}", page.body);
    let confirm = flow.paste(&page, &full_token()).await;
    let allowed = flow.allow(&confirm, Some("full")).await;
    assert!(
        allowed.header("location").starts_with(picked),
        "{}",
        allowed.header("location")
    );
    let code = allowed.redirect_params()["code"].clone();
    let redeemed = [("redirect_uri", picked)];
    let (status, answer) = flow
        .exchange(&code, &client_id, &pkce.verifier, &redeemed)
        .await;
    assert_eq!(status, 200, "{answer}");
    for other in [
        "http://127.0.0.1:51234/oauth/other",
        "http://localhost:51234/oauth/callback",
    ] {
        let page = flow.authorize(&client_id, other, &Pkce::new(), "s").await;
        assert_eq!(page.status, 400, "{other}");
    }
    assert_eq!(
        REDIRECT, "http://127.0.0.1:8976/oauth/callback",
        "registered on 8976"
    );
}

#[tokio::test]
async fn tf8_tf9_the_token_states_its_consent_and_the_metadata_varies_on_the_host() {
    let front = Front::start().await;
    let token = full_token();
    let read = token_answer(&front, &token, "read").await;
    let scope = read["scope"].as_str().unwrap();
    assert!(
        scope.contains("invoices:read") && !scope.contains(":write"),
        "{read}"
    );
    let metadata = front
        .flow
        .get("/.well-known/oauth-authorization-server")
        .await;
    assert_eq!(metadata.status, 200);
    assert!(metadata.header("cache-control").contains("max-age"));
    assert_eq!(
        metadata.header("vary"),
        "Host",
        "named from the checked Host"
    );
}

/// TF-4: API Gateway throttles the whole stage, and the token front's tokenless routes lower,
/// each limit a parameter with its documented default.
#[test]
fn tf4_hd4_the_template_throttles_the_stage_and_the_token_front_lower() {
    use crate::common::{TEMPLATE as lines, template_at as at};
    let default =
        |parameter: &str| -> u32 { crate::common::template_default(parameter).parse().unwrap() };
    let (rate, burst) = (default("ThrottleRateLimit"), default("ThrottleBurstLimit"));
    let (front_rate, front_burst) = (
        default("TokenFrontRateLimit"),
        default("TokenFrontBurstLimit"),
    );
    assert!(front_rate < rate && front_burst < burst && rate <= burst);
    let settings = at("MethodSettings:");
    assert_eq!(
        lines[settings + 1..settings + 9],
        [
            "- ResourcePath: \"/*\"",
            "HttpMethod: \"*\"",
            "ThrottlingRateLimit: !Ref ThrottleRateLimit",
            "ThrottlingBurstLimit: !Ref ThrottleBurstLimit",
            "- ResourcePath: \"/~1oauth~1{proxy+}\"",
            "HttpMethod: \"*\"",
            "ThrottlingRateLimit: !Ref TokenFrontRateLimit",
            "ThrottlingBurstLimit: !Ref TokenFrontBurstLimit",
        ]
    );
    let docs = std::fs::read_to_string(crate::common::root().join("docs/deploy.md")).unwrap();
    for parameter in [
        "ThrottleRateLimit",
        "ThrottleBurstLimit",
        "TokenFrontRateLimit",
        "TokenFrontBurstLimit",
        "put-function-concurrency",
    ] {
        assert!(docs.contains(parameter), "docs/deploy.md names {parameter}");
    }
}
