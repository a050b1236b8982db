//! The editors' `mcp.json` (VS Code, Cursor), read by `clients/mcp_json.mjs`: Microsoft's
//! `jsonc-parser` (the JSON-with-comments parser VS Code's settings files are read with), then
//! each editor's rules for the file and its variables. Neither editor is on a registry this
//! project installs from, so this is as near to their own reading as the test command gets.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common;

/// The input id the VS Code snippet asks the token under.
pub const TOKEN_INPUT: &str = "kobana-token";

/// What `mcp_json.mjs` made of a file: its resolved servers, or why it refused the file.
#[derive(Debug)]
pub enum Reading {
    /// The file holds; `servers` maps each name to `{"url", "headers"}`, variables put in.
    Servers(Value),
    /// The editor's rules the file breaks.
    Refused(Vec<String>),
}

impl Reading {
    /// The resolved server `name` (`{"url", "headers"}`); panics when the file was refused.
    #[track_caller]
    pub fn server(&self, name: &str) -> &Value {
        match self {
            Reading::Servers(servers) => &servers[name],
            Reading::Refused(errors) => panic!("the file was refused: {errors:?}"),
        }
    }

    /// The errors of a refused file; panics when the file held.
    #[track_caller]
    pub fn errors(&self) -> &[String] {
        match self {
            Reading::Refused(errors) => errors,
            Reading::Servers(servers) => panic!("the file was read: {servers}"),
        }
    }
}

/// Reads `text` as `host` (`vscode` or `cursor`) would, with `KOBANA_TOKEN` set to `token`
/// (unset when `None`) and the person answering the token input with `token`.
pub async fn read(host: &str, text: &str, token: Option<&str>) -> Reading {
    let script = common::clients_dir().join("mcp_json.mjs");
    assert!(
        script.is_file()
            && common::clients_dir()
                .join("node_modules/jsonc-parser")
                .is_dir(),
        "clients/mcp_json.mjs or jsonc-parser is missing: run scripts/setup.sh"
    );
    let answers = json!({ TOKEN_INPUT: token.unwrap_or_default() }).to_string();
    let mut command = tokio::process::Command::new(common::node());
    command
        .arg(&script)
        .args([host, &answers])
        .current_dir(common::clients_dir())
        .env_remove("KOBANA_TOKEN");
    if let Some(token) = token {
        command.env("KOBANA_TOKEN", token);
    }
    let label = format!("mcp_json.mjs {host}");
    let output = common::run_with_input(&mut command, text, Duration::from_secs(30), &label).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let answer: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{label} printed no JSON ({e}): {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    match (output.status.code(), answer) {
        (Some(0), answer) => Reading::Servers(answer["servers"].clone()),
        (Some(1), answer) => Reading::Refused(
            answer["errors"]
                .as_array()
                .unwrap_or_else(|| panic!("{label}: {answer}"))
                .iter()
                .map(|e| e.as_str().unwrap_or_default().to_owned())
                .collect(),
        ),
        (status, answer) => panic!("{label} exited {status:?}: {answer}"),
    }
}
