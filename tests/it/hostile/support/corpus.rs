//! The loader of the hostile corpora, data files under `tests/fixtures/hostile/` (LH-2): one
//! case an entry, each group with a `why`. The corpus modules (`argument_corpus`,
//! `header_corpus`, `protocol_corpus`) read a group and give its cases their answer.
//!
//! What the files may write beside plain JSON:
//! - in a string, `${NAME}`: a fixture id (`INV_OPEN`, `PADARIA`, `RAFAEL`, `UNKNOWN`), a
//!   protocol version (`LEGACY`, `MODERN`), a token (`full_token`, `expired_token`), or what
//!   the caller adds ([`Vars::with`], e.g. `port`);
//! - a value `{"@repeat": [text, n]}` (text n times), `{"@concat": [parts]}` (strings or
//!   bytes, joined), `{"@keys": n}` (an object `k0: 0` … `kn-1`), `{"@nested": n}` (`1` in n
//!   arrays), `{"@zeros": n}` (n zeros), `{"@numbered": [n, item]}` (n copies of item, each
//!   string `"@n"` in it its index), `{"@meta": {member: value}}` (the era-2026 `_meta` with
//!   these members set, `null` removing one), `{"@base64": text}` (an `Mcp-*` header's
//!   encoded form);
//! - bytes only: `{"@latin1": text}` (one byte a character, for bytes that are not UTF-8),
//!   `{"@utf16le": text}`;
//! - a body: `{"legacy": [id, method, params]}`, `{"modern": [id, method, params]}` (with
//!   `_meta`), `{"json": value}`, or bytes as above;
//! - headers: `"legacy"`, `{"modern": [method, name or null]}`, or a list of
//!   `["set" | "append", name, value]` and `["remove", name]`;
//! - an answer: `{"rpc": [status, code name, id]}`, `{"status": n}`, `{"result": id}`,
//!   `"tool_error"`, `"accepted"`, `{"not_found": {"modern": bool, "uri": text}}`.

use base64::Engine as _;
use fake_kobana::fixtures::ids::{INV_OPEN, PADARIA, RAFAEL, UNKNOWN};
use serde_json::{Map, Value, json};

use super::cases::{
    Expect, H, HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, LEGACY, METHOD_NOT_FOUND, MODERN,
    PARSE_ERROR, UNSUPPORTED_VERSION, legacy, legacy_headers, meta, modern, modern_headers,
};

/// One data file of `tests/fixtures/hostile/`, parsed.
pub fn file(name: &str) -> Value {
    let text = match name {
        "arguments" => include_str!("../../../fixtures/hostile/arguments.json"),
        "headers" => include_str!("../../../fixtures/hostile/headers.json"),
        "protocol" => include_str!("../../../fixtures/hostile/protocol.json"),
        _ => panic!("no hostile corpus named {name}"),
    };
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}.json: {e}"))
}

/// The entries of `group` in data file `name` (its `cases`).
pub fn cases(name: &str, group: &str) -> Vec<Value> {
    let file = file(name);
    file[group]["cases"]
        .as_array()
        .unwrap_or_else(|| panic!("{name}.json has no {group}.cases"))
        .clone()
}

/// The names `${NAME}` stands for.
#[derive(Debug, Clone)]
pub struct Vars(Vec<(String, String)>);

impl Default for Vars {
    fn default() -> Self {
        let pairs = [
            ("INV_OPEN", INV_OPEN.to_owned()),
            ("PADARIA", PADARIA.to_owned()),
            ("RAFAEL", RAFAEL.to_owned()),
            ("UNKNOWN", UNKNOWN.to_owned()),
            ("LEGACY", LEGACY.to_owned()),
            ("MODERN", MODERN.to_owned()),
            ("full_token", fake_kobana::full_token()),
            ("expired_token", fake_kobana::expired_token()),
        ];
        Vars(pairs.map(|(k, v)| (k.to_owned(), v)).to_vec())
    }
}

impl Vars {
    /// These names and one more.
    pub fn with(mut self, name: &str, value: impl ToString) -> Self {
        self.0.push((name.to_owned(), value.to_string()));
        self
    }

    fn text(&self, s: &str) -> String {
        let mut out = s.to_owned();
        for (name, value) in &self.0 {
            out = out.replace(&format!("${{{name}}}"), value);
        }
        assert!(!out.contains("${"), "an unknown name in {s:?}");
        out
    }

    /// `spec` with its names and `@` forms made values.
    pub fn value(&self, spec: &Value) -> Value {
        match spec {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => items.iter().map(|v| self.value(v)).collect(),
            Value::Object(map) => match form(map) {
                Some((name, arg)) => self.generated(name, arg),
                None => map
                    .iter()
                    .map(|(k, v)| (k.clone(), self.value(v)))
                    .collect::<Map<_, _>>()
                    .into(),
            },
            other => other.clone(),
        }
    }

