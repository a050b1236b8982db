//! Reading the trail back (AU-4): only the organization Kobana proves reads its entries,
//! through `billing_audit_list` (newest first, paged and filtered like the other lists,
//! within the answer budget) and `kobana://billing/audit` (the latest 50), in memory and in
//! DynamoDB (moto). A token Kobana refuses reads nothing.

use crate::common;
use fake_kobana::fixtures::ids::PADARIA;

use std::sync::Arc;

use crate::audit::support::{OTHER_ORG, Rig, forged, stack_with_audit};
use common::Stack;
use fake_kobana::{FIXTURE_ORG_ID, full_token, scoped_token};
use kobana_mcp::audit::{
    AuditStore, Client, Confirmation, DynamoAudit, Entry, MemoryAudit, Operation, Outcome,
    rfc3339_millis,
};
use serde_json::{Value, json};

const TOOLS: [&str; 3] = [
    "billing_invoices_void",
    "billing_customers_update",
    "billing_payments_refund",
];
const PEOPLE: [&str; 3] = ["person-ana", "person-bia", "person-caio"];
/// 2026-03-10T12:00:00Z (09:00 in São Paulo): the first seeded entry; one a minute after.
const BASE_MS: i64 = 1_773_144_000_000;

/// The `n`th seeded entry: every fourth of another organization, tools, people and outcomes
/// in turn.
fn seeded(n: usize) -> Entry {
    let ms = BASE_MS + n as i64 * 60_000;
    let organization = if n % 4 == 3 {
        OTHER_ORG
    } else {
        FIXTURE_ORG_ID
    };
    Entry {
        id: format!("{ms:013}-{n:016x}"),
        at: rfc3339_millis(ms),
        organization: Some(organization.to_owned()),
        claimed_organization: Some(organization.to_owned()),
        person: PEOPLE[n % 3].to_owned(),
        client: Client::default(),
        tool: TOOLS[n % TOOLS.len()].to_owned(),
        operation: Operation {
            method: "POST".into(),
            path: "/v1/invoices/{id}/void".into(),
            ids: vec![],
        },
        arguments_sha256: "0".repeat(64),
        summary: json!({}),
        confirmation: Confirmation::NotAskedEra2025,
        outcome: Outcome::ALL[n % Outcome::ALL.len()],
        kobana_status: None,
        kobana_code: None,
        kobana_request_id: None,
        record_id: None,
        completed_at: Some(rfc3339_millis(ms)),
        expires_at: crate::audit::support::now() + 86_400,
    }
}

/// 160 entries, 120 of them the fixture organization's.
fn seeds() -> Vec<Entry> {
    let all: Vec<Entry> = (0..160).map(seeded).collect();
    assert_eq!(
        all.iter()
            .filter(|e| e.organization.as_deref() == Some(FIXTURE_ORG_ID))
            .count(),
        120
    );
    all
}

async fn seed(store: &dyn AuditStore, entries: &[Entry]) {
    for entry in entries {
        store.put(entry).await.expect("seeded");
    }
}

/// The ids `filter` keeps of the fixture organization's seeds, newest first.
fn expected(entries: &[Entry], filter: impl Fn(&Entry) -> bool) -> Vec<String> {
    let mut ids: Vec<String> = entries
        .iter()
        .filter(|e| e.organization.as_deref() == Some(FIXTURE_ORG_ID) && filter(e))
        .map(|e| e.id.clone())
        .collect();
    ids.sort();
    ids.reverse();
    ids
}

/// Every id the tool lists for `args`, following `next_page` (and `next_per_page` after a
/// cut); checks each answer's text against `budget`.
async fn walk(stack: &Stack, args: Value, budget: usize) -> Vec<String> {
    let mut ids = Vec::new();
    let mut args = args;
    for _ in 0..200 {
        let result = stack
            .call(&full_token(), "billing_audit_list", args.clone())
            .await;
        assert_ne!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.len() <= budget, "{} bytes > {budget}", text.len());
        let page = &result["structuredContent"];
        assert_eq!(page["organization"], FIXTURE_ORG_ID);
        for entry in page["entries"].as_array().unwrap() {
            ids.push(entry["id"].as_str().unwrap().to_owned());
            assert!(
                entry.get("expires_at").is_none() && entry.get("claimed_organization").is_none()
            );
            assert!(entry["at_sao_paulo"].is_string(), "{entry}");
        }
        match page["next_page"].as_u64() {
            Some(next) => {
                args["page"] = json!(next);
                if let Some(size) = page["next_per_page"].as_u64() {
                    args["per_page"] = json!(size);
                }
            }
            None => return ids,
        }
    }
    panic!("no end after 200 pages");
}

