//! Documents (PDF/XML), fault injection, the `/__fake` controls, the call record and the binary.

use std::time::{Duration, Instant};

use crate::fake::support::{Api, UA, assert_error, json_body, start_fake_binary};
use fake_kobana::fixtures::ids;
use fake_kobana::{Claims, DocKind, FIXTURE_ORG_ID, FakeKobana, Fault, FaultKind};
use futures_util::StreamExt;
use reqwest::Method;
use serde_json::{Value, json};

async fn get_raw(api: &Api, path: &str) -> reqwest::Response {
    api.raw(Method::GET, path, Some(&api.token), Some(UA), None)
        .await
}

// ---------- documents ----------

#[tokio::test]
async fn invoice_pdf_is_byte_exact_with_default_size() {
    let api = Api::new().await;
    let resp = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN)).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/pdf");
    let len = resp.content_length();
    let bytes = resp.bytes().await.unwrap();
    assert_eq!(len, Some(bytes.len() as u64));
    assert_eq!(bytes.len(), 20 * 1024);
    assert!(bytes.starts_with(b"%PDF-1.7\n"));
    assert!(bytes.ends_with(b"%%EOF\n"));
    let expected = api
        .fake
        .pdf_bytes(DocKind::Invoice, ids::INV_OPEN)
        .expect("served");
    assert_eq!(bytes.as_ref(), expected.as_slice());
    let other = api
        .fake
        .pdf_bytes(DocKind::Invoice, ids::INV_OVERDUE)
        .unwrap();
    assert_ne!(other, expected, "content depends on the id");
}

#[tokio::test]
async fn draft_invoice_and_unissued_nfe_have_no_pdf() {
    let api = Api::new().await;
    let (status, body) = api
        .get(&format!("/v1/invoices/{}/pdf", ids::INV_DRAFT))
        .await;
    assert_error(status, &body, 404, "not_found");
    assert!(
        api.fake
            .pdf_bytes(DocKind::Invoice, ids::INV_DRAFT)
            .is_none()
    );
    let (status, _) = api.get(&format!("/v1/nfes/{}/pdf", ids::NFE_ERROR)).await;
    assert_eq!(status, 404);
    assert!(api.fake.pdf_bytes(DocKind::Nfe, ids::NFE_ERROR).is_none());
    assert!(api.fake.pdf_bytes(DocKind::Nfe, "unknown").is_none());
}

#[tokio::test]
async fn large_pdf_with_and_without_content_length() {
    let api = Api::new().await;
    let size = 9_900_000;
    api.fake.set_pdf_size(ids::NFE_ISSUED, size);
    let expected = api.fake.pdf_bytes(DocKind::Nfe, ids::NFE_ISSUED).unwrap();
    assert_eq!(expected.len(), size);
    assert!(expected.starts_with(b"%PDF-1.7\n") && expected.ends_with(b"%%EOF\n"));
    let path = format!("/v1/nfes/{}/pdf", ids::NFE_ISSUED);

    let resp = get_raw(&api, &path).await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/pdf");
    assert_eq!(resp.content_length(), Some(size as u64));
    let mut chunks = 0;
    let mut got = Vec::with_capacity(size);
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        got.extend_from_slice(&chunk.unwrap());
        chunks += 1;
    }
    assert!(chunks > 1, "streamed in chunks");
    assert!(got == expected, "byte-exact with Content-Length");

    api.fake.set_pdf_content_length(false);
    let resp = get_raw(&api, &path).await;
    assert_eq!(resp.content_length(), None);
    assert_eq!(resp.headers()["transfer-encoding"], "chunked");
    let got = resp.bytes().await.unwrap();
    assert!(got.as_ref() == expected.as_slice(), "byte-exact chunked");
}

#[tokio::test]
async fn small_pdf_sizes_are_exact() {
    let api = Api::new().await;
    for size in [15, 300, 5_000] {
        api.fake.set_pdf_size(ids::INV_OPEN, size);
        let bytes = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN))
            .await
            .bytes()
            .await
            .unwrap();
        assert_eq!(bytes.len(), size);
        assert!(bytes.starts_with(b"%PDF-1.7\n") && bytes.ends_with(b"%%EOF\n"));
    }
}

