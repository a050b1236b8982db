//! The house rules the code keeps, checked on the sources themselves: data flows one way by the
//! ranks of [`rank`] (no cycle within a rank, the tools know nothing of confirmation); no
//! source file a reader cannot keep in mind; the test command stays fast and whole (QL, RK-1).
//! What the compiler and clippy can hold (function length, `unsafe`, docs) is theirs:
//! `[workspace.lints]` in `Cargo.toml`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex_lite::Regex;

use crate::house::support::{
    CargoRun, Token, assert_none, cargo_runs_of_test_sh, circles, crate_paths, read, root,
    runs_whole_area, rust_files, shared_sources, starts, target_sources, targets_without_a_harness,
    test_files, tokens,
};

/// Every arrow `module → ranked module it uses` between top-level modules of `shared/src`
/// (`crate::x` paths, and `super::` paths that climb out of the file's own top-level module),
/// with the file that draws it.
fn module_arrows(sources: &[(String, String)]) -> Vec<(String, String, String)> {
    let mut arrows = Vec::new();
    for (file, text) in sources {
        let parts: Vec<&str> = file.split('/').collect();
        let module = parts[0].trim_end_matches(".rs");
        // How many modules below its top-level module the file sits.
        let depth = parts.len() - if file.ends_with("/mod.rs") { 2 } else { 1 };
        for (climb, path) in crate_paths(text) {
            let used = path[0].as_str();
            if (climb == 0 || climb == depth + 1) && used != module && rank(used).is_some() {
                arrows.push((module.to_owned(), used.to_owned(), file.clone()));
            }
        }
    }
    arrows
}

/// How high a module sits: a module may only use modules of a lower rank (features: or its own).
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
    let sources = shared_sources();
    let modules = sources.iter().map(|(f, _)| f.split(['/', '.']));
    let unranked = modules.filter_map(|mut m| m.next().filter(|m| rank(m).is_none()));
    let mut wrong: BTreeSet<String> = unranked.map(|m| format!("`{m}` has no rank")).collect();
    for (module, used, file) in module_arrows(&sources) {
        let (own, theirs) = (rank(&module), rank(&used));
        // Features may use each other (confirm uses catalog), never upwards; see
        // `no_cycle_between_modules_of_one_rank` for the rule that keeps that one way too.
        if theirs > own || (theirs == own && own != Some(5)) {
            wrong.insert(format!("{file} (`{module}`) uses `crate::{used}`"));
        }
    }
    assert_none(wrong, "arrows against the flow");
}

#[test]
fn no_cycle_between_modules_of_one_rank() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, used, _) in module_arrows(&shared_sources()) {
        if rank(&module) == rank(&used) {
            edges.entry(module).or_default().insert(used);
        }
    }
    assert_none(circles(&edges), "cycles between modules of one rank");
}

#[test]
fn tools_know_nothing_of_confirmation() {
    let arrows = module_arrows(&shared_sources()).into_iter();
    let offenders = arrows.filter(|(module, used, _)| module == "catalog" && used == "confirm");
    let offenders = offenders.map(|(_, _, file)| file);
    assert_none(offenders, "crate::confirm in catalog (use canonical)");
}

/// File → file arrows between `sources` (path under `shared/src`, text): a `super::` path, or a
/// `crate::<module>[::<module>]` path, that names another file.
fn file_arrows(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeSet<&str> = sources.iter().map(|(f, _)| f.as_str()).collect();
    let file_of = |dir: &Path, name: &str| {
        let tails = [format!("{name}.rs"), format!("{name}/mod.rs")].into_iter();
        let paths = tails.map(|tail| dir.join(tail).display().to_string());
        paths.into_iter().find(|f| files.contains(f.as_str()))
    };
    let mut arrows = BTreeMap::new();
    for (file, text) in sources {
        // The module directory the file is a child of: its own, or its parent's for a `mod.rs`.
        let parent = Path::new(file).parent().unwrap();
        let parent = parent.parent().filter(|_| file.ends_with("mod.rs"));
        let parent = parent.unwrap_or(Path::new(file).parent().unwrap());
        let mut targets = BTreeSet::new();
        for (climb, segments) in crate_paths(text) {
            let first = &segments[0];
            targets.extend(if climb == 0 {
                let deeper = segments.get(1).and_then(|s| file_of(Path::new(first), s));
                deeper.or_else(|| file_of(Path::new(""), first))
            } else {
                let dir = parent.ancestors().nth(climb - 1);
                dir.and_then(|dir| file_of(dir, first))
            });
        }
        targets.remove(file);
        arrows.insert(file.clone(), targets);
    }
    arrows
}

