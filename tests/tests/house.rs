//! The house rules the code keeps, checked on the sources themselves (issue #17):
//!
//! - data flows one way: no module below the HTTP front imports it, and the layers under the
//!   handler — the features (`catalog`, `confirm`, `resources`, `prompts`, `completions`, and
//!   the operator's `check`), then
//!   `deferred`, `kobana`, `telemetry` (the request record the client fills in), and the base
//!   (`access`, `format`, `config`, `net`) — never import the ones above;
//! - no Rust source file over 800 lines, except data-like corpora that say so in their first
//!   line; the function binary's `main.rs` at most 150 lines.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, skipping build output and installed packages.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// The crate modules a source file imports or names in code (`crate::x`); comments, doc
/// links included, do not count.
fn crate_modules_used(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut used = Vec::new();
    for (at, _) in text.match_indices("crate::") {
        let rest = &text[at + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            used.push(name);
        }
    }
    // `use crate::{a, b::c}` groups.
    for (at, _) in text.match_indices("crate::{") {
        let group = &text[at + "crate::{".len()..];
        let group = &group[..group.find('}').unwrap_or(group.len())];
        for part in group.split(',') {
            let name: String = part
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                used.push(name);
            }
        }
    }
    used
}

/// How high a module sits: a module may only use modules of a lower rank (or its own).
fn rank(module: &str) -> Option<u8> {
    Some(match module {
        "lib" => 8,
        "http" => 7,
        "server" => 6,
        "catalog" | "confirm" | "resources" | "prompts" | "completions" | "check" => 5,
        "deferred" => 4,
        "kobana" => 3,
        "telemetry" => 2,
        "access" | "format" | "config" | "net" => 1,
        _ => return None,
    })
}

#[test]
fn modules_depend_one_way_front_server_features_base() {
    let src = root().join("shared/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src");
        let module = module_of(relative);
        let Some(own) = rank(&module) else {
            wrong.push(format!(
                "{}: module `{module}` has no rank",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("readable");
        for used in crate_modules_used(&text) {
            if used == module {
                continue;
            }
            match rank(&used) {
                // Re-exports at the crate root (`crate::Config`) and the like.
                None => {}
                Some(theirs) if theirs < own => {}
                // Features may use each other (confirm uses catalog), never upwards.
                Some(theirs) if theirs == own && own == 5 => {}
                Some(_) => wrong.push(format!(
                    "{} (`{module}`) uses `crate::{used}`",
                    relative.display()
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows against the flow:\n{}",
        wrong.join("\n")
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
            crate_modules_used(&text).iter().any(|m| m == "http")
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
