//! CORS in a real browser: headless Chromium (Debian's `chromium`, driven by `puppeteer-core`)
//! loads a page from another loopback origin that uses the official TypeScript client
//! (`@modelcontextprotocol/client` v2, bundled for the browser by esbuild) to list tools, call
//! a tool and read a resource; the same page from a refused origin cannot (CL-2).
//!
//! The server allows `http://127.0.0.1:*` only (`MCP_ALLOWED_ORIGINS`); the page is served by
//! `clients/browser/run.mjs` on a port of its own and opened twice, from `http://127.0.0.1:PORT`
//! (allowed: another origin than the server's, since the port differs) and from
//! `http://localhost:PORT` (refused). Chromium comes from `scripts/setup.sh` (apt), the npm
//! packages from `clients/browser/`; when either is missing the test fails.

use crate::common;

use std::time::Duration;

use common::{Stack, assert_browser_ready, chromium, clients_dir, node, output_within, succeeded};
use fake_kobana::full_token;
use serde_json::Value;

const RUN_TIMEOUT: Duration = Duration::from_secs(150);
const FIXTURE_CUSTOMERS: usize = 4;

/// Runs the browser driver; returns `{allowed, refused, console}`.
async fn browse(stack: &Stack, metadata_url: &str) -> Value {
    let driver = clients_dir().join("browser/run.mjs");
    assert_browser_ready(&driver);
    let output = tokio::process::Command::new(node())
        .arg(&driver)
        .args([&stack.url, &full_token(), metadata_url])
        .arg(chromium())
        .current_dir(clients_dir().join("browser"))
        .kill_on_drop(true)
        .output();
    let output = output_within(RUN_TIMEOUT, output, "the browser run").await;
    let (stdout, stderr) = succeeded(&output, "browser run");
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the driver printed no JSON ({e}): {stdout:.1000}\n{stderr}"))
}

fn ok<'a>(report: &'a Value, step: &str) -> &'a Value {
    let value = &report[step];
    assert_eq!(value["ok"], true, "{step} failed in the browser: {value}");
    &value["result"]
}

fn failed(report: &Value, step: &str) -> String {
    let value = &report[step];
    assert_eq!(
        value["ok"], false,
        "{step} must fail from a refused origin: {value:.400}"
    );
    value["error"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_a_browser_page_from_an_allowed_origin_works_and_a_refused_one_does_not() {
    let stack = Stack::start_with(|config| {
        config.allowed_origins = vec!["http://127.0.0.1:*".to_owned()];
    })
    .await;
    let metadata_url = stack
        .url
        .replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let report = browse(&stack, &metadata_url).await;
    let (allowed, refused) = (&report["allowed"], &report["refused"]);
    let console = report["console"].to_string();
    assert!(
        allowed["origin"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:")
            && refused["origin"]
                .as_str()
                .unwrap()
                .starts_with("http://localhost:"),
        "{report:.300}"
    );

    // Allowed origin: the 401 and its challenge are readable (WWW-Authenticate is exposed).
    let challenge = ok(allowed, "challenge");
    assert_eq!(challenge["status"], 401, "{challenge}");
    let www = challenge["wwwAuthenticate"].as_str().unwrap_or_else(|| {
        panic!("CORS: WWW-Authenticate must be exposed to the page: {challenge} {console}")
    });
    assert!(www.contains("resource_metadata=\""), "{www}");
    let metadata = ok(allowed, "metadata");
    assert_eq!(metadata["body"]["resource"], stack.url, "{metadata}");
    let connect = ok(allowed, "connect");
    assert_eq!(
        connect["protocolVersion"], "2026-07-28",
        "era 2026 sends Mcp-Method / Mcp-Name, which the preflight must allow"
    );
    let tools = ok(allowed, "listTools");
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(names.contains(&"billing_customers_list"), "{names:?}");
    let call = ok(allowed, "callTool");
    assert_eq!(call["isError"], false, "{call:.500}");
    assert_eq!(
        call["structuredContent"]["customers"]
            .as_array()
            .map(Vec::len),
        Some(FIXTURE_CUSTOMERS),
        "{call:.500}"
    );
    let contents = ok(allowed, "readResource");
    assert_eq!(contents[0]["uri"], "kobana://billing/organization");
    assert_eq!(contents[0]["mimeType"], "application/json");
    let organization: Value =
        serde_json::from_str(contents[0]["text"].as_str().expect("a JSON text")).unwrap();
    assert!(organization["id"].is_string(), "{organization}");

    // Refused origin: the browser blocks every MCP call; the metadata stays public.
    assert!(failed(refused, "challenge").contains("Failed to fetch"));
    assert!(failed(refused, "connect").contains("Failed to fetch"));
    assert!(refused.get("listTools").is_none(), "{refused:.300}");
    assert_eq!(
        ok(refused, "metadata")["body"]["resource"],
        stack.url,
        "the protected-resource metadata is readable from any origin"
    );
    assert!(
        console.contains("blocked by CORS policy"),
        "Chromium says why: {console}"
    );
    let customer_calls = stack.kobana_calls("/v1/customers");
    assert_eq!(
        customer_calls.len(),
        1,
        "only the allowed page reached Kobana: {customer_calls:?}"
    );
}
