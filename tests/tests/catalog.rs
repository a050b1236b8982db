//! End-to-end tests of the billing tool catalog against the fake Kobana: every tool runs
//! (T-1), lists validate `sort_by` and paginate (T-2), money and dates are readable (T-3),
//! failures are `isError` results that say what to change (T-4), destructive tools are
//! marked (CF-1), and a read-only token neither sees nor runs a write tool.

mod common;

use std::collections::BTreeSet;

use common::{Stack, text_of};
use fake_kobana::{DocKind, full_token, readonly_token, scoped_token};
use serde_json::{Value, json};

// Fixture ids (reference §10).
const ACCOUNT_MARIANA: &str = "6c307511-b2b9-437a-a8df-6ec4ce4a2bbd";
const ACCOUNT_PAO: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
const ACCOUNT_HORIZONTE: &str = "1a2a73ed-562b-4f79-8374-59eef50bea63";
const PLAN_PRO: &str = "759cde66-bacf-43d0-8b1f-9163ce9ff57f";
const PRODUCT_EXTRA_USER: &str = "38a847db-b6bd-46a7-b8ae-bf1a956e8fcc";
const PRICE_EXTRA_USER: &str = "afb266c8-b379-492a-9bf7-fde6eb806a8a";
const SUB_ACTIVE: &str = "43b7a3a6-9a8d-4a03-980d-7b71d8f56413";
const SUB_PAST_DUE: &str = "ec1b8ca1-f91e-4d4c-9ff4-9b7889463e85";
const SUB_CANCELED: &str = "e2acf72f-9e57-4f7a-a0ee-89aed453dd32";
const INV_DRAFT: &str = "3139d32c-93cd-49bf-9c94-1cf0dc98d2c1";
const INV_OPEN: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";
const INV_OVERDUE: &str = "c5fd4a91-2d3e-4b7a-8e61-0a9f3b2c7d11";
const INV_PAID_WITH_NFE: &str = "8e2f7c44-5b19-4d0a-9c3e-6f1a2b3c4d55";
const INV_PAID_NFE_ERROR: &str = "0d6e1f2a-3b4c-4d5e-8f60-718293a4b5c6";
const PAY_CARD: &str = "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60";
const PAY_PIX: &str = "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
const PAY_FAILED: &str = "e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1f0";
const NFE_ISSUED: &str = "2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f";
const NFE_ERROR: &str = "7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a";
const UNKNOWN: &str = "00000000-0000-4000-8000-000000000000";

/// The tools of the spec table (requirements §T), by toolset.
const SPEC_TOOLS: [&str; 32] = [
    "billing_organization_get",
    "billing_schemas_list",
    "billing_schemas_get",
    "billing_customers_list",
    "billing_customers_get",
    "billing_customers_create",
    "billing_customers_update",
    "billing_customers_delete",
    "billing_subscriptions_list",
    "billing_subscriptions_get",
    "billing_subscriptions_create",
    "billing_subscriptions_pause",
    "billing_subscriptions_resume",
    "billing_subscriptions_cancel",
    "billing_invoices_list",
    "billing_invoices_get",
    "billing_invoices_pdf",
    "billing_invoices_create",
    "billing_invoices_finalize",
    "billing_invoices_send_reminder",
    "billing_invoices_issue_nfe",
    "billing_invoices_void",
    "billing_invoices_delete",
    "billing_payments_list",
    "billing_payments_get",
    "billing_payments_refund",
    "billing_nfes_list",
    "billing_nfes_get",
    "billing_nfes_pdf",
    "billing_nfes_xml",
    "billing_nfes_issue",
    "billing_nfes_cancel",
];

/// The read tools added with Kobana's contract (billing accounts, plans, products), which the
/// write tools' ids come from.
const CONTRACT_TOOLS: [&str; 6] = [
    "billing_accounts_list",
    "billing_accounts_get",
    "billing_plans_list",
    "billing_plans_get",
    "billing_products_list",
    "billing_products_get",
];

/// The destructive (D) tools of the spec table.
const DESTRUCTIVE: [&str; 6] = [
    "billing_customers_delete",
    "billing_subscriptions_cancel",
    "billing_invoices_void",
    "billing_invoices_delete",
    "billing_payments_refund",
    "billing_nfes_cancel",
];

/// The structured result of a successful call.
#[track_caller]
fn ok(result: &Value) -> Value {
    assert_ne!(
        result["isError"],
        json!(true),
        "unexpected tool error: {result}"
    );
    result["structuredContent"].clone()
}

/// The text of a failed call.
#[track_caller]
fn fail(result: &Value) -> String {
    assert_eq!(
        result["isError"],
        json!(true),
        "expected a tool error: {result}"
    );
    text_of(result)
}

/// `tools/list` as `token` sees it (era 2025).
async fn tools_list(stack: &Stack, token: &str) -> Vec<Value> {
    let (status, body) = stack.legacy(token, "tools/list", json!({})).await;
    assert_eq!(status, 200, "{body}");
    body["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Kobana calls under `prefix` other than the ones already counted.
fn calls(stack: &Stack, prefix: &str) -> usize {
    stack.kobana_calls(prefix).len()
}

/// Today in America/Sao_Paulo (UTC-3, no DST since 2019) as days since the epoch.
fn sao_paulo_today() -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    fake_kobana::clock::local_day(now)
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect()
}

// ---------------------------------------------------------------- the catalog itself

#[tokio::test]
async fn t1_registry_holds_exactly_the_spec_tools() {
    let registry: BTreeSet<&str> = kobana_mcp::catalog::registry()
        .all()
        .iter()
        .map(|t| t.meta.name)
        .collect();
    let spec: BTreeSet<&str> = SPEC_TOOLS.into_iter().chain(CONTRACT_TOOLS).collect();
    assert_eq!(registry, spec);
    assert_eq!(registry.len(), 38, "one registry entry per catalog tool");

    let stack = Stack::start().await;
    let tools = tools_list(&stack, &full_token()).await;
    let listed: BTreeSet<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(listed, spec, "a full token sees every tool");
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            tool["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{name}: title"
        );
        let description = tool["description"].as_str().unwrap();
        assert!(
            (40..=400).contains(&description.chars().count()),
            "{name}: description of {} chars",
            description.chars().count()
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}");
        assert_eq!(tool["annotations"]["openWorldHint"], true, "{name}");
    }
}

