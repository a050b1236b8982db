//! The documents stay true to the repository: `docs/architecture.md`'s invariants name tests
//! that exist and its code map names modules that exist (NM-1); the README stays short, links
//! the deeper documents, and no relative link of the README, `CONTRIBUTING.md` or `docs/*.md`
//! points to a missing file or heading (NM-3). The Markdown is read by `pulldown-cmark`.
//!
//! An **invariant** of `docs/architecture.md` is a paragraph or list item that starts with the
//! mark `**Invariant:**`, and its text ends with its tests: `(` then one or more backticked
//! test names separated by `, `, then `)`, then optionally `.`. Each name is a test function
//! (`#[test]` or `#[tokio::test]`) under `tests/`, `shared/`, `functions/` or `bench/`. The
//! mark anywhere else is an error.
//!
//! The **code map** is the `## Code map` section. Each backticked text of one of its `###`
//! headings is a path from the workspace root (`shared/src/http`) that exists as a directory or
//! a file, with or without `.rs`; every top-level module of `shared/src` has a heading. Any
//! inline code of the document that starts with a top-level directory of the workspace
//! (`shared/`, `tests/`, …) names a path that exists.
//!
//! A **relative link** is a link's or an image's target, or a `[label]: target` definition's,
//! that has no scheme (`https:`, `mailto:`). Its path, resolved from the linking file's
//! directory, exists; its `#anchor`, if any, is the GitHub slug of a heading of the file it
//! points to (or of the linking file, for a bare `#anchor`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use pulldown_cmark::{Event, LinkType, Parser, Tag, TagEnd};
use regex_lite::Regex;

use crate::house::support::{assert_none, files_ending, read, root, test_functions};

/// The architecture document, relative to the workspace root.
const DOC: &str = "docs/architecture.md";
/// The mark that starts an invariant.
const MARK: &str = "**Invariant:**";
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

/// The 1-based line of byte `at` of `text`.
fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// One invariant of the document: the line of its mark, the tests it names.
#[derive(Debug, PartialEq)]
struct Invariant {
    line: usize,
    tests: Vec<String>,
}

/// The invariants of `doc`, and every place that breaks the grammar (`line N: …`).
fn invariants(doc: &str) -> (Vec<Invariant>, Vec<String>) {
    static TESTS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\((`[a-z0-9_]+`(?:, `[a-z0-9_]+`)*)\)\.?$").unwrap());
    let (mut found, mut problems, mut starts) = (Vec::new(), Vec::new(), BTreeSet::new());
    for (event, range) in Parser::new(doc).into_offset_iter() {
        let Event::Start(Tag::Paragraph | Tag::Item) = event else {
            continue;
        };
        let block = doc[range.clone()].trim_start();
        let block = block.strip_prefix("- ").unwrap_or(block);
        // A loose list item and its paragraph start on one line: read it once.
        let line = line_at(doc, range.start);
        if !block.starts_with(MARK) || !starts.insert(line) {
            continue;
        }
        let text = block.split_whitespace().collect::<Vec<_>>().join(" ");
        match TESTS.captures(&text) {
            Some(list) => {
                let tests = list[1].split(", ").map(|t| t.trim_matches('`').to_owned());
                found.push(Invariant {
                    line,
                    tests: tests.collect(),
                });
            }
            None => problems.push(format!(
                "line {line}: the invariant does not end with its tests, (`test_name`, …)"
            )),
        }
    }
    for (at, _) in doc.lines().enumerate().filter(|(_, l)| l.contains(MARK)) {
        if !starts.contains(&(at + 1)) {
            problems.push(format!(
                "line {}: {MARK} must start a paragraph or list item",
                at + 1
            ));
        }
    }
    (found, problems)
}

/// Every test an invariant names that is not in `tests`.
fn missing_tests(invariants: &[Invariant], tests: &BTreeSet<String>) -> Vec<String> {
    let named = invariants
        .iter()
        .flat_map(|i| i.tests.iter().map(move |t| (i.line, t)));
    named
        .filter(|(_, name)| !tests.contains(*name))
        .map(|(line, name)| {
            format!("line {line}: `{name}` is no test function under {TEST_DIRS:?}")
        })
        .collect()
}

/// The paths of the code map's `###` headings.
fn mapped_paths(doc: &str) -> Vec<String> {
    let mut in_map = false;
    let mut paths = Vec::new();
    for line in doc.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            in_map = title.trim() == "Code map";
        } else if in_map && let Some(title) = line.strip_prefix("### ") {
            paths.extend(title.split('`').skip(1).step_by(2).map(str::to_owned));
        }
    }
    paths
}

