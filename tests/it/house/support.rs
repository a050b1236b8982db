//! The readers behind `rules.rs` and `source_rules.rs`: Rust sources as rustc's lexer reads
//! them (`proc-macro2`: comments gone, every literal one token), the crate modules a file
//! uses, the targets without a test harness, and what `scripts/test.sh` asks of cargo, run in a
//! sandbox whose `cargo` only records.

use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// The workspace root (this crate's parent directory).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, skipping build output, installed packages and fuzzing state.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let (path, name) = (entry.path(), entry.file_name());
        let name = name.to_string_lossy();
        let skipped = ["target", "node_modules", ".git", "corpus", "artifacts"];
        if path.is_dir() && !skipped.contains(&name.as_ref()) && !name.starts_with(".venv") {
            rust_files(&path, out);
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// The files among `files` whose code (comments and strings aside) has the token `word`.
pub fn files_with_token(files: &[PathBuf], word: &str) -> Vec<String> {
    files
        .iter()
        .filter(|file| {
            let text = std::fs::read_to_string(file).expect("readable");
            tokens(&text, false).iter().any(|t| t.text == word)
        })
        .map(|file| file.display().to_string())
        .collect()
}

/// The modules a `mod.rs` (or `main.rs`) declares: each `mod name;` or `pub mod name;` line.
pub fn declared_modules(mod_file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(mod_file).unwrap_or_default();
    text.lines()
        .map(|l| l.trim().strip_prefix("pub ").unwrap_or(l.trim()))
        .filter_map(|l| l.strip_prefix("mod "))
        .map(|rest| rest.trim_end_matches(';').to_owned())
        .collect()
}

/// The test files of the test binary `tests/it`, each with its module path (`catalog::lists`
/// for `catalog/lists.rs`): every file of an area folder but its `mod.rs` and its `support`,
/// in path order. `common` and every `support` hold helpers, not tests.
pub fn test_files() -> Vec<(String, PathBuf)> {
    let dir = root().join("tests/it");
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    let mut out: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(&dir).ok()?.with_extension("");
            let parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let helper = |p: &String| p == "support" || p == "common" || p == "mod" || p == "main";
            (!parts.iter().any(helper)).then(|| (parts.join("::"), file))
        })
        .collect();
    out.sort();
    out
}

/// One token of a Rust source: an identifier, one punctuation character, a literal as written
/// (`"invoices"`), or a group's delimiter (`{`, `}`, …); with its line (1-based).
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub text: String,
    pub line: usize,
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
        let mut push = |text: String| out.push(Token { text, line });
        match tree {
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::None => ("", ""),
                };
                let attribute: String = group.to_string().split_whitespace().collect();
                if attribute == "[cfg(test)]" {
                    cfg_test = true;
                }
                let skip = skip_test_modules && cfg_test && module && open == "{";
                if open == "{" {
                    (cfg_test, module) = (false, false);
                }
                if !skip {
                    push(open.to_owned());
                    flatten(group.stream(), skip_test_modules, out);
                    out.push(Token {
                        text: close.to_owned(),
                        line: group.span_close().start().line,
                    });
                }
            }
            TokenTree::Ident(ident) => {
                module |= ident == "mod";
                push(ident.to_string());
            }
            TokenTree::Punct(punct) => {
                if punct.as_char() == ';' {
                    (cfg_test, module) = (false, false);
                }
                push(punct.as_char().to_string());
            }
            TokenTree::Literal(literal) => push(literal.to_string()),
        }
    }
}

/// A Rust source's code without its comments and string literals: its tokens joined, a space
/// only between two words (`use super::{a, b::c};` reads `use super::{a,b::c};`).
pub fn code_only(text: &str) -> String {
    let word = |t: &str| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    };
    let mut code = String::new();
    let mut last_word = false;
    for token in tokens(text, false) {
        if token.text.contains('"') {
            last_word = false;
            continue;
        }
        let is_word = word(&token.text);
        if is_word && last_word {
            code.push(' ');
        }
        code.push_str(&token.text);
        last_word = is_word;
    }
    code
}

/// Whether `tokens[at..]` starts with `words` (`["crate", ":", ":"]`).
pub fn starts(tokens: &[Token], at: usize, words: &[&str]) -> bool {
    tokens
        .get(at..at + words.len())
        .is_some_and(|found| found.iter().zip(words).all(|(t, w)| t.text == *w))
}

