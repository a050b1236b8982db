//! End-to-end tests of what every list tool of the catalog shares: `sort_by` is validated
//! and lists paginate (T-2).

use crate::common;

use crate::catalog::support::*;
use common::{Stack, text_of};
use fake_kobana::full_token;
use serde_json::{Value, json};

// ---------------------------------------------------------------- lists (T-2)

#[tokio::test]
async fn t2_sort_by_outside_the_catalog_is_refused_for_each_list() {
    let stack = Stack::start().await;
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
        let text = stack.refused(tool, json!({"sort_by": bad})).await;
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
        let text = stack
            .refused(
                "billing_invoices_list",
                json!({flag: true, "sort_by": "customer_name"}),
            )
            .await;
        assert!(text.contains("due_date"), "{flag}: {text}");
    }
    assert_eq!(calls(&stack, "/v1/"), 0, "refused before any Kobana call");

    for (tool, _, allowed) in lists {
        stack
            .ok(tool, json!({"sort_by": allowed, "sort_order": "asc"}))
            .await;
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
    assert_eq!(first["total"], 8);
    assert_eq!(first["total_pages"], 3);
    assert_eq!(first["next_page"], 2);
    assert!(text_of(&result).contains("page=2"), "{}", text_of(&result));
    let last = stack
        .ok(
            "billing_invoices_list",
            json!({"per_page": 3, "page": 3, "sort_by": "created_at", "sort_order": "asc"}),
        )
        .await;
    assert_eq!(ids(&last["invoices"]), [INV_OPEN, INV_DRAFT]);
    assert_eq!(last["next_page"], Value::Null);
    let query = stack.kobana_calls("/v1/invoices")[1].query.clone().unwrap();
    assert!(
        query.contains("page=3") && query.contains("per_page=3"),
        "{query}"
    );
}
