//! `tools/list` without serializing the catalog again on every request.
//!
//! Each tool's definition is serialized once, when the registry is built
//! ([`ToolDef::wire`](crate::catalog::registry::ToolDef::wire)). rmcp still builds the whole
//! answer — era envelope, `ttl`, `cacheScope`, `resultType` — around one placeholder tool; the
//! front then swaps the placeholder for the visible tools' definitions, joined. The bytes are
//! what rmcp's own serialization of those tools gives (tested), for the price of one copy of
//! ~31 KB instead of walking ~31 KB of JSON values.

use std::sync::LazyLock;

use bytes::{Bytes, BytesMut};
use rmcp::model::Tool;

use super::{Deferred, DeferredSlot, split_at_placeholder};

/// A name no catalog tool can have (tool names are `snake_case`).
const PLACEHOLDER_NAME: &str = "kobana-mcp/tool-list-placeholder";

/// Handler side: parks `definitions` (the visible tools' serialized definitions) in `slot`
/// and returns the one tool that stands in for them in rmcp's answer.
pub fn defer<'a>(
    slot: &DeferredSlot,
    definitions: impl Iterator<Item = &'a Bytes> + Clone,
) -> Vec<Tool> {
    slot.put(Deferred::ToolList(join(definitions)));
    vec![PLACEHOLDER.0.clone()]
}

/// The placeholder and its serialized form.
static PLACEHOLDER: LazyLock<(Tool, Vec<u8>)> = LazyLock::new(|| {
    let tool: Tool = serde_json::from_value(serde_json::json!({
        "name": PLACEHOLDER_NAME,
        "inputSchema": {"type": "object"}
    }))
    .expect("the placeholder tool is a valid tool");
    let wire = serde_json::to_vec(&tool).expect("a tool serializes");
    (tool, wire)
});

/// The definitions, comma-separated as inside a JSON array.
fn join<'a>(definitions: impl Iterator<Item = &'a Bytes> + Clone) -> Bytes {
    let size = definitions.clone().map(|d| d.len() + 1).sum::<usize>();
    let mut out = BytesMut::with_capacity(size);
    for (i, definition) in definitions.enumerate() {
        if i > 0 {
            out.extend_from_slice(b",");
        }
        out.extend_from_slice(definition);
    }
    out.freeze()
}

/// Front side: `answer` with the placeholder tool replaced by `tools`; `None` when the
/// placeholder is not there (rmcp answered an error).
pub(super) fn splice(answer: &Bytes, tools: &[u8]) -> Option<Bytes> {
    let (before, after) = split_at_placeholder(answer, &PLACEHOLDER.1)?;
    Some([&before[..], tools, &after[..]].concat().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_swaps_the_placeholder_for_the_definitions() {
        let answer = Bytes::from(
            [
                br#"{"jsonrpc":"2.0","id":1,"result":{"tools":["#.as_slice(),
                &PLACEHOLDER.1,
                br#"],"ttl":60000}}"#,
            ]
            .concat(),
        );
        let defs = [
            Bytes::from_static(b"{\"a\":1}"),
            Bytes::from_static(b"{\"b\":2}"),
        ];
        let spliced = splice(&answer, &join(defs.iter())).expect("placeholder found");
        assert_eq!(
            &spliced[..],
            br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"a":1},{"b":2}],"ttl":60000}}"#
        );
        let empty = splice(&answer, &join(std::iter::empty())).expect("placeholder found");
        assert_eq!(
            &empty[..],
            br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttl":60000}}"#
        );
    }

    #[test]
    fn splice_leaves_an_answer_without_the_placeholder_alone() {
        let error = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}"#,
        );
        assert!(splice(&error, b"{}").is_none());
    }
}