    fn generated(&self, name: &str, arg: &Value) -> Value {
        let count = || usize::try_from(arg.as_u64().expect("a count")).unwrap();
        match name {
            "@repeat" => json!(self.string(&arg[0]).repeat(usize_of(&arg[1]))),
            "@concat" => json!(String::from_utf8(self.bytes(arg)).expect("UTF-8")),
            "@keys" => (0..count()).map(|i| (format!("k{i}"), json!(i))).collect(),
            "@nested" => {
                serde_json::from_str(&format!("{}1{}", "[".repeat(count()), "]".repeat(count())))
                    .expect("nested arrays")
            }
            "@zeros" => json!(vec![0; count()]),
            "@numbered" => (0..usize_of(&arg[0]))
                .map(|i| numbered(&self.value(&arg[1]), i))
                .collect(),
            "@meta" => {
                let mut meta = meta();
                for (member, value) in arg.as_object().expect("@meta's members") {
                    match value {
                        Value::Null => drop(meta.as_object_mut().unwrap().remove(member)),
                        v => meta[member] = self.value(v),
                    }
                }
                meta
            }
            "@base64" => json!(format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(self.string(arg))
            )),
            other => panic!("no value form {other}"),
        }
    }

    fn string(&self, spec: &Value) -> String {
        match self.value(spec) {
            Value::String(s) => s,
            other => panic!("a string, not {other}"),
        }
    }

    /// `spec` as bytes: a body form, `@latin1`, `@utf16le`, `@concat`, or a string.
    pub fn bytes(&self, spec: &Value) -> Vec<u8> {
        if let Value::Array(parts) = spec {
            return parts.iter().flat_map(|p| self.bytes(p)).collect();
        }
        let Some(map) = spec.as_object() else {
            return self.string(spec).into_bytes();
        };
        let arg = |key: &str| map.get(key).filter(|_| map.len() == 1);
        if let Some(call) = arg("legacy") {
            return legacy(
                self.value(&call[0]),
                &self.string(&call[1]),
                self.value(&call[2]),
            );
        }
        if let Some(call) = arg("modern") {
            return modern(
                self.value(&call[0]),
                &self.string(&call[1]),
                self.value(&call[2]),
            );
        }
        if let Some(value) = arg("json") {
            return self.value(value).to_string().into_bytes();
        }
        if let Some(text) = arg("@latin1") {
            let text = self.string(text);
            return text
                .chars()
                .map(|c| u8::try_from(c).expect("Latin-1"))
                .collect();
        }
        if let Some(text) = arg("@utf16le") {
            let text = self.string(text);
            return text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        }
        if let Some(parts) = arg("@concat") {
            return self.bytes(parts);
        }
        self.string(spec).into_bytes()
    }

    /// The header changes `spec` names.
    pub fn headers(&self, spec: &Value) -> Vec<H> {
        if spec == "legacy" {
            return legacy_headers();
        }
        if let Some(modern) = spec.get("modern") {
            let name = modern[1].as_str().map(|_| self.string(&modern[1]));
            return modern_headers(&self.string(&modern[0]), name.as_deref());
        }
        let changes = spec.as_array().expect("a list of header changes");
        changes
            .iter()
            .map(|change| {
                let name = change[1].as_str().expect("a header name").to_owned();
                match change[0].as_str() {
                    Some("set") => H::Set(name, self.bytes(&change[2])),
                    Some("append") => H::Append(name, self.bytes(&change[2])),
                    Some("remove") => H::Remove(name),
                    other => panic!("no header change {other:?}"),
                }
            })
            .collect()
    }

    /// The answer `spec` names.
    pub fn expect(&self, spec: &Value) -> Expect {
        match spec {
            Value::String(s) if s == "tool_error" => Expect::ToolError,
            Value::String(s) if s == "accepted" => Expect::Accepted,
            _ if spec.get("rpc").is_some() => {
                let rpc = &spec["rpc"];
                let status = u16::try_from(rpc[0].as_u64().expect("a status")).unwrap();
                Expect::Rpc(
                    status,
                    code(rpc[1].as_str().expect("a code")),
                    self.value(&rpc[2]),
                )
            }
            _ if spec.get("status").is_some() => {
                Expect::Status(u16::try_from(spec["status"].as_u64().unwrap()).unwrap())
            }
            _ if spec.get("result").is_some() => Expect::Result(self.value(&spec["result"])),
            _ if spec.get("not_found").is_some() => Expect::NotFound {
                modern: spec["not_found"]["modern"] == true,
                uri: self.string(&spec["not_found"]["uri"]),
            },
            other => panic!("no answer {other}"),
        }
    }
}

/// The `@` form an object is, if it is one: its only member's name and value.
fn form(map: &Map<String, Value>) -> Option<(&str, &Value)> {
    let (name, arg) = map.iter().next()?;
    (map.len() == 1 && name.starts_with('@')).then_some((name.as_str(), arg))
}

fn usize_of(value: &Value) -> usize {
    usize::try_from(value.as_u64().expect("a count")).unwrap()
}

/// `item` with each string `"@n"` in it replaced by `n`.
fn numbered(item: &Value, n: usize) -> Value {
    match item {
        Value::String(s) if s == "@n" => json!(n),
        Value::Array(items) => items.iter().map(|v| numbered(v, n)).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), numbered(v, n)))
            .collect::<Map<_, _>>()
            .into(),
        other => other.clone(),
    }
}

/// A JSON-RPC error code by its name in the files.
fn code(name: &str) -> i64 {
    match name {
        "PARSE_ERROR" => PARSE_ERROR,
        "INVALID_REQUEST" => INVALID_REQUEST,
        "METHOD_NOT_FOUND" => METHOD_NOT_FOUND,
        "INVALID_PARAMS" => INVALID_PARAMS,
        "HEADER_MISMATCH" => HEADER_MISMATCH,
        "UNSUPPORTED_VERSION" => UNSUPPORTED_VERSION,
        other => panic!("no JSON-RPC code named {other}"),
    }
}
