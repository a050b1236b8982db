//! The table against what the configuration reads, the usage text and the README.

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::*;
use crate::config::tests::config;

/// NM-4: the table names exactly the variables the configuration reads (plus the log
/// filter), each once, so the usage text generated from it can neither miss nor invent one.
#[test]
fn nm4_the_variable_table_is_what_the_configuration_reads() {
    let asked = RefCell::new(BTreeSet::new());
    let config = Config::from_lookup(|name| {
        asked.borrow_mut().insert(name.to_owned());
        None
    });
    assert!(config.is_ok());
    let mut expected: BTreeSet<String> = VARIABLES
        .iter()
        .filter(|v| v.read_by_config())
        .map(|v| v.name.to_owned())
        .collect();
    expected.insert(LAMBDA_RUNTIME_API.to_owned());
    assert_eq!(asked.into_inner(), expected);
    let logging: Vec<&str> = VARIABLES
        .iter()
        .filter(|v| !v.read_by_config())
        .map(|v| v.name)
        .collect();
    assert_eq!(logging, [RUST_LOG]);
    let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), VARIABLES.len(), "a variable twice");
}

#[test]
fn nm4_the_usage_text_lists_every_variable_with_its_default() {
    let text = usage();
    for variable in VARIABLES {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", variable.name)))
            .unwrap_or_else(|| panic!("{} missing:\n{text}", variable.name));
        let default = variable.default.replace('`', "");
        assert!(
            line.contains(&variable.summary().replace('`', ""))
                && line.ends_with(&format!("[{default}]"))
                && !line.contains('`'),
            "{line}"
        );
    }
    for expected in ["[10000]", "[25000]", "(1–1000 calls)", "(1 KiB–10 MiB)"] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
}

/// LH-3: a number's bounds are declared once, in its [`Read::Whole`]: the reader accepts
/// exactly them, the refusal names the variable, and the text both documents show quotes them.
#[test]
fn lh3_each_whole_number_is_read_and_shown_within_its_one_declared_bounds() {
    let mut checked = 0;
    for variable in VARIABLES {
        let Read::Whole { min, max, .. } = variable.read else {
            continue;
        };
        checked += 1;
        let mut accepted = vec![min];
        let mut refused = vec!["many".to_owned(), "-1".to_owned()];
        if max < u64::MAX {
            accepted.push(max);
            refused.push((max + 1).to_string());
        }
        if min > 0 {
            refused.push((min - 1).to_string());
        }
        for n in accepted {
            let read = config(&[(variable.name, &n.to_string())]);
            assert!(read.is_ok(), "{} = {n}: {read:?}", variable.name);
        }
        for bad in refused {
            let error = config(&[(variable.name, &bad)]).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!("{}: must be", variable.name)),
                "{error}"
            );
        }
        if max < u64::MAX {
            let summary = variable.summary();
            assert!(
                summary.contains('–') && summary.ends_with(")."),
                "{summary}"
            );
            assert!(
                readme_table().contains(&summary) && usage().contains(&summary.replace('`', ""))
            );
        }
    }
    assert!(checked >= 10, "only {checked} whole numbers");
    assert_eq!(Unit::Bytes.amount(1 << 30), "1 GiB");
    assert_eq!(Unit::Bytes.amount(256), "256 B");
    assert_eq!(Unit::Bytes.amount(1536), "1536 B");
}

/// The README's generated region: between these two lines.
const README_START: &str = "<!-- Generated from each variable's declaration (shared/src/config); \
     rewrite with KOBANA_UPDATE_SNAPSHOTS=1 cargo test --workspace --features kobana-mcp/demo \
     --lib readme_configuration -->\n";
const README_END: &str = "<!-- End of the generated configuration table. -->\n";

/// `readme` with its generated region holding `table`; an error when the markers are missing.
fn with_table(readme: &str, table: &str) -> Result<String, String> {
    let start = readme
        .find(README_START)
        .ok_or("no start marker of the generated configuration table")?
        + README_START.len();
    let end = readme[start..]
        .find(README_END)
        .ok_or("no end marker of the generated configuration table")?
        + start;
    Ok(format!("{}{table}{}", &readme[..start], &readme[end..]))
}

/// NM-4, LH-3: the README's configuration table is the one [`readme_table`] generates from
/// the declarations; `KOBANA_UPDATE_SNAPSHOTS=1` rewrites it and says what it changed.
#[test]
fn nm4_the_readme_configuration_table_is_the_code_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(path).expect("README.md");
    let generated = with_table(&readme, &readme_table()).expect("README.md");
    let update = std::env::var_os("KOBANA_UPDATE_SNAPSHOTS").is_some();
    assert!(
        !(update && std::env::var_os("CI").is_some()),
        "KOBANA_UPDATE_SNAPSHOTS is set under CI: the README is checked there, never rewritten"
    );
    if update {
        let changed: Vec<&str> = VARIABLES
            .iter()
            .filter(|v| {
                let row = |text: &str| {
                    text.lines()
                        .find(|l| l.starts_with(&format!("| `{}` |", v.name)))
                        .map(str::to_owned)
                };
                row(&readme) != row(&generated)
            })
            .map(|v| v.name)
            .collect();
        if generated != readme {
            std::fs::write(path, &generated).expect("README.md is writable");
        }
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "readme_configuration: README.md's configuration table {} ({} variables; rows changed: {})",
            if generated == readme {
                "unchanged"
            } else {
                "rewritten"
            },
            VARIABLES.len(),
            if changed.is_empty() {
                "none".to_owned()
            } else {
                changed.join(", ")
            },
        );
        return;
    }
    assert!(
        generated == readme,
        "README.md's configuration table is stale: run KOBANA_UPDATE_SNAPSHOTS=1 cargo test \
         --workspace --features kobana-mcp/demo --lib readme_configuration"
    );
}

#[test]
fn lh3_the_generated_region_is_replaced_in_place_and_needs_both_markers() {
    let readme = format!("# T\n\n{README_START}| old |\n{README_END}\n## Next\n");
    let rewritten = with_table(&readme, "| new |\n").unwrap();
    assert_eq!(
        rewritten,
        format!("# T\n\n{README_START}| new |\n{README_END}\n## Next\n")
    );
    assert_eq!(with_table(&rewritten, "| new |\n").unwrap(), rewritten);
    assert!(with_table("# T\n| old |\n", "x").is_err());
    assert!(with_table(&format!("{README_START}| old |\n"), "x").is_err());
    let table = readme_table();
    assert_eq!(table.lines().count(), VARIABLES.len() + 2, "{table}");
    assert!(
        table.contains("| `MCP_BIND` | `127.0.0.1:3000` | Local listen address"),
        "{table}"
    );
}
