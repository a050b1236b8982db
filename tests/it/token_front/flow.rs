//! The token front (HT-1) over plain HTTP: off by default (its paths are 404s, the
//! protected-resource metadata unchanged); on, its metadata, registration, the page and the
//! code exchange, and every refusal the issue names — a wrong redirect URI, a missing or wrong
//! PKCE verifier, a reused code, an expired code (the clock is injected), a token Kobana
//! rejects — plus plain PKCE, forged or expired forms, posts from another site, client ID
//! metadata documents that do not hold, and single use through DynamoDB (moto).
//!
//! The browser half (the official TypeScript SDK's OAuth client, headless Chromium, framing,
//! the log scan) is `browser.rs`; two instances sharing a Secrets Manager key are
//! `instances.rs`.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::token_front::support::{Flow, Front, Pkce, REDIRECT};
use common::Stack;
use fake_kobana::{full_token, scoped_token};
use kobana_mcp::confirm::MemoryStore;
use serde_json::{Value, json};

const FRONT_PATHS: [&str; 7] = [
    "/Prod/.well-known/openid-configuration",
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/oauth/authorize",
    "/oauth/token",
    "/oauth/register",
    "/oauth/jwks",
];

async fn resource_metadata(stack: &Stack) -> Value {
    let url = stack
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    common::json_body(stack.http.get(url)).await
}

