//! The house rules the code keeps, checked on the sources themselves: data flows one way by the
//! ranks of [`rank`] (no cycle within a rank, the tools know nothing of confirmation); no
//! source file a reader cannot keep in mind; the test command stays fast and whole (QL, RK-1).
//! What the compiler and clippy can hold (function length, `unsafe`, docs) is theirs:
//! `[workspace.lints]` in `Cargo.toml`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex_lite::Regex;

use crate::house::support::{
    assert_none, cargo_command_lines, cargo_runs_of_test_sh, circles, crate_paths,
    declared_modules, files_ending, read, root, runs_whole_area, rust_files, shared_sources,
    starts, target_sources, targets_without_a_harness, test_files, tokens,
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
    let modules = sources.iter().map(|(f, _)| f.split('/').next().unwrap());
    let unranked = modules
        .map(|m| m.trim_end_matches(".rs"))
        .filter(|m| rank(m).is_none());
    let mut wrong: Vec<String> = unranked
        .map(|m| format!("module `{m}` has no rank"))
        .collect();
    for (module, used, file) in module_arrows(&sources) {
        let (own, theirs) = (rank(&module), rank(&used));
        // Features may use each other (confirm uses catalog), never upwards; see
        // `no_cycle_between_modules_of_one_rank` for the rule that keeps that one way too.
        if theirs > own || (theirs == own && own != Some(5)) {
            wrong.push(format!("{file} (`{module}`) uses `crate::{used}`"));
        }
    }
    wrong.sort();
    wrong.dedup();
    assert_none(&wrong, "arrows against the flow");
}

#[test]
fn no_cycle_between_modules_of_one_rank() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, used, _) in module_arrows(&shared_sources()) {
        if rank(&module) == rank(&used) {
            edges.entry(module).or_default().insert(used);
        }
    }
    assert_none(&circles(&edges), "cycles between modules of one rank");
}

/// The files of `shared/src` whose module uses `used` and is one `from` accepts.
fn users_of(used: &str, from: impl Fn(&str) -> bool) -> Vec<String> {
    let arrows = module_arrows(&shared_sources());
    let users = arrows
        .into_iter()
        .filter(|(module, to, _)| to == used && from(module));
    users.map(|(_, _, file)| file).collect()
}

#[test]
fn tools_know_nothing_of_confirmation() {
    let offenders = users_of("confirm", |module| module == "catalog");
    assert_none(&offenders, "crate::confirm in catalog (use canonical)");
}

/// The token front sits under the HTTP front and imports none of it (LH-3).
#[test]
fn only_the_front_imports_the_front() {
    let offenders = users_of("http", |module| module != "lib");
    assert_none(&offenders, "import crate::http");
}

/// File → file arrows between `sources` (path under `shared/src`, text): a `super::` path, or a
/// `crate::<module>[::<module>]` path, that names another file.
fn file_arrows(sources: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let files: BTreeSet<&str> = sources.iter().map(|(f, _)| f.as_str()).collect();
    let file_of = |dir: &Path, name: &str| {
        [format!("{name}.rs"), format!("{name}/mod.rs")]
            .into_iter()
            .map(|tail| dir.join(tail).display().to_string())
            .find(|f| files.contains(f.as_str()))
    };
    let mut arrows = BTreeMap::new();
    for (file, text) in sources {
        // The module directory the file is a child of: its own, or its parent's for a `mod.rs`.
        let path = Path::new(file);
        let parent = if path.ends_with("mod.rs") {
            path.parent().and_then(Path::parent)
        } else {
            path.parent()
        };
        let parent = parent.unwrap_or(Path::new(""));
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
    let front = |file: &String| file.starts_with("http/") || file.starts_with("token_front/");
    let sources: Vec<_> = shared_sources()
        .into_iter()
        .filter(|(f, _)| front(f))
        .collect();
    assert!(sources.len() > 20, "{}", sources.len());
    let arrows = file_arrows(&sources);
    let sees = arrows["http/auth.rs"].contains("token_front/mod.rs");
    assert!(sees, "{arrows:#?}");
    assert_none(&circles(&arrows), "circles of files");
    // The circle this replaced is one the reader finds.
    let old = [
        ("http/auth.rs", "use super::metadata::metadata_url;"),
        (
            "http/metadata.rs",
            "fn f() { super::token_front::authorization_servers(); }",
        ),
        (
            "http/token_front/mod.rs",
            "fn g() { super::auth::scopes_supported(); }",
        ),
    ]
    .map(|(f, t)| (f.to_owned(), t.to_owned()));
    let arrows = file_arrows(&old);
    assert_eq!(circles(&arrows).len(), 3, "{arrows:#?}");
}

/// No source file over 800 lines (data-like corpora that say so in their first line aside), none
/// of `shared/src` over 700 (LH-3: a longer one is split by concern into files whose names say
/// what each holds), and the function binary's `main.rs` at most 150 lines.
#[test]
fn no_source_file_is_longer_than_a_reader_keeps_in_mind() {
    let files = rust_files(&root());
    assert!(files.len() > 50, "found only {} files", files.len());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("readable");
        let data_like = text
            .lines()
            .next()
            .is_some_and(|l| l.contains("Data-like corpus"));
        let most = match file.strip_prefix(root()).unwrap().to_str().unwrap() {
            "functions/mcp/src/main.rs" => 150,
            shared if shared.starts_with("shared/src/") => 700,
            _ if data_like => usize::MAX,
            _ => 800,
        };
        if text.lines().count() > most {
            long.push(format!(
                "{}: {} lines (at most {most})",
                file.display(),
                text.lines().count()
            ));
        }
    }
    assert_none(&long, "files too long (split them by concern)");
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
    let mut used: Vec<String> = arrows.into_iter().map(|(_, used, _)| used).collect();
    used.sort();
    used.dedup();
    let expected = ["access", "catalog", "confirm", "deferred", "format", "net"];
    assert_eq!(used, expected, "{used:?}");
}

