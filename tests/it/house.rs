//! The house rules the code keeps, checked on the sources themselves:
//!
//! - data flows one way: no module below the HTTP front imports it, the token front sits
//!   right under it (imported by it, importing none of it), and the layers under the
//!   handler — the features (`catalog`, `confirm`, `resources`, `prompts`, `completions`, and
//!   the operator's `check`), then
//!   `deferred` and `audit`, `kobana`, `telemetry` (the request record the client fills in), and the base
//!   (`access`, `body`, `canonical`, `format`, `config`, `net`, `protocol_errors`) — never import the
//!   ones above;
//! - modules of one rank never import each other in a cycle, and the tools (`catalog`) know
//!   nothing of confirmation (`confirm`);
//! - no Rust source file over 800 lines, except data-like corpora that say so in their first
//!   line; the function binary's `main.rs` at most 150 lines;
//! - the test command stays fast and whole (QL): every area of the one test binary is declared
//!   and no test of the 36 binaries it replaced is lost; every debug build of the scripts
//!   resolves one of two feature sets; a target without a test harness holds no test; the
//!   quick loop skips the areas that drive Node; its second pass runs under the fake's other
//!   readings (RK-1). The readers are in `house_support`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub(crate) use crate::house_support::root;
use crate::house_support::{
    COMPILING, cargo_calls, cargo_runs_of_test_sh, list_lines, lost_tests, runs_whole_area,
    scripts_that_run_cargo, second_compile, target_sources, targets_without_a_harness,
    tests_of_this_binary,
};

/// Every `.rs` file under `dir`, skipping build output and installed packages.
pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(
                name.as_ref(),
                "target" | "node_modules" | ".git" | ".venv" | "corpus" | "artifacts"
            ) && !name.starts_with(".venv")
            {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The module a file of `shared/src` belongs to (`http`, `server`, `catalog`, …).
fn module_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first.trim_end_matches(".rs").to_owned()
}

/// The source with comments (line, block, doc) and string, char and raw-string literals
/// blanked out, so only code is searched for paths. Line breaks are kept, so a position in it
/// is on the same line as in `text`.
pub(crate) fn code_only(text: &str) -> String {
    strip(text, false)
}

/// The source with comments blanked out (string literals in comments with them), the code's
/// own string literals kept; line breaks kept.
pub(crate) fn code_and_strings(text: &str) -> String {
    strip(text, true)
}

/// The line breaks of `skipped`, so what is blanked keeps its lines.
pub(crate) fn breaks(skipped: &str) -> String {
    "\n".repeat(skipped.matches('\n').count())
}

