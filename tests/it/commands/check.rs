//! `kobana-mcp check` (RK-6): against the fake under each profile it reports the readings the
//! profile plays; against a fake whose answers break the contract it exits non-zero; `check
//! --mcp` smokes a running endpoint (tools/list, one read per toolset, one PDF).

use crate::common;
use crate::lambda::support::function;

use fake_kobana::{FakeKobana, Fault, FaultKind, Readings};
use kobana_mcp::check::{Report, api, mcp};
use serde_json::json;

fn reading<'r>(report: &'r Report, point: &str) -> &'r str {
    &report
        .row(point)
        .unwrap_or_else(|| panic!("no row {point}: {}", report.table()))
        .reading
}

async fn check(fake: &FakeKobana) -> Report {
    check_with(fake, &fake.full_token()).await
}

async fn check_with(fake: &FakeKobana, token: &str) -> Report {
    api::run(&fake.base_url(), token)
        .await
        .expect("the check runs")
}

/// Every read operation the curated tools use is probed, and nothing is written. Those are
/// the contract's first operations, which kept our dotted ids (`invoices.get`); the check
/// reads no operation of the generic tools (ids are Kobana's `operationId`s).
fn assert_read_only_and_complete(fake: &FakeKobana, report: &Report) {
    let calls = fake.calls();
    assert!(calls.iter().all(|c| c.method == "GET"), "{calls:#?}");
    let reads: Vec<&str> = kobana_mcp::kobana::contract::contract()
        .operations
        .iter()
        .filter(|op| op.method == "GET" && op.id.contains('.'))
        .map(|op| op.id.as_str())
        .collect();
    assert_eq!(reads.len(), 23, "{reads:?}");
    for op in reads {
        assert_eq!(
            reading(report, op),
            "on contract",
            "{op}: {}",
            report.table()
        );
    }
}

#[tokio::test]
async fn rk6_check_reports_our_readings_against_the_default_fake() {
    let fake = FakeKobana::start_with_readings(Readings::ours()).await;
    let report = check(&fake).await;
    assert!(report.ok(), "{}", report.table());
    assert_read_only_and_complete(&fake, &report);
    for (point, expected) in [
        ("token_issuer", "billing_jwt"),
        ("scope_words", "resource_level"),
        ("invoice_totals_unit", "subcents"),
        ("due_date_form", "sao_paulo_midnight"),
        ("line_items", "embedded_on_get"),
        ("account_customer", "embedded_in_lists"),
        ("rate_limit_headers", "x_ratelimit"),
        ("payment_codes", "payment_metadata"),
        ("request_id_header", "Request-Id sent"),
    ] {
        assert_eq!(
            reading(&report, point),
            expected,
            "{point}: {}",
            report.table()
        );
    }
    // The reference fixtures write most date-times with the São Paulo offset.
    assert!(reading(&report, "datetime_form").contains("offset"));
    // token_issuer: Kobana refuses a token of its app OAuth, and the check says why.
    let refused = api::run(&fake.base_url(), &fake.app_oauth_token())
        .await
        .unwrap_err();
    assert!(
        refused.contains("HTTP 401")
            && refused.contains("RS256 JWT, not a billing HS512 JWT")
            && refused.contains("token_issuer reads billing_jwt"),
        "{refused}"
    );
}

#[tokio::test]
async fn rk6_check_reports_every_other_reading_against_the_others_fake() {
    let fake = FakeKobana::start_with_readings(Readings::others()).await;
    // token_issuer: Kobana takes a token of its app OAuth (RS256) as a billing token.
    let report = check_with(&fake, &fake.app_oauth_token()).await;
    assert!(report.ok(), "{}", report.table());
    assert_read_only_and_complete(&fake, &report);
    for (point, expected) in [
        ("token_issuer", "kobana_app_oauth"),
        ("scope_words", "other_vocabulary"),
        ("invoice_totals_unit", "cents"),
        ("due_date_form", "utc_midnight"),
        ("line_items", "include_only"),
        ("account_customer", "when_loaded"),
        ("rate_limit_headers", "ratelimit"),
        ("payment_codes", "pay_answer_only"),
    ] {
        assert_eq!(
            reading(&report, point),
            expected,
            "{point}: {}",
            report.table()
        );
    }
    let forms = reading(&report, "datetime_form");
    assert!(
        forms.contains("utc_z") && !forms.contains("offset"),
        "{forms}"
    );
    let scopes = &report.row("scope_words").unwrap().evidence;
    assert!(scopes.contains("billing.all"), "{scopes}");
    let issuer = &report.row("token_issuer").unwrap().evidence;
    assert!(issuer.contains("alg RS256"), "{issuer}");
    // A billing JWT is still a billing JWT there.
    let billing = check(&fake).await;
    assert_eq!(reading(&billing, "token_issuer"), "billing_jwt");
}

fn unknown_payment_status() -> Fault {
    Fault {
        method: Some("GET".into()),
        path_prefix: "/v1/payments".into(),
        kind: FaultKind::Member {
            pointer: "/data/0/status".into(),
            value: json!("em_atraso"),
        },
        times: None,
    }
}