/// QL-1: a file of the test binary that no `mod` declares is never compiled, its tests lost
/// without a sound.
#[test]
fn ql1_every_area_of_the_test_binary_is_declared() {
    let dir = root().join("tests/it");
    let mut missing = Vec::new();
    let main = dir.join("main.rs");
    for file in rust_files(&dir).into_iter().filter(|f| *f != main) {
        // A folder is declared by its `mod.rs`'s parent, a file by its own folder.
        let module = file
            .parent()
            .filter(|_| file.ends_with("mod.rs"))
            .unwrap_or(&file);
        let folder = module.parent().unwrap();
        let name = module.file_stem().unwrap().to_string_lossy().into_owned();
        let declaring = folder.join(if folder == dir { "main.rs" } else { "mod.rs" });
        if !declared_modules(&declaring).contains(&name) {
            missing.push(format!("{} (in {})", file.display(), declaring.display()));
        }
    }
    assert!(declared_modules(&dir.join("main.rs")).len() > 10);
    assert!(test_files().len() > 60, "{:?}", test_files());
    assert_none(&missing, "undeclared");
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
    let calls: [&[&str]; 3] = [
        &["node", "(", ")"],
        &["scenario", "("],
        &["Runner", ":", ":"],
    ];
    let mut unlisted = Vec::new();
    for (module, file) in files.iter().filter(|(m, _)| !m.starts_with("house::")) {
        let code = tokens(&std::fs::read_to_string(file).expect("readable"), false);
        // `node()`, `scenario(`, `Runner::` in code (not `TestRunner::`, not a comment).
        let drives_node = (0..code.len()).any(|at| calls.iter().any(|c| starts(&code, at, c)));
        let listed = skipped
            .iter()
            .any(|s| s.starts_with(&(module.clone() + "::")));
        if drives_node && !listed {
            unlisted.push(module.clone());
        }
    }
    // Each entry of both lists names an area, a test file or a test that exists: a moved file
    // leaves no stale filter.
    let filters_a_test = |s: &String| {
        let path = |m: &String| format!("{m}::");
        let area = |m| path(m).starts_with(s.as_str()) && s.ends_with("::");
        files
            .iter()
            .any(|(m, _)| area(m) || s.starts_with(&path(m)))
    };
    let same = script_list(&script, "SAME_UNDER_EVERY_READING");
    let entries = skipped.iter().chain(&same);
    let stale: Vec<&String> = entries.filter(|s| !filters_a_test(s)).collect();
    assert!(skipped.len() >= 5, "{skipped:?}");
    assert_none(&stale, "test.sh filters no test");
    assert_none(&unlisted, "drive Node, not in EXTERNAL_TESTS");
}

