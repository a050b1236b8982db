//! End-to-end tests of the billing tool catalog itself against the fake Kobana: the registry
//! holds exactly the spec tools and `tools/list` shows them (T-1), destructive tools are marked
//! (CF-1), and a read-only token neither sees nor runs a write tool. The toolsets' own tests
//! are in `catalog/<toolset>.rs`, what every list shares in `catalog/lists.rs`.

use crate::common;

use std::collections::BTreeSet;

use crate::catalog::support::*;
use common::Stack;
use fake_kobana::fixtures::ids;
use fake_kobana::{full_token, readonly_token, scoped_token};
use serde_json::{Value, json};

// ---------------------------------------------------------------- the catalog itself

/// The registry holds exactly the tools of the one table (`support::tools`), each once.
#[tokio::test]
async fn t1_registry_holds_exactly_the_spec_tools() {
    let registry: BTreeSet<&str> = kobana_mcp::catalog::registry()
        .all()
        .iter()
        .map(|t| t.meta.name)
        .collect();
    let table = tools::all();
    let spec: BTreeSet<&str> = table.iter().map(|t| t.name).collect();
    assert_eq!(spec.len(), table.len(), "a tool twice in the table");
    assert_eq!(registry, spec);
    assert_eq!(registry.len(), 50, "one registry entry per catalog tool");

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
                    // Era 2026 without the MCP Apps extension: the same tools, no view links.
                    .map(|n| registry.get(n).expect("a catalog tool").tool_for(!modern))
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
async fn t1_full_tools_list_is_within_40_kb() {
    let stack = Stack::start().await;
    let tools = tools_list(&stack, &full_token()).await;
    let bytes = serde_json::to_vec(&json!({ "tools": tools }))
        .unwrap()
        .len();
    let limit = kobana_mcp::catalog::MAX_TOOLS_LIST_BYTES;
    assert!(
        bytes <= limit,
        "tools/list is {bytes} bytes (limit {limit})"
    );
}

#[tokio::test]
async fn bw1_array_arguments_are_capped_by_their_schema_and_tags_are_sent_once() {
    let stack = Stack::start().await;
    let token = full_token();
    let max = kobana_mcp::catalog::MAX_ARRAY_ITEMS;
    let tools = tools_list(&stack, &token).await;
    let arrays = array_arguments(max);
    let declared: usize = tools
        .iter()
        .map(|t| {
            t["inputSchema"]["properties"]
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(name, p)| p["type"] == "array" && name.as_str() != "fields")
                .count()
        })
        .sum();
    assert_eq!(
        declared,
        arrays.len(),
        "an array argument without its case here"
    );
    let before = stack.kobana_calls("/v1/").len();
    for (tool, base, argument, one, cap) in arrays {
        let schema = tools
            .iter()
            .find(|t| t["name"] == tool)
            .map(|t| &t["inputSchema"]["properties"][argument])
            .unwrap();
        assert_eq!(
            schema["maxItems"],
            json!(cap),
            "{tool}.{argument}: {schema}"
        );
        let mut args = base.clone();
        args[argument] = json!(vec![one; cap + 1]);
        let result = stack.call(&token, tool, args).await;
        assert_eq!(result["isError"], true, "{tool}.{argument}: {result}");
        let text = common::text_of(&result);
        // `… uma lista de até 50 itens, recebido …` (`de 1 a 200 itens` with a minimum).
        assert!(
            text.contains(&format!("`{argument}`: esperado uma lista de "))
                && text.contains(&format!(
                    " {cap} itens, recebido uma lista de {} itens",
                    cap + 1
                )),
            "{tool}.{argument}: {text}"
        );
    }
    assert_eq!(
        stack.kobana_calls("/v1/").len(),
        before,
        "a list over its cap never reaches Kobana"
    );
    tags_at_the_cap(&stack, &token, max).await;
}

