//! The fake's profiles (RK-1): each open point of Kobana's material (the contract's
//! `readings`) is played one way by `ours` and the other way by `others` — one assertion per
//! point, the same request sent to a fake of each profile.

use crate::fake::support::{Api, UA};
use fake_kobana::fixtures::ids::*;
use fake_kobana::{FakeKobana, Readings};
use reqwest::{Method, Response};
use serde_json::{Value, json};

/// A fake of each profile, each with a client holding its own full token.
async fn both() -> (Api, Api) {
    let mut ours = Api::with_fake(FakeKobana::start_with_readings(Readings::ours()).await);
    ours.token = ours.fake.full_token();
    let mut others = Api::with_fake(FakeKobana::start_with_readings(Readings::others()).await);
    others.token = others.fake.full_token();
    (ours, others)
}

async fn send(
    api: &Api,
    method: Method,
    path: &str,
    body: Option<Value>,
    key: Option<(&str, &str)>,
) -> Response {
    let mut req = api
        .http
        .request(method, api.url(path))
        .bearer_auth(&api.token)
        .header("user-agent", UA)
        .header("content-type", "application/json");
    if let Some((name, value)) = key {
        req = req.header(name, value);
    }
    if let Some(body) = body {
        req = req.json(&body);
    }
    req.send().await.unwrap()
}

async fn data(api: &Api, path: &str) -> Value {
    let body: Value = send(api, Method::GET, path, None, None)
        .await
        .json()
        .await
        .unwrap();
    body["data"].clone()
}

#[tokio::test]
async fn rk1_each_profile_plays_its_alternative_of_every_point() {
    let (ours, others) = both().await;
    // token_issuer: a token of Kobana's app OAuth (RS256, not a billing JWT) is refused, or
    // taken as a billing token.
    let app_token = |api: &Api| {
        api.http
            .get(api.url("/v1/organization"))
            .bearer_auth(api.fake.app_oauth_token())
            .header("user-agent", UA)
            .header("content-type", "application/json")
            .send()
    };
    let (ta, tb) = (
        app_token(&ours).await.unwrap(),
        app_token(&others).await.unwrap(),
    );
    assert_eq!((ta.status().as_u16(), tb.status().as_u16()), (401, 200));
    let refused: Value = ta.json().await.unwrap();
    assert_eq!(refused["error"]["code"], "invalid_token");

    let open = format!("/v1/invoices/{INV_OPEN}");
    let (a, b) = (data(&ours, &open).await, data(&others, &open).await);
    // invoice_totals_unit: R$ 499,00 in subcentavos, or in centavos.
    assert_eq!(
        (a["total_subcents"].clone(), b["total_subcents"].clone()),
        (json!(4_990_000), json!(49_900))
    );
    // due_date_form: midnight in São Paulo, or midnight UTC.
    assert_eq!(
        (a["due_date"].clone(), b["due_date"].clone()),
        (json!("2026-08-25T03:00:00Z"), json!("2026-08-25T00:00:00Z"))
    );
    // line_items: embedded on the single read, or never (include is off the contract).
    assert_eq!(
        (a.get("line_items").is_some(), b.get("line_items").is_some()),
        (true, false)
    );

    account_customer_alternatives(&ours, &others).await;
    scope_words_and_rate_limit_headers(&ours, &others).await;
}

