//! Hostile ids, tool arguments and resource URIs, each with the exact answer it must get: the
//! data is `tests/fixtures/hostile/arguments.json`.

use serde_json::{Value, json};

use super::cases::*;
use super::corpus::{Vars, cases, file};

/// A group's entries.
fn group(name: &str) -> Vec<Value> {
    cases("arguments", name)
}

fn text(entry: &Value, key: &str) -> String {
    entry[key]
        .as_str()
        .unwrap_or_else(|| panic!("no {key} in {entry}"))
        .to_owned()
}

/// Ids no Kobana record has: traversal, encodings, unicode look-alikes, injection, huge.
pub fn hostile_ids() -> Vec<(String, Value)> {
    let vars = Vars::default();
    group("ids")
        .iter()
        .map(|entry| (text(entry, "name"), vars.value(&entry["value"])))
        .collect()
}

/// The calls of [`hostile_tool_arguments`], each a name, a tool and its arguments.
fn tool_calls(id_tools: &[String]) -> Vec<(String, String, Value)> {
    let vars = Vars::default();
    let file = file("arguments");
    let mut calls = Vec::new();
    for tool in id_tools {
        for (label, id) in hostile_ids() {
            calls.push((
                format!("{tool} id {label}"),
                tool.clone(),
                json!({"id": id}),
            ));
        }
    }
    for entry in group("uuid_fields") {
        let (tool, field) = (text(&entry, "tool"), text(&entry, "field"));
        for value in file["uuid_fields"]["values"].as_array().expect("values") {
            let value = value.as_str().expect("a value");
            calls.push((
                format!("{tool} {field} {value:?}"),
                tool.clone(),
                json!({ field.as_str(): value }),
            ));
        }
    }
    let generic = &file["generic"];
    let (id_tool, id_operation) = (text(generic, "id_tool"), text(generic, "id_operation"));
    for (label, id) in hostile_ids() {
        let args = json!({"operation": id_operation, "path": {"id": id}});
        calls.push((format!("{id_tool} path.id {label}"), id_tool.clone(), args));
    }
    for entry in group("generic") {
        let tool = text(&entry, "tool");
        calls.push((
            format!("{tool} {}", text(&entry, "name")),
            tool,
            vars.value(&entry["args"]),
        ));
    }
    let list = text(&file["list"], "tool");
    for entry in group("list") {
        calls.push((
            format!("{list} {}", text(&entry, "name")),
            list.clone(),
            vars.value(&entry["args"]),
        ));
    }
    for entry in group("single") {
        calls.push((
            text(&entry, "name"),
            text(&entry, "tool"),
            vars.value(&entry["args"]),
        ));
    }
    calls
}

/// Tool-argument abuse: each is an `isError` result (T-4), never a protocol error, and none
/// reaches Kobana. `id_tools` are the tools that take an `id`. Then arguments past the
/// front's byte scan (HD-1: 32 levels, 10,000 values and names), which never reach the tools:
/// the message is refused unread.
pub fn hostile_tool_arguments(id_tools: &[String]) -> Vec<Case> {
    let mut cases: Vec<Case> = tool_calls(id_tools)
        .into_iter()
        .enumerate()
        .map(|(i, (name, tool, args))| {
            let params = json!({"name": tool, "arguments": args});
            case(
                name,
                legacy(json!(i + 1), "tools/call", params),
                legacy_headers(),
                Expect::ToolError,
            )
        })
        .collect();
    let vars = Vars::default();
    let list = text(&file("arguments")["list"], "tool");
    for entry in group("past_the_scan") {
        let params = json!({"name": list, "arguments": vars.value(&entry["args"])});
        cases.push(case(
            format!("{list} {}", text(&entry, "name")),
            legacy(json!(0), "tools/call", params),
            legacy_headers(),
            rpc(400, INVALID_REQUEST, Value::Null),
        ));
    }
    cases
}

/// Resource URIs that name nothing: not found with `data.uri` in both eras.
pub fn hostile_uris() -> Vec<String> {
    let vars = Vars::default();
    group("uris")
        .iter()
        .map(|spec| match vars.value(spec) {
            Value::String(uri) => uri,
            other => panic!("a uri, not {other}"),
        })
        .collect()
}

pub fn hostile_uri_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (i, uri) in hostile_uris().into_iter().enumerate() {
        cases.push(case(
            format!("uri (2025) {uri:.60?}"),
            legacy(json!(i), "resources/read", json!({"uri": uri})),
            legacy_headers(),
            Expect::NotFound {
                modern: false,
                uri: uri.clone(),
            },
        ));
        cases.push(case(
            format!("uri (2026) {uri:.60?}"),
            modern(json!(i), "resources/read", json!({"uri": uri})),
            modern_headers("resources/read", Some(&uri)),
            Expect::NotFound { modern: true, uri },
        ));
    }
    cases
}

/// Values that get past the argument checks and reach Kobana or another path of the server —
/// an external id, a search text, a completion, a prompt's customer, a resource URI — each a
/// distinctive sentinel (`zqx`), some short or lower case, one with a raw newline and a bidi
/// override: the log scans look for every one of them (BW-3). Era 2025, each with its answer.
pub fn values_that_reach_kobana() -> Vec<Case> {
    let vars = Vars::default();
    group("reach_kobana")
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let method = text(entry, "method");
            case(
                format!("reaches Kobana: {method} #{}", i + 1),
                legacy(json!(i + 1), &method, vars.value(&entry["params"])),
                legacy_headers(),
                vars.expect(&entry["expect"]),
            )
        })
        .collect()
}

/// The strings a case sends as values: every string in its `params.arguments`, its
/// `params.argument.value` (a completion) and its `params.uri`.
pub fn sent_strings(case: &Case) -> Vec<String> {
    fn strings(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
            Value::Object(map) => map.values().for_each(|v| strings(v, out)),
            _ => {}
        }
    }
    let Ok(body) = serde_json::from_slice::<Value>(&case.body) else {
        return Vec::new();
    };
    let params = &body["params"];
    let mut out = Vec::new();
    strings(&params["arguments"], &mut out);
    strings(&params["argument"]["value"], &mut out);
    strings(&params["uri"], &mut out);
    out
}
