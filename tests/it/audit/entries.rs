//! The audit trail's entries (AU-1, AU-2, AU-3, AU-5, AU-6) against the fake Kobana and a
//! real DynamoDB API (moto's server, through the real `aws-sdk-dynamodb` client): each kind of
//! write leaves exactly one entry with every field right, a store that refuses the first
//! write leaves Kobana untouched, the table is the template's, each entry gives one metric,
//! and the export script reads the table back.

use crate::common;
use fake_kobana::fixtures::ids::{INV_OPEN, INV_PAID_NFE_ERROR, PADARIA};

use std::sync::Arc;

use crate::audit::support::{Rig, arguments_sha256, forged, is_uuid, now, stack_with_audit};
use fake_kobana::{FIXTURE_ORG_ID, full_token};
use kobana_mcp::audit::{
    AuditStore, AuditStoreError, BoxFuture, Completion, Entry, ListQuery, Listed, MemoryAudit,
    rfc3339_millis,
};
use serde_json::{Value, json};

const VOID: &str = "billing_invoices_void";

/// What every entry holds whatever the write: the organization and person of the fixture
/// token, an id and times of the right shape, the retention's expiry.
fn assert_common(item: &Value, tool: &str, args: &Value) {
    let id = item["id"].as_str().expect("an id");
    assert!(
        id.len() == 30 && id.as_bytes()[13] == b'-' && id[..13].bytes().all(|b| b.is_ascii_digit()),
        "{id}"
    );
    let millis = id[..13].parse::<i64>().unwrap();
    assert!(
        (now() - 120) * 1000 < millis && millis <= now() * 1000 + 1000,
        "{id}"
    );
    assert_eq!(item["at"], rfc3339_millis(millis));
    assert_eq!(item["person"], "person-ana");
    assert_eq!(item["claimed_organization"], FIXTURE_ORG_ID);
    assert_eq!(item["tool"], tool);
    assert_eq!(item["arguments_sha256"], arguments_sha256(args));
    let expiry = item["expires_at"].as_i64().unwrap();
    let retention = 400 * 86_400;
    assert!(
        (now() + retention - 120..=now() + retention + 5).contains(&expiry),
        "{expiry}"
    );
    assert!(item["completed_at"].is_string(), "{item}");
}

#[tokio::test]
async fn au1_au5_a_direct_era_2025_destructive_write_leaves_one_entry_and_says_nothing_was_asked() {
    let rig = Rig::start().await;
    let args = json!({"id": INV_OPEN, "reason": "duplicada, pedido da Maria Souza"});
    let result = rig
        .stack
        .call(&full_token(), "billing_invoices_void", args.clone())
        .await;
    assert_ne!(result["isError"], true, "{result}");
    // AU-5: the note is a text block of its own; the structured result is untouched.
    let note = result["content"][1]["text"]
        .as_str()
        .expect("a second block");
    assert!(
        note.contains("sem confirmação deste servidor") && note.contains("versão 2025"),
        "{note}"
    );
    assert_eq!(result["structuredContent"]["invoice"]["status"], "void");
    let item = rig.only_item().await;
    assert_common(&item, "billing_invoices_void", &args);
    assert_eq!(item["organization"], FIXTURE_ORG_ID);
    assert_eq!(
        item["client"],
        json!({"era": "2025", "protocol_version": "2025-11-25"})
    );
    assert_eq!(
        item["operation"],
        json!({"method": "POST", "path": "/v1/invoices/{id}/void", "ids": [INV_OPEN]})
    );
    assert_eq!(item["summary"], json!({"omitted_fields": 1}));
    assert_eq!(item["confirmation"], "not_asked_era_2025");
    assert_eq!(item["outcome"], "done");
    assert_eq!(item["kobana_status"], 200);
    assert!(
        is_uuid(item["kobana_request_id"].as_str().unwrap()),
        "{item}"
    );
    assert_eq!(item["record_id"], INV_OPEN);
    assert!(item.get("kobana_code").is_none(), "{item}");
}

