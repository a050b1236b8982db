//! The hostile-upstream suite (BW-8, with the attacks of BW-1, BW-2, BW-3, BW-6 and
//! BW-7): the real server binary, as its own process, against a Kobana that answers huge,
//! slow, chunked, lying and wrong-typed. For each attack the answer, the server's peak RSS
//! growth, its CPU time and the Kobana calls it made are all asserted, with generous margins
//! (a debug build on a shared machine); what the request line says is asserted too. The
//! margins are regression guards: the CPU and memory figures and their targets are the
//! benchmark's (`bench/run.sh`, section 8, the release binary against the same hostile Kobana).

use fake_kobana::fixtures::ids::{INV_OPEN, NFE_ISSUED};
use std::time::{Duration, Instant};

use crate::hostile::support::process::server::{Cost, Server, Streamed, plain};
use crate::hostile::support::process::upstream::{Answer, HUGE, Upstream, trickled_body};
use crate::hostile::support::process::{error_code, json_answer, started, text};
use base64::Engine as _;
use kobana_mcp::telemetry::record::MAX_DRIFTS;
use serde_json::{Value, json};

/// BW-8: peak RSS growth for a 400 MB body.
const MAX_RSS_GROWTH_MIB: f64 = 32.0;
/// CPU for an attack the server must shrug off (debug build; a few ms in release).
const MAX_CPU_MS: u64 = 1500;
/// The document limit.
const MAX_DOCUMENT_BYTES: u64 = kobana_mcp::resources::MAX_DOCUMENT_BYTES;

fn stream(status: u16, content_type: &'static str, bytes: u64, declared: Option<u64>) -> Answer {
    Answer::Stream {
        status,
        content_type,
        bytes,
        declared,
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

/// `billing_organization_get` while Kobana answers `answer`: a tool error `code` after
/// `calls` attempts, within the RSS and CPU margins.
async fn organization_read_fails(
    upstream: &Upstream,
    server: &Server,
    answer: Answer,
    code: &str,
    calls: usize,
    what: &str,
) {
    upstream.route("GET", "/v1/organization", move |_| answer.clone());
    let before = upstream.calls();
    let (result, cost) = server
        .measure(server.call("billing_organization_get", json!({})))
        .await;
    assert_eq!(error_code(&result), code, "{what}: {result}");
    assert_eq!(upstream.calls() - before, calls, "{what}");
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, what);
}

#[tokio::test]
async fn n5_a_400_mb_error_body_on_a_pdf_read_is_read_no_further_than_its_limit() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(404, "application/json", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["error"]["code"], -32002, "not found: {body}");
    // Not retried: the PDF once, then the invoice once (its 404 tells a wrong id from a
    // draft, FH-3), each error body read no further than its limit.
    let seen: Vec<String> = upstream.seen()[before..]
        .iter()
        .map(|s| s.target.clone())
        .collect();
    assert_eq!(
        seen,
        [
            format!("/v1/invoices/{INV_OPEN}/pdf"),
            format!("/v1/invoices/{INV_OPEN}")
        ],
        "a 404 is not retried"
    );
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "404 of 400 MB");
}

#[tokio::test]
async fn n5_a_400_mb_nfe_xml_is_refused_at_the_document_limit() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/nfes/", |_| {
        stream(200, "application/xml", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/nfes/{NFE_ISSUED}/xml");
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
    // Announces 20 bytes, sends 400 MB: only the 20 are read, and they are not JSON; a read
    // is tried three times.
    organization_read_fails(
        &upstream,
        &server,
        stream(200, "application/json", HUGE, Some(20)),
        "KOBANA_INVALID_RESPONSE",
        3,
        "Content-Length 20, 400 MB sent",
    )
    .await;
}

/// Most bytes a PDF answer may carry: the base64 of the document limit, and the envelope.
fn max_pdf_answer_bytes() -> u64 {
    MAX_DOCUMENT_BYTES.div_ceil(3) * 4 + 64 * 1024
}

/// Whether `streamed` is an aborted answer: it broke off, and what came is no JSON-RPC
/// answer a client could take as whole.
#[track_caller]
fn aborted(streamed: &Streamed, what: &str) {
    assert_eq!(streamed.status, 200, "{what}: {streamed:?}");
    assert!(
        streamed.ended.is_err(),
        "{what}: the answer ended cleanly after {} bytes",
        streamed.received
    );
    assert!(
        serde_json::from_slice::<Value>(&streamed.head).is_err(),
        "{what}: a JSON answer came: {}",
        String::from_utf8_lossy(&streamed.head)
    );
}

#[tokio::test]
async fn a_400_mb_pdf_is_cut_at_the_document_limit_and_never_served_whole() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(200, "application/pdf", HUGE, None)
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    let (streamed, cost) = server
        .measure(server.rpc_streamed("resources/read", json!({"uri": uri})))
        .await;
    // Unannounced (chunked): the answer starts, and is cut mid-stream at the limit, so no
    // client can take a truncated PDF as whole; what came is bounded by the limit.
    aborted(&streamed, "chunked PDF of 400 MB");
    assert!(
        streamed.received <= max_pdf_answer_bytes(),
        "{} bytes received (at most {})",
        streamed.received,
        max_pdf_answer_bytes()
    );
    assert!(
        streamed.received >= MAX_DOCUMENT_BYTES,
        "cut at the limit, not before: {} bytes",
        streamed.received
    );
    assert_eq!(upstream.calls() - before, 1);
    // Base64 of 10 MiB in a debug build: seconds of margin.
    within(cost, MAX_RSS_GROWTH_MIB, 5000, "PDF of 400 MB");
}

