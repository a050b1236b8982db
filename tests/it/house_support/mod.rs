//! The readers behind `house.rs`'s checks of the test command (QL-1, QL-2): the test binary's
//! own list of its tests against the list of before the one binary, and the `cargo` commands
//! of the shell scripts with the feature set each resolves. Only `std` is used.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace root (this crate's parent directory).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// The tests of this binary as `area::name`, as the binary itself lists them.
pub fn tests_of_this_binary() -> BTreeSet<String> {
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = std::process::Command::new(exe)
        .args(["--list", "--format", "terse"])
        .output()
        .expect("the test binary lists its tests");
    assert!(out.status.success(), "`--list` failed: {out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .map(str::to_owned)
        .collect()
}

/// The lines of a list file of `tests/it` without its comments and blank lines.
pub fn list_lines(name: &str) -> Vec<String> {
    let path = root().join("tests/it").join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// What keeps a test of the split binaries (`before`) found in `tests`: its own name, or the
/// test a line of `renamed` (`old -> new | commit | why`) names in its place. Returns every
/// name lost that way and every rename line that is malformed, names no listed test, or
/// names a new test that does not exist.
pub fn lost_tests(before: &[String], renamed: &[String], tests: &BTreeSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    let mut moved = BTreeMap::new();
    for line in renamed {
        let parts: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let names = parts[0].split_once(" -> ");
        let commit_ok = parts.get(1).is_some_and(|c| {
            (7..=40).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_hexdigit())
        });
        let why_ok = parts.get(2).is_some_and(|w| !w.is_empty());
        match names {
            Some((old, new)) if parts.len() == 3 && commit_ok && why_ok => {
                if !before.iter().any(|b| b == old) {
                    problems.push(format!("renamed `{old}` is not in the list of before"));
                }
                if !tests.contains(new) {
                    problems.push(format!("`{old}` was renamed `{new}`, which is no test"));
                }
                moved.insert(old, new);
            }
            _ => problems.push(format!(
                "not `old -> new | commit | why` (commit in hex): {line}"
            )),
        }
    }
    for name in before {
        if !tests.contains(name) && !moved.contains_key(name.as_str()) {
            problems.push(format!(
                "`{name}` is lost: no such test, and no rename recorded"
            ));
        }
    }
    problems
}

/// A `cargo` command of a shell script: where it is, the variables set on its command line,
/// and its words (unquoted) after `cargo`.
#[derive(Debug, PartialEq)]
pub struct CargoCall {
    pub at: String,
    pub env: Vec<String>,
    pub args: Vec<String>,
}

/// For each byte of a shell text, whether it is code: outside quotes (or inside a `$( … )`
/// within double quotes) and outside comments.
pub fn shell_code_mask(text: &str) -> Vec<bool> {
    let bytes = text.as_bytes();
    let mut mask = vec![false; bytes.len()];
    // Contexts: `c` code (top level, `( … )`, `$( … )`), `"` inside double quotes.
    let mut stack = vec![b'c'];
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if stack.last() == Some(&b'"') {
            match b {
                b'\\' => i += 1,
                b'"' => _ = stack.pop(),
                b'$' if bytes.get(i + 1) == Some(&b'(') => {
                    stack.push(b'c');
                    i += 1;
                }
                _ => {}
            }
        } else {
            match b {
                b'\'' => {
                    i += bytes[i + 1..]
                        .iter()
                        .position(|c| *c == b'\'')
                        .unwrap_or(bytes.len())
                        + 1
                }
                b'"' => stack.push(b'"'),
                b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                    i += bytes[i..]
                        .iter()
                        .position(|c| *c == b'\n')
                        .unwrap_or(bytes.len() - i);
                    continue;
                }
                b'(' => {
                    stack.push(b'c');
                    mask[i] = true;
                }
                b')' => {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                    mask[i] = true;
                }
                _ => mask[i] = true,
            }
        }
        i += 1;
    }
    mask
}