#[tokio::test]
async fn ht1_off_by_default_nothing_is_served_and_the_resource_metadata_is_unchanged() {
    let off = Stack::start().await;
    let flow = Flow::new(&off.url);
    for path in FRONT_PATHS {
        assert_eq!(flow.get(path).await.status, 404, "GET {path}");
        assert_eq!(
            flow.post_form(path, &[("a", "b")], &[]).await.status,
            404,
            "POST {path}"
        );
    }
    let metadata = resource_metadata(&off).await;
    let default = kobana_mcp::Config::default().authorization_servers;
    assert!(default.is_empty(), "no authorization server by default");
    assert!(
        metadata.get("authorization_servers").is_none(),
        "none named while the front is off: {metadata}"
    );
    let on = Front::start().await;
    let mut with_front = resource_metadata(&on.stack).await;
    let servers = with_front["authorization_servers"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(
        servers[0],
        json!(on.flow.base),
        "the front lists itself first"
    );
    assert_eq!(
        &servers[1..],
        default.iter().map(|s| json!(s)).collect::<Vec<_>>()
    );
    // Everything else is the same document (the resource differs only by port).
    with_front
        .as_object_mut()
        .unwrap()
        .remove("authorization_servers");
    with_front["resource"] = metadata["resource"].clone();
    assert_eq!(with_front, metadata);
}

#[tokio::test]
async fn ht1_the_metadata_names_the_endpoints_at_every_discovery_path() {
    let front = Front::start().await;
    let base = &front.flow.base;
    for path in [
        "/.well-known/oauth-authorization-server",
        "/.well-known/openid-configuration",
    ] {
        let page = front.flow.get(path).await;
        assert_eq!(page.status, 200, "{path}");
        assert_eq!(page.header("access-control-allow-origin"), "*");
        let doc: Value = serde_json::from_str(&page.body).unwrap();
        assert_eq!(doc["issuer"], json!(base), "{doc}");
        assert_eq!(
            doc["authorization_endpoint"],
            json!(format!("{base}/oauth/authorize"))
        );
        assert_eq!(doc["token_endpoint"], json!(format!("{base}/oauth/token")));
        assert_eq!(
            doc["registration_endpoint"],
            json!(format!("{base}/oauth/register"))
        );
        assert_eq!(doc["code_challenge_methods_supported"], json!(["S256"]));
        assert_eq!(doc["client_id_metadata_document_supported"], json!(true));
        assert_eq!(doc["grant_types_supported"], json!(["authorization_code"]));
        for oidc in [
            "jwks_uri",
            "subject_types_supported",
            "id_token_signing_alg_values_supported",
        ] {
            assert!(
                doc.get(oidc).is_some(),
                "OIDC discovery requires {oidc}: {doc}"
            );
        }
    }
    // Under a stage prefix (an execute-api URL), the appended OIDC form names that issuer.
    let staged = front
        .flow
        .get("/Prod/.well-known/openid-configuration")
        .await;
    let doc: Value = serde_json::from_str(&staged.body).unwrap();
    assert_eq!(doc["issuer"], json!(format!("{base}/Prod")));
    assert_eq!(
        doc["token_endpoint"],
        json!(format!("{base}/Prod/oauth/token"))
    );
    let jwks = front.flow.get("/oauth/jwks").await;
    assert_eq!(
        serde_json::from_str::<Value>(&jwks.body).unwrap(),
        json!({"keys": []})
    );
}

#[tokio::test]
async fn ht1_tf1_a_registered_client_gets_a_sealed_token_after_the_person_confirms_the_organization()
 {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    assert!(client_id.starts_with("kmc1."), "{client_id}");
    let pkce = Pkce::new();
    let page = flow
        .authorize(&client_id, REDIRECT, &pkce, "estado/123 ok")
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    let csp = page.header("content-security-policy");
    for directive in [
        "frame-ancestors 'none'",
        "default-src 'none'",
        "form-action 'self' http://127.0.0.1:8976",
    ] {
        assert!(csp.contains(directive), "{directive}: {csp}");
    }
    assert_eq!(page.header("x-frame-options"), "DENY");
    assert_eq!(page.header("cache-control"), "no-store");
    assert!(page.body.contains("Teste do front") && page.body.contains("127.0.0.1"));
    assert!(page.body.contains("type=\"password\""), "{}", page.body);
    let token = full_token();
    let before = front.stack.kobana_calls("/v1/").len();
    let confirm = flow.paste(&page, &token).await;
    let org_calls = front.stack.kobana_calls("/v1/organization");
    assert_eq!(
        front.stack.kobana_calls("/v1/").len(),
        before + 1,
        "one Kobana read proves the token"
    );
    assert_eq!(org_calls.len(), 1, "{org_calls:?}");
    assert!(
        confirm.body.contains("Acme Software Ltda"),
        "{}",
        confirm.body
    );
    assert!(
        confirm.body.contains("CNPJ 11.222.333/0001-81"),
        "{}",
        confirm.body
    );
    assert!(
        !confirm.body.contains(&token),
        "the token never comes back in the page"
    );
    let back = flow.press(&confirm, "allow").await.redirect_params();
    assert_eq!(back["state"], "estado/123 ok", "state unchanged");
    assert_eq!(back["iss"], flow.base);
    let code = &back["code"];
    assert!(
        code.starts_with("kma1.") && !code.contains(&token[..20]),
        "{code}"
    );
    let (status, answer) = flow.exchange(code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 200, "{answer}");
    let access = answer["access_token"].as_str().unwrap();
    assert!(
        access.starts_with("kmt1."),
        "the front's own token: {answer}"
    );
    for part in token.split('.') {
        assert!(
            !access.contains(part),
            "no part of the billing token shows: {answer}"
        );
    }
    assert_eq!(answer["token_type"], "Bearer");
    let life = answer["expires_in"].as_i64().unwrap();
    assert!((1..=30 * 24 * 3600).contains(&life), "{answer}");
    assert!(
        answer["scope"].as_str().unwrap().contains("invoices:write"),
        "full access: {answer}"
    );
    assert!(
        answer.get("refresh_token").is_none(),
        "no refresh token: {answer}"
    );
    assert!(front.tools(answer["access_token"].as_str().unwrap()).await > 10);
}

#[tokio::test]
async fn ht1_wrong_redirect_uris_and_pkce_are_refused() {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    // At the page: an unregistered redirect URI is an error page, never a redirect.
    for other in [
        "http://127.0.0.1:8976/oauth/callback/",
        "https://evil.example/cb",
    ] {
        let page = flow.authorize(&client_id, other, &pkce, "s").await;
        assert_eq!(page.status, 400, "{other}");
        assert!(page.header("location").is_empty(), "no redirect to {other}");
        assert!(page.body.contains("endereço de retorno"), "{}", page.body);
    }
    // Plain PKCE is refused on our own page: the person has not acted, nothing is sent back
    // to the client (TF-2).
    let plain = flow
        .get(&format!(
            "/oauth/authorize?{}",
            crate::token_front::support::encoded(&[
                ("response_type", "code"),
                ("client_id", &client_id),
                ("redirect_uri", REDIRECT),
                ("code_challenge", &pkce.verifier),
                ("code_challenge_method", "plain"),
                ("state", "s1"),
            ])
        ))
        .await;
    assert_eq!(plain.status, 400, "{}", plain.body);
    assert!(plain.header("location").is_empty(), "no redirect");
    assert!(plain.body.contains("PKCE com S256"), "{}", plain.body);
    // At the token endpoint: every mismatch is refused and leaves the code to its owner.
    let code = flow.code_for(&client_id, &pkce, "s2", &full_token()).await["code"].clone();
    let wrong = Pkce::new();
    for (overrides, error) in [
        (
            vec![("redirect_uri", "https://evil.example/cb")],
            "invalid_grant",
        ),
        (vec![("redirect_uri", "")], "invalid_grant"),
        (vec![("code_verifier", "")], "invalid_request"),
        (
            vec![("code_verifier", wrong.verifier.as_str())],
            "invalid_grant",
        ),
        (vec![("client_id", "kmc1.someone-else")], "invalid_grant"),
        (
            vec![("resource", "https://evil.example/mcp")],
            "invalid_target",
        ),
        (
            vec![("grant_type", "refresh_token")],
            "unsupported_grant_type",
        ),
    ] {
        let refused = flow
            .refused(&code, &client_id, &pkce.verifier, &overrides)
            .await;
        assert_eq!(refused, error, "{overrides:?}");
    }
    let (status, answer) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 200, "the owner still redeems it: {answer}");
}