#[tokio::test]
async fn nfe_xml_is_built_from_the_record() {
    let api = Api::new().await;
    let resp = get_raw(&api, &format!("/v1/nfes/{}/xml", ids::NFE_ISSUED)).await;
    assert_eq!(resp.status().as_u16(), 200);
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("application/xml"), "{ct}");
    let xml = resp.text().await.unwrap();
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"));
    for needle in [
        "<Numero>1234</Numero>",
        "<ChaveAcesso>35503081211222333000181000000000123426074829135712</ChaveAcesso>",
        "<CodigoVerificacao>K7Q2-M9XA</CodigoVerificacao>",
        "<Cnpj>11222333000181</Cnpj>",
        "<RazaoSocial>Acme Software Ltda</RazaoSocial>",
        "<Cnpj>45321287000190</Cnpj>",
        "<RazaoSocial>Padaria Pão Dourado Ltda</RazaoSocial>",
        "<ValorServicos>499.00</ValorServicos>",
        "<ValorIss>9.98</ValorIss>",
        "<ItemListaServico>01.05</ItemListaServico>",
        "<CodigoMunicipio>3106200</CodigoMunicipio>",
        "<Email>financeiro@paodourado.com.br</Email>",
    ] {
        assert!(xml.contains(needle), "missing {needle} in\n{xml}");
    }
    let (status, body) = api.get(&format!("/v1/nfes/{}/xml", ids::NFE_ERROR)).await;
    assert_error(status, &body, 404, "not_found");
    let resp = get_raw(&api, &format!("/v1/nfes/{}/pdf", ids::NFE_ISSUED)).await;
    assert_eq!(resp.headers()["content-type"], "application/pdf");
}

// ---------- faults ----------

#[tokio::test]
async fn status_fault_counts_down_and_uses_the_envelope() {
    let api = Api::new().await;
    api.fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/invoices".into(),
        kind: FaultKind::Status {
            status: 503,
            retry_after: Some(1),
        },
        times: Some(2),
    });
    // Other methods and paths are untouched.
    assert_eq!(api.get("/v1/customers").await.0, 200);
    let (status, _) = api
        .post_empty(&format!("/v1/invoices/{}/send-reminder", ids::INV_OPEN))
        .await;
    assert_eq!(status, 200);
    for _ in 0..2 {
        let resp = get_raw(&api, "/v1/invoices").await;
        assert_eq!(resp.status().as_u16(), 503);
        assert_eq!(resp.headers()["retry-after"], "1");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["error"]["code"], "unavailable");
    }
    assert_eq!(api.get("/v1/invoices").await.0, 200);
}

#[tokio::test]
async fn rate_limit_and_internal_error_faults() {
    let api = Api::new().await;
    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/nfes".into(),
        kind: FaultKind::Status {
            status: 429,
            retry_after: Some(7),
        },
        times: Some(1),
    });
    let resp = get_raw(&api, "/v1/nfes").await;
    assert_eq!(resp.status().as_u16(), 429);
    let h = resp.headers().clone();
    assert_eq!(h["retry-after"], "7");
    assert_eq!(h["x-ratelimit-limit"], "100");
    assert_eq!(h["x-ratelimit-remaining"], "0");
    assert!(h.contains_key("request-id"));
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited");

    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/".into(),
        kind: FaultKind::Status {
            status: 500,
            retry_after: None,
        },
        times: None,
    });
    for path in ["/v1/customers", "/v1/organization", "/v1/nfes"] {
        let (status, body) = api.get(path).await;
        assert_error(status, &body, 500, "internal_error");
    }
    // Faults hit before auth.
    let resp = api
        .raw(Method::GET, "/v1/customers", None, Some(UA), None)
        .await;
    assert_eq!(resp.status().as_u16(), 500);
    api.fake.clear_faults();
    assert_eq!(api.get("/v1/customers").await.0, 200);
}

#[tokio::test]
async fn delay_fault_adds_latency() {
    let api = Api::new().await;
    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/organization".into(),
        kind: FaultKind::Delay { ms: 300 },
        times: Some(1),
    });
    let start = Instant::now();
    let (status, body) = api.get("/v1/organization").await;
    assert!(start.elapsed() >= Duration::from_millis(300));
    assert_eq!(status, 200);
    assert_eq!(body["data"]["id"], FIXTURE_ORG_ID);
    let start = Instant::now();
    api.get("/v1/organization").await;
    assert!(start.elapsed() < Duration::from_millis(300), "only once");
}

#[tokio::test]
async fn reset_mid_body_breaks_the_download() {
    let api = Api::new().await;
    api.fake.inject(Fault {
        method: Some("GET".into()),
        path_prefix: format!("/v1/invoices/{}/pdf", ids::INV_OPEN),
        kind: FaultKind::ResetMidBody,
        times: Some(1),
    });
    let resp = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN)).await;
    assert_eq!(resp.status().as_u16(), 200, "headers arrive");
    assert_eq!(resp.content_length(), Some(20 * 1024));
    assert!(resp.bytes().await.is_err(), "body is cut");
    let ok = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN)).await;
    assert_eq!(ok.bytes().await.unwrap().len(), 20 * 1024);
}