/// Pages and filters over the seeds, against whichever store `stack` reads.
async fn pages_and_filters(stack: &Stack, entries: &[Entry]) {
    let budget = kobana_mcp::catalog::DEFAULT_ANSWER_BUDGET_BYTES;
    let all = expected(entries, |_| true);
    assert_eq!(all.len(), 120);
    // Newest first, 20 a page: six pages, nothing lost or repeated.
    let first = stack
        .call(&full_token(), "billing_audit_list", json!({}))
        .await;
    assert_eq!(
        first["structuredContent"]["entries"]
            .as_array()
            .unwrap()
            .len(),
        20
    );
    assert_eq!(first["structuredContent"]["next_page"], 2);
    assert_eq!(walk(stack, json!({}), budget).await, all);
    assert_eq!(walk(stack, json!({"per_page": 50}), budget).await, all);
    let last = stack
        .call(&full_token(), "billing_audit_list", json!({"page": 6}))
        .await;
    assert_eq!(last["structuredContent"]["next_page"], Value::Null);
    assert_eq!(
        last["structuredContent"]["entries"]
            .as_array()
            .unwrap()
            .len(),
        20
    );
    // Each filter, and all of them at once.
    let tool = TOOLS[1];
    assert_eq!(
        walk(stack, json!({"tool": tool}), budget).await,
        expected(entries, |e| e.tool == tool)
    );
    assert_eq!(
        walk(stack, json!({"person": "person-bia"}), budget).await,
        expected(entries, |e| e.person == "person-bia")
    );
    assert_eq!(
        walk(stack, json!({"outcome": "refused"}), budget).await,
        expected(entries, |e| e.outcome == Outcome::Refused)
    );
    let both = walk(
        stack,
        json!({"tool": TOOLS[0], "person": "person-ana", "outcome": "done"}),
        budget,
    )
    .await;
    let want = expected(entries, |e| {
        e.tool == TOOLS[0] && e.person == "person-ana" && e.outcome == Outcome::Done
    });
    assert!(!want.is_empty());
    assert_eq!(both, want);
    // A window of instants, inclusive; days are São Paulo's.
    let (since, until) = (&entries[30], &entries[80]);
    assert_eq!(
        walk(stack, json!({"since": since.at, "until": until.at}), budget).await,
        expected(entries, |e| e.id >= since.id && e.id <= until.id)
    );
    assert_eq!(
        walk(
            stack,
            json!({"since": "2026-03-10", "until": "2026-03-10"}),
            budget
        )
        .await,
        all
    );
    assert!(
        walk(stack, json!({"since": "2026-03-11"}), budget)
            .await
            .is_empty()
    );
    // The resource: the latest 50.
    let document = crate::audit::support::trail_document(stack, &full_token()).await;
    let ids: Vec<&str> = document["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        all[..50].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(document["organization"], FIXTURE_ORG_ID);
}

#[tokio::test]
async fn au4_billing_audit_list_pages_and_filters_over_120_entries_in_memory() {
    let entries = seeds();
    let store = Arc::new(MemoryAudit::new());
    seed(store.as_ref(), &entries).await;
    let stack = stack_with_audit(store, |_| {}, None).await;
    pages_and_filters(&stack, &entries).await;
}

#[tokio::test]
async fn au3_au4_billing_audit_list_pages_and_filters_over_120_entries_in_dynamodb() {
    let entries = seeds();
    let (table, client) = crate::audit::support::audit_table().await;
    seed(&DynamoAudit::with_client(table.clone(), client), &entries).await;
    let stack = Stack::start_with(|c| c.audit.table = Some(table)).await;
    pages_and_filters(&stack, &entries).await;
}

#[tokio::test]
async fn au4_a_page_over_the_answer_budget_is_cut_and_continues_exactly() {
    let entries = seeds();
    let store = Arc::new(MemoryAudit::new());
    seed(store.as_ref(), &entries).await;
    let budget = kobana_mcp::catalog::MIN_ANSWER_BUDGET_BYTES;
    let stack = stack_with_audit(store, |c| c.rows.budget_bytes = budget, None).await;
    let cut = stack
        .call(&full_token(), "billing_audit_list", json!({"per_page": 50}))
        .await;
    let page = &cut["structuredContent"];
    assert_eq!(page["cut"], true, "{cut}");
    assert!(page["hint"].as_str().unwrap().contains("cortada"), "{page}");
    assert_eq!(
        walk(&stack, json!({"per_page": 50}), budget).await,
        expected(&entries, |_| true)
    );
}

#[tokio::test]
async fn au4_two_organizations_never_see_each_others_entries() {
    let rig = Rig::start().await;
    let ana = full_token();
    let bia = scoped_token("person-bia", OTHER_ORG, "all");
    rig.stack
        .call(
            &ana,
            "billing_customers_update",
            json!({"id": PADARIA, "nickname": "Ana's"}),
        )
        .await;
    let created = rig
        .stack
        .call(
            &bia,
            "billing_customers_create",
            json!({"name": "Cliente da Bia"}),
        )
        .await;
    assert_ne!(created["isError"], true, "{created}");
    let items = rig.items().await;
    assert_eq!(items.len(), 2);
    for (token, organization, tool) in [
        (&ana, FIXTURE_ORG_ID, "billing_customers_update"),
        (&bia, OTHER_ORG, "billing_customers_create"),
    ] {
        let listed = rig.list(token, json!({})).await;
        let page = &listed["structuredContent"];
        assert_eq!(page["organization"], organization, "{listed}");
        let entries = page["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 1, "{listed}");
        assert_eq!(entries[0]["tool"], tool);
        assert_eq!(entries[0]["organization"], organization);
        let document = crate::audit::support::trail_document(&rig.stack, token).await;
        assert_eq!(document["entries"].as_array().unwrap().len(), 1);
        assert_eq!(document["entries"][0]["tool"], tool);
    }
}

#[tokio::test]
async fn au4_a_token_kobana_refuses_reads_nothing() {
    let rig = Rig::start().await;
    rig.write_one().await;
    let token = forged(&full_token());
    let listed = rig.list(&token, json!({})).await;
    assert_eq!(common::error_code(&listed), "KOBANA_INVALID_TOKEN");
    assert!(listed.get("structuredContent").is_none(), "{listed}");
    let body = crate::audit::support::read_trail(&rig.stack, &token).await;
    assert!(
        body.get("result").is_none() && body["error"].is_object(),
        "{body}"
    );
    // The organization was asked of Kobana with that token, which refused it.
    let asked = rig
        .stack
        .fake
        .calls()
        .iter()
        .filter(|c| c.path == "/v1/organization" && !c.authorized)
        .count();
    assert_eq!(asked, 2);
}

/// Every token that may read anything sees and reads the trail; one that may read nothing
/// neither; a token Kobana does not let read the organization reads its own claim's trail.
#[tokio::test]
async fn au4_every_token_that_may_read_sees_the_trail_and_only_those() {
    let rig = Rig::start().await;
    rig.write_one().await;
    for scope in ["read", "invoices:read", "all"] {
        let token = scoped_token("person-ro", FIXTURE_ORG_ID, scope);
        let tools = rig.stack.tool_names(&token, &[]).await;
        assert!(tools.iter().any(|t| t == "billing_audit_list"), "{scope}");
        let (_, body) = rig.stack.legacy(&token, "resources/list", json!({})).await;
        assert!(
            body.to_string().contains("kobana://billing/audit"),
            "{scope}: {body}"
        );
        let listed = rig.list(&token, json!({})).await;
        let entries = listed["structuredContent"]["entries"].as_array();
        assert_eq!(entries.map(Vec::len), Some(1), "{scope}: {listed}");
    }
    let nothing = scoped_token("person-none", FIXTURE_ORG_ID, "");
    let tools = rig.stack.tool_names(&nothing, &[]).await;
    assert!(
        !tools.iter().any(|t| t == "billing_audit_list"),
        "{tools:?}"
    );
    let (_, body) = rig
        .stack
        .legacy(&nothing, "resources/list", json!({}))
        .await;
    assert!(
        !body.to_string().contains("kobana://billing/audit"),
        "{body}"
    );
    let refused = rig.list(&nothing, json!({})).await;
    assert_eq!(common::error_code(&refused), "PERMISSION_DENIED");
    // The client's narrowing applies: another toolset hides it, its own shows it.
    let narrowed = rig
        .stack
        .tool_names(&full_token(), &[("x-mcp-toolsets", "invoices")])
        .await;
    assert!(!narrowed.iter().any(|t| t == "billing_audit_list"));
    let own = rig
        .stack
        .tool_names(&full_token(), &[("x-mcp-toolsets", "audit")])
        .await;
    assert_eq!(own, ["billing_audit_list"]);
}
