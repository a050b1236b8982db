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
//! - the test command stays fast and whole (QL): every area of the one test binary is declared;
//!   every cargo command of `scripts/test.sh` goes through its one wrapper and resolves one of
//!   two feature sets; a target without a test harness holds no test; the quick loop skips the
//!   areas that drive Node; its second pass runs under the fake's other readings (RK-1).
//!
//! What the compiler and clippy can hold (function length, `unsafe`, docs) is theirs:
//! `[workspace.lints]` in `Cargo.toml`. The readers are in `crate::house::support`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::house::support::{
    cargo_command_lines, cargo_runs_of_test_sh, crate_modules_used_at, declared_modules,
    files_with_token, runs_whole_area, starts, target_sources, targets_without_a_harness,
    test_files, tokens,
};
pub(crate) use crate::house::support::{root, rust_files};

/// The module a file of `shared/src` belongs to (`http`, `server`, `catalog`, …).
fn module_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    first.trim_end_matches(".rs").to_owned()
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
    let mut used = crate_modules_used_at(text, 1);
    used.sort();
    used.dedup();
    assert_eq!(
        used,
        ["access", "catalog", "confirm", "deferred", "format", "net"],
        "{used:?}"
    );
}

/// QL-1: in one test binary a file that no `mod` declares is never compiled, and its tests are
/// lost without a sound: every file and folder under `tests/it` is declared by its folder's
/// `mod.rs` (`main.rs` at the top).
#[test]
fn ql1_every_area_of_the_test_binary_is_declared() {
    fn undeclared(dir: &Path, mod_file: &str, out: &mut Vec<String>) {
        let declared = declared_modules(&dir.join(mod_file));
        for entry in std::fs::read_dir(dir)
            .expect("a folder of tests/it")
            .flatten()
        {
            let (path, name) = (
                entry.path(),
                entry.file_name().to_string_lossy().into_owned(),
            );
            let module = if path.is_dir() {
                if !path.join("mod.rs").exists() {
                    out.push(format!("{}: no mod.rs", path.display()));
                }
                undeclared(&path, "mod.rs", out);
                name
            } else {
                match name.strip_suffix(".rs") {
                    Some(module) if name != mod_file => module.to_owned(),
                    _ => continue,
                }
            };
            if !declared.contains(&module) {
                out.push(format!(
                    "{}: not declared in its {mod_file}",
                    path.display()
                ));
            }
        }
    }
    let dir = root().join("tests/it");
    let mut missing = Vec::new();
    undeclared(&dir, "main.rs", &mut missing);
    assert!(declared_modules(&dir.join("main.rs")).len() > 10);
    assert!(test_files().len() > 60, "{:?}", test_files());
    assert!(missing.is_empty(), "{missing:#?}");
}

/// QL-3: the quick loop (`scripts/test.sh --quick`) installs no Node and skips the areas that
/// drive programs from outside the project; every test file that starts Node (directly or
/// through a real-client scenario) is named in its `EXTERNAL_TESTS` list by its module path
/// (`clients::sdks::`), whole or by test.
#[test]
fn ql3_the_quick_loop_skips_every_area_that_drives_node() {
    let script = std::fs::read_to_string(root().join("scripts/test.sh")).expect("test.sh");
    let list = script
        .split_once("EXTERNAL_TESTS=(")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list.to_owned())
        .expect("EXTERNAL_TESTS in scripts/test.sh");
    let skipped: Vec<&str> = list.split_whitespace().collect();
    let same = script
        .split_once("SAME_UNDER_EVERY_READING=(")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(list, _)| list.to_owned())
        .expect("SAME_UNDER_EVERY_READING in scripts/test.sh");
    let mut unlisted = Vec::new();
    let files = test_files();
    for (module, file) in files.iter().filter(|(m, _)| !m.starts_with("house::")) {
        let code = tokens(&std::fs::read_to_string(file).expect("readable"), false);
        // `node()`, `scenario(`, `Runner::` in code (not `TestRunner::`, not a comment).
        let drives_node = (0..code.len()).any(|at| {
            [
                &["node", "(", ")"][..],
                &["scenario", "("],
                &["Runner", ":", ":"],
            ]
            .iter()
            .any(|call| starts(&code, at, call))
        });
        let prefix = format!("{module}::");
        if drives_node && !skipped.iter().any(|s| s.starts_with(&prefix)) {
            unlisted.push(module.clone());
        }
    }
    // Each entry of both lists names an area, a test file or a test that exists: a moved file
    // leaves no stale filter.
    let stale: Vec<&str> = skipped
        .iter()
        .copied()
        .chain(same.split_whitespace())
        .filter(|s| {
            !files.iter().any(|(m, _)| {
                let path = format!("{m}::");
                path.starts_with(s) && s.ends_with("::") || s.starts_with(&path)
            })
        })
        .collect();
    assert!(skipped.len() >= 5, "{skipped:?}");
    assert!(
        stale.is_empty(),
        "scripts/test.sh filters no test: {stale:?}"
    );
    assert!(
        unlisted.is_empty(),
        "test files that drive Node but are missing from EXTERNAL_TESTS in scripts/test.sh: {unlisted:?}"
    );
}

