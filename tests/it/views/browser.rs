//! The MCP Apps views in a real browser, the way a web host runs them (UI-4): headless
//! Chromium (Debian's `chromium`, driven by `puppeteer-core`) loads a host page built on the
//! official `@modelcontextprotocol/ext-apps` AppBridge and TypeScript client
//! (`clients/apps/`), which lists the tools declaring the extension, reads each tool's view,
//! calls the tool against the server over the fake Kobana, and renders the view in a
//! sandboxed iframe under the restrictive CSP, answering its `ui/initialize` in light and in
//! dark. Asserted: the rendered text (the invoice's number, amount and — where the fake's
//! profile gives one — its Pix code, decoded back from the QR code the view drew; the
//! customer's name and open invoices; the month's billed total, as the fake's own records
//! add up); an error result shown in pt-BR; no request leaving any view; no horizontal
//! overflow at 360 px; the view's own calls all read tools. Screenshots go to
//! `$CARGO_TARGET_TMPDIR/views/<profile>/`.
//!
//! Then the MCP Inspector CLI's `--app-info` on each linked tool, in era 2026 with and without
//! declaring the extension (`--advertise-apps`): the link and the view's metadata when
//! declared, exit 2 (no app) when not.

use crate::common;
use crate::views::support::expected;
use fake_kobana::fixtures::ids::{INV_OPEN, INV_OVERDUE, PADARIA, UNKNOWN};

use std::path::PathBuf;
use std::time::Duration;

use common::{Stack, assert_browser_ready, chromium, clients_dir, node, output_within, succeeded};
use fake_kobana::full_token;
use fake_kobana::readings::PaymentCodes;
use serde_json::{Value, json};

const RUN_TIMEOUT: Duration = Duration::from_secs(200);
/// The width every view is rendered at: the narrowest phone the views promise.
const WIDTH: u64 = 360;
const PIX: &str = "00020101021226580014br.gov.bcb.pix01367f6d2c1a-8e4b-4c3d-9a2f-5b6e7d8c9a015204000053039865406499.005802BR5918ACME SOFTWARE LTDA6009SAO PAULO62170513FAT20260008126304BFF0";
const LINE: &str = "23793.38128 60000.000004 00004.004008 9 15490000049900";

fn out_dir(stack: &Stack) -> PathBuf {
    let profile = if stack.fake.readings().is_ours() {
        "ours"
    } else {
        "others"
    };
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("views")
        .join(profile)
}

async fn drive(stack: &Stack, scenarios: &Value) -> Vec<Value> {
    let driver = clients_dir().join("apps/run.mjs");
    assert_browser_ready(&driver);
    assert!(
        clients_dir()
            .join("apps/node_modules/@modelcontextprotocol/ext-apps/package.json")
            .exists(),
        "the ext-apps host is missing: run scripts/setup.sh (it installs clients/apps)"
    );
    let output = tokio::process::Command::new(node())
        .arg(&driver)
        .args([&stack.url, &full_token()])
        .arg(chromium())
        .arg(out_dir(stack))
        .arg(scenarios.to_string())
        .current_dir(clients_dir().join("apps"))
        .kill_on_drop(true)
        .output();
    let output = output_within(RUN_TIMEOUT, output, "the views run").await;
    let (stdout, stderr) = succeeded(&output, "views run");
    let report: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("the driver printed no JSON ({e}): {stdout:.1000}\n{stderr}"));
    report["runs"].as_array().expect("runs").clone()
}

/// The runs of one scenario, light then dark, each checked for what every view must do.
fn runs_of<'a>(runs: &'a [Value], name: &str) -> Vec<&'a Value> {
    let found: Vec<&Value> = runs.iter().filter(|r| r["name"] == name).collect();
    assert_eq!(found.len(), 2, "{name}: light and dark");
    for run in &found {
        let label = format!("{name} {}", run["theme"]);
        assert_eq!(run["shown"]["ok"], true, "{label}: {run}");
        assert_eq!(
            run["shown"]["mimeType"], "text/html;profile=mcp-app",
            "{label}"
        );
        assert!(
            run["shown"]["bytes"].as_u64().unwrap() <= 150 * 1024,
            "{label}"
        );
        let left: Vec<&str> = run["viewRequests"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .filter(|u| !u.starts_with("about:") && !u.starts_with("data:"))
            .collect();
        assert!(left.is_empty(), "{label}: requests left the view: {left:?}");
        let console = run["console"].to_string();
        assert!(
            !console.contains("Refused to") && !console.contains("page error"),
            "{label}: {console}"
        );
        assert_eq!(run["dataTheme"], run["theme"], "{label}: the host's theme");
        assert!(
            run["scrollWidth"].as_u64().unwrap() <= WIDTH,
            "{label}: wider than {WIDTH} px: {run:.300}"
        );
        assert!(
            run["log"]["refused"].as_array().unwrap().is_empty(),
            "{label}: a view asked for a write"
        );
        let shot = PathBuf::from(run["screenshot"].as_str().expect("a screenshot"));
        assert!(
            std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
            "{}",
            shot.display()
        );
    }
    assert_ne!(
        found[0]["background"], found[1]["background"],
        "{name}: light and dark differ"
    );
    found
}

fn text(run: &Value) -> &str {
    run["text"].as_str().unwrap_or_default()
}