/// `tools/list` is spliced from definitions serialized once at start (`http::tool_list`):
/// for every token shape, both eras and a toolset filter, the `tools` array on the wire is
/// byte for byte what serializing the same registry tools gives, and no placeholder leaks.
#[tokio::test]
async fn t1_tools_list_bytes_equal_the_serialized_tools_in_both_eras() {
    let stack = Stack::start().await;
    let registry = kobana_mcp::catalog::registry();
    let tokens = [
        full_token(),
        readonly_token(),
        scoped_token(
            "user-1",
            "org-1",
            "invoices.read customers.read customers.write",
        ),
    ];
    let mut seen = BTreeSet::new();
    for token in &tokens {
        for toolsets in [None, Some("invoices, nfes")] {
            for modern in [false, true] {
                let mut params = json!({});
                let mut headers = vec![("mcp-protocol-version", "2025-11-25")];
                if modern {
                    params["_meta"] = json!({
                        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                        "io.modelcontextprotocol/clientCapabilities": {},
                        "io.modelcontextprotocol/clientInfo": {"name": "e2e", "version": "0"}
                    });
                    headers = vec![
                        ("mcp-protocol-version", "2026-07-28"),
                        ("mcp-method", "tools/list"),
                    ];
                }
                if let Some(toolsets) = toolsets {
                    headers.push(("x-mcp-toolsets", toolsets));
                }
                let body =
                    json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": params});
                let response = stack
                    .post_raw(body.to_string(), Some(token), &headers)
                    .await;
                assert_eq!(response.status(), 200);
                let raw = response.text().await.expect("body");
                let answer: Value = serde_json::from_str(&raw).expect("the answer is JSON");
                let names: Vec<&str> = answer["result"]["tools"]
                    .as_array()
                    .unwrap_or_else(|| panic!("no tools: {raw}"))
                    .iter()
                    .map(|t| t["name"].as_str().expect("a name"))
                    .collect();
                let tools: Vec<_> = names
                    .iter()
                    .map(|n| registry.get(n).expect("a catalog tool").tool.clone())
                    .collect();
                let expected = format!(
                    r#""tools":{}"#,
                    serde_json::to_string(&tools).expect("tools serialize")
                );
                assert!(
                    raw.contains(&expected),
                    "modern={modern} toolsets={toolsets:?}: the tools array differs from their serialization"
                );
                assert!(!raw.contains("placeholder"), "{raw}");
                assert_eq!(answer["id"], 3);
                seen.insert(names.len());
            }
        }
    }
    // The shapes above really differ: full, read-only, scoped, filtered.
    assert!(seen.len() >= 4, "{seen:?}");
}

#[tokio::test]
async fn t1_full_tools_list_is_within_36_kb() {
    let stack = Stack::start().await;
    let tools = tools_list(&stack, &full_token()).await;
    let bytes = serde_json::to_vec(&json!({ "tools": tools }))
        .unwrap()
        .len();
    assert!(bytes <= 36 * 1024, "tools/list is {bytes} bytes");
}

#[tokio::test]
async fn cf1_destructive_tools_carry_destructive_hint() {
    let stack = Stack::start().await;
    let tools = tools_list(&stack, &full_token()).await;
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed"))
            .clone()
    };
    let destructive: BTreeSet<&str> = tools
        .iter()
        .filter(|t| t["annotations"]["destructiveHint"] == true)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(destructive, DESTRUCTIVE.into_iter().collect());

    // Every destructive tool ends with the same confirmation sentence.
    let reference = tool("billing_customers_delete")["description"]
        .as_str()
        .unwrap()
        .to_owned();
    let sentence = &reference[reference.find(" Protocol 2026-07-28").unwrap()..];
    for name in DESTRUCTIVE {
        let t = tool(name);
        assert!(
            t["description"].as_str().unwrap().ends_with(sentence),
            "{name}"
        );
        assert_eq!(t["annotations"]["readOnlyHint"], false, "{name}");
    }
    // Reads are read-only; writes are neither read-only nor destructive.
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        let verb = name.rsplit('_').next().unwrap();
        let is_read = matches!(verb, "list" | "get" | "pdf" | "xml");
        assert_eq!(t["annotations"]["readOnlyHint"], is_read, "{name}");
        if is_read {
            assert_ne!(t["annotations"]["destructiveHint"], true, "{name}");
        }
    }
    // Idempotency is stated honestly.
    for (name, idempotent) in [
        ("billing_invoices_void", true),
        ("billing_invoices_delete", true),
        ("billing_invoices_finalize", true),
        ("billing_nfes_cancel", true),
        ("billing_subscriptions_cancel", true),
        ("billing_subscriptions_resume", true),
        ("billing_invoices_create", false),
        ("billing_subscriptions_create", false),
        ("billing_invoices_send_reminder", false),
        ("billing_payments_refund", false),
    ] {
        assert_eq!(
            tool(name)["annotations"]["idempotentHint"],
            idempotent,
            "{name}"
        );
    }
}

