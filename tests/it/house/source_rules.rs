//! House rules measured on `shared/src` (NM-4, NM-5, LH-3): each resource slug and each
//! configuration variable's name written once, the function-length rule held by clippy, no
//! file over 700 lines, the caller read once per method.

use crate::common::RESOURCES;
use crate::house::support::tokens;
use crate::house::support::{files_with_token, root, rust_files};

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
            "access/resource.rs"
        }
    };
    // Words that are a slug and also something else on the wire: `usage` is the credits
    // list's filter (`GET /v1/credits?usage=`) as well as the metered-usage resource.
    let not_slugs = [("catalog/curated/billing_accounts.rs", "usage")];
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
            if not_slugs.contains(&(file.as_str(), slug)) {
                continue;
            }
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

/// LH-2: no test or test helper is over 100 lines: `tests/clippy.toml` (clippy reads the
/// crate's own file and does not merge it with the root's) repeats every setting of the root
/// `clippy.toml` with the threshold at 100, and nothing in `tests/` allows the lint.
#[test]
fn lh2_clippy_holds_every_test_to_100_lines() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).expect(path);
    let settings = |text: &str| -> Vec<String> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    let tests = settings(&read("tests/clippy.toml"));
    assert!(
        tests.contains(&"too-many-lines-threshold = 100".to_owned()),
        "{tests:?}"
    );
    for setting in settings(&read("clippy.toml")) {
        if !setting.starts_with("too-many-lines-threshold") {
            assert!(
                tests.contains(&setting),
                "tests/clippy.toml lacks {setting}"
            );
        }
    }
    let mut files = Vec::new();
    rust_files(&root().join("tests"), &mut files);
    assert!(files.len() > 100, "{} files", files.len());
    let allowing = files_with_token(&files, "too_many_lines");
    assert!(
        allowing.is_empty(),
        "too_many_lines allowed in {allowing:?}"
    );
}

/// Most lines of a source file of `shared/src` (LH-3).
const MAX_FILE_LINES: usize = 700;

/// LH-3: no source file of `shared/src` is over [`MAX_FILE_LINES`] lines: a longer one is
/// split by concern into files whose names say what each holds.
#[test]
fn lh3_no_source_file_in_shared_src_is_over_700_lines() {
    let lines: Vec<(String, usize)> = shared_sources()
        .into_iter()
        .map(|(file, text)| (file, text.lines().count()))
        .collect();
    let long: Vec<String> = lines
        .iter()
        .filter(|(_, lines)| *lines > MAX_FILE_LINES)
        .map(|(file, lines)| format!("shared/src/{file}: {lines} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split them by concern):\n{}",
        long.join("\n")
    );
}

/// LH-3: each configuration variable is declared once: its name is written as a string in
/// one place of the server's code (`shared/src`, `functions/*/src`), its declaration, and
/// everything else (the reader, the refusals, the usage text, the README's table, the log
/// set-up, `check`) takes it from there. Comments and test modules do not count.
#[test]
fn lh3_each_configuration_variable_name_is_written_once() {
    let mut files = Vec::new();
    rust_files(&root().join("shared/src"), &mut files);
    rust_files(&root().join("functions"), &mut files);
    let code: Vec<(String, Vec<crate::house::support::Token>)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            (f.display().to_string(), tokens(&text, true))
        })
        .collect();
    let names = kobana_mcp::config::VARIABLES
        .iter()
        .map(|v| v.name)
        .chain([kobana_mcp::config::variables::LAMBDA_RUNTIME_API]);
    let mut wrong = Vec::new();
    for name in names {
        let literal = format!("\"{name}\"");
        let places: Vec<String> = code
            .iter()
            .flat_map(|(file, tokens)| {
                tokens
                    .iter()
                    .filter(|t| t.text == literal)
                    .map(move |t| format!("{file}:{}", t.line))
            })
            .collect();
        if places.len() != 1 {
            wrong.push(format!(
                "{literal} written {} times: {places:?}",
                places.len()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// LH-3: the handler reads who calls and what they may see once per method: the principal is
/// taken out of the request in one place (`Caller::of`), and no method of `server.rs` reads
/// the caller twice (a tool call used to look the principal up twice).
#[test]
fn lh3_the_handler_reads_the_caller_once_per_method() {
    let text = std::fs::read_to_string(root().join("shared/src/server.rs")).expect("server.rs");
    let code = text
        .split("#[cfg(test)]\nmod tests")
        .next()
        .unwrap_or_default();
    let lookups = code.matches("get::<Arc<Principal>>").count();
    assert_eq!(
        lookups, 1,
        "the principal is taken out of the request in {lookups} places"
    );
    let methods: Vec<&str> = code.split("fn ").skip(1).collect();
    assert!(methods.len() > 10, "found only {} functions", methods.len());
    let twice: Vec<&str> = methods
        .iter()
        .filter(|body| body.matches("Caller::of(").count() > 1)
        .map(|body| {
            body.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or_default()
        })
        .collect();
    assert!(
        twice.is_empty(),
        "methods reading the caller twice: {twice:?}"
    );
    let readers = methods.iter().filter(|b| b.contains("Caller::of(")).count();
    assert!(readers >= 8, "only {readers} methods read the caller");
}
