//! Resources and completions end to end over raw HTTP in both eras (R-1…R-6, C-1…C-4, A-2).

use crate::common;
use fake_kobana::fixtures::ids::{INV_OPEN, NFE_ERROR, NFE_ISSUED, PADARIA, SUB_ACTIVE, UNKNOWN};

use base64::Engine as _;
use common::Stack;
use fake_kobana::{DocKind, FIXTURE_ORG_ID, full_token, readonly_token, scoped_token};
use futures_util::StreamExt as _;
use serde_json::{Value, json};

async fn read(stack: &Stack, token: &str, uri: &str, modern: bool) -> (u16, Value) {
    let params = json!({"uri": uri});
    if modern {
        stack.modern(token, "resources/read", params).await
    } else {
        stack.legacy(token, "resources/read", params).await
    }
}

fn uris(body: &Value, list: &str, key: &str) -> Vec<String> {
    body["result"][list]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|r| r[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn r1_r2_lists_with_full_token_in_both_eras() {
    let stack = Stack::start().await;
    let (_, body) = stack
        .legacy(&full_token(), "resources/list", json!({}))
        .await;
    assert_eq!(
        uris(&body, "resources", "uri"),
        [
            "kobana://billing/organization",
            "kobana://billing/schemas",
            "kobana://billing/audit"
        ]
    );
    let (_, body) = stack
        .legacy(&full_token(), "resources/templates/list", json!({}))
        .await;
    let templates = uris(&body, "resourceTemplates", "uriTemplate");
    assert_eq!(templates.len(), 8, "{templates:?}");
    assert!(templates.contains(&"kobana://billing/nfes/{id}/xml".to_owned()));
    assert_eq!(
        templates,
        [
            "kobana://billing/schemas/{resource}",
            "kobana://billing/customers/{id}",
            "kobana://billing/subscriptions/{id}",
            "kobana://billing/invoices/{id}",
            "kobana://billing/invoices/{id}/pdf",
            "kobana://billing/nfes/{id}",
            "kobana://billing/nfes/{id}/pdf",
            "kobana://billing/nfes/{id}/xml",
        ],
        "R-2"
    );
    let pdf = body["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["uriTemplate"] == "kobana://billing/invoices/{id}/pdf")
        .unwrap();
    assert_eq!(pdf["mimeType"], "application/pdf");
    assert!(pdf["title"].as_str().is_some() && pdf["description"].as_str().is_some());

    let (_, body) = stack
        .modern(&full_token(), "resources/templates/list", json!({}))
        .await;
    assert_eq!(body["result"]["cacheScope"], "private", "P-4");
    let (_, body) = stack
        .modern(&full_token(), "resources/list", json!({}))
        .await;
    assert_eq!(body["result"]["cacheScope"], "private", "P-4");
}

/// R-3 beyond invoices: each URI follows its tool's permission (nfes ↔ `nfes:read`,
/// organization ↔ `organization:read`), and the schemas, whose tools need no permission,
/// stay for every token.
#[tokio::test]
async fn r3_every_resource_follows_the_permission_of_the_tool_that_reads_it() {
    let stack = Stack::start().await;
    let lists = |token: String| {
        let stack = &stack;
        async move {
            let (_, fixed) = stack.legacy(&token, "resources/list", json!({})).await;
            let (_, templates) = stack
                .legacy(&token, "resources/templates/list", json!({}))
                .await;
            (
                uris(&fixed, "resources", "uri"),
                uris(&templates, "resourceTemplates", "uriTemplate"),
            )
        }
    };
    let nfes_only = scoped_token("person-ana", FIXTURE_ORG_ID, "nfes:read");
    let (fixed, templates) = lists(nfes_only.clone()).await;
    // AU-4: the trail is shown to every token that may read anything.
    assert_eq!(
        fixed,
        ["kobana://billing/schemas", "kobana://billing/audit"]
    );
    assert_eq!(
        templates,
        [
            "kobana://billing/schemas/{resource}",
            "kobana://billing/nfes/{id}",
            "kobana://billing/nfes/{id}/pdf",
            "kobana://billing/nfes/{id}/xml",
        ]
    );
    let (fixed, templates) = lists(scoped_token(
        "person-ana",
        FIXTURE_ORG_ID,
        "organization:read",
    ))
    .await;
    assert_eq!(
        fixed,
        [
            "kobana://billing/organization",
            "kobana://billing/schemas",
            "kobana://billing/audit"
        ]
    );
    assert_eq!(templates, ["kobana://billing/schemas/{resource}"]);

    // Read: the organization is absent for the nfes-only token; the schemas are there.
    stack.fake.clear_calls();
    let (_, body) = read(&stack, &nfes_only, "kobana://billing/organization", false).await;
    assert_eq!(body["error"]["code"], -32002, "{body}");
    assert!(stack.kobana_calls("/v1/organization").is_empty());
    let (status, body) = read(
        &stack,
        &nfes_only,
        "kobana://billing/schemas/invoices",
        false,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["result"]["contents"][0]["mimeType"], "application/json",
        "{body}"
    );
}

#[tokio::test]
async fn r3_a2_read_only_token_keeps_resources_and_a_token_without_invoices_sees_none() {
    let stack = Stack::start().await;
    let (_, body) = stack
        .legacy(&readonly_token(), "resources/templates/list", json!({}))
        .await;
    assert_eq!(
        uris(&body, "resourceTemplates", "uriTemplate").len(),
        8,
        "A-2"
    );
    let (status, body) = read(
        &stack,
        &readonly_token(),
        &format!("kobana://billing/invoices/{INV_OPEN}"),
        false,
    )
    .await;
    assert_eq!(status, 200);
    assert!(
        body["result"]["contents"][0]["text"].as_str().is_some(),
        "{body}"
    );

    let no_invoices = scoped_token(
        "person-ana",
        FIXTURE_ORG_ID,
        "customers:read organization:read",
    );
    let (_, body) = stack
        .legacy(&no_invoices, "resources/templates/list", json!({}))
        .await;
    let templates = uris(&body, "resourceTemplates", "uriTemplate");
    assert!(
        !templates.iter().any(|t| t.contains("invoices")),
        "{templates:?}"
    );
    assert!(templates.contains(&"kobana://billing/customers/{id}".to_owned()));
    stack.fake.clear_calls();
    let uri = format!("kobana://billing/invoices/{INV_OPEN}");
    let (_, body) = read(&stack, &no_invoices, &uri, false).await;
    assert_eq!(
        body["error"]["code"], -32002,
        "R-3: absent for this token: {body}"
    );
    assert_eq!(body["error"]["data"]["uri"], uri);
    assert!(stack.kobana_calls("/v1/invoices").is_empty());
}

#[tokio::test]
async fn r4_json_and_xml_resources_read_in_both_eras() {
    let stack = Stack::start().await;
    for modern in [false, true] {
        for (uri, mime, needle) in [
            (
                "kobana://billing/organization".to_owned(),
                "application/json",
                "Acme Software Ltda",
            ),
            (
                "kobana://billing/schemas".to_owned(),
                "application/json",
                "invoices",
            ),
            (
                "kobana://billing/schemas/invoices".to_owned(),
                "application/json",
                "uncollectible",
            ),
            (
                format!("kobana://billing/customers/{PADARIA}"),
                "application/json",
                "Padaria Pão Dourado Ltda",
            ),
            (
                format!("kobana://billing/subscriptions/{SUB_ACTIVE}"),
                "application/json",
                "monthly",
            ),
            (
                format!("kobana://billing/invoices/{INV_OPEN}"),
                "application/json",
                "FAT-2026-000812",
            ),
            (
                format!("kobana://billing/nfes/{NFE_ISSUED}"),
                "application/json",
                "K7Q2-M9XA",
            ),
            (
                format!("kobana://billing/nfes/{NFE_ISSUED}/xml"),
                "application/xml",
                "<",
            ),
        ] {
            let (status, body) = read(&stack, &full_token(), &uri, modern).await;
            assert_eq!(status, 200, "{uri}: {body}");
            let content = &body["result"]["contents"][0];
            assert_eq!(content["uri"], uri.as_str());
            assert_eq!(content["mimeType"], mime, "{uri}");
            let text = content["text"]
                .as_str()
                .unwrap_or_else(|| panic!("{uri}: {body}"));
            assert!(text.contains(needle), "{uri} lacks {needle}: {text:.300}");
            if modern {
                assert_eq!(body["result"]["cacheScope"], "private");
                assert_eq!(body["result"]["resultType"], "complete");
            }
        }
    }
}

#[tokio::test]
async fn r6_not_found_is_32002_in_era_2025_and_32602_in_era_2026() {
    let stack = Stack::start().await;
    for uri in [
        format!("kobana://billing/invoices/{UNKNOWN}"),
        "kobana://billing/nope".to_owned(),
        "kobana://billing/invoices/not-a-uuid/pdf".to_owned(),
        "kobana://billing/invoices/..%2Forganization".to_owned(),
        format!("kobana://billing/nfes/{NFE_ERROR}/xml"),
        "kobana://billing/schemas/widgets".to_owned(),
        "https://example.com/x".to_owned(),
    ] {
        let (status, body) = read(&stack, &full_token(), &uri, false).await;
        assert_eq!(status, 200, "{uri}");
        assert_eq!(body["error"]["code"], -32002, "{uri}: {body}");
        assert_eq!(body["error"]["data"]["uri"], uri.as_str());
        let (status, body) = read(&stack, &full_token(), &uri, true).await;
        assert_eq!(status, 200, "{uri}");
        assert_eq!(body["error"]["code"], -32602, "{uri}: {body}");
        assert_eq!(body["error"]["data"]["uri"], uri.as_str());
    }
    let bad_ids: Vec<_> = stack
        .fake
        .calls()
        .into_iter()
        .filter(|c| c.path.contains("not-a-uuid") || c.path.contains(".."))
        .collect();
    assert!(
        bad_ids.is_empty(),
        "invalid ids never reach Kobana: {bad_ids:?}"
    );
}

async fn pdf_roundtrip(
    stack: &Stack,
    kind: DocKind,
    id: &str,
    uri: &str,
    size: usize,
    modern: bool,
) {
    stack.fake.set_pdf_size(id, size);
    let (status, body) = read(stack, &full_token(), uri, modern).await;
    assert_eq!(status, 200, "{uri}");
    let content = &body["result"]["contents"][0];
    assert_eq!(content["mimeType"], "application/pdf");
    let blob = content["blob"]
        .as_str()
        .unwrap_or_else(|| panic!("{body:.300}"));
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap();
    let expected = stack.fake.pdf_bytes(kind, id).unwrap();
    assert_eq!(decoded.len(), size);
    assert!(
        decoded == expected,
        "R-5: decoded bytes equal the fake's bytes"
    );
}

#[tokio::test]
async fn r5_pdfs_stream_whole_up_to_10_mb_with_and_without_content_length() {
    let stack = Stack::start().await;
    let invoice_pdf = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    let nfe_pdf = format!("kobana://billing/nfes/{NFE_ISSUED}/pdf");
    pdf_roundtrip(
        &stack,
        DocKind::Invoice,
        INV_OPEN,
        &invoice_pdf,
        20_000,
        false,
    )
    .await;
    pdf_roundtrip(&stack, DocKind::Nfe, NFE_ISSUED, &nfe_pdf, 30_001, true).await;
    pdf_roundtrip(
        &stack,
        DocKind::Invoice,
        INV_OPEN,
        &invoice_pdf,
        9_900_000,
        true,
    )
    .await;
    stack.fake.set_pdf_content_length(false);
    pdf_roundtrip(&stack, DocKind::Nfe, NFE_ISSUED, &nfe_pdf, 9_900_001, false).await;
}

#[tokio::test]
async fn r5_over_10_mb_fails_cleanly_before_or_during_the_stream() {
    let stack = Stack::start().await;
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    stack.fake.set_pdf_size(INV_OPEN, 10_600_000);
    for modern in [false, true] {
        let (status, body) = read(&stack, &full_token(), &uri, modern).await;
        assert_eq!(status, 200);
        let message = body["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{body:.300}"));
        assert!(
            message.contains("10600000") && message.contains("10 MB"),
            "{message}"
        );
        assert_eq!(body["error"]["data"]["limit_bytes"], 10 * 1024 * 1024);
    }
    // Without Content-Length the size is only known while streaming: the answer is cut, so
    // the client never gets a blob that parses.
    stack.fake.set_pdf_content_length(false);
    let response = stack
        .legacy_raw(&full_token(), "resources/read", json!({"uri": uri}))
        .await;
    // The answer had started (status and JSON-RPC envelope sent, blob under way) when the
    // size went past the limit: the stream breaks off, and what did arrive never parses.
    assert_eq!(response.status().as_u16(), 200);
    let mut stream = response.bytes_stream();
    let mut received = Vec::new();
    let mut broke_off = false;
    while let Some(chunk) = stream.next().await {
        match chunk {
            Ok(bytes) => received.extend_from_slice(&bytes),
            Err(_) => {
                broke_off = true;
                break;
            }
        }
    }
    assert!(broke_off, "the stream is aborted, not ended normally");
    assert!(
        serde_json::from_slice::<Value>(&received).is_err(),
        "a truncated stream must never parse as JSON"
    );
    let head = String::from_utf8_lossy(&received[..received.len().min(400)]);
    assert!(
        head.starts_with(r#"{"jsonrpc":"2.0""#) && head.contains(r#""blob":"JVBER"#),
        "the cut answer is the streamed read itself: {head}"
    );
}

#[tokio::test]
async fn c1_customer_ids_are_suggested_from_the_list_under_its_permission() {
    let stack = Stack::start().await;
    let complete = |token: String, reference: Value, name: &str, value: &str| {
        let params = json!({"ref": reference, "argument": {"name": name, "value": value}});
        let stack = &stack;
        async move { stack.legacy(&token, "completion/complete", params).await.1 }
    };
    let prompt = json!({"type": "ref/prompt", "name": "customer_overview"});
    let body = complete(full_token(), prompt.clone(), "customer_id", "Padaria").await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!([PADARIA]),
        "{body}"
    );
    let body = complete(readonly_token(), prompt.clone(), "customer_id", "").await;
    assert_eq!(
        body["result"]["completion"]["values"]
            .as_array()
            .unwrap()
            .len(),
        4,
        "A-2"
    );
    assert_eq!(body["result"]["completion"]["total"], 4);
    assert_eq!(body["result"]["completion"]["hasMore"], false);

    let invoices = json!({"type": "ref/resource", "uri": "kobana://billing/invoices/{id}"});
    let body = complete(full_token(), invoices.clone(), "id", "4737").await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!([INV_OPEN]),
        "{body}"
    );
    let no_invoices = scoped_token("person-ana", FIXTURE_ORG_ID, "customers:read");
    stack.fake.clear_calls();
    let body = complete(no_invoices, invoices, "id", "").await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!([]),
        "A-2: {body}"
    );
    assert!(stack.kobana_calls("/v1/invoices").is_empty());

    // The customers and subscriptions templates suggest from their own lists.
    for (template, path) in [
        ("kobana://billing/customers/{id}", "/v1/customers"),
        ("kobana://billing/subscriptions/{id}", "/v1/subscriptions"),
    ] {
        stack.fake.clear_calls();
        let reference = json!({"type": "ref/resource", "uri": template});
        let body = complete(full_token(), reference, "id", "").await;
        let values = body["result"]["completion"]["values"]
            .as_array()
            .unwrap()
            .clone();
        assert!(!values.is_empty(), "{template}: {body}");
        assert_eq!(
            stack.kobana_calls(path).len(),
            1,
            "{template}: one upstream call"
        );
    }
    // Without customers read, `customer_id` gets no suggestion and Kobana is not asked.
    let no_customers = scoped_token("person-ana", FIXTURE_ORG_ID, "invoices:read");
    stack.fake.clear_calls();
    let body = complete(no_customers, prompt, "customer_id", "").await;
    assert_eq!(body["result"]["completion"]["values"], json!([]), "{body}");
    assert!(stack.kobana_calls("/v1/customers").is_empty());
}