#[tokio::test]
async fn t1_readonly_token_lists_no_write_tool_and_runs_none() {
    let stack = Stack::start().await;
    let token = readonly_token();
    let names = stack.tool_names(&token, &[]).await;
    let registry = kobana_mcp::catalog::registry();
    for tool in registry.all() {
        let listed = names.iter().any(|n| n == tool.meta.name);
        let is_read = tool.meta.effect == kobana_mcp::catalog::Effect::Read;
        assert_eq!(listed, is_read, "{}", tool.meta.name);
    }
    let writes = [
        (
            "billing_subscriptions_create",
            json!({"billing_account_id": ACCOUNT_MARIANA, "plan_id": PLAN_PRO}),
            "subscriptions:write",
        ),
        (
            "billing_subscriptions_pause",
            json!({"id": SUB_ACTIVE}),
            "subscriptions:write",
        ),
        (
            "billing_subscriptions_resume",
            json!({"id": SUB_ACTIVE}),
            "subscriptions:write",
        ),
        (
            "billing_subscriptions_cancel",
            json!({"id": SUB_ACTIVE}),
            "subscriptions:write",
        ),
        (
            "billing_invoices_create",
            json!({"billing_account_id": ACCOUNT_MARIANA, "line_items": [{"description": "x", "unit_amount_cents": 100}]}),
            "invoices:write",
        ),
        (
            "billing_invoices_finalize",
            json!({"id": INV_DRAFT}),
            "invoices:write",
        ),
        (
            "billing_invoices_send_reminder",
            json!({"id": INV_OPEN}),
            "invoices:write",
        ),
        (
            "billing_invoices_issue_nfe",
            json!({"id": INV_PAID_NFE_ERROR}),
            "invoices:write",
        ),
        (
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "duplicada"}),
            "invoices:write",
        ),
        (
            "billing_invoices_delete",
            json!({"id": INV_DRAFT}),
            "invoices:write",
        ),
        (
            "billing_payments_refund",
            json!({"id": PAY_CARD}),
            "payments:write",
        ),
        ("billing_nfes_issue", json!({"id": NFE_ERROR}), "nfes:write"),
        (
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": "Serviço não prestado ao tomador"}),
            "nfes:write",
        ),
    ];
    for (tool, args, permission) in writes {
        let text = fail(&stack.call(&token, tool, args).await);
        assert!(
            text.contains("Permissão insuficiente") && text.contains(permission),
            "{tool}: {text}"
        );
    }
    assert_eq!(calls(&stack, "/v1/"), 0, "no write reached Kobana");

    // Reads still work with the read-only token.
    let result = ok(&stack
        .call(&token, "billing_invoices_get", json!({"id": INV_OPEN}))
        .await);
    assert_eq!(result["invoice"]["number"], "FAT-2026-000812");
}

#[tokio::test]
async fn t1_permission_is_per_resource() {
    let stack = Stack::start().await;
    let token = scoped_token("person-bia", fake_kobana::FIXTURE_ORG_ID, "invoices:read");
    let names = stack.tool_names(&token, &[]).await;
    assert!(names.contains(&"billing_invoices_list".to_owned()));
    assert!(
        !names.iter().any(|n| n.starts_with("billing_nfes_")),
        "{names:?}"
    );
    let text = fail(
        &stack
            .call(&token, "billing_nfes_get", json!({"id": NFE_ISSUED}))
            .await,
    );
    assert!(text.contains("nfes:read"), "{text}");
    assert_eq!(calls(&stack, "/v1/nfes"), 0);
}

// ---------------------------------------------------------------- subscriptions

#[tokio::test]
async fn t1_subscriptions_tools_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();

    let list = ok(&stack
        .call(
            &token,
            "billing_subscriptions_list",
            json!({"status": "active"}),
        )
        .await);
    assert_eq!(ids(&list["subscriptions"]), [SUB_ACTIVE]);
    assert_eq!(
        list["subscriptions"][0]["recurring_amount_brl"],
        "R$ 499,00"
    );
    assert_eq!(list["total"], 1);
    assert_eq!(list["next_page"], Value::Null);

    let list = ok(&stack
        .call(
            &token,
            "billing_subscriptions_list",
            json!({"billing_account_id": ACCOUNT_HORIZONTE, "sort_by": "recurring_amount_cents", "sort_order": "asc"}),
        )
        .await);
    assert_eq!(ids(&list["subscriptions"]), [SUB_PAST_DUE]);
    let query = stack.kobana_calls("/v1/subscriptions")[1]
        .query
        .clone()
        .unwrap();
    assert!(
        query.contains("sort_by=recurring_amount_cents") && query.contains("sort_order=asc"),
        "{query}"
    );

    let list = ok(&stack
        .call(
            &token,
            "billing_subscriptions_list",
            json!({"search": "Horizonte", "plan_id": "4b0dbb41-8d52-48f1-942c-3fe860e7a113"}),
        )
        .await);
    assert_eq!(ids(&list["subscriptions"]), [SUB_PAST_DUE]);

    let got = ok(&stack
        .call(
            &token,
            "billing_subscriptions_get",
            json!({"id": SUB_PAST_DUE}),
        )
        .await);
    assert_eq!(got["subscription"]["status"], "past_due");
    assert_eq!(got["subscription"]["billing_cycle"], "annual");
    assert_eq!(got["subscription"]["recurring_amount_brl"], "R$ 11.988,00");

    // From a plan.
    let created = ok(&stack
        .call(
            &token,
            "billing_subscriptions_create",
            json!({"billing_account_id": ACCOUNT_MARIANA, "plan_id": PLAN_PRO}),
        )
        .await);
    let sub = &created["subscription"];
    assert_eq!(sub["status"], "active");
    assert_eq!(sub["billing_account_id"], ACCOUNT_MARIANA);
    assert_eq!(sub["recurring_amount_cents"], 49900);
    let id = sub["id"].as_str().unwrap().to_owned();

    // From items: a product at a price (the Pro plan's extra-user price), the unit price
    // overridden in cents.
    let created = ok(&stack
        .call(
            &token,
            "billing_subscriptions_create",
            json!({"billing_account_id": ACCOUNT_MARIANA, "billing_cycle": "quarterly",
                "items": [{"product_id": PRODUCT_EXTRA_USER, "price_id": PRICE_EXTRA_USER,
                           "quantity": 2, "unit_amount_cents": 15000}]}),
        )
        .await);
    assert_eq!(created["subscription"]["recurring_amount_cents"], 30000);
    assert_eq!(created["subscription"]["recurring_amount_brl"], "R$ 300,00");
    assert_eq!(created["subscription"]["billing_cycle"], "quarterly");

    let paused = ok(&stack
        .call(
            &token,
            "billing_subscriptions_pause",
            json!({"id": id, "behavior": "keep_as_draft", "resumes_at": "2030-01-15"}),
        )
        .await);
    assert_eq!(paused["subscription"]["status"], "paused");
    assert_eq!(
        paused["subscription"]["pause_collection"]["behavior"],
        "keep_as_draft"
    );

    let resumed = ok(&stack
        .call(&token, "billing_subscriptions_resume", json!({"id": id}))
        .await);
    assert_eq!(resumed["subscription"]["status"], "active");

    let at_end = ok(&stack
        .call(
            &token,
            "billing_subscriptions_cancel",
            json!({"id": id, "cancel_at_period_end": true, "reason": "Cliente vai migrar"}),
        )
        .await);
    assert_eq!(at_end["subscription"]["status"], "active");
    assert_eq!(at_end["subscription"]["cancel_at_period_end"], true);

    let canceled = ok(&stack
        .call(&token, "billing_subscriptions_cancel", json!({"id": id}))
        .await);
    assert_eq!(canceled["subscription"]["status"], "canceled");
    assert_eq!(
        canceled["subscription"]["cancellation_reason"],
        "Cliente vai migrar"
    );

    let posts: Vec<_> = stack
        .kobana_calls("/v1/subscriptions")
        .into_iter()
        .filter(|c| c.method == "POST")
        .collect();
    assert_eq!(posts.len(), 6);
    assert_eq!(posts[2].body.as_ref().unwrap()["behavior"], "keep_as_draft");
}