/// account_customer: embedded on the single read and in the list, or not loaded; or, its third
/// alternative, embedded on the single read only.
async fn account_customer_alternatives(ours: &Api, others: &Api) {
    // account_customer: embedded on the single read and in the list, or not loaded.
    let account = format!("/v1/billing_accounts/{BA_PADARIA}");
    let (a, b) = (data(ours, &account).await, data(others, &account).await);
    assert_eq!(
        (a.get("customer").is_some(), b.get("customer").is_some()),
        (true, false)
    );
    let (a, b) = (
        data(ours, "/v1/billing_accounts").await,
        data(others, "/v1/billing_accounts").await,
    );
    assert_eq!(
        (
            a[0].get("customer").is_some(),
            b[0].get("customer").is_some()
        ),
        (true, false)
    );
    // Its third alternative, embedded on the single read only (the fake's earlier choice).
    let between = Api::with_fake(
        fake_kobana::FakeKobana::start_with_readings(
            fake_kobana::Readings::parse("ours,account_customer=embedded_on_get").unwrap(),
        )
        .await,
    );
    let (one, list) = (
        data(&between, &account).await,
        data(&between, "/v1/billing_accounts").await,
    );
    assert_eq!(
        (
            one.get("customer").is_some(),
            list[0].get("customer").is_some()
        ),
        (true, false)
    );
}

/// scope_words: the full token's words, and a 403's `required`, in each vocabulary; and
/// rate_limit_headers: `X-RateLimit-*`, or `ratelimit-*`.
async fn scope_words_and_rate_limit_headers(ours: &Api, others: &Api) {
    // scope_words: the full token's words, and a 403's `required`, in each vocabulary.
    let readonly = fake_kobana::readonly_token();
    let denied = |api: &Api| {
        api.http
            .post(api.url(&format!("/v1/invoices/{INV_OPEN}/send-reminder")))
            .bearer_auth(&readonly)
            .header("user-agent", UA)
            .send()
    };
    let (ra, rb): (Value, Value) = (
        denied(ours).await.unwrap().json().await.unwrap(),
        denied(others).await.unwrap().json().await.unwrap(),
    );
    assert_eq!(
        (
            ra["error"]["details"]["required"].clone(),
            rb["error"]["details"]["required"].clone()
        ),
        (json!(["invoices:write"]), json!(["billing.invoices.write"]))
    );

    // rate_limit_headers: `X-RateLimit-*`, or `ratelimit-*`.
    let (ha, hb) = (
        send(ours, Method::GET, "/v1/organization", None, None).await,
        send(others, Method::GET, "/v1/organization", None, None).await,
    );
    // Each family alone: the other one's names are absent.
    let family = |response: &Response, prefix: &str| -> Vec<String> {
        let mut names: Vec<String> = response
            .headers()
            .keys()
            .map(|h| h.as_str().to_owned())
            .filter(|h| h.starts_with(prefix))
            .collect();
        names.sort();
        names
    };
    let x = [
        "x-ratelimit-limit",
        "x-ratelimit-remaining",
        "x-ratelimit-reset",
    ];
    let bare = ["ratelimit-limit", "ratelimit-remaining", "ratelimit-reset"];
    assert_eq!(
        (family(&ha, "x-ratelimit-"), family(&ha, "ratelimit-")),
        (x.map(str::to_owned).to_vec(), vec![])
    );
    assert_eq!(
        (family(&hb, "x-ratelimit-"), family(&hb, "ratelimit-")),
        (vec![], bare.map(str::to_owned).to_vec())
    );
}

#[tokio::test]
async fn rk1_each_profile_plays_its_alternative_of_created_and_deleted_records() {
    let (ours, others) = both().await;
    // line_item_input_unit: a unit of 1 000 000 is R$ 100,00 (subcentavos) or R$ 10.000,00.
    let item = json!({"billing_account_id": BA_PADARIA,
        "line_items": [{"description": "Serviço", "quantity": 1, "unit_amount_subcents": 1_000_000}]});
    let created = |r: Value| r["data"]["amount_remaining_cents"].clone();
    let a: Value = send(
        &ours,
        Method::POST,
        "/v1/invoices",
        Some(item.clone()),
        None,
    )
    .await
    .json()
    .await
    .unwrap();
    let b: Value = send(&others, Method::POST, "/v1/invoices", Some(item), None)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        (created(a.clone()), created(b.clone())),
        (json!(10_000), json!(1_000_000))
    );

    // datetime_form: answers with the offset, or in UTC `Z` (minute precision).
    assert_eq!(
        (
            a["data"]["created_at"].clone(),
            b["data"]["created_at"].clone()
        ),
        (
            json!("2026-08-20T12:00:00-03:00"),
            json!("2026-08-20T15:00Z")
        )
    );

    // delete_answer: 200 {deleted: true}, or 204 No Content.
    let draft = |r: &Value| format!("/v1/invoices/{}", r["data"]["id"].as_str().unwrap());
    let (da, db) = (
        send(&ours, Method::DELETE, &draft(&a), None, None).await,
        send(&others, Method::DELETE, &draft(&b), None, None).await,
    );
    assert_eq!((da.status().as_u16(), db.status().as_u16()), (200, 204));
}