#[tokio::test]
async fn au1_au5_a_confirmed_era_2026_destructive_call_leaves_one_entry_asked_and_confirmed() {
    let rig = Rig::start().await;
    let token = full_token();
    let args = json!({"id": INV_OPEN, "reason": "duplicada"});
    let state = rig.ask(&token, VOID, &args).await;
    assert!(rig.items().await.is_empty(), "asking writes no entry");
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let done = rig.answer(&token, VOID, &args, &state, yes).await;
    assert_ne!(done["result"]["isError"], true, "{done}");
    assert_eq!(
        done["result"]["content"].as_array().unwrap().len(),
        1,
        "asked: no note"
    );
    let item = rig.only_item().await;
    assert_common(&item, "billing_invoices_void", &args);
    assert_eq!(item["organization"], FIXTURE_ORG_ID);
    assert_eq!(
        item["client"],
        json!({"name": "e2e", "version": "0", "era": "2026", "protocol_version": "2026-07-28"})
    );
    assert_eq!(item["confirmation"], "asked_confirmed");
    assert_eq!(item["outcome"], "done");
    assert_eq!(item["kobana_status"], 200);
    assert_eq!(item["record_id"], INV_OPEN);
}

#[tokio::test]
async fn au1_a_declined_call_leaves_one_declined_entry_and_a_forged_state_joins_no_organization() {
    let rig = Rig::start().await;
    let token = full_token();
    let args = json!({"id": INV_OPEN, "reason": "duplicada"});
    let state = rig.ask(&token, VOID, &args).await;
    let no = json!({"action": "decline"});
    let declined = rig.answer(&token, VOID, &args, &state, no.clone()).await;
    assert_eq!(common::error_code(&declined["result"]), "USER_DECLINED");
    let item = rig.only_item().await;
    assert_common(&item, "billing_invoices_void", &args);
    assert_eq!(item["organization"], FIXTURE_ORG_ID);
    assert_eq!(item["confirmation"], "asked_declined");
    assert_eq!(item["outcome"], "declined");
    assert_eq!(item["completed_at"], item["at"]);
    assert_eq!(item["operation"]["ids"], json!([INV_OPEN]));
    for absent in ["kobana_status", "kobana_request_id", "kobana_code"] {
        assert!(item.get(absent).is_none(), "{absent}: {item}");
    }
    // A "no" naming a state this server never issued: recorded, under no organization.
    let made_up = format!("kc1_{}", "A".repeat(43));
    rig.answer(&token, VOID, &args, &made_up, no).await;
    let items = rig.items().await;
    assert_eq!(items.len(), 2);
    assert!(items[1].get("organization").is_none(), "{}", items[1]);
    assert_eq!(items[1]["claimed_organization"], FIXTURE_ORG_ID);
    let voids = rig
        .stack
        .fake
        .calls()
        .iter()
        .filter(|c| c.method == "POST")
        .count();
    assert_eq!(voids, 0, "nothing was sent");
}

#[tokio::test]
async fn au1_a_write_kobana_refuses_leaves_one_refused_entry_with_its_status_and_code() {
    let rig = Rig::start().await;
    let args = json!({"id": INV_PAID_NFE_ERROR, "reason": "duplicada"});
    let result = rig
        .stack
        .call(&full_token(), "billing_invoices_void", args.clone())
        .await;
    assert_eq!(common::error_code(&result), "KOBANA_INVALID_STATE");
    assert_eq!(result["content"].as_array().unwrap().len(), 1, "no note");
    let item = rig.only_item().await;
    assert_common(&item, "billing_invoices_void", &args);
    assert_eq!(item["organization"], FIXTURE_ORG_ID);
    assert_eq!(item["outcome"], "refused");
    assert_eq!(item["kobana_status"], 422);
    assert_eq!(item["kobana_code"], "invalid_state");
    assert!(
        is_uuid(item["kobana_request_id"].as_str().unwrap()),
        "{item}"
    );
    assert_eq!(item["record_id"], INV_PAID_NFE_ERROR);
    assert_eq!(item["confirmation"], "not_asked_era_2025");
}

