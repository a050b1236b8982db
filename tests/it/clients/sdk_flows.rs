//! The catalog, resources, prompts and confirmations driven through the official SDK clients
//! (Python `mcp` 2.x and TypeScript `@modelcontextprotocol/client` 2.x), each in era 2026
//! (auto) and era 2025 (legacy), against the fake Kobana.

use crate::common;
use fake_kobana::fixtures::ids::{
    BA_PADARIA, HORIZONTE, INV_DRAFT, INV_OPEN, INV_OVERDUE, INV_VOID, NFE_ERROR, NFE_ISSUED,
    PADARIA, PAY_CARD, PLAN_PRO, PROD_LICENSE, SUB_ACTIVE, SUB_PAST_DUE, UNKNOWN,
};

use crate::catalog::support::tools;
use common::{Runner, Stack, scenario};
use fake_kobana::{DocKind, full_token, readonly_token};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call_tool", "name": name, "arguments": arguments})
}

/// Every tool once with the arguments of the one table (`catalog::support::tools`), in its
/// order, then one failure per toolset; each with the words its error must hold, if it fails.
fn every_tool() -> Vec<(Value, Option<&'static str>)> {
    let mut plan: Vec<(Value, Option<&'static str>)> = tools::all()
        .into_iter()
        .map(|row| {
            let failure = row.fails_under_this_reading().map(|(_, words)| words);
            (call(row.name, row.args), failure)
        })
        .collect();
    plan.extend(failures());
    plan
}

/// One failure per toolset after the table's calls, with the text that tells the model what
/// to change.
fn failures() -> Vec<(Value, Option<&'static str>)> {
    vec![
        // The draft was finalized above: deleting it now is refused (without asking, FH-3, in
        // era 2026; by Kobana in era 2025).
        (
            call("billing_invoices_delete", json!({"id": INV_DRAFT})),
            Some("rascunho"),
        ),
        (
            call("billing_schemas_get", json!({"resource": "widgets"})),
            Some("customers, billing_accounts"),
        ),
        (
            call("billing_customers_get", json!({"id": UNKNOWN})),
            Some("Não encontrado"),
        ),
        (
            call("billing_subscriptions_resume", json!({"id": SUB_PAST_DUE})),
            Some("situação atual"),
        ),
        (
            call(
                "billing_invoices_void",
                json!({"id": INV_VOID, "reason": "Duplicada"}),
            ),
            // Already void. Where the person would be asked (era 2026) the server refuses
            // without asking (FH-3: "A fatura já está anulada. Situação atual da fatura:
            // anulada."); era 2025 never asks, and Kobana refuses ("Fatura já está anulada").
            Some("já está anulada"),
        ),
        (
            call(
                "billing_payments_refund",
                json!({"id": PAY_CARD, "amount_cents": 99999999}),
            ),
            // Refunded in part above: Kobana refunds succeeded payments only.
            Some("succeeded"),
        ),
        (
            call(
                "billing_nfes_cancel",
                json!({"id": NFE_ERROR, "reason": "curto"}),
            ),
            Some("15"),
        ),
        (
            call("billing_organization_get", json!({"unexpected": 1})),
            Some("`unexpected`"),
        ),
    ]
}

#[tokio::test]
async fn t4_every_tool_runs_through_each_real_client_in_both_eras() {
    let registry_names: Vec<&str> = kobana_mcp::catalog::registry()
        .all()
        .iter()
        .map(|t| t.meta.name)
        .collect();
    let plan = every_tool();
    let called: std::collections::BTreeSet<&str> = plan
        .iter()
        .map(|(s, _)| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        called,
        registry_names.iter().copied().collect(),
        "every registered tool is driven"
    );
    let steps = Value::Array(plan.iter().map(|(s, _)| s.clone()).collect());
    for runner in Runner::ALL {
        let stack = Stack::start().await;
        tools::prepare(&stack.fake);
        let report = scenario(runner, &stack.url, &full_token(), "accept", &steps).await;
        let expected_version = if runner.modern() {
            "2026-07-28"
        } else {
            "2025-11-25"
        };
        assert_eq!(report["protocolVersion"], expected_version, "{runner:?}");
        for ((step, failure), outcome) in plan.iter().zip(report["steps"].as_array().unwrap()) {
            let name = step["name"].as_str().unwrap();
            assert_eq!(
                outcome["ok"], true,
                "{runner:?} {name}: protocol error {outcome}"
            );
            let result = &outcome["result"];
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            match failure {
                None => assert_ne!(result["isError"], true, "{runner:?} {name} failed: {text}"),
                Some(needle) => {
                    assert_eq!(
                        result["isError"], true,
                        "{runner:?} {name} should fail: {text:.300}"
                    );
                    assert!(text.contains(needle), "{runner:?} {name}: {text}");
                }
            }
        }
        let elicited = report["elicitations"].as_array().unwrap().len();
        if runner.modern() {
            // Every destructive call that passes its own argument checks asks: each destructive
            // row of the table, and the refund over what is left (Kobana refuses it after the
            // yes); not the ones the record makes impossible (deleting a finalized invoice,
            // voiding a void one: FH-3), nor the NF-e cancel whose 5-character reason is
            // refused before anyone is asked.
            assert_eq!(
                elicited,
                tools::destructive_rows().len() + 1,
                "{runner:?}: each destructive call asked the person (CF-2)"
            );
        } else {
            assert_eq!(elicited, 0, "{runner:?}: era 2025 never asks (CF-5)");
        }
        let voids = stack.kobana_calls(&format!("/v1/invoices/{INV_OVERDUE}/void"));
        assert_eq!(
            voids.len(),
            1,
            "{runner:?}: the confirmed void ran exactly once"
        );
        let nfe_cancels = stack.kobana_calls(&format!("/v1/nfes/{NFE_ERROR}/cancel"));
        assert!(
            nfe_cancels.is_empty(),
            "a short reason never reaches Kobana"
        );
    }
}

#[tokio::test]
async fn r5_every_uri_reads_through_each_real_client_including_a_9_9_mb_pdf() {
    for runner in Runner::ALL {
        let stack = Stack::start().await;
        stack.fake.set_pdf_size(INV_OPEN, 9_900_000);
        let mut steps = vec![
            json!({"op": "list_resources"}),
            json!({"op": "list_templates"}),
        ];
        let uris = [
            "kobana://billing/organization".to_owned(),
            "kobana://billing/schemas".to_owned(),
            "kobana://billing/schemas/nfes".to_owned(),
            format!("kobana://billing/customers/{PADARIA}"),
            format!("kobana://billing/subscriptions/{SUB_ACTIVE}"),
            format!("kobana://billing/invoices/{INV_OPEN}"),
            format!("kobana://billing/invoices/{INV_OPEN}/pdf"),
            format!("kobana://billing/nfes/{NFE_ISSUED}"),
            format!("kobana://billing/nfes/{NFE_ISSUED}/pdf"),
            format!("kobana://billing/nfes/{NFE_ISSUED}/xml"),
            "kobana://billing/audit".to_owned(),
        ];
        steps.extend(
            uris.iter()
                .map(|u| json!({"op": "read_resource", "uri": u})),
        );
        let missing = format!("kobana://billing/invoices/{UNKNOWN}");
        steps.push(json!({"op": "read_resource", "uri": missing}));
        let report = scenario(
            runner,
            &stack.url,
            &readonly_token(),
            "accept",
            &Value::Array(steps),
        )
        .await;
        let out = report["steps"].as_array().unwrap();
        assert_eq!(
            out[0]["result"]["resources"].as_array().unwrap().len(),
            3,
            "{runner:?}: organization, schemas and the audit trail"
        );
        assert_eq!(
            out[1]["result"]["resourceTemplates"]
                .as_array()
                .unwrap()
                .len(),
            8,
            "{runner:?}"
        );
        let (read, rest) = out[2..].split_at(uris.len());
        for (uri, outcome) in uris.iter().zip(read) {
            check_read(runner, &stack, uri, outcome);
        }
        assert_eq!(out[8]["result"]["contents"][0]["blob_len"], 9_900_000);
        let not_found = &rest[0]["error"];
        let code = not_found["code"].as_i64().unwrap();
        match runner {
            // The Python client reports the wire code as sent.
            Runner::PyLegacy => assert_eq!(code, -32002),
            // Era 2026 mandates -32602; the TS SDK also maps a legacy -32002 to -32602 itself.
            _ => assert_eq!(code, -32602, "{runner:?}"),
        }
        assert_eq!(not_found["data"]["uri"], missing);

        too_large_pdf(runner, &stack).await;
    }
}

/// One resource read through a client: its uri, and its text, or its PDF's bytes equal to the
/// fake's.
fn check_read(runner: Runner, stack: &Stack, uri: &str, outcome: &Value) {
    assert_eq!(outcome["ok"], true, "{runner:?} {uri}: {outcome}");
    let content = &outcome["result"]["contents"][0];
    assert_eq!(content["uri"], uri);
    if uri.ends_with("/pdf") {
        let (kind, id) = if uri.contains("/invoices/") {
            (DocKind::Invoice, INV_OPEN)
        } else {
            (DocKind::Nfe, NFE_ISSUED)
        };
        let bytes = stack.fake.pdf_bytes(kind, id).unwrap();
        assert_eq!(content["blob_len"], bytes.len(), "{runner:?} {uri}");
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            content["blob_sha256"], digest,
            "{runner:?} {uri}: decoded bytes equal the fake's"
        );
    } else {
        assert!(
            content["text"].as_str().is_some_and(|t| !t.is_empty()),
            "{runner:?} {uri}"
        );
    }
}