/// [`code_only`] or, with `keep_strings`, [`code_and_strings`].
fn strip(text: &str, keep_strings: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if let Some(comment) = rest.strip_prefix("/*") {
            let end = comment.find("*/").map_or(rest.len(), |e| e + 4);
            i += end;
            out.push(' ');
            out.push_str(&breaks(&rest[..end]));
        } else if let Some(hashes) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let open = hashes + 2;
            let end = rest[open..]
                .find(&close)
                .map_or(rest.len(), |e| open + e + close.len());
            i += end;
            literal(&mut out, &rest[..end], keep_strings);
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() {
                match rest.as_bytes()[j] {
                    b'\\' => j += 2,
                    b'"' => break,
                    _ => j += 1,
                }
            }
            let end = (j + 1).min(rest.len());
            i += end;
            literal(&mut out, &rest[..end], keep_strings);
        } else if let Some(len) = char_literal_len(rest) {
            i += len;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A string literal: kept, or blanked to `""` keeping its line breaks.
fn literal(out: &mut String, text: &str, keep: bool) {
    if keep {
        out.push_str(text);
    } else {
        out.push_str("\"\"");
        out.push_str(&breaks(text));
    }
}

/// `r"`, `r#"`, `br##"`…: the number of `#` of a raw string starting here.
fn raw_string_start(rest: &str) -> Option<usize> {
    let after = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = after.chars().take_while(|c| *c == '#').count();
    after[hashes..].starts_with('"').then_some(hashes)
}

/// The length of a char literal (`'a'`, `'\n'`, `'\u{1F600}'`) starting here; `None` for a
/// lifetime (`'a`).
fn char_literal_len(rest: &str) -> Option<usize> {
    let body = rest.strip_prefix('\'')?;
    let len = if body.starts_with('\\') {
        // The escaped character itself may be a quote (`'\''`): the literal closes after it.
        2 + body.get(2..)?.find('\'')?
    } else {
        body.chars().next()?.len_utf8()
    };
    (body[len..].starts_with('\'') && len <= 12).then_some(len + 2)
}

/// The identifier at the start of `text` (after blanks).
pub(crate) fn ident(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The first segments of every path in a `use` tree body (`{a, b::{c, d}, e as f}`): the
/// names the tree imports from where it stands.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0usize;
    let mut at_item_start = true;
    for (at, c) in group.char_indices() {
        match c {
            '{' => {
                depth += 1;
                at_item_start = depth == 1;
            }
            '}' => depth = depth.saturating_sub(1),
            ',' if depth <= 1 => at_item_start = true,
            c if at_item_start && depth == 1 && !c.is_whitespace() => {
                let name = ident(&group[at..]);
                if !name.is_empty() {
                    heads.push(name.to_owned());
                }
                at_item_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// The crate modules a source file imports or names in code: `crate::x` paths, `use crate::{…}`
/// groups at any depth of nesting, and `super::` paths that climb out of the file's own
/// top-level module. Comments (doc links included) and string literals do not count.
/// `depth` is how many modules below its top-level module the file sits (`catalog/mod.rs`: 0,
/// `catalog/lists/compact.rs`: 2, `server.rs`: 0).
fn crate_modules_used_at(text: &str, depth: usize) -> Vec<String> {
    let code = code_only(text);
    let text = code.as_str();
    let mut used = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `$crate::`, `mycrate::`
        }
        let rest = text[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let close = matching_brace(group);
            used.extend(group_heads(&format!("{{{}}}", &group[..close])));
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                used.push(name.to_owned());
            }
        }
    }
    // `super::super::x` from a file `depth` levels down names the top-level module `x`.
    let climb = "super::".repeat(depth + 1);
    for (at, _) in text.match_indices(&climb) {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = text[at + climb.len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let close = matching_brace(group);
            used.extend(group_heads(&format!("{{{}}}", &group[..close])));
        } else {
            let name = ident(rest);
            if !name.is_empty() && name != "super" {
                used.push(name.to_owned());
            }
        }
    }
    used
}

/// The index of the `}` closing a group whose `{` was just before `text`.
pub(crate) fn matching_brace(text: &str) -> usize {
    let mut depth = 1usize;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return at;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// [`crate_modules_used_at`] for a file at the top of its module.
fn crate_modules_used(text: &str) -> Vec<String> {
    crate_modules_used_at(text, 0)
}

/// How many modules below its top-level module a file of `shared/src` sits.
fn depth_of(relative: &Path) -> usize {
    let parts = relative.components().count();
    let is_mod = relative.file_name().is_some_and(|n| n == "mod.rs");
    parts.saturating_sub(if is_mod { 2 } else { 1 })
}

/// Every arrow `module → module it uses` between top-level modules of `shared/src`, with the
/// file that draws it.
fn module_arrows() -> Vec<(String, String, String)> {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut arrows = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let module = module_of(relative);
        let text = std::fs::read_to_string(file).expect("readable");
        for used in crate_modules_used_at(&text, depth_of(relative)) {
            if used != module && rank(&used).is_some() {
                arrows.push((module.clone(), used, relative.display().to_string()));
            }
        }
    }
    arrows
}

/// How high a module sits: a module may only use modules of a lower rank (or its own).
fn rank(module: &str) -> Option<u8> {
    Some(match module {
        "lib" => 9,
        "http" => 8,
        // The token front: a front module of its own, which the HTTP front routes to and
        // opens access tokens with, and which imports nothing of it (LH-3).
        "token_front" => 7,
        "server" => 6,
        "catalog" | "confirm" | "resources" | "prompts" | "completions" | "check" | "views" => 5,
        "deferred" | "audit" => 4,
        "kobana" => 3,
        "telemetry" => 2,
        "access" | "body" | "canonical" | "format" | "config" | "net" | "protocol_errors" => 1,
        _ => return None,
    })
}

#[test]
fn modules_depend_one_way_front_server_features_base() {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong: Vec<String> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(&src).expect("under src")))
        .filter(|m| rank(m).is_none())
        .map(|m| format!("module `{m}` has no rank"))
        .collect();
    for (module, used, file) in module_arrows() {
        let (Some(own), Some(theirs)) = (rank(&module), rank(&used)) else {
            continue;
        };
        // Features may use each other (confirm uses catalog), never upwards; see
        // `no_cycle_between_modules_of_one_rank` for the rule that keeps that one way too.
        if theirs > own || (theirs == own && own != 5) {
            wrong.push(format!("{file} (`{module}`) uses `crate::{used}`"));
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "arrows against the flow:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_cycle_between_modules_of_one_rank() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, used, _) in module_arrows() {
        if rank(&module) == rank(&used) {
            edges.entry(module).or_default().insert(used);
        }
    }
    // A module reaches itself through same-rank arrows: a cycle.
    let mut cycles = Vec::new();
    for start in edges.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<(String, Vec<String>)> = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for next in edges.get(&at).into_iter().flatten() {
                if next == start {
                    cycles.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push((next.clone(), longer));
                }
            }
        }
    }
    assert!(
        cycles.is_empty(),
        "cycles between modules of one rank:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn tools_know_nothing_of_confirmation() {
    let offenders: Vec<String> = module_arrows()
        .into_iter()
        .filter(|(module, used, _)| module == "catalog" && used == "confirm")
        .map(|(_, _, file)| file)
        .collect();
    assert!(
        offenders.is_empty(),
        "catalog imports crate::confirm in: {offenders:?} (shared forms go in crate::canonical)"
    );
}

