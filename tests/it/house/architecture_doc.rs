//! The documents stay true to the repository: `docs/architecture.md`'s invariants name tests
//! that exist and its code map names modules that exist (NM-1); the README stays short, links
//! the deeper documents, and no relative link of the README, `CONTRIBUTING.md` or `docs/*.md`
//! points to a missing file or heading (NM-3).
//!
//! An **invariant** of `docs/architecture.md` is a paragraph or list item that starts with the
//! mark `**Invariant:**` (after an optional `- `). It runs over the following lines up to a
//! blank line, a heading, a table row, the next list item or the next mark, and its text (lines
//! joined) ends with its tests: `(` then one or more backticked test names separated by `, `,
//! then `)`, then optionally `.`. Each name is a test function (`#[test]` or `#[tokio::test]`)
//! under `tests/`, `shared/`, `functions/` or `bench/`. The mark anywhere else is an error.
//!
//! The **code map** is the `## Code map` section. Each backticked text of one of its `###`
//! headings is a path from the workspace root (`shared/src/http`) that exists as a directory or
//! a file, with or without `.rs`; every top-level module of `shared/src` has a heading. Any
//! backticked text of the document that starts with a top-level directory of the workspace
//! (`shared/`, `tests/`, …) names a path that exists.
//!
//! A **relative link** is the target of `[text](target)` or of a `[label]: target` definition,
//! outside fenced code blocks and inline code, that has no scheme (`https:`, `mailto:`). Its
//! path, resolved from the linking file's directory, exists; its `#anchor`, if any, is the
//! GitHub slug of a heading of the file it points to (or of the linking file, for a bare
//! `#anchor`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use super::requirement_ids::{root, test_functions, text_files};

/// The architecture document, relative to the workspace root.
const DOC: &str = "docs/architecture.md";
/// The mark that starts an invariant.
const MARK: &str = "**Invariant:**";
/// Fewest invariants the document may hold.
const MIN_INVARIANTS: usize = 20;
/// The directories whose Rust sources hold the tests an invariant may name.
const TEST_DIRS: &[&str] = &["tests", "shared", "functions", "bench"];
/// The top-level directories a backticked path of the document may start with.
const PATH_ROOTS: &[&str] = &[
    "shared/",
    "functions/",
    "tests/",
    "bench/",
    "fuzz/",
    "clients/",
    "docs/",
    "scripts/",
];
/// Most lines the README may have.
const README_MAX_LINES: usize = 300;
/// What the README must link to.
const README_LINKS: &[&str] = &[
    "docs/clients.md",
    "docs/deploy.md",
    "docs/contract.md",
    "docs/architecture.md",
    "BENCHMARKS.md",
];

/// One invariant of the document.
#[derive(Debug, PartialEq)]
struct Invariant {
    /// The 1-based line of its mark.
    line: usize,
    /// The tests it names.
    tests: Vec<String>,
}

/// Whether a line ends an invariant that runs over it.
fn ends_block(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.is_empty()
        || trimmed.starts_with('#')
        || trimmed.starts_with('|')
        || trimmed.starts_with("- ")
        || trimmed.starts_with("* ")
        || trimmed.contains(MARK)
}

/// The test names a sentence ends with (`… (`a`, `b`).`), or `None` when it ends otherwise.
fn trailing_tests(text: &str) -> Option<Vec<String>> {
    let text = text.strip_suffix('.').unwrap_or(text).strip_suffix(')')?;
    let open = text.rfind("(`")?;
    let list = &text[open + 1..];
    let names: Option<Vec<String>> = list
        .split(", ")
        .map(|item| {
            let name = item.strip_prefix('`')?.strip_suffix('`')?;
            let is_name = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
            is_name.then(|| name.to_owned())
        })
        .collect();
    names
}

/// The invariants of `doc`, and every place that breaks the grammar (`line N: …`).
fn invariants(doc: &str) -> (Vec<Invariant>, Vec<String>) {
    let lines: Vec<&str> = doc.lines().collect();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut at = 0;
    while at < lines.len() {
        let line = lines[at];
        let item = line.trim_start();
        let item = item.strip_prefix("- ").unwrap_or(item);
        if !item.starts_with(MARK) {
            if line.contains(MARK) {
                problems.push(format!(
                    "line {}: {MARK} must start a paragraph or list item",
                    at + 1
                ));
            }
            at += 1;
            continue;
        }
        let start = at;
        let mut text = item.to_owned();
        at += 1;
        while at < lines.len() && !ends_block(lines[at]) {
            text.push(' ');
            text.push_str(lines[at].trim());
            at += 1;
        }
        match trailing_tests(text.trim_end()) {
            Some(tests) => found.push(Invariant {
                line: start + 1,
                tests,
            }),
            None => problems.push(format!(
                "line {}: the invariant does not end with its tests, (`test_name`, …)",
                start + 1
            )),
        }
    }
    (found, problems)
}