#[tokio::test]
async fn ht1_a_code_is_used_once_and_expires_after_60_seconds() {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    let code = flow.code_for(&client_id, &pkce, "s", &full_token()).await["code"].clone();
    assert_eq!(
        flow.exchange(&code, &client_id, &pkce.verifier, &[])
            .await
            .0,
        200
    );
    let reused = flow.refused(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(reused, "invalid_grant", "a reused code");

    let pkce = Pkce::new();
    let code = flow.code_for(&client_id, &pkce, "s", &full_token()).await["code"].clone();
    front.advance(61);
    let (status, expired) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(
        (status, expired["error"].as_str()),
        (400, Some("invalid_grant")),
        "{expired}"
    );
    assert!(
        expired["error_description"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    front.advance(-61);
    let (status, _) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(
        status, 200,
        "the same code inside its 60 s: the clock decided"
    );
}

#[tokio::test]
async fn ht1_a_token_kobana_rejects_gets_no_code() {
    let (front, _client, page) = Front::opened().await;
    let flow = &front.flow;
    let forged = "eyJhbGciOiJIUzUxMiJ9.eyJzdWIiOiJ4Iiwib3JnX2lkIjoieSJ9.bm90LWEtc2lnbmF0dXJl";
    let refused = flow.paste(&page, forged).await;
    assert_eq!(refused.status, 200);
    assert!(
        refused.body.contains("O Kobana recusou este token"),
        "{}",
        refused.body
    );
    assert!(
        refused.body.contains("type=\"password\""),
        "the token page again"
    );
    assert!(!refused.body.contains(forged), "the token is not echoed");
    assert!(
        !refused.body.contains("Conectar</button>"),
        "no confirmation"
    );
    let calls = front.stack.kobana_calls("/v1/organization");
    assert_eq!(
        calls.len(),
        1,
        "Kobana was asked, and answered 401: {calls:?}"
    );
    // The refused page's form cannot be pressed into a code.
    let allow = flow.press(&refused, "allow").await;
    assert_eq!(allow.status, 400, "{}", allow.body);
    assert!(allow.header("location").is_empty());
    let garbage = flow.paste(&refused, "não é token").await;
    assert!(
        garbage.body.contains("não parece um token"),
        "{}",
        garbage.body
    );
    assert_eq!(
        front.stack.kobana_calls("/v1/organization").len(),
        1,
        "no call for garbage"
    );
}

#[tokio::test]
async fn ht1_forms_are_bound_sealed_short_lived_and_same_site() {
    let (front, _client, page) = Front::opened().await;
    let flow = &front.flow;
    let form = page.form();
    let token = full_token();
    let fields = [
        ("form", form.as_str()),
        ("token", token.as_str()),
        ("action", "check"),
    ];
    let other_site = flow
        .post_form(
            "/oauth/authorize",
            &fields,
            &[("origin", "http://localhost:9999")],
        )
        .await;
    assert_eq!(other_site.status, 403, "{}", other_site.body);
    let sibling = flow
        .post_form(
            "/oauth/authorize",
            &fields,
            &[("sec-fetch-site", "cross-site")],
        )
        .await;
    assert_eq!(sibling.status, 403);
    // An opaque origin (a sandboxed frame, a data: page) is never our page: refused too.
    let opaque = flow
        .post_form("/oauth/authorize", &fields, &[("origin", "null")])
        .await;
    assert_eq!(opaque.status, 403, "{}", opaque.body);
    assert!(
        opaque.body.contains("só pode ser enviado desta página"),
        "{}",
        opaque.body
    );
    let mut tampered = form.clone().into_bytes();
    let at = tampered.len() - 5;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = flow
        .post_form(
            "/oauth/authorize",
            &[
                ("form", &String::from_utf8(tampered).unwrap()),
                ("token", &token),
                ("action", "check"),
            ],
            &[],
        )
        .await;
    assert_eq!(tampered.status, 400);
    assert!(
        tampered.body.contains("expirou ou não é válido"),
        "{}",
        tampered.body
    );
    front.advance(601);
    let late = flow.paste(&page, &token).await;
    assert_eq!(late.status, 400, "a ten-minute form: {}", late.body);
    front.advance(-601);
    let own = flow
        .post_form(
            "/oauth/authorize",
            &fields,
            &[("origin", &flow.base), ("sec-fetch-site", "same-origin")],
        )
        .await;
    assert!(own.body.contains("Confirme a organização"), "{}", own.body);
    assert_eq!(
        front.stack.kobana_calls("/v1/organization").len(),
        1,
        "only our own post reached Kobana"
    );
    let denied = flow.press(&own, "deny").await.redirect_params();
    assert_eq!(
        (denied["error"].as_str(), denied["state"].as_str()),
        ("access_denied", "s")
    );
    assert!(!denied.contains_key("code"));
}

#[tokio::test]
async fn ht1_registration_refuses_what_a_code_could_be_sent_through() {
    let front = Front::start().await;
    for (document, error) in [
        (
            json!({"redirect_uris": ["http://evil.example/cb"]}),
            "invalid_redirect_uri",
        ),
        (
            json!({"redirect_uris": ["javascript:alert(1)"]}),
            "invalid_redirect_uri",
        ),
        (json!({"redirect_uris": []}), "invalid_redirect_uri"),
        (
            json!({"client_name": 7, "redirect_uris": [REDIRECT]}),
            "invalid_client_metadata",
        ),
    ] {
        let (status, answer) = front.flow.register_with(&document).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some(error)),
            "{document}: {answer}"
        );
    }
    let padded =
        json!({"redirect_uris": [REDIRECT], "client_name": "x", "pad": "x".repeat(20_000)});
    let (status, answer) = front.flow.register_with(&padded).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_client_metadata")),
        "over 16 KiB is not read: {answer}"
    );
    let unknown = front
        .flow
        .authorize("kmc1.AAAA", REDIRECT, &Pkce::new(), "s")
        .await;
    assert_eq!(unknown.status, 400);
    assert!(
        unknown.body.contains("Aplicativo desconhecido"),
        "{}",
        unknown.body
    );
}