#[test]
fn only_the_front_imports_the_front() {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| {
            let relative = f.strip_prefix(&src).expect("under src");
            !(relative.starts_with("http") || relative == Path::new("lib.rs"))
        })
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            let relative = f.strip_prefix(&src).expect("under src");
            crate_modules_used_at(&text, depth_of(relative))
                .iter()
                .any(|m| m == "http")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "import crate::http: {offenders:?}");
}

#[test]
fn no_source_file_is_longer_than_a_reader_keeps_in_mind() {
    let mut files = Vec::new();
    rust_files(&root(), &mut files);
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let lines = text.lines().count();
        let data_like = text
            .lines()
            .next()
            .is_some_and(|first| first.contains("Data-like corpus"));
        if lines > 800 && !data_like {
            long.push(format!("{}: {lines} lines", file.display()));
        }
    }
    assert!(long.is_empty(), "over 800 lines:\n{}", long.join("\n"));
    let main = std::fs::read_to_string(root().join("functions/mcp/src/main.rs")).expect("main.rs");
    let lines = main.lines().count();
    assert!(
        lines <= 150,
        "functions/mcp/src/main.rs has {lines} lines (at most 150)"
    );
}

#[test]
fn the_import_reader_sees_plain_and_grouped_imports() {
    let used = crate_modules_used("use crate::{catalog::X, http};\nlet a = crate::server::f();");
    for module in ["catalog", "http", "server"] {
        assert!(used.iter().any(|u| u == module), "{module}: {used:?}");
    }
}

#[test]
fn the_import_reader_sees_nested_groups_and_climbing_paths_but_not_comments_or_strings() {
    let text = r###"
use crate::{
    access::{Principal, Visibility},
    catalog::{self, ToolCtx},
    format,
};
use super::super::confirm::question;
use super::rows; // a sibling inside the same module
// use crate::http::Fake;
/* crate::server in a block comment */
let s = "crate::kobana in a string";
let r = r##"crate::telemetry in a raw string"##;
let c = '{';
fn f<'a>(x: &'a str) -> &'a str { crate::deferred::g(x) }
"###;
    let mut used = crate_modules_used_at(text, 1);
    used.sort();
    used.dedup();
    assert_eq!(
        used,
        ["access", "catalog", "confirm", "deferred", "format"],
        "{used:?}"
    );
}

