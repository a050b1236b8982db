//! The readers the house checks share: the workspace's files, Rust sources as rustc's lexer
//! reads them (`proc-macro2`: comments gone, every literal one token), the `crate::` and
//! `super::` paths a source names, its test functions, and `scripts/test.sh` run in a sandbox
//! whose `cargo` only records.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use proc_macro2::{TokenStream, TokenTree};
use regex_lite::Regex;

pub use crate::common::root;

/// The text of a file, from the workspace root.
pub fn read(path: impl AsRef<Path>) -> String {
    let path = root().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A path from the workspace root (`docs/clients.md`).
pub fn from_root(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

/// Fails with every problem, one per line.
pub fn assert_none<T: std::fmt::Display>(problems: impl IntoIterator<Item = T>, what: &str) {
    let lines: Vec<String> = problems.into_iter().map(|p| p.to_string()).collect();
    assert!(lines.is_empty(), "{what}:\n{}", lines.join("\n"));
}

/// The files the repository holds or would add, in path order (`git ls-files`: tracked, and
/// untracked but not ignored, so no build output, installed package, fuzzing state or
/// benchmark log), lock files aside. Listed once per test process.
static REPOSITORY: LazyLock<Vec<PathBuf>> = LazyLock::new(|| {
    let git = std::process::Command::new("git")
        .current_dir(root())
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .expect("git runs");
    assert!(git.status.success(), "git ls-files: {git:?}");
    let locks = ["Cargo.lock", "package-lock.json"];
    let names = git.stdout.split(|b| *b == 0).filter(|n| !n.is_empty());
    let mut files: Vec<PathBuf> = names
        .map(|n| root().join(String::from_utf8_lossy(n).as_ref()))
        .filter(|p| p.is_file() && !locks.iter().any(|lock| p.ends_with(lock)))
        .collect();
    files.sort();
    files.dedup();
    files
});

/// Every file of [`REPOSITORY`] under `dir` whose name ends with `ending` (no `/` in it).
pub fn files_ending(dir: &Path, ending: &str) -> Vec<PathBuf> {
    let wanted = |p: &&PathBuf| p.starts_with(dir) && p.to_string_lossy().ends_with(ending);
    REPOSITORY.iter().filter(wanted).cloned().collect()
}

/// Every `.rs` file under `dir` (see [`files_ending`]).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files_ending(dir, ".rs")
}

/// Every `.rs` file of `shared/src`: its path from there (`catalog/lists/compact.rs`), its text.
pub fn shared_sources() -> Vec<(String, String)> {
    let src = root().join("shared/src");
    let files = rust_files(&src);
    assert!(files.len() > 20, "found only {} files", files.len());
    let relative = |f: &PathBuf| f.strip_prefix(&src).unwrap().display().to_string();
    files.iter().map(|f| (relative(f), read(f))).collect()
}

/// The test files of the test binary `tests/it`, each with its module path (`catalog::lists`
/// for `catalog/lists.rs`): every file but `main.rs`, the `mod.rs` files, `common` and every
/// `support` (they hold helpers, not tests).
pub fn test_files() -> Vec<(String, PathBuf)> {
    let dir = root().join("tests/it");
    let module = |file: &PathBuf| file.strip_prefix(&dir).unwrap().with_extension("");
    let module = |file: &PathBuf| module(file).to_string_lossy().replace('/', "::");
    let helpers = ["support", "common", "mod", "main"];
    let helper = |m: &String| m.split("::").any(|p| helpers.contains(&p));
    let files = rust_files(&dir).into_iter().map(|f| (module(&f), f));
    files.filter(|(m, _)| !helper(m)).collect()
}

/// One token of a Rust source: an identifier, one punctuation character, a literal as written
/// (`"invoices"`), or a group's delimiter (`{`, `}`, …); with its line (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub text: String,
    pub line: usize,
}

impl Token {
    fn new(text: &str, line: usize) -> Self {
        let text = text.to_owned();
        Token { text, line }
    }
}