/// Every path the code map names that does not exist, every module of `shared/src` it leaves
/// out, and every inline-code workspace path of the document that does not exist.
fn map_problems(base: &Path, doc: &str) -> Vec<String> {
    let exists = |path: &str| {
        let path = path.trim_end_matches('/');
        base.join(path).exists() || base.join(format!("{path}.rs")).exists()
    };
    let mapped = mapped_paths(doc);
    let mut problems: Vec<String> = mapped
        .iter()
        .filter(|path| !exists(path))
        .map(|path| format!("the code map names `{path}`, which does not exist"))
        .collect();
    let entries = std::fs::read_dir(base.join("shared/src"))
        .expect("shared/src")
        .flatten();
    let modules: BTreeSet<String> = entries
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_owned()
        })
        .filter(|name| name != "lib")
        .collect();
    for heading in modules.iter().map(|module| format!("shared/src/{module}")) {
        if !mapped.contains(&heading) {
            problems.push(format!("the code map has no heading for `{heading}`"));
        }
    }
    for event in Parser::new(doc) {
        let Event::Code(text) = event else { continue };
        let named = PATH_ROOTS.iter().any(|r| text.starts_with(r));
        if named && !text.contains([' ', '<', '*', '…']) && !exists(&text) {
            problems.push(format!("`{text}` does not exist"));
        }
    }
    problems
}

/// The names of every test function under the test directories.
fn workspace_tests() -> BTreeSet<String> {
    let files = TEST_DIRS
        .iter()
        .flat_map(|dir| files_ending(&root().join(dir), ".rs"));
    let tests: BTreeSet<String> = files
        .flat_map(|file| test_functions("", &std::fs::read_to_string(file).unwrap_or_default()))
        .map(|test| test.name)
        .collect();
    assert!(
        tests.len() > 300,
        "found only {} test functions",
        tests.len()
    );
    tests
}

#[test]
fn nm1_every_invariant_names_tests_that_exist() {
    let doc = read(DOC);
    let (found, mut problems) = invariants(&doc);
    problems.extend(missing_tests(&found, &workspace_tests()));
    assert_none(&problems, &format!("{DOC}: invariants without their tests"));
    assert!(
        found.len() >= 20,
        "{DOC} holds {} invariants; at least 20",
        found.len()
    );
}

#[test]
fn nm1_every_module_and_path_the_map_names_exists_and_every_module_is_mapped() {
    let doc = read(DOC);
    assert!(
        mapped_paths(&doc).len() > 10,
        "{DOC} has no code map of `###` headings"
    );
    assert_none(
        &map_problems(&root(), &doc),
        &format!("{DOC}: the code map"),
    );
}

#[test]
fn nm1_the_reader_finds_a_misspelled_test_a_bare_mark_and_a_missing_module() {
    // The mark is spelled from its parts here, so this file holds no invariant of its own.
    let doc = "## Code map\n\n### `shared/src/http`, `shared/src/nowhere`\n\n\
               - MARK one line (`nm1_every_invariant_names_tests_that_exist`).\n\
               - MARK wraps over\n  two lines (`nm1_every_invariant_names_tests_that_exist`,\n  \
               `nm1_every_invariant_names_tests_taht_exist`).\n\
               - MARK names no test at all.\n\
               - MARK ends in prose (`a_test`) and more.\n\n\
               A sentence that mentions MARK in passing.\n\n\
               MARK a paragraph (`a_b`, `c`)\n\n\
               ## Cross-cutting rules\n\n### `shared/src/ghost` is out of the map\n\n\
               See `shared/src/also_missing.rs`.\n"
        .replace("MARK", MARK);
    let (found, problems) = invariants(&doc);
    let that = "nm1_every_invariant_names_tests_that_exist";
    let taht = "nm1_every_invariant_names_tests_taht_exist";
    let invariant = |line, tests: &[&str]| Invariant {
        line,
        tests: tests.iter().map(|t| (*t).to_owned()).collect(),
    };
    let expected = [
        invariant(5, &[that]),
        invariant(6, &[that, taht]),
        invariant(14, &["a_b", "c"]),
    ];
    assert_eq!(found, expected);
    assert_eq!(
        problems,
        [
            "line 9: the invariant does not end with its tests, (`test_name`, …)",
            "line 10: the invariant does not end with its tests, (`test_name`, …)",
            "line 12: **Invariant:** must start a paragraph or list item",
        ]
    );
    let tests: BTreeSet<String> = [that, "a_b", "c"].into_iter().map(str::to_owned).collect();
    assert_eq!(
        missing_tests(&found, &tests),
        [format!(
            "line 6: `{taht}` is no test function under {TEST_DIRS:?}"
        )]
    );
    assert_eq!(
        mapped_paths(&doc),
        ["shared/src/http", "shared/src/nowhere"]
    );
    let problems = map_problems(&root(), &doc);
    let nowhere = "the code map names `shared/src/nowhere`, which does not exist";
    assert!(problems.contains(&nowhere.into()));
    assert!(problems.contains(&"the code map has no heading for `shared/src/server`".into()));
    assert!(!problems.iter().any(|p| p.contains("`shared/src/http`")));
    assert!(problems.contains(&"`shared/src/also_missing.rs` does not exist".into()));
}

/// One relative link: `file:line`, the file it points to from the root (the linking file for
/// a bare `#anchor`), and its anchor.
#[derive(Debug, PartialEq)]
struct Link {
    at: String,
    target: PathBuf,
    anchor: Option<String>,
}

