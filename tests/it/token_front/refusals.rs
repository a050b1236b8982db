//! The token front's side branches and refusals (HT-1), over plain HTTP against the fake
//! Kobana: what the token check does with each kind of answer (an expired JWT, a 403 for a
//! missing permission, any other 403, Kobana down or slow), "Usar outro token", the
//! authorization request's own refusals (`unsupported_response_type`, a missing PKCE
//! challenge, `invalid_target`), HTTP Basic client authentication at the token endpoint, and
//! single use under pressure: two redemptions at once, and a code whose store row has expired
//! while its sealed expiry has not. A post from an opaque origin is refused with the other
//! cross-site posts, in `flow.rs`.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use crate::token_front::support::{Front, Issued, Page, Pkce, REDIRECT};
use base64::Engine as _;
use common::dynamo;
use fake_kobana::{FIXTURE_ORG_ID, Fault, FaultKind, expired_token, full_token, scoped_token};
use futures_util::future::{BoxFuture, join_all};
use kobana_mcp::confirm::{MemoryStore, NonceStore, StoreError};

/// The page a refused token leads back to: the token page with `notice`, no confirmation.
#[track_caller]
fn assert_token_page_again(page: &Page, notice: &str) {
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains(notice), "{notice}: {}", page.body);
    assert!(
        page.body.contains("type=\"password\""),
        "the token page: {}",
        page.body
    );
    assert!(
        !page.body.contains("Conectar</button>"),
        "no confirmation: {}",
        page.body
    );
}

/// A fault on Kobana's organization read (the token check's one call).
fn on_organization(kind: FaultKind) -> Fault {
    Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/organization".into(),
        kind,
        times: None,
    }
}

#[tokio::test]
async fn ht1_an_expired_billing_jwt_is_refused_on_the_page_without_a_kobana_call() {
    let (front, _client, page) = Front::opened().await;
    let token = expired_token();
    let refused = front.flow.paste(&page, &token).await;
    assert_token_page_again(&refused, "Este token já expirou");
    assert!(!refused.body.contains(&token), "the token is not echoed");
    assert_eq!(front.kobana_calls("/v1/"), 0, "Kobana is never asked");
    let allow = front.flow.press(&refused, "allow").await;
    assert_eq!(allow.status, 400, "no code from the refused form");
}

#[tokio::test]
async fn ht1_a_token_without_the_organization_permission_is_taken_and_kobanas_403_shown_as_no_name()
{
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let token = scoped_token("person-bia", FIXTURE_ORG_ID, "invoices:read");
    let pkce = Pkce::new();
    let page = flow.authorize(&client_id, REDIRECT, &pkce, "s").await;
    let confirm = flow.paste(&page, &token).await;
    let calls = front.stack.kobana_calls("/v1/organization");
    assert_eq!(calls.len(), 1, "{calls:?}");
    assert!(!calls[0].authorized, "Kobana refused the read: {calls:?}");
    assert!(
        confirm.body.contains("Confirme a organização"),
        "Kobana knows the token (403 insufficient_scope): {}",
        confirm.body
    );
    assert!(
        confirm.body.contains("o Kobana não informou o nome") && !confirm.body.contains("CNPJ"),
        "{}",
        confirm.body
    );
    let code = flow.press(&confirm, "allow").await.redirect_params()["code"].clone();
    let (status, answer) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 200, "{answer}");
    crate::token_front::support::sealed_access(&answer, &token);
}

#[tokio::test]
async fn ht1_any_other_403_at_the_token_check_says_kobana_refused_access_and_gives_no_code() {
    let (front, _client, page) = Front::opened().await;
    front.stack.fake.inject(on_organization(FaultKind::Refusal {
        status: 403,
        code: "access_blocked".into(),
    }));
    let refused = front.flow.paste(&page, &full_token()).await;
    assert_token_page_again(&refused, "O Kobana não permitiu o acesso com este token.");
    assert_eq!(
        front.kobana_calls("/v1/organization"),
        1,
        "a 403 is not retried"
    );
    let allow = front.flow.press(&refused, "allow").await;
    assert_eq!(allow.status, 400);
    assert!(allow.header("location").is_empty());
}