/// The words of a command's text, quotes removed (`"${A[@]}"` stays one word).
pub fn shell_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (_, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every `cargo` command of a shell script (not the word in a string or a comment).
pub fn cargo_calls(path: &str, script: &str) -> Vec<CargoCall> {
    // Continued lines joined; `lines[i]` is the original line of byte `i`.
    let (mut text, mut lines, mut line) = (String::new(), Vec::new(), 1);
    let mut chars = script.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'\n') {
            chars.next();
            line += 1;
            text.push(' ');
            lines.push(line);
            continue;
        }
        text.push(c);
        lines.extend(std::iter::repeat_n(line, c.len_utf8()));
        line += usize::from(c == '\n');
    }
    let mask = shell_code_mask(&text);
    let bytes = text.as_bytes();
    let ends = |b: u8| matches!(b, b'\n' | b';' | b'|' | b'&' | b'(' | b')' | b'<' | b'>');
    let mut calls = Vec::new();
    for (at, _) in text.match_indices("cargo") {
        let starts = at == 0 || bytes[at - 1].is_ascii_whitespace() || bytes[at - 1] == b'(';
        let word = bytes.get(at + 5).is_some_and(u8::is_ascii_whitespace);
        if !(mask[at] && starts && word) {
            continue;
        }
        let end = (at..bytes.len())
            .find(|&i| mask[i] && ends(bytes[i]))
            .unwrap_or(bytes.len());
        let start = (0..at)
            .rev()
            .find(|&i| mask[i] && ends(bytes[i]))
            .map_or(0, |i| i + 1);
        let env = shell_words(&text[start..at])
            .into_iter()
            .filter(|w| {
                w.split_once('=')
                    .is_some_and(|(name, _)| is_shell_name(name))
            })
            .collect();
        calls.push(CargoCall {
            at: format!("{path}:{}", lines[at]),
            env,
            args: shell_words(&text[at + 5..end]),
        });
    }
    calls
}

/// A shell variable name (`RUSTFLAGS`, `CARGO_TARGET_DIR`).
pub fn is_shell_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The cargo subcommands that compile the workspace.
pub const COMPILING: &[&str] = &[
    "build", "test", "clippy", "check", "run", "bench", "doc", "rustc",
];
/// The two feature sets every debug build and check of the workspace resolves.
pub const FEATURE_SETS: &[&[&str]] = &[&[], &["kobana-mcp/demo"]];

/// Why a cargo command would compile the workspace's crates under another feature set (or
/// other flags) than the rest of the run, or `None`: `--workspace` with or without the demo
/// feature and nothing else that changes what is compiled. Release builds (another profile by
/// design, never part of the test command) and the fuzz workspace (its own target directory
/// and flags) are not held to it.
pub fn second_compile(call: &CargoCall) -> Option<String> {
    let args: Vec<&str> = call.args.iter().map(String::as_str).collect();
    let (sub, rest) = args.split_first()?;
    let release = rest.iter().any(|a| matches!(*a, "--release" | "-r"));
    let fuzz = rest
        .windows(2)
        .any(|w| w[0] == "--manifest-path" && w[1].contains("fuzz/"))
        || rest
            .iter()
            .any(|a| a.starts_with("--manifest-path=") && a.contains("fuzz/"));
    if !COMPILING.contains(sub) || release || fuzz {
        return None;
    }
    let mut features = Vec::new();
    let mut why = Vec::new();
    for (i, arg) in rest.iter().enumerate() {
        let (flag, value) = arg.split_once('=').unwrap_or((arg, ""));
        let value = if value.is_empty() {
            rest.get(i + 1).copied().unwrap_or("")
        } else {
            value
        };
        match flag {
            "--" => break,
            "--features" | "-F" => {
                features.extend(value.split([',', ' ']).filter(|f| !f.is_empty()))
            }
            "-p"
            | "--package"
            | "--exclude"
            | "--all-features"
            | "--no-default-features"
            | "--target"
            | "--config"
            | "--profile"
            | "--manifest-path" => why.push(format!("`{flag}`")),
            _ => {}
        }
    }
    if !rest.contains(&"--workspace") {
        why.push("no `--workspace`".to_owned());
    }
    features.sort_unstable();
    if !FEATURE_SETS.contains(&features.as_slice()) {
        why.push(format!("features {features:?}"));
    }
    for var in &call.env {
        let name = var.split_once('=').map_or(var.as_str(), |(n, _)| n);
        if name.contains("RUSTFLAGS") || name.starts_with("CARGO_") || name == "RUSTC_WRAPPER" {
            why.push(format!("`{name}` set"));
        }
    }
    (!why.is_empty()).then(|| format!("{}: cargo {}: {}", call.at, args.join(" "), why.join(", ")))
}

