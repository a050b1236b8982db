//! WA-5: the fake plays every operation of the contract. A minimal valid request made from
//! each operation's contract gets a documented 2xx whose body the contract check passes
//! (hand-written route or the generic responder); the same request off the contract gets
//! 400 `contract_violation` and reaches no handler. The generic responder keeps what it is
//! sent: a created record is read back, listed, changed and deleted.

use std::collections::HashMap;

use fake_kobana::FakeKobana;
use fake_kobana::contract::{self, Answer, Operation, contract};
use fake_kobana::generic::request::{Minimal, minimal};
use reqwest::Method;
use serde_json::{Value, json};

use crate::fake::support::{Api, UA};

/// The fixture collections a path id or an id member can name.
const COLLECTIONS: [(&str, &str); 9] = [
    ("customers", "customer_id"),
    ("billing_accounts", "billing_account_id"),
    ("subscriptions", "subscription_id"),
    ("invoices", "invoice_id"),
    ("payments", "payment_id"),
    ("nfes", "nfe_id"),
    ("plans", "plan_id"),
    ("products", "product_id"),
    ("credits", "credit_id"),
];

/// Every id of each fixture collection.
fn fixture_ids(fake: &FakeKobana) -> HashMap<&'static str, Vec<String>> {
    COLLECTIONS
        .iter()
        .map(|(collection, _)| {
            let ids = fake
                .records(collection)
                .iter()
                .filter_map(|r| r["id"].as_str().map(str::to_owned))
                .collect();
            (*collection, ids)
        })
        .collect()
}

/// The requests to try for `op`: one per fixture record its path can name (a hand-written
/// route needs a record in the right state), then one with made-up ids.
fn candidates(op: &Operation, ids: &HashMap<&'static str, Vec<String>>) -> Vec<Minimal> {
    let known = |member: &str| {
        let collection = COLLECTIONS.iter().find(|(_, m)| *m == member)?.0;
        ids.get(collection)?.first().cloned()
    };
    let first_param = op.path.split('/').position(|s| s.starts_with('{'));
    let collection = first_param.map(|at| op.path.split('/').nth(at - 1).unwrap_or(""));
    let mut out = Vec::new();
    for record in collection.and_then(|c| ids.get(c)).into_iter().flatten() {
        let record = record.clone();
        let path_id = move |_: &str, before: &str| {
            collection.filter(|c| *c == before).map(|_| record.clone())
        };
        out.push(minimal(op, &path_id, &known));
    }
    out.push(minimal(op, &|_, _| None, &known));
    out
}

async fn send(fake: &FakeKobana, req: &Minimal, extra_query: Option<&str>) -> reqwest::Response {
    let http = kobana_mcp::net::client_builder().build().unwrap();
    let mut url = format!("{}{}", fake.base_url(), req.path);
    if let Some(extra) = extra_query {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(extra);
    }
    http.request(Method::from_bytes(req.method.as_bytes()).unwrap(), url)
        .bearer_auth(fake.full_token())
        .header("User-Agent", UA)
        .header("Content-Type", &req.content_type)
        .body(req.body.clone())
        .send()
        .await
        .expect("the fake answers")
}

/// Operations whose hand-written route needs a state no fixture is in, and the operation
/// that puts the same record there first.
const PREPARE: [(&str, &str); 1] = [("subscriptions.resume", "subscriptions.pause")];

/// Body members whose rule Kobana's description states and its schema cannot (so the
/// contract's minimal value breaks it), and the value that keeps it: the day after the fake's
/// today for "a future date only" (`change-due-date`).
fn ruled_member(op: &Operation) -> Option<(&'static str, Value)> {
    let tomorrow = fake_kobana::clock::format_date(fake_kobana::clock::today() + 1);
    match op.id.as_str() {
        "post-payments-id-change-due-date" => Some(("due_date", json!(tomorrow))),
        _ => None,
    }
}

/// `req` with the member its operation's rule asks for ([`ruled_member`]).
fn within_rules(op: &Operation, mut req: Minimal) -> Minimal {
    if let Some((member, value)) = ruled_member(op) {
        let mut body: Value = serde_json::from_slice(&req.body).expect("a JSON body");
        assert!(body.get(member).is_some(), "{}: no {member} to set", op.id);
        body[member] = value;
        req.body = body.to_string().into_bytes();
    }
    req
}