/// Over the 10 MB limit: a clear error naming the size and the limit, never a blob.
async fn too_large_pdf(runner: Runner, stack: &Stack) {
    stack.fake.set_pdf_size(NFE_ISSUED, 10_600_000);
    let too_large = format!("kobana://billing/nfes/{NFE_ISSUED}/pdf");
    let steps = json!([{"op": "read_resource", "uri": too_large}]);
    let report = scenario(runner, &stack.url, &readonly_token(), "accept", &steps).await;
    let outcome = &report["steps"][0];
    assert_eq!(outcome["ok"], false, "{runner:?}: {outcome}");
    let message = outcome["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("10600000") && message.contains("10 MB"),
        "{runner:?}: {message}"
    );
}

#[tokio::test]
async fn pr5_prompts_through_each_real_client() {
    let stack = Stack::start().await;
    let steps = json!([
        {"op": "list_prompts"},
        {"op": "get_prompt", "name": "collect_overdue_invoices", "arguments": {}},
        {"op": "get_prompt", "name": "review_pending_nfes", "arguments": {}},
        {"op": "get_prompt", "name": "customer_overview", "arguments": {"customer_id": PADARIA}},
        {"op": "get_prompt", "name": "monthly_billing_summary", "arguments": {"month": "2026-08"}},
        {"op": "complete", "ref": {"type": "ref/prompt", "name": "customer_overview"}, "argument": {"name": "customer_id", "value": "Horizonte"}},
        {"op": "get_prompt", "name": "customer_overview", "arguments": {}},
        {"op": "get_prompt", "name": "customer_overview", "arguments": {"customer_id": ""}},
        {"op": "get_prompt", "name": "customer_overview", "arguments": {"customer_id": "../x"}},
        {"op": "get_prompt", "name": "customer_overview", "arguments": {"customer_id": UNKNOWN}},
        {"op": "get_prompt", "name": "monthly_billing_summary", "arguments": {"month": "2026-13"}},
        {"op": "get_prompt", "name": "monthly_billing_summary", "arguments": {"month": "2026-8"}},
        {"op": "get_prompt", "name": "monthly_billing_summary", "arguments": {"month": "agosto"}}
    ]);
    let bad_arguments = [
        "customer_id",
        "customer_id",
        "customer_id",
        "customer_id",
        "YYYY-MM",
        "YYYY-MM",
        "`month`",
    ];
    for runner in Runner::ALL {
        for (token, prompts) in [(full_token(), 4), (readonly_token(), 3)] {
            let report = scenario(runner, &stack.url, &token, "accept", &steps).await;
            let out = report["steps"].as_array().unwrap();
            assert_eq!(
                out[0]["result"]["prompts"].as_array().unwrap().len(),
                prompts,
                "{runner:?}"
            );
            let first = &out[1];
            if prompts == 4 {
                let text = first["result"]["messages"][0]["content"]["text"]
                    .as_str()
                    .unwrap();
                assert!(
                    text.contains("billing_invoices_send_reminder"),
                    "{runner:?}"
                );
            } else {
                assert_eq!(
                    first["error"]["code"], -32602,
                    "{runner:?}: A-2 read-only never gets it"
                );
            }
            for outcome in &out[2..5] {
                assert_eq!(outcome["ok"], true, "{runner:?}: {outcome}");
            }
            for (outcome, needle) in out[6..].iter().zip(bad_arguments) {
                assert_eq!(outcome["error"]["code"], -32602, "{runner:?}: {outcome}");
                let message = outcome["error"]["message"].as_str().unwrap();
                assert!(message.contains(needle), "{runner:?}: {message}");
            }
            assert_eq!(out.len(), 6 + bad_arguments.len());
            assert_eq!(
                out[5]["result"]["completion"]["values"],
                json!([HORIZONTE]),
                "{runner:?}"
            );
        }
    }
}