/// QL-1: in one test binary an area whose file `tests/it/main.rs` does not declare is never
/// compiled, and its tests are lost without a sound; every file and folder there is declared.
#[test]
fn ql1_every_area_of_the_test_binary_is_declared() {
    let dir = root().join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).expect("tests/it/main.rs");
    let declared: Vec<String> = main
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod "))
        .map(|rest| rest.trim_end_matches(';').to_owned())
        .collect();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/it").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let module = match name.strip_suffix(".rs") {
            Some("main") => continue,
            Some(module) => module.to_owned(),
            None if entry.path().is_dir() => name,
            None => continue,
        };
        if !declared.contains(&module) {
            missing.push(module);
        }
    }
    assert!(declared.len() > 40, "{declared:?}");
    assert!(
        missing.is_empty(),
        "not declared in tests/it/main.rs: {missing:?}"
    );
}

/// QL-3: the quick loop (`scripts/test.sh --quick`) installs no Node and skips the areas that
/// drive programs from outside the project; every area that starts Node (directly or through
/// a real-client scenario) is named in its `EXTERNAL_TESTS` list, whole or by test.
#[test]
fn ql3_the_quick_loop_skips_every_area_that_drives_node() {
    let script = std::fs::read_to_string(root().join("scripts/test.sh")).expect("test.sh");
    let list = script
        .split_once("EXTERNAL_TESTS=(")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list.to_owned())
        .expect("EXTERNAL_TESTS in scripts/test.sh");
    let skipped: Vec<&str> = list.split_whitespace().collect();
    let dir = root().join("tests/it");
    let mut unlisted = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("tests/it").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(area) = name.strip_suffix(".rs").filter(|a| *a != "house") else {
            continue;
        };
        let code = code_only(&std::fs::read_to_string(entry.path()).expect("readable"));
        // `node()`, `scenario(`, `Runner::` standing alone (not `TestRunner::`).
        let drives_node = ["node()", "scenario(", "Runner::"].iter().any(|call| {
            code.match_indices(call).any(|(at, _)| {
                !code[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        });
        let prefix = format!("{area}::");
        if drives_node && !skipped.iter().any(|s| s.starts_with(&prefix)) {
            unlisted.push(area.to_owned());
        }
    }
    assert!(skipped.len() >= 5, "{skipped:?}");
    assert!(
        unlisted.is_empty(),
        "areas that drive Node but are missing from EXTERNAL_TESTS in scripts/test.sh: {unlisted:?}"
    );
}

/// QL-1: every test of the 36 binaries the one binary replaced is still a test of it, under
/// its own name or under the name recorded beside the list, with the commit and the reason.
#[test]
fn ql1_no_test_of_the_split_binaries_is_lost() {
    let before = list_lines("names-before-one-binary.txt");
    let renamed = list_lines("names-renamed-since-one-binary.txt");
    let tests = tests_of_this_binary();
    assert_eq!(before.len(), 270, "the list of before was cut");
    assert!(tests.len() >= before.len(), "{} tests listed", tests.len());
    let problems = lost_tests(&before, &renamed, &tests);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn ql1_the_lost_test_check_names_a_lost_test_and_every_bad_rename() {
    let names = |list: &[&str]| -> Vec<String> { list.iter().map(|s| (*s).to_owned()).collect() };
    let before = names(&["a::kept", "a::gone", "a::renamed", "b::renamed_to_nothing"]);
    let tests: BTreeSet<String> = names(&["a::kept", "a::new_name", "b::other"])
        .into_iter()
        .collect();
    let renamed = names(&[
        "a::renamed -> a::new_name | 1234abc | clearer",
        "b::renamed_to_nothing -> b::missing | 1234abc | clearer",
        "c::never_listed -> b::other | 1234abc | clearer",
        "a::kept -> b::other | not-a-commit | clearer",
        "a::kept => b::other",
    ]);
    assert_eq!(
        lost_tests(&before, &renamed, &tests),
        [
            "`b::renamed_to_nothing` was renamed `b::missing`, which is no test",
            "renamed `c::never_listed` is not in the list of before",
            "not `old -> new | commit | why` (commit in hex): a::kept -> b::other | not-a-commit | clearer",
            "not `old -> new | commit | why` (commit in hex): a::kept => b::other",
            "`a::gone` is lost: no such test, and no rename recorded",
        ]
    );
}

/// QL-2: every debug build, check and test of the workspace in the scripts resolves one of two
/// feature sets (with the demo feature or without) over the whole workspace, with the same
/// flags: no command brings back a second compile of the same crates.
#[test]
fn ql2_every_cargo_build_of_the_scripts_resolves_one_of_the_two_feature_sets() {
    let mut held = 0;
    let mut wrong = Vec::new();
    for (path, text) in scripts_that_run_cargo() {
        for call in cargo_calls(&path, &text) {
            let compiles = call
                .args
                .first()
                .is_some_and(|s| COMPILING.contains(&s.as_str()));
            match second_compile(&call) {
                Some(why) => wrong.push(why),
                None if compiles && path == "scripts/test.sh" => held += 1,
                None => {}
            }
        }
    }
    // fmt aside, test.sh builds, checks and tests: a reader that found fewer would prove nothing.
    assert!(
        held >= 7,
        "only {held} cargo builds found in scripts/test.sh"
    );
    assert!(wrong.is_empty(), "second compiles:\n{}", wrong.join("\n"));
}

#[test]
fn ql2_the_script_reader_finds_commands_not_words_and_names_each_second_compile() {
    let script = r#"# cargo build -p x in a comment
stage "cargo build -p x in a string"
cargo build --workspace --features kobana-mcp/demo
if ! cargo test --workspace --no-run; then echo "no (cargo test -p y)"; fi
KOBANA_X=1 cargo test --workspace --test it \
  --no-fail-fast "${ARGS[@]}" -- --skip 'a b' >"$LOG" 2>&1
out="$(cargo clippy -p kobana-mcp-shared)"
RUSTFLAGS=-Cfoo cargo build --workspace && cargo run -q -p kobana-mcp-tests --bin contract-report
cargo build --workspace --features kobana-mcp/demo,other
cargo build --release -p kobana-mcp; cargo fmt --all
RUSTFLAGS="--cfg fuzzing" cargo build --manifest-path "$ROOT/fuzz/Cargo.toml" --target x
"#;
    let calls = cargo_calls("s.sh", script);
    let lines: Vec<&str> = calls.iter().map(|c| c.at.as_str()).collect();
    assert_eq!(
        lines,
        [
            "s.sh:3", "s.sh:4", "s.sh:5", "s.sh:7", "s.sh:8", "s.sh:8", "s.sh:9", "s.sh:10",
            "s.sh:10", "s.sh:11"
        ]
    );
    assert_eq!(calls[2].env, ["KOBANA_X=1"]);
    assert_eq!(
        calls[2].args,
        [
            "test",
            "--workspace",
            "--test",
            "it",
            "--no-fail-fast",
            "${ARGS[@]}",
            "--",
            "--skip",
            "a b"
        ]
    );
    let wrong: Vec<String> = calls.iter().filter_map(second_compile).collect();
    assert_eq!(
        wrong,
        [
            "s.sh:7: cargo clippy -p kobana-mcp-shared: `-p`, no `--workspace`",
            "s.sh:8: cargo build --workspace: `RUSTFLAGS` set",
            "s.sh:8: cargo run -q -p kobana-mcp-tests --bin contract-report: `-p`, no `--workspace`",
            "s.sh:9: cargo build --workspace --features kobana-mcp/demo,other: features [\"kobana-mcp/demo\", \"other\"]",
        ]
    );
}

/// QL-2: a target that says `test = false` (no test harness compiled or linked for it by
/// `cargo test --workspace`) holds no test, which would otherwise never run.
#[test]
fn ql2_targets_without_a_test_harness_hold_no_tests() {
    let targets = targets_without_a_harness();
    let names: Vec<&str> = targets.iter().map(|(_, name, _)| name.as_str()).collect();
    assert!(targets.len() >= 4, "{names:?}");
    let mut holding = Vec::new();
    for (manifest, name, file) in &targets {
        for source in target_sources(file) {
            let text = std::fs::read_to_string(&source)
                .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
            if ["#[test]", "#[tokio::test", "cfg(test)"]
                .iter()
                .any(|m| text.contains(m))
            {
                holding.push(format!("{manifest} `{name}`: {}", source.display()));
            }
        }
    }
    assert!(
        holding.is_empty(),
        "tests in targets with `test = false` never run:\n{}",
        holding.join("\n")
    );
}

/// QL-5: the test command builds no release binary (fat LTO over one codegen unit takes
/// minutes): the release build compiles the code the debug builds test, for no code branches on
/// the profile (`debug_assertions`, which release builds turn off).
#[test]
fn ql5_no_code_branches_on_the_build_profile() {
    let mut files = Vec::new();
    for dir in ["shared/src", "functions", "tests/src", "bench"] {
        rust_files(&root().join(dir), &mut files);
    }
    assert!(files.len() > 50, "found only {} files", files.len());
    let branching: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            code_only(&text).contains("debug_assertions")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        branching.is_empty(),
        "code that a release build compiles differently, untested by the gate: {branching:?}"
    );
}

/// QL-5: a per-package override of the release profile that names no package of the build is
/// only a cargo warning, and what it serves (the artifact's size) only the release build shows,
/// which the test command does not run: each one names a package of `Cargo.lock`.
#[test]
fn ql5_every_release_override_names_a_package_of_the_lock_file() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).expect("Cargo.lock");
    let overrides: Vec<&str> = manifest
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("[profile.release.package.")?
                .strip_suffix(']')
        })
        .map(|name| name.trim_matches('"'))
        .filter(|name| *name != "*")
        .collect();
    assert!(overrides.len() >= 10, "{overrides:?}");
    let unknown: Vec<&str> = overrides
        .into_iter()
        .filter(|name| !lock.contains(&format!("name = \"{name}\"\n")))
        .collect();
    assert!(
        unknown.is_empty(),
        "release overrides of no package: {unknown:?}"
    );
}

