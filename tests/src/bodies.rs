//! RP-1's request bodies (HD-1): the review's own body — 1 MiB of tiny nested objects that
//! cost ~300 MB before anything refused it — and, for each shape a body can take, the worst
//! one the front still reads: as close to its byte limit, nesting and node count as the shape
//! allows. The tests (`tests/it/hostile/bodies.rs`) and the benchmark (section 8) send the same bodies,
//! under any bearer.

/// The front's bounds the bodies are built against (the server's `MCP_MAX_BODY_BYTES`,
/// `http::MAX_BODY_DEPTH` and `http::MAX_BODY_NODES`).
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Largest body, in bytes.
    pub bytes: usize,
    /// Deepest nesting of objects and arrays.
    pub depth: usize,
    /// Most values and member names.
    pub nodes: usize,
}

/// One body: its name, the bytes, and whether the front must refuse it unread (over a bound).
#[derive(Debug, Clone)]
pub struct Body {
    /// What shape it has.
    pub name: &'static str,
    /// The JSON-RPC message.
    pub bytes: Vec<u8>,
    /// The front refuses it before any parse (400, -32600).
    pub over_bounds: bool,
}

/// A `tools/call` of `billing_customers_list` with `arguments` (JSON text).
fn call(arguments: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"billing_customers_list","arguments":{arguments}}}}}"#
    )
    .into_bytes()
}

/// `unit` repeated `count` times, comma-joined.
fn repeated(unit: &str, count: usize) -> String {
    vec![unit; count].join(",")
}

fn body(name: &'static str, bytes: Vec<u8>, over_bounds: bool) -> Body {
    Body {
        name,
        bytes,
        over_bounds,
    }
}

/// The review's body and the worst body of each shape within `bounds`.
pub fn bodies(bounds: Bounds) -> Vec<Body> {
    // Room left for the envelope (about 20 nodes, 200 bytes) in every body.
    let nodes = bounds.nodes - 24;
    let bytes = bounds.bytes - 256;
    let tiny = r#"{"a":{"a":{}}}"#; // 5 nodes, 14 bytes
    let report = format!(r#"{{"x":[{}]}}"#, repeated(tiny, bytes / (tiny.len() + 1)));
    let inner = bounds.depth - 6;
    let nest = format!("{}{}", "[".repeat(inner), "]".repeat(inner));
    let members: Vec<String> = (0..nodes / 2).map(|i| format!(r#""k{i}":0"#)).collect();
    let long = nodes - 4;
    let each = bytes / long - 3;
    let meta_depth = bounds.depth - 4;
    let meta_members: Vec<String> = (0..(nodes - 2 * meta_depth) / 2)
        .map(|i| format!(r#""m{i}":0"#))
        .collect();
    let meta = format!(
        "{}{{{}}}{}",
        r#"{"m":"#.repeat(meta_depth),
        meta_members.join(","),
        "}".repeat(meta_depth)
    );
    vec![
        body(
            "the review's body: 1 MiB of tiny nested objects",
            call(&report),
            true,
        ),
        body(
            "nested objects",
            call(&format!(r#"{{"x":[{}]}}"#, repeated(tiny, nodes / 5))),
            false,
        ),
        body(
            "nested arrays",
            call(&format!(r#"{{"x":[{}]}}"#, repeated(&nest, nodes / inner))),
            false,
        ),
        body(
            "many small members",
            call(&format!("{{{}}}", members.join(","))),
            false,
        ),
        body(
            "one repeated member name",
            call(&format!("{{{}}}", repeated(r#""a":0"#, nodes / 2))),
            false,
        ),
        body(
            "a long string",
            call(&format!(r#"{{"search":"{}"}}"#, "a".repeat(bytes))),
            false,
        ),
        body(
            "a long escaped string",
            call(&format!(
                r#"{{"search":"{}"}}"#,
                r"\u00e9".repeat(bytes / 6)
            )),
            false,
        ),
        body(
            "a long member name",
            call(&format!(r#"{{"{}":1}}"#, "a".repeat(bytes))),
            false,
        ),
        body(
            "many long strings",
            call(&format!(
                r#"{{"x":[{}]}}"#,
                repeated(&format!(r#""{}""#, "b".repeat(each)), long)
            )),
            false,
        ),
        body(
            "deep _meta",
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
            )
            .into_bytes(),
            false,
        ),
        body(
            "a notification of nested objects",
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized","params":{{"x":[{}]}}}}"#,
                repeated(tiny, nodes / 5)
            )
            .into_bytes(),
            false,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hd1_every_body_is_json_within_the_byte_limit() {
        let bounds = Bounds {
            bytes: 1024 * 1024,
            depth: 32,
            nodes: 10_000,
        };
        for body in bodies(bounds) {
            assert!(
                body.bytes.len() <= bounds.bytes,
                "{}: {}",
                body.name,
                body.bytes.len()
            );
            let value: serde_json::Value = serde_json::from_slice(&body.bytes)
                .unwrap_or_else(|e| panic!("{}: {e}", body.name));
            assert_eq!(value["jsonrpc"], "2.0", "{}", body.name);
        }
    }
}