#[tokio::test]
async fn check_fails_against_a_fake_that_breaks_the_contract() {
    let fake = FakeKobana::start().await;
    fake.inject(unknown_payment_status());
    let report = check(&fake).await;
    assert!(!report.ok(), "{}", report.table());
    let row = report.row("payments.list").unwrap();
    assert!(row.broken, "{row:?}");
    assert!(
        row.evidence.contains("data[].status: unknown_enum_value"),
        "{row:?}"
    );
    assert!(
        !row.evidence.contains("em_atraso"),
        "never a value: {row:?}"
    );
    assert!(!report.row("payments.get").unwrap().broken);
    // No Kobana there: the check cannot run, and says so.
    let error = api::run("http://127.0.0.1:9", "t").await.unwrap_err();
    assert!(error.contains("cannot reach Kobana"), "{error}");
}

/// The binary: `kobana-mcp check` exits 0 on the contract, 1 off it, 2 without a token, and
/// never prints the token.
#[tokio::test]
async fn the_binary_exits_non_zero_off_the_contract() {
    let fake = FakeKobana::start().await;
    let token = fake.full_token();
    let run = |extra: &'static [&'static str]| {
        let mut command = tokio::process::Command::new(function::binary());
        command
            .arg("check")
            .args(["--api-url", &fake.base_url(), "--token", &token])
            .args(extra)
            .env_remove("KOBANA_TOKEN");
        command.output()
    };
    let clean = run(&[]).await.expect("the binary runs");
    let table = String::from_utf8_lossy(&clean.stdout).into_owned();
    assert_eq!(clean.status.code(), Some(0), "{table}");
    assert!(table.contains("result: on the contract"), "{table}");
    assert!(!table.contains(&token), "the token is never printed");
    fake.inject(unknown_payment_status());
    let broken = run(&["--json"]).await.expect("the binary runs");
    assert_eq!(broken.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&broken.stdout).expect("--json");
    assert_eq!(report["ok"], false);
    let missing = tokio::process::Command::new(function::binary())
        .args(["check", "--api-url", &fake.base_url()])
        .env_remove("KOBANA_TOKEN")
        .output()
        .await
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

#[tokio::test]
async fn check_mcp_smokes_tools_reads_and_a_pdf() {
    let stack = common::Stack::start().await;
    let report = mcp::run(&stack.url, Some(&fake_kobana::full_token()))
        .await
        .unwrap();
    assert!(report.ok(), "{}", report.table());
    assert_eq!(reading(&report, "tools/list"), "ok");
    for tool in [
        "billing_organization_get",
        "billing_customers_list",
        "billing_invoices_list",
        "billing_nfes_list",
        "billing_invoices_pdf",
    ] {
        assert_eq!(
            reading(&report, &format!("tools/call {tool}")),
            "ok",
            "{tool}"
        );
    }
    assert_eq!(
        reading(&report, "resources/read PDF"),
        "ok",
        "{}",
        report.table()
    );
    assert!(stack.fake.calls().iter().all(|c| c.method == "GET"));
    // No endpoint there: the smoke fails, it does not hang or pass.
    let nothing = mcp::run("http://127.0.0.1:9/mcp", None).await.unwrap();
    assert!(!nothing.ok());
}

/// Every open point of the contract has a row, and a point the check cannot settle without
/// writing is exactly one the contract (and docs/contract.md) says takes a write.
#[tokio::test]
async fn rk6_every_reading_has_a_row_and_the_ones_that_take_a_write_say_so() {
    let fake = FakeKobana::start_with_readings(Readings::ours()).await;
    let report = check(&fake).await;
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/contract.md"),
    )
    .unwrap();
    for point in &fake_kobana::contract::contract().readings {
        let row = report
            .row(&point.id)
            .unwrap_or_else(|| panic!("no row {}: {}", point.id, report.table()));
        let takes_a_write = point.check.starts_with("not read-only");
        assert!(
            takes_a_write || point.check.starts_with("read-only"),
            "{}: {}",
            point.id,
            point.check
        );
        assert_eq!(
            row.reading == "not settled read-only",
            takes_a_write,
            "{}: {row:?} / {}",
            point.id,
            point.check
        );
        assert!(
            docs.contains(&format!("  - check: {}", point.check)),
            "docs/contract.md names how {} is settled",
            point.id
        );
    }
}

/// CL-7: `check --mcp` names a tool error by its code, read from the result's `_meta`: Kobana
/// refusing the token's scope is fine (the token's choice), any other error breaks the smoke.
#[tokio::test]
async fn cl7_check_mcp_names_a_tool_error_by_its_code() {
    let stack = common::Stack::start().await;
    for (path, status) in [("/v1/customers", 404), ("/v1/nfes", 403)] {
        stack.fake.inject(Fault {
            method: Some("GET".into()),
            path_prefix: path.into(),
            kind: FaultKind::Status {
                status,
                retry_after: None,
            },
            times: None,
        });
    }
    let report = mcp::run(&stack.url, Some(&fake_kobana::full_token()))
        .await
        .unwrap();
    let row = |tool: &str| {
        let row = report
            .row(&format!("tools/call {tool}"))
            .unwrap_or_else(|| panic!("no row for {tool}: {}", report.table()));
        (row.reading.as_str(), row.evidence.as_str(), row.broken)
    };
    assert_eq!(
        row("billing_customers_list"),
        ("tool error", "KOBANA_NOT_FOUND", true)
    );
    assert_eq!(
        row("billing_nfes_list"),
        ("tool error", "KOBANA_INSUFFICIENT_SCOPE", false)
    );
    assert!(!report.ok(), "{}", report.table());
}