/// RK-1: `scripts/test.sh` runs the integration tests a second time with the fake under
/// Kobana's other readings (`KOBANA_FAKE_READINGS=others`), and in the full gate that pass
/// keeps every area that reaches Kobana through a real client. The script runs in a sandbox
/// whose `cargo` records what it was asked; the quick loop may skip more, never the `others`
/// pass itself.
#[test]
fn rk1_the_second_pass_runs_under_others_and_keeps_the_real_client_areas() {
    let is_test_run = |args: &[String]| {
        args.first().is_some_and(|a| a == "test") && !args.iter().any(|a| a == "--no-run")
    };
    for quick in [false, true] {
        let runs = cargo_runs_of_test_sh(quick);
        let tests: Vec<&(String, Vec<String>)> =
            runs.iter().filter(|(_, args)| is_test_run(args)).collect();
        assert!(
            tests.iter().any(|(readings, _)| readings.is_empty()),
            "quick={quick}: no test pass under the default readings: {runs:?}"
        );
        let others: Vec<&Vec<String>> = tests
            .iter()
            .filter(|(readings, _)| readings == "others")
            .map(|(_, args)| args)
            .collect();
        assert!(
            others
                .iter()
                .any(|args| runs_whole_area(args, "readings_server")),
            "quick={quick}: no `cargo test` of tests/it under KOBANA_FAKE_READINGS=others: {runs:?}"
        );
        if quick {
            continue;
        }
        for area in [
            "real_clients",
            "real_client_flows",
            "oauth_discovery",
            "token_front_browser",
        ] {
            assert!(
                others.iter().any(|args| runs_whole_area(args, area)),
                "the gate's others pass leaves out {area}::: {others:?}"
            );
        }
    }
}
