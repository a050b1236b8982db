//! Fuzz target: one HTTP request (body bytes + a few header choices) through
//! `kobana_mcp::App::handle`, in process, against the fake Kobana on loopback.
//!
//! Input layout: byte 0 picks the headers (era, token, Origin, content negotiation), the rest
//! is the request body. In the "modern, consistent" profile the `Mcp-Method` / `Mcp-Name`
//! headers are derived from the body, so the fuzzer gets past header validation and into the
//! handlers.
//!
//! Invariants (a violation panics, which libFuzzer reports as a crash):
//! - the server answers within 15 s (no hang) and never with a 5xx;
//! - the status is one this endpoint is allowed to give; a JSON body parses, and a
//!   JSON-RPC answer echoes the request id or `null`;
//! - no request reaches Kobana with a path segment that is not a valid id, and no query key
//!   is injected twice;
//! - the bearer token never appears in the answer.

#![no_main]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use fake_kobana::FakeKobana;
use http_body_util::{BodyExt, Full};
use kobana_mcp::{App, Config};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

struct World {
    runtime: tokio::runtime::Runtime,
    app: App,
    fake: FakeKobana,
    token: String,
    execs: AtomicU64,
}

fn world() -> &'static World {
    static WORLD: OnceLock<World> = OnceLock::new();
    WORLD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("tokio runtime");
        let fake = runtime.block_on(FakeKobana::start());
        let config = Config {
            kobana_api_url: fake.base_url(),
            kobana_timeout: Duration::from_secs(3),
            allowed_origins: vec!["https://app.example.com".to_owned()],
            ..Config::default()
        };
        let app = App::new(config).expect("app builds");
        World {
            runtime,
            app,
            fake,
            token: fake_kobana::full_token(),
            execs: AtomicU64::new(0),
        }
    })
}

/// The header value a client sends for `value` (`=?base64?…?=` unless plain visible ASCII).
fn header_text(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x21..=0x7e).contains(&b))
        && !value.starts_with("=?");
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn is_external_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 128
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Whether a `/v1/…` path the fake received is one a well-behaved server may build.
fn valid_upstream_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/v1/") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let collections = [
        "organization",
        "customers",
        "billing_accounts",
        "subscriptions",
        "invoices",
        "payments",
        "nfes",
    ];
    let actions: &[&str] = match parts[0] {
        "subscriptions" => &["cancel", "pause", "resume"],
        "invoices" => &["finalize", "void", "send-reminder", "issue-nfe", "pdf"],
        "payments" => &["refund"],
        "nfes" => &["issue", "cancel", "pdf", "xml"],
        _ => &[],
    };
    let id_ok = |id: &str| {
        is_uuid(id)
            || (parts[0] == "customers" && is_external_id(id))
            || (parts[0] == "invoices" && matches!(id, "pending-payment" | "pending-nfe"))
    };
    match parts.as_slice() {
        [c] => collections.contains(c),
        ["organization", ..] => false,
        [c, id] => collections.contains(c) && id_ok(id),
        [c, id, action] => {
            collections.contains(c) && is_uuid(id) && actions.contains(action) && id_ok(id)
        }
        _ => false,
    }
}

fn query_keys_unique(query: &str) -> bool {
    let mut seen = std::collections::HashSet::new();
    query
        .split('&')
        .map(|pair| pair.split('=').next().unwrap_or(""))
        .all(|key| seen.insert(key.to_owned()))
}

/// JSON-RPC ids are the same id when equal, numbers by value: `-0`, `0.0` and `0` are one id
/// (rmcp echoes an integral number in its integer form).
fn same_id(sent: &Value, answered: &Value) -> bool {
    match (sent, answered) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        _ => sent == answered,
    }
}

const ALLOWED_STATUS: [u16; 10] = [200, 202, 400, 401, 403, 404, 405, 406, 413, 415];

