//! The hostile-upstream suite (BW-8, with the attacks of BW-1, BW-2, BW-3, BW-6 and BW-7):
//! the real server binary, as its own process, against a Kobana that answers huge, slow,
//! chunked, lying and wrong-typed. For each attack the answer, the server's peak RSS growth,
//! its CPU time and the Kobana calls it made are all asserted, with generous margins (a debug
//! build on a shared machine); what the request line says is asserted too.

use crate::hostile_upstream_support;

use std::time::{Duration, Instant};

use hostile_upstream_support::server::{Cost, Server};
use hostile_upstream_support::upstream::{Answer, Upstream};
use serde_json::{Value, json};

const INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
const NFE: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
/// 400 MB, the bodies of the huge answers.
const HUGE: u64 = 400 * 1000 * 1000;
/// The bound on peak RSS growth for a 400 MB body.
const MAX_RSS_GROWTH_MIB: f64 = 32.0;
/// CPU for an attack the server must shrug off (debug build; a few ms in release).
const MAX_CPU_MS: u64 = 1500;

fn stream(status: u16, content_type: &'static str, bytes: u64, declared: Option<u64>) -> Answer {
    Answer::Stream {
        status,
        content_type,
        bytes,
        declared,
    }
}

fn json_answer(status: u16, body: Value) -> Answer {
    Answer::Json {
        status,
        body: body.to_string(),
    }
}

#[track_caller]
fn within(cost: Cost, rss_mib: f64, cpu_ms: u64, what: &str) {
    eprintln!("{what}: {cost:?}");
    assert!(
        cost.rss_growth_mib <= rss_mib,
        "{what}: peak RSS grew {:.1} MiB (at most {rss_mib})",
        cost.rss_growth_mib
    );
    assert!(
        cost.cpu_ms <= cpu_ms,
        "{what}: {} ms of CPU (at most {cpu_ms})",
        cost.cpu_ms
    );
}

fn error_code(result: &Value) -> &str {
    result["structuredContent"]["error"]
        .as_str()
        .unwrap_or_default()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

async fn started(env: &[(&str, &str)]) -> (Upstream, Server) {
    let upstream = Upstream::start().await;
    let server = Server::start(&upstream.base, env);
    // Warm up: registry, HTTP client, first connection.
    upstream.route("GET", "/v1/organization", |_| {
        json_answer(200, json!({"data": {"id": "org", "name": "Org"}}))
    });
    let warm = server.call("billing_organization_get", json!({})).await;
    assert_ne!(warm["isError"], true, "{warm}");
    (upstream, server)
}

#[tokio::test]
async fn n5_a_400_mb_error_body_on_a_pdf_read_is_read_no_further_than_its_limit() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(404, "application/json", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"]["code"], -32002, "not found: {body}");
    assert_eq!(upstream.calls() - before, 1, "a 404 is not retried");
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "404 of 400 MB");
}

#[tokio::test]
async fn n5_a_400_mb_nfe_xml_is_refused_at_the_document_limit() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/nfes/", |_| {
        stream(200, "application/xml", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/nfes/{NFE}/xml");
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("grande demais"), "{body}");
    assert_eq!(body["error"]["data"]["limit_bytes"], 10 * 1024 * 1024);
    assert_eq!(upstream.calls() - before, 1);
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "NF-e XML of 400 MB");
}

#[tokio::test]
async fn a_huge_json_answer_is_refused_at_the_json_limit_chunked_or_announced() {
    let (upstream, server) = started(&[]).await;
    for (declared, what) in [(None, "chunked"), (Some(HUGE), "announced")] {
        upstream.route("GET", "/v1/organization", move |_| {
            stream(200, "application/json", HUGE, declared)
        });
        let before = upstream.calls();
        let (result, cost) = server
            .measure(server.call("billing_organization_get", json!({})))
            .await;
        assert_eq!(error_code(&result), "KOBANA_ANSWER_TOO_LARGE", "{result}");
        assert!(text(&result).contains("2097152 bytes"), "{result}");
        assert_eq!(upstream.calls() - before, 1, "{what}: not retried");
        within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, what);
    }
}

