//! Every requirement ID the repository cites is defined in `docs/requirements.md`, and every
//! test that document names as proof exists (NM-2). The grammar is the one that document states
//! in "How IDs are written". The scan reads every text file of the repository (not build
//! output, installed packages, fuzzing state or lock files).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::LazyLock;

use regex_lite::{Captures, Regex};

use crate::house::support::{
    TestFn, assert_none, files_ending, from_root, read, root, test_functions, workspace_tests,
};

const DOC: &str = "docs/requirements.md";
const NO_TEST: &str = "no test yet";

/// The requirement IDs cited in one line, in order. A candidate is kept when nothing is glued
/// before it (group 1: a word character or `-`) or after it (group 4: a word character, or `-`
/// or `.` and a digit).
fn ids_in(line: &str, prefixes: &BTreeSet<String>) -> Vec<String> {
    static ID: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"([\w-]??)([A-Z]+)-([1-9][0-9]?)(\w|[-.][0-9])?").unwrap());
    let kept = |c: &Captures| c[1].is_empty() && c.get(4).is_none() && prefixes.contains(&c[2]);
    let ids = ID.captures_iter(line).filter(kept);
    ids.map(|c| format!("{}-{}", &c[2], &c[3])).collect()
}

/// The issue numbers cited in one line (`#19`), in order.
fn issues_in(line: &str) -> Vec<u32> {
    static ISSUE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"([\w&]??)#([1-9][0-9])(\w?)").unwrap());
    let kept = |c: &Captures| c[1].is_empty() && c[3].is_empty();
    let issues = ISSUE.captures_iter(line).filter(kept);
    issues.map(|c| c[2].parse().expect("two digits")).collect()
}

/// The IDs a test's name starts with: `cf2_cf3_the_question` → `CF-2`, `CF-3`.
fn ids_in_test_name(name: &str, prefixes: &BTreeSet<String>) -> Vec<String> {
    static LEADING: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([a-z]+)([0-9]{1,2})_").unwrap());
    let (mut found, mut rest) = (Vec::new(), name);
    while let Some(c) = LEADING.captures(rest) {
        let prefix = c[1].to_ascii_uppercase();
        if !prefixes.contains(&prefix) {
            break;
        }
        found.push(format!("{prefix}-{}", &c[2]));
        rest = &rest[c[0].len()..];
    }
    found
}

/// What `docs/requirements.md` defines: its prefixes (`CF`), its IDs with the tests each row
/// names (none when it says `no test yet`), its issue numbers, and the rows that break its rules.
#[derive(Default)]
struct Definitions {
    prefixes: BTreeSet<String>,
    ids: BTreeMap<String, Vec<String>>,
    issues: BTreeSet<u32>,
    problems: Vec<String>,
}

/// The trimmed cells of a table row, or `None` for any other line.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// Reads the prefix table, the ID rows and the issue table of the document.
fn definitions(doc: &str) -> Definitions {
    static PREFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^`?([A-Z]+)-`?$").unwrap());
    static ID_SHAPE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Z]+-[0-9]+$").unwrap());
    let mut defs = Definitions::default();
    let firsts = doc.lines().filter_map(cells).map(|row| row[0]);
    let prefixes = firsts.filter_map(|first| PREFIX.captures(first));
    defs.prefixes.extend(prefixes.map(|c| c[1].to_owned()));
    for (number, row) in doc.lines().enumerate() {
        let Some(row) = cells(row) else { continue };
        let (id, proof, at) = (row[0], row[row.len() - 1], format!("{DOC}:{}", number + 1));
        // After the mark, backticks name what proves it instead (a benchmark), not tests.
        let no_test = proof.starts_with(NO_TEST);
        let tests = proof.split('`').skip(1).step_by(2).filter(|_| !no_test);
        let tests: Vec<String> = tests.map(str::to_owned).collect();
        if let Some(issue) = id.strip_prefix('#').and_then(|n| n.parse().ok()) {
            defs.issues.insert(issue);
        } else if ids_in(id, &defs.prefixes) == [id] {
            if tests.is_empty() && !no_test {
                let problem = format!("{at}: {id} names no test and does not say \"{NO_TEST}\"");
                defs.problems.push(problem);
            }
            if defs.ids.insert(id.to_owned(), tests).is_some() {
                defs.problems.push(format!("{at}: {id} is defined twice"));
            }
        } else if ID_SHAPE.is_match(id) {
            let problem = format!("{at}: {id} has a prefix that is not in the prefix table");
            defs.problems.push(problem);
        }
    }
    defs
}