/// LH-3: the front's files import each other without a circle (they once did, over
/// `scopes_supported`: `http/auth.rs` → `http/metadata.rs` → `http/token_front/mod.rs`).
#[test]
fn lh3_the_front_files_import_each_other_without_a_circle() {
    let front = |(f, _): &(String, String)| f.starts_with("http/") || f.starts_with("token_front/");
    let sources: Vec<_> = shared_sources().into_iter().filter(front).collect();
    let arrows = file_arrows(&sources);
    let sees = arrows["http/auth.rs"].contains("token_front/mod.rs");
    assert!(sees, "{arrows:#?}");
    assert_none(circles(&arrows), "circles of files");
    // The circle this replaced is one the reader finds.
    let old = [
        ("http/auth.rs", "use super::metadata::url;"),
        ("http/metadata.rs", "fn f() { super::token_front::a(); }"),
        ("http/token_front/mod.rs", "fn g() { super::auth::b(); }"),
    ];
    let arrows = file_arrows(&old.map(|(f, t)| (f.to_owned(), t.to_owned())));
    assert_eq!(circles(&arrows).len(), 3, "{arrows:#?}");
}

/// No source file over 800 lines (data-like corpora that say so in their first line aside), none
/// of `shared/src` over 700 (LH-3: a longer one is split by concern into files whose names say
/// what each holds), and the function binary's `main.rs` at most 150 lines.
#[test]
fn no_source_file_is_longer_than_a_reader_keeps_in_mind() {
    let mut long = Vec::new();
    for file in rust_files(&root()) {
        let text = std::fs::read_to_string(&file).expect("readable");
        let lines = text.lines().count();
        let most = match file.strip_prefix(root()).unwrap().to_str().unwrap() {
            "functions/mcp/src/main.rs" => 150,
            shared if shared.starts_with("shared/src/") => 700,
            _ if text.starts_with("//! Data-like corpus") => usize::MAX,
            _ => 800,
        };
        let file = file.display();
        long.extend((lines > most).then(|| format!("{file}: {lines} lines (at most {most})")));
    }
    assert_none(long, "files too long (split them by concern)");
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
let n: super::super::net::Addr = $crate::server::x();
"###;
    let arrows = module_arrows(&[("views/lists.rs".to_owned(), text.to_owned())]);
    let used: BTreeSet<String> = arrows.into_iter().map(|(_, used, _)| used).collect();
    let expected = ["access", "catalog", "confirm", "deferred", "format", "net"];
    assert_eq!(used, expected.map(str::to_owned).into(), "{used:?}");
}

/// QL-1: a file of the test binary that no `mod` reaches from `main.rs` is never compiled, its
/// tests lost without a sound.
#[test]
fn ql1_every_area_of_the_test_binary_is_declared() {
    let dir = root().join("tests/it");
    let declared = target_sources(&dir.join("main.rs"));
    assert!(declared.len() > 60, "{declared:?}");
    let missing = rust_files(&dir)
        .into_iter()
        .filter(|f| !declared.contains(f));
    assert_none(missing.map(|f| f.display().to_string()), "undeclared");
}

/// The words of the bash array `name` of `scripts/test.sh`.
fn script_list(script: &str, name: &str) -> Vec<String> {
    let (_, rest) = script.split_once(&format!("{name}=(")).expect(name);
    let list = rest.split_once(')').expect(name).0;
    list.split_whitespace().map(str::to_owned).collect()
}

/// QL-3: the quick loop installs no Node: every test file that starts it (directly or through a
/// real-client scenario) is in `EXTERNAL_TESTS` by its module path, whole or by test.
#[test]
fn ql3_the_quick_loop_skips_every_area_that_drives_node() {
    let script = read("scripts/test.sh");
    let skipped = script_list(&script, "EXTERNAL_TESTS");
    let files = test_files();
    // `node()`, `scenario(`, `Runner::` in code (not `TestRunner::`, not a comment).
    let calls: [&[&str]; 3] = [
        &["node", "(", ")"],
        &["scenario", "("],
        &["Runner", ":", ":"],
    ];
    let mut unlisted = Vec::new();
    for (module, file) in files.iter().filter(|(m, _)| !m.starts_with("house::")) {
        let code = tokens(&std::fs::read_to_string(file).expect("readable"), false);
        let drives_node = (0..code.len()).any(|at| calls.iter().any(|c| starts(&code, at, c)));
        let area = format!("{module}::");
        let listed = skipped.iter().any(|s| s.starts_with(&area));
        unlisted.extend((drives_node && !listed).then_some(module));
    }
    // Each entry of both lists names an area, a test file or a test that exists: a moved file
    // leaves no stale filter.
    let filters_a_test = |s: &&String| {
        let area = |m: &str| format!("{m}::").starts_with(s.as_str()) && s.ends_with("::");
        let test = |m: &str| s.starts_with(&format!("{m}::"));
        files.iter().any(|(m, _)| area(m) || test(m))
    };
    let same = script_list(&script, "SAME_UNDER_EVERY_READING");
    let stale = skipped.iter().chain(&same).filter(|s| !filters_a_test(s));
    assert_none(stale, "test.sh filters no test");
    assert!(skipped.len() >= 5, "{skipped:?}");
    assert_none(unlisted, "drive Node, not in EXTERNAL_TESTS");
}

