//! The fake's access rules: `User-Agent`, tokens, permissions, organization partitioning
//! and the headers on every response.

use crate::fake::support::{Api, UA, assert_error};
use fake_kobana::fixtures::ids;
use fake_kobana::{Claims, FIXTURE_ORG_ID, mint_token, readonly_token, scoped_token};
use reqwest::Method;
use serde_json::json;

#[tokio::test]
async fn missing_user_agent_is_400_invalid_request() {
    let api = Api::new().await;
    let resp = api
        .raw(Method::GET, "/v1/invoices", Some(&api.token), None, None)
        .await;
    assert_eq!(resp.status().as_u16(), 400);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        json!({"error": {"code": "invalid_request", "message": "Cabeçalho User-Agent ausente.", "details": null}})
    );
    let calls = api.fake.calls();
    assert_eq!(calls.len(), 1);
    assert!(!calls[0].authorized);
    assert_eq!(calls[0].user_agent, None);
}

#[tokio::test]
async fn missing_token_is_401_with_kobana_message() {
    let api = Api::new().await;
    let resp = api
        .raw(Method::GET, "/v1/customers", None, Some(UA), None)
        .await;
    assert_eq!(resp.status().as_u16(), 401);
    assert!(resp.headers().contains_key("www-authenticate"));
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_token");
    assert_eq!(body["error"]["message"], "Cabeçalho Authorization ausente.");
    assert!(body["error"]["details"].is_null());
    assert!(!api.fake.calls()[0].authorized);
}

#[tokio::test]
async fn unknown_tampered_or_expired_tokens_are_401() {
    let api = Api::new().await;
    let mut tampered = api.token.clone();
    tampered.pop();
    tampered.push(if api.token.ends_with('A') { 'B' } else { 'A' });
    let wrong_alg = {
        // Same claims, signed "alg":"none".
        let parts: Vec<&str> = api.token.split('.').collect();
        format!("eyJhbGciOiJub25lIn0.{}.", parts[1])
    };
    let expired = mint_token(&Claims {
        sub: "person-ana".into(),
        org_id: FIXTURE_ORG_ID.into(),
        scope: "all".into(),
        name: Some("Ana".into()),
        exp: Some(1_000),
    });
    for (token, message) in [
        ("not-a-jwt", "Token inválido."),
        (tampered.as_str(), "Token inválido."),
        (wrong_alg.as_str(), "Token inválido."),
        (expired.as_str(), "Token expirado."),
    ] {
        let (status, body) = api
            .call_as(token, Method::GET, "/v1/organization", None)
            .await;
        assert_error(status, &body, 401, "invalid_token");
        assert_eq!(body["error"]["message"], message, "token {token}");
    }
    let future = mint_token(&Claims {
        sub: "person-ana".into(),
        org_id: FIXTURE_ORG_ID.into(),
        scope: "all".into(),
        name: None,
        exp: Some(4_102_444_800),
    });
    let (status, _) = api
        .call_as(&future, Method::GET, "/v1/organization", None)
        .await;
    assert_eq!(status, 200);
    assert!(api.fake.calls().iter().take(4).all(|c| !c.authorized));
}

#[tokio::test]
async fn non_bearer_scheme_is_rejected() {
    let api = Api::new().await;
    let resp = api
        .http
        .get(api.url("/v1/organization"))
        .header("User-Agent", UA)
        .header("Authorization", format!("Token {}", api.token))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 401);
}