#[tokio::test]
async fn t4_subscription_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    // Business rule, from Kobana.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_resume",
                json!({"id": SUB_ACTIVE}),
            )
            .await,
    );
    assert!(
        text.contains("Somente assinaturas pausadas") && text.contains("active"),
        "{text}"
    );
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_cancel",
                json!({"id": SUB_CANCELED}),
            )
            .await,
    );
    assert!(text.contains("já está cancelada"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_subscriptions_get", json!({"id": UNKNOWN}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
    let before = calls(&stack, "/v1/");

    // Argument errors, caught before any Kobana call.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_create",
                json!({"billing_account_id": ACCOUNT_MARIANA}),
            )
            .await,
    );
    assert!(text.contains("plan_id") && text.contains("items"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_create",
                json!({"billing_account_id": ACCOUNT_MARIANA, "items": []}),
            )
            .await,
    );
    assert!(text.contains("items"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_get",
                json!({"id": "assinatura-1"}),
            )
            .await,
    );
    assert!(text.contains("`id`") && text.contains("UUID"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_list",
                json!({"billing_account_id": "../customers"}),
            )
            .await,
    );
    assert!(text.contains("billing_account_id"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_pause",
                json!({"id": SUB_ACTIVE, "resumes_at": "amanhã"}),
            )
            .await,
    );
    assert!(text.contains("resumes_at"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_subscriptions_pause",
                json!({"id": SUB_ACTIVE, "behavior": "forever"}),
            )
            .await,
    );
    assert!(text.contains("forever"), "{text}");
    assert_eq!(
        calls(&stack, "/v1/"),
        before,
        "argument errors never reach Kobana"
    );
}

// ---------------------------------------------------------------- invoices