/// The relative links of one Markdown file (`path` from the root).
fn links(path: &str, text: &str) -> Vec<Link> {
    let parser = Parser::new(text).into_offset_iter();
    let definitions = parser.reference_definitions().iter();
    let mut targets: Vec<(usize, String)> = definitions
        .map(|(_, definition)| (definition.span.start, definition.dest.to_string()))
        .collect();
    for (event, range) in parser {
        if let Event::Start(
            Tag::Link {
                link_type,
                dest_url,
                ..
            }
            | Tag::Image {
                link_type,
                dest_url,
                ..
            },
        ) = event
            && matches!(link_type, LinkType::Inline)
        {
            targets.push((range.start, dest_url.to_string()));
        }
    }
    targets.sort();
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let relative = |t: &String| !(t.is_empty() || t.contains("://") || t.starts_with("mailto:"));
    let targets = targets.into_iter().filter(|(_, target)| relative(target));
    targets
        .map(|(at, target)| {
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor.to_owned())),
                None => (target.as_str(), None),
            };
            // The target with `.` and `..` resolved (`docs/../README.md` → `README.md`).
            let mut resolved = PathBuf::new();
            for part in dir.join(file).components() {
                match part {
                    Component::CurDir => {}
                    Component::ParentDir if resolved.pop() => {}
                    other => resolved.push(other),
                }
            }
            let target = if file.is_empty() {
                PathBuf::from(path)
            } else {
                resolved
            };
            Link {
                at: format!("{path}:{}", line_at(text, at)),
                target,
                anchor,
            }
        })
        .collect()
}

/// The anchors of a Markdown file's headings as GitHub makes them: the heading's text in
/// lower case; letters, digits, `-` and `_` kept, spaces made `-`, everything else dropped; a
/// repeated one gets `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let (mut seen, mut found) = (BTreeMap::new(), BTreeSet::new());
    let mut heading: Option<String> = None;
    for event in Parser::new(text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => heading.iter_mut().for_each(|h| h.push_str(&t)),
            Event::End(TagEnd::Heading(_)) => {
                let slug: String = (heading.take().unwrap_or_default().trim().chars())
                    .flat_map(char::to_lowercase)
                    .filter_map(|c| match c {
                        ' ' => Some('-'),
                        c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                        _ => None,
                    })
                    .collect();
                let count = seen.entry(slug.clone()).or_insert(0);
                found.insert(if *count == 0 {
                    slug
                } else {
                    format!("{slug}-{count}")
                });
                *count += 1;
            }
            _ => {}
        }
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

#[test]
fn nm3_the_readme_is_at_most_300_lines_and_links_the_deeper_documents() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(lines <= 300, "README.md has {lines} lines; at most 300");
    let linked: BTreeSet<PathBuf> = links("README.md", &readme)
        .into_iter()
        .map(|l| l.target)
        .collect();
    let missing: Vec<&str> = ["docs/clients.md", "docs/deploy.md", "docs/contract.md"]
        .into_iter()
        .chain(["docs/architecture.md", "BENCHMARKS.md"])
        .filter(|path| !linked.contains(Path::new(path)))
        .collect();
    assert!(missing.is_empty(), "README.md does not link {missing:?}");
}

#[test]
fn nm3_every_relative_link_points_to_a_file_and_heading_that_exist() {
    let base = root();
    let docs = files_ending(&base.join("docs"), ".md");
    let docs = docs
        .iter()
        .map(|p| p.strip_prefix(&base).unwrap().display().to_string());
    let paths = ["README.md".to_owned(), "CONTRIBUTING.md".to_owned()]
        .into_iter()
        .chain(docs);
    let all: Vec<Link> = paths.flat_map(|path| links(&path, &read(&path))).collect();
    assert!(all.len() > 30, "found only {} relative links", all.len());
    let problems = broken(&all, |path| {
        let full = base.join(path);
        // An image (the README's screenshots) is a file too; its text has no headings.
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        if full.is_dir() {
            Some(String::new())
        } else {
            std::fs::read(full).ok().map(text)
        }
    });
    assert_none(&problems, "broken relative links");
}

#[test]
fn nm3_the_link_check_finds_a_missing_file_and_a_missing_heading() {
    let target = "# Title\n\n## Usage\n\n```\n## not a heading\n```\n\n## Usage\n### Stage times #\n\
                  ## First run: `kobana-mcp check`\n## Browsers (CORS)\n## KC — Kobana's contract\n\
                  ## Confirmação de [tools](x.md) destrutivas\n";
    let expected = [
        "title",
        "usage",
        "usage-1",
        "stage-times",
        "first-run-kobana-mcp-check",
        "browsers-cors",
        "kc--kobanas-contract",
        "confirmação-de-tools-destrutivas",
    ];
    assert_eq!(
        anchors(target),
        expected.into_iter().map(str::to_owned).collect()
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
    let expected = [
        ("guide.md", Some("usage-1")),
        ("docs/page.md", Some("title")),
        ("docs/missing.md", None),
        ("guide.md", Some("nowhere")),
        ("guide.md", Some("stage-times")),
    ];
    assert_eq!(targets, expected);
    let files: BTreeMap<PathBuf, String> = [("guide.md", target), ("docs/page.md", source)]
        .map(|(path, text)| (PathBuf::from(path), text.to_owned()))
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
