//! The generic tools (WA-2, WA-3): every reviewed row run through its tool against the fake,
//! with 0 contract violations and at most two Kobana calls a call; excluded rows, wrong tools
//! and bad arguments refused before any call; the same gates as the curated tools (read-only
//! tokens, narrowing by resource, search filtered by permissions); answers shaped like the
//! curated lists. The confirmation of destructive rows is in `confirm.rs`.

use serde_json::{Value, json};

use crate::common::{self, Stack, error_code, text_of};
use crate::operations::support::*;
use fake_kobana::{full_token, readonly_token, scoped_token};
use kobana_mcp::catalog::operations::{Class, all};

/// Kobana calls the fake recorded so far.
fn calls(stack: &Stack) -> usize {
    stack.kobana_calls("/v1/").len()
}

/// Runs one case as `token` in era 2025; answers the result and the Kobana calls it cost.
async fn run(stack: &Stack, token: &str, case: &Case) -> (Value, usize) {
    let before = calls(stack);
    let result = stack.call(token, case.tool, case.args.clone()).await;
    (result, calls(stack) - before)
}

/// A result the server may give a schema-valid call: a success, or Kobana's own refusal of
/// the request it received (a record in another state) — never the server's own refusal.
fn ran(case: &Case, result: &Value) -> Result<(), String> {
    if result["isError"] != true {
        return Ok(());
    }
    let code = error_code(result);
    if code.starts_with("KOBANA_") && code != "KOBANA_CONTRACT_VIOLATION" {
        return Ok(());
    }
    Err(format!(
        "{}: {code}: {} ({})",
        case.row.operation,
        text_of(result),
        case.args
    ))
}

