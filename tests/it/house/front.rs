//! LH-3, the parts #35 touched: the front's files import each other without a circle (they
//! once did, over `scopes_supported`: `http/auth.rs` → `http/metadata.rs` →
//! `http/token_front/mod.rs` → `http/auth.rs`), and the token front is a module of its own
//! that imports nothing of the HTTP front (its rank is in `rules.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::house::support::code_only;
use crate::house::support::{root, rust_files};

/// The path segments after each `prefix` in `code` (`super::a::b` → `[a, b]`), one level of
/// braces opened (`super::{a, b::c}` → `[a]`, `[b, c]`).
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    let ident = |s: &str| {
        s.split("::")
            .map(|p| p.trim().to_owned())
            .take_while(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .collect::<Vec<_>>()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(ident));
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push(ident(&rest[..end]));
        }
    }
    out
}

/// The module directory `relative` (a file under `shared/src`) is the child of: its own
/// directory, or its parent's for a `mod.rs`.
fn parent_module(relative: &str) -> String {
    let path = Path::new(relative);
    let dir = path.parent().unwrap_or(Path::new(""));
    let dir = if path.file_name().is_some_and(|n| n == "mod.rs") {
        dir.parent().unwrap_or(Path::new(""))
    } else {
        dir
    };
    dir.to_string_lossy().into_owned()
}

/// The file of module `dir/name` among `files`, if there is one.
fn file_of(files: &BTreeSet<String>, dir: &str, name: &str) -> Option<String> {
    let join = |tail: &str| {
        if dir.is_empty() {
            tail.to_owned()
        } else {
            format!("{dir}/{tail}")
        }
    };
    [join(&format!("{name}.rs")), join(&format!("{name}/mod.rs"))]
        .into_iter()
        .find(|f| files.contains(f))
}

/// File → file arrows between `sources` (relative path under `shared/src`, text): a
/// `super::<module>` or `crate::<module>[::<module>]` naming another file.
fn file_arrows(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeSet<String> = sources.iter().map(|(f, _)| f.clone()).collect();
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, text) in sources {
        let code = code_only(text);
        let mut targets = BTreeSet::new();
        for path in paths_after(&code, "super::") {
            if let Some(first) = path.first() {
                targets.extend(file_of(&files, &parent_module(file), first));
            }
        }
        for path in paths_after(&code, "crate::") {
            let (Some(first), second) = (path.first(), path.get(1)) else {
                continue;
            };
            let deeper = second.and_then(|s| file_of(&files, first, s));
            targets.extend(deeper.or_else(|| file_of(&files, "", first)));
        }
        targets.remove(file);
        arrows.insert(file.clone(), targets);
    }
    arrows
}

/// Every circle among `arrows`, as `a -> b -> a`.
fn circles(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for start in arrows.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in arrows.get(&at).into_iter().flatten() {
                if next == start {
                    found.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    found
}

/// The front's sources: `shared/src/http` and `shared/src/token_front`.
fn front_sources() -> Vec<(String, String)> {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    for dir in ["http", "token_front"] {
        rust_files(&src.join(dir), &mut files);
    }
    files
        .iter()
        .map(|f| {
            let relative = f.strip_prefix(&src).expect("under src");
            let text = std::fs::read_to_string(f).expect("readable");
            (relative.to_string_lossy().into_owned(), text)
        })
        .collect()
}

#[test]
fn lh3_the_front_files_import_each_other_without_a_circle() {
    let sources = front_sources();
    assert!(sources.len() > 20, "{}", sources.len());
    let arrows = file_arrows(&sources);
    assert!(
        arrows["http/auth.rs"].contains("token_front/mod.rs"),
        "the reader sees crate::token_front: {arrows:#?}"
    );
    let found = circles(&arrows);
    assert!(found.is_empty(), "circles of files:\n{}", found.join("\n"));
    // The circle this replaced is one the reader finds.
    let old = [
        ("http/auth.rs", "use super::metadata::metadata_url;"),
        (
            "http/metadata.rs",
            "fn f() { super::token_front::authorization_servers(); }",
        ),
        (
            "http/token_front/mod.rs",
            r#"fn g() { super::auth::scopes_supported(); }"#,
        ),
    ]
    .map(|(f, t)| (f.to_owned(), t.to_owned()));
    assert_eq!(
        circles(&file_arrows(&old)).len(),
        3,
        "{:#?}",
        file_arrows(&old)
    );
}

#[test]
fn lh3_the_token_front_imports_nothing_of_the_http_front() {
    let offenders: Vec<String> = front_sources()
        .into_iter()
        .filter(|(file, text)| {
            file.starts_with("token_front/")
                && paths_after(&code_only(text), "crate::")
                    .iter()
                    .any(|path| path.first().is_some_and(|m| m == "http"))
        })
        .map(|(file, _)| file)
        .collect();
    assert!(offenders.is_empty(), "crate::http in {offenders:?}");
}
