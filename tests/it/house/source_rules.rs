//! House rules measured on `shared/src` (NM-4, NM-5, LH-3): each resource slug and each
//! configuration variable's name written once, the function-length rule held by clippy, the
//! caller read once per method.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::common::RESOURCES;
use crate::house::support::{assert_none, read, root, rust_files, shared_sources, tokens};

/// NM-4: a resource's slug is written once, as a string literal, where it is declared
/// (`Resource::slug`, `Toolset::slug` for `schemas`); all else derives it from the type. Test
/// modules may spell the wire values: an oracle states the wire independently of the code.
#[test]
fn nm4_every_resource_slug_is_written_only_where_it_is_declared() {
    let slugs = || RESOURCES.iter().copied().chain(["schemas"]);
    let declared_in = |slug: &str| match slug {
        "schemas" => "catalog/toolset.rs",
        _ => "access/resource.rs",
    };
    // Words that are a slug and also something else on the wire: `usage` is the credits
    // list's filter (`GET /v1/credits?usage=`) as well as the metered-usage resource.
    let not_slugs = [("catalog/curated/billing_accounts.rs", "usage")];
    let mut places: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (file, text) in shared_sources() {
        for token in tokens(&text, true) {
            let slug = slugs().find(|slug| token.text == format!("\"{slug}\""));
            if let Some(slug) = slug.filter(|slug| !not_slugs.contains(&(file.as_str(), slug))) {
                let at = format!("{file}:{}", token.line);
                places.entry(slug).or_default().push(at);
            }
        }
    }
    let wrong = slugs().filter_map(|slug| {
        let found = places.get(slug).cloned().unwrap_or_default();
        let home = declared_in(slug);
        let once = found.len() == 1 && found[0].starts_with(&format!("{home}:"));
        (!once).then(|| format!("{slug:?} written at {found:?}, not once in {home}"))
    });
    // Derive them from `Resource` or `Toolset`.
    assert_none(wrong, "slugs outside their declaration");
}

#[test]
fn nm4_the_slug_scan_reads_literals_with_their_lines_and_skips_test_modules() {
    let text = "fn a() { x(\"invoices\") } // \"plans\"\n#[cfg(test)]\npub mod tests {\n    \"{invoices\"\n}\n\
                #[cfg(test)]\nfn t() -> &'static str { \"payments\" }\nfn b() { r\"}\" }\n";
    let tokens = tokens(text, true);
    let literals = tokens.iter().filter(|t| t.text.contains('"'));
    let literals: Vec<_> = literals.map(|t| (t.text.as_str(), t.line)).collect();
    let expected = [("\"invoices\"", 1), ("\"payments\"", 7), ("r\"}\"", 8)];
    assert_eq!(literals, expected);
}

/// NM-5: clippy's `too_many_lines` at 80 holds every member but the bench harness, and in
/// `shared/src` only a toolset's declaration list (`tools()`, data) may allow it.
#[test]
fn nm5_clippy_holds_every_function_of_shared_src_to_80_lines() {
    let manifest = read("Cargo.toml");
    let (_, lints) = manifest.split_once("[workspace.lints.clippy]").unwrap();
    assert!(lints.contains("\ntoo_many_lines = \"deny\"\n"), "{lints}");
    assert!(read("clippy.toml").contains("\ntoo-many-lines-threshold = 80\n"));
    for member in ["shared", "functions/mcp", "tests", "bench/hello-lambda"] {
        let manifest = read(format!("{member}/Cargo.toml"));
        let lints = "\n[lints]\nworkspace = true\n";
        assert!(manifest.contains(lints), "{member}");
    }
    assert!(read("scripts/test.sh").contains("cargo_ws demo clippy --all-targets -- -D warnings"));
    let mut allowed = Vec::new();
    for (file, text) in shared_sources() {
        let code = tokens(&text, false);
        for at in (0..code.len()).filter(|at| code[*at].text == "too_many_lines") {
            let item = code[at..].iter().position(|t| t.text == "fn");
            let item = item.map_or("?", |fn_at| code[at + fn_at + 1].text.as_str());
            allowed.push(format!("{file}: {item}"));
        }
    }
    let data = |e: &&String| e.starts_with("catalog/curated/") && e.ends_with(": tools");
    let over = allowed.iter().filter(|e| !data(e));
    assert_none(over, "functions allowed over 80 lines");
}

/// LH-2: no test or test helper is over 100 lines: `tests/clippy.toml` (clippy reads the
/// crate's own file, unmerged with the root's) repeats every root setting with the threshold
/// at 100, and nothing under `tests/` allows the lint.
#[test]
fn lh2_clippy_holds_every_test_to_100_lines() {
    let settings = |path: &str| -> Vec<String> {
        let text = read(root().join(path));
        let set = text.lines().map(str::trim);
        set.filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    let limit = |l: String| match l.starts_with("too-many-lines-threshold") {
        true => "too-many-lines-threshold = 100".to_owned(),
        false => l,
    };
    let expected: Vec<String> = settings("clippy.toml").into_iter().map(limit).collect();
    assert_eq!(settings("tests/clippy.toml"), expected);
    let files = rust_files(&root().join("tests"));
    assert!(files.len() > 100, "{} files", files.len());
    let allows = |f: &&PathBuf| {
        tokens(&read(f), false)
            .iter()
            .any(|t| t.text == "too_many_lines")
    };
    assert_none(
        files.iter().filter(allows).map(|f| f.display()),
        "lint allowed",
    );
}

/// LH-3: each configuration variable's name is written as a string once in the server's code
/// (test modules aside), where it is declared; all else takes it from there.
#[test]
fn lh3_each_configuration_variable_name_is_written_once() {
    let mut literals = Vec::new();
    let files = ["shared/src", "functions"].map(|d| rust_files(&root().join(d)));
    for file in files.concat() {
        let code = tokens(&read(&file), true);
        let at = |line| format!("{}:{line}", file.display());
        literals.extend(code.into_iter().map(|t| (t.text, at(t.line))));
    }
    let names = kobana_mcp::config::VARIABLES.iter().map(|v| v.name);
    let names = names.chain([kobana_mcp::config::variables::LAMBDA_RUNTIME_API]);
    let wrong = names.filter_map(|name| {
        let found = literals.iter().filter(|(t, _)| *t == format!("\"{name}\""));
        let places: Vec<&String> = found.map(|(_, at)| at).collect();
        (places.len() != 1).then(|| format!("{name:?} written {} times: {places:?}", places.len()))
    });
    assert_none(wrong, "configuration variables");
}

/// LH-3: the handler reads who calls and what they may see once per method: the principal is
/// taken out of the request in one place (`Caller::of`), and no method of `server.rs` reads
/// the caller twice (a tool call used to look the principal up twice).
#[test]
fn lh3_the_handler_reads_the_caller_once_per_method() {
    let text = read("shared/src/server.rs");
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
    let places = code.matches("get::<Arc<Principal>>").count();
    assert_eq!(places, 1, "the principal taken out in {places} places");
    let methods: Vec<&str> = code.split("fn ").skip(1).collect();
    assert!(methods.len() > 10, "found only {} functions", methods.len());
    let reads = |body: &&&str| body.matches("Caller::of(").count();
    let twice = methods.iter().filter(|b| reads(b) > 1);
    let twice = twice.map(|body| &body[..body.find(['(', '<']).unwrap_or(0)]);
    assert_none(twice, "methods reading the caller twice");
    let readers = methods.iter().filter(|b| reads(b) > 0).count();
    assert!(readers >= 8, "only {readers} methods read the caller");
}