/// Every citation in `files` and every test name of `tests` that `defs` does not define, as
/// `path:line: …`.
fn undefined(files: &[(String, String)], tests: &[TestFn], defs: &Definitions) -> Vec<String> {
    let mut problems = Vec::new();
    let undefined = |id: &String| !defs.ids.contains_key(id);
    for (path, text) in files {
        for (number, line) in text.lines().enumerate() {
            let at = format!("{path}:{}", number + 1);
            let ids = ids_in(line, &defs.prefixes).into_iter().filter(undefined);
            problems.extend(ids.map(|id| format!("{at}: cites {id}, which {DOC} does not define")));
            let issues = issues_in(line);
            let issues = issues.iter().filter(|i| !defs.issues.contains(i));
            let issue = |i| format!("{at}: cites issue #{i}, not in {DOC}'s issue table");
            problems.extend(issues.map(issue));
        }
    }
    for (name, at) in tests {
        let ids = ids_in_test_name(name, &defs.prefixes);
        let ids = ids.iter().filter(|id| undefined(id));
        let named =
            |id| format!("{at}: test `{name}` is named after {id}, which {DOC} does not define");
        problems.extend(ids.map(named));
    }
    problems
}

/// The rows that break the document's rules, and every proving test a definition names that is
/// no test function (`name*`: none starts so).
fn rule_breaks(defs: &Definitions, tests: &[TestFn]) -> Vec<String> {
    let names: BTreeSet<&str> = tests.iter().map(|(name, _)| name.as_str()).collect();
    let exists = |proof: &str| match proof.strip_suffix('*') {
        Some(stem) => names.iter().any(|n| n.starts_with(stem)),
        None => names.contains(proof),
    };
    let ids = defs.ids.iter();
    let named = ids.flat_map(|(id, proofs)| proofs.iter().map(move |p| (id, p)));
    let missing = named.filter(|(_, proof)| !exists(proof));
    let missing =
        missing.map(|(id, p)| format!("{DOC}: {id} names `{p}`, which is no test function"));
    defs.problems.iter().cloned().chain(missing).collect()
}

/// The repository as the checks read it: its text files, its test functions, the definitions.
fn repository() -> (Vec<(String, String)>, Vec<TestFn>, Definitions) {
    let text = |path: PathBuf| Some((from_root(&path), std::fs::read_to_string(&path).ok()?));
    let files = files_ending(&root(), "").into_iter();
    let files: Vec<_> = files.filter_map(text).collect();
    let (tests, defs) = (workspace_tests(), definitions(&read(DOC)));
    // A scan that read nothing would pass every check.
    let counts = (files.len(), tests.len(), defs.ids.len());
    let enough = counts.0 > 100 && counts.1 > 300 && counts.2 > 40;
    assert!(enough, "(files, tests, IDs) found: {counts:?}");
    (files, tests, defs)
}

#[test]
fn nm2_every_cited_id_and_issue_is_defined() {
    let (files, tests, defs) = repository();
    assert_none(undefined(&files, &tests, &defs), "cited but not defined");
}

#[test]
fn nm2_every_definition_names_tests_that_exist_or_says_none_yet() {
    let (_, tests, defs) = repository();
    assert_none(rule_breaks(&defs, &tests), "rows that break the rules");
}