#[tokio::test]
async fn cf3_elicitation_handlers_answering_yes_and_no() {
    for runner in [Runner::TsAuto, Runner::PyAuto] {
        for (answer, executes) in [
            ("decline", false),
            ("cancel", false),
            ("accept_false", false),
            ("accept", true),
        ] {
            let stack = Stack::start().await;
            let steps = json!([call(
                "billing_invoices_void",
                json!({"id": INV_OPEN, "reason": "Cobrança emitida em duplicidade"})
            )]);
            let report = scenario(runner, &stack.url, &full_token(), answer, &steps).await;
            let shown = report["elicitations"].as_array().unwrap();
            assert_eq!(shown.len(), 1, "{runner:?} {answer}");
            assert!(
                shown[0].as_str().unwrap().contains("FAT-2026-000812"),
                "{runner:?}: {shown:?}"
            );
            let result = &report["steps"][0]["result"];
            let voids = stack.kobana_calls(&format!("/v1/invoices/{INV_OPEN}/void"));
            if executes {
                assert_eq!(result["isError"], false, "{runner:?}: {result}");
                assert_eq!(result["structuredContent"]["invoice"]["status"], "void");
                assert_eq!(voids.len(), 1);
            } else {
                assert_eq!(result["isError"], true, "{runner:?} {answer}: {result}");
                assert_eq!(
                    common::error_code(result),
                    "USER_DECLINED",
                    "{runner:?}: {result}"
                );
                assert!(voids.is_empty(), "{runner:?} {answer}: nothing changed");
            }
        }
    }
}