#[tokio::test]
async fn truncated_json_is_200_with_half_a_body() {
    let api = Api::new().await;
    let full = get_raw(&api, "/v1/customers").await.bytes().await.unwrap();
    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/customers".into(),
        kind: FaultKind::TruncatedJson,
        times: Some(1),
    });
    let resp = get_raw(&api, "/v1/customers").await;
    assert_eq!(resp.status().as_u16(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let cut = resp.bytes().await.unwrap();
    assert_eq!(cut.len(), full.len() / 2);
    assert_eq!(cut.as_ref(), &full[..full.len() / 2]);
    assert!(serde_json::from_slice::<Value>(&cut).is_err());
}

// ---------- call record and idempotency ----------

#[tokio::test]
async fn calls_record_every_v1_request() {
    let api = Api::new().await;
    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/payments".into(),
        kind: FaultKind::Status {
            status: 502,
            retry_after: None,
        },
        times: Some(1),
    });
    api.get("/v1/invoices?status=open&per_page=5").await;
    api.http
        .post(api.url(&format!("/v1/invoices/{}/void", ids::INV_OPEN)))
        .bearer_auth(&api.token)
        .header("User-Agent", UA)
        .header("X-Idempotency-Key", "3f0c6d2e-8a51-4c7e-9a56-1f4d2b7a9e10")
        .json(&json!({"reason": "Cobrança emitida em duplicidade"}))
        .send()
        .await
        .unwrap();
    api.raw(Method::GET, "/v1/customers", None, Some(UA), None)
        .await;
    api.get("/v1/payments").await;
    api.http.get(api.url("/__fake/calls")).send().await.unwrap();

    let calls = api.fake.calls();
    assert_eq!(calls.len(), 4, "{calls:#?}");
    assert_eq!(calls[0].method, "GET");
    assert_eq!(calls[0].path, "/v1/invoices");
    assert_eq!(calls[0].query.as_deref(), Some("status=open&per_page=5"));
    assert_eq!(calls[0].user_agent.as_deref(), Some(UA));
    assert!(calls[0].authorized);
    assert!(calls[0].body.is_none());
    assert_eq!(calls[1].method, "POST");
    assert_eq!(
        calls[1].idempotency_key.as_deref(),
        Some("3f0c6d2e-8a51-4c7e-9a56-1f4d2b7a9e10")
    );
    assert_eq!(
        calls[1].body,
        Some(json!({"reason": "Cobrança emitida em duplicidade"}))
    );
    assert!(!calls[2].authorized);
    assert_eq!(calls[3].path, "/v1/payments");
    assert!(calls[3].authorized, "faulted requests are recorded too");
    api.fake.clear_calls();
    assert!(api.fake.calls().is_empty());
}

#[tokio::test]
async fn idempotency_key_replays_the_first_response() {
    let api = Api::new().await;
    let send = |key: &'static str, path: String| {
        let req = api
            .http
            .post(api.url(&path))
            .bearer_auth(&api.token)
            .header("User-Agent", UA)
            .header("X-Idempotency-Key", key)
            .json(&json!({"reason": "Cobrança indevida"}));
        async move { req.send().await.unwrap() }
    };
    let path = format!("/v1/invoices/{}/void", ids::INV_OPEN);
    let first = send("9b7e1c2a-0000-4000-8000-000000000001", path.clone()).await;
    assert_eq!(first.status().as_u16(), 200);
    let first: Value = first.json().await.unwrap();
    let second = send("9b7e1c2a-0000-4000-8000-000000000001", path.clone()).await;
    assert_eq!(second.status().as_u16(), 200, "replayed, not a second void");
    assert_eq!(second.headers()["x-idempotent-replay"], "true");
    assert_eq!(second.json::<Value>().await.unwrap(), first);
    let third = send("9b7e1c2a-0000-4000-8000-000000000002", path).await;
    assert_eq!(third.status().as_u16(), 422, "a new key really voids again");
}

// ---------- HTTP controls ----------

