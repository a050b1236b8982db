//! Running and judging the corpus: send each case over raw HTTP, compare the answer, record
//! panics anywhere outside the test code, and check every path the server sent Kobana.

use std::cell::Cell;
use std::sync::{Mutex, Once};
use std::time::Duration;

use fake_kobana::full_token;
use serde_json::{Value, json};

use super::cases::*;
use crate::common::Stack;

// ---------------------------------------------------------------------------------------
// Panics anywhere outside the test code itself (server, rmcp, fake) are recorded here, on the
// threads running a corpus only: every test area shares this process, and a panic another area
// provokes on its own thread is not the corpus's.

pub static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

thread_local! {
    /// Whether this thread runs a corpus (the server's tasks run on it: current-thread runtime).
    static WATCHED: Cell<bool> = const { Cell::new(false) };
}

pub fn watch_panics() {
    WATCHED.with(|watched| watched.set(true));
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let file = info.location().map(|l| l.file()).unwrap_or_default();
            if WATCHED.with(Cell::get) && !file.contains("tests/it/") {
                PANICS
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(info.to_string());
            }
            previous(info);
        }));
    });
}

pub fn panics() -> Vec<String> {
    PANICS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

pub fn header_map(case: &Case) -> reqwest::header::HeaderMap {
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    let mut map = HeaderMap::new();
    map.insert("content-type", HeaderValue::from_static("application/json"));
    map.insert(
        "accept",
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    map.insert(
        "authorization",
        HeaderValue::from_str(&format!("Bearer {}", full_token())).unwrap(),
    );
    for change in &case.headers {
        match change {
            H::Set(name, value) => {
                map.insert(
                    HeaderName::from_bytes(name.as_bytes()).expect("header name"),
                    HeaderValue::from_bytes(value).expect("header value"),
                );
            }
            H::Append(name, value) => {
                map.append(
                    HeaderName::from_bytes(name.as_bytes()).expect("header name"),
                    HeaderValue::from_bytes(value).expect("header value"),
                );
            }
            H::Remove(name) => {
                map.remove(name.as_str());
            }
        }
    }
    map
}

pub async fn send(stack: &Stack, case: &Case) -> Result<Answer, String> {
    let request = stack
        .http
        .post(&stack.url)
        .headers(header_map(case))
        .body(case.body.clone());
    let attempt = async {
        let response = request
            .send()
            .await
            .map_err(|e| format!("no answer: {e}"))?;
        let status = response.status().as_u16();
        let body = response
            .bytes()
            .await
            .map_err(|e| format!("answer broke: {e}"))?;
        Ok(Answer {
            status,
            body: body.to_vec(),
        })
    };
    tokio::time::timeout(Duration::from_secs(20), attempt)
        .await
        .map_err(|_| "no answer within 20 s".to_owned())?
}

/// What is wrong with `answer` for `case`, if anything.
pub fn judge(case: &Case, answer: &Answer) -> Option<String> {
    let text = String::from_utf8_lossy(&answer.body);
    let shown: String = text.chars().take(300).collect();
    let json: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let fail = |why: String| Some(format!("{why}; got {} {shown}", answer.status));
    let id_of = |v: &Value| v.get("id").cloned().unwrap_or(Value::Null);
    match &case.expect {
        Expect::Rpc(_, _, id) if json.is_none() => {
            fail(format!("expected a JSON-RPC answer with id {id}"))
        }
        Expect::Result(id) if json.is_none() => {
            fail(format!("expected a JSON-RPC answer with id {id}"))
        }
        Expect::Rpc(status, code, id) => {
            let body = json.unwrap();
            if answer.status != *status
                || body["jsonrpc"] != "2.0"
                || body["error"]["code"] != json!(code)
                || &id_of(&body) != id
                || body.get("result").is_some()
            {
                return fail(format!("expected {status} with error {code} and id {id}"));
            }
            None
        }
        Expect::Result(id) => {
            let body = json.unwrap();
            if answer.status != 200
                || body.get("result").is_none()
                || body.get("error").is_some()
                || &id_of(&body) != id
            {
                return fail(format!("expected 200 with a result and id {id}"));
            }
            None
        }
        Expect::NotFound { modern, uri } => {
            let code = if *modern { -32602 } else { -32002 };
            let ok = answer.status == 200
                && json.as_ref().is_some_and(|b| {
                    b["error"]["code"] == json!(code)
                        && b["error"]["data"]["uri"] == json!(uri)
                        && b.get("result").is_none()
                });
            if ok {
                None
            } else {
                fail(format!("expected 200 with error {code} and data.uri"))
            }
        }
        Expect::ToolError => {
            let ok = answer.status == 200
                && json
                    .as_ref()
                    .is_some_and(|b| b["result"]["isError"] == json!(true));
            if ok {
                None
            } else {
                fail("expected a tool result with isError: true".into())
            }
        }
        Expect::Status(status) => {
            if answer.status == *status {
                None
            } else {
                fail(format!("expected HTTP {status}"))
            }
        }
        Expect::Accepted => {
            if answer.status == 202 && answer.body.is_empty() {
                None
            } else {
                fail("expected 202 with an empty body".into())
            }
        }
    }
}

pub use fake_kobana::ids::is_uuid;

/// Whether the server may send Kobana this path: known collections and actions, ids that
/// are UUIDs (customers also take an `external_id`: letters, digits, `-`, `_`, `.`).
pub fn valid_upstream_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/v1/") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    let external_id = |s: &str| {
        !s.is_empty()
            && s.len() <= 128
            && s != "."
            && s != ".."
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    };
    let actions: &[&str] = match parts[0] {
        "subscriptions" => &["cancel", "pause", "resume"],
        "invoices" => &["finalize", "void", "send-reminder", "issue-nfe", "pdf"],
        "payments" => &["refund"],
        "nfes" => &["issue", "cancel", "pdf", "xml"],
        "plans" => &["items"],
        _ => &[],
    };
    let collection = matches!(
        parts[0],
        "customers"
            | "billing_accounts"
            | "plans"
            | "products"
            | "subscriptions"
            | "invoices"
            | "payments"
            | "nfes"
    );
    match parts.as_slice() {
        ["organization"] => true,
        ["invoices", "pending-payment" | "pending-nfe"] => true,
        [_] => collection,
        ["customers", id] => is_uuid(id) || external_id(id),
        [_, id] => collection && is_uuid(id),
        [_, id, action] => collection && is_uuid(id) && actions.contains(action),
        _ => false,
    }
}

