//! The test binary's own layout (LH-2): one folder per area, each with its tests and its own
//! support; the fixtures' ids named in one place, the fake's vocabulary
//! (`fake_kobana::fixtures::ids`).

use std::collections::BTreeSet;
use std::path::Path;

use crate::house::support::{declared_modules, root, rust_files, test_files, tokens};

/// The canonical shape of a UUID (8-4-4-4-12 lower-case hex digits).
fn is_uuid(text: &str) -> bool {
    text.len() == 36
        && text.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        })
}

/// Every UUID written in `text`.
fn uuids_in(text: &str) -> Vec<&str> {
    (0..text.len().saturating_sub(35))
        .filter(|&at| text.is_char_boundary(at) && text.is_char_boundary(at + 36))
        .map(|at| &text[at..at + 36])
        .filter(|candidate| is_uuid(candidate))
        .collect()
}

/// The ids of the fake's fixture records (every `id` member of the fixture files) and of its
/// vocabulary.
fn fixture_ids() -> BTreeSet<String> {
    fn ids(value: &serde_json::Value, out: &mut BTreeSet<String>) {
        match value {
            serde_json::Value::Object(map) => {
                if let Some(id) = map.get("id").and_then(serde_json::Value::as_str) {
                    out.insert(id.to_owned());
                }
                map.values().for_each(|v| ids(v, out));
            }
            serde_json::Value::Array(items) => items.iter().for_each(|v| ids(v, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for file in ["billing", "payments", "catalog", "credits"] {
        let path = root().join(format!("tests/fixtures/{file}.json"));
        let text = std::fs::read_to_string(&path).expect("a fixture file");
        ids(
            &serde_json::from_str(&text).expect("fixture JSON"),
            &mut out,
        );
    }
    let vocabulary = std::fs::read_to_string(root().join("tests/src/fixtures/ids.rs")).unwrap();
    out.extend(uuids_in(&vocabulary).into_iter().map(str::to_owned));
    out
}

/// The fixture ids written in the files under `dir` (relative to the root) whose name ends
/// with one of `endings`, as `path: id`.
fn written_fixture_ids(dir: &str, endings: &[&str]) -> Vec<String> {
    let fixtures = fixture_ids();
    let mut found = Vec::new();
    let mut stack = vec![root().join(dir)];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
            continue;
        }
        let name = path.to_string_lossy();
        if !endings.iter().any(|e| name.ends_with(e)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for id in uuids_in(&text)
            .into_iter()
            .filter(|id| fixtures.contains(*id))
        {
            found.push(format!("{}: {id}", path.display()));
        }
    }
    found
}

/// LH-2: the top of `tests/it` holds `main.rs` and one folder per area; an area's `mod.rs`
/// declares its test files and at most one public module, its `support`; helpers (`support`,
/// `common`) hold no test, and every test file holds one.
#[test]
fn lh2_every_area_is_a_folder_with_its_tests_and_its_own_support() {
    let dir = root().join("tests/it");
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let (path, name) = (
            entry.path(),
            entry.file_name().to_string_lossy().into_owned(),
        );
        if path.is_file() && name != "main.rs" {
            problems.push(format!("{name}: a file at the top (an area is a folder)"));
        }
        let mod_rs = path.join("mod.rs");
        if !path.is_dir() || name == "common" || !mod_rs.exists() {
            continue;
        }
        let text = std::fs::read_to_string(&mod_rs).unwrap();
        let public: Vec<&str> = text.lines().filter(|l| l.starts_with("pub ")).collect();
        if public.iter().any(|l| *l != "pub mod support;") {
            problems.push(format!(
                "{name}/mod.rs: {public:?} (only `pub mod support;`)"
            ));
        }
        if declared_modules(&mod_rs).len() < 2 {
            problems.push(format!("{name}: an area of one file"));
        }
    }
    let mut helpers = Vec::new();
    rust_files(&dir, &mut helpers);
    let is_test = |t: &crate::house::support::Token| t.text == "test";
    for file in helpers.iter().filter(|f| helper_file(f)) {
        let code = tokens(&std::fs::read_to_string(file).unwrap(), true);
        if code.iter().any(is_test) {
            problems.push(format!("{}: a test in a helper module", file.display()));
        }
    }
    for (module, file) in test_files() {
        let code = tokens(&std::fs::read_to_string(&file).unwrap(), false);
        if !code.iter().any(is_test) {
            problems.push(format!("{module}: a test file without a test"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Whether `file` (under `tests/it`) is a helper: `common`, a `support` module, a `mod.rs`.
fn helper_file(file: &Path) -> bool {
    file.components().any(|c| {
        let c = c.as_os_str();
        c == "common" || c == "support" || c == "support.rs"
    }) || file.ends_with("mod.rs")
}

/// LH-2: every test names a fixture record through the fake's vocabulary
/// (`fake_kobana::fixtures::ids`): no fixture id is written in the tests or their data files.
#[test]
fn lh2_fixture_ids_are_named_only_in_the_fakes_vocabulary() {
    assert!(fixture_ids().len() > 40, "{:?}", fixture_ids());
    let mut written = written_fixture_ids("tests/it", &[".rs"]);
    written.extend(written_fixture_ids("tests/fixtures/hostile", &[".json"]));
    assert!(written.is_empty(), "{written:#?}");
    // The reader finds an id written inside a longer text.
    let open = fake_kobana::fixtures::ids::INV_OPEN;
    assert_eq!(uuids_in(&format!("\"/v1/invoices/{open}/pdf\"")), [open]);
    assert!(fixture_ids().contains(open));
}
