//! The fake holds every request to the contract of `tests/contract/billing-v1.json` (400
//! `contract_violation`, no handler runs), serves only answers that follow its schemas,
//! counts both kinds, and writes the run-wide record `contract-report` sums up.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::fake::support::{Api, UA, assert_error, start_fake_binary};
use fake_kobana::contract::{check_schema, contract};
use fake_kobana::fixtures::ids;
use fake_kobana::{FakeKobana, ViolationKind};
use reqwest::Method;
use serde_json::{Value, json};

/// The MCP server's `User-Agent` shape (`shared/src/config.rs`).
const SERVER_UA: &str = "Kobana MCP Server/0.1.0 <ops@example.com.br>";

/// What a test request carries as its body.
enum Body {
    None,
    Json(Value),
    Raw(&'static str),
}

async fn send(api: &Api, method: Method, path: &str, body: Body, ua: &str) -> (u16, Value) {
    let mut req = api
        .http
        .request(method, api.url(path))
        .bearer_auth(&api.token)
        .header("User-Agent", ua)
        .header("Content-Type", "application/json");
    req = match body {
        Body::None => req,
        Body::Json(v) => req.json(&v),
        Body::Raw(text) => req.header("Content-Type", "application/json").body(text),
    };
    let resp = req.send().await.expect("request reaches the fake");
    let status = resp.status().as_u16();
    let text = resp.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// Sends one request and asserts the 400 names `want` (first in the message), reports the
/// operation, and is counted as a request violation.
async fn rejects(method: Method, path: &str, body: Body, op: Option<&str>, want: &str) {
    let api = Api::new().await;
    let (status, resp) = send(&api, method, path, body, UA).await;
    let details = assert_error(status, &resp, 400, "contract_violation");
    assert_eq!(details["violations"][0], want, "{resp}");
    assert_eq!(details["operation"], json!(op));
    let message = resp["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Requisição fora do contrato da API de cobrança: ")
            && message.contains(want),
        "{message}"
    );
    let counted = api.fake.contract_violations();
    assert_eq!(counted.len(), 1, "{counted:#?}");
    assert_eq!(counted[0].kind, ViolationKind::Request);
    assert_eq!(counted[0].problems[0], want);
    assert_eq!(counted[0].operation.as_deref(), op);
    assert_eq!(counted[0].user_agent.as_deref(), Some(UA));
}

// ---------- each kind of deviation ----------

#[tokio::test]
async fn contract_rejects_unknown_operation() {
    rejects(
        Method::GET,
        "/v1/foo",
        Body::None,
        None,
        "unknown operation GET /v1/foo",
    )
    .await;
    rejects(
        Method::PUT,
        &format!("/v1/invoices/{}", ids::INV_OPEN),
        Body::Json(json!({})),
        None,
        &format!("unknown operation PUT /v1/invoices/{}", ids::INV_OPEN),
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_path_parameter_that_is_not_a_uuid() {
    rejects(
        Method::GET,
        "/v1/payments/pay-1",
        Body::None,
        Some("payments.get"),
        "path.id: \"pay-1\" is not a uuid",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_unknown_query_parameter() {
    rejects(
        Method::GET,
        &format!("/v1/customers/{}?include=billing_accounts", ids::PADARIA),
        Body::None,
        Some("customers.get"),
        "query.include: unknown parameter",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_query_value_that_does_not_parse() {
    rejects(
        Method::GET,
        "/v1/invoices?page=two",
        Body::None,
        Some("invoices.list"),
        "query.page: \"two\" is not an integer",
    )
    .await;
    rejects(
        Method::GET,
        "/v1/payments?amount_min=R%2410",
        Body::None,
        Some("payments.list"),
        "query.amount_min: \"R$10\" is not a number",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_query_value_outside_the_enum() {
    rejects(
        Method::GET,
        "/v1/payments?status=paid",
        Body::None,
        Some("payments.list"),
        "query.status: \"paid\" is not one of pending, processing, succeeded, failed, canceled, partial, refunded, partially_refunded",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_query_value_with_the_wrong_format() {
    rejects(
        Method::GET,
        "/v1/nfes?created_after=20%2F08%2F2026",
        Body::None,
        Some("nfes.list"),
        "query.created_after: \"20/08/2026\" is not a date (YYYY-MM-DD)",
    )
    .await;
    rejects(
        Method::GET,
        "/v1/billing_accounts?person_id=crm-000202",
        Body::None,
        Some("billing_accounts.list"),
        "query.person_id: \"crm-000202\" is not a uuid",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_query_value_out_of_range() {
    rejects(
        Method::GET,
        "/v1/plans?per_page=500",
        Body::None,
        Some("plans.list"),
        "query.per_page: 500 is more than the maximum 100",
    )
    .await;
    rejects(
        Method::GET,
        "/v1/subscriptions?recurring_amount_min=-1",
        Body::None,
        Some("subscriptions.list"),
        "query.recurring_amount_min: -1.0 is less than the minimum 0",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_repeated_query_parameter() {
    rejects(
        Method::GET,
        "/v1/invoices?status=open&status=paid",
        Body::None,
        Some("invoices.list"),
        "query.status: repeated parameter",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_body_on_an_operation_without_one() {
    rejects(
        Method::POST,
        &format!("/v1/nfes/{}/issue", ids::NFE_ERROR),
        Body::Json(json!({})),
        Some("nfes.issue"),
        "body: the operation takes no body",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_missing_or_non_object_body() {
    let void = format!("/v1/invoices/{}/void", ids::INV_OPEN);
    rejects(
        Method::POST,
        &void,
        Body::None,
        Some("invoices.void"),
        "body: missing, expected a JSON object (InvoiceVoidRequest)",
    )
    .await;
    rejects(
        Method::POST,
        &void,
        Body::Raw("[\"duplicada\"]"),
        Some("invoices.void"),
        "body: expected a JSON object (InvoiceVoidRequest), got array",
    )
    .await;
    rejects(
        Method::POST,
        &void,
        Body::Raw("{reason: duplicada}"),
        Some("invoices.void"),
        "body: not valid JSON",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_unknown_body_field_at_any_depth() {
    rejects(
        Method::POST,
        "/v1/invoices",
        Body::Json(json!({"billing_account_id": ids::BA_PADARIA,
            "line_items": [{"description": "Hora técnica", "unit_amount_subcents": 1_500_000, "unit_amount_cents": 15_000}]})),
        Some("invoices.create"),
        "body.line_items[0].unit_amount_cents: unknown field",
    )
    .await;
    rejects(
        Method::POST,
        "/v1/customers",
        Body::Json(
            json!({"name": "Cliente", "addresses": [{"street": "Rua A", "zip": "01310-200"}]}),
        ),
        Some("customers.create"),
        "body.addresses[0].zip: unknown field",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_body_field_of_the_wrong_type() {
    rejects(
        Method::POST,
        &format!("/v1/subscriptions/{}/cancel", ids::SUB_ACTIVE),
        Body::Json(json!({"cancel_at_period_end": "yes"})),
        Some("subscriptions.cancel"),
        "body.cancel_at_period_end: expected boolean, got string \"yes\"",
    )
    .await;
    rejects(
        Method::POST,
        "/v1/subscriptions",
        Body::Json(json!({"billing_account_id": ids::BA_MARIANA,
            "items": [{"product_id": ids::PROD_EXTRA_USER, "price_id": ids::PRICE_EXTRA_USER, "quantity": 1.5}]})),
        Some("subscriptions.create"),
        "body.items[0].quantity: expected integer, got number 1.5",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_body_value_outside_the_enum() {
    rejects(
        Method::POST,
        &format!("/v1/subscriptions/{}/pause", ids::SUB_ACTIVE),
        Body::Json(json!({"behavior": "skip"})),
        Some("subscriptions.pause"),
        "body.behavior: \"skip\" is not one of mark_uncollectible, keep_as_draft, void",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_missing_required_body_field() {
    rejects(
        Method::POST,
        "/v1/invoices",
        Body::Json(json!({"line_items": [{"description": "Hora", "unit_amount_subcents": 1}]})),
        Some("invoices.create"),
        "body.billing_account_id: required field missing",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_body_string_shorter_than_min_length() {
    rejects(
        Method::POST,
        &format!("/v1/nfes/{}/cancel", ids::NFE_ISSUED),
        Body::Json(json!({"reason": "Erro de valor"})),
        Some("nfes.cancel"),
        "body.reason: \"Erro de valor\" is shorter than 15 characters",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_body_number_below_the_minimum() {
    rejects(
        Method::POST,
        &format!("/v1/payments/{}/refund", ids::PAY_PIX),
        Body::Json(json!({"amount_cents": 0})),
        Some("payments.refund"),
        "body.amount_cents: 0 is less than the minimum 1",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_array_with_too_few_or_too_many_items() {
    let installments = json!([{"amount_cents": 100, "due_date": "2026-09-01"}]);
    rejects(
        Method::POST,
        "/v1/invoices",
        Body::Json(
            json!({"billing_account_id": ids::BA_PADARIA, "installments": installments,
            "line_items": [{"description": "Hora", "unit_amount_subcents": 1_000_000}]}),
        ),
        Some("invoices.create"),
        "body.installments: 1 items, at least 2 required",
    )
    .await;
    let many: Vec<Value> = (0..201)
        .map(|_| json!({"description": "x", "unit_amount_subcents": 1}))
        .collect();
    rejects(
        Method::POST,
        "/v1/invoices",
        Body::Json(json!({"billing_account_id": ids::BA_PADARIA, "line_items": many})),
        Some("invoices.create"),
        "body.line_items: 201 items, at most 200 allowed",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_null_where_not_nullable() {
    rejects(
        Method::PATCH,
        &format!("/v1/customers/{}", ids::MARIANA),
        Body::Json(json!({"custom_metadata": null})),
        Some("customers.update"),
        "body.custom_metadata: null is not allowed",
    )
    .await;
}

#[tokio::test]
async fn contract_rejects_user_agent_without_contact_email() {
    let api = Api::new().await;
    let (status, body) = send(
        &api,
        Method::GET,
        "/v1/organization",
        Body::None,
        "kobana-mcp/0.1",
    )
    .await;
    let details = assert_error(status, &body, 400, "contract_violation");
    assert_eq!(
        details["violations"],
        json!(["header.User-Agent: \"kobana-mcp/0.1\" carries no contact e-mail"])
    );
    assert_eq!(api.fake.contract_violations().len(), 1);
    // A missing User-Agent stays Kobana's own 400 invalid_request, before the contract.
    let resp = api
        .raw(
            Method::GET,
            "/v1/organization",
            Some(&api.token),
            None,
            None,
        )
        .await;
    assert_eq!(resp.status().as_u16(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "invalid_request");
}

#[tokio::test]
async fn contract_rejects_idempotency_key_that_is_not_a_uuid() {
    let api = Api::new().await;
    let resp = api
        .http
        .post(api.url(&format!("/v1/invoices/{}/void", ids::INV_OPEN)))
        .bearer_auth(&api.token)
        .header("User-Agent", UA)
        .header("X-Idempotency-Key", "void-1")
        .json(&json!({"reason": "Cobrança emitida em duplicidade"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["error"]["details"]["violations"],
        json!(["header.X-Idempotency-Key: \"void-1\" is not a uuid"])
    );
}

// ---------- what passes, and what a violation does not do ----------

#[tokio::test]
async fn contract_accepts_a_request_with_a_valid_body() {
    let api = Api::new().await;
    let (status, body) = send(
        &api,
        Method::POST,
        "/v1/invoices",
        Body::Json(json!({
            "billing_account_id": ids::BA_HORIZONTE, "external_id": "erp-77",
            "collection_method": "manual_charge", "due_date": "2026-09-15",
            "description": "Implantação", "discount_cents": 0, "nfe_issuance_policy": "per_installment",
            "custom_metadata": {"pedido": 77},
            "installments": [{"amount_cents": 75_000, "due_date": "2026-09-15"},
                             {"amount_cents": 75_000, "due_date": "2026-10-15"}],
            "line_items": [{"description": "Implantação assistida", "quantity": 1,
                            "unit_amount_subcents": 15_000_000, "product_id": ids::PROD_ONBOARDING}]
        })),
        UA,
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["installment_count"], 2);
    assert_eq!(body["data"]["due_date"], "2026-09-15T03:00:00Z");
    assert!(api.fake.contract_violations().is_empty());
    assert_eq!(api.fake.exercised_operations(), vec!["invoices.create"]);
}

#[tokio::test]
async fn contract_violation_never_reaches_the_handler() {
    let api = Api::new().await;
    let (status, _) = send(
        &api,
        Method::POST,
        &format!("/v1/invoices/{}/void", ids::INV_OPEN),
        Body::Json(json!({"reason": "Duplicada", "notify": true})),
        UA,
    )
    .await;
    assert_eq!(status, 400);
    let (_, inv) = api.get(&format!("/v1/invoices/{}", ids::INV_OPEN)).await;
    assert_eq!(inv["data"]["status"], "open", "not voided");
    let calls = api.fake.calls();
    assert_eq!(calls.len(), 2, "the rejected request is still recorded");
    assert!(calls[0].authorized);
}

#[tokio::test]
async fn violations_and_exercised_operations_are_counted_and_survive_reset() {
    let api = Api::new().await;
    api.get("/v1/organization").await;
    api.get("/v1/invoices?status=overdue").await;
    api.get("/v1/nope").await;
    api.fake.reset();
    api.get(&format!("/v1/invoices/{}", ids::INV_OPEN)).await;
    assert_eq!(
        api.fake.exercised_operations(),
        vec!["invoices.get", "invoices.list", "organization.get"]
    );
    let v = api.fake.contract_violations();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].operation.as_deref(), Some("invoices.list"));
    assert_eq!(v[0].path, "/v1/invoices?status=overdue");
    assert_eq!(v[1].operation, None);
    // Unauthorized requests never reach the contract check.
    api.raw(Method::GET, "/v1/nope", None, Some(UA), None).await;
    assert_eq!(api.fake.contract_violations().len(), 2);
}

// ---------- the fixtures follow the schemas ----------

async fn checked(api: &Api, path: &str, schema: &str) -> Value {
    let (status, body) = api.get(path).await;
    assert_eq!(status, 200, "{path}: {body}");
    let problems = check_schema(schema, &body, "answer");
    assert!(
        problems.is_empty(),
        "{path} against {schema}: {problems:#?}"
    );
    body
}

#[tokio::test]
async fn every_fixture_record_validates_against_its_schema() {
    let api = Api::new().await;
    let resources = [
        ("/v1/customers", "Customer", 4),
        ("/v1/billing_accounts", "BillingAccount", 4),
        ("/v1/subscriptions", "Subscription", 3),
        ("/v1/invoices", "Invoice", 8),
        ("/v1/payments", "Payment", 4),
        ("/v1/nfes", "Nfe", 2),
        ("/v1/plans", "Plan", 3),
        ("/v1/products?status=all", "Product", 5),
    ];
    for (list, name, count) in resources {
        let body = checked(
            &api,
            &format!(
                "{list}{}per_page=100",
                if list.contains('?') { "&" } else { "?" }
            ),
            &format!("{name}ListResponse"),
        )
        .await;
        let records = body["data"].as_array().unwrap();
        assert_eq!(records.len(), count, "{list}");
        let base = list.split('?').next().unwrap();
        for r in records {
            let id = r["id"].as_str().unwrap();
            let one = checked(&api, &format!("{base}/{id}"), &format!("{name}Response")).await;
            assert_eq!(one["data"]["id"], id);
        }
    }
    for plan in [
        ids::PLAN_PRO,
        ids::PLAN_ENTERPRISE_HORIZONTE,
        ids::PLAN_BASIC_ARCHIVED,
    ] {
        checked(
            &api,
            &format!("/v1/plans/{plan}/items"),
            "PlanItemListResponse",
        )
        .await;
    }
    for view in ["pending-payment", "pending-nfe"] {
        checked(&api, &format!("/v1/invoices/{view}"), "InvoiceListResponse").await;
    }
    checked(&api, "/v1/organization", "OrganizationResponse").await;
    let other = fake_kobana::scoped_token("bob", "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0ff", "read");
    let (_, org) = api
        .call_as(&other, Method::GET, "/v1/organization", None)
        .await;
    assert!(
        check_schema("OrganizationResponse", &org, "answer").is_empty(),
        "{org}"
    );
    // The embedded relations of the single reads follow their schemas too.
    let account = checked(
        &api,
        &format!("/v1/billing_accounts/{}", ids::BA_HORIZONTE),
        "BillingAccountResponse",
    )
    .await;
    assert_eq!(account["data"]["customer"]["kind"], "company");
    let invoice = checked(
        &api,
        &format!("/v1/invoices/{}", ids::INV_OVERDUE),
        "InvoiceResponse",
    )
    .await;
    assert_eq!(invoice["data"]["line_items"][0]["amount_cents"], 1_198_800);
    assert!(
        api.fake.contract_violations().is_empty(),
        "{:#?}",
        api.fake.contract_violations()
    );
}

#[test]
fn every_operation_has_a_route_in_the_fake() {
    // The fake's router and the contract agree: every hand-written route is a path of the
    // contract, and whatever has none is answered by the generic responder (its fallback;
    // WA-5's test sends every operation).
    let routed = include_str!("../../src/routes/mod.rs");
    let paths: Vec<&str> = routed
        .split(".route(")
        .skip(1)
        .filter_map(|rest| rest.trim_start().strip_prefix('"')?.split('"').next())
        .collect();
    assert!(paths.len() >= 30, "{paths:?}");
    for path in paths {
        assert!(
            contract().operations.iter().any(|op| op.path == path),
            "{path} is routed but not in the contract"
        );
    }
    assert!(routed.contains("generic::respond"), "no generic fallback");
}

// ---------- the run-wide record ----------

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!(
        "kobana-contract-{name}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn lines_in(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        out.extend(
            text.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()),
        );
    }
    out
}

fn report(dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_contract-report"))
        .arg(dir)
        .output()
        .expect("run contract-report");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[tokio::test]
async fn contract_log_records_server_requests_only() {
    let dir = temp_dir("log");
    let fake = FakeKobana::start_with_contract_log(&dir).await.unwrap();
    let path = fake.contract_log_path().unwrap();
    let api = Api::with_fake(fake);
    // The tests' own requests (valid or not) are not the server's: nothing written.
    api.get("/v1/organization").await;
    api.get("/v1/foo").await;
    assert!(!path.exists(), "no file before a server request");
    for _ in 0..2 {
        send(
            &api,
            Method::GET,
            "/v1/invoices?status=open",
            Body::None,
            SERVER_UA,
        )
        .await;
    }
    let get = format!("/v1/customers/{}?include=billing_accounts", ids::PADARIA);
    send(&api, Method::GET, &get, Body::None, SERVER_UA).await;

    let lines = lines_in(&dir);
    assert_eq!(
        lines[..2],
        [
            json!({"exercised": "invoices.list"}),
            json!({"exercised": "customers.get"})
        ],
        "{lines:#?}"
    );
    assert_eq!(
        lines.len(),
        3,
        "exercised once each, then the violation: {lines:#?}"
    );
    let v = &lines[2]["violation"];
    assert_eq!(v["kind"], "request");
    assert_eq!(v["operation"], "customers.get");
    assert_eq!(v["user_agent"], SERVER_UA);
    assert_eq!(v["problems"], json!(["query.include: unknown parameter"]));
    assert!(
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{}-", std::process::id()))
    );
    // The instance still counts everything, whoever sent it.
    assert_eq!(api.fake.contract_violations().len(), 2);
    assert!(
        api.fake
            .exercised_operations()
            .contains(&"organization.get".to_string())
    );

    let (code, out) = report(&dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with(&format!(
            "contract: {} operations: 2 exercised, 0 refused without a call, 1 violations",
            contract().operations.len()
        )),
        "{out}"
    );
    assert!(out.contains("- query.include: unknown parameter"), "{out}");
    let nfes = out.lines().find(|l| l.starts_with("  nfes (22): "));
    assert!(nfes.is_some_and(|l| l.contains(" nfes.xml")), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn contract_report_passes_only_when_every_operation_ran_without_violations() {
    let all: String = contract()
        .operations
        .iter()
        .map(|op| format!("{}\n", json!({"exercised": op.id})))
        .collect();
    let dir = temp_dir("report");
    let (half, rest) = all.split_at(all.len() / 2);
    let cut = half.rfind('\n').unwrap() + 1;
    std::fs::write(dir.join("1-0.jsonl"), &all[..cut]).unwrap();
    let (code, out) = report(&dir);
    assert_eq!(code, 1, "half the operations: {out}");
    assert!(out.contains("neither exercised nor refused (130)"), "{out}");
    std::fs::write(dir.join("2-0.jsonl"), format!("{}{rest}", &half[cut..])).unwrap();
    let (code, out) = report(&dir);
    assert_eq!(code, 0, "{out}");
    let n = contract().operations.len();
    assert_eq!(
        out,
        format!(
            "contract: {n} operations: {n} exercised, 0 refused without a call, 0 violations\n"
        )
    );
    let violation = json!({"violation": {"kind": "answer", "operation": "plans.get", "method": "GET",
        "path": "/v1/plans/x", "status": 200, "problems": ["answer.data.slug: required field missing"],
        "user_agent": SERVER_UA}});
    std::fs::write(dir.join("3-0.jsonl"), format!("{violation}\n")).unwrap();
    let (code, out) = report(&dir);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("answer plans.get GET /v1/plans/x → 200"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let (code, _) = report(&dir);
    assert_eq!(code, 2, "a missing directory is an error");
}

#[tokio::test]
async fn fake_binary_logs_to_the_directory_named_by_the_environment() {
    let dir = temp_dir("binary");
    let (mut child, lines) = start_fake_binary(&[("KOBANA_CONTRACT_LOG", &dir)], 2).await;
    let base = lines
        .iter()
        .find_map(|l| l.strip_prefix("base_url="))
        .unwrap_or_else(|| panic!("no base_url in {lines:?}"))
        .to_string();
    let http = kobana_mcp::net::client_builder().build().unwrap();
    let resp = http
        .get(format!("{base}/v1/organization"))
        .bearer_auth(fake_kobana::full_token())
        .header("User-Agent", SERVER_UA)
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let pid = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(dir.join(format!("{pid}-0.jsonl"))).expect("log file");
    assert_eq!(text, "{\"exercised\":\"organization.get\"}\n");
    let _ = std::fs::remove_dir_all(&dir);
}
