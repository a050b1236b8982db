//! The parts of `docs/features.md` that restate code, generated from it (LH-1): the tool
//! table from the registry, the list rows' rules and shapes from `lists::compact`, and the
//! customers' names from `lists::names`. Each sits between `<!-- generated: NAME … -->` and
//! `<!-- end generated: NAME -->`; the test below fails when one is stale, and the snapshot
//! update that rewrites `data/tools.json` ([`UPDATE_TOOLS_JSON`]) rewrites them too.

use std::fmt::Write as _;

use serde_json::Value;

use super::lists::{compact, names};
use super::registry::{Effect, Output, Registry, ToolSpec, UPDATE_TOOLS_JSON};

/// The document, from the workspace root.
const DOC: &str = "docs/features.md";

/// The arguments every list takes, shown as one word.
const PAGING: [&str; 4] = ["page", "per_page", "sort_by", "sort_order"];

/// Every tool by toolset: effect, the permission it needs, its arguments.
fn tools_table(specs: &[ToolSpec]) -> String {
    let mut out = String::from(
        "| Toolset | Tool | Effect | Needs | Arguments (`*` required) |\n|---|---|---|---|---|\n",
    );
    let mut last = None;
    for spec in specs {
        let meta = &spec.meta;
        let toolset = (last != Some(meta.toolset)).then(|| meta.toolset.slug());
        last = Some(meta.toolset);
        let effect = match meta.effect {
            Effect::Read => "R",
            Effect::Write { .. } => "W",
            Effect::Destructive { .. } => "D",
        };
        let needs = match meta.permission {
            Some(permission) => format!("`{permission}`"),
            None if meta.toolset.needs_some_read() => "any read".to_owned(),
            None => "—".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | `{}` | {effect} | {needs} | {} |",
            toolset.unwrap_or(""),
            meta.name,
            arguments(&spec.generated().input_schema)
        );
    }
    out
}

/// A tool's arguments as the input schema declares them: `id`*, `search`, paging, `fields`.
fn arguments(schema: &serde_json::Map<String, Value>) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = schema.get("properties").and_then(Value::as_object);
    let mut words: Vec<String> = properties
        .into_iter()
        .flat_map(|p| p.keys())
        .filter(|name| !PAGING.contains(&name.as_str()) && *name != "fields")
        .map(|name| {
            let mark = if required.contains(&name.as_str()) {
                "*"
            } else {
                ""
            };
            format!("`{name}`{mark}")
        })
        .collect();
    if properties.is_some_and(|p| p.contains_key("page")) {
        words.push("paging".to_owned());
    }
    if properties.is_some_and(|p| p.contains_key("fields")) {
        words.push("`fields`".to_owned());
    }
    if words.is_empty() {
        "—".to_owned()
    } else {
        words.join(", ")
    }
}

/// The rules of `lists::compact`'s module documentation, then each list's row shape.
fn rows_table(specs: &[ToolSpec]) -> String {
    let docs = module_doc(include_str!("lists/compact.rs"));
    let rules = docs
        .split_once("Rules every row follows:\n")
        .and_then(|(_, rest)| rest.split_once("\n\n"))
        .map(|(rules, _)| rules)
        .expect("compact.rs says the rules every row follows");
    let mut out =
        format!("Every list row follows these rules (`catalog/lists/compact.rs`):\n\n{rules}\n\n");
    out.push_str("| List | Compact row (after `id`) | `fields` also accepts |\n|---|---|---|\n");
    for spec in specs {
        let Output::List(resource) = spec.meta.output else {
            continue;
        };
        let Some(shape) = compact::shape(resource) else {
            continue;
        };
        let list = |names: &[&str]| {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            out,
            "| `{}` | {} | {} |",
            spec.meta.name,
            list(shape.compact),
            list(shape.extra)
        );
    }
    out
}