/// A loopback server of client ID metadata documents; counts the requests it answers.
async fn documents() -> (String, Arc<AtomicUsize>) {
    use axum::response::IntoResponse;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(AtomicUsize::new(0));
    let (b, h) = (base.clone(), hits.clone());
    let app = axum::Router::new().fallback(move |uri: axum::http::Uri| {
        let (base, hits) = (b.clone(), h.clone());
        async move {
            hits.fetch_add(1, Ordering::SeqCst);
            let me = format!("{base}{}", uri.path());
            let doc = |id: &str| {
                json!({"client_id": id, "client_name": "Documento", "redirect_uris": [REDIRECT]})
                    .to_string()
            };
            match uri.path() {
                "/good.json" => doc(&me).into_response(),
                "/mismatch.json" => doc("https://someone.else/client.json").into_response(),
                "/big.json" => format!("{{\"pad\":\"{}\"}}", "x".repeat(20_000)).into_response(),
                "/redirect.json" => {
                    axum::response::Redirect::temporary("/good.json").into_response()
                }
                _ => axum::http::StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await });
    (base, hits)
}

#[tokio::test]
async fn ht1_a_client_id_metadata_document_is_fetched_bounded_and_must_name_itself() {
    let (docs, hits) = documents().await;
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = format!("{docs}/good.json");
    let pkce = Pkce::new();
    let back = flow.code_for(&client_id, &pkce, "s", &full_token()).await;
    let (status, answer) = flow
        .exchange(&back["code"], &client_id, &pkce.verifier, &[])
        .await;
    assert_eq!(status, 200, "{answer}");
    for bad in ["mismatch.json", "big.json", "redirect.json", "missing.json"] {
        let page = flow
            .authorize(&format!("{docs}/{bad}"), REDIRECT, &Pkce::new(), "s")
            .await;
        assert_eq!(page.status, 400, "{bad}");
        assert!(
            page.body
                .contains("Não foi possível obter os dados do aplicativo"),
            "{bad}: {}",
            page.body
        );
    }
    let fetched = hits.load(Ordering::SeqCst);
    assert_eq!(fetched, 5, "one fetch per page view, no redirect followed");
    // Without the tests' loopback allowance, a loopback document is never fetched.
    let strict = Front::start_with(Arc::new(MemoryStore::new()), false).await;
    let page = strict
        .flow
        .authorize(&client_id, REDIRECT, &Pkce::new(), "s")
        .await;
    assert_eq!(page.status, 400);
    assert_eq!(
        hits.load(Ordering::SeqCst),
        fetched,
        "no request left for loopback"
    );
}

#[tokio::test]
async fn ht1_single_use_is_the_confirmation_tables_conditional_write() {
    let (front, table, client) = Front::on_dynamo().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    let token = scoped_token("person-bia", fake_kobana::FIXTURE_ORG_ID, "read");
    let code = flow.code_for(&client_id, &pkce, "s", &token).await["code"].clone();
    let items = client.scan().table_name(&table).send().await.unwrap();
    let items = items.items();
    // The code's row, and the mark that the confirmation form was used (HD-2).
    assert_eq!(items.len(), 2, "{items:?}");
    let nonce = |item: &std::collections::HashMap<
        String,
        aws_sdk_dynamodb::types::AttributeValue,
    >| { item["nonce"].as_s().unwrap().clone() };
    let codes: Vec<_> = items
        .iter()
        .filter(|i| nonce(i).starts_with("tfc1_"))
        .collect();
    assert_eq!(codes.len(), 1, "{items:?}");
    assert!(
        items.iter().any(|i| nonce(i).starts_with("tff1_")),
        "{items:?}"
    );
    let expires: i64 = codes[0]["expires_at"].as_n().unwrap().parse().unwrap();
    assert_eq!(
        expires,
        front.now.load(Ordering::SeqCst) + 60,
        "the TTL attribute: 60 s"
    );
    let stored = format!("{items:?}");
    assert!(
        !stored.contains(&token[token.len() - 20..]),
        "the table never holds the token"
    );
    let (status, answer) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 200, "{answer}");
    crate::token_front::support::sealed_access(&answer, &token);
    let (status, _) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 400, "the conditional delete is won once");
    let left = client.scan().table_name(&table).send().await.unwrap();
    let left: Vec<String> = left.items().iter().map(nonce).collect();
    assert!(
        left.len() == 1 && left[0].starts_with("tff1_"),
        "the code's row is gone, the form's mark stays until its TTL: {left:?}"
    );
}