#[tokio::test]
async fn ht1_tf4_kobana_down_or_slow_at_the_token_check_asks_to_try_again_and_the_form_still_works()
{
    let front = Front::start_configured(Arc::new(MemoryStore::new()), |config| {
        config.kobana_timeout = Duration::from_millis(800);
    })
    .await;
    let (_client, page) = front.open().await;
    let down = "Não foi possível falar com o Kobana agora.";
    front.stack.fake.inject(on_organization(FaultKind::Status {
        status: 503,
        retry_after: None,
    }));
    let unavailable = front.flow.paste(&page, &full_token()).await;
    assert_token_page_again(&unavailable, down);
    assert_eq!(
        front.kobana_calls("/v1/organization"),
        1,
        "a token check makes one Kobana call, never retried (TF-4)"
    );
    front.stack.fake.clear_faults();
    front
        .stack
        .fake
        .inject(on_organization(FaultKind::Delay { ms: 3_000 }));
    let slow = front.flow.paste(&unavailable, &full_token()).await;
    assert_token_page_again(&slow, down);
    front.stack.fake.clear_faults();
    let again = front.flow.paste(&slow, &full_token()).await;
    assert!(
        again.body.contains("Acme Software Ltda"),
        "the same form, Kobana back: {}",
        again.body
    );
}

#[tokio::test]
async fn ht1_another_token_restarts_the_page_and_only_the_last_token_proven_is_handed_over() {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    let page = flow.authorize(&client_id, REDIRECT, &pkce, "s").await;
    let first = flow.paste(&page, &full_token()).await;
    assert!(first.body.contains("Usar outro token"), "{}", first.body);
    let restarted = flow.press(&first, "restart").await;
    assert_eq!(restarted.status, 200, "{}", restarted.body);
    assert!(
        restarted.body.contains("type=\"password\"") && !restarted.body.contains("Acme"),
        "the token page again, without the organization: {}",
        restarted.body
    );
    assert_ne!(restarted.form(), first.form(), "a fresh form");
    let allow = flow.press(&restarted, "allow").await;
    assert_eq!(
        allow.status, 400,
        "the restarted form carries no token: {}",
        allow.body
    );
    let other = scoped_token("person-caio", FIXTURE_ORG_ID, "read");
    let second = flow.paste(&restarted, &other).await;
    assert!(second.body.contains("Confirme a organização"));
    let code = flow.press(&second, "allow").await.redirect_params()["code"].clone();
    let (status, answer) = flow.exchange(&code, &client_id, &pkce.verifier, &[]).await;
    assert_eq!(status, 200, "{answer}");
    let access = crate::token_front::support::sealed_access(&answer, &other);
    assert_eq!(
        front.kobana_calls("/v1/organization"),
        2,
        "each token proven once"
    );
    assert_eq!(
        front.person_behind(&access).await.as_deref(),
        Some("person-caio"),
        "the last token proven is the one inside"
    );
}

#[tokio::test]
async fn ht1_tf2_the_authorization_request_refuses_other_response_types_a_missing_challenge_and_other_resources_on_our_page()
 {
    let front = Front::start().await;
    let flow = &front.flow;
    let client_id = flow.register().await;
    let pkce = Pkce::new();
    let cases: [(&[(&str, &str)], &str); 5] = [
        (&[("response_type", "token")], "response_type=code"),
        (&[("response_type", "")], "response_type=code"),
        (&[("code_challenge", "")], "code_challenge"),
        (
            &[("code_challenge", ""), ("code_challenge_method", "")],
            "PKCE com S256",
        ),
        (
            &[("resource", "https://evil.example/mcp")],
            "outro servidor",
        ),
    ];
    // Before the person has acted, an error is said on our page, never redirected (TF-2).
    for (overrides, says) in cases {
        let page = flow.authorize_with(&client_id, &pkce, overrides).await;
        assert_eq!(page.status, 400, "{overrides:?}: {}", page.body);
        assert!(
            page.header("location").is_empty(),
            "{overrides:?}: no redirect"
        );
        assert!(page.body.contains(says), "{overrides:?}: {}", page.body);
    }
    // Without `resource`, the front's own MCP endpoint is meant: the page opens.
    let page = flow
        .authorize_with(&client_id, &pkce, &[("resource", "")])
        .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(front.kobana_calls("/v1/"), 0);
}