/// QL-2: `scripts/test.sh` runs cargo only in `cargo_ws` (a line starts a cargo command: `cargo`
/// after `;`, `&`, `|`, `(`, variable assignments or nothing; quotes and comments blanked),
/// and the gate and the quick loop, run in a sandbox, hand it nothing that compiles a crate a
/// second time. The other scripts' cargo commands are theirs (the benchmark's release builds,
/// the fuzz workspace).
#[test]
fn ql2_every_cargo_call_goes_through_one_wrapper_and_one_of_two_feature_sets() {
    let blanked = Regex::new(r#""[^"]*"|'[^']*'|(?:^|\s)#.*"#).unwrap();
    let command = Regex::new(r"(?:^|[;&|(])[ \t]*(?:[A-Z_]+=\S*[ \t]+)*cargo[ \t]").unwrap();
    let script = read("scripts/test.sh");
    let lines = script.lines().map(str::trim);
    let is_call = |l: &&str| command.is_match(&blanked.replace_all(l, "''"));
    let calls: Vec<&str> = lines.filter(is_call).collect();
    let wrapper = r#"cargo "$sub" "${scope[@]}" "$@""#;
    assert_eq!(calls, [wrapper], "cargo outside `cargo_ws`");
    // Beside `--workspace` and at most one `--features kobana-mcp/demo`, no flag before `--`
    // that changes what is compiled.
    let build_changers = " -p --package --exclude --all-features --no-default-features --target \
                          --release -r --profile --config --manifest-path -F --features ";
    let mut held = 0;
    for quick in [false, true] {
        for run in cargo_runs_of_test_sh(quick) {
            let flags = run.args.iter().take_while(|a| *a != "--");
            let line = format!("{} ", flags.cloned().collect::<Vec<_>>().join(" "));
            let line = line.replacen(" --features kobana-mcp/demo ", " ", 1);
            let flags: Vec<&str> = line.split_whitespace().collect();
            let name = |f: &&str| format!(" {} ", f.split('=').next().unwrap());
            let changes_the_build = flags[1..].iter().any(|f| build_changers.contains(&name(f)));
            let whole = flags.get(1) == Some(&"--workspace") || flags == ["fmt", "--all"];
            let once = whole && !changes_the_build && run.rustflags.is_empty();
            assert!(once, "quick={quick}: a second compile: {run:?}");
            held += 1;
        }
    }
    assert!(held >= 12, "only {held} cargo runs recorded");
}

/// QL-2: a target that says `test = false` holds no test, which would never run.
#[test]
fn ql2_targets_without_a_test_harness_hold_no_tests() {
    let targets = targets_without_a_harness();
    assert!(targets.len() >= 4, "{targets:?}");
    let mut holding = Vec::new();
    for (name, file) in &targets {
        for source in target_sources(file) {
            let text = read(&source);
            let marks = ["#[test]", "#[tokio::test", "cfg(test)"];
            if marks.iter().any(|m| text.contains(m)) {
                holding.push(format!("`{name}`: {}", source.display()));
            }
        }
    }
    assert_none(holding, "tests in targets with `test = false` never run");
}

/// QL-5: the release build, which the test command does not run, compiles the code it tests.
/// (A release override that names no package: cargo's own warning.)
#[test]
fn ql5_no_code_branches_on_the_build_profile() {
    let dirs = ["shared/src", "functions", "tests/src", "bench"];
    let files = dirs.map(|d| rust_files(&root().join(d))).concat();
    assert!(files.len() > 50, "found only {} files", files.len());
    let flag = |t: &Token| t.text == "debug_assertions";
    let branches = |f: &&PathBuf| tokens(&read(f), false).iter().any(flag);
    let branching = files.iter().filter(branches).map(|f| f.display());
    assert_none(branching, "compiled otherwise in release");
}

/// RK-1: `scripts/test.sh` (in a sandbox) runs the tests again under the fake's other readings;
/// in the gate that pass keeps the real-client areas, the quick loop may skip them.
#[test]
fn rk1_the_second_pass_runs_under_others_and_keeps_the_real_client_areas() {
    for quick in [false, true] {
        let runs = cargo_runs_of_test_sh(quick);
        let run = |r: &&CargoRun| r.args[0] == "test" && !r.args.contains(&"--no-run".into());
        let tests: Vec<_> = runs.iter().filter(run).collect();
        let default_pass = tests.iter().any(|r| r.readings.is_empty());
        assert!(default_pass, "quick={quick}: no default pass: {runs:?}");
        let others: Vec<_> = tests.iter().filter(|r| r.readings == "others").collect();
        let areas = "contract::readings clients::sdks clients::sdk_flows clients::oauth_discovery \
                     token_front::browser";
        for area in areas.split_whitespace().take(if quick { 1 } else { 5 }) {
            let kept = others.iter().any(|r| runs_whole_area(&r.args, area));
            assert!(kept, "quick={quick}: others pass drops {area}: {runs:?}");
        }
    }
}
