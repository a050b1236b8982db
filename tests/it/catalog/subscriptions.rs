//! End-to-end tests of the subscriptions toolset against the fake Kobana: every tool runs
//! (T-1) and refusals say what to change (T-4).

use crate::common;

use crate::catalog::support::*;
use common::{Stack, assert_refusals, assert_refused_before_kobana};
use fake_kobana::full_token;
use serde_json::{Value, json};

// ---------------------------------------------------------------- subscriptions

#[tokio::test]
async fn t1_subscriptions_tools_run_end_to_end() {
    let stack = Stack::start().await;

    let list = stack
        .ok("billing_subscriptions_list", json!({"status": "active"}))
        .await;
    assert_eq!(ids(&list["subscriptions"]), [SUB_ACTIVE]);
    assert_eq!(
        list["subscriptions"][0]["recurring_amount_brl"],
        "R$ 499,00"
    );
    assert_eq!(list["total"], 1);
    assert_eq!(list["next_page"], Value::Null);

    let list = stack.ok("billing_subscriptions_list",
            json!({"billing_account_id": BA_HORIZONTE, "sort_by": "recurring_amount_cents", "sort_order": "asc"})).await;
    assert_eq!(ids(&list["subscriptions"]), [SUB_PAST_DUE]);
    let query = stack.kobana_calls("/v1/subscriptions")[1]
        .query
        .clone()
        .unwrap();
    assert!(
        query.contains("sort_by=recurring_amount_cents") && query.contains("sort_order=asc"),
        "{query}"
    );

    let list = stack
        .ok(
            "billing_subscriptions_list",
            json!({"search": "Horizonte", "plan_id": PLAN_ENTERPRISE_HORIZONTE}),
        )
        .await;
    assert_eq!(ids(&list["subscriptions"]), [SUB_PAST_DUE]);

    let got = stack
        .ok("billing_subscriptions_get", json!({"id": SUB_PAST_DUE}))
        .await;
    assert_eq!(got["subscription"]["status"], "past_due");
    assert_eq!(got["subscription"]["billing_cycle"], "annual");
    assert_eq!(got["subscription"]["recurring_amount_brl"], "R$ 11.988,00");

    subscription_writes(&stack).await;
}

/// The writes: created from a plan and from items, paused, resumed, canceled at the period end
/// and now, each sent as Kobana takes it.
async fn subscription_writes(stack: &Stack) {
    // From a plan.
    let created = stack
        .ok(
            "billing_subscriptions_create",
            json!({"billing_account_id": BA_MARIANA, "plan_id": PLAN_PRO}),
        )
        .await;
    let sub = &created["subscription"];
    assert_eq!(sub["status"], "active");
    assert_eq!(sub["billing_account_id"], BA_MARIANA);
    assert_eq!(sub["recurring_amount_cents"], 49900);
    let id = sub["id"].as_str().unwrap().to_owned();

    // From items: a product at a price (the Pro plan's extra-user price), the unit price
    // overridden in cents.
    let created = stack
        .ok(
            "billing_subscriptions_create",
            json!({"billing_account_id": BA_MARIANA, "billing_cycle": "quarterly",
                "items": [{"product_id": PROD_EXTRA_USER, "price_id": PRICE_EXTRA_USER,
                           "quantity": 2, "unit_amount_cents": 15000}]}),
        )
        .await;
    assert_eq!(created["subscription"]["recurring_amount_cents"], 30000);
    assert_eq!(created["subscription"]["recurring_amount_brl"], "R$ 300,00");
    assert_eq!(created["subscription"]["billing_cycle"], "quarterly");

    let paused = stack
        .ok(
            "billing_subscriptions_pause",
            json!({"id": id, "behavior": "keep_as_draft", "resumes_at": "2030-01-15"}),
        )
        .await;
    assert_eq!(paused["subscription"]["status"], "paused");
    assert_eq!(
        paused["subscription"]["pause_collection"]["behavior"],
        "keep_as_draft"
    );

    let resumed = stack
        .ok("billing_subscriptions_resume", json!({"id": id}))
        .await;
    assert_eq!(resumed["subscription"]["status"], "active");

    let at_end = stack
        .ok(
            "billing_subscriptions_cancel",
            json!({"id": id, "cancel_at_period_end": true, "reason": "Cliente vai migrar"}),
        )
        .await;
    assert_eq!(at_end["subscription"]["status"], "active");
    assert_eq!(at_end["subscription"]["cancel_at_period_end"], true);

    let canceled = stack
        .ok("billing_subscriptions_cancel", json!({"id": id}))
        .await;
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

    // Business rules, from Kobana.
    assert_refusals(
        &stack,
        &token,
        vec![
            (
                "billing_subscriptions_resume",
                json!({"id": SUB_ACTIVE}),
                &["Somente assinaturas pausadas", "active"],
            ),
            (
                "billing_subscriptions_cancel",
                json!({"id": SUB_CANCELED}),
                &["já está cancelada"],
            ),
            (
                "billing_subscriptions_get",
                json!({"id": UNKNOWN}),
                &["Não encontrado"],
            ),
        ],
    )
    .await;

    // Argument errors, caught before any Kobana call.
    assert_refused_before_kobana(
        &stack,
        &token,
        vec![
            (
                "billing_subscriptions_create",
                json!({"billing_account_id": BA_MARIANA}),
                &["plan_id", "items"],
            ),
            (
                "billing_subscriptions_create",
                json!({"billing_account_id": BA_MARIANA, "items": []}),
                &["items"],
            ),
            (
                "billing_subscriptions_get",
                json!({"id": "assinatura-1"}),
                &["`id`", "UUID"],
            ),
            (
                "billing_subscriptions_list",
                json!({"billing_account_id": "../customers"}),
                &["billing_account_id"],
            ),
            (
                "billing_subscriptions_pause",
                json!({"id": SUB_ACTIVE, "resumes_at": "amanhã"}),
                &["resumes_at"],
            ),
            (
                "billing_subscriptions_pause",
                json!({"id": SUB_ACTIVE, "behavior": "forever"}),
                &["forever"],
            ),
        ],
    )
    .await;
}