/// The crate modules a source file names in code: `crate::x` paths, `use crate::{…}` groups
/// (the first segment of each item), and `super::` paths that climb out of the file's own
/// top-level module. Comments, doc links and string literals do not count (they are no
/// path tokens), nor does `$crate::`. `depth` is how many modules below its top-level module
/// the file sits (`catalog/mod.rs`: 0, `catalog/lists/compact.rs`: 2, `server.rs`: 0).
pub fn crate_modules_used_at(text: &str, depth: usize) -> Vec<String> {
    let tokens = tokens(text, false);
    let mut used = Vec::new();
    for at in 0..tokens.len() {
        let before = |back: usize, text: &str| at >= back && tokens[at - back].text == text;
        if before(1, "$") || (before(1, ":") && before(2, ":")) {
            continue;
        }
        let after = if starts(&tokens, at, &["crate", ":", ":"]) {
            at + 3
        } else {
            let climb = (0..=depth).all(|i| starts(&tokens, at + 3 * i, &["super", ":", ":"]));
            if !climb || starts(&tokens, at + 3 * (depth + 1), &["super"]) {
                continue;
            }
            at + 3 * (depth + 1)
        };
        used.extend(path_heads(&tokens[after..]));
    }
    used.retain(|name| name.starts_with(|c: char| c.is_alphabetic() || c == '_'));
    used
}

/// The first segment of a path's rest: one identifier, or the first of each item of a group.
fn path_heads(rest: &[Token]) -> Vec<String> {
    let Some(first) = rest.first() else {
        return Vec::new();
    };
    if first.text != "{" {
        return vec![first.text.clone()];
    }
    let (mut heads, mut depth, mut item_start) = (Vec::new(), 0, true);
    for token in rest {
        match token.text.as_str() {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            "," if depth == 1 => item_start = true,
            name if item_start && depth == 1 => {
                heads.push(name.to_owned());
                item_start = false;
            }
            _ => {}
        }
    }
    heads
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
        let tokens = tokens(&text, false);
        for (i, _) in tokens.iter().enumerate().filter(|(_, t)| t.text == "mod") {
            if tokens.get(i + 2).is_some_and(|t| t.text == ";") {
                let name = &tokens[i + 1].text;
                let flat = dir.join(format!("{name}.rs"));
                files.push(if flat.exists() {
                    flat
                } else {
                    dir.join(name).join("mod.rs")
                });
            }
        }
    }
    files
}

/// One cargo command `scripts/test.sh` ran in the sandbox.
#[derive(Debug)]
pub struct CargoRun {
    /// `KOBANA_FAKE_READINGS` (empty when unset).
    pub readings: String,
    /// `RUSTFLAGS` (empty when unset).
    pub rustflags: String,
    /// Its arguments.
    pub args: Vec<String>,
}

/// What `scripts/test.sh` (the gate, or `--quick`) asked of cargo, in order.
pub fn cargo_runs_of_test_sh(quick: bool) -> Vec<CargoRun> {
    let record = "#!/usr/bin/env bash\nIFS=$'\\x1f'\nprintf '%s\\t%s\\t%s\\n' \"${KOBANA_FAKE_READINGS:-}\" \"${RUSTFLAGS:-}\" \"$*\" >>\"$CARGO_STUB_LOG\"\n";
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
            let mut parts = line.splitn(3, '\t');
            let mut next = || parts.next().unwrap_or_default().to_owned();
            let (readings, rustflags, args) = (next(), next(), next());
            let args = args.split('\x1f').map(str::to_owned).collect();
            CargoRun {
                readings,
                rustflags,
                args,
            }
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
        .env_remove("RUSTFLAGS")
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

/// The lines of a shell script that start a cargo command: `cargo ` outside quotes, at the
/// start of a command (after `;`, `&`, `|`, `(` or nothing) or after variable assignments
/// (`RUSTFLAGS="…" cargo …`); trimmed. Comments and mentions (`stage "cargo …"`,
/// `command -v cargo`) are not.
pub fn cargo_command_lines(script: &str) -> Vec<String> {
    let starts_command = |line: &str, at: usize| {
        let before = &line[..at];
        let quoted = before.matches('"').count() % 2 == 1 || before.matches('\'').count() % 2 == 1;
        let command = before
            .rsplit([';', '&', '|', '('])
            .next()
            .unwrap_or_default()
            .trim();
        let assignment = command.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        });
        let word_starts = before.is_empty() || before.ends_with([' ', '(', '\t']);
        !quoted && (command.is_empty() || assignment) && word_starts
    };
    script
        .lines()
        .map(str::trim)
        .filter(|line| !line.starts_with('#'))
        .filter(|line| {
            line.match_indices("cargo ")
                .any(|(at, _)| starts_command(line, at))
        })
        .map(str::to_owned)
        .collect()
}