/// Runs a destructive case in era 2026 from a client with forms: asked first (nothing sent,
/// the record read once), then run on the yes. Answers the final result and the calls of each
/// step.
async fn confirmed(stack: &Stack, case: &Case) -> Result<(Value, usize, usize), String> {
    let token = full_token();
    let writes = |s: &Stack| s.fake.writes().len();
    let (before, writes_before) = (calls(stack), writes(stack));
    let body = stack
        .call_with_forms(&token, case.tool, &case.args, json!({}))
        .await;
    let asked = calls(stack) - before;
    let result = &body["result"];
    if result["resultType"] != "input_required" {
        return Err(format!(
            "{}: not asked first: {}",
            case.row.operation,
            crate::common::text_of(result)
        ));
    }
    if writes(stack) != writes_before {
        return Err(format!("{}: asking sent a write", case.row.operation));
    }
    let state = result["requestState"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let before = calls(stack);
    let done = stack
        .call_with_forms(
            &token,
            case.tool,
            &case.args,
            json!({"requestState": state, "inputResponses": {"confirm":
                {"action": "accept", "content": {"confirm": true}}}}),
        )
        .await;
    Ok((done["result"].clone(), asked, calls(stack) - before))
}

/// WA-2: every reviewed row whose operation the contract has runs through its tool — reads
/// and writes once, destructive rows asked first and confirmed in era 2026, then directly in
/// era 2025 — each call costing at most two Kobana calls, and the fake sees no request off
/// the contract.
#[tokio::test]
async fn wa2_every_row_runs_through_its_tool_against_the_fake_on_the_contract() {
    let stack = Stack::start().await;
    let mut cases = table();
    assert!(cases.len() >= 30, "{} rows with an operation", cases.len());
    // Reads first, destructive rows last and deletes at the very end: what they delete is
    // read (and asked about) before.
    cases.sort_by_key(|c| match c.row.class {
        Class::Read => 0,
        Class::Write => 1,
        Class::Destructive { .. } if c.op.method != "DELETE" => 2,
        Class::Destructive { .. } => 3,
    });
    let mut failures = Vec::new();
    let token = full_token();
    for case in &cases {
        if let Class::Destructive { .. } = case.row.class {
            match confirmed(&stack, case).await {
                Ok((result, asked, ran_calls)) => {
                    if asked > 1 || ran_calls > 1 {
                        failures.push(format!(
                            "{}: asking cost {asked} calls, running {ran_calls}",
                            case.row.operation
                        ));
                    }
                    failures.extend(ran(case, &result).err());
                }
                Err(e) => failures.push(e),
            }
        }
        let (result, cost) = run(&stack, &token, case).await;
        if cost == 0 || cost > 2 {
            failures.push(format!("{}: {cost} Kobana calls", case.row.operation));
        }
        failures.extend(ran(case, &result).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(stack.fake.contract_violations(), vec![], "on the contract");
    let exercised = stack.fake.exercised_operations();
    for case in &cases {
        assert!(
            exercised.contains(&case.op.id),
            "{} never reached the fake",
            case.row.operation
        );
    }
}

/// WA-2: an excluded row answers why, in pt-BR, and calls nothing.
#[tokio::test]
async fn wa2_excluded_rows_are_refused_without_a_call() {
    let stack = Stack::start().await;
    let excluded: Vec<_> = all().filter(|row| row.excluded.is_some()).collect();
    assert!(
        !excluded.is_empty(),
        "the rows exclude what never goes through a model"
    );
    for row in excluded {
        for tool in [READ, WRITE, DESTRUCTIVE] {
            let before = calls(&stack);
            let result = stack
                .call(&full_token(), tool, json!({"operation": row.operation}))
                .await;
            assert_eq!(error_code(&result), "OPERATION_EXCLUDED", "{result}");
            let text = text_of(&result);
            assert!(
                text.contains(row.excluded.unwrap_or_default())
                    && text.contains("Nada foi enviado"),
                "{text}"
            );
            assert_eq!(calls(&stack), before, "{}: no Kobana call", row.operation);
        }
        fake_kobana::contract_log::record_refused(row.operation);
    }
}

/// WA-2: a row sent through another tool runs nothing, and the refusal names the right one.
#[tokio::test]
async fn wa2_a_row_through_the_wrong_tool_runs_nothing_and_names_the_right_one() {
    let stack = Stack::start().await;
    let mut seen = std::collections::BTreeSet::new();
    for case in table() {
        for tool in [READ, WRITE, DESTRUCTIVE] {
            if tool == case.tool {
                continue;
            }
            let before = calls(&stack);
            let result = stack.call(&full_token(), tool, case.args.clone()).await;
            assert_eq!(
                error_code(&result),
                "WRONG_TOOL",
                "{tool} {}: {result}",
                case.args
            );
            let text = text_of(&result);
            assert!(
                text.contains(case.tool) && text.contains("Nada foi executado"),
                "{text}"
            );
            assert_eq!(calls(&stack), before, "{tool} {}", case.row.operation);
            seen.insert(case.tool);
        }
    }
    assert_eq!(seen.len(), 3, "rows of every class were tried");
}

/// WA-2: arguments off the operation's schema are refused in pt-BR, naming the argument, and
/// Kobana never sees them.
#[tokio::test]
async fn wa2_bad_arguments_are_refused_in_pt_br_naming_the_argument() {
    let stack = Stack::start().await;
    let cases: Vec<common::Refusal> = vec![
        (
            WRITE,
            json!({"operation": "post-invoices", "body": {"billing_account_id": BA_MARIANA,
                "line_items": [{"description": "Consultoria", "quantity": "2"}]}}),
            &["`body.line_items[0].quantity`", "deve ser um número"],
        ),
        (
            WRITE,
            json!({"operation": "post-invoices", "body": {"billing_account_id": BA_MARIANA,
                "line_items": [{"quantity": 1}]}}),
            &["`body.line_items[0].description`", "obrigatório"],
        ),
        (
            READ,
            json!({"operation": "get-invoices", "query": {"status": "pago"}}),
            &["`query.status`", "um destes", "open"],
        ),
        (
            READ,
            json!({"operation": "get-invoices", "query": {"nope": 1}}),
            &["`query.nope`", "não existe"],
        ),
        (
            WRITE,
            json!({"operation": "patch-customers-id", "path": {"id": MARIANA},
                "body": {"nickname": "x", "is_admin": true}}),
            &["`body.is_admin`", "não existe"],
        ),
        (
            READ,
            json!({"operation": "get-invoices-id", "path": {"id": "../organization"}}),
            &["`path.id`"],
        ),
        (
            READ,
            json!({"operation": "get-customers-id", "path": {"id": "a/../b"}}),
            &["`path.id`", "id do Kobana"],
        ),
        (
            READ,
            json!({"operation": "get-invoices-id"}),
            &["`path.id`", "obrigatório"],
        ),
        (
            READ,
            json!({"operation": "get-organization", "body": {"x": 1}}),
            &["`body`", "não é aceito"],
        ),
        (
            READ,
            json!({"operation": "no-such-operation"}),
            &["operação desconhecida", "billing_operations_search"],
        ),
    ];
    common::assert_refused_before_kobana(&stack, &full_token(), cases).await;
}

/// WA-3: a read-only token lists the search and read tools only, and runs no write row.
#[tokio::test]
async fn wa3_a_read_only_token_sees_only_search_and_read_and_runs_no_write_row() {
    let stack = Stack::start().await;
    for token in [
        readonly_token(),
        scoped_token(
            "person-ana",
            fake_kobana::FIXTURE_ORG_ID,
            "invoices:read customers:read",
        ),
    ] {
        let names = stack.tool_names(&token, &[]).await;
        let generic: Vec<&String> = names
            .iter()
            .filter(|n| n.starts_with("billing_operations_"))
            .collect();
        assert_eq!(generic, [SEARCH, READ], "{names:?}");
        for (tool, args) in [
            (
                WRITE,
                json!({"operation": "patch-customers-id", "path": {"id": MARIANA}, "body": {"nickname": "x"}}),
            ),
            (
                DESTRUCTIVE,
                json!({"operation": "post-invoices-id-void", "path": {"id": INV_OPEN}, "body": {}}),
            ),
        ] {
            let before = calls(&stack);
            let result = stack.call(&token, tool, args).await;
            assert_eq!(error_code(&result), "PERMISSION_DENIED", "{result}");
            assert_eq!(calls(&stack), before);
        }
        let result = stack
            .call(&token, READ, json!({"operation": "get-invoices"}))
            .await;
        assert_ne!(result["isError"], true, "{result}");
    }
    // `X-MCP-Readonly` narrows a full token the same way.
    let names = stack
        .tool_names(&full_token(), &[("x-mcp-readonly", "true")])
        .await;
    assert!(
        names.contains(&READ.to_owned()) && !names.contains(&WRITE.to_owned()),
        "{names:?}"
    );
}

/// WA-3: a token granted one resource writes only that resource's rows; another resource's
/// row is refused with the permission it needs, before any call.
#[tokio::test]
async fn wa3_each_row_needs_its_resources_permission_by_class() {
    let stack = Stack::start().await;
    let token = scoped_token("person-ana", fake_kobana::FIXTURE_ORG_ID, "invoices:write");
    let names = stack.tool_names(&token, &[]).await;
    assert!(names.contains(&WRITE.to_owned()), "{names:?}");
    let before = calls(&stack);
    let result = stack
        .call(&token, WRITE, json!({"operation": "patch-customers-id", "path": {"id": MARIANA}, "body": {"nickname": "x"}}))
        .await;
    assert_eq!(error_code(&result), "PERMISSION_DENIED", "{result}");
    assert!(text_of(&result).contains("customers:write"), "{result}");
    let result = stack
        .call(&token, READ, json!({"operation": "get-customers"}))
        .await;
    assert!(text_of(&result).contains("customers:read"), "{result}");
    assert_eq!(calls(&stack), before);
    let result = stack
        .call(
            &token,
            READ,
            json!({"operation": "get-invoices", "query": {"per_page": 2}}),
        )
        .await;
    assert_ne!(result["isError"], true, "{result}");
}

/// WA-3: `X-MCP-Toolsets` narrows the generic tools by resource: with `invoices` they reach
/// only invoice rows (search included); any resource slug of the document is a valid name.
#[tokio::test]
async fn wa3_narrowing_by_toolset_reaches_only_the_named_resources() {
    let stack = Stack::start().await;
    let narrowed = [("x-mcp-toolsets", "invoices")];
    let names = stack.tool_names(&full_token(), &narrowed).await;
    for tool in [SEARCH, READ, WRITE, DESTRUCTIVE] {
        assert!(names.contains(&tool.to_owned()), "{tool}: {names:?}");
    }
    assert!(!names.contains(&"billing_customers_list".to_owned()));
    let headers = [("mcp-protocol-version", "2025-11-25"), narrowed[0]];
    let call = |args: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": READ, "arguments": args}});
        stack.post_full(body.to_string(), &headers)
    };
    let before = calls(&stack);
    let (_, body) = call(json!({"operation": "get-customers"})).await;
    assert!(
        text_of(&body["result"]).contains("X-MCP-Toolsets"),
        "{body}"
    );
    assert_eq!(calls(&stack), before, "narrowed away: no call");
    let (_, body) = call(json!({"operation": "get-invoices", "query": {"per_page": 1}})).await;
    assert_ne!(body["result"]["isError"], true, "{body}");
    let search = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": SEARCH, "arguments": {"query": "listar clientes faturas"}}});
    let (_, body) = stack
        .post_full(
            search.to_string(),
            &[("mcp-protocol-version", "2025-11-25"), narrowed[0]],
        )
        .await;
    let found = operations_of(&body["result"]["structuredContent"]);
    assert!(
        !found.is_empty() && found.iter().all(|o| o.contains("invoices")),
        "{found:?}"
    );
    // Any resource of the document is a valid name (an unknown one is refused with -32600:
    // protocol::raw_http).
    let names = stack
        .tool_names(&full_token(), &[("x-mcp-toolsets", "credits")])
        .await;
    assert!(
        names.contains(&SEARCH.to_owned())
            && !names.iter().any(|n| n.starts_with("billing_invoices_")),
        "{names:?}"
    );
}

fn operations_of(result: &Value) -> Vec<String> {
    result["operations"]
        .as_array()
        .unwrap_or_else(|| panic!("no operations: {result}"))
        .iter()
        .map(|o| o["operation"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// WA-2: search answers only the rows the token may run.
#[tokio::test]
async fn wa2_search_answers_only_rows_the_token_may_run() {
    let stack = Stack::start().await;
    let search = |token: String, query: &'static str| {
        let stack = &stack;
        async move {
            let result = stack.call(&token, SEARCH, json!({"query": query})).await;
            assert_ne!(result["isError"], true, "{result}");
            operations_of(&result["structuredContent"])
        }
    };
    let all_found = search(full_token(), "anular fatura").await;
    assert_eq!(
        all_found.first().map(String::as_str),
        Some("post-invoices-id-void"),
        "{all_found:?}"
    );
    let read_only = search(readonly_token(), "anular fatura").await;
    assert!(
        !read_only.contains(&"post-invoices-id-void".to_owned()),
        "{read_only:?}"
    );
    let invoices = scoped_token("person-ana", fake_kobana::FIXTURE_ORG_ID, "invoices:read");
    let found = search(invoices.clone(), "listar clientes").await;
    assert!(!found.iter().any(|o| o.contains("customers")), "{found:?}");
    let found = search(full_token(), "listar clientes").await;
    assert_eq!(
        found.first().map(String::as_str),
        Some("get-customers"),
        "{found:?}"
    );
    // Describing an operation the token cannot run is refused like running it.
    let result = stack
        .call(&invoices, SEARCH, json!({"operation": "get-customers"}))
        .await;
    assert_eq!(error_code(&result), "PERMISSION_DENIED", "{result}");
    assert!(stack.fake.calls().is_empty(), "search calls nothing");
}

/// WA-2: `operation` describes one operation: its arguments with what is required, money
/// units, and whether it asks first.
#[tokio::test]
async fn wa2_search_with_an_operation_shows_arguments_units_and_whether_it_asks() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            SEARCH,
            json!({"operation": "post-payments-id-refund"}),
        )
        .await;
    let described = &result["structuredContent"];
    assert_eq!(described["asks_first"], true, "{result}");
    assert_eq!(described["tool"], DESTRUCTIVE);
    assert_eq!(described["method"], "POST");
    assert_eq!(described["path"], "/v1/payments/{id}/refund");
    assert_eq!(described["arguments"]["path"]["id*"], "uuid");
    let amount = described["arguments"]["body"]["amount_cents"]
        .as_str()
        .unwrap_or_default();
    assert!(amount.contains("centavos"), "{described}");
    let result = stack
        .call(&full_token(), SEARCH, json!({"operation": "get-invoices"}))
        .await;
    let described = &result["structuredContent"];
    assert_eq!(described["asks_first"], false);
    assert!(
        described["arguments"]["query"]["status"]
            .as_str()
            .unwrap_or_default()
            .contains("open")
    );
    assert!(
        described["answer"]
            .as_str()
            .unwrap_or_default()
            .contains("query.page")
    );
    assert!(stack.fake.calls().is_empty());
}

/// WA-2: writes carry the idempotency key the curated writes carry; reads carry none.
#[tokio::test]
async fn wa2_writes_carry_an_idempotency_key() {
    let stack = Stack::start().await;
    let result = stack
        .call(
            &full_token(),
            WRITE,
            json!({"operation": "patch-customers-id",
            "path": {"id": MARIANA}, "body": {"nickname": "Mari"}}),
        )
        .await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(
        result["structuredContent"]["data"]["nickname"], "Mari",
        "{result}"
    );
    let call = stack
        .kobana_calls(&format!("/v1/customers/{MARIANA}"))
        .pop()
        .unwrap();
    assert_eq!(call.method, "PATCH");
    let key = call.idempotency_key.expect("a write carries a key");
    assert!(kobana_mcp::catalog::uuid_arg("key", &key).is_ok(), "{key}");
    stack
        .call(
            &full_token(),
            READ,
            json!({"operation": "get-customers-id", "path": {"id": MARIANA}}),
        )
        .await;
    let read = stack
        .kobana_calls(&format!("/v1/customers/{MARIANA}"))
        .pop()
        .unwrap();
    assert_eq!((read.method.as_str(), read.idempotency_key), ("GET", None));
}

/// WA-2: a binary document stays a resource: the read answers its `kobana://` URI, never bytes.
#[tokio::test]
async fn wa2_binary_documents_stay_resources() {
    let stack = Stack::start().await;
    for (operation, id, uri) in [
        (
            "get-invoices-id-pdf",
            INV_OPEN,
            format!("kobana://billing/invoices/{INV_OPEN}/pdf"),
        ),
        (
            "get-nfes-id-xml",
            NFE_ISSUED,
            format!("kobana://billing/nfes/{NFE_ISSUED}/xml"),
        ),
    ] {
        let result = stack
            .call(
                &full_token(),
                READ,
                json!({"operation": operation, "path": {"id": id}}),
            )
            .await;
        let data = &result["structuredContent"]["data"];
        assert_eq!(data["resource_uri"], uri, "{result}");
        assert_eq!(data["id"], id);
        assert!(
            data["mime_type"]
                .as_str()
                .unwrap_or_default()
                .starts_with("application/")
        );
        assert!(result.to_string().len() < 2000, "no bytes: {result}");
    }
}

/// WA-2: list answers go through the curated lists' shaping: compact rows where the resource
/// has them, within the answer budget, with where to continue.
#[tokio::test]
async fn wa2_list_answers_stay_within_the_budget_and_say_where_to_continue() {
    let budget = kobana_mcp::catalog::MIN_ANSWER_BUDGET_BYTES;
    let stack = Stack::start_with(|c| c.rows.budget_bytes = budget).await;
    for operation in ["get-invoices", "get-payments", "get-customers", "get-nfes"] {
        let result = stack
            .call(
                &full_token(),
                READ,
                json!({"operation": operation, "query": {"per_page": 100}}),
            )
            .await;
        let answer = &result["structuredContent"];
        let text = text_of(&result);
        assert!(
            text.len() <= budget,
            "{operation}: {} bytes > {budget}",
            text.len()
        );
        assert!(answer["data"].is_array(), "{answer}");
        if answer["cut"] == true {
            assert!(answer["next_page"].as_u64().is_some(), "{answer}");
            assert!(
                answer["hint"]
                    .as_str()
                    .unwrap_or_default()
                    .contains("query.page="),
                "{answer}"
            );
        }
    }
    // Compact rows for invoices: the curated list's row, not the whole record.
    let result = stack
        .call(
            &full_token(),
            READ,
            json!({"operation": "get-invoices", "query": {"per_page": 2}}),
        )
        .await;
    let row = &result["structuredContent"]["data"][0];
    assert!(
        row.get("line_items").is_none() && row.get("id").is_some(),
        "{row}"
    );
}

/// WA-3: a generic call is held to the request's work budget (`KOBANA_MAX_CALLS`): with one
/// call allowed, a list that would read a customer's name answers without it, in one call.
#[tokio::test]
async fn wa3_a_generic_call_is_held_to_the_work_budget() {
    let stack = Stack::start_with(|c| c.work.max_calls = 1).await;
    let before = calls(&stack);
    let result = stack
        .call(
            &full_token(),
            READ,
            json!({"operation": "get-invoices", "query": {"per_page": 5}}),
        )
        .await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(calls(&stack) - before, 1, "one call, as the budget allows");
    let rows = result["structuredContent"]["data"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r.get("customer").is_none()),
        "{result}"
    );
}