#[tokio::test]
async fn t1_invoice_reads_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();
    let today = sao_paulo_today();

    let all = ok(&stack.call(&token, "billing_invoices_list", json!({})).await);
    assert_eq!(all["total"], 7);
    let open = all["invoices"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == INV_OPEN)
        .unwrap();
    // A compact row (#19): one BRL text, the São Paulo due date, the customer's name.
    assert_eq!(open["total_brl"], "R$ 499,00");
    assert_eq!(open["due_date"], "2026-08-25");
    assert_eq!(open["customer"], "Padaria Pão Dourado Ltda");
    let due = fake_kobana::clock::days_from_civil(2026, 8, 25);
    assert_eq!(open.get("days_overdue").is_some(), today > due, "{open}");
    for invoice in all["invoices"].as_array().unwrap() {
        if invoice["status"] != "open" {
            assert!(invoice.get("days_overdue").is_none(), "{invoice}");
        }
    }

    // overdue = Kobana's pending-payment list.
    let overdue = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"overdue": true, "sort_by": "due_date", "sort_order": "asc"}),
        )
        .await);
    assert_eq!(ids(&overdue["invoices"]), [INV_OVERDUE]);
    let inv = &overdue["invoices"][0];
    assert_eq!(inv["number"], "FAT-2026-000790");
    assert_eq!(inv["total_brl"], "R$ 11.988,00");
    let days = today - fake_kobana::clock::days_from_civil(2026, 8, 5);
    assert_eq!(inv["days_overdue"], days);
    assert!(days >= 15);
    let call = stack.kobana_calls("/v1/invoices/pending-payment");
    assert_eq!(call.len(), 1);
    assert!(
        call[0]
            .query
            .as_deref()
            .unwrap()
            .contains("sort_by=due_date")
    );
    let overdue = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"overdue": true, "billing_account_id": ACCOUNT_PAO}),
        )
        .await);
    assert_eq!(overdue["total"], 0);

    // without_nfe = Kobana's pending-nfe list.
    let pending = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"without_nfe": true}),
        )
        .await);
    assert_eq!(ids(&pending["invoices"]), [INV_PAID_NFE_ERROR]);
    assert_eq!(pending["invoices"][0]["number"], "FAT-2026-000655");
    assert_eq!(stack.kobana_calls("/v1/invoices/pending-nfe").len(), 1);

    // Filters of the general list.
    let paid = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"status": "paid", "sort_by": "due_date", "sort_order": "asc"}),
        )
        .await);
    assert_eq!(
        ids(&paid["invoices"]),
        [INV_PAID_WITH_NFE, INV_PAID_NFE_ERROR]
    );
    let by_doc = ok(&stack
        .call(&token, "billing_invoices_list", json!({"document_number": "45.321.287/0001-90", "due_date_from": "2026-08-01", "due_date_to": "2026-08-31"}))
        .await);
    assert_eq!(ids(&by_doc["invoices"]), [INV_OPEN]);
    let by_sub = ok(&stack
        .call(&token, "billing_invoices_list", json!({"subscription_id": SUB_ACTIVE, "date_from": "2026-07-01", "date_to": "2026-07-31"}))
        .await);
    assert_eq!(ids(&by_sub["invoices"]), [INV_PAID_WITH_NFE]);
    let by_text = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"search": "Planejamento"}),
        )
        .await);
    assert_eq!(ids(&by_text["invoices"]), [INV_PAID_NFE_ERROR]);

    // One invoice, with its line items.
    let got = ok(&stack
        .call(&token, "billing_invoices_get", json!({"id": INV_DRAFT}))
        .await);
    let invoice = &got["invoice"];
    assert_eq!(invoice["status"], "draft");
    assert_eq!(invoice["total_brl"], "R$ 1.500,00");
    assert_eq!(
        invoice["line_items"][0]["description"],
        "Consultoria fiscal (10 h)"
    );
    assert_eq!(invoice["line_items"][0]["unit_amount_brl"], "R$ 150,00");
    assert_eq!(invoice["_derived"]["is_overdue"], false);
    let call = stack.kobana_calls(&format!("/v1/invoices/{INV_DRAFT}"));
    assert_eq!(
        call[0].query, None,
        "the invoice read declares no `include`"
    );

    // The PDF is described, never sent.
    let pdf = ok(&stack
        .call(&token, "billing_invoices_pdf", json!({"id": INV_OPEN}))
        .await);
    let size = stack
        .fake
        .pdf_bytes(DocKind::Invoice, INV_OPEN)
        .unwrap()
        .len();
    assert_eq!(
        pdf,
        json!({"pdf": {"invoice_id": INV_OPEN, "mime_type": "application/pdf", "size_bytes": size,
            "resource_uri": format!("kobana://billing/invoices/{INV_OPEN}/pdf")}})
    );
    stack.fake.set_pdf_content_length(false);
    let pdf = ok(&stack
        .call(&token, "billing_invoices_pdf", json!({"id": INV_OPEN}))
        .await);
    assert_eq!(pdf["pdf"]["size_bytes"], Value::Null);
    let text = fail(
        &stack
            .call(&token, "billing_invoices_pdf", json!({"id": INV_DRAFT}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
}

#[tokio::test]
async fn t1_invoice_writes_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();

    let created = ok(&stack
        .call(
            &token,
            "billing_invoices_create",
            json!({"billing_account_id": ACCOUNT_MARIANA, "due_date": "2026-12-10",
                "description": "Consultoria dezembro",
                "line_items": [{"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_cents": 15000},
                               {"description": "Deslocamento", "unit_amount_cents": 4990}]}),
        )
        .await);
    let invoice = &created["invoice"];
    assert_eq!(invoice["status"], "draft");
    assert_eq!(invoice["total_brl"], "R$ 349,90");
    assert_eq!(invoice["due_date_sao_paulo"], "2026-12-10T00:00:00-03:00");
    assert_eq!(invoice["line_items"][0]["unit_amount_subcents"], 1_500_000);
    assert_eq!(invoice["_derived"]["is_overdue"], false);
    let id = invoice["id"].as_str().unwrap().to_owned();
    let body = stack.kobana_calls("/v1/invoices")[0].body.clone().unwrap();
    assert_eq!(
        body["line_items"][0],
        json!({"description": "Consultoria (2 h)", "quantity": 2, "unit_amount_subcents": 1_500_000})
    );
    assert_eq!(body["line_items"][1]["quantity"], 1);

    let finalized = ok(&stack
        .call(&token, "billing_invoices_finalize", json!({"id": id}))
        .await);
    assert_eq!(finalized["invoice"]["status"], "open");
    assert!(
        finalized["invoice"]["number"]
            .as_str()
            .unwrap()
            .starts_with("FAT-")
    );

    let reminded = ok(&stack
        .call(
            &token,
            "billing_invoices_send_reminder",
            json!({"id": INV_OVERDUE}),
        )
        .await);
    assert_eq!(reminded["invoice"]["metadata"]["reminders_sent"], 1);
    assert_eq!(reminded["invoice"]["_derived"]["is_overdue"], true);

    let voided = ok(&stack
        .call(
            &token,
            "billing_invoices_void",
            json!({"id": id, "reason": "Emitida em duplicidade"}),
        )
        .await);
    assert_eq!(voided["invoice"]["status"], "void");
    assert_eq!(voided["invoice"]["amount_remaining_brl"], "R$ 0,00");
    let void_call = stack.kobana_calls(&format!("/v1/invoices/{id}/void"));
    assert_eq!(
        void_call[0].body,
        Some(json!({"reason": "Emitida em duplicidade"}))
    );
    // A second void is refused by Kobana: the state already changed.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_void",
                json!({"id": id, "reason": "de novo"}),
            )
            .await,
    );
    assert!(text.contains("já está anulada"), "{text}");

    let nfe = ok(&stack
        .call(
            &token,
            "billing_invoices_issue_nfe",
            json!({"id": INV_PAID_NFE_ERROR}),
        )
        .await);
    assert_eq!(nfe["issuance"]["nfe_id"], NFE_ERROR);
    assert_eq!(nfe["issuance"]["status"], "pending");

    let draft = ok(&stack
        .call(
            &token,
            "billing_invoices_create",
            json!({"billing_account_id": ACCOUNT_PAO, "line_items": [{"description": "Ajuste", "unit_amount_cents": 100}]}),
        )
        .await);
    let draft_id = draft["invoice"]["id"].as_str().unwrap().to_owned();
    let deleted = ok(&stack
        .call(&token, "billing_invoices_delete", json!({"id": draft_id}))
        .await);
    assert_eq!(deleted["result"]["deleted"], true);
    let text = fail(
        &stack
            .call(&token, "billing_invoices_get", json!({"id": draft_id}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
}

#[tokio::test]
async fn t4_invoice_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    // Business rules, from Kobana.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_void",
                json!({"id": INV_PAID_WITH_NFE, "reason": "Cliente pediu"}),
            )
            .await,
    );
    assert!(text.contains("Fatura paga não pode ser anulada"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_invoices_delete", json!({"id": INV_OPEN}))
            .await,
    );
    assert!(text.contains("Somente faturas em rascunho"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_invoices_finalize", json!({"id": INV_OPEN}))
            .await,
    );
    assert!(text.contains("rascunho"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_issue_nfe",
                json!({"id": INV_PAID_WITH_NFE}),
            )
            .await,
    );
    assert!(text.contains("já possui NF-e"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_send_reminder",
                json!({"id": UNKNOWN}),
            )
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
    let text = fail(&stack
        .call(&token, "billing_invoices_create", json!({"billing_account_id": UNKNOWN, "line_items": [{"description": "x", "unit_amount_cents": 1}]}))
        .await);
    assert!(
        text.contains("billing_account_id") && text.contains("não encontrada"),
        "{text}"
    );
    let before = calls(&stack, "/v1/");

    // Argument errors, caught before any Kobana call.
    let refusals = [
        (json!({"overdue": true, "without_nfe": true}), "without_nfe"),
        (json!({"overdue": true, "status": "open"}), "status"),
        (
            json!({"overdue": true, "search": "Horizonte", "due_date_to": "2026-08-31"}),
            "due_date_to, search",
        ),
        (
            json!({"without_nfe": true, "subscription_id": SUB_ACTIVE}),
            "subscription_id",
        ),
        (json!({"due_date_from": "31/08/2026"}), "AAAA-MM-DD"),
        (
            json!({"date_from": "2026-09-01", "date_to": "2026-08-01"}),
            "inverta",
        ),
        (json!({"subscription_id": "FAT-2026-000812"}), "UUID"),
        (json!({"per_page": 101}), "per_page"),
        (json!({"page": 0}), "page"),
        (json!({"status": "overdue"}), "overdue"),
        (json!({"customer": "x"}), "argumento desconhecido"),
    ];
    for (args, expected) in refusals {
        let text = fail(
            &stack
                .call(&token, "billing_invoices_list", args.clone())
                .await,
        );
        assert!(text.contains(expected), "{args}: {text}");
    }
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_list",
                json!({"overdue": true, "status": "open"}),
            )
            .await,
    );
    assert!(
        text.contains("billing_account_id, page, per_page"),
        "{text}"
    );
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_void",
                json!({"id": INV_OPEN, "reason": "  "}),
            )
            .await,
    );
    assert!(text.contains("`reason`"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_invoices_void", json!({"id": INV_OPEN}))
            .await,
    );
    assert!(text.contains("reason"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_create",
                json!({"billing_account_id": ACCOUNT_MARIANA, "line_items": []}),
            )
            .await,
    );
    assert!(text.contains("line_items"), "{text}");
    let many: Vec<Value> = (0..201)
        .map(|n| json!({"description": format!("item {n}"), "unit_amount_cents": 1}))
        .collect();
    let text = fail(
        &stack
            .call(
                &token,
                "billing_invoices_create",
                json!({"billing_account_id": ACCOUNT_MARIANA, "line_items": many}),
            )
            .await,
    );
    assert!(text.contains("200"), "{text}");
    let text = fail(&stack
        .call(&token, "billing_invoices_create", json!({"billing_account_id": ACCOUNT_MARIANA, "line_items": [{"description": "x", "unit_amount_cents": -5}]}))
        .await);
    assert!(
        text.contains("unit_amount_cents") || text.contains("-5"),
        "{text}"
    );
    let text = fail(&stack
        .call(&token, "billing_invoices_create", json!({"billing_account_id": ACCOUNT_MARIANA, "due_date": "2026-02-30", "line_items": [{"description": "x", "unit_amount_cents": 1}]}))
        .await);
    assert!(text.contains("due_date"), "{text}");
    for tool in [
        "billing_invoices_get",
        "billing_invoices_pdf",
        "billing_invoices_delete",
    ] {
        let text = fail(
            &stack
                .call(&token, tool, json!({"id": "../organization"}))
                .await,
        );
        assert!(text.contains("UUID"), "{tool}: {text}");
    }
    assert_eq!(
        calls(&stack, "/v1/"),
        before,
        "argument errors never reach Kobana"
    );
}