/// The first candidate answered 2xx, with its answer's deviations; or every status seen.
async fn play(op: &'static Operation) -> Result<Vec<String>, String> {
    let fake = FakeKobana::start_with_readings(fake_kobana::Readings::ours()).await;
    let ids = fixture_ids(&fake);
    let before = PREPARE.iter().find(|(id, _)| *id == op.id);
    let before = before.map(|(_, first)| contract().operation(first).expect("in the contract"));
    let mut seen = Vec::new();
    for (n, req) in candidates(op, &ids).into_iter().enumerate() {
        let req = within_rules(op, req);
        if let Some(first) = before {
            send(&fake, &candidates(first, &ids).remove(n), None).await;
        }
        let resp = send(&fake, &req, None).await;
        let status = resp.status().as_u16();
        let content_type = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = resp.bytes().await.unwrap();
        if !(200..300).contains(&status) {
            seen.push(format!(
                "{} {} → {status} {}",
                req.method,
                req.path,
                String::from_utf8_lossy(&body)
            ));
            continue;
        }
        let json = content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("application/json"));
        let mut found = contract::check_answer(
            op,
            &Answer {
                status,
                content_type: content_type.as_deref(),
                body: json.then_some(&body[..]),
            },
        );
        if op.success.binary.is_some() && body.len() < 100 {
            found.push(format!("binary answer of {} bytes", body.len()));
        }
        found.extend(
            fake.contract_violations()
                .iter()
                .flat_map(|v| v.problems.clone()),
        );
        return Ok(found);
    }
    Err(seen.join("\n    "))
}