fn build_request(world: &World, profile: u8, body: &[u8]) -> http::Request<Full<Bytes>> {
    let mut request = http::Request::builder()
        .method(if profile & 0b1100_0000 == 0b1100_0000 {
            http::Method::GET
        } else {
            http::Method::POST
        })
        .uri("http://127.0.0.1:3000/mcp")
        .header(http::header::HOST, "127.0.0.1:3000");
    // Bits 0-1: era headers.
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let field = |name: &str| -> Option<String> {
        let params = parsed.as_ref()?.get("params")?;
        params.get(name)?.as_str().map(str::to_owned)
    };
    match profile & 0b11 {
        0 => request = request.header("mcp-protocol-version", "2025-11-25"),
        1 => {}
        2 => {
            request = request.header("mcp-protocol-version", "2026-07-28");
            if let Some(method) = parsed
                .as_ref()
                .and_then(|v| v.get("method"))
                .and_then(Value::as_str)
            {
                request = request.header("mcp-method", header_text(method));
            }
            if let Some(name) = field("name").or_else(|| field("uri")) {
                request = request.header("mcp-name", header_text(&name));
            }
        }
        _ => {
            request = request
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", "tools/call")
                .header("mcp-name", "=?base64?!!?=");
        }
    }
    // Bits 2-3: token.
    match (profile >> 2) & 0b11 {
        0 | 1 => request = request.header("authorization", format!("Bearer {}", world.token)),
        2 => request = request.header("authorization", "Bearer a b"),
        _ => {}
    }
    // Bit 4: a browser Origin (allowed or foreign).
    if profile & 0b1_0000 != 0 {
        let origin = if profile & 0b10_0000 != 0 {
            "https://app.example.com"
        } else {
            "https://evil.example.com"
        };
        request = request.header("origin", origin);
    }
    // Bit 5 without bit 4: wrong content negotiation.
    if profile & 0b11_0000 == 0b10_0000 {
        request = request
            .header("content-type", "text/plain")
            .header("accept", "application/json");
    } else {
        request = request
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
    }
    request
        .body(Full::new(Bytes::copy_from_slice(body)))
        .expect("request builds")
}

fn check_answer(
    world: &World,
    profile: u8,
    body: &[u8],
    status: u16,
    content_type: Option<&str>,
    answer: &[u8],
) {
    assert!(
        ALLOWED_STATUS.contains(&status),
        "unexpected status {status}: {}",
        String::from_utf8_lossy(answer)
    );
    // 406/415 answer content negotiation only: never a body the server could not read.
    let bad_negotiation = profile & 0b11_0000 == 0b10_0000;
    assert!(
        !matches!(status, 406 | 415) || bad_negotiation,
        "{status} for a request with proper content negotiation: {}",
        String::from_utf8_lossy(answer)
    );
    let token = world.token.as_bytes();
    assert!(
        !answer.windows(token.len()).any(|w| w == token),
        "the token appears in the answer"
    );
    if content_type.is_some_and(|c| c.starts_with("application/json")) && !answer.is_empty() {
        let value: Value = serde_json::from_slice(answer)
            .unwrap_or_else(|e| panic!("JSON answer does not parse ({e})"));
        if let Some(object) = value.as_object()
            && object.get("jsonrpc").is_some()
        {
            assert_eq!(object["jsonrpc"], "2.0", "{value}");
            let sent_id = serde_json::from_slice::<Value>(body)
                .ok()
                .and_then(|v| v.get("id").cloned());
            let id = object.get("id").cloned().unwrap_or(Value::Null);
            assert!(
                id.is_null() || sent_id.as_ref().is_some_and(|sent| same_id(sent, &id)),
                "answer id {id} is neither null nor the request's {sent_id:?}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let world = world();
    let Some((&profile, body)) = data.split_first() else {
        return;
    };
    let n = world.execs.fetch_add(1, Ordering::Relaxed);
    if n % 2000 == 0 {
        // Bounded memory: forget the fake's data changes and idempotency records.
        world.fake.reset();
    }
    world.fake.clear_calls();
    let request = build_request(world, profile, body);
    let answer = world.runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(15), async {
            let response = world.app.handle(request).await;
            let status = response.status().as_u16();
            let content_type = response
                .headers()
                .get(http::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let bytes = response
                .into_body()
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_else(|e| panic!("answer body broke: {e}"));
            (status, content_type, bytes)
        })
        .await
    });
    let (status, content_type, answer) =
        answer.unwrap_or_else(|_| panic!("no answer within 15 s (hang)"));
    check_answer(
        world,
        profile,
        body,
        status,
        content_type.as_deref(),
        &answer,
    );
    for call in world.fake.calls() {
        assert!(
            valid_upstream_path(&call.path),
            "invalid path reached Kobana: {} {}",
            call.method,
            call.path
        );
        if let Some(query) = &call.query {
            assert!(query_keys_unique(query), "query key injected: {query}");
        }
    }
});