/// Problems with what reached Kobana: invalid paths, or a query key given twice.
pub fn upstream_violations(stack: &Stack) -> Vec<String> {
    let mut bad = Vec::new();
    for call in stack.fake.calls() {
        if !valid_upstream_path(&call.path) {
            bad.push(format!(
                "invalid path reached Kobana: {} {}",
                call.method, call.path
            ));
        }
        if let Some(query) = &call.query {
            let mut keys = std::collections::HashSet::new();
            for pair in query.split('&') {
                let key = pair.split('=').next().unwrap_or("");
                if !keys.insert(key.to_owned()) {
                    bad.push(format!("query key {key:?} given twice: {query}"));
                }
            }
        }
    }
    bad
}

/// Sends every case, then checks answers, panics and upstream calls. Returns every problem.
pub async fn run(stack: &Stack, cases: &[Case]) -> Vec<String> {
    watch_panics();
    let panics_before = panics().len();
    let mut problems = Vec::new();
    for case in cases {
        match send(stack, case).await {
            Ok(answer) => {
                if let Some(problem) = judge(case, &answer) {
                    problems.push(format!("[{}] {problem}", case.name));
                }
            }
            Err(error) => problems.push(format!("[{}] {error}", case.name)),
        }
    }
    problems.extend(
        panics()
            .into_iter()
            .skip(panics_before)
            .map(|p| format!("server panicked: {p}")),
    );
    problems.extend(upstream_violations(stack));
    eprintln!(
        "hostile: {} cases sent, {} problems",
        cases.len(),
        problems.len()
    );
    problems
}

pub fn report(problems: &[String], total: usize) -> String {
    format!(
        "{} of {total} hostile cases went wrong:\n{}",
        problems.len(),
        problems.join("\n")
    )
}

pub async fn id_tools(stack: &Stack) -> Vec<String> {
    let (status, body) = stack.legacy(&full_token(), "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    body["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter(|t| t["inputSchema"]["properties"].get("id").is_some())
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}