/// Every test an invariant names that is not in `tests`.
fn missing_tests(invariants: &[Invariant], tests: &BTreeSet<String>) -> Vec<String> {
    invariants
        .iter()
        .flat_map(|invariant| {
            invariant
                .tests
                .iter()
                .filter(|name| !tests.contains(name.as_str()))
                .map(move |name| {
                    format!(
                        "line {}: `{name}` is no test function under {TEST_DIRS:?}",
                        invariant.line
                    )
                })
        })
        .collect()
}

/// The backticked texts of `text` (`` `a` and `b` `` → `a`, `b`).
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// The paths of the code map's `###` headings.
fn mapped_paths(doc: &str) -> Vec<String> {
    let mut in_map = false;
    let mut paths = Vec::new();
    for line in doc.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            in_map = title.trim() == "Code map";
        } else if in_map && let Some(title) = line.strip_prefix("### ") {
            paths.extend(backticked(title).into_iter().map(str::to_owned));
        }
    }
    paths
}

/// Whether `path` (from the root) exists as a directory or a file, with or without `.rs`.
fn path_exists(base: &Path, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    base.join(path).exists() || base.join(format!("{path}.rs")).exists()
}

/// The top-level modules of `shared/src`: its files but `lib.rs`, and its directories.
fn shared_modules(base: &Path) -> Vec<String> {
    let entries = std::fs::read_dir(base.join("shared/src")).expect("shared/src");
    let mut modules: Vec<String> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.path().is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs")
                    .filter(|stem| *stem != "lib")
                    .map(str::to_owned)
            }
        })
        .collect();
    modules.sort();
    modules.dedup();
    modules
}

/// Every path the code map names that does not exist, every module of `shared/src` it leaves
/// out, and every backticked workspace path of the document that does not exist.
fn map_problems(base: &Path, doc: &str) -> Vec<String> {
    let mapped = mapped_paths(doc);
    let mut problems: Vec<String> = mapped
        .iter()
        .filter(|path| !path_exists(base, path))
        .map(|path| format!("the code map names `{path}`, which does not exist"))
        .collect();
    for module in shared_modules(base) {
        let heading = format!("shared/src/{module}");
        if !mapped.contains(&heading) {
            problems.push(format!("the code map has no heading for `{heading}`"));
        }
    }
    for text in backticked(doc) {
        let named = PATH_ROOTS.iter().any(|r| text.starts_with(r));
        let concrete = !text.contains([' ', '<', '*', '…']);
        if named && concrete && !path_exists(base, text) {
            problems.push(format!("`{text}` does not exist"));
        }
    }
    problems
}

/// Fails with every problem, one per line.
fn assert_none(problems: &[String], what: &str) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

/// The names of every test function under the test directories.
fn workspace_tests(base: &Path) -> BTreeSet<String> {
    let mut files = Vec::new();
    for dir in TEST_DIRS {
        text_files(base, &base.join(dir), &mut files);
    }
    let tests: BTreeSet<String> = files
        .iter()
        .filter(|(path, _)| path.ends_with(".rs"))
        .flat_map(|(path, text)| test_functions(path, text))
        .map(|test| test.name)
        .collect();
    assert!(
        tests.len() > 300,
        "found only {} test functions",
        tests.len()
    );
    tests
}