// ---------------------------------------------------------------- payments

#[tokio::test]
async fn t1_payments_tools_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();

    let list = ok(&stack
        .call(
            &token,
            "billing_payments_list",
            json!({"invoice_id": INV_PAID_WITH_NFE}),
        )
        .await);
    assert_eq!(ids(&list["payments"]), [PAY_CARD]);
    assert_eq!(list["payments"][0]["amount_brl"], "R$ 499,00");
    let failed = ok(&stack
        .call(
            &token,
            "billing_payments_list",
            json!({"status": "failed", "sort_by": "amount_cents"}),
        )
        .await);
    assert_eq!(ids(&failed["payments"]), [PAY_FAILED]);

    let got = ok(&stack
        .call(&token, "billing_payments_get", json!({"id": PAY_PIX}))
        .await);
    assert_eq!(got["payment"]["payment_method_type"], "pix");
    assert_eq!(got["payment"]["amount_brl"], "R$ 1.200,00");
    assert_eq!(
        got["payment"]["paid_at_sao_paulo"],
        "2026-08-13T16:20:00-03:00"
    );

    let partial = ok(&stack
        .call(
            &token,
            "billing_payments_refund",
            json!({"id": PAY_PIX, "amount_cents": 10000, "reason": "Desconto concedido"}),
        )
        .await);
    assert_eq!(partial["payment"]["status"], "partially_refunded");
    let body = stack.kobana_calls(&format!("/v1/payments/{PAY_PIX}/refund"))[0]
        .body
        .clone();
    assert_eq!(
        body,
        Some(json!({"amount_cents": 10000, "reason": "Desconto concedido"}))
    );

    // Kobana refunds succeeded payments only: a partly refunded one is refused, with the
    // text that says so; a full refund of another succeeded payment goes through.
    let again = stack
        .call(&token, "billing_payments_refund", json!({"id": PAY_PIX}))
        .await;
    assert_eq!(again["isError"], true, "{again}");
    assert!(
        text_of(&again).contains("situação atual"),
        "{}",
        text_of(&again)
    );
    let full = ok(&stack
        .call(&token, "billing_payments_refund", json!({"id": PAY_CARD}))
        .await);
    assert_eq!(full["payment"]["status"], "refunded");
    assert_eq!(
        stack.kobana_calls(&format!("/v1/payments/{PAY_CARD}/refund"))[0].body,
        Some(json!({}))
    );
}