#[tokio::test]
async fn a_content_length_that_lies_short_is_an_unreadable_answer_retried_within_the_budget() {
    let (upstream, server) = started(&[]).await;
    // Announces 20 bytes, sends 400 MB: only the 20 are read, and they are not JSON.
    upstream.route("GET", "/v1/organization", |_| {
        stream(200, "application/json", HUGE, Some(20))
    });
    let before = upstream.calls();
    let (result, cost) = server
        .measure(server.call("billing_organization_get", json!({})))
        .await;
    assert_eq!(error_code(&result), "KOBANA_INVALID_RESPONSE", "{result}");
    assert_eq!(upstream.calls() - before, 3, "a read is tried three times");
    within(
        cost,
        MAX_RSS_GROWTH_MIB,
        MAX_CPU_MS,
        "Content-Length 20, 400 MB sent",
    );
}

#[tokio::test]
async fn a_400_mb_pdf_is_cut_at_the_document_limit_and_never_served_whole() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(200, "application/pdf", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200);
    // The stream is aborted: the client never gets a blob that parses.
    assert!(
        body.is_string(),
        "no JSON answer for a cut document: {body:.200}"
    );
    assert_eq!(upstream.calls() - before, 1);
    // Base64 of 10 MiB in a debug build: seconds of margin.
    within(cost, MAX_RSS_GROWTH_MIB, 5000, "PDF of 400 MB");
}

#[tokio::test]
async fn n11_a_pdf_read_refuses_any_media_type_but_application_pdf() {
    let (upstream, server) = started(&[]).await;
    for content_type in [
        "text/html",
        "application/octet-stream",
        "application/pdf-ish",
    ] {
        upstream.route("GET", "/v1/invoices/", move |_| {
            stream(200, content_type, 4096, Some(4096))
        });
        let before = upstream.calls();
        let uri = format!("kobana://billing/invoices/{INVOICE}/pdf");
        let ((status, body), cost) = server
            .measure(server.rpc("resources/read", json!({"uri": uri})))
            .await;
        assert_eq!(status, 200);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(content_type) && message.contains("nada foi repassado"),
            "{content_type}: {body}"
        );
        assert!(body.get("result").is_none(), "{body}");
        assert_eq!(upstream.calls() - before, 1);
        within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, content_type);
    }
}

#[tokio::test]
async fn slow_answers_end_at_the_deadline_and_nothing_hangs() {
    let (upstream, server) = started(&[("KOBANA_TIMEOUT_MS", "1000")]).await;
    for (answer, what) in [
        (Answer::Stall, "headers never come"),
        (
            Answer::Trickle {
                bytes: 1000,
                every: Duration::from_millis(50),
            },
            "a body of one byte per 50 ms",
        ),
    ] {
        upstream.route("GET", "/v1/organization", move |_| answer.clone());
        let before = upstream.calls();
        let started = Instant::now();
        let (result, cost) = server
            .measure(server.call("billing_organization_get", json!({})))
            .await;
        let took = started.elapsed();
        assert_eq!(error_code(&result), "KOBANA_TIMEOUT", "{what}: {result}");
        assert!(took < Duration::from_millis(2500), "{what}: {took:?}");
        assert_eq!(
            upstream.calls() - before,
            1,
            "{what}: a timeout is not retried"
        );
        within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, what);
    }
}

#[tokio::test]
async fn wrong_typed_answers_are_errors_or_empty_pages_never_a_crash() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/organization", |_| {
        stream(200, "text/html", 2048, Some(2048))
    });
    let before = upstream.calls();
    let (result, cost) = server
        .measure(server.call("billing_organization_get", json!({})))
        .await;
    assert_eq!(error_code(&result), "KOBANA_INVALID_RESPONSE", "{result}");
    assert_eq!(upstream.calls() - before, 3);
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "HTML for JSON");
    // A list whose `data` is an object, whose records are strings, whose meta is a string.
    for data in [
        json!({"data": {"id": "x"}, "meta": "p"}),
        json!({"data": ["a", 1, null], "meta": {"total": "many"}}),
    ] {
        upstream.route("GET", "/v1/invoices", move |_| {
            json_answer(200, data.clone())
        });
        let before = upstream.calls();
        let (result, cost) = server
            .measure(server.call("billing_invoices_list", json!({})))
            .await;
        assert_ne!(result["isError"], true, "{result}");
        assert!(
            result["structuredContent"]["invoices"].is_array(),
            "{result}"
        );
        assert_eq!(upstream.calls() - before, 1);
        within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "wrong-typed list");
    }
}
