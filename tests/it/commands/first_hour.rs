//! The first hour of a newcomer (FH-1, FH-4): the demo binary as `cargo demo` runs it tells
//! one story (one clock for the server and the fake; what it says at start is what its lists,
//! filters, prompts and completions show), checks itself without a rebuild
//! (`--demo check`), and says its version.
//!
//! Needs the demo binary: `KOBANA_MCP_DEMO_BIN`, else `target/debug/kobana-mcp-demo`
//! (`scripts/test.sh` builds and copies it).

use fake_kobana::fixtures::ids::{INV_DRAFT, UNKNOWN};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::root;
use crate::common::{mcp_post, read};

/// The demo binary (`kobana-mcp` built with the `demo` feature).
fn demo_binary() -> PathBuf {
    let bin = std::env::var_os("KOBANA_MCP_DEMO_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/debug/kobana-mcp-demo"));
    assert!(
        bin.is_file(),
        "demo binary {} not found: run `cargo build --workspace --features kobana-mcp/demo` and \
         copy target/debug/kobana-mcp to it (scripts/test.sh does), or set KOBANA_MCP_DEMO_BIN",
        bin.display()
    );
    bin
}

/// A running `kobana-mcp --demo`, killed when dropped, with what it said at start.
struct Demo {
    child: Child,
    url: String,
    banner: String,
    http: reqwest::Client,
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Demo {
    fn start() -> Self {
        let mut child = Command::new(demo_binary())
            .arg("--demo")
            .env("MCP_BIND", "127.0.0.1:0")
            .env("RUST_LOG", "warn")
            .env_remove("AWS_LAMBDA_RUNTIME_API")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the demo binary runs");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let (mut banner, deadline) = (String::new(), Instant::now() + Duration::from_secs(30));
        while !banner.contains("read-only token:") && Instant::now() < deadline {
            match lines.next() {
                Some(Ok(line)) => banner.push_str(&(line + "\n")),
                _ => break,
            }
        }
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let url = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://") && w.ends_with("/mcp"))
            .unwrap_or_else(|| panic!("no URL in the banner:\n{banner}"))
            .to_owned();
        Demo {
            child,
            url,
            banner,
            http: kobana_mcp::net::client_builder().build().expect("client"),
        }
    }

    /// A figure the banner states: the number before `word` (`4 customers`).
    fn figure(&self, word: &str) -> i64 {
        let words: Vec<&str> = self.banner.split_whitespace().collect();
        words
            .windows(2)
            .find(|w| w[1].trim_matches(|c: char| !c.is_alphabetic()) == word)
            .and_then(|w| w[0].trim_start_matches('(').parse().ok())
            .unwrap_or_else(|| panic!("no figure before {word:?} in:\n{}", self.banner))
    }

    /// The demo's today, as the banner states it.
    fn today(&self) -> String {
        let at = self
            .banner
            .find("today is ")
            .expect("the banner names today")
            + 9;
        self.banner[at..at + 10].to_owned()
    }

    /// An era-2025 request without a token (the demo user).
    async fn request(&self, method: &str, params: Value) -> Value {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let (status, body) = read(
            mcp_post(&self.http, &self.url, body.to_string())
                .header("mcp-protocol-version", "2025-11-25")
                .send()
                .await
                .expect("the demo answers"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        body["result"].clone()
    }

    async fn tool(&self, name: &str, args: Value) -> Value {
        let result = self
            .request("tools/call", json!({"name": name, "arguments": args}))
            .await;
        assert_ne!(result["isError"], true, "{name}: {result}");
        result["structuredContent"].clone()
    }

    async fn invoices(&self, args: Value) -> Vec<Value> {
        self.tool("billing_invoices_list", args).await["invoices"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

fn numbers(rows: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| r["number"].as_str().unwrap_or("draft").to_owned())
        .collect();
    out.sort();
    out
}

/// FH-1: the demo's lists, its overdue filter (Kobana's own list, at the fake's clock), its
/// invoice reads, its monthly summary and its month completions all agree with one another
/// and with what the demo said at start.
#[tokio::test]
async fn fh1_the_demo_tells_one_story_from_its_banner_to_its_prompts() {
    let demo = Demo::start();
    let today = demo.today();
    let month = today[..7].to_owned();

    let all = demo.invoices(json!({"per_page": 100})).await;
    assert_eq!(all.len() as i64, demo.figure("invoices"), "{}", demo.banner);
    let open: Vec<Value> = all
        .iter()
        .filter(|r| r["status"] == "open")
        .cloned()
        .collect();
    assert_eq!(open.len() as i64, demo.figure("open"), "{}", demo.banner);
    let late: Vec<Value> = all
        .iter()
        .filter(|r| r.get("days_overdue").is_some())
        .cloned()
        .collect();
    assert_eq!(late.len() as i64, demo.figure("overdue"), "{}", demo.banner);
    assert!(
        !late.is_empty(),
        "the demo has something overdue to collect"
    );

    // `overdue: true` is Kobana's pending-payment list, counted at the fake's clock: the same
    // invoices, with the same days, as the rows counted at the server's.
    let overdue = demo.invoices(json!({"overdue": true})).await;
    assert_eq!(numbers(&overdue), numbers(&late));
    for row in &overdue {
        let same = late.iter().find(|r| r["id"] == row["id"]).unwrap();
        assert_eq!(row["days_overdue"], same["days_overdue"], "{row}");
        let whole = demo
            .tool("billing_invoices_get", json!({"id": row["id"]}))
            .await;
        let derived = &whole["invoice"]["_derived"];
        assert_eq!(derived["as_of"], today.as_str(), "{whole}");
        assert_eq!(derived["days_overdue"], row["days_overdue"], "{whole}");
    }

    // The monthly summary without a month reads the demo's month, and that month has data.
    let prompt = demo
        .request(
            "prompts/get",
            json!({"name": "monthly_billing_summary", "arguments": {}}),
        )
        .await;
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains(&format!("faturamento de {month}")), "{text}");
    let quoted = |key: &str| {
        let at = text.find(&format!("`{key}: \"")).expect(key) + key.len() + 4;
        text[at..at + 10].to_owned()
    };
    let in_month = demo
        .invoices(json!({"due_date_from": quoted("due_date_from"), "due_date_to": quoted("due_date_to"), "per_page": 100}))
        .await;
    assert!(!in_month.is_empty(), "{text}");
    // The prompt carries the server's own month figures (`billing_reports_month`): what is
    // billed counts the month's invoices that are neither draft nor void.
    let billed = in_month
        .iter()
        .filter(|i| !matches!(i["status"].as_str(), Some("draft" | "void")))
        .count();
    let marker = "Os mesmos números em JSON (centavos em cents):\n";
    let report: Value =
        serde_json::from_str(&text[text.find(marker).expect(marker) + marker.len()..])
            .expect("the report's JSON");
    assert!(billed > 0, "{text}");
    assert_eq!(report["billed"]["count"], billed, "{report}");

    // Completions offer the demo's month first.
    let completion = demo
        .request(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "monthly_billing_summary"},
                   "argument": {"name": "month", "value": ""}}),
        )
        .await;
    assert_eq!(completion["completion"]["values"][0], month.as_str());

    // And the banner names the customers the demo holds.
    let customers = demo
        .tool("billing_customers_list", json!({"per_page": 100}))
        .await;
    assert_eq!(
        customers["customers"].as_array().unwrap().len() as i64,
        demo.figure("customers")
    );
}

/// FH-4: the demo binary checks its own fake (no token, no rebuild), and every build says
/// its version.
#[test]
fn fh4_the_demo_binary_checks_itself_and_says_its_version() {
    let check = Command::new(demo_binary())
        .args(["--demo", "check", "--json"])
        .env_remove("KOBANA_TOKEN")
        .output()
        .expect("the demo binary runs");
    assert!(check.status.success(), "{check:?}");
    let report: Value = serde_json::from_slice(&check.stdout).expect("--json is one document");
    assert_eq!(report["ok"], true, "{report}");
    assert!(
        report["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("http://127.0.0.1:")),
        "{report}"
    );
    assert!(report["rows"].as_array().unwrap().len() > 20, "{report}");

    let refused = Command::new(demo_binary())
        .args(["--demo", "check", "--token", "x"])
        .output()
        .expect("the demo binary runs");
    assert_eq!(refused.status.code(), Some(2), "{refused:?}");

    let deployed = crate::lambda::support::function::binary();
    for bin in [demo_binary(), deployed.clone()] {
        let version = Command::new(&bin).arg("--version").output().unwrap();
        assert!(version.status.success(), "{version:?}");
        assert_eq!(
            String::from_utf8_lossy(&version.stdout).trim(),
            format!("kobana-mcp {}", env!("CARGO_PKG_VERSION"))
        );
    }
    // The Lambda build has no demo, and says how to get one instead of checking nothing.
    let no_demo = Command::new(&deployed)
        .args(["--demo", "check"])
        .output()
        .unwrap();
    assert_eq!(no_demo.status.code(), Some(2), "{no_demo:?}");
    assert!(String::from_utf8_lossy(&no_demo.stderr).contains("cargo demo"));
}

/// FH-3: a draft's PDF is reported as what it is, in the tool and in the resource read (the
/// id is right; the document exists once the invoice is finalized), at the cost of one read of
/// the invoice; an unknown invoice still says to check the id.
#[tokio::test]
async fn fh3_a_drafts_pdf_is_named_a_draft_in_the_tool_and_the_resource_read() {
    use crate::catalog::support::fail;
    use crate::common::{Stack, error_code};
    let stack = Stack::start().await;
    let token = fake_kobana::full_token();

    let result = stack
        .call(&token, "billing_invoices_pdf", json!({"id": INV_DRAFT}))
        .await;
    let text = fail(&result);
    assert_eq!(error_code(&result), "INVOICE_IS_DRAFT", "{result}");
    assert!(
        text.contains("fatura é um rascunho; o PDF existe depois de finalizada"),
        "{text}"
    );
    assert!(!text.contains("Confira o id"), "{text}");
    assert_eq!(
        result["_meta"]["br.com.kobana/error"]["invoice_id"],
        INV_DRAFT
    );
    // The PDF, then the invoice itself: two calls, never more.
    assert_eq!(stack.kobana_calls("/v1/invoices").len(), 2);

    let uri = format!("kobana://billing/invoices/{INV_DRAFT}/pdf");
    let (_, body) = stack
        .legacy(&token, "resources/read", json!({"uri": uri}))
        .await;
    assert_eq!(body["error"]["code"], -32002, "{body}");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("rascunho") && message.contains("depois de finalizada"),
        "{body}"
    );
    assert_eq!(body["error"]["data"]["uri"], uri.as_str());

    // An id that names nothing keeps Kobana's "not found" and its advice.
    let unknown = stack
        .call(&token, "billing_invoices_pdf", json!({"id": UNKNOWN}))
        .await;
    assert_eq!(error_code(&unknown), "KOBANA_NOT_FOUND", "{unknown}");
    assert!(fail(&unknown).contains("Confira o id"), "{unknown}");
}

/// The customer's name of each billing account, from the fake's own records.
fn names_by_account(fake: &fake_kobana::FakeKobana) -> std::collections::HashMap<String, String> {
    let customers = fake.records("customers");
    fake.records("billing_accounts")
        .iter()
        .filter_map(|account| {
            let customer = customers
                .iter()
                .find(|c| c["id"] == account["customer_id"])?;
            Some((
                account["id"].as_str()?.to_owned(),
                customer["name"].as_str()?.to_owned(),
            ))
        })
        .collect()
}

/// One list call on `stack`: its rows and the Kobana calls it made.
async fn list_rows(stack: &crate::common::Stack, tool: &str, key: &str) -> (Vec<Value>, usize) {
    stack.fake.clear_calls();
    let result = stack
        .call(&fake_kobana::full_token(), tool, json!({"per_page": 100}))
        .await;
    assert_ne!(result["isError"], true, "{result}");
    let rows = result["structuredContent"][key]
        .as_array()
        .cloned()
        .unwrap();
    (rows, stack.fake.calls().len())
}

/// FH-2: the first invoice and subscription lists of a cold instance name the customer on
/// every row, in at most two Kobana calls (the list and one page of accounts), and so does
/// every later list (one call, warm). Where Kobana sends accounts without their customer,
/// every row says why instead, within the same two calls, and never shows a wrong name.
#[tokio::test]
async fn fh2_every_row_names_its_customer_on_a_cold_first_list_within_two_calls() {
    for (tool, key) in [
        ("billing_invoices_list", "invoices"),
        ("billing_subscriptions_list", "subscriptions"),
    ] {
        let stack = crate::common::Stack::start().await;
        let truth = names_by_account(&stack.fake);
        let embedded = crate::common::readings()
            .account_customer
            .carried_by("billing_accounts.list");
        for (round, most) in [("cold", 2), ("warm", if embedded { 1 } else { 2 })] {
            let (rows, calls) = list_rows(&stack, tool, key).await;
            assert!(rows.len() >= 3, "{tool}: {rows:?}");
            assert!(calls <= most, "{tool} {round}: {calls} calls");
            for row in &rows {
                let account = row["billing_account_id"].as_str().unwrap();
                match row.get("customer") {
                    Some(name) => assert_eq!(name, truth[account].as_str(), "{row}"),
                    None => {
                        assert!(!embedded, "{tool} {round}: a row without its name: {row}");
                        assert!(
                            row["customer_unavailable"]
                                .as_str()
                                .is_some_and(|w| w.contains(' ')),
                            "{tool} {round}: a row without a name says why: {row}"
                        );
                    }
                }
            }
        }
    }
}

/// FH-2 under the reading where only the single read embeds the customer (the fake's earlier
/// choice): the first list learns that Kobana's lists come without it and says so on every
/// row; later lists read the account with most rows, one per call, so names converge.
#[tokio::test]
async fn fh2_where_only_the_single_read_names_the_customer_rows_say_why_and_names_converge() {
    let readings = fake_kobana::Readings::parse("ours,account_customer=embedded_on_get").unwrap();
    let stack = crate::common::Stack::start_with_readings(readings).await;
    let truth = names_by_account(&stack.fake);
    let (rows, calls) = list_rows(&stack, "billing_invoices_list", "invoices").await;
    assert_eq!(calls, 2);
    for row in &rows {
        assert!(row.get("customer").is_none(), "{row}");
        assert_eq!(
            row["customer_unavailable"], "o Kobana não enviou o cliente desta conta",
            "{row}"
        );
    }
    let accounts: std::collections::HashSet<&str> = rows
        .iter()
        .map(|r| r["billing_account_id"].as_str().unwrap())
        .collect();
    let mut named_after = None;
    for call in 1..=accounts.len() {
        let (rows, calls) = list_rows(&stack, "billing_invoices_list", "invoices").await;
        assert!(calls <= 2, "{calls}");
        let named = rows.iter().filter(|r| r.get("customer").is_some()).count();
        for row in rows.iter().filter(|r| r.get("customer").is_some()) {
            assert_eq!(
                row["customer"],
                truth[row["billing_account_id"].as_str().unwrap()].as_str()
            );
        }
        if named == rows.len() {
            named_after = Some(call);
            break;
        }
    }
    assert!(
        named_after.is_some(),
        "names converge within one call per account"
    );
}

/// FH-2: a token that may not read billing accounts gets every row saying so, and costs
/// Kobana the list alone.
#[tokio::test]
async fn fh2_a_token_without_billing_accounts_read_gets_rows_that_say_so() {
    let words = crate::common::readings().scope_words;
    if words != fake_kobana::readings::ScopeWords::ResourceLevel {
        // The server does not know these words: every tool is listed and Kobana decides
        // (access.md); the rows then say what Kobana answered, as above.
        return;
    }
    let stack = crate::common::Stack::start().await;
    let scope = fake_kobana::auth::permission(words, Some("invoices"), "read");
    let token = fake_kobana::scoped_token("person-bia", fake_kobana::FIXTURE_ORG_ID, &scope);
    let result = stack
        .call(&token, "billing_invoices_list", json!({"per_page": 100}))
        .await;
    let rows = result["structuredContent"]["invoices"].as_array().unwrap();
    assert!(!rows.is_empty(), "{result}");
    for row in rows {
        assert!(row.get("customer").is_none(), "{row}");
        assert_eq!(
            row["customer_unavailable"], "sem permissão billing_accounts:read para ler o nome",
            "{row}"
        );
    }
    assert_eq!(stack.fake.calls().len(), 1);
}

/// Runs a Python snippet on its own: every module outside the standard library is a stand-in
/// whose names are classes taking anything, and every top-level function the snippet defines
/// is called once, so a name the snippet uses but does not import (in a signature, or in a
/// nested function's) is a `NameError`.
const SNIPPET_ALONE: &str = r#"
import importlib.abc, importlib.machinery, inspect, sys, types

class Anything(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: cls()
    def __getitem__(cls, item):
        return cls

class Stand(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Anything(name, (), {"__init__": lambda self, *a, **k: None})

class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in sys.stdlib_module_names:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        return Stand(spec.name)
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, Finder())
space = {"__name__": "snippet"}
exec(compile(sys.stdin.read(), "snippet", "exec"), space)
ran = 0
for value in list(space.values()):
    if inspect.isfunction(value) and value.__module__ == "snippet":
        value(*["x"] * len(inspect.signature(value).parameters))
        ran += 1
assert ran, "the snippet defines no function"
print("ran", ran)
"#;

/// FH-4: every Python snippet of docs/clients.md (the matrix scripts' marked regions, which
/// `ht3_clients_doc_snippets_are_the_tested_code` holds to the document) imports every name it
/// uses: it runs on its own, as a newcomer would paste it.
#[tokio::test]
async fn fh4_every_python_library_snippet_runs_on_its_own() {
    let dir = root().join("clients/matrix");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        // The scripts only (setup installs `node_modules` beside them).
        if !path.is_file() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // Only the Python clients: the directory also holds the npm install (`node_modules/`).
        if !name.ends_with("_client.py") {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap();
        let Some((_, rest)) = source.split_once("--- README snippet: ") else {
            continue;
        };
        let snippet = rest.split_once('\n').unwrap().1;
        let snippet = &snippet[..snippet.find("# --- end of snippet ---").expect("closed")];
        let mut command = tokio::process::Command::new(crate::common::python());
        command.args(["-c", SNIPPET_ALONE]);
        let output =
            crate::common::run_with_input(&mut command, snippet, Duration::from_secs(30), &name)
                .await;
        assert!(
            output.status.success(),
            "{name}'s snippet does not run on its own:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        seen += 1;
    }
    assert_eq!(seen, 5, "five Python library snippets");
}

/// A `cargo` stand-in that fails `STAGE` (`clippy`, or `test` without `--no-run`) the way
/// cargo does, and succeeds at everything else.
fn failing_cargo(stage: &str) -> String {
    let report = if stage == "clippy" {
        "error[E0425]: cannot find value `stub_value` in this scope\n --> shared/src/lib.rs:1:1\n  |\n1 | stub_value\n  | ^^^^^^^^^^ not found in this scope\n\nerror: could not compile `kobana-mcp-shared` (lib) due to 1 previous error"
    } else {
        "running 3 tests\ntest a::passes ... ok\ntest first_hour::stub_fails ... FAILED\ntest z::later ... FAILED\n\nfailures:\n\n---- first_hour::stub_fails stdout ----\n\nthread 'first_hour::stub_fails' (4242) panicked at tests/it/first_hour.rs:1:1:\nassertion `left == right` failed: the stub's own message\n  left: 1\n right: 2\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n\n---- z::later stdout ----\n\nthread 'z::later' panicked at tests/it/z.rs:2:2:\nnot the first\n\nfailures:\n    first_hour::stub_fails\n    z::later\n\ntest result: FAILED. 1 passed; 2 failed; 0 ignored\n\nerror: test failed, to rerun pass `-p kobana-mcp-tests --test it`"
    };
    format!(
        "#!/usr/bin/env bash\ncase \" $* \" in\n  *\" {stage} \"*)\n    if [[ \" $* \" != *\" --no-run \"* ]]; then\n      cat <<'OUT'\n{report}\nOUT\n      exit 101\n    fi ;;\nesac\nexit 0\n"
    )
}

/// FH-6: when the test command fails, in either mode, its last lines name the failed stage
/// and the first failing test with its message (or, for a build, the first compiler error),
/// after the stage table — not only the table. Run in a sandbox where cargo is a stand-in.
#[test]
fn fh6_a_failed_run_ends_naming_the_stage_and_the_first_failing_test_with_its_message() {
    use crate::house::support::test_sh_with_cargo;
    for quick in [true, false] {
        let (output, _) = test_sh_with_cargo(quick, &failing_cargo("test"));
        assert!(!output.status.success());
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let tail: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(8)..].join("\n");
        let stage = if quick {
            "==> FAILED at stage: cargo test --workspace (without the external-client areas)"
        } else {
            "==> FAILED at stage: cargo test --workspace"
        };
        for needle in [
            stage,
            "first failing test: first_hour::stub_fails",
            "assertion `left == right` failed: the stub's own message",
            "left: 1",
            "right: 2",
        ] {
            assert!(
                tail.contains(needle),
                "quick: {quick}; lacks {needle:?} in:\n{tail}"
            );
        }
        assert!(!tail.contains("z::later"), "only the first: {tail}");
        assert!(
            text.contains("stage times"),
            "the table is still there:\n{text}"
        );
    }
    let (output, _) = test_sh_with_cargo(true, &failing_cargo("clippy"));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let tail: Vec<&str> = text.lines().rev().take(8).collect();
    let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
    for needle in [
        "==> FAILED at stage: cargo clippy --workspace --all-targets -D warnings (with the demo feature)",
        "error[E0425]: cannot find value `stub_value` in this scope",
        "--> shared/src/lib.rs:1:1",
    ] {
        assert!(tail.contains(needle), "lacks {needle:?} in:\n{tail}");
    }
}