/// The tokens of a Rust source, groups flattened between their delimiters; with
/// `skip_test_modules`, without the body of any `#[cfg(test)] mod … { … }`.
pub fn tokens(text: &str, skip_test_modules: bool) -> Vec<Token> {
    let stream: TokenStream = text.parse().expect("a Rust source rustc's lexer reads");
    let mut out = Vec::new();
    flatten(stream, skip_test_modules, &mut out);
    out
}

fn flatten(stream: TokenStream, skip_test_modules: bool, out: &mut Vec<Token>) {
    let (mut cfg_test, mut module) = (false, false);
    for tree in stream {
        let line = tree.span().start().line;
        let text = match tree {
            TokenTree::Group(group) => {
                // As written, without spaces: `[cfg(test)]`; its delimiters at both ends.
                let written: String = group.to_string().split_whitespace().collect();
                let (open, close) = (&written[..1], &written[written.len() - 1..]);
                cfg_test |= written == "[cfg(test)]";
                let skip = skip_test_modules && cfg_test && module && open == "{";
                if open == "{" {
                    (cfg_test, module) = (false, false);
                }
                if !skip {
                    out.push(Token::new(open, line));
                    flatten(group.stream(), skip_test_modules, out);
                    out.push(Token::new(close, group.span_close().start().line));
                }
                continue;
            }
            TokenTree::Ident(ident) => {
                module |= ident == "mod";
                ident.to_string()
            }
            TokenTree::Punct(punct) => {
                if punct.as_char() == ';' {
                    (cfg_test, module) = (false, false);
                }
                punct.as_char().to_string()
            }
            TokenTree::Literal(literal) => literal.to_string(),
        };
        out.push(Token::new(&text, line));
    }
}

/// Whether `tokens[at..]` starts with `words` (`["crate", ":", ":"]`).
pub fn starts(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    let found = tokens.get(at..at + words.len());
    found.is_some_and(|found| found.iter().zip(words).all(|(t, w)| t.text == *w))
}

/// The paths a Rust source names from `crate::` or `super::`, as (how many `super`s, 0 for
/// `crate`; the segments after them), one path per item of a `use` group (`use
/// crate::{a::b, c}`: `[a, b]` and `[c]`). Comments, doc links and string literals hold no
/// path, nor does `$crate::`.
pub fn crate_paths(text: &str) -> Vec<(usize, Vec<String>)> {
    let tokens = tokens(text, false);
    let mut found = Vec::new();
    for at in 0..tokens.len() {
        let after_colons = at >= 2 && starts(&tokens, at - 2, &[":", ":"]);
        if after_colons || (at >= 1 && tokens[at - 1].text == "$") {
            continue;
        }
        let super_at = |i: usize| starts(&tokens, at + 3 * i, &["super", ":", ":"]);
        let supers = (0..).take_while(|i| super_at(*i)).count();
        if supers > 0 || starts(&tokens, at, &["crate", ":", ":"]) {
            let rest = &tokens[at + 3 * supers.max(1)..];
            found.extend(expand(rest).into_iter().map(|path| (supers, path)));
        }
    }
    found.retain(|(_, path)| !path.is_empty());
    found
}

/// The paths a path's rest spells: `a::b` one, `{a, b::{c, d}}` one per item.
fn expand(rest: &[Token]) -> Vec<Vec<String>> {
    let Some(first) = rest.first().map(|t| t.text.as_str()) else {
        return vec![Vec::new()];
    };
    if first == "{" {
        let (mut out, mut depth, mut item) = (Vec::new(), 0, 1);
        for (at, token) in rest.iter().enumerate().skip(1) {
            match token.text.as_str() {
                "{" | "(" | "[" => depth += 1,
                "}" | ")" | "]" if depth > 0 => depth -= 1,
                "," | "}" if depth == 0 => {
                    out.extend(expand(&rest[item..at]));
                    item = at + 1;
                    if token.text == "}" {
                        break;
                    }
                }
                _ => {}
            }
        }
        return out;
    }
    if !first.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return vec![Vec::new()];
    }
    let tails = starts(rest, 1, &[":", ":"]).then(|| expand(&rest[3..]));
    let path = |tail| [vec![first.to_owned()], tail].concat();
    tails
        .unwrap_or(vec![Vec::new()])
        .into_iter()
        .map(path)
        .collect()
}