fn read(base: &Path, path: &str) -> String {
    std::fs::read_to_string(base.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn nm1_every_invariant_names_tests_that_exist() {
    let base = root();
    let doc = read(&base, DOC);
    let (found, mut problems) = invariants(&doc);
    problems.extend(missing_tests(&found, &workspace_tests(&base)));
    assert_none(&problems, &format!("{DOC}: invariants without their tests"));
    assert!(
        found.len() >= MIN_INVARIANTS,
        "{DOC} holds {} invariants; at least {MIN_INVARIANTS} are expected",
        found.len()
    );
}

#[test]
fn nm1_every_module_and_path_the_map_names_exists_and_every_module_is_mapped() {
    let base = root();
    let doc = read(&base, DOC);
    assert!(
        mapped_paths(&doc).len() > 10,
        "{DOC} has no code map of `###` headings"
    );
    assert_none(&map_problems(&base, &doc), &format!("{DOC}: the code map"));
}

#[test]
fn nm1_the_reader_finds_a_misspelled_test_a_bare_mark_and_a_missing_module() {
    // The mark is spelled from its parts here, so this file holds no invariant of its own.
    let doc = "## Code map\n\n### `shared/src/http`, `shared/src/nowhere`\n\n\
               - MARK one line (`nm1_every_invariant_names_tests_that_exist`).\n\
               - MARK wraps over\n  two lines (`nm1_every_invariant_names_tests_that_exist`,\n  \
               `nm1_every_invariant_names_tests_taht_exist`).\n\
               - MARK names no test at all.\n\
               - MARK ends in prose (`a_test`) and more.\n\
               A sentence that mentions MARK in passing.\n\n\
               MARK a paragraph (`a_b`, `c`)\n\n\
               ## Cross-cutting rules\n\n### `shared/src/ghost` is out of the map\n\n\
               See `shared/src/also_missing.rs`.\n"
        .replace("MARK", MARK);
    let (found, problems) = invariants(&doc);
    assert_eq!(
        found,
        [
            Invariant {
                line: 5,
                tests: vec!["nm1_every_invariant_names_tests_that_exist".into()],
            },
            Invariant {
                line: 6,
                tests: vec![
                    "nm1_every_invariant_names_tests_that_exist".into(),
                    "nm1_every_invariant_names_tests_taht_exist".into(),
                ],
            },
            Invariant {
                line: 13,
                tests: vec!["a_b".into(), "c".into()],
            },
        ]
    );
    assert_eq!(
        problems,
        [
            "line 9: the invariant does not end with its tests, (`test_name`, …)",
            "line 10: the invariant does not end with its tests, (`test_name`, …)",
            "line 11: **Invariant:** must start a paragraph or list item",
        ]
    );
    let tests: BTreeSet<String> = ["nm1_every_invariant_names_tests_that_exist", "a_b", "c"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        missing_tests(&found, &tests),
        [format!(
            "line 6: `nm1_every_invariant_names_tests_taht_exist` is no test function under {TEST_DIRS:?}"
        )]
    );
    assert_eq!(
        mapped_paths(&doc),
        ["shared/src/http", "shared/src/nowhere"]
    );
    let problems = map_problems(&root(), &doc);
    assert!(
        problems.contains(&"the code map names `shared/src/nowhere`, which does not exist".into())
    );
    assert!(problems.contains(&"the code map has no heading for `shared/src/server`".into()));
    assert!(!problems.iter().any(|p| p.contains("`shared/src/http`")));
    assert!(problems.contains(&"`shared/src/also_missing.rs` does not exist".into()));
}

/// One relative link.
#[derive(Debug, PartialEq)]
struct Link {
    /// `file:line` of the link.
    at: String,
    /// The file it points to, from the root (the linking file for a bare `#anchor`).
    target: PathBuf,
    /// Its anchor, if any.
    anchor: Option<String>,
}

/// `path` with `.` and `..` resolved (`docs/../README.md` → `README.md`).
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// `line` without its inline code spans.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The link targets of one line: `[text](target)` and `[label]: target`.
fn targets_in(line: &str) -> Vec<String> {
    let line = without_code(line);
    let mut found = Vec::new();
    let definition = line
        .strip_prefix('[')
        .and_then(|rest| rest.split_once("]: "))
        .map(|(_, target)| target.split_whitespace().next().unwrap_or_default());
    found.extend(definition.map(str::to_owned));
    for (at, _) in line.match_indices("](") {
        let rest = &line[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        let target = rest[..end].split_whitespace().next().unwrap_or_default();
        found.push(target.trim_matches(['<', '>']).to_owned());
    }
    found
}

/// The relative links of one Markdown file (`path` from the root).
fn links(path: &str, text: &str) -> Vec<Link> {
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let mut found = Vec::new();
    let mut fenced = false;
    for (number, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for target in targets_in(line) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor.to_owned())),
                None => (target.as_str(), None),
            };
            let target = if file.is_empty() {
                PathBuf::from(path)
            } else {
                normalized(&dir.join(file))
            };
            found.push(Link {
                at: format!("{path}:{}", number + 1),
                target,
                anchor,
            });
        }
    }
    found
}

/// A heading's anchor as GitHub makes it: lower case; letters, digits, `-` and `_` kept,
/// spaces made `-`, everything else dropped; a link keeps its text only.
fn slug(heading: &str) -> String {
    let mut text = String::new();
    let mut rest = heading;
    while let Some(at) = rest.find("](") {
        text.push_str(&rest[..at]);
        rest = rest[at + 2..]
            .split_once(')')
            .map_or("", |(_, after)| after);
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (a repeated one gets `-1`, `-2`, …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut found = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let hashes = line.bytes().take_while(|b| *b == b'#').count();
        if fenced || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim_end_matches('#'));
        let count = seen.entry(base.clone()).or_insert(0);
        found.insert(if *count == 0 {
            base
        } else {
            format!("{base}-{count}")
        });
        *count += 1;
    }
    found
}