/// QL-2: `scripts/test.sh` runs cargo only in `cargo_ws`, and the gate and the quick loop, run in
/// a sandbox, hand it nothing that compiles a crate a second time.
#[test]
fn ql2_every_cargo_call_goes_through_one_wrapper_and_one_of_two_feature_sets() {
    assert_eq!(
        cargo_command_lines(&read("scripts/test.sh")),
        [r#"cargo "$sub" "${scope[@]}" "$@""#],
        "scripts/test.sh runs cargo only in `cargo_ws`"
    );
    let build_changers = " -p --package --exclude --all-features --no-default-features --target \
                          --release -r --profile --config --manifest-path -F ";
    let mut held = 0;
    for quick in [false, true] {
        for run in cargo_runs_of_test_sh(quick) {
            let flags = run.args.iter().map(String::as_str);
            let flags: Vec<&str> = flags.take_while(|a| *a != "--").collect();
            let name = |f: &&str| format!(" {} ", f.split('=').next().unwrap());
            let changes_the_build = flags
                .iter()
                .skip(1)
                .any(|f| build_changers.contains(&name(f)));
            let features = flags.iter().filter(|f| f.starts_with("--features")).count();
            let demo = flags
                .windows(2)
                .any(|w| w == ["--features", "kobana-mcp/demo"]);
            let whole = flags.get(1) == Some(&"--workspace") || flags == ["fmt", "--all"];
            let one_set = features == 0 || (features == 1 && demo);
            let once = whole && one_set && !changes_the_build && run.rustflags.is_empty();
            assert!(once, "quick={quick}: a second compile: {run:?}");
            held += 1;
        }
    }
    assert!(held >= 12, "only {held} cargo runs recorded");
    // The benchmark's debug builds, then its measured release builds; the fuzz target's own
    // workspace, flags and target directory.
    let named = r#"bench/run.sh: cargo build --workspace
bench/run.sh: cargo build --release -p kobana-mcp
bench/run.sh: cargo build --release -p hello-lambda
bench/run.sh: cargo build --release -p kobana-mcp-bench
bench/run.sh: PATH="$ROOT/.venv-sam/bin:$PATH" cargo lambda build --release --arm64 --bin kobana-mcp
scripts/fuzz.sh: RUSTFLAGS="${SANCOV_FLAGS[*]} ${RUSTFLAGS:-}" cargo build --manifest-path "$ROOT/fuzz/Cargo.toml" \"#;
    let mut scripts = files_ending(&root().join("scripts"), ".sh");
    scripts.extend([".ci/run", "bench/run.sh"].map(|path| root().join(path)));
    let mut found = Vec::new();
    for script in scripts.iter().filter(|path| !path.ends_with("test.sh")) {
        let path = script.strip_prefix(root()).unwrap().display().to_string();
        let lines = cargo_command_lines(&read(script));
        found.extend(lines.into_iter().map(|line| format!("{path}: {line}")));
    }
    found.sort();
    let mut named: Vec<&str> = named.lines().collect();
    named.sort();
    assert_eq!(found, named, "cargo commands of the scripts");
}

/// QL-2: a target that says `test = false` holds no test, which would never run.
#[test]
fn ql2_targets_without_a_test_harness_hold_no_tests() {
    let targets = targets_without_a_harness();
    let names: Vec<&str> = targets.iter().map(|(name, _)| name.as_str()).collect();
    assert!(targets.len() >= 4, "{names:?}");
    let mut holding = Vec::new();
    for (name, file) in &targets {
        for source in target_sources(file) {
            let text = std::fs::read_to_string(&source).unwrap_or_default();
            let marks = ["#[test]", "#[tokio::test", "cfg(test)"];
            if marks.iter().any(|m| text.contains(m)) {
                holding.push(format!("`{name}`: {}", source.display()));
            }
        }
    }
    assert_none(&holding, "tests in targets with `test = false` never run");
}

/// QL-5: the release build, which the test command does not run, compiles the code it tests.
#[test]
fn ql5_no_code_branches_on_the_build_profile() {
    let dirs = ["shared/src", "functions", "tests/src", "bench"];
    let files: Vec<_> = dirs
        .iter()
        .flat_map(|d| rust_files(&root().join(d)))
        .collect();
    assert!(files.len() > 50, "found only {} files", files.len());
    let branching: Vec<String> = files
        .iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).expect("readable");
            tokens(&text, false)
                .iter()
                .any(|t| t.text == "debug_assertions")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert_none(&branching, "compiled otherwise in release");
}

/// QL-5: an override of the release profile that names no package is only a cargo warning.
#[test]
fn ql5_every_release_override_names_a_package_of_the_lock_file() {
    let (manifest, lock) = (read("Cargo.toml"), read("Cargo.lock"));
    let table = Regex::new(r#"\[profile\.release\.package\."?([\w-]+)"?\]"#).unwrap();
    let overrides: Vec<&str> = table
        .captures_iter(&manifest)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(overrides.len() >= 10, "{overrides:?}");
    let unknown: Vec<&&str> = overrides
        .iter()
        .filter(|name| !lock.contains(&format!("name = \"{name}\"\n")))
        .collect();
    assert_none(&unknown, "release overrides of no package");
}

/// RK-1: `scripts/test.sh` (in a sandbox) runs the tests again under the fake's other readings;
/// in the gate that pass keeps the real-client areas, the quick loop may skip them.
#[test]
fn rk1_the_second_pass_runs_under_others_and_keeps_the_real_client_areas() {
    for quick in [false, true] {
        let runs = cargo_runs_of_test_sh(quick);
        let tests: Vec<_> = runs
            .iter()
            .filter(|run| run.args[0] == "test" && !run.args.iter().any(|a| a == "--no-run"))
            .collect();
        let default_pass = tests.iter().any(|run| run.readings.is_empty());
        assert!(default_pass, "quick={quick}: no default pass: {runs:?}");
        let others = tests.iter().filter(|run| run.readings == "others");
        let others: Vec<&Vec<String>> = others.map(|run| &run.args).collect();
        let areas = "contract::readings clients::sdks clients::sdk_flows clients::oauth_discovery \
                     token_front::browser";
        for area in areas.split_whitespace().take(if quick { 1 } else { 5 }) {
            let kept = others.iter().any(|args| runs_whole_area(args, area));
            assert!(kept, "quick={quick}: others pass drops {area}: {runs:?}");
        }
    }
}