#[tokio::test]
async fn bw8_r5_a_pdf_announced_over_the_limit_is_refused_before_its_first_byte() {
    let (upstream, server) = started(&[]).await;
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(200, "application/pdf", HUGE, Some(HUGE))
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("Documento grande demais") && message.contains(&HUGE.to_string()),
        "a pt-BR error naming the size: {body}"
    );
    assert_eq!(body["error"]["data"]["size_bytes"], HUGE, "{body}");
    assert_eq!(body["error"]["data"]["limit_bytes"], MAX_DOCUMENT_BYTES);
    assert!(body.get("result").is_none(), "{body}");
    assert_eq!(upstream.calls() - before, 1);
    within(
        cost,
        MAX_RSS_GROWTH_MIB,
        MAX_CPU_MS,
        "announced PDF of 400 MB",
    );
}

#[tokio::test]
async fn bw8_a_content_length_that_lies_long_is_never_taken_as_whole() {
    let (upstream, server) = started(&[]).await;
    // JSON: announces 100,000 bytes, sends 1,000 and closes. A broken answer, retried like
    // any read (three times), then an error; never a hang.
    organization_read_fails(
        &upstream,
        &server,
        stream(200, "application/json", 1_000, Some(100_000)),
        "KOBANA_UNREACHABLE",
        3,
        "JSON lying long",
    )
    .await;
    // PDF: the answer has started when the body breaks off, so the stream is cut.
    upstream.route("GET", "/v1/invoices/", |_| {
        stream(200, "application/pdf", 1_000, Some(100_000))
    });
    let before = upstream.calls();
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    let (streamed, cost) = server
        .measure(server.rpc_streamed("resources/read", json!({"uri": uri})))
        .await;
    aborted(&streamed, "PDF lying long");
    assert!(streamed.received < 64 * 1024, "{streamed:?}");
    assert_eq!(upstream.calls() - before, 1);
    within(cost, MAX_RSS_GROWTH_MIB, MAX_CPU_MS, "PDF lying long");
}

#[tokio::test]
async fn bw8_a_pdf_that_trickles_is_whole_under_the_deadline_and_cut_past_it() {
    let (upstream, server) = started(&[("KOBANA_TIMEOUT_MS", "1500")]).await;
    let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
    // 20,000 bytes in 10 pieces 50 ms apart: slow, within the deadline, served whole.
    upstream.route("GET", "/v1/invoices/", |_| Answer::Trickle {
        content_type: "application/pdf",
        bytes: 20_000,
        chunk: 2_000,
        every: Duration::from_millis(50),
    });
    let before = upstream.calls();
    let ((status, body), cost) = server
        .measure(server.rpc("resources/read", json!({"uri": uri})))
        .await;
    assert_eq!(status, 200, "{body:.300}");
    let blob = body["result"]["contents"][0]["blob"]
        .as_str()
        .unwrap_or_else(|| panic!("a blob: {body:.300}"));
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .expect("base64");
    assert_eq!(pdf, trickled_body("application/pdf", 20_000));
    assert_eq!(upstream.calls() - before, 1);
    within(
        cost,
        MAX_RSS_GROWTH_MIB,
        MAX_CPU_MS,
        "PDF trickling in time",
    );
    // The same bytes, 500 at a time 100 ms apart (4 s): cut at the deadline, mid-stream.
    upstream.route("GET", "/v1/invoices/", |_| Answer::Trickle {
        content_type: "application/pdf",
        bytes: 20_000,
        chunk: 500,
        every: Duration::from_millis(100),
    });
    let before = upstream.calls();
    let started = Instant::now();
    let (streamed, cost) = server
        .measure(server.rpc_streamed("resources/read", json!({"uri": uri})))
        .await;
    let took = started.elapsed();
    aborted(&streamed, "PDF trickling too slowly");
    assert!(took < Duration::from_millis(3000), "{took:?}");
    assert_eq!(upstream.calls() - before, 1, "a stream is not retried");
    within(
        cost,
        MAX_RSS_GROWTH_MIB,
        MAX_CPU_MS,
        "PDF trickling too slowly",
    );
}

#[tokio::test]
async fn bw3_a_request_logs_at_most_max_drifts_warn_lines_whatever_its_answers_hold() {
    let (upstream, server) = started(&[]).await;
    // Two pages of 100 empty records: 38 required members missing in each, per list.
    let empty_records = json!({"data": vec![json!({}); 100],
        "meta": {"total": 100, "page": 1, "per_page": 100, "total_pages": 1}});
    for list in ["/v1/invoices", "/v1/nfes"] {
        let page = empty_records.clone();
        upstream.route("GET", list, move |_| json_answer(200, page.clone()));
    }
    let mark = server.mark();
    let (status, body) = server.prompt("review_pending_nfes").await;
    assert_eq!(status, 200, "{body}");
    server.request_line(mark, "review_pending_nfes").await;
    let lines: Vec<String> = server.logs()[mark..].iter().map(|l| plain(l)).collect();
    let drifts = lines
        .iter()
        .filter(|l| l.contains("WARN") && l.contains("left the contract"))
        .count();
    assert!(
        (1..=MAX_DRIFTS).contains(&drifts),
        "{drifts} drift lines (at most {MAX_DRIFTS}): {lines:#?}"
    );
    // And nothing else grows with the answers: besides the drifts, the request line and, for
    // a token with scope words this server does not know (the other reading), one line
    // naming them.
    assert!(lines.len() - drifts <= 2, "{lines:#?}");
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
        let uri = format!("kobana://billing/invoices/{INV_OPEN}/pdf");
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
                content_type: "application/json",
                bytes: 1000,
                chunk: 1,
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
    organization_read_fails(
        &upstream,
        &server,
        stream(200, "text/html", 2048, Some(2048)),
        "KOBANA_INVALID_RESPONSE",
        3,
        "HTML for JSON",
    )
    .await;
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