#[tokio::test]
async fn rk1_each_profile_plays_its_alternative_of_the_request_side_points() {
    let (ours, others) = both().await;
    // datetime_form: a date-time with an offset is taken, or refused.
    let pause = format!("/v1/subscriptions/{SUB_ACTIVE}/pause");
    let offset = json!({"resumes_at": "2026-10-01T00:00:00-03:00"});
    let (a, b) = (
        send(&ours, Method::POST, &pause, Some(offset.clone()), None).await,
        send(&others, Method::POST, &pause, Some(offset), None).await,
    );
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 400));
    let zulu = json!({"resumes_at": "2026-10-01T03:00:00Z"});
    assert_eq!(
        send(&others, Method::POST, &pause, Some(zulu), None)
            .await
            .status(),
        200
    );

    // idempotency_header: the fake reads `X-Idempotency-Key`, or `Idempotency-Key`. The same
    // reminder sent twice under `Idempotency-Key` is replayed only where that name is read.
    let remind = format!("/v1/invoices/{INV_OPEN}/send-reminder");
    let key = ("Idempotency-Key", "8c0f5d6e-3f8b-4cb5-9a47-d8f5b15e9b21");
    let mut replayed = Vec::new();
    for api in [&ours, &others] {
        send(api, Method::POST, &remind, None, Some(key)).await;
        let second = send(api, Method::POST, &remind, None, Some(key)).await;
        replayed.push(second.headers().contains_key("x-idempotent-replay"));
    }
    assert_eq!(replayed, [false, true]);

    // refund_result: the refunded payment, or a new payment record.
    let refund = format!("/v1/payments/{PAY_CARD}/refund");
    let (a, b): (Value, Value) = (
        send(&ours, Method::POST, &refund, Some(json!({})), None)
            .await
            .json()
            .await
            .unwrap(),
        send(&others, Method::POST, &refund, Some(json!({})), None)
            .await
            .json()
            .await
            .unwrap(),
    );
    assert_eq!(a["data"]["id"], PAY_CARD);
    assert_ne!(b["data"]["id"], PAY_CARD);
    assert_eq!(b["data"]["metadata"]["refund_of"], PAY_CARD);

    // payment_codes: the boleto awaiting payment carries its digitable line and Pix code in
    // its metadata, or no read carries them (on the single read and in the list alike).
    for path in [
        format!("/v1/payments/{PAY_BOLETO_PENDING}"),
        format!("/v1/payments?invoice_id={INV_OPEN}"),
    ] {
        let (a, b) = (data(&ours, &path).await, data(&others, &path).await);
        let meta = |v: &Value| {
            if v.is_array() {
                v[0]["metadata"].clone()
            } else {
                v["metadata"].clone()
            }
        };
        assert!(meta(&a)["bank_slip"]["digitable_line"].is_string(), "{a}");
        assert!(
            meta(&a)["pix"]["emv"]
                .as_str()
                .is_some_and(|c| c.starts_with("000201"))
        );
        assert!(
            meta(&b).get("bank_slip").is_none() && meta(&b).get("pix").is_none(),
            "{b}"
        );
    }
    // Neither profile's answers leave the contract as the fake checks them.
    assert!(
        ours.fake.contract_violations().is_empty() && others.fake.contract_violations().is_empty()
    );
}