/// A valid CPF (check digits computed) from nine digits.
fn cpf(base: u32) -> String {
    let digits: Vec<u32> = format!("{base:09}")
        .chars()
        .map(|c| c.to_digit(10).unwrap())
        .collect();
    let check = |d: &[u32]| {
        let n = d.len() as u32 + 1;
        let sum: u32 = d.iter().enumerate().map(|(i, x)| x * (n - i as u32)).sum();
        if sum % 11 < 2 { 0 } else { 11 - sum % 11 }
    };
    let mut all = digits.clone();
    all.push(check(&all));
    all.push(check(&all));
    all.iter().map(|d| d.to_string()).collect()
}

/// C-4: a list larger than 100 gives 100 values, the list's total and `hasMore: true`;
/// nothing to suggest gives an empty list with `total: 0` and `hasMore: false`.
#[tokio::test]
async fn c4_at_most_100_values_with_total_and_has_more() {
    let stack = Stack::start().await;
    for i in 0..101u32 {
        let body = json!({"name": format!("Cliente {i}"), "document_number": cpf(123_450_000 + i)});
        let response = stack
            .http
            .post(format!("{}/v1/customers", stack.fake.base_url()))
            .bearer_auth(full_token())
            .header("user-agent", "kobana-mcp-tests <suporte@kobana.com.br>")
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(
            response.status().as_u16(),
            201,
            "{:?}",
            response.text().await
        );
    }
    let params = json!({
        "ref": {"type": "ref/prompt", "name": "customer_overview"},
        "argument": {"name": "customer_id", "value": ""}
    });
    let (_, body) = stack
        .modern(&full_token(), "completion/complete", params)
        .await;
    let completion = &body["result"]["completion"];
    assert_eq!(
        completion["values"].as_array().unwrap().len(),
        100,
        "{body:.300}"
    );
    assert_eq!(completion["total"], 105, "4 fixtures + 101 created");
    assert_eq!(completion["hasMore"], true);

    let params = json!({
        "ref": {"type": "ref/prompt", "name": "customer_overview"},
        "argument": {"name": "no_such_argument", "value": "x"}
    });
    let (status, body) = stack
        .modern(&full_token(), "completion/complete", params)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["result"]["completion"]["values"], json!([]));
    assert_eq!(body["result"]["completion"]["total"], 0);
    assert_eq!(body["result"]["completion"]["hasMore"], false);
}

