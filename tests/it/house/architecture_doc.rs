//! The documents stay true to the repository, read by `pulldown-cmark`: `docs/architecture.md`'s
//! invariants name tests that exist and its code map names modules that exist (NM-1); the README
//! links the deeper documents, and no relative link of the README,
//! `CONTRIBUTING.md` or `docs/*.md` points to a missing file or heading (NM-3).
//!
//! An **invariant** is a paragraph or list item that starts with the mark `**Invariant:**` and
//! ends with its tests: `(`, backticked test functions of the workspace separated by `, `, `)`,
//! optionally `.`. The mark anywhere else is an error. The
//! **code map** is the `## Code map` section: the backticked paths of its `###` headings exist
//! (with or without `.rs`), and every top-level module of `shared/src` has one. Any inline code
//! of the document that starts with a top-level directory of the workspace names a path that
//! exists. A **relative link** (a link's, an image's or a `[label]: target` definition's target
//! without a scheme) points to a file that exists, and its `#anchor` to one of its headings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Parser, Tag, TagEnd};
use regex_lite::Regex;

use crate::house::support::{
    assert_none, files_ending, from_root, read, root, shared_sources, workspace_tests,
};

const DOC: &str = "docs/architecture.md";
const MARK: &str = "**Invariant:**";

fn line_at(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// A problem found at a line of the document.
fn at(line: usize, what: impl std::fmt::Display) -> String {
    format!("line {line}: {what}")
}

/// How many invariants `doc` holds, and every place that breaks the grammar or names a test
/// that is not in `tests` (`line N: …`).
fn invariants(doc: &str, tests: &BTreeSet<String>) -> (usize, Vec<String>) {
    static TESTS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\((`[a-z0-9_]+`(?:, `[a-z0-9_]+`)*)\)\.?$").unwrap());
    let (mut problems, mut starts) = (Vec::new(), BTreeSet::new());
    let blocks = Parser::new(doc).into_offset_iter();
    let blocks = blocks.filter(|(e, _)| matches!(e, Event::Start(Tag::Paragraph | Tag::Item)));
    for (_, range) in blocks {
        let block = doc[range.clone()].trim_start();
        let block = block.strip_prefix("- ").unwrap_or(block);
        // A loose list item and its paragraph start on one line: read it once.
        let line = line_at(doc, range.start);
        if !block.starts_with(MARK) || !starts.insert(line) {
            continue;
        }
        let text = block.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(list) = TESTS.captures(&text) else {
            problems.push(at(line, "the invariant does not end with its tests"));
            continue;
        };
        for name in list[1].split(", ").map(|t| t.trim_matches('`')) {
            if !tests.contains(name) {
                problems.push(at(line, format!("`{name}` is no test function")));
            }
        }
    }
    for (n, _) in doc.lines().enumerate().filter(|(_, l)| l.contains(MARK)) {
        if !starts.contains(&(n + 1)) {
            problems.push(at(n + 1, "the mark starts no paragraph or list item"));
        }
    }
    (starts.len(), problems)
}

/// Every path the document names in inline code (from a top-level directory of the workspace,
/// or in a `###` heading of its `## Code map`) that does not exist, every top-level module of
/// `shared/src` the map has no heading for; and how many paths the map names.
fn map_problems(doc: &str) -> (usize, Vec<String>) {
    let exists = |path: &str| {
        let path = root().join(path.trim_end_matches('/'));
        path.exists() || path.with_extension("rs").exists()
    };
    let roots = "shared/ functions/ tests/ bench/ fuzz/ clients/ docs/ scripts/";
    let (mut problems, mut mapped, mut level, mut in_map) =
        (Vec::new(), BTreeSet::new(), None, false);
    for event in Parser::new(doc) {
        match event {
            Event::Start(Tag::Heading { level: at, .. }) => level = Some(at),
            Event::End(TagEnd::Heading(_)) => level = None,
            Event::Text(text) if level == Some(HeadingLevel::H2) => in_map = &*text == "Code map",
            Event::Code(text) => {
                let in_a_heading = in_map && level == Some(HeadingLevel::H3);
                let named = in_a_heading || roots.split(' ').any(|r| text.starts_with(r));
                if named && !text.contains([' ', '<', '*', '…']) && !exists(&text) {
                    problems.push(format!("`{text}` does not exist"));
                }
                if in_a_heading {
                    mapped.insert(text.to_string());
                }
            }
            _ => {}
        }
    }
    let files = shared_sources().into_iter().map(|(file, _)| file);
    let modules = files.map(|f| f.split(['/', '.']).next().unwrap().to_owned());
    let modules: BTreeSet<String> = modules.collect();
    for module in modules.iter().map(|m| format!("shared/src/{m}")) {
        if !mapped.contains(&module) && module != "shared/src/lib" {
            problems.push(format!("the code map has no heading for `{module}`"));
        }
    }
    (mapped.len(), problems)
}

#[test]
fn nm1_every_invariant_names_tests_that_exist() {
    let tests: BTreeSet<String> = workspace_tests().into_iter().map(|t| t.0).collect();
    assert!(tests.len() > 300, "{} test functions", tests.len());
    let (count, problems) = invariants(&read(DOC), &tests);
    assert_none(problems, &format!("{DOC}: invariants without their tests"));
    assert!(count >= 20, "{DOC} holds {count} invariants; at least 20");
}

#[test]
fn nm1_every_module_and_path_the_map_names_exists_and_every_module_is_mapped() {
    let (mapped, problems) = map_problems(&read(DOC));
    assert!(mapped > 10, "{DOC} has no code map of `###` headings");
    assert_none(problems, &format!("{DOC}: the code map"));
}

#[test]
fn nm1_the_reader_finds_a_misspelled_test_a_bare_mark_and_a_missing_module() {
    // The mark is spelled from its parts here, so this file holds no invariant of its own.
    let doc = "## Code map\n\n### `shared/src/http`, `shared/src/nowhere`\n\n\
               - MARK one line (`a_test`).\n\
               - MARK wraps over\n  two lines (`a_test`,\n  `a_tset`).\n\
               - MARK names no test at all.\n\
               - MARK ends in prose (`a_test`) and more.\n\n\
               A sentence that mentions MARK in passing.\n\n\
               MARK a paragraph (`a_b`, `c`)\n\n\
               ## Cross-cutting rules\n\n### `shared/src/ghost` is out of the map\n\n\
               See `shared/src/also_missing.rs`.\n"
        .replace("MARK", MARK);
    let tests = BTreeSet::from(["a_test", "a_b", "c"].map(str::to_owned));
    let problems = [
        "line 6: `a_tset` is no test function",
        "line 9: the invariant does not end with its tests",
        "line 10: the invariant does not end with its tests",
        "line 12: the mark starts no paragraph or list item",
    ];
    assert_eq!(
        invariants(&doc, &tests),
        (5, problems.map(str::to_owned).into())
    );
    let (mapped, problems) = map_problems(&doc);
    assert_eq!(mapped, 2, "{problems:?}");
    assert!(problems.contains(&"`shared/src/nowhere` does not exist".into()));
    assert!(problems.contains(&"the code map has no heading for `shared/src/server`".into()));
    assert!(!problems.iter().any(|p| p.contains("`shared/src/http`")));
    assert!(problems.contains(&"`shared/src/also_missing.rs` does not exist".into()));
}

/// A relative link: `path:line`, the file it points to from the root (the linking file for a
/// bare `#anchor`), its anchor.
type Link = (String, PathBuf, Option<String>);

/// The relative links of one Markdown file (`path` from the root).
fn links(path: &str, text: &str) -> Vec<Link> {
    let parser = Parser::new(text).into_offset_iter();
    let definitions = parser.reference_definitions().iter();
    let mut targets: Vec<(usize, String)> = definitions
        .map(|(_, definition)| (definition.span.start, definition.dest.to_string()))
        .collect();
    for (event, range) in parser {
        let target = match event {
            Event::Start(Tag::Link {
                link_type: LinkType::Inline,
                dest_url,
                ..
            }) => dest_url,
            Event::Start(Tag::Image { dest_url, .. }) => dest_url,
            _ => continue,
        };
        targets.push((range.start, target.to_string()));
    }
    targets.sort();
    targets.retain(|(_, t)| !(t.is_empty() || t.contains("://") || t.starts_with("mailto:")));
    let dir = Path::new(path).parent().unwrap_or(Path::new(""));
    let own_name = path.rsplit('/').next().unwrap();
    let link = |(at, target): (usize, String)| {
        let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let file = if file.is_empty() { own_name } else { file };
        // The target with `.` and `..` resolved (`docs/../README.md` → `README.md`).
        let mut resolved = PathBuf::new();
        for part in dir.join(file).components() {
            match part {
                Component::CurDir => {}
                Component::ParentDir if resolved.pop() => {}
                other => resolved.push(other),
            }
        }
        let anchor = target.contains('#').then(|| anchor.to_owned());
        (format!("{path}:{}", line_at(text, at)), resolved, anchor)
    };
    targets.into_iter().map(link).collect()
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
                    .filter(|c| c.is_alphanumeric() || ['-', '_', ' '].contains(c))
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect();
                let count = seen.entry(slug.clone()).or_insert(0);
                let anchor = format!("{slug}-{count}");
                found.insert(anchor.strip_suffix("-0").unwrap_or(&anchor).to_owned());
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
    for (at, target, anchor) in links {
        let shown = target.display();
        match (read(target), anchor) {
            (None, _) => problems.push(format!("{at}: `{shown}` does not exist")),
            (Some(text), Some(anchor)) if !anchors(&text).contains(anchor) => {
                problems.push(format!("{at}: `{shown}` has no heading `#{anchor}`"));
            }
            _ => {}
        }
    }
    problems
}

#[test]
fn nm3_the_readme_links_the_deeper_documents() {
    let readme = links("README.md", &read("README.md"));
    let linked: Vec<PathBuf> = readme.into_iter().map(|l| l.1).collect();
    let deeper = "docs/clients.md docs/deploy.md docs/contract.md docs/architecture.md \
                  BENCHMARKS.md";
    let missing = deeper.split(' ').filter(|p| !linked.contains(&p.into()));
    assert_none(missing, "README.md does not link");
}

#[test]
fn nm3_every_relative_link_points_to_a_file_and_heading_that_exist() {
    let docs = files_ending(&root().join("docs"), ".md").into_iter();
    let paths = docs
        .map(|p| from_root(&p))
        .chain(["README.md", "CONTRIBUTING.md"].map(String::from));
    let all: Vec<_> = paths.flat_map(|path| links(&path, &read(&path))).collect();
    assert!(all.len() > 30, "found only {} relative links", all.len());
    // An image (the README's screenshots) is a file too; its text has no headings.
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    let problems = broken(&all, |path| match root().join(path) {
        full if full.is_dir() => Some(String::new()),
        full => std::fs::read(full).ok().map(text),
    });
    assert_none(problems, "broken relative links");
}

#[test]
fn nm3_the_link_check_finds_a_missing_file_and_a_missing_heading() {
    let target = "# Title\n\n## Usage\n\n```\n## not a heading\n```\n\n## Usage\n### Stage times #\n\
                  ## First run: `kobana-mcp check`\n## Browsers (CORS)\n## KC — Kobana's contract\n\
                  ## Confirmação de [tools](x.md) destrutivas\n";
    let expected = "title usage usage-1 stage-times first-run-kobana-mcp-check browsers-cors \
                    kc--kobanas-contract confirmação-de-tools-destrutivas";
    let expected: BTreeSet<String> = expected.split(' ').map(str::to_owned).collect();
    assert_eq!(anchors(target), expected);

    let source = "# Title\nSee [the guide](../guide.md#usage-1) and [this](#title).\n\
                  [gone](missing.md), [bad anchor](../guide.md#nowhere), [web](https://x.y/#a)\n\
                  `[code](not-a-link.md)`\n```\n[fenced](not-a-link.md)\n```\n\
                  [ref]: ../guide.md#stage-times\n";
    let found = links("docs/page.md", source);
    let shown = |(_, t, a): &Link| format!("{} {a:?}", t.display());
    let targets: Vec<_> = found.iter().map(shown).collect();
    let expected = "guide.md Some(\"usage-1\"), docs/page.md Some(\"title\"), \
                    docs/missing.md None, guide.md Some(\"nowhere\"), guide.md Some(\"stage-times\")";
    assert_eq!(targets.join(", "), expected);
    let files = BTreeMap::from([("guide.md", target), ("docs/page.md", source)]);
    let problems = broken(&found, |path| Some(files.get(path.to_str()?)?.to_string()));
    let expected = [
        "docs/page.md:3: `docs/missing.md` does not exist",
        "docs/page.md:3: `guide.md` has no heading `#nowhere`",
    ];
    assert_eq!(problems, expected);
}