/// The views' scenarios: each a tool call, the element that says the view is ready, and the
/// view's width (the invoice's QR code decoded).
fn scenarios() -> Value {
    let scenario = |name: &str, tool: &str, args: Value, ready: &str| {
        json!({"name": name, "tool": tool, "args": args, "ready": ready, "width": WIDTH,
            "decodeQr": name == "invoice"})
    };
    json!([
        scenario(
            "invoice",
            "billing_invoices_get",
            json!({"id": INV_OPEN}),
            "#number"
        ),
        scenario(
            "invoice-overdue",
            "billing_invoices_get",
            json!({"id": INV_OVERDUE}),
            "#codes-note"
        ),
        scenario(
            "customer",
            "billing_customers_get",
            json!({"id": PADARIA}),
            "#open-total"
        ),
        scenario(
            "month",
            "billing_reports_month",
            json!({"month": "2026-08"}),
            "#billed"
        ),
        scenario(
            "error",
            "billing_invoices_get",
            json!({"id": UNKNOWN}),
            ".error"
        ),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ui4_the_three_views_render_the_real_results_in_a_browser_host_in_both_themes() {
    let stack = Stack::start_with(|config| {
        config.allowed_origins = vec!["http://127.0.0.1:*".to_owned()];
    })
    .await;
    let scenarios = scenarios();
    let runs = drive(&stack, &scenarios).await;
    let codes_in_reads = stack.fake.readings().payment_codes == PaymentCodes::PaymentMetadata;

    for run in runs_of(&runs, "invoice") {
        let t = text(run);
        assert!(
            t.contains("FAT-2026-000812") && t.contains("R$ 499,00"),
            "{t}"
        );
        // The customer through the host: the account's embedded customer, or (reading
        // `account_customer` = when_loaded) the account's billing e-mail.
        let customer = if stack.fake.readings().account_customer.embeds() {
            "Cliente: Padaria Pão Dourado Ltda"
        } else {
            "Cliente: financeiro@paodourado.com.br"
        };
        assert!(t.contains(customer), "{customer}: {t}");
        if codes_in_reads {
            assert!(t.contains(PIX) && t.contains(LINE), "{t}");
            assert_eq!(
                run["qr"], PIX,
                "the QR code the view drew decodes to the Pix code"
            );
        } else {
            assert!(
                t.contains("não enviou código Pix nem linha digitável"),
                "{t}"
            );
            assert!(!t.contains("000201"), "no code made up: {t}");
        }
        let calls = run["log"]["toolCalls"].to_string();
        assert!(calls.contains("billing_accounts_get"), "{calls}");
    }
    for run in runs_of(&runs, "invoice-overdue") {
        let t = text(run);
        assert!(
            t.contains("FAT-2026-000790") && t.contains("Vencida há"),
            "{t}"
        );
        assert!(
            t.contains("não enviou código Pix nem linha digitável"),
            "said absent: {t}"
        );
    }
    for run in runs_of(&runs, "customer") {
        let t = text(run);
        assert!(t.contains("Padaria Pão Dourado Ltda"), "{t}");
        assert!(
            t.contains("FAT-2026-000812") && t.contains("R$ 499,00"),
            "its open invoice: {t}"
        );
        let calls = run["log"]["toolCalls"].to_string();
        assert!(
            calls.contains("billing_invoices_list") && calls.contains("billing_subscriptions_list"),
            "{calls}"
        );
    }
    let want = expected(&stack.fake, "2026-08", "2026-08-01");
    let billed = kobana_mcp::format::brl_from_cents(want.billed.0);
    for run in runs_of(&runs, "month") {
        let t = text(run);
        assert!(
            t.contains("agosto de 2026") && t.contains(&billed),
            "billed {billed}: {t}"
        );
    }
    for run in runs_of(&runs, "error") {
        let t = text(run);
        assert!(
            !t.contains("Fatura ") && t.contains("Kobana"),
            "the pt-BR error: {t}"
        );
    }
    eprintln!("views: screenshots in {}", out_dir(&stack).display());
}

/// The Inspector CLI (clients/, pinned) on `tool` in era 2026: `(exit code, stdout)`.
async fn app_info(stack: &Stack, tool: &str, advertise: bool) -> (i32, String) {
    let dir = out_dir(stack);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("inspector.json");
    let servers = json!({"mcpServers": {"kobana": {"type": "http", "url": stack.url,
        "protocolEra": "modern", "headers": {"Authorization": format!("Bearer {}", full_token())}}}});
    std::fs::write(&config, servers.to_string()).unwrap();
    let launcher = clients_dir()
        .join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    assert!(
        launcher.exists(),
        "the Inspector is missing: run scripts/setup.sh"
    );
    let mut command = tokio::process::Command::new(node());
    command
        .arg(launcher)
        .args(["--cli", "--config"])
        .arg(&config)
        .args([
            "--server",
            "kobana",
            "--method",
            "tools/call",
            "--tool-name",
            tool,
            "--app-info",
        ])
        .env("MCP_INSPECTOR_SECRET_STORE", "memory")
        .kill_on_drop(true);
    if advertise {
        command.arg("--advertise-apps");
    }
    let output = output_within(Duration::from_secs(60), command.output(), "the Inspector").await;
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ui3_the_inspector_finds_each_view_only_when_the_extension_is_declared() {
    let stack = Stack::start().await;
    for (tool, uri) in kobana_mcp::catalog::ui_links::LINKS {
        let (code, out) = app_info(&stack, tool, true).await;
        assert_eq!(code, 0, "{tool}: {out}");
        let info: Value = serde_json::from_str(out.trim().lines().last().unwrap_or_default())
            .unwrap_or_else(|e| panic!("{tool}: no JSON ({e}): {out}"));
        assert_eq!(info["hasApp"], true, "{tool}: {info}");
        assert_eq!(info["resourceUri"], uri, "{tool}: {info}");
        assert!(info.get("resourceError").is_none(), "{tool}: {info}");
        let (code, out) = app_info(&stack, tool, false).await;
        assert_eq!(code, 2, "{tool} without the extension has no app: {out}");
    }
}