/// The shell scripts that run cargo: `scripts/`, `scripts/lib/`, `bench/run.sh`, `.ci/run`.
pub fn scripts_that_run_cargo() -> Vec<(String, String)> {
    let base = root();
    let mut paths = vec![base.join("bench/run.sh"), base.join(".ci/run")];
    for dir in ["scripts", "scripts/lib"] {
        for entry in std::fs::read_dir(base.join(dir))
            .expect("scripts")
            .flatten()
        {
            if entry.path().extension().is_some_and(|e| e == "sh") {
                paths.push(entry.path());
            }
        }
    }
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable");
            (
                p.strip_prefix(&base)
                    .expect("under the root")
                    .display()
                    .to_string(),
                text,
            )
        })
        .collect()
}

/// The targets of the workspace's manifests that say `test = false`, as (manifest, target
/// name, root source file).
pub fn targets_without_a_harness() -> Vec<(String, String, PathBuf)> {
    let base = root();
    let workspace = std::fs::read_to_string(base.join("Cargo.toml")).expect("Cargo.toml");
    let members = workspace
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .expect("the workspace's members");
    let mut found = Vec::new();
    for member in members.split(',').map(|m| m.trim().trim_matches('"')) {
        if member.is_empty() {
            continue;
        }
        let manifest = format!("{member}/Cargo.toml");
        let text = std::fs::read_to_string(base.join(&manifest)).expect("a member's manifest");
        // One `[lib]`/`[[bin]]`/`[[test]]` table after another, up to the next table.
        for table in text.split("\n[").skip(1) {
            let value = |key: &str| {
                table.lines().find_map(|l| {
                    let (k, v) = l.split_once('=')?;
                    (k.trim() == key).then(|| v.trim().trim_matches('"').to_owned())
                })
            };
            if value("test").as_deref() == Some("false") {
                let name = value("name").unwrap_or_default();
                let path = value("path").unwrap_or_else(|| "src/lib.rs".to_owned());
                found.push((manifest.clone(), name, base.join(member).join(path)));
            }
        }
    }
    found
}

/// A crate target's source files: its root and every file a `mod name;` reaches from it.
pub fn target_sources(file: &Path) -> Vec<PathBuf> {
    let mut files = vec![file.to_path_buf()];
    let mut at = 0;
    while at < files.len() {
        let file = files[at].clone();
        at += 1;
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let stem = file.file_stem().map(|s| s.to_string_lossy().into_owned());
        let dir = file.parent().expect("a directory");
        // `main.rs`, `lib.rs` and `mod.rs` own their directory; `x.rs` owns `x/`.
        let dir = match stem.as_deref() {
            Some("main" | "lib" | "mod") | None => dir.to_path_buf(),
            Some(stem) => dir.join(stem),
        };
        for line in text.lines() {
            let line = line
                .trim()
                .trim_start_matches("pub ")
                .trim_start_matches("pub(crate) ");
            let Some(name) = line.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) else {
                continue;
            };
            let flat = dir.join(format!("{name}.rs"));
            files.push(if flat.exists() {
                flat
            } else {
                dir.join(name).join("mod.rs")
            });
        }
    }
    files
}