#[tokio::test]
async fn c2_c3_c4_schema_names_months_and_empty_lists() {
    let stack = Stack::start().await;
    let schema = json!({"type": "ref/resource", "uri": "kobana://billing/schemas/{resource}"});
    let params = json!({"ref": schema, "argument": {"name": "resource", "value": "in"}});
    let (_, body) = stack
        .modern(&full_token(), "completion/complete", params)
        .await;
    assert_eq!(
        body["result"]["completion"]["values"],
        json!(["invoices"]),
        "{body}"
    );
    assert_eq!(body["result"]["resultType"], "complete");

    let month = json!({"type": "ref/prompt", "name": "monthly_billing_summary"});
    let params = json!({"ref": month, "argument": {"name": "month", "value": ""}});
    let (_, body) = stack
        .legacy(&full_token(), "completion/complete", params)
        .await;
    let values = body["result"]["completion"]["values"].as_array().unwrap();
    assert_eq!(values.len(), 12);
    assert_eq!(
        values[0].as_str().unwrap(),
        crate::catalog::support::stack_month()
    );

    for (reference, arg) in [
        (json!({"type": "ref/prompt", "name": "no_such_prompt"}), "x"),
        (
            json!({"type": "ref/resource", "uri": "kobana://billing/organization"}),
            "id",
        ),
        (
            json!({"type": "ref/prompt", "name": "review_pending_nfes"}),
            "anything",
        ),
    ] {
        let params = json!({"ref": reference, "argument": {"name": arg, "value": "a"}});
        let (status, body) = stack
            .legacy(&full_token(), "completion/complete", params)
            .await;
        assert_eq!(status, 200);
        assert_eq!(
            body["result"]["completion"]["values"],
            json!([]),
            "C-4: {body}"
        );
    }
}
