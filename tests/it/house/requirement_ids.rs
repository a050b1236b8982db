//! Every requirement ID the repository cites is defined in `docs/requirements.md`, and every
//! test that document names as proof exists (NM-2).
//!
//! The grammar is the one the document states at its top:
//! - a citation is a prefix from the document's prefix table, `-`, and 1 to 99, standing alone
//!   (`CF-4`; not `UTF-8`, `SHA-256` or `P-256`);
//! - an issue citation is `#` and two digits (`#19`);
//! - a test named after IDs starts with them in lower case (`cf2_cf3_…`).
//!
//! The scan reads every text file of the repository except build output, installed packages,
//! fuzzing state and lock files. Only `std` is used.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The document that defines the IDs, relative to the workspace root.
const DOC: &str = "docs/requirements.md";
/// Directories never scanned, wherever they are: build output, installed packages, VCS state.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    "node_modules",
    ".git",
    ".aws-sam",
    "results",
    "__pycache__",
];
/// Directories of `fuzz/` that hold generated inputs, not sources.
const SKIPPED_FUZZ_DIRS: &[&str] = &["corpus", "artifacts"];
/// Files never scanned: generated lock files (package names and hashes), a worktree's `.git`.
const SKIPPED_FILES: &[&str] = &["Cargo.lock", "package-lock.json", ".git"];
/// The mark of a definition that no test proves yet.
const NO_TEST: &str = "no test yet";
/// Most digits a requirement number has (1 to 99).
const MAX_DIGITS: usize = 2;
/// Digits of an issue number in an issue citation.
const ISSUE_DIGITS: usize = 2;

pub(crate) use crate::house::support::root;

/// A byte that continues a word: an ASCII letter or digit, or `_`.
fn is_word(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The number of ASCII digits at the start of `bytes`.
fn digits_at(bytes: &[u8]) -> usize {
    bytes.iter().take_while(|b| b.is_ascii_digit()).count()
}

/// The ID whose prefix spans `bytes[start..end]`, if a well-formed number follows it.
fn id_at(bytes: &[u8], start: usize, end: usize, prefixes: &BTreeSet<String>) -> Option<String> {
    let prefix = std::str::from_utf8(&bytes[start..end]).ok()?;
    if !prefixes.contains(prefix) || bytes.get(end) != Some(&b'-') {
        return None;
    }
    let number = &bytes[end + 1..];
    let count = digits_at(number);
    if count == 0 || count > MAX_DIGITS || number[0] == b'0' {
        return None;
    }
    let after = &number[count..];
    let glued = after.first().is_some_and(|b| is_word(*b));
    let continued = matches!(after, [b'-' | b'.', next, ..] if next.is_ascii_digit());
    if glued || continued {
        return None;
    }
    Some(format!(
        "{prefix}-{}",
        std::str::from_utf8(&number[..count]).ok()?
    ))
}

/// The requirement IDs cited in one line, in order.
fn ids_in(line: &str, prefixes: &BTreeSet<String>) -> Vec<String> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts_word = at == 0 || !(is_word(bytes[at - 1]) || bytes[at - 1] == b'-');
        if !bytes[at].is_ascii_uppercase() || !starts_word {
            at += 1;
            continue;
        }
        let start = at;
        while at < bytes.len() && bytes[at].is_ascii_uppercase() {
            at += 1;
        }
        found.extend(id_at(bytes, start, at, prefixes));
    }
    found
}

/// The issue numbers cited in one line (`#19`), in order.
fn issues_in(line: &str) -> Vec<u32> {
    let bytes = line.as_bytes();
    let mut found = Vec::new();
    for (at, _) in line.match_indices('#') {
        let before_ok = at == 0 || !(is_word(bytes[at - 1]) || bytes[at - 1] == b'&');
        let number = &bytes[at + 1..];
        let count = digits_at(number);
        let after_ok = number.get(count).is_none_or(|b| !is_word(*b));
        if before_ok && count == ISSUE_DIGITS && number[0] != b'0' && after_ok {
            found.extend(line[at + 1..at + 1 + count].parse::<u32>().ok());
        }
    }
    found
}

