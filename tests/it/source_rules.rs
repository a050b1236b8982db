//! House rules measured on `shared/src` (NM-4, NM-5): each resource slug written once, the
//! function-length rule held by clippy, and the README's configuration table the same as the
//! code's.

use crate::common::RESOURCES;
use crate::house::{root, rust_files};
use crate::house_support::tokens;

/// Every `.rs` file of `shared/src` with its path relative to it (`catalog/lists/compact.rs`) and text.
fn shared_sources() -> Vec<(String, String)> {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    files.sort();
    files
        .iter()
        .map(|f| {
            let relative = f.strip_prefix(&src).expect("under src");
            let text = std::fs::read_to_string(f).expect("readable");
            (relative.display().to_string(), text)
        })
        .collect()
}

/// NM-4: a resource's slug is written once, where it is declared — `Resource::slug` in
/// `access.rs` for the nine Kobana resources, `Toolset::slug` in `catalog/toolset.rs` for
/// `schemas` — and everything else (Kobana paths, output keys, schema names, row shapes,
/// completion sources, resource URIs, the confirmation question, the account check, the token
/// front) derives it from the typed `Resource` or `Toolset`. A string literal that is the slug
/// counts; comments do not. Test modules (`#[cfg(test)] mod …`) may spell the wire values: a
/// test's oracle should state what goes on the wire independently of the code under test.
#[test]
fn nm4_every_resource_slug_is_written_only_where_it_is_declared() {
    let declared_in = |slug: &str| {
        if slug == "schemas" {
            "catalog/toolset.rs"
        } else {
            "access.rs"
        }
    };
    let mut misplaced = Vec::new();
    let mut declarations: std::collections::BTreeMap<&str, usize> = Default::default();
    for (file, text) in shared_sources() {
        for token in tokens(&text, true) {
            let Some(slug) = RESOURCES
                .iter()
                .copied()
                .chain(["schemas"])
                .find(|slug| token.text == format!("\"{slug}\""))
            else {
                continue;
            };
            if file == declared_in(slug) {
                *declarations.entry(slug).or_default() += 1;
            } else {
                misplaced.push(format!("shared/src/{file}:{}: {}", token.line, token.text));
            }
        }
    }
    assert!(
        misplaced.is_empty(),
        "slug literals outside their declaration (derive them from `Resource`/`Toolset`):\n{}",
        misplaced.join("\n")
    );
    for slug in RESOURCES.iter().copied().chain(["schemas"]) {
        assert_eq!(
            declarations.get(slug),
            Some(&1),
            "{slug:?} is declared once in shared/src/{}",
            declared_in(slug)
        );
    }
}

#[test]
fn nm4_the_slug_scan_reads_literals_with_their_lines_and_skips_test_modules() {
    let text = "fn a() { x(\"invoices\") } // \"plans\"\n#[cfg(test)]\npub mod tests {\n    \"{invoices\"\n}\n\
                #[cfg(test)]\nfn t() -> &'static str { \"payments\" }\nfn b() { r\"}\" }\n";
    let literals: Vec<(String, usize)> = tokens(text, true)
        .into_iter()
        .filter(|t| t.text.contains('"'))
        .map(|t| (t.text, t.line))
        .collect();
    let expected = [("\"invoices\"", 1), ("\"payments\"", 7), ("r\"}\"", 8)];
    assert_eq!(literals, expected.map(|(t, l)| (t.to_owned(), l)));
}

/// NM-5: no function in `shared/src` is over 80 lines: clippy's `too_many_lines`, denied for
/// every member that takes the workspace's lints (all but the bench harness) and set to 80 in
/// `clippy.toml`, and the test command runs clippy with `-D warnings`. In `shared/src` only a
/// toolset's declaration list (`tools()` of `catalog/curated/*.rs`, data) may allow it.
#[test]
fn nm5_clippy_holds_every_function_of_shared_src_to_80_lines() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).expect(path);
    let lints = read("Cargo.toml");
    let lints = lints
        .split_once("[workspace.lints.clippy]")
        .expect("clippy lints")
        .1;
    assert!(lints.contains("\ntoo_many_lines = \"deny\"\n"), "{lints}");
    assert!(read("clippy.toml").contains("\ntoo-many-lines-threshold = 80\n"));
    for member in ["shared", "functions/mcp", "tests", "bench/hello-lambda"] {
        let manifest = read(&format!("{member}/Cargo.toml"));
        assert!(
            manifest.contains("\n[lints]\nworkspace = true\n"),
            "{member}"
        );
    }
    assert!(read("scripts/test.sh").contains("cargo_ws demo clippy --all-targets -- -D warnings"));
    let mut allowed = Vec::new();
    for (file, text) in shared_sources() {
        let code = tokens(&text, false);
        for (at, _) in code
            .iter()
            .enumerate()
            .filter(|(_, t)| t.text == "too_many_lines")
        {
            let item = code[at..]
                .iter()
                .position(|t| t.text == "fn")
                .map(|fn_at| &code[at + fn_at + 1].text);
            allowed.push(format!("{file}: {}", item.map_or("?", String::as_str)));
        }
    }
    let data = |entry: &String| entry.starts_with("catalog/curated/") && entry.ends_with(": tools");
    assert!(
        allowed.iter().all(data),
        "functions allowed over 80 lines: {allowed:?}"
    );
}

/// NM-4: the README's configuration table lists exactly the variables of the code's one table
/// (`kobana_mcp::config::VARIABLES`, the source of the usage text), in the same order, each
/// with the same default; the README keeps the longer prose.
#[test]
fn nm4_the_readme_configuration_table_is_the_code_table() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split_once("\n## Configuration\n")
        .map(|(_, rest)| rest.split("\n## ").next().unwrap_or(rest))
        .expect("a `## Configuration` section in README.md");
    let rows: Vec<(String, String)> = section
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let name = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((name.to_owned(), cells.get(2)?.replace('`', "")))
        })
        .collect();
    let code: Vec<(String, String)> = kobana_mcp::config::VARIABLES
        .iter()
        .map(|v| (v.name.to_owned(), v.default.to_owned()))
        .collect();
    assert!(code.len() > 20, "{code:?}");
    assert_eq!(
        rows, code,
        "README.md `## Configuration` against config::VARIABLES"
    );
}