/// A curated write tool leaves one entry like the destructive ones.
#[tokio::test]
async fn au1_a_write_tool_call_leaves_one_entry() {
    let rig = Rig::start().await;
    let args = json!({"id": PADARIA, "nickname": "Boa Vista da Maria"});
    let result = rig
        .stack
        .call(&full_token(), "billing_customers_update", args.clone())
        .await;
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(result["content"].as_array().unwrap().len(), 1, "no note");
    let item = rig.only_item().await;
    assert_common(&item, "billing_customers_update", &args);
    assert_eq!(
        item["operation"],
        json!({"method": "PATCH", "path": "/v1/customers/{id}", "ids": [PADARIA]})
    );
    assert_eq!(item["confirmation"], "not_asked_not_destructive");
    assert_eq!(item["summary"], json!({"omitted_fields": 1}));
    assert_eq!(item["outcome"], "done");
    assert_eq!(item["record_id"], PADARIA);
}

/// AU-1 on the generic path: `billing_operations_write` writes through the same
/// `ToolCtx::write`, so its call leaves one entry under the generic tool's name, with the
/// operation the row names and no free text in the summary.
#[tokio::test]
async fn au1_a_generic_tool_write_leaves_one_entry() {
    let rig = Rig::start().await;
    let args = json!({
        "operation": "patch-customers-id",
        "path": {"id": PADARIA},
        "body": {"nickname": "Boa Vista da Maria"}
    });
    let result = rig
        .stack
        .call(&full_token(), "billing_operations_write", args.clone())
        .await;
    assert_ne!(result["isError"], true, "{result}");
    let item = rig.only_item().await;
    assert_common(&item, "billing_operations_write", &args);
    assert_eq!(item["organization"], FIXTURE_ORG_ID);
    assert_eq!(
        item["operation"],
        json!({"method": "PATCH", "path": "/v1/customers/{id}", "ids": [PADARIA]})
    );
    assert_eq!(item["confirmation"], "not_asked_not_destructive");
    assert_eq!(item["outcome"], "done");
    assert_eq!(item["record_id"], PADARIA);
    let stored = item.to_string();
    assert!(!stored.contains("Boa Vista"), "free text stored: {stored}");
}

/// AU-1 and AU-5 on the generic path: `billing_operations_write_destructive` in era 2025
/// runs without the server's question, leaves one entry saying so, and its result says so.
#[tokio::test]
async fn au1_au5_a_generic_destructive_call_in_era_2025_leaves_one_entry_and_says_nothing_was_asked()
 {
    let rig = Rig::start().await;
    let args = json!({
        "operation": "post-invoices-id-void",
        "path": {"id": INV_OPEN},
        "body": {"reason": "duplicada"}
    });
    let result = rig
        .stack
        .call(
            &full_token(),
            "billing_operations_write_destructive",
            args.clone(),
        )
        .await;
    assert_ne!(result["isError"], true, "{result}");
    let note = result["content"][1]["text"]
        .as_str()
        .expect("a second block");
    assert!(note.contains("sem confirmação deste servidor"), "{note}");
    let item = rig.only_item().await;
    assert_common(&item, "billing_operations_write_destructive", &args);
    assert_eq!(
        item["operation"],
        json!({"method": "POST", "path": "/v1/invoices/{id}/void", "ids": [INV_OPEN]})
    );
    assert_eq!(item["confirmation"], "not_asked_era_2025");
    assert_eq!(item["outcome"], "done");
    assert_eq!(item["record_id"], INV_OPEN);
}

#[tokio::test]
async fn au2_a_store_that_refuses_the_first_write_leaves_kobana_untouched() {
    // A table that does not exist: DynamoDB refuses every write.
    let rig = Rig::start_with(|c| c.audit.table = Some("kobana-mcp-no-such-table".into())).await;
    let token = full_token();
    let args = json!({"id": INV_OPEN, "reason": "duplicada"});
    let result = rig
        .stack
        .call(&token, "billing_invoices_void", args.clone())
        .await;
    assert_eq!(common::error_code(&result), "AUDIT_UNAVAILABLE");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("trilha de auditoria") && text.contains("nada foi enviado ao Kobana"),
        "{text}"
    );
    // Confirmed in era 2026: the question is asked (reads only), the yes sends nothing.
    let state = rig.ask(&token, VOID, &args).await;
    let yes = json!({"action": "accept", "content": {"confirm": true}});
    let confirmed = rig.answer(&token, VOID, &args, &state, yes).await;
    assert_eq!(
        common::error_code(&confirmed["result"]),
        "AUDIT_UNAVAILABLE"
    );
    let writes: Vec<String> = (rig.stack.fake.writes().iter())
        .map(|c| format!("{} {}", c.method, c.path))
        .collect();
    assert!(writes.is_empty(), "Kobana was written to: {writes:?}");
}