/// Every array argument of the catalog, and its cap (`fields` aside: its list's names): the
/// tool, its other arguments, the argument, one item, the cap.
fn array_arguments(max: usize) -> [(&'static str, Value, &'static str, Value, usize); 8] {
    let address = json!({"street": "Rua Augusta", "city": "São Paulo", "state": "SP"});
    let item = json!({"product_id": ids::PROD_LICENSE, "price_id": ids::PRICE_PRO_LICENSE});
    let line = json!({"description": "Licença", "unit_amount_cents": 100});
    let credit = json!(ids::CREDIT_WELCOME);
    [
        (
            "billing_customers_create",
            json!({"name": "Zé"}),
            "tags",
            json!("vip"),
            max,
        ),
        (
            "billing_customers_create",
            json!({"name": "Zé"}),
            "addresses",
            address.clone(),
            max,
        ),
        (
            "billing_customers_update",
            json!({"id": ids::PADARIA}),
            "tags",
            json!("vip"),
            max,
        ),
        (
            "billing_customers_update",
            json!({"id": ids::PADARIA}),
            "addresses",
            address,
            max,
        ),
        (
            "billing_subscriptions_create",
            json!({"billing_account_id": ids::BA_PADARIA}),
            "items",
            item,
            max,
        ),
        (
            "billing_invoices_create",
            json!({"billing_account_id": ids::BA_PADARIA}),
            "line_items",
            line,
            200,
        ),
        (
            "billing_invoices_mark_paid",
            json!({"id": ids::INV_OPEN}),
            "installment_ids",
            credit.clone(),
            kobana_mcp::catalog::MAX_INSTALLMENT_IDS,
        ),
        (
            "billing_invoices_apply_credits",
            json!({"id": ids::INV_OPEN}),
            "credit_ids",
            credit,
            kobana_mcp::catalog::MAX_CREDIT_IDS,
        ),
    ]
}

/// At the cap a list is taken; tags go out each once, in the order first given.
async fn tags_at_the_cap(stack: &Stack, token: &str, max: usize) {
    let tags: Vec<String> = (0..max).map(|i| format!("tag-{}", i % 3)).collect();
    let result = stack
        .call(
            token,
            "billing_customers_update",
            json!({"id": ids::PADARIA, "tags": tags}),
        )
        .await;
    assert_ne!(result["isError"], true, "{result}");
    let sent = stack
        .kobana_calls("/v1/customers/")
        .into_iter()
        .rfind(|c| c.method == "PATCH")
        .and_then(|c| c.body)
        .unwrap();
    assert_eq!(sent["tags"], json!(["tag-0", "tag-1", "tag-2"]), "{sent}");
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
    let table = tools::all();
    let rows: BTreeSet<&str> = tools::destructive_rows().iter().map(|t| t.name).collect();
    assert_eq!(destructive, rows);

    // Every destructive tool ends with the same confirmation sentence.
    let reference = tool("billing_customers_delete")["description"]
        .as_str()
        .unwrap()
        .to_owned();
    let sentence = &reference[reference.find(" Asks the person first").unwrap()..];
    for name in rows {
        let t = tool(name);
        assert!(
            t["description"].as_str().unwrap().ends_with(sentence),
            "{name}"
        );
        assert_eq!(t["annotations"]["readOnlyHint"], false, "{name}");
    }
    // Reads are read-only; writes are neither read-only nor destructive; idempotency is
    // stated honestly.
    for row in &table {
        let t = tool(row.name);
        let is_read = row.effect == tools::Effect::Read;
        assert_eq!(t["annotations"]["readOnlyHint"], is_read, "{}", row.name);
        if is_read {
            assert_ne!(t["annotations"]["destructiveHint"], true, "{}", row.name);
        }
        if let Some(idempotent) = row.effect.idempotent() {
            assert_eq!(
                t["annotations"]["idempotentHint"], idempotent,
                "{}",
                row.name
            );
        }
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
    let writes: Vec<_> = tools::all()
        .into_iter()
        .filter_map(|t| Some((t.name, t.args, t.effect.permission()?)))
        .collect();
    assert_eq!(
        writes.len(),
        registry.all().len() - names.len(),
        "every write tool"
    );
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