/// QL-2: every build, check and test of the workspace resolves one of two feature sets (with the
/// demo feature or without) over the whole workspace, so no command compiles the same crates a
/// second time. `scripts/test.sh` runs cargo in one place, its wrapper `cargo_ws`, and the gate
/// and the quick loop, run in a sandbox, hand cargo nothing that changes what is compiled. The
/// other scripts' cargo commands are these, each for its reason.
#[test]
fn ql2_every_cargo_call_goes_through_one_wrapper_and_one_of_two_feature_sets() {
    let script = std::fs::read_to_string(root().join("scripts/test.sh")).expect("test.sh");
    assert_eq!(
        cargo_command_lines(&script),
        [r#"cargo "$sub" "${scope[@]}" "$@""#],
        "scripts/test.sh runs cargo only in `cargo_ws`"
    );
    let mut held = 0;
    for quick in [false, true] {
        for run in cargo_runs_of_test_sh(quick) {
            let args = run.args.iter().map(String::as_str);
            let flags: Vec<&str> = args.take_while(|a| *a != "--").collect();
            let changes_the_build = flags.iter().skip(1).any(|flag| {
                let name = flag.split('=').next().unwrap_or_default();
                [
                    "-p",
                    "--package",
                    "--exclude",
                    "--all-features",
                    "--no-default-features",
                ]
                .iter()
                .chain(&["--target", "--release", "-r", "--profile", "--config"])
                .chain(&["--manifest-path", "-F"])
                .any(|f| *f == name)
            });
            let features = flags.iter().filter(|f| f.starts_with("--features")).count();
            let demo = flags
                .windows(2)
                .any(|w| w == ["--features", "kobana-mcp/demo"]);
            let whole = flags.get(1) == Some(&"--workspace") || flags == ["fmt", "--all"];
            let one_set = features == 0 || (features == 1 && demo);
            assert!(
                whole && one_set && !changes_the_build && run.rustflags.is_empty(),
                "quick={quick}: a second compile: {run:?}"
            );
            held += 1;
        }
    }
    assert!(held >= 12, "only {held} cargo runs recorded");
    let named = [
        // The benchmark: the smoke's debug builds, then the measured release builds.
        ("bench/run.sh", "cargo build --workspace"),
        ("bench/run.sh", "cargo build --release -p kobana-mcp"),
        ("bench/run.sh", "cargo build --release -p hello-lambda"),
        ("bench/run.sh", "cargo build --release -p kobana-mcp-bench"),
        (
            "bench/run.sh",
            r#"PATH="$ROOT/.venv-sam/bin:$PATH" cargo lambda build --release --arm64 --bin kobana-mcp"#,
        ),
        // The fuzz target: its own workspace, flags and target directory.
        (
            "scripts/fuzz.sh",
            r#"RUSTFLAGS="${SANCOV_FLAGS[*]} ${RUSTFLAGS:-}" cargo build --manifest-path "$ROOT/fuzz/Cargo.toml" \"#,
        ),
    ];
    let mut paths = vec![".ci/run".to_owned(), "bench/run.sh".to_owned()];
    for dir in ["scripts", "scripts/lib"] {
        for entry in std::fs::read_dir(root().join(dir)).expect(dir).flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".sh") && name != "test.sh" {
                paths.push(format!("{dir}/{name}"));
            }
        }
    }
    paths.sort();
    let found: Vec<(&str, String)> = paths
        .iter()
        .flat_map(|path| {
            let text = std::fs::read_to_string(root().join(path)).expect("readable");
            cargo_command_lines(&text)
                .into_iter()
                .map(move |l| (path.as_str(), l))
        })
        .collect();
    assert_eq!(
        found,
        named.map(|(p, l)| (p, l.to_owned())),
        "cargo commands of the scripts"
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
    let branching = files_with_token(&files, "debug_assertions");
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
        let tests: Vec<_> = runs.iter().filter(|run| is_test_run(&run.args)).collect();
        assert!(
            tests.iter().any(|run| run.readings.is_empty()),
            "quick={quick}: no test pass under the default readings: {runs:?}"
        );
        let others: Vec<&Vec<String>> = tests
            .iter()
            .filter(|run| run.readings == "others")
            .map(|run| &run.args)
            .collect();
        assert!(
            others
                .iter()
                .any(|args| runs_whole_area(args, "contract::readings")),
            "quick={quick}: no `cargo test` of tests/it under KOBANA_FAKE_READINGS=others: {runs:?}"
        );
        if quick {
            continue;
        }
        for area in [
            "clients::sdks",
            "clients::sdk_flows",
            "clients::oauth_discovery",
            "token_front::browser",
        ] {
            assert!(
                others.iter().any(|args| runs_whole_area(args, area)),
                "the gate's others pass leaves out {area}::: {others:?}"
            );
        }
    }
}
