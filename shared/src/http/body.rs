//! The one parse of a POST body (HD-1, RP-1): a byte scan that bounds the tree any parse
//! could build, then one tree for everything the front reads.
//!
//! **The scan** runs over the raw bytes before any parser sees them and refuses a body that
//! nests deeper than [`MAX_DEPTH`] or holds more than [`MAX_NODES`] values and member names
//! (400, -32600). It keeps one flag (inside a string or not), so it costs one pass and no
//! allocation whatever the bytes; a body it passes makes every later parse (the tree here,
//! the typed check of `jsonrpc`, rmcp's own) build at most that many nodes, which is what
//! bounds a request's memory and CPU: a 1 MiB body of tiny objects (`{"a":{"a":{}}}`…) was
//! three parses of 225,000 maps, 300 MB. docs/reliability.md gives the reasoning behind the
//! limits.
//!
//! **The tree** is a `serde_json::Value` built once and handed on: to the request line, to
//! the shape check and to the typed check ([`Message`]). It notes whether a member was
//! repeated anywhere, because a `Value` keeps only the last one while rmcp's typed parse may
//! refuse it: only then does the typed check read the bytes again.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// Deepest nesting of objects and arrays a body may have. The deepest request a client sends
/// today is six levels (the message, `params`, `arguments`, an array of objects and their
/// members); era 2026's `_meta` adds two.
pub const MAX_DEPTH: usize = 32;
/// Most values and member names a body may hold. The largest request a tool takes today,
/// an invoice's 200 line items, is about 1,400; a customer's 50 addresses about 1,000.
pub const MAX_NODES: usize = 10_000;

/// Why a body was refused before any parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScanError {
    /// Objects and arrays nested deeper than [`MAX_DEPTH`].
    #[error("a mensagem aninha objetos e listas em mais de {MAX_DEPTH} níveis")]
    TooDeep,
    /// More than [`MAX_NODES`] values and member names.
    #[error("a mensagem tem mais de {MAX_NODES} valores e nomes de membros")]
    TooManyNodes,
}

/// Scans `bytes` as JSON text for its nesting and its count of values and member names
/// (each string, number, literal, object and array counts one), without building anything.
/// Bytes that are not JSON pass or fail as they count; the parse after it refuses them.
pub fn scan(bytes: &[u8]) -> Result<(), ScanError> {
    let (mut depth, mut nodes) = (0usize, 0usize);
    let mut in_string = false;
    let mut escaped = false;
    let mut in_scalar = false;
    for &byte in bytes {
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        let starts = match byte {
            b'"' => {
                in_string = true;
                true
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(ScanError::TooDeep);
                }
                true
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                false
            }
            b',' | b':' | b' ' | b'\t' | b'\n' | b'\r' => false,
            // A number or a literal: one node where it starts.
            _ => !in_scalar,
        };
        in_scalar = !matches!(
            byte,
            b'"' | b'{' | b'[' | b'}' | b']' | b',' | b':' | b' ' | b'\t' | b'\n' | b'\r'
        );
        if starts {
            nodes += 1;
            if nodes > MAX_NODES {
                return Err(ScanError::TooManyNodes);
            }
        }
    }
    Ok(())
}

/// A body read as JSON once: the tree, and whether some object repeated a member name (the
/// tree keeps the last).
#[derive(Debug)]
pub struct Message {
    /// The JSON tree.
    pub value: Value,
    /// Some object of the body names a member twice.
    pub repeated_member: bool,
}

/// Reads `bytes` (already [`scan`]ned) as one JSON text.
pub fn parse(bytes: &[u8]) -> Result<Message, serde_json::Error> {
    let repeated = Cell::new(false);
    let mut reader = serde_json::Deserializer::from_slice(bytes);
    let value = Tree(&repeated).deserialize(&mut reader)?;
    reader.end()?;
    Ok(Message {
        value,
        repeated_member: repeated.get(),
    })
}

/// Builds a `serde_json::Value` as its own `Deserialize` does, noting repeated members.
struct Tree<'a>(&'a Cell<bool>);

impl<'de> DeserializeSeed<'de> for Tree<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Tree<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Tree(self.0))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(name) = map.next_key::<String>()? {
            let value = map.next_value_seed(Tree(self.0))?;
            if members.insert(name, value).is_some() {
                self.0.set(true);
            }
        }
        Ok(Value::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hd1_the_scan_counts_values_and_names_and_bounds_the_nesting() {
        assert!(scan(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        let empties = format!("[{}]", "[],".repeat(MAX_NODES - 1));
        assert_eq!(
            scan(empties.trim_end_matches(",]").as_bytes()),
            Ok(()),
            "each empty array is one node"
        );
        assert_eq!(
            scan(format!("[{}[]]", "[],".repeat(MAX_NODES - 1)).as_bytes()),
            Err(ScanError::TooManyNodes)
        );
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert_eq!(scan(deep.as_bytes()), Ok(()));
        let deeper = format!("[{deep}]");
        assert_eq!(scan(deeper.as_bytes()), Err(ScanError::TooDeep));
        // Brackets inside strings (escaped quotes included) are text.
        let text = format!(r#"["\"{}"]"#, "[{".repeat(1000));
        assert_eq!(scan(text.as_bytes()), Ok(()));
        // {"a":1} is 3 nodes: the object, the name, the value; -12.5e3 and true one each.
        let members = format!("[{}]", r#"{"a":-12.5e3},true"#.repeat(MAX_NODES / 4));
        assert_eq!(scan(members.as_bytes()), Err(ScanError::TooManyNodes));
        let fewer = format!("[{}]", r#"{"a":-12.5e3},true"#.repeat((MAX_NODES - 1) / 4));
        assert_eq!(scan(fewer.as_bytes()), Ok(()));
        let objects = r#"{"a":{"a":{}}},"#.repeat(2_000);
        assert_eq!(
            scan(format!("[{objects}0]").as_bytes()),
            Err(ScanError::TooManyNodes)
        );
    }

    #[test]
    fn hd1_the_tree_is_the_value_serde_builds_and_notes_repeated_members() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1.0,"method":"x","params":{"a":[1,-2,3.5,null,true,"é\u0000"]}}"#,
            "[]",
            r#""s""#,
            "18446744073709551615",
            "-9223372036854775808",
        ] {
            let message = parse(text.as_bytes()).unwrap();
            assert_eq!(message.value, serde_json::from_str::<Value>(text).unwrap());
            assert!(!message.repeated_member, "{text}");
        }
        for repeated in [r#"{"id":1,"id":2}"#, r#"{"p":[{"a":1,"a":1}]}"#] {
            let message = parse(repeated.as_bytes()).unwrap();
            assert!(message.repeated_member, "{repeated}");
            assert_eq!(
                message.value,
                serde_json::from_str::<Value>(repeated).unwrap()
            );
        }
        for bad in ["{", "[1,]", "{} {}", "\u{feff}{}"] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad}");
        }
    }
}