#[tokio::test]
async fn http_controls_mirror_the_rust_api() {
    let api = Api::new().await;
    let http = kobana_mcp::net::client_builder()
        .build()
        .expect("HTTP client");
    let base = api.fake.base_url();

    // Faults over HTTP, in the documented JSON shape.
    let resp = http
        .post(format!("{base}/__fake/faults"))
        .json(&json!({"method":"GET","path_prefix":"/v1/invoices","kind":{"status":{"status":503,"retry_after":1}},"times":2}))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success());
    assert_eq!(api.get("/v1/invoices").await.0, 503);
    http.delete(format!("{base}/__fake/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(api.get("/v1/invoices").await.0, 200);
    for kind in [
        json!("reset_mid_body"),
        json!("truncated_json"),
        json!({"delay": {"ms": 1}}),
    ] {
        let resp = http
            .post(format!("{base}/__fake/faults"))
            .json(&json!({"path_prefix": "/v1/nothing", "kind": kind}))
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{kind}");
    }

    // Calls over HTTP (the control requests themselves are not recorded).
    let calls: Value = json_body(http.get(format!("{base}/__fake/calls"))).await;
    let calls = calls.as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["path"], "/v1/invoices");
    assert_eq!(calls[0]["authorized"], true);
    http.delete(format!("{base}/__fake/calls"))
        .send()
        .await
        .unwrap();
    assert!(api.fake.calls().is_empty());

    // PDF size.
    http.post(format!("{base}/__fake/pdf-size"))
        .json(&json!({"id": ids::INV_OPEN, "bytes": 1234}))
        .send()
        .await
        .unwrap();
    let pdf = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN))
        .await
        .bytes()
        .await
        .unwrap();
    assert_eq!(pdf.len(), 1234);

    // Token.
    let claims = Claims {
        sub: "person-bia".into(),
        org_id: FIXTURE_ORG_ID.into(),
        scope: "nfes:read".into(),
        name: Some("Bia".into()),
        exp: None,
    };
    let token: Value = json_body(http.post(format!("{base}/__fake/token")).json(&claims)).await;
    let token = token["token"].as_str().unwrap().to_string();
    assert_eq!(token, fake_kobana::mint_token(&claims));
    assert_eq!(
        api.call_as(&token, Method::GET, "/v1/nfes", None).await.0,
        200
    );
    assert_eq!(
        api.call_as(&token, Method::GET, "/v1/invoices", None)
            .await
            .0,
        403
    );

    // Reset restores data.
    api.post(
        &format!("/v1/invoices/{}/void", ids::INV_OPEN),
        json!({"reason": "Cobrança indevida"}),
    )
    .await;
    let resp = http
        .post(format!("{base}/__fake/reset"))
        .send()
        .await
        .unwrap();
    assert!(resp.status().is_success());
    let (_, inv) = api.get(&format!("/v1/invoices/{}", ids::INV_OPEN)).await;
    assert_eq!(inv["data"]["status"], "open");
    assert_eq!(api.fake.calls().len(), 1, "reset cleared the calls");
}

#[tokio::test]
async fn rust_reset_restores_fixtures_faults_and_sizes() {
    let api = Api::new().await;
    api.delete(&format!("/v1/customers/{}", ids::MARIANA)).await;
    api.fake.set_pdf_size(ids::INV_OPEN, 999);
    api.fake.set_pdf_content_length(false);
    api.fake.inject(Fault {
        method: None,
        path_prefix: "/v1/nfes".into(),
        kind: FaultKind::Status {
            status: 500,
            retry_after: None,
        },
        times: None,
    });
    api.fake.reset();
    assert!(api.fake.calls().is_empty());
    assert_eq!(
        api.get(&format!("/v1/customers/{}", ids::MARIANA)).await.0,
        200
    );
    assert_eq!(api.get("/v1/nfes").await.0, 200);
    let resp = get_raw(&api, &format!("/v1/invoices/{}/pdf", ids::INV_OPEN)).await;
    assert_eq!(resp.content_length(), Some(20 * 1024));
}

#[tokio::test]
async fn start_on_refuses_non_loopback_addresses() {
    let err = FakeKobana::start_on("0.0.0.0:0".parse().unwrap()).await;
    assert!(err.is_err());
    let ok = FakeKobana::start_on("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    assert!(ok.base_url().starts_with("http://127.0.0.1:"));
}

// ---------- the binary ----------

#[tokio::test]
async fn binary_prints_url_and_tokens_and_serves() {
    let (mut child, lines) = start_fake_binary(&[], 4).await;
    let value = |key: &str| {
        lines
            .iter()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("no {key} in {lines:?}"))
            .to_string()
    };
    let base = value("base_url");
    let full = value("full_token");
    let readonly = value("readonly_token");
    assert_eq!(full, fake_kobana::full_token());
    assert_eq!(readonly, fake_kobana::readonly_token());
    let resp = kobana_mcp::net::client_builder()
        .build()
        .expect("HTTP client")
        .get(format!("{base}/v1/organization"))
        .bearer_auth(&full)
        .header("User-Agent", UA)
        .header("Content-Type", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    child.kill().unwrap();
    child.wait().unwrap();

    let status = std::process::Command::new(env!("CARGO_BIN_EXE_fake-kobana"))
        .args(["--bind", "0.0.0.0:0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "non-loopback bind is refused");
}