/// Completions through each real client in both eras answer only a prompt's own arguments
/// (BW-1): `customer_id` of `customer_overview` is suggested from the customers list; an
/// argument the prompt does not take (`billing_account_id`, `plan_id`, `product_id`,
/// `price_id`) or a prompt that does not exist gets an empty list and costs no Kobana call.
#[tokio::test]
async fn n6_completions_answer_only_a_prompt_s_own_arguments_through_each_real_client() {
    let stack = Stack::start().await;
    let complete = |prompt: &str, name: &str, value: &str, context: Value| json!({"op": "complete", "ref": {"type": "ref/prompt", "name": prompt}, "argument": {"name": name, "value": value}, "context": context});
    let steps = json!([
        complete("customer_overview", "customer_id", "", Value::Null),
        complete(
            "customer_overview",
            "billing_account_id",
            &BA_PADARIA[..4],
            Value::Null
        ),
        complete("customer_overview", "plan_id", "", Value::Null),
        complete(
            "customer_overview",
            "product_id",
            &PROD_LICENSE[..4],
            Value::Null
        ),
        complete(
            "customer_overview",
            "price_id",
            "",
            json!({"plan_id": PLAN_PRO})
        ),
        complete("no_such_prompt", "price_id", "", Value::Null),
        complete("no_such_prompt", "customer_id", "", Value::Null),
    ]);
    for runner in Runner::ALL {
        let before = stack.kobana_calls("/v1/").len();
        let report = scenario(runner, &stack.url, &full_token(), "accept", &steps).await;
        let out = report["steps"].as_array().unwrap();
        let values = |n: usize| out[n]["result"]["completion"]["values"].clone();
        assert!(
            values(0).as_array().is_some_and(|v| !v.is_empty()),
            "{runner:?}: {}",
            out[0]
        );
        let calls = stack.kobana_calls("/v1/");
        assert_eq!(
            calls.len() - before,
            1,
            "{runner:?}: only customer_id reads Kobana"
        );
        assert!(calls[before].path.starts_with("/v1/customers"), "{calls:?}");
        for (n, outcome) in out.iter().enumerate().skip(1) {
            assert_eq!(values(n), json!([]), "{runner:?}: {outcome}");
        }
    }
    let violations = stack.fake.contract_violations();
    assert!(violations.is_empty(), "{violations:?}");
}

