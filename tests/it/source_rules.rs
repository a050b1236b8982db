//! House rules measured on `shared/src` (NM-4, NM-5, LH-3): each resource slug and each
//! configuration variable's name written once, no function longer than a reader keeps in
//! mind, no file over 700 lines. The source readers are `house.rs`'s.

use crate::common::RESOURCES;
use crate::house::{code_and_strings, code_only, ident, matching_brace, root, rust_files};

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

/// The lines (first, last; 1-based) of every `#[cfg(test)] mod … { … }` of `code` (comments
/// and literals already blanked, so every brace is code).
fn test_module_lines(code: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("#[cfg(test)]") {
        let after = at + "#[cfg(test)]".len();
        let item = code[after..].trim_start();
        let start = code.len() - item.len();
        let visible = item.strip_prefix("pub").map_or(item, |rest| {
            rest.trim_start()
                .strip_prefix('(')
                .and_then(|r| r.split_once(')'))
                .map_or(rest, |(_, after)| after)
                .trim_start()
        });
        if !visible.starts_with("mod ") {
            continue;
        }
        if let Some(open) = item
            .find(['{', ';'])
            .filter(|o| item.as_bytes()[*o] == b'{')
        {
            let close = start + open + 1 + matching_brace(&item[open + 1..]);
            found.push((line_of(code, at), line_of(code, close.min(code.len()))));
        }
    }
    found
}

/// `text` without comments and without its test modules (their lines left empty), its code's
/// string literals kept.
fn without_test_modules(text: &str) -> String {
    let modules = test_module_lines(&code_only(text));
    code_and_strings(text)
        .split('\n')
        .enumerate()
        .map(|(i, line)| {
            if modules.iter().any(|(a, b)| (*a..=*b).contains(&(i + 1))) {
                ""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The line (1-based) of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// NM-4: a resource's slug is written once, where it is declared — `Resource::slug` in
/// `access/resource.rs` for the 28 Kobana resources, `Toolset::slug` in `catalog/toolset.rs` for
/// `schemas` — and everything else (Kobana paths, output keys, schema names, row shapes,
/// completion sources, resource URIs, the confirmation question, the account check, the token
/// front) derives it from the typed `Resource` or `Toolset`. Comments, and strings inside them,
/// do not count. Test modules (`#[cfg(test)] mod …`) may spell the wire values: a test's
/// oracle should state what goes on the wire independently of the code under test.
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
        let code = without_test_modules(&text);
        for slug in RESOURCES.iter().copied().chain(["schemas"]) {
            let literal = format!("\"{slug}\"");
            if not_slugs.contains(&(file.as_str(), slug)) {
                continue;
            }
            for (at, _) in code.match_indices(&literal) {
                if file == declared_in(slug) {
                    *declarations.entry(slug).or_default() += 1;
                } else {
                    misplaced.push(format!(
                        "shared/src/{file}:{}: {literal}",
                        line_of(&code, at)
                    ));
                }
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

/// Longest function in `shared/src`, from its `fn` line to its closing brace.
const MAX_FUNCTION_LINES: usize = 80;

/// Every function with a body in `code` (comments and literals already blanked): its name,
/// the line of its `fn` and how many lines it spans, its closing brace included. The body opens
/// at the first `{` outside brackets after the name; a `;` first is a declaration without one.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (at, _) in code.match_indices("fn ") {
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            continue;
        }
        let name = ident(&code[at + 3..]);
        if name.is_empty() {
            continue;
        }
        let signature = &code[at..];
        let mut brackets = 0usize;
        let open = signature.char_indices().find_map(|(i, c)| match c {
            '[' | '(' => {
                brackets += 1;
                None
            }
            ']' | ')' => {
                brackets = brackets.saturating_sub(1);
                None
            }
            '{' | ';' if brackets == 0 => Some((i, c)),
            _ => None,
        });
        let Some((open, '{')) = open else {
            continue;
        };
        let close = open + 1 + matching_brace(&signature[open + 1..]);
        let first = line_of(code, at);
        let last = line_of(code, at + close);
        found.push((name.to_owned(), first, last - first + 1));
    }
    found
}

/// NM-5: no function in `shared/src` is longer than [`MAX_FUNCTION_LINES`], measured from
/// its `fn` line to its closing brace, comments included. A toolset's declaration list (a
/// function named `tools` in `shared/src/catalog/curated/*.rs`) is data, and exempt.
#[test]
fn nm5_no_function_in_shared_src_is_over_80_lines() {
    let mut long = Vec::new();
    let mut measured = 0;
    for (file, text) in shared_sources() {
        let declarations = file.starts_with("catalog/curated/");
        for (name, line, lines) in functions(&code_only(&text)) {
            measured += 1;
            if lines > MAX_FUNCTION_LINES && !(declarations && name == "tools") {
                long.push(format!(
                    "shared/src/{file}:{line}: fn {name}: {lines} lines"
                ));
            }
        }
    }
    assert!(measured > 500, "measured only {measured} functions");
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines (split them into named steps):\n{}",
        long.join("\n")
    );
}

#[test]
fn nm5_the_function_reader_measures_bodies_and_skips_declarations_and_fn_types() {
    let text = r#"
trait T {
    fn declared(&self) -> [u8; 2];
}
fn short(x: [u8; 2], f: fn(u8) -> u8) -> u8 {
    let s = "} not a brace";
    // } nor this
    f(x[0])
}
fn array() -> [u8; 2] { [0; 2] }
impl S {
    pub async fn nested<A>(&self) -> Result<(), E>
    where
        A: Fn() -> u8,
    {
        fn inner() {}
        if true {
            inner();
        }
    }
}
"#;
    let found = functions(&code_only(text));
    assert_eq!(
        found,
        [
            ("short".to_owned(), 5, 5),
            ("array".to_owned(), 10, 1),
            ("nested".to_owned(), 12, 9),
            ("inner".to_owned(), 16, 1)
        ],
        "{found:?}"
    );
    let module = "fn a() {}\n#[cfg(test)]\nmod tests {\n    \"{invoices\"\n}\nfn b() { \"}\" }\n";
    let kept = without_test_modules(module);
    assert!(
        !kept.contains("invoices") && kept.contains("fn b"),
        "{kept}"
    );
    assert_eq!(line_of(&kept, kept.find("fn b").unwrap()), 6);
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
    let code: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            (f.display().to_string(), without_test_modules(&text))
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
            .flat_map(|(file, text)| {
                text.match_indices(&literal)
                    .map(move |(at, _)| format!("{file}:{}", line_of(text, at)))
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
    let code = without_test_modules(&text);
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
        .map(|body| ident(body))
        .collect();
    assert!(
        twice.is_empty(),
        "methods reading the caller twice: {twice:?}"
    );
    let readers = methods.iter().filter(|b| b.contains("Caller::of(")).count();
    assert!(readers >= 8, "only {readers} methods read the caller");
}