#[tokio::test]
async fn ht1_the_token_endpoint_takes_the_client_from_http_basic_authentication() {
    let front = Front::start().await;
    let issued = front.issue(&full_token()).await;
    // RFC 6749 §2.3.1: the client id form-encoded, then `id:secret` in base64; no client_id in
    // the body.
    let as_client = |id: Option<&str>| {
        let header = id.map(|id| {
            let user = form_urlencoded_user(id);
            let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{user}:"));
            format!("Basic {encoded}")
        });
        let front = &front;
        let issued = &issued;
        async move {
            let headers: Vec<(&str, &str)> = header
                .iter()
                .map(|h| ("authorization", h.as_str()))
                .collect();
            front.redeem(issued, &[("client_id", "")], &headers).await
        }
    };
    let cases = [
        (
            Some("kmc1.someone-else"),
            "invalid_grant",
            "another client in Basic",
        ),
        (None, "invalid_request", "no client at all"),
    ];
    for (id, error, what) in cases {
        let (status, answer) = as_client(id).await;
        assert_eq!(
            (status, answer["error"].as_str()),
            (400, Some(error)),
            "{what}: {answer}"
        );
    }
    let (status, answer) = as_client(Some(&issued.client_id)).await;
    assert_eq!(status, 200, "the client in Basic: {answer}");
    crate::token_front::support::sealed_access(&answer, &full_token());
}

/// `id` as `application/x-www-form-urlencoded` encodes it.
fn form_urlencoded_user(id: &str) -> String {
    crate::token_front::support::encoded(&[("u", id)])
        .strip_prefix("u=")
        .unwrap()
        .to_owned()
}

/// Redeems `issued` from six requests at once; answers their statuses and error codes.
async fn race(front: &Front, issued: &Issued) -> Vec<(u16, String)> {
    let tries = (0..6).map(|_| async move {
        let (status, answer) = front.redeem(issued, &[], &[]).await;
        let error = answer["error"].as_str().unwrap_or_default().to_owned();
        (status, error)
    });
    join_all(tries).await
}

#[tokio::test]
async fn ht1_two_redemptions_of_one_code_at_once_give_exactly_one_token() {
    let stores: [(&str, Arc<dyn NonceStore>); 2] = [
        ("memory", Arc::new(MemoryStore::new())),
        ("dynamodb", dynamo::dynamo_store().await),
    ];
    for (name, store) in stores {
        let front = Front::start_with(store, true).await;
        let issued = front.issue(&full_token()).await;
        let outcomes = race(&front, &issued).await;
        let won = outcomes.iter().filter(|(status, _)| *status == 200).count();
        assert_eq!(won, 1, "{name}: exactly one redemption wins: {outcomes:?}");
        assert!(
            outcomes
                .iter()
                .all(|(status, error)| *status == 200 || error == "invalid_grant"),
            "{name}: {outcomes:?}"
        );
    }
}

/// A store whose rows expire `early` seconds before the expiry it is given: the code's sealed
/// expiry says it is alive when its row says it is not.
#[derive(Debug)]
struct RowsExpireEarly {
    inner: Arc<dyn NonceStore>,
    early: i64,
}

impl NonceStore for RowsExpireEarly {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.put(nonce, digest, expires_at - self.early)
    }

    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        self.inner.consume(nonce, digest, now)
    }
}

#[tokio::test]
async fn ht1_a_code_whose_store_row_has_expired_is_refused_though_its_sealed_expiry_is_not() {
    // The confirmation table: the code's row is rewritten to have expired a second ago.
    let (front, table, client) = Front::on_dynamo().await;
    let issued = front.issue(&full_token()).await;
    let items = client.scan().table_name(&table).send().await.unwrap();
    let key = items.items()[0]["nonce"].clone();
    let past = front.now.load(std::sync::atomic::Ordering::SeqCst) - 1;
    client
        .update_item()
        .table_name(&table)
        .key("nonce", key)
        .update_expression("SET expires_at = :past")
        .expression_attribute_values(
            ":past",
            aws_sdk_dynamodb::types::AttributeValue::N(past.to_string()),
        )
        .send()
        .await
        .unwrap();
    let (status, answer) = front.redeem(&issued, &[], &[]).await;
    assert_eq!(
        (status, answer["error"].as_str()),
        (400, Some("invalid_grant")),
        "dynamodb: {answer}"
    );
    assert_eq!(
        answer["error_description"], "code already used or expired",
        "the store refused it, not the sealed expiry: {answer}"
    );
    // The memory store, its rows written 61 s short of the code's own expiry.
    let store = Arc::new(RowsExpireEarly {
        inner: Arc::new(MemoryStore::new()),
        early: 61,
    });
    let front = Front::start_with(store, true).await;
    let issued = front.issue(&full_token()).await;
    let (status, answer) = front.redeem(&issued, &[], &[]).await;
    assert_eq!(
        (status, answer["error_description"].as_str()),
        (400, Some("code already used or expired")),
        "memory: {answer}"
    );
}