/// What `scripts/test.sh` asked of cargo, run in a sandbox where every command it starts is a
/// stub: each line `KOBANA_FAKE_READINGS` (empty when unset), a tab, then the arguments
/// joined by the unit separator.
pub fn cargo_runs_of_test_sh(quick: bool) -> Vec<(String, Vec<String>)> {
    let record = "#!/usr/bin/env bash\nIFS=$'\\x1f'\nprintf '%s\\t%s\\n' \"${KOBANA_FAKE_READINGS:-}\" \"$*\" >>\"$CARGO_STUB_LOG\"\n";
    let (output, text) = test_sh_with_cargo(quick, record);
    assert!(
        output.status.success(),
        "scripts/test.sh{} failed with stubs: {}{}",
        if quick { " --quick" } else { "" },
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.lines()
        .map(|line| {
            let (readings, args) = line.split_once('\t').unwrap_or(("", line));
            let args = args.split('\x1f').map(str::to_owned).collect();
            (readings.to_owned(), args)
        })
        .collect()
}

/// Runs `scripts/test.sh` in a sandbox where every command it starts is a stub, `cargo` being
/// the script `cargo_stub` (it may write to `$CARGO_STUB_LOG`): its output, and that log.
pub fn test_sh_with_cargo(quick: bool, cargo_stub: &str) -> (std::process::Output, String) {
    use std::os::unix::fs::PermissionsExt;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let sandbox = std::env::temp_dir().join(format!(
        "test-sh-{}-{nanos}-{}",
        std::process::id(),
        u8::from(quick)
    ));
    let write = |relative: &str, text: &str| {
        let path = sandbox.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    let script = std::fs::read_to_string(root().join("scripts/test.sh")).expect("test.sh");
    write("scripts/test.sh", &script);
    // Every other script it may start does nothing.
    for dir in ["scripts", "bench"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".sh") && name != "test.sh" {
                write(&format!("{dir}/{name}"), "#!/usr/bin/env bash\nexit 0\n");
            }
        }
    }
    let log = sandbox.join("cargo.log");
    write("bin/cargo", cargo_stub);
    write("bin/curl", "#!/usr/bin/env bash\nexit 0\n");
    write(".venv/bin/python", "#!/usr/bin/env bash\necho 9\n");
    write(
        ".venv/bin/moto_server",
        "#!/usr/bin/env bash\nexec sleep 60\n",
    );
    write("target/debug/kobana-mcp", "");
    write(
        "target/debug/contract-report",
        "#!/usr/bin/env bash\nexit 0\n",
    );
    std::fs::create_dir_all(sandbox.join("tmp")).unwrap();
    let path = format!(
        "{}:{}",
        sandbox.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = std::process::Command::new("bash");
    command
        .arg(sandbox.join("scripts/test.sh"))
        .args(quick.then_some("--quick"))
        .env("PATH", path)
        .env("CARGO_STUB_LOG", &log)
        .env("CARGO_TARGET_DIR", sandbox.join("target"))
        .env("TMPDIR", sandbox.join("tmp"))
        .env_remove("KOBANA_FAKE_READINGS")
        .env_remove("CARGO_TEST_ARGS");
    let output = command.output().expect("bash runs scripts/test.sh");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&sandbox);
    (output, text)
}

/// Whether a `cargo test` run with `args` runs every test of `area`: its target is `it`, and
/// no name filter or `--skip` (libtest matches substrings) leaves the area out.
pub fn runs_whole_area(args: &[String], area: &str) -> bool {
    let prefix = format!("{area}::");
    let target_is_it = args.windows(2).all(|w| w[0] != "--test" || w[1] == "it");
    let mut filters = Vec::new();
    let mut skips = Vec::new();
    let mut iter = args.iter().skip(1).peekable();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--skip" => skips.extend(iter.next()),
            "--test" | "--features" | "-p" | "--package" | "--target-dir" => {
                iter.next();
            }
            "--exact" => return false,
            a if a.starts_with('-') => {}
            a => filters.push(a),
        }
    }
    target_is_it
        && (filters.is_empty() || filters.iter().any(|f| prefix.contains(*f)))
        && !skips.iter().any(|s| prefix.contains(s.as_str()))
}