/// Wrong arguments of every kind, through each real client in both eras: the tool error names
/// the argument (its path) and says what to send — read from the same input schema the
/// client was shown.
#[tokio::test]
async fn t4_wrong_arguments_name_the_argument_through_each_real_client() {
    let stack = Stack::start().await;
    let cases = [
        (
            "billing_customers_list",
            json!({"page": "primeira"}),
            "`page`: esperado um número inteiro, recebido \"primeira\"",
        ),
        (
            "billing_customers_list",
            json!({"per_page": 0}),
            "`per_page` deve estar entre 1 e 100; recebido 0",
        ),
        (
            "billing_payments_list",
            json!({"status": "paid"}),
            "`status`: esperado um destes valores: pending,",
        ),
        ("billing_invoices_get", json!({}), "`id` é obrigatório"),
        (
            "billing_customers_list",
            json!({"sort_order": "up"}),
            "`sort_order`: esperado um destes valores: asc, desc",
        ),
        (
            "billing_invoices_create",
            json!({"billing_account_id": BA_PADARIA, "line_items": [{"description": "x", "unit_amount_cents": -5}]}),
            "`line_items[0].unit_amount_cents`",
        ),
        (
            "billing_subscriptions_create",
            json!({"billing_account_id": BA_PADARIA, "items": [{"product_id": PROD_LICENSE}]}),
            "`items[0].price_id` é obrigatório",
        ),
        (
            "billing_organization_get",
            json!({"unexpected": 1}),
            "`unexpected`",
        ),
    ];
    let steps = Value::Array(
        cases
            .iter()
            .map(|(tool, args, _)| call(tool, args.clone()))
            .collect(),
    );
    for runner in Runner::ALL {
        let report = scenario(runner, &stack.url, &full_token(), "accept", &steps).await;
        for ((tool, args, needle), outcome) in cases.iter().zip(report["steps"].as_array().unwrap())
        {
            let result = &outcome["result"];
            assert_eq!(
                result["isError"], true,
                "{runner:?} {tool} {args}: {outcome}"
            );
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            assert!(text.contains(needle), "{runner:?} {tool} {args}: {text}");
        }
    }
    assert!(
        stack.kobana_calls("/v1/").is_empty(),
        "no wrong call reaches Kobana"
    );
}
