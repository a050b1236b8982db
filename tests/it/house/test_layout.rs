//! The test binary's own layout (LH-2): one folder per area, each with its tests and its own
//! support; the fixtures' ids named in one place, the fake's vocabulary
//! (`fake_kobana::fixtures::ids`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex_lite::Regex;

use crate::house::support::{
    assert_none, files_ending, from_root, read, root, rust_files, target_sources, test_files,
    tokens,
};

const UUID: &str = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

/// Every UUID written in `text` (8-4-4-4-12 lower-case hex digits).
fn uuids_in(text: &str) -> Vec<&str> {
    static FIND: LazyLock<Regex> = LazyLock::new(|| Regex::new(UUID).unwrap());
    FIND.find_iter(text).map(|m| m.as_str()).collect()
}

/// The ids of the fake's fixture records (every `"id"` member of the fixture files) and of its
/// vocabulary.
fn fixture_ids() -> BTreeSet<String> {
    let member = Regex::new(&format!(r#""id"\s*:\s*"({UUID})""#)).unwrap();
    let vocabulary = read("tests/src/fixtures/ids.rs");
    let mut out: BTreeSet<String> = uuids_in(&vocabulary)
        .into_iter()
        .map(String::from)
        .collect();
    for file in ["billing", "payments", "catalog", "credits"] {
        let text = read(format!("tests/fixtures/{file}.json"));
        out.extend(member.captures_iter(&text).map(|c| c[1].to_owned()));
    }
    out
}

/// LH-2: the top of `tests/it` holds `main.rs` and one folder per area; an area's `mod.rs`
/// declares its test files and at most one public module, its `support`; helpers (`support`,
/// `common`, a `mod.rs`) hold no test, and every test file holds one.
#[test]
fn lh2_every_area_is_a_folder_with_its_tests_and_its_own_support() {
    let dir = root().join("tests/it");
    let mut problems = Vec::new();
    for path in std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.path()) {
        let (name, mod_rs) = (from_root(&path), path.join("mod.rs"));
        if path.is_file() && !name.ends_with("/main.rs") {
            problems.push(format!("{name}: a file at the top (an area is a folder)"));
        }
        if !path.is_dir() || name.ends_with("/common") || !mod_rs.exists() {
            continue;
        }
        let text = read(&mod_rs);
        let public: Vec<&str> = text.lines().filter(|l| l.starts_with("pub ")).collect();
        if public.iter().any(|l| *l != "pub mod support;") {
            problems.push(format!(
                "{name}/mod.rs: {public:?} (only `pub mod support;`)"
            ));
        }
        // The `mod.rs` and the files it reaches: at least two of them.
        if target_sources(&mod_rs).len() < 3 {
            problems.push(format!("{name}: an area of one file"));
        }
    }
    let has_test = |file: &Path, skip| tokens(&read(file), skip).iter().any(|t| t.text == "test");
    let tests: BTreeSet<_> = test_files().into_iter().map(|(_, file)| file).collect();
    for file in rust_files(&dir) {
        if !tests.contains(&file) && !file.ends_with("main.rs") && has_test(&file, true) {
            problems.push(format!("{}: a test in a helper module", file.display()));
        } else if tests.contains(&file) && !has_test(&file, false) {
            problems.push(format!("{}: a test file without a test", file.display()));
        }
    }
    assert_none(problems, "the layout of tests/it");
}

/// LH-2: every test names a fixture record through the fake's vocabulary
/// (`fake_kobana::fixtures::ids`): no fixture id is written in the tests or their data files.
#[test]
fn lh2_fixture_ids_are_named_only_in_the_fakes_vocabulary() {
    let fixtures = fixture_ids();
    assert!(fixtures.len() > 40, "{fixtures:?}");
    let mut files = rust_files(&root().join("tests/it"));
    files.extend(files_ending(
        &root().join("tests/fixtures/hostile"),
        ".json",
    ));
    let mut written = Vec::new();
    for file in files {
        let text = read(&file);
        let found = uuids_in(&text)
            .into_iter()
            .filter(|id| fixtures.contains(*id));
        written.extend(found.map(|id| format!("{}: {id}", file.display())));
    }
    assert_none(written, "fixture ids written outside the fake's vocabulary");
    // The reader finds an id written inside a longer text.
    let open = fake_kobana::fixtures::ids::INV_OPEN;
    assert_eq!(uuids_in(&format!("\"/v1/invoices/{open}/pdf\"")), [open]);
    assert!(fixtures.contains(open));
}