/// Every circle among `arrows`, as `a -> b -> a`.
pub fn circles(arrows: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = Vec::new();
    for start in arrows.keys() {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in arrows.get(&at).into_iter().flatten() {
                if next == start {
                    found.push(format!("{} -> {start}", path.join(" -> ")));
                } else if seen.insert(next.clone()) {
                    stack.push((next.clone(), [path.clone(), vec![next.clone()]].concat()));
                }
            }
        }
    }
    found
}

/// A test function found in the sources: its name, and `path:line` of its `fn` line.
pub type TestFn = (String, String);

/// The test functions of one Rust source: each `fn` under a `#[test]` or `#[tokio::test…]`
/// line (other attributes, comments and blank lines may come between).
pub fn test_functions(path: &str, text: &str) -> Vec<TestFn> {
    static TEST: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[ \t]*#\[(?:tokio::)?test\b.*\n(?:[ \t]*(?:#\[.*|//.*)?\n)*[ \t]*(?:pub )?(?:async )?fn (\w+)").unwrap()
    });
    let at = |start: usize| format!("{path}:{}", text[..start].matches('\n').count() + 1);
    let names = TEST.captures_iter(text).map(|found| found.get(1).unwrap());
    names
        .map(|name| (name.as_str().to_owned(), at(name.start())))
        .collect()
}

/// Every test function of the workspace's Rust sources.
pub fn workspace_tests() -> Vec<TestFn> {
    let files = rust_files(&root()).into_iter();
    let tests = files.flat_map(|f| test_functions(&from_root(&f), &read(&f)));
    tests.collect()
}

/// The workspace's targets that say `test = false`, as cargo reads them: (name, root source).
pub fn targets_without_a_harness() -> Vec<(String, PathBuf)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--no-deps", "--offline", "--format-version=1"])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("its JSON");
    let packages = metadata["packages"].as_array().expect("packages").iter();
    let targets = packages.flat_map(|p| p["targets"].as_array().unwrap());
    let text = |target: &serde_json::Value, key| target[key].as_str().unwrap().to_owned();
    let unharnessed = targets.filter(|target| target["test"] == false);
    unharnessed
        .map(|t| (text(t, "name"), text(t, "src_path").into()))
        .collect()
}

/// A crate target's source files: its root and every file a `mod name;` reaches from it.
pub fn target_sources(file: &Path) -> Vec<PathBuf> {
    let mut files = vec![file.to_path_buf()];
    let mut at = 0;
    while let Some(file) = files.get(at).cloned() {
        at += 1;
        let stem = file.file_stem().unwrap_or_default().to_string_lossy();
        let dir = file.parent().expect("a directory");
        // `main.rs`, `lib.rs` and `mod.rs` own their directory; `x.rs` owns `x/`.
        let dir = match stem.as_ref() {
            "main" | "lib" | "mod" => dir.to_path_buf(),
            stem => dir.join(stem),
        };
        let tokens = tokens(&read(&file), false);
        for (i, _) in tokens.iter().enumerate().filter(|(_, t)| t.text == "mod") {
            if tokens.get(i + 2).is_some_and(|t| t.text == ";") {
                let name = &tokens[i + 1].text;
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(name).join("mod.rs");
                files.push(if flat.exists() { flat } else { nested });
            }
        }
    }
    files
}

/// One cargo command `scripts/test.sh` ran in the sandbox: `KOBANA_FAKE_READINGS` and
/// `RUSTFLAGS` (empty when unset), and its arguments.
#[derive(Debug)]
pub struct CargoRun {
    pub readings: String,
    pub rustflags: String,
    pub args: Vec<String>,
}