#[tokio::test]
async fn wa5_every_operation_answers_a_minimal_valid_request_on_the_contract() {
    let ops = &contract().operations;
    assert_eq!(ops.len(), 260);
    let mut problems = Vec::new();
    for op in ops {
        match play(op).await {
            Ok(found) if found.is_empty() => {}
            Ok(found) => problems.push(format!("{}: {found:#?}", op.id)),
            Err(seen) => problems.push(format!("{}: no 2xx\n    {seen}", op.id)),
        }
    }
    assert!(
        problems.is_empty(),
        "{} operations:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[tokio::test]
async fn wa5_every_operation_off_the_contract_is_400_and_reaches_no_handler() {
    let fake = FakeKobana::start_with_readings(fake_kobana::Readings::ours()).await;
    let ids = fixture_ids(&fake);
    for op in &contract().operations {
        let req = candidates(op, &ids).pop().unwrap();
        let resp = send(&fake, &req, Some("fora_do_contrato=1")).await;
        let status = resp.status().as_u16();
        let body: Value = resp.json().await.unwrap();
        assert_eq!(status, 400, "{}: {body}", op.id);
        assert_eq!(body["error"]["code"], "contract_violation", "{}", op.id);
        assert_eq!(
            body["error"]["details"]["operation"],
            json!(op.id),
            "{}",
            op.id
        );
        assert_eq!(
            body["error"]["details"]["violations"][0], "query.fora_do_contrato: unknown parameter",
            "{}",
            op.id
        );
    }
    assert_eq!(
        fake.handled(),
        0,
        "an off-contract request reached a handler"
    );
}

/// WA-3: the document asks `Content-Type: application/json` of every request, bodyless
/// ones too, and the multipart operation its own type: without it the fake refuses.
#[tokio::test]
async fn wa3_a_request_without_its_content_type_is_off_the_contract() {
    let api = Api::new().await;
    let http = kobana_mcp::net::client_builder().build().unwrap();
    let bare = http
        .get(api.url("/v1/organization"))
        .bearer_auth(&api.token)
        .header("User-Agent", UA)
        .send()
        .await
        .unwrap();
    assert_eq!(bare.status().as_u16(), 400);
    let body: Value = bare.json().await.unwrap();
    assert_eq!(
        body["error"]["details"]["violations"],
        json!([
            "header.Content-Type: missing; the contract asks application/json of every request"
        ])
    );
    let certificates = contract().operation("post-certificates").unwrap();
    let mut upload = minimal(certificates, &|_, _| None, &|_| None);
    let ok = send(&api.fake, &upload, None).await.status().as_u16();
    assert_eq!(ok, 201, "the multipart upload with its own type");
    upload.content_type = "application/json".to_owned();
    let wrong = send(&api.fake, &upload, None).await;
    let body: Value = wrong.json().await.unwrap();
    assert_eq!(body["error"]["code"], "contract_violation", "{body}");
    assert_eq!(api.fake.handled(), 1);
}

/// The generic responder's store: a coupon created is read back, listed, changed and
/// deleted (then 404), each answer on the contract; the list pages with `meta`.
#[tokio::test]
async fn wa5_the_generic_responder_keeps_what_it_is_sent() {
    let api = Api::new().await;
    let (status, created) = api
        .post(
            "/v1/coupons",
            json!({"code": "BEMVINDO10", "name": "Boas-vindas",
            "discount_type": "percentage", "discount_value": 10}),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    assert_eq!(created["data"]["code"], "BEMVINDO10");
    let (status, read) = api.get(&format!("/v1/coupons/{id}")).await;
    assert_eq!(
        (status, &read["data"]["name"]),
        (200, &json!("Boas-vindas"))
    );
    let (_, page) = api.get("/v1/coupons?per_page=2&page=2").await;
    assert_eq!(
        page["meta"],
        json!({"total": 3, "page": 2, "per_page": 2, "total_pages": 2})
    );
    assert_eq!(
        page["data"][0]["id"],
        json!(id),
        "created after the two seeded"
    );
    let (status, changed) = api
        .patch(
            &format!("/v1/coupons/{id}"),
            json!({"name": "Boas-vindas 2026"}),
        )
        .await;
    assert_eq!(
        (status, &changed["data"]["name"]),
        (200, &json!("Boas-vindas 2026"))
    );
    let (status, _) = api.delete(&format!("/v1/coupons/{id}")).await;
    assert_eq!(status, 200);
    assert_eq!(api.get(&format!("/v1/coupons/{id}")).await.0, 404);
    let (_, page) = api.get("/v1/coupons").await;
    assert_eq!(page["meta"]["total"], 2);
    let (_, usage) = api.get("/v1/usage?limit=1&offset=1").await;
    assert_eq!(usage["meta"]["limit"], 1);
    assert_eq!(usage["meta"]["offset"], 1);
    assert_eq!(usage["data"].as_array().unwrap().len(), 1);
    assert!(
        api.fake.contract_violations().is_empty(),
        "{:#?}",
        api.fake.contract_violations()
    );
}

/// Every operation's resource (its first path segment) is a permission word of its own:
/// `<resource>:read` reads it, only `<resource>:write` writes it, and a token without it gets
/// 403 `insufficient_scope` naming the word required and the words granted.
#[tokio::test]
async fn wa5_every_resource_has_its_own_permission_words() {
    let api = Api::new().await;
    let mut resources: Vec<&str> = contract()
        .operations
        .iter()
        .filter_map(|op| op.path.strip_prefix("/v1/")?.split('/').next())
        .collect();
    resources.sort_unstable();
    resources.dedup();
    let mut sorted = fake_kobana::auth::RESOURCES.to_vec();
    sorted.sort_unstable();
    assert_eq!(resources, sorted);
    for resource in resources {
        let read = contract()
            .operations
            .iter()
            .find(|op| op.method == "GET" && op.path.starts_with(&format!("/v1/{resource}")))
            .expect("every resource has a read");
        let req = minimal(read, &|_, _| None, &|_| None);
        let other = if resource == "coupons" {
            "credits"
        } else {
            "coupons"
        };
        let scope = format!("{other}:write");
        let token = fake_kobana::scoped_token("person-ana", fake_kobana::FIXTURE_ORG_ID, &scope);
        let (status, body) = api.call_as(&token, Method::GET, &req.path, None).await;
        assert_eq!(status, 403, "{resource}: {body}");
        assert_eq!(body["error"]["code"], "insufficient_scope");
        assert_eq!(
            body["error"]["details"],
            json!({"required": [format!("{resource}:read")], "granted": [scope]})
        );
        let token = fake_kobana::scoped_token(
            "person-ana",
            fake_kobana::FIXTURE_ORG_ID,
            &format!("{resource}:read"),
        );
        let (status, body) = api.call_as(&token, Method::GET, &req.path, None).await;
        assert_ne!(status, 403, "{resource}: {body}");
    }
    let token =
        fake_kobana::scoped_token("person-ana", fake_kobana::FIXTURE_ORG_ID, "coupons:read");
    let (status, body) = api
        .call_as(&token, Method::POST, "/v1/coupons", Some(&json!({})))
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        body["error"]["details"]["required"],
        json!(["coupons:write"])
    );
}