#[tokio::test]
async fn t4_payment_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    let text = fail(
        &stack
            .call(
                &token,
                "billing_payments_refund",
                json!({"id": PAY_CARD, "amount_cents": 60000}),
            )
            .await,
    );
    assert!(
        text.contains("amount_cents") && text.contains("excede") && text.contains("R$ 499,00"),
        "{text}"
    );
    let text = fail(
        &stack
            .call(&token, "billing_payments_refund", json!({"id": PAY_FAILED}))
            .await,
    );
    assert!(text.contains("Somente pagamentos pagos"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_payments_get", json!({"id": UNKNOWN}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
    let before = calls(&stack, "/v1/");

    let text = fail(
        &stack
            .call(
                &token,
                "billing_payments_refund",
                json!({"id": PAY_CARD, "amount_cents": 0}),
            )
            .await,
    );
    assert!(text.contains("amount_cents"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_payments_get", json!({"id": "pay_123"}))
            .await,
    );
    assert!(text.contains("UUID"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_payments_list",
                json!({"invoice_id": "FAT-2026-000701"}),
            )
            .await,
    );
    assert!(text.contains("invoice_id"), "{text}");
    assert_eq!(
        calls(&stack, "/v1/"),
        before,
        "argument errors never reach Kobana"
    );
}

// ---------------------------------------------------------------- nfes

#[tokio::test]
async fn t1_nfes_tools_run_end_to_end() {
    let stack = Stack::start().await;
    let token = full_token();

    let issued = ok(&stack
        .call(&token, "billing_nfes_list", json!({"status": "issued"}))
        .await);
    assert_eq!(ids(&issued["nfes"]), [NFE_ISSUED]);
    assert_eq!(issued["nfes"][0]["nfe_number"], 1234);
    assert_eq!(issued["nfes"][0]["amount_brl"], "R$ 499,00");
    let rejected = ok(&stack
        .call(&token, "billing_nfes_list", json!({"status": "error"}))
        .await);
    assert_eq!(ids(&rejected["nfes"]), [NFE_ERROR]);
    assert!(
        rejected["nfes"][0]["error_message"]
            .as_str()
            .unwrap()
            .contains("Rejeição")
    );
    let by_invoice = ok(&stack
        .call(
            &token,
            "billing_nfes_list",
            json!({"invoice_id": INV_PAID_WITH_NFE, "billing_account_id": ACCOUNT_PAO}),
        )
        .await);
    assert_eq!(ids(&by_invoice["nfes"]), [NFE_ISSUED]);
    let by_date = ok(&stack
        .call(&token, "billing_nfes_list", json!({"issue_date_from": "2026-07-01", "issue_date_to": "2026-07-31", "sort_by": "issue_date"}))
        .await);
    assert_eq!(ids(&by_date["nfes"]), [NFE_ISSUED]);

    let got = ok(&stack
        .call(&token, "billing_nfes_get", json!({"id": NFE_ISSUED}))
        .await);
    assert_eq!(got["nfe"]["verification_code"], "K7Q2-M9XA");
    assert_eq!(
        got["nfe"]["issue_date_sao_paulo"],
        "2026-07-24T14:32:10-03:00"
    );

    let pdf = ok(&stack
        .call(&token, "billing_nfes_pdf", json!({"id": NFE_ISSUED}))
        .await);
    let size = stack
        .fake
        .pdf_bytes(DocKind::Nfe, NFE_ISSUED)
        .unwrap()
        .len();
    assert_eq!(
        pdf,
        json!({"pdf": {"nfe_id": NFE_ISSUED, "mime_type": "application/pdf", "size_bytes": size,
            "resource_uri": format!("kobana://billing/nfes/{NFE_ISSUED}/pdf")}})
    );
    let xml = ok(&stack
        .call(&token, "billing_nfes_xml", json!({"id": NFE_ISSUED}))
        .await);
    let xml = &xml["xml"];
    assert_eq!(xml["nfe_id"], NFE_ISSUED);
    assert_eq!(xml["mime_type"], "application/xml");
    assert!(xml["size_bytes"].as_u64().is_some_and(|n| n > 500), "{xml}");
    assert_eq!(
        xml["resource_uri"],
        format!("kobana://billing/nfes/{NFE_ISSUED}/xml")
    );

    let retried = ok(&stack
        .call(&token, "billing_nfes_issue", json!({"id": NFE_ERROR}))
        .await);
    assert_eq!(retried["nfe"]["status"], "pending");
    assert_eq!(retried["nfe"]["error_message"], Value::Null);

    let reason = "Serviço não prestado; cancelamento pedido pelo tomador";
    let canceled = ok(&stack
        .call(
            &token,
            "billing_nfes_cancel",
            json!({"id": NFE_ISSUED, "reason": reason}),
        )
        .await);
    assert_eq!(canceled["nfe"]["status"], "pending_cancel");
    let call = stack.kobana_calls(&format!("/v1/nfes/{NFE_ISSUED}/cancel"));
    assert_eq!(call[0].body, Some(json!({"reason": reason})));
}

#[tokio::test]
async fn t4_nfe_refusals_say_what_to_change() {
    let stack = Stack::start().await;
    let token = full_token();

    // A 10-character reason is refused here, in pt-BR, before Kobana is called.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_nfes_cancel",
                json!({"id": NFE_ISSUED, "reason": "Duplicada."}),
            )
            .await,
    );
    assert!(
        text.contains("`reason`") && text.contains("15 caracteres") && text.contains("10"),
        "{text}"
    );
    assert_eq!(
        calls(&stack, "/v1/nfes"),
        0,
        "no Kobana call for a short reason"
    );
    let text = fail(
        &stack
            .call(&token, "billing_nfes_xml", json!({"id": "nfe-1234"}))
            .await,
    );
    assert!(text.contains("UUID"), "{text}");
    let text = fail(
        &stack
            .call(
                &token,
                "billing_nfes_list",
                json!({"issue_date_from": "2026-13-01"}),
            )
            .await,
    );
    assert!(text.contains("issue_date_from"), "{text}");
    assert_eq!(
        calls(&stack, "/v1/"),
        0,
        "argument errors never reach Kobana"
    );

    // Business rules, from Kobana.
    let text = fail(
        &stack
            .call(
                &token,
                "billing_nfes_cancel",
                json!({"id": NFE_ERROR, "reason": "Serviço não prestado ao tomador"}),
            )
            .await,
    );
    assert!(
        text.contains("Somente NF-e emitidas") && text.contains("error"),
        "{text}"
    );
    let text = fail(
        &stack
            .call(&token, "billing_nfes_issue", json!({"id": NFE_ISSUED}))
            .await,
    );
    assert!(text.contains("já emitida"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_nfes_pdf", json!({"id": NFE_ERROR}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
    let text = fail(
        &stack
            .call(&token, "billing_nfes_get", json!({"id": UNKNOWN}))
            .await,
    );
    assert!(text.contains("Não encontrado"), "{text}");
}

// ---------------------------------------------------------------- lists (T-2)

#[tokio::test]
async fn t2_sort_by_outside_the_catalog_is_refused_for_each_list() {
    let stack = Stack::start().await;
    let token = full_token();
    let lists = [
        ("billing_customers_list", "document_number", "name"),
        (
            "billing_subscriptions_list",
            "plan_id",
            "cycle_billing_date",
        ),
        ("billing_invoices_list", "customer_name", "due_date"),
        ("billing_payments_list", "payment_method", "amount_cents"),
        ("billing_nfes_list", "nfe_key", "issue_date"),
    ];
    for (tool, bad, allowed) in lists {
        let text = fail(&stack.call(&token, tool, json!({"sort_by": bad})).await);
        assert!(
            text.contains("sort_by")
                && text.contains(bad)
                && text.contains(allowed)
                && text.contains("created_at"),
            "{tool}: {text}"
        );
    }
    // Also on the overdue and without-NF-e views.
    for flag in ["overdue", "without_nfe"] {
        let text = fail(
            &stack
                .call(
                    &token,
                    "billing_invoices_list",
                    json!({flag: true, "sort_by": "customer_name"}),
                )
                .await,
        );
        assert!(text.contains("due_date"), "{flag}: {text}");
    }
    assert_eq!(calls(&stack, "/v1/"), 0, "refused before any Kobana call");

    for (tool, _, allowed) in lists {
        ok(&stack
            .call(
                &token,
                tool,
                json!({"sort_by": allowed, "sort_order": "asc"}),
            )
            .await);
    }
}

#[tokio::test]
async fn t2_lists_paginate_and_say_how_to_get_the_next_page() {
    let stack = Stack::start().await;
    let token = full_token();
    let result = stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"per_page": 3, "sort_by": "created_at", "sort_order": "asc"}),
        )
        .await;
    let first = ok(&result);
    assert_eq!(first["total"], 7);
    assert_eq!(first["total_pages"], 3);
    assert_eq!(first["next_page"], 2);
    assert!(text_of(&result).contains("page=2"), "{}", text_of(&result));
    let last = ok(&stack
        .call(
            &token,
            "billing_invoices_list",
            json!({"per_page": 3, "page": 3, "sort_by": "created_at", "sort_order": "asc"}),
        )
        .await);
    assert_eq!(ids(&last["invoices"]), [INV_DRAFT]);
    assert_eq!(last["next_page"], Value::Null);
    let query = stack.kobana_calls("/v1/invoices")[1].query.clone().unwrap();
    assert!(
        query.contains("page=3") && query.contains("per_page=3"),
        "{query}"
    );
}