#[test]
fn nm2_the_grammar_reads_ids_and_nothing_else() {
    let known: BTreeSet<String> = ["P", "T", "R", "PR", "C", "CF", "A", "X"]
        .map(String::from)
        .into();
    let cited = "CF-4, PR-7 (T-4) and A-3. CF-1…CF-6; R-5: `P-2`";
    let expected = ["CF-4", "PR-7", "T-4", "A-3", "CF-1", "CF-6", "R-5", "P-2"];
    assert_eq!(ids_in(cited, &known), expected);
    let lookalikes = "UTF-8 UTF-16 SHA-256 ISO-8601 RFC-9728 CVE-2024-1234 X-MCP-Toolsets \
                      X-Request-Id -32602 code -32002 P-256 MPL-2.0 R-5.1 T-0 A-01 FAT-2026-000812 \
                      FAT-1 UTC-3 AFL-2 ptr-1 X-R-1 C-3PO T-4_x xCF-4 9CF-4";
    assert_eq!(ids_in(lookalikes, &known), Vec::<String>::new());

    assert_eq!(issues_in("(#19) and #20 item 2; ##17"), [19, 20, 17]);
    let not_issues = "long #1, &#39; a#12 #123456 #0x #08 #19a";
    assert_eq!(issues_in(not_issues), Vec::<u32>::new());

    assert_eq!(
        ids_in_test_name("c2_c3_c4_schema_names", &known),
        ["C-2", "C-3", "C-4"]
    );
    assert_eq!(ids_in_test_name("r3_a2_read_only", &known), ["R-3", "A-2"]);
    for plain in "contract_1_items a_500_on_a_read utf8_text t123_x pr1".split(' ') {
        assert!(ids_in_test_name(plain, &known).is_empty(), "{plain}");
    }
}

#[test]
fn nm2_the_check_names_an_undefined_citation_and_a_missing_test() {
    // A document of its own, with prefix `ZZ` (unknown to the real scan) and `№` standing for
    // `#` until run time, so that this file cites nothing undefined.
    let doc = "| Prefix | Family |\n|---|---|\n| `ZZ-` | test family |\n\n\
               | Issue | What |\n|---|---|\n| №41 | an issue |\n\n\
               | ID | Statement | Source | Proving tests |\n|---|---|---|---|\n\
               | ZZ-1 | one | here | `zz1_exists` |\n\
               | ZZ-2 | two | here | `zz2_is_gone`, `zz1_*` |\n\
               | ZZ-3 | three | here | no test yet |\n\
               | ZZ-4 | four | here | soon |\n\
               | ZZ-3 | again | here | no test yet |\n\
               | QQ-1 | unknown prefix | here | no test yet |\n"
        .replace('№', "#");
    let defs = definitions(&doc);
    assert_eq!(defs.prefixes, BTreeSet::from(["ZZ".to_owned()]));
    assert_eq!(defs.issues, BTreeSet::from([41]));
    assert_eq!(defs.ids["ZZ-3"], Vec::<String>::new());
    // Its test functions are written inside one line of a string: the real scan finds none.
    let source = "fn a() {}\n// ZZ-1 holds, ZZ-9 does not, nor №42; №41 is fine\n\
                  #[tokio::test]\nasync fn zz1_exists() {}\n#[test]\nfn zz7_named_after_nothing() {}\n"
        .replace('№', "#");
    let files = vec![("x.rs".to_owned(), source.clone())];
    let tests = test_functions("x.rs", &source);
    let zz7 = "zz7_named_after_nothing";
    assert_eq!(
        undefined(&files, &tests, &defs),
        [
            format!("x.rs:2: cites ZZ-9, which {DOC} does not define"),
            format!("x.rs:2: cites issue #{}, not in {DOC}'s issue table", 42),
            format!("x.rs:6: test `{zz7}` is named after ZZ-7, which {DOC} does not define"),
        ]
    );
    assert_eq!(
        rule_breaks(&defs, &tests),
        [
            format!("{DOC}:14: ZZ-4 names no test and does not say \"{NO_TEST}\""),
            format!("{DOC}:15: ZZ-3 is defined twice"),
            format!("{DOC}:16: QQ-1 has a prefix that is not in the prefix table"),
            format!("{DOC}: ZZ-2 names `zz2_is_gone`, which is no test function"),
        ]
    );
}