/// An audit store whose completions fail (the first write is kept in memory).
#[derive(Debug, Default)]
struct CompletionFails(MemoryAudit);

impl AuditStore for CompletionFails {
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        self.0.put(entry)
    }
    fn complete<'a>(
        &'a self,
        _id: &'a str,
        _completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async { Err(AuditStoreError("completion refused".into())) })
    }
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        self.0.list(query)
    }
}

#[tokio::test]
async fn au2_a_completion_the_store_refuses_leaves_the_entry_unknown_and_the_result_stands() {
    let store = Arc::new(CompletionFails::default());
    let stack = stack_with_audit(store.clone(), |_| {}, None).await;
    let result = stack
        .call(
            &full_token(),
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "duplicada"}),
        )
        .await;
    assert_ne!(result["isError"], true, "Kobana's result stands: {result}");
    assert_eq!(result["structuredContent"]["invoice"]["status"], "void");
    let entries = store.0.all();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].outcome.as_str(), "unknown");
    assert!(entries[0].organization.is_none() && entries[0].completed_at.is_none());
}

/// AU-3: the template's table is the one the store needs, the function is told its name and
/// the retention, and its policy allows exactly the store's operations, on it alone.
#[test]
fn au3_the_template_creates_the_table_the_store_needs_and_iam_allows_only_its_operations() {
    let (lines, at) = (&*common::TEMPLATE, common::template_at);
    let table = at("AuditTable:");
    let body: Vec<&str> = lines[table..]
        .iter()
        .take_while(|l| !l.is_empty())
        .copied()
        .collect();
    let has = |text: &str| body.contains(&text);
    for text in [
        "DeletionPolicy: Retain",
        "UpdateReplacePolicy: Retain",
        "BillingMode: PAY_PER_REQUEST",
        "- IndexName: by_organization",
        "ProjectionType: ALL",
        "AttributeName: expires_at",
        "PointInTimeRecoveryEnabled: true",
    ] {
        assert!(has(text), "AuditTable lacks `{text}`");
    }
    let key = body.iter().position(|l| *l == "KeySchema:").unwrap();
    assert_eq!(
        body[key + 1..key + 3],
        ["- AttributeName: id", "KeyType: HASH"]
    );
    let index = body
        .iter()
        .position(|l| *l == "- IndexName: by_organization")
        .unwrap();
    assert_eq!(
        body[index + 1..index + 6],
        [
            "KeySchema:",
            "- AttributeName: organization",
            "KeyType: HASH",
            "- AttributeName: id",
            "KeyType: RANGE"
        ]
    );
    assert_eq!(kobana_mcp::audit::BY_ORGANIZATION, "by_organization");
    for env in [
        "AUDIT_TABLE: !Ref AuditTable",
        "AUDIT_RETENTION_DAYS: !Ref AuditRetentionDays",
    ] {
        at(env);
    }
    // The statements on the table: exactly the store's requests.
    let source =
        std::fs::read_to_string(common::root().join("shared/src/audit/dynamo.rs")).unwrap();
    let requests: Vec<&str> = source
        .lines()
        .filter_map(|l| l.trim().strip_prefix('.')?.strip_suffix("()"))
        .filter(|call| call.ends_with("_item") || matches!(*call, "query" | "scan"))
        .collect();
    assert_eq!(requests, ["put_item", "update_item", "query"]);
    let actions_before = |resource: &str| -> Vec<String> {
        let end = at(resource);
        let start = lines[..end]
            .iter()
            .rposition(|l| l.starts_with("- Effect:"))
            .unwrap();
        lines[start..end]
            .iter()
            .filter_map(|l| l.strip_prefix("- dynamodb:"))
            .map(|a| format!("dynamodb:{a}"))
            .collect()
    };
    assert_eq!(
        actions_before("Resource: !GetAtt AuditTable.Arn"),
        ["dynamodb:PutItem", "dynamodb:UpdateItem"]
    );
    assert_eq!(
        actions_before(r#"Resource: !Sub "${AuditTable.Arn}/index/by_organization""#),
        ["dynamodb:Query"]
    );
}

#[tokio::test]
async fn au3_entries_expire_after_the_configured_retention() {
    let rig = Rig::start_with(|c| c.audit.retention_days = 3).await;
    rig.write_one().await;
    let item = rig.only_item().await;
    let expiry = item["expires_at"].as_i64().unwrap();
    assert!(
        (now() + 3 * 86_400 - 120..=now() + 3 * 86_400 + 5).contains(&expiry),
        "{expiry}"
    );
}

/// A token Kobana refuses writes nothing into any organization: its entry stays under none.
#[tokio::test]
async fn au4_a_write_with_a_token_kobana_refuses_joins_no_organization() {
    let rig = Rig::start().await;
    let token = forged(&full_token());
    let result = rig
        .stack
        .call(
            &token,
            "billing_invoices_void",
            json!({"id": INV_OPEN, "reason": "x"}),
        )
        .await;
    assert_eq!(common::error_code(&result), "KOBANA_INVALID_TOKEN");
    let item = rig.only_item().await;
    assert!(item.get("organization").is_none(), "{item}");
    assert_eq!(item["claimed_organization"], FIXTURE_ORG_ID);
    assert_eq!(item["outcome"], "refused");
    assert_eq!(item["kobana_status"], 401);
    // The organization's own reading does not show it.
    let listed = rig.list(&full_token(), json!({})).await;
    assert_eq!(
        listed["structuredContent"]["entries"],
        json!([]),
        "{listed}"
    );
}

/// AU-6: `scripts/audit_export.py` reads the table back as JSON lines: one organization's
/// entries newest first, or every entry (those under no organization too).
#[tokio::test]
async fn au6_the_export_script_reads_the_trail_back_as_json_lines() {
    let rig = Rig::start().await;
    let token = full_token();
    for nickname in ["a", "b"] {
        rig.stack
            .call(
                &token,
                "billing_customers_update",
                json!({"id": PADARIA, "nickname": nickname}),
            )
            .await;
    }
    rig.stack
        .call(
            &forged(&token),
            "billing_customers_update",
            json!({"id": PADARIA, "nickname": "c"}),
        )
        .await;
    let items = rig.items().await;
    assert_eq!(items.len(), 3);
    let export = |extra: &[&str]| {
        let output = std::process::Command::new(common::python())
            .arg(common::root().join("scripts/audit_export.py"))
            .args(["--table", &rig.table])
            .args(extra)
            // boto3 reads the region from here; the SDK's AWS_REGION is already set.
            .env(
                "AWS_DEFAULT_REGION",
                std::env::var("AWS_REGION").unwrap_or_else(|_| "us-east-1".into()),
            )
            .output()
            .expect("the venv's python runs the script");
        assert!(output.status.success(), "{output:?}");
        let lines: Vec<Value> = String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        lines
    };
    let mut all = export(&[]);
    all.sort_by(|a, b| a["id"].as_str().cmp(&b["id"].as_str()));
    assert_eq!(all, items, "every entry, as stored");
    let mine = export(&["--organization", FIXTURE_ORG_ID]);
    let ids: Vec<&Value> = mine.iter().map(|e| &e["id"]).collect();
    assert_eq!(
        ids,
        [&items[1]["id"], &items[0]["id"]],
        "newest first, own only"
    );
    let since = rfc3339_millis(items[1]["id"].as_str().unwrap()[..13].parse().unwrap());
    let recent = export(&["--organization", FIXTURE_ORG_ID, "--since", &since]);
    assert_eq!(recent.len(), 1);
    assert_eq!(recent[0]["id"], items[1]["id"]);
}
