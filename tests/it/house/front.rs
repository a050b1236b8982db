//! LH-3: the front's files import each other without a circle (they once did, over
//! `scopes_supported`: `http/auth.rs` → `http/metadata.rs` → `http/token_front/mod.rs` →
//! `http/auth.rs`). That the token front imports nothing of the HTTP front is the rank rule's
//! (`rules.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::house::support::{assert_none, circles, crate_paths, shared_sources};

/// File → file arrows between `sources` (path under `shared/src`, text): a `super::` path, or a
/// `crate::<module>[::<module>]` path, that names another file.
fn file_arrows(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeSet<&str> = sources.iter().map(|(f, _)| f.as_str()).collect();
    let file_of = |dir: &Path, name: &str| {
        [format!("{name}.rs"), format!("{name}/mod.rs")]
            .into_iter()
            .map(|tail| dir.join(tail).display().to_string())
            .find(|f| files.contains(f.as_str()))
    };
    let mut arrows = BTreeMap::new();
    for (file, text) in sources {
        // The module directory the file is a child of: its own, or its parent's for a `mod.rs`.
        let path = Path::new(file);
        let parent = if path.ends_with("mod.rs") {
            path.parent().and_then(Path::parent)
        } else {
            path.parent()
        };
        let parent = parent.unwrap_or(Path::new(""));
        let mut targets = BTreeSet::new();
        for (climb, segments) in crate_paths(text) {
            let first = &segments[0];
            targets.extend(if climb == 0 {
                let deeper = segments.get(1).and_then(|s| file_of(Path::new(first), s));
                deeper.or_else(|| file_of(Path::new(""), first))
            } else {
                let dir = parent.ancestors().nth(climb - 1);
                dir.and_then(|dir| file_of(dir, first))
            });
        }
        targets.remove(file);
        arrows.insert(file.clone(), targets);
    }
    arrows
}

#[test]
fn lh3_the_front_files_import_each_other_without_a_circle() {
    let sources: Vec<_> = shared_sources()
        .into_iter()
        .filter(|(file, _)| file.starts_with("http/") || file.starts_with("token_front/"))
        .collect();
    assert!(sources.len() > 20, "{}", sources.len());
    let arrows = file_arrows(&sources);
    assert!(
        arrows["http/auth.rs"].contains("token_front/mod.rs"),
        "the reader sees crate::token_front: {arrows:#?}"
    );
    assert_none(&circles(&arrows), "circles of files");
    // The circle this replaced is one the reader finds.
    let old = [
        ("http/auth.rs", "use super::metadata::metadata_url;"),
        (
            "http/metadata.rs",
            "fn f() { super::token_front::authorization_servers(); }",
        ),
        (
            "http/token_front/mod.rs",
            "fn g() { super::auth::scopes_supported(); }",
        ),
    ]
    .map(|(f, t)| (f.to_owned(), t.to_owned()));
    let arrows = file_arrows(&old);
    assert_eq!(circles(&arrows).len(), 3, "{arrows:#?}");
}