/// The IDs a test's name starts with: `cf2_cf3_the_question` → `CF-2`, `CF-3`.
fn ids_in_test_name(name: &str, prefixes: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = name;
    loop {
        let letters = rest.bytes().take_while(u8::is_ascii_lowercase).count();
        let count = digits_at(&rest.as_bytes()[letters..]);
        let prefix = rest[..letters].to_ascii_uppercase();
        let closed = rest.as_bytes().get(letters + count) == Some(&b'_');
        if letters == 0
            || count == 0
            || count > MAX_DIGITS
            || !closed
            || !prefixes.contains(&prefix)
        {
            return found;
        }
        found.push(format!("{prefix}-{}", &rest[letters..letters + count]));
        rest = &rest[letters + count + 1..];
    }
}

/// What `docs/requirements.md` defines.
#[derive(Default)]
struct Definitions {
    /// Every prefix of the prefix table (`CF`).
    prefixes: BTreeSet<String>,
    /// Every defined ID with the tests its row names (empty when it says `no test yet`).
    ids: BTreeMap<String, Vec<String>>,
    /// Every issue number of the issue table.
    issues: BTreeSet<u32>,
    /// Rows that break the document's own rules.
    problems: Vec<String>,
}

/// The trimmed cells of a table row, or `None` for any other line.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// The backticked names of a cell (`` `a`, `b_*` `` → `a`, `b_*`).
fn backticked(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// Whether `text` is exactly one ID of a known prefix (`CF-4`).
fn is_whole_id(text: &str, prefixes: &BTreeSet<String>) -> bool {
    ids_in(text, prefixes).first().map(String::as_str) == Some(text)
}

/// Whether `text` is shaped like an ID (`XY-1`), whatever its prefix.
fn has_id_shape(text: &str) -> bool {
    text.split_once('-').is_some_and(|(letters, number)| {
        !letters.is_empty()
            && letters.bytes().all(|b| b.is_ascii_uppercase())
            && !number.is_empty()
            && number.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Reads the prefix table, the ID rows and the issue table of the document.
fn definitions(doc: &str) -> Definitions {
    let mut defs = Definitions::default();
    for row in doc.lines().filter_map(cells) {
        let first = row[0].trim_matches('`');
        if let Some(prefix) = first.strip_suffix('-')
            && !prefix.is_empty()
            && prefix.bytes().all(|b| b.is_ascii_uppercase())
        {
            defs.prefixes.insert(prefix.to_owned());
        }
    }
    for (number, line) in doc.lines().enumerate() {
        let Some(row) = cells(line) else { continue };
        let at = format!("{DOC}:{}", number + 1);
        if let Some(issue) = row[0].strip_prefix('#').and_then(|n| n.parse::<u32>().ok()) {
            defs.issues.insert(issue);
        } else if is_whole_id(row[0], &defs.prefixes) {
            define(&mut defs, row[0], row[row.len() - 1], &at);
        } else if has_id_shape(row[0]) {
            defs.problems.push(format!(
                "{at}: {} has a prefix that is not in the prefix table",
                row[0]
            ));
        }
    }
    defs
}

/// Records one ID row, or the rule it breaks.
fn define(defs: &mut Definitions, id: &str, proof: &str, at: &str) {
    // After the mark, backticks name what proves it instead (a benchmark), not tests.
    let tests = if proof.starts_with(NO_TEST) {
        Vec::new()
    } else {
        backticked(proof)
    };
    if tests.is_empty() && !proof.starts_with(NO_TEST) {
        defs.problems.push(format!(
            "{at}: {id} names no test and does not say \"{NO_TEST}\""
        ));
    }
    if defs.ids.insert(id.to_owned(), tests).is_some() {
        defs.problems.push(format!("{at}: {id} is defined twice"));
    }
}

/// A test function found in the sources.
pub(crate) struct TestFn {
    pub(crate) name: String,
    /// `path:line` of its `fn` line.
    at: String,
}

/// The test functions of one Rust source: each `fn` under a `#[test]` or `#[tokio::test…]`.
pub(crate) fn test_functions(path: &str, text: &str) -> Vec<TestFn> {
    let mut found = Vec::new();
    let mut armed = false;
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with("#[test]") || line.starts_with("#[tokio::test") {
            armed = true;
        } else if armed && !(line.is_empty() || line.starts_with("#[") || line.starts_with("//")) {
            let signature = line.trim_start_matches("pub ").trim_start_matches("async ");
            if let Some(rest) = signature.strip_prefix("fn ") {
                let name: String = rest
                    .bytes()
                    .take_while(|b| is_word(*b))
                    .map(char::from)
                    .collect();
                found.push(TestFn {
                    name,
                    at: format!("{path}:{}", number + 1),
                });
            }
            armed = false;
        }
    }
    found
}

/// Whether one directory entry is left out of the scan.
fn skipped(path: &Path, name: &str, is_dir: bool) -> bool {
    if !is_dir {
        return SKIPPED_FILES.contains(&name);
    }
    let in_fuzz = path.parent().is_some_and(|p| p.ends_with("fuzz"));
    SKIPPED_DIRS.contains(&name)
        || name.starts_with(".venv")
        || (in_fuzz && SKIPPED_FUZZ_DIRS.contains(&name))
}

/// Every text file under `dir` as (path relative to `base`, contents); binary files are left out.
pub(crate) fn text_files(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_dir = path.is_dir();
        if skipped(&path, &name, is_dir) {
            continue;
        }
        if is_dir {
            text_files(base, &path, out);
        } else if let Ok(text) = std::fs::read_to_string(&path) {
            let relative = path.strip_prefix(base).unwrap_or(&path);
            out.push((relative.to_string_lossy().into_owned(), text));
        }
    }
}

/// Every citation in `files` that `defs` does not define, as `path:line: …`.
fn undefined_citations(files: &[(String, String)], defs: &Definitions) -> Vec<String> {
    let mut problems = Vec::new();
    for (path, text) in files {
        for (number, line) in text.lines().enumerate() {
            let at = format!("{path}:{}", number + 1);
            for id in ids_in(line, &defs.prefixes) {
                if !defs.ids.contains_key(&id) {
                    problems.push(format!("{at}: cites {id}, which {DOC} does not define"));
                }
            }
            for issue in issues_in(line) {
                if !defs.issues.contains(&issue) {
                    problems.push(format!(
                        "{at}: cites issue #{issue}, not in {DOC}'s issue table"
                    ));
                }
            }
        }
    }
    problems
}

/// Every test whose name starts with an ID that `defs` does not define.
fn undefined_test_names(tests: &[TestFn], defs: &Definitions) -> Vec<String> {
    let mut problems = Vec::new();
    for test in tests {
        for id in ids_in_test_name(&test.name, &defs.prefixes) {
            if !defs.ids.contains_key(&id) {
                problems.push(format!(
                    "{}: test `{}` is named after {id}, which {DOC} does not define",
                    test.at, test.name
                ));
            }
        }
    }
    problems
}

/// Every proving test a definition names that is no test function (`name*`: none starts so).
fn missing_proofs(defs: &Definitions, tests: &[TestFn]) -> Vec<String> {
    let names: BTreeSet<&str> = tests.iter().map(|t| t.name.as_str()).collect();
    let mut problems = Vec::new();
    for (id, proofs) in &defs.ids {
        for proof in proofs {
            let exists = match proof.strip_suffix('*') {
                Some(stem) => names.iter().any(|n| n.starts_with(stem)),
                None => names.contains(proof.as_str()),
            };
            if !exists {
                problems.push(format!(
                    "{DOC}: {id} names `{proof}`, which is no test function"
                ));
            }
        }
    }
    problems
}

/// The repository as the checks read it: its text files, its test functions, the definitions.
fn repository() -> (Vec<(String, String)>, Vec<TestFn>, Definitions) {
    let base = root();
    let mut files = Vec::new();
    text_files(&base, &base, &mut files);
    let tests: Vec<TestFn> = files
        .iter()
        .filter(|(path, _)| path.ends_with(".rs"))
        .flat_map(|(path, text)| test_functions(path, text))
        .collect();
    let doc = std::fs::read_to_string(base.join(DOC)).expect("docs/requirements.md");
    let defs = definitions(&doc);
    // A scan that read nothing would pass every check.
    let counts = (files.len(), tests.len(), defs.ids.len());
    assert!(
        counts.0 > 100 && counts.1 > 300 && counts.2 > 40,
        "the scan found only (files, test functions, defined IDs) = {counts:?}"
    );
    (files, tests, defs)
}

/// Fails with every problem, one per line.
fn assert_none(problems: &[String], what: &str) {
    assert!(problems.is_empty(), "{what}:\n{}", problems.join("\n"));
}

#[test]
fn nm2_every_cited_id_and_issue_is_defined() {
    let (files, tests, defs) = repository();
    let mut problems = undefined_citations(&files, &defs);
    problems.extend(undefined_test_names(&tests, &defs));
    assert_none(&problems, "cited but not defined");
}

#[test]
fn nm2_every_definition_names_tests_that_exist_or_says_none_yet() {
    let (_, tests, defs) = repository();
    let mut problems = defs.problems.clone();
    problems.extend(missing_proofs(&defs, &tests));
    assert_none(&problems, "definitions that break the document's rules");
}

/// A prefix set for the grammar's own tests.
fn prefixes(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|p| (*p).to_owned()).collect()
}

#[test]
fn nm2_the_grammar_reads_ids_and_nothing_else() {
    let known = prefixes(&["P", "T", "R", "PR", "C", "CF", "A", "X"]);
    let cited = "CF-4, PR-7 (T-4) and A-3. CF-1…CF-6; R-5: `P-2`";
    assert_eq!(
        ids_in(cited, &known),
        ["CF-4", "PR-7", "T-4", "A-3", "CF-1", "CF-6", "R-5", "P-2"]
    );
    let lookalikes = "UTF-8 UTF-16 SHA-256 ISO-8601 RFC-9728 CVE-2024-1234 X-MCP-Toolsets \
                      X-Request-Id -32602 code -32002 P-256 MPL-2.0 R-5.1 T-0 A-01 FAT-2026-000812 \
                      FAT-1 UTC-3 AFL-2 ptr-1 X-R-1 C-3PO T-4_x";
    assert_eq!(ids_in(lookalikes, &known), Vec::<String>::new());

    assert_eq!(issues_in("(#19) and #20 item 2; ##17"), [19, 20, 17]);
    assert_eq!(
        issues_in("long #1, &#39; a#12 #123456 #0x #08 #19a"),
        Vec::<u32>::new()
    );

    assert_eq!(
        ids_in_test_name("c2_c3_c4_schema_names", &known),
        ["C-2", "C-3", "C-4"]
    );
    assert_eq!(ids_in_test_name("r3_a2_read_only", &known), ["R-3", "A-2"]);
    for plain in [
        "contract_1_items",
        "a_500_on_a_read",
        "utf8_text",
        "t123_x",
        "pr1",
    ] {
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
    assert_eq!(defs.prefixes, prefixes(&["ZZ"]));
    assert_eq!(defs.issues, BTreeSet::from([41]));
    assert_eq!(defs.ids["ZZ-3"], Vec::<String>::new());
    let rows: Vec<&str> = defs.problems.iter().map(String::as_str).collect();
    assert_eq!(
        rows,
        [
            format!("{DOC}:14: ZZ-4 names no test and does not say \"{NO_TEST}\""),
            format!("{DOC}:15: ZZ-3 is defined twice"),
            format!("{DOC}:16: QQ-1 has a prefix that is not in the prefix table"),
        ]
    );

    let source = "fn a() {}\n// ZZ-1 holds, ZZ-9 does not, nor №42; №41 is fine\n\
                  #[tokio::test]\nasync fn zz1_exists() {}\n#[test]\nfn zz7_named_after_nothing() {}\n"
        .replace('№', "#");
    let files = vec![("x.rs".to_owned(), source.clone())];
    assert_eq!(
        undefined_citations(&files, &defs),
        [
            format!("x.rs:2: cites ZZ-9, which {DOC} does not define"),
            format!("x.rs:2: cites issue #{}, not in {DOC}'s issue table", 42),
        ]
    );
    let tests = test_functions("x.rs", &source);
    assert_eq!(
        undefined_test_names(&tests, &defs),
        [format!(
            "x.rs:6: test `zz7_named_after_nothing` is named after ZZ-7, which {DOC} does not define"
        )]
    );
    assert_eq!(
        missing_proofs(&defs, &tests),
        [format!(
            "{DOC}: ZZ-2 names `zz2_is_gone`, which is no test function"
        )]
    );
}