#[tokio::test]
async fn t3_invoice_money_shows_cents_and_brl() {
    let stack = Stack::start().await;
    let got = ok(&stack
        .call(
            &full_token(),
            "billing_invoices_get",
            json!({"id": INV_OVERDUE}),
        )
        .await);
    let inv = &got["invoice"];
    assert_eq!(inv["total_subcents"], 119_880_000);
    assert_eq!(inv["total_brl"], "R$ 11.988,00");
    assert_eq!(inv["total_withheld_brl"], "R$ 179,82");
    assert_eq!(inv["net_value_brl"], "R$ 11.808,18");
    assert_eq!(inv["due_date_sao_paulo"], "2026-08-05T00:00:00-03:00");
    assert_eq!(inv["_derived"]["is_overdue"], true);
}

#[tokio::test]
async fn t1_overdue_list_narrows_to_one_account() {
    // The overdue list for one account, as collect_overdue_invoices would use it.
    let stack = Stack::start().await;
    let overdue = ok(&stack
        .call(
            &full_token(),
            "billing_invoices_list",
            json!({"overdue": true, "billing_account_id": ACCOUNT_HORIZONTE}),
        )
        .await);
    assert_eq!(ids(&overdue["invoices"]), [INV_OVERDUE]);
    let query = stack.kobana_calls("/v1/invoices/pending-payment")[0]
        .query
        .clone()
        .unwrap();
    assert!(
        query.contains(&format!("billing_account_id={ACCOUNT_HORIZONTE}")),
        "{query}"
    );
}
