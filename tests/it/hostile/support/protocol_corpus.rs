//! JSON-RPC-level cases (bad JSON, wrong envelopes, wrong param types, odd ids,
//! notifications, oversized bodies), each with the exact answer it must get: the data is
//! `tests/fixtures/hostile/protocol.json`, each group's answer is here.

use serde_json::{Value, json};

use super::cases::*;
use super::corpus::{Vars, cases, file};

/// A group's entries as cases named `<prefix>: <name>`, all with the same headers and answer.
fn same_answer(group: &str, prefix: &str, headers: &[H], expect: &Expect) -> Vec<Case> {
    let vars = Vars::default();
    cases("protocol", group)
        .iter()
        .map(|entry| {
            case(
                format!("{prefix}: {}", entry["name"].as_str().expect("a name")),
                vars.bytes(&entry["body"]),
                headers.to_vec(),
                expect.clone(),
            )
        })
        .collect()
}

/// Bodies that are not JSON at all: 400, -32700, `id: null`; with every sixth proper prefix
/// of a valid request (each is invalid JSON).
pub fn parse_errors() -> Vec<Case> {
    let answer = rpc(400, PARSE_ERROR, Value::Null);
    let mut cases = same_answer("parse_errors", "parse error", &legacy_headers(), &answer);
    let group = &file("protocol")["parse_errors"];
    let request = Vars::default().bytes(&group["cut"]);
    let every = usize::try_from(group["cut_every"].as_u64().expect("cut_every")).unwrap();
    for cut in (1..request.len()).step_by(every) {
        cases.push(case(
            format!("parse error: request cut at byte {cut}"),
            request[..cut].to_vec(),
            legacy_headers(),
            answer.clone(),
        ));
    }
    cases
}

/// Bodies past the front's byte scan (HD-1): nested deeper than 32 levels or holding more
/// than 10,000 values and names, JSON or not: 400, -32600, refused before any parse.
pub fn over_the_scan() -> Vec<Case> {
    let answer = rpc(400, INVALID_REQUEST, Value::Null);
    same_answer("over_the_scan", "over the scan", &legacy_headers(), &answer)
}

/// JSON that is not one JSON-RPC 2.0 message (including every batch), duplicate members
/// included: 400, -32600; and one sound envelope with bad params (-32602, with the id).
pub fn invalid_envelopes() -> Vec<Case> {
    let vars = Vars::default();
    let answer = rpc(400, INVALID_REQUEST, Value::Null);
    let mut cases: Vec<Case> = cases("protocol", "invalid_envelopes")
        .iter()
        .map(|entry| {
            let version = vars.bytes(&entry["version"]);
            case(
                format!(
                    "invalid request: {}",
                    entry["name"].as_str().expect("a name")
                ),
                vars.bytes(&entry["body"]),
                vec![set("mcp-protocol-version", version)],
                answer.clone(),
            )
        })
        .collect();
    let headers = legacy_headers();
    cases.extend(same_answer(
        "duplicate_members",
        "invalid request",
        &headers,
        &answer,
    ));
    for entry in self::cases_of("sound_envelope") {
        cases.push(case(
            entry["name"].as_str().expect("a name"),
            vars.bytes(&entry["body"]),
            legacy_headers(),
            vars.expect(&entry["expect"]),
        ));
    }
    cases
}

fn cases_of(group: &str) -> Vec<Value> {
    cases("protocol", group)
}

/// Valid envelopes whose params have the wrong types: -32602 with the id echoed (HTTP 200,
/// the legacy convention for handler errors).
pub fn wrong_param_types() -> Vec<Case> {
    let vars = Vars::default();
    cases_of("wrong_param_types")
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            // Alternate numeric and string ids, to check both are echoed.
            let id = if i % 2 == 0 {
                json!(1000 + i)
            } else {
                json!(format!("req-{i}"))
            };
            let method = entry["method"].as_str().expect("a method");
            let headers = if method == "initialize" {
                vec![]
            } else {
                legacy_headers()
            };
            case(
                format!("wrong params: {}", entry["name"].as_str().expect("a name")),
                legacy(id.clone(), method, vars.value(&entry["params"])),
                headers,
                rpc(200, INVALID_PARAMS, id),
            )
        })
        .collect()
}

/// JSON-RPC ids with unicode tricks and edge values are echoed byte for byte.
pub fn odd_ids() -> Vec<Case> {
    let vars = Vars::default();
    cases_of("odd_ids")
        .iter()
        .map(|spec| {
            let id = vars.value(spec);
            case(
                format!("id {:.40}", id.to_string()),
                legacy(id.clone(), "ping", json!({})),
                legacy_headers(),
                Expect::Result(id),
            )
        })
        .collect()
}

/// Integers written as floats (`-0`, `1.0`, `1e2`; the fuzzer found `-0`) are the same
/// JSON-RPC id: answered, with the id in its integer form.
pub fn integral_float_ids() -> Vec<Case> {
    cases_of("integral_float_ids")
        .iter()
        .map(|entry| {
            let written = entry["written"].as_str().expect("the id as written");
            case(
                format!("id written {written}"),
                format!(r#"{{"jsonrpc":"2.0","id":{written},"method":"ping"}}"#),
                legacy_headers(),
                Expect::Result(entry["echoed"].clone()),
            )
        })
        .collect()
}

/// Notifications are accepted (202) and ignored, whatever their params. A stateless server
/// never asked anything, so a JSON-RPC response is refused: 400 with a JSON-RPC error without
/// `id` (the transport allows either; rmcp refuses).
pub fn notifications() -> Vec<Case> {
    let group = &file("protocol")["notifications"];
    let bodies = |key: &str| group[key].as_array().expect("notification bodies").clone();
    let mut cases: Vec<Case> = bodies("accepted")
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            case(
                format!("accepted #{i}: {body:.50}"),
                body.to_string(),
                legacy_headers(),
                Expect::Accepted,
            )
        })
        .collect();
    for body in bodies("refused") {
        cases.push(case(
            format!("response refused: {body:.50}"),
            body.to_string(),
            legacy_headers(),
            rpc(400, INVALID_REQUEST, Value::Null),
        ));
    }
    let mut note = json!({"jsonrpc": "2.0", "method": "notifications/initialized", "params": {}});
    note["params"]["_meta"] = meta();
    cases.push(case(
        "accepted: modern notification",
        note.to_string(),
        modern_headers("notifications/initialized", None),
        Expect::Accepted,
    ));
    cases
}
/// Bodies over the limit: 413 with -32600 before anything is parsed.
pub fn oversized(limit: usize) -> Vec<Case> {
    let padded = |size: usize| {
        let head = r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":""#;
        let tail = r#""}}"#;
        let mut body = head.as_bytes().to_vec();
        body.extend(std::iter::repeat_n(b'x', size - head.len() - tail.len()));
        body.extend_from_slice(tail.as_bytes());
        assert_eq!(body.len(), size);
        body
    };
    vec![
        case(
            "oversized: one byte over the limit",
            padded(limit + 1),
            legacy_headers(),
            rpc(413, INVALID_REQUEST, Value::Null),
        ),
        case(
            "oversized: twice the limit of brackets",
            "[".repeat(limit * 2),
            legacy_headers(),
            rpc(413, INVALID_REQUEST, Value::Null),
        ),
        case(
            "oversized: exactly at the limit is served",
            padded(limit),
            legacy_headers(),
            Expect::Result(json!(1)),
        ),
        case(
            "oversized: foreign origin is refused first",
            padded(limit + 1),
            vec![set("origin", "https://evil.example.com")],
            Expect::Status(403),
        ),
    ]
}