#[tokio::test]
async fn readonly_token_reads_but_cannot_write() {
    let api = Api::new().await;
    let ro = readonly_token();
    for path in [
        "/v1/organization",
        "/v1/customers",
        "/v1/billing_accounts",
        "/v1/subscriptions",
        "/v1/invoices",
        "/v1/payments",
        "/v1/nfes",
        "/v1/plans",
        "/v1/products",
    ] {
        let (status, body) = api.call_as(&ro, Method::GET, path, None).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (status, body) = api
        .call_as(
            &ro,
            Method::POST,
            &format!("/v1/invoices/{}/void", ids::INV_OPEN),
            Some(&json!({"reason": "duplicada"})),
        )
        .await;
    let details = assert_error(status, &body, 403, "insufficient_scope");
    assert_eq!(
        details,
        json!({"required": ["invoices:write"], "granted": ["read"]})
    );
    // Nothing changed.
    let (_, inv) = api.get(&format!("/v1/invoices/{}", ids::INV_OPEN)).await;
    assert_eq!(inv["data"]["status"], "open");
}

#[tokio::test]
async fn fine_grained_slugs_are_per_resource_and_write_implies_read() {
    let api = Api::new().await;
    let token = scoped_token("bot", FIXTURE_ORG_ID, "invoices:write customers:read");
    let (status, _) = api.call_as(&token, Method::GET, "/v1/invoices", None).await;
    assert_eq!(status, 200, "invoices:write implies invoices:read");
    let (status, body) = api
        .call_as(&token, Method::GET, "/v1/billing_accounts", None)
        .await;
    let details = assert_error(status, &body, 403, "insufficient_scope");
    assert_eq!(
        details["required"],
        json!(["billing_accounts:read"]),
        "billing accounts are a resource of their own"
    );
    let (status, body) = api.call_as(&token, Method::GET, "/v1/nfes", None).await;
    let details = assert_error(status, &body, 403, "insufficient_scope");
    assert_eq!(details["required"], json!(["nfes:read"]));
    assert_eq!(
        details["granted"],
        json!(["invoices:write", "customers:read"])
    );
    let (status, body) = api
        .call_as(
            &token,
            Method::POST,
            "/v1/customers",
            Some(&json!({"name": "X"})),
        )
        .await;
    let details = assert_error(status, &body, 403, "insufficient_scope");
    assert_eq!(details["required"], json!(["customers:write"]));
    let (status, _) = api
        .call_as(
            &token,
            Method::POST,
            &format!("/v1/invoices/{}/send-reminder", ids::INV_OPEN),
            None,
        )
        .await;
    assert_eq!(status, 200);
    let write = scoped_token("bot", FIXTURE_ORG_ID, "write");
    let (status, _) = api.call_as(&write, Method::GET, "/v1/payments", None).await;
    assert_eq!(status, 200, "coarse write implies read");
}

#[tokio::test]
async fn billing_accounts_plans_and_products_have_their_own_permissions() {
    let api = Api::new().await;
    let token = scoped_token(
        "bot",
        FIXTURE_ORG_ID,
        "billing_accounts:read plans:write products:read",
    );
    let plan_items = format!("/v1/plans/{}/items", ids::PLAN_PRO);
    let account = format!("/v1/billing_accounts/{}", ids::BA_PADARIA);
    for path in [
        "/v1/billing_accounts",
        account.as_str(),
        "/v1/plans",
        plan_items.as_str(),
        "/v1/products",
    ] {
        let (status, body) = api.call_as(&token, Method::GET, path, None).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    for (path, required) in [
        ("/v1/customers", "customers:read"),
        ("/v1/subscriptions", "subscriptions:read"),
    ] {
        let (status, body) = api.call_as(&token, Method::GET, path, None).await;
        let details = assert_error(status, &body, 403, "insufficient_scope");
        assert_eq!(details["required"], json!([required]), "{path}");
    }
    let customers_only = scoped_token("bot", FIXTURE_ORG_ID, "customers:write");
    for path in ["/v1/billing_accounts", "/v1/plans", "/v1/products"] {
        let (status, _) = api.call_as(&customers_only, Method::GET, path, None).await;
        assert_eq!(status, 403, "{path} is not a customers resource");
    }
}

#[tokio::test]
async fn organization_endpoint_and_partitioning() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/organization").await;
    assert_eq!(status, 200);
    let org = &body["data"];
    assert_eq!(org["id"], FIXTURE_ORG_ID);
    assert_eq!(org["status"], "active");
    assert_eq!(org["person"]["name"], "Acme Software Ltda");
    assert_eq!(org["person"]["document_number"], "11222333000181");
    assert_eq!(org["person"]["kind"], "company");
    assert!(
        org.get("name").is_none(),
        "OrganizationV1 names the org in person"
    );

    let other_org = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0ff";
    let other = scoped_token("person-bob", other_org, "all");
    let (status, body) = api
        .call_as(&other, Method::GET, "/v1/organization", None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["id"], other_org);
    assert_eq!(body["data"]["person"]["name"], "Organização 0f1e2d3c");
    let (_, body) = api.call_as(&other, Method::GET, "/v1/invoices", None).await;
    assert_eq!(body["meta"]["total"], 0);
    assert_eq!(body["data"], json!([]));
    let (status, body) = api
        .call_as(
            &other,
            Method::GET,
            &format!("/v1/invoices/{}", ids::INV_OPEN),
            None,
        )
        .await;
    assert_error(status, &body, 404, "not_found");
    assert_eq!(
        body["error"]["message"],
        "Recurso não encontrado na organização atual."
    );

    // Data created in one organization stays there.
    let (status, created) = api
        .call_as(
            &other,
            Method::POST,
            "/v1/customers",
            Some(&json!({"name": "Cliente da Outra Org"})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["customer"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let (status, _) = api.get(&format!("/v1/customers/{id}")).await;
    assert_eq!(status, 404);
    let (_, mine) = api.get("/v1/customers").await;
    assert_eq!(mine["meta"]["total"], 4);
    let (_, theirs) = api
        .call_as(&other, Method::GET, "/v1/customers", None)
        .await;
    assert_eq!(theirs["meta"]["total"], 1);
}

#[tokio::test]
async fn every_response_has_request_id_and_rate_limit_headers() {
    let api = Api::new().await;
    let ok = api
        .raw(
            Method::GET,
            "/v1/customers",
            Some(&api.token),
            Some(UA),
            None,
        )
        .await;
    let err = api
        .raw(Method::GET, "/v1/customers", None, Some(UA), None)
        .await;
    let mut ids = vec![];
    for resp in [&ok, &err] {
        let h = resp.headers();
        let rid = h["request-id"].to_str().unwrap().to_string();
        assert_eq!(rid.len(), 36, "uuid request id: {rid}");
        assert_eq!(h["x-ratelimit-limit"], "100");
        let remaining: u32 = h["x-ratelimit-remaining"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(remaining < 100);
        ids.push(rid);
    }
    assert_ne!(ids[0], ids[1]);
}

#[tokio::test]
async fn unknown_operations_are_400_and_unknown_ids_404_after_auth() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/prices").await;
    let details = assert_error(status, &body, 400, "contract_violation");
    assert_eq!(
        details["violations"],
        json!(["unknown operation GET /v1/prices"])
    );
    let (status, body) = api.get("/v1/invoices/not-a-uuid").await;
    let details = assert_error(status, &body, 400, "contract_violation");
    assert_eq!(details["operation"], "invoices.get");
    // Customer ids have no uuid format (an external_id is accepted): unknown ones are 404.
    let (status, body) = api.get("/v1/customers/123").await;
    assert_error(status, &body, 404, "not_found");
    let (status, body) = api.get(&format!("/v1/invoices/{}", ids::UNKNOWN)).await;
    assert_error(status, &body, 404, "not_found");
    let resp = api
        .raw(Method::GET, "/v1/prices", None, Some(UA), None)
        .await;
    assert_eq!(
        resp.status().as_u16(),
        401,
        "auth is checked before the contract"
    );
}
