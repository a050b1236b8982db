//! What the host-CLI tests share: one [`HostRun`] per host bundles a server whose request lines
//! are captured, a stand-in model endpoint, the host's own sandboxed home and a token of its own.

pub mod editors;
pub mod model;
pub mod sandbox;
pub mod server;

use std::collections::BTreeSet;

use fake_kobana::{FIXTURE_ORG_ID, scoped_token};
use kobana_mcp::access::{BearerToken, Principal};
use kobana_mcp::telemetry::record::person_digest;
use serde_json::Value;

use model::StandInModel;
use sandbox::Sandbox;
use server::LoggedServer;

/// One host under test: its server, stand-in model, sandbox and token.
pub struct HostRun {
    /// The host's label (also its sandbox's and its token subject's name).
    pub label: &'static str,
    /// The server the host is pointed at.
    pub server: LoggedServer,
    /// Where the host's model requests go.
    pub model: StandInModel,
    /// The host's home, project directory and environment.
    pub sandbox: Sandbox,
    /// The billing token this host, and only this host, sends.
    pub token: String,
}

impl HostRun {
    /// Starts everything for `label`; the token is also exported as `KOBANA_TOKEN`.
    pub async fn start(label: &'static str) -> Self {
        let token = scoped_token(&format!("person-{label}"), FIXTURE_ORG_ID, "all");
        let mut sandbox = Sandbox::new(label);
        sandbox.set("KOBANA_TOKEN", &token);
        Self {
            label,
            server: LoggedServer::start().await,
            model: StandInModel::start().await,
            sandbox,
            token,
        }
    }

    /// `snippet` of `docs/clients.md` with the test server's URL in its URL's place.
    pub fn snippet(&self, name: &str) -> String {
        crate::common::clients_snippet(name, &self.server.url)
    }

    /// Stops the server and checks its log: this host's token listed the tools (so the host
    /// sent the header) and each such `tools/list` was answered 200, and no line
    /// holds the token. Answers the protocol versions this host's requests named (its
    /// `initialize` in the 2025 era, every request in 2026-07-28).
    pub fn finish(self) -> BTreeSet<String> {
        let lines = self.server.stop();
        let principal = Principal::from_token(BearerToken::new(self.token.clone()), 0)
            .expect("the host's token reads");
        let person = person_digest(&principal.organization, &principal.person);
        let mine: Vec<&Value> = lines
            .iter()
            .filter(|l| l["target"] == "kobana_mcp::request" && l["fields"]["person"] == person)
            .collect();
        let lists = mine
            .iter()
            .filter(|l| l["fields"]["mcp_method"] == "tools/list")
            .inspect(|l| assert_eq!(l["fields"]["http_status"], 200, "{}: {l}", self.label))
            .count();
        assert!(
            lists > 0,
            "{}: the server saw no tools/list under the host's token; its requests: {mine:#?}",
            self.label
        );
        for line in &lines {
            assert!(
                !line.to_string().contains(&self.token),
                "{}: a log line holds the token",
                self.label
            );
        }
        mine.iter()
            .filter_map(|l| l["fields"]["protocol_version"].as_str())
            .map(str::to_owned)
            .collect()
    }
}

/// Every tool the server declares (all of them reach a token of scope `all`).
pub fn declared_tools() -> BTreeSet<String> {
    kobana_mcp::catalog::registry()
        .all()
        .iter()
        .map(|tool| tool.meta.name.to_owned())
        .collect()
}

/// The pinned version of npm package `package` in `clients/hosts/package.json`.
pub fn pinned(package: &str) -> String {
    let manifest = manifest(&sandbox::hosts_dir().join("package.json"));
    manifest["dependencies"][package]
        .as_str()
        .unwrap_or_else(|| panic!("clients/hosts pins no {package}"))
        .to_owned()
}

/// The version of `package` installed in `clients/hosts/node_modules`.
pub fn installed(package: &str) -> String {
    let path = sandbox::hosts_dir().join(format!("node_modules/{package}/package.json"));
    manifest(&path)["version"]
        .as_str()
        .unwrap_or_else(|| panic!("{}: no version", path.display()))
        .to_owned()
}

fn manifest(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Asserts `text` holds every one of `needles`, naming `what` otherwise.
#[track_caller]
pub fn assert_holds(what: &str, text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(
            text.contains(needle),
            "{what}: expected {needle:?} in:\n{text}"
        );
    }
}