/// Every link whose file does not exist or whose anchor is no heading of it. `read` gives a
/// file's text (`None`: it does not exist; a directory reads as empty).
fn broken(links: &[Link], read: impl Fn(&Path) -> Option<String>) -> Vec<String> {
    let mut problems = Vec::new();
    for link in links {
        let shown = link.target.display();
        let Some(text) = read(&link.target) else {
            problems.push(format!("{}: `{shown}` does not exist", link.at));
            continue;
        };
        if let Some(anchor) = &link.anchor
            && !anchors(&text).contains(anchor)
        {
            problems.push(format!("{}: `{shown}` has no heading `#{anchor}`", link.at));
        }
    }
    problems
}

/// The documents whose links are checked: the README, CONTRIBUTING and `docs/*.md`.
fn documents(base: &Path) -> Vec<String> {
    let mut paths = vec!["README.md".to_owned(), "CONTRIBUTING.md".to_owned()];
    let docs = std::fs::read_dir(base.join("docs")).expect("docs/");
    let mut more: Vec<String> = docs
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    more.sort();
    paths.extend(more);
    paths
}

#[test]
fn nm3_the_readme_is_at_most_300_lines_and_links_the_deeper_documents() {
    let base = root();
    let readme = read(&base, "README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines; at most {README_MAX_LINES}"
    );
    let linked: BTreeSet<PathBuf> = links("README.md", &readme)
        .into_iter()
        .map(|link| link.target)
        .collect();
    let missing: Vec<&&str> = README_LINKS
        .iter()
        .filter(|path| !linked.contains(Path::new(path)))
        .collect();
    assert!(missing.is_empty(), "README.md does not link {missing:?}");
}

#[test]
fn nm3_every_relative_link_points_to_a_file_and_heading_that_exist() {
    let base = root();
    let mut all = Vec::new();
    for path in documents(&base) {
        all.extend(links(&path, &read(&base, &path)));
    }
    assert!(all.len() > 30, "found only {} relative links", all.len());
    let problems = broken(&all, |path| {
        let full = base.join(path);
        if full.is_dir() {
            Some(String::new())
        } else {
            // An image (the README's screenshots) is a file too; its text has no headings.
            std::fs::read(full)
                .ok()
                .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        }
    });
    assert_none(&problems, "broken relative links");
}

#[test]
fn nm3_the_link_check_finds_a_missing_file_and_a_missing_heading() {
    assert_eq!(
        slug("First run: `kobana-mcp check`"),
        "first-run-kobana-mcp-check"
    );
    assert_eq!(slug("Browsers (CORS)"), "browsers-cors");
    assert_eq!(slug("KC — Kobana's contract"), "kc--kobanas-contract");
    assert_eq!(
        slug("Confirmação de [tools](x.md) destrutivas"),
        "confirmação-de-tools-destrutivas"
    );
    let target =
        "# Title\n\n## Usage\n\n```\n## not a heading\n```\n\n## Usage\n### Stage times #\n";
    assert_eq!(
        anchors(target),
        ["title", "usage", "usage-1", "stage-times"]
            .into_iter()
            .map(str::to_owned)
            .collect()
    );

    let source = "# Title\nSee [the guide](../guide.md#usage-1) and [this](#title).\n\
                  [gone](missing.md), [bad anchor](../guide.md#nowhere), [web](https://x.y/#a)\n\
                  `[code](not-a-link.md)`\n```\n[fenced](not-a-link.md)\n```\n\
                  [ref]: ../guide.md#stage-times\n";
    let found = links("docs/page.md", source);
    let targets: Vec<(&str, Option<&str>)> = found
        .iter()
        .map(|l| (l.target.to_str().unwrap_or_default(), l.anchor.as_deref()))
        .collect();
    assert_eq!(
        targets,
        [
            ("guide.md", Some("usage-1")),
            ("docs/page.md", Some("title")),
            ("docs/missing.md", None),
            ("guide.md", Some("nowhere")),
            ("guide.md", Some("stage-times")),
        ]
    );
    let files: BTreeMap<PathBuf, String> = [
        (PathBuf::from("guide.md"), target.to_owned()),
        (PathBuf::from("docs/page.md"), source.to_owned()),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        broken(&found, |path| files.get(path).cloned()),
        [
            "docs/page.md:3: `docs/missing.md` does not exist",
            "docs/page.md:3: `guide.md` has no heading `#nowhere`",
        ]
    );
}