/// `lists::names`' module documentation, with its constants and every reason a row may give.
fn names_text() -> String {
    let every = [
        names::Missing::NoPermission,
        names::Missing::NotSent,
        names::Missing::NotRead,
        names::Missing::ReadFailed,
    ];
    // A new reason fails to compile here until it is listed above.
    let _listed = |missing: names::Missing| match missing {
        names::Missing::NoPermission
        | names::Missing::NotSent
        | names::Missing::NotRead
        | names::Missing::ReadFailed => (),
    };
    let reasons: Vec<String> = every.iter().map(|m| format!("«{}»", m.text())).collect();
    format!(
        "{}\n\n`NAME_TTL` is {} s, `MAX_NAMED_ACCOUNTS` {}, `MAX_NAME_CHARS` {}. The reasons a row's \
         `customer_unavailable` gives: {}.\n",
        module_doc(include_str!("lists/names.rs")),
        names::NAME_TTL.as_secs(),
        names::MAX_NAMED_ACCOUNTS,
        names::MAX_NAME_CHARS,
        reasons.join(", ")
    )
}

/// A source's `//!` documentation as Markdown (intra-doc links shown as code).
fn module_doc(source: &str) -> String {
    let lines: Vec<&str> = source
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .collect();
    lines
        .join("\n")
        .replace("[`", "`")
        .replace("`]", "`")
        .trim()
        .to_owned()
}

/// `doc` with the region `name` holding `body`; panics when the region's marks are missing.
fn with_region(doc: &str, name: &str, body: &str) -> String {
    let open = format!("<!-- generated: {name} ");
    let close = format!("<!-- end generated: {name} -->");
    let start = doc
        .find(&open)
        .unwrap_or_else(|| panic!("{DOC} has no `{open}…-->`"));
    let start = start + doc[start..].find("-->\n").expect("the mark closes") + 4;
    let end = doc
        .find(&close)
        .unwrap_or_else(|| panic!("{DOC} has no `{close}`"));
    format!("{}\n{body}\n{}", &doc[..start], &doc[end..])
}

#[test]
fn lh1_tools_json_the_features_doc_tables_are_generated_from_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/features.md");
    let doc = std::fs::read_to_string(path).expect("docs/features.md");
    let specs = Registry::defined();
    let mut generated = doc.clone();
    for (name, body) in [
        ("tools", tools_table(&specs)),
        ("rows", rows_table(&specs)),
        ("names", names_text()),
    ] {
        generated = with_region(&generated, name, &body);
    }
    let update = std::env::var_os("KOBANA_UPDATE_SNAPSHOTS").is_some();
    if update && std::env::var_os("CI").is_none() {
        if generated != doc {
            std::fs::write(path, &generated).expect("docs/features.md is writable");
        }
        use std::io::Write as _;
        let said = if generated == doc {
            "unchanged"
        } else {
            "rewrote its generated tables"
        };
        let _ = writeln!(std::io::stderr(), "tools_json: {DOC} {said}");
        return;
    }
    assert!(
        generated == doc,
        "{DOC}'s generated tables are stale: run {UPDATE_TOOLS_JSON}"
    );
}

#[test]
fn lh1_a_region_is_replaced_between_its_marks_and_nothing_else() {
    let doc = "a\n<!-- generated: x (note) -->\nold\n<!-- end generated: x -->\nb\n";
    assert_eq!(
        with_region(doc, "x", "new\n"),
        "a\n<!-- generated: x (note) -->\n\nnew\n\n<!-- end generated: x -->\nb\n"
    );
    assert_eq!(
        module_doc("//! One [`A`] and\n//!\n//! two.\nuse x;\n//! not"),
        "One `A` and\n\ntwo."
    );
    let schema = serde_json::json!({"properties": {"id": {}, "page": {}, "fields": {}, "q": {}}, "required": ["id"]});
    assert_eq!(
        arguments(schema.as_object().unwrap()),
        "`id`*, `q`, paging, `fields`"
    );
}