/// What `scripts/test.sh` (the gate, or `--quick`) asked of cargo, in order.
pub fn cargo_runs_of_test_sh(quick: bool) -> Vec<CargoRun> {
    let record = "#!/usr/bin/env bash\nIFS=$'\\t'\n\
                  printf '%s\\n' \"${KOBANA_FAKE_READINGS:-}\t${RUSTFLAGS:-}\t$*\" >>\"$CARGO_STUB_LOG\"\n";
    let (output, text) = test_sh_with_cargo(quick, record);
    let said = [output.stdout, output.stderr].concat();
    let said = String::from_utf8_lossy(&said);
    let ok = output.status.success();
    assert!(ok, "test.sh (quick={quick}) failed with stubs: {said}");
    let run = |line: &str| {
        let mut parts = line.split('\t').map(str::to_owned);
        let (readings, rustflags) = (parts.next().unwrap(), parts.next().unwrap());
        let args = parts.collect();
        CargoRun {
            readings,
            rustflags,
            args,
        }
    };
    text.lines().map(run).collect()
}

/// Runs `scripts/test.sh` in a sandbox where every command it starts is a stub, `cargo` being
/// the script `cargo_stub` (it may write to `$CARGO_STUB_LOG`): its output, and that log.
pub fn test_sh_with_cargo(quick: bool, cargo_stub: &str) -> (std::process::Output, String) {
    use std::os::unix::fs::PermissionsExt;
    static SANDBOXES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SANDBOXES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let sandbox = std::env::temp_dir().join(format!("test-sh-{}-{n}", std::process::id()));
    let write = |relative: &str, text: &str| {
        let path = sandbox.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // Every other script it may start, and every other command, does nothing.
    let nothing = "#!/usr/bin/env bash\nexit 0\n";
    let scripts = ["scripts", "bench"].map(|dir| files_ending(&root().join(dir), ".sh"));
    for script in scripts.concat() {
        write(&from_root(&script), nothing);
    }
    let script = read("scripts/test.sh");
    let stubs = [
        ("scripts/test.sh", script.as_str()),
        ("bin/cargo", cargo_stub),
        ("bin/curl", nothing),
        (".venv/bin/python", "#!/usr/bin/env bash\necho 9\n"),
        (
            ".venv/bin/moto_server",
            "#!/usr/bin/env bash\nexec sleep 60\n",
        ),
        ("target/debug/kobana-mcp", ""),
        ("target/debug/contract-report", nothing),
        ("tmp/.keep", ""),
    ];
    stubs.iter().for_each(|(path, text)| write(path, text));
    let log = sandbox.join("cargo.log");
    let path = std::env::var("PATH").unwrap();
    let output = std::process::Command::new("bash")
        .arg(sandbox.join("scripts/test.sh"))
        .args(quick.then_some("--quick"))
        .env("PATH", format!("{}:{path}", sandbox.join("bin").display()))
        .env("CARGO_STUB_LOG", &log)
        .env("CARGO_TARGET_DIR", sandbox.join("target"))
        .env("TMPDIR", sandbox.join("tmp"))
        .env_remove("KOBANA_FAKE_READINGS")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_TEST_ARGS")
        .output()
        .expect("bash runs scripts/test.sh");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&sandbox);
    (output, text)
}

/// Whether a `cargo test` run with `args` runs every test of `area`: its target is `it`, and
/// no name filter or `--skip` (libtest matches substrings) leaves the area out.
pub fn runs_whole_area(args: &[String], area: &str) -> bool {
    let prefix = format!("{area}::");
    let target_is_it = args.windows(2).all(|w| w[0] != "--test" || w[1] == "it");
    let (mut filters, mut skips) = (Vec::new(), Vec::new());
    let mut iter = args.iter().skip(1);
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--skip" => skips.extend(iter.next()),
            "--test" | "--features" | "-p" | "--package" | "--target-dir" => _ = iter.next(),
            "--exact" => return false,
            a if a.starts_with('-') => {}
            a => filters.push(a),
        }
    }
    target_is_it
        && (filters.is_empty() || filters.iter().any(|f| prefix.contains(*f)))
        && !skips.iter().any(|s| prefix.contains(s.as_str()))
}
