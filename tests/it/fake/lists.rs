//! Lists: pagination meta, limits, the `sort_by` whitelist, filters and the two invoice views.

use crate::fake::support::Listed::{AnyOrder, Count, Exactly};
use crate::fake::support::{Api, assert_error, ids_of};
use fake_kobana::fixtures::ids;
use serde_json::json;

#[tokio::test]
async fn pagination_meta_and_pages() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/customers?per_page=2&page=2").await;
    assert_eq!(status, 200);
    assert_eq!(
        body["meta"],
        json!({"total": 4, "page": 2, "per_page": 2, "total_pages": 2})
    );
    // Default order is created_at desc: Mariana, Rafael, Horizonte, Padaria.
    assert_eq!(ids_of(&body), vec![ids::HORIZONTE, ids::PADARIA]);

    let (_, body) = api.get("/v1/invoices").await;
    assert_eq!(
        body["meta"],
        json!({"total": 8, "page": 1, "per_page": 20, "total_pages": 1})
    );
    let (_, body) = api.get("/v1/customers?per_page=2&page=5").await;
    assert_eq!(body["data"], json!([]));
    assert_eq!(body["meta"]["page"], 5);
    let (status, _) = api.get("/v1/customers?per_page=100").await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn per_page_over_100_and_bad_paging_are_contract_violations() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/invoices?per_page=101").await;
    let details = assert_error(status, &body, 400, "contract_violation");
    assert_eq!(
        details["violations"],
        json!(["query.per_page: 101 is more than the maximum 100"])
    );
    for q in ["per_page=0", "page=0", "page=abc", "sort_order=up"] {
        let (status, body) = api.get(&format!("/v1/customers?{q}")).await;
        assert_error(status, &body, 400, "contract_violation");
    }
}

#[tokio::test]
async fn sort_by_is_whitelisted_per_resource() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/invoices?sort_by=amount").await;
    let details = assert_error(status, &body, 400, "validation_error");
    let msg = details["sort_by"][0].as_str().unwrap();
    assert!(
        msg.contains("created_at") && msg.contains("due_date") && msg.contains("total_subcents"),
        "{msg}"
    );
    let (status, _) = api.get("/v1/customers?sort_by=due_date").await;
    assert_eq!(status, 400, "due_date is not sortable on customers");
    for (path, field) in [
        ("/v1/customers", "name"),
        ("/v1/subscriptions", "recurring_amount_cents"),
        ("/v1/nfes", "nfe_number"),
        ("/v1/invoices/pending-payment", "due_date"),
    ] {
        let (status, body) = api.get(&format!("{path}?sort_by={field}")).await;
        assert_eq!(status, 200, "{path} {field}: {body}");
    }
}

#[tokio::test]
async fn sorting_orders_by_instant_and_direction() {
    let api = Api::new().await;
    let default = api.list_ids("/v1/invoices").await;
    assert_eq!(
        default,
        vec![
            ids::INV_DRAFT,
            ids::INV_OPEN,
            ids::INV_PAID_NFE_ERROR,
            ids::INV_OVERDUE,
            ids::INV_VOID,
            ids::INV_PAID_NFE_ISSUED,
            ids::INV_UNCOLLECTIBLE,
            ids::INV_UNVERIFIED,
        ]
    );
    let by_due = api
        .list_ids("/v1/invoices?sort_by=due_date&sort_order=asc")
        .await;
    assert_eq!(
        by_due,
        vec![
            ids::INV_UNVERIFIED,
            ids::INV_UNCOLLECTIBLE,
            ids::INV_PAID_NFE_ISSUED,
            ids::INV_VOID,
            ids::INV_OVERDUE,
            ids::INV_PAID_NFE_ERROR,
            ids::INV_OPEN,
            ids::INV_DRAFT,
        ]
    );
    let names: Vec<String> = {
        let (_, body) = api.get("/v1/customers?sort_by=name&sort_order=asc").await;
        body["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        names,
        vec![
            "Construtora Horizonte S.A.",
            "Mariana Souza Lima",
            "Padaria Pão Dourado Ltda",
            "Rafael Oliveira Santos"
        ]
    );
    // Nulls go last whatever the direction.
    let by_paid = api
        .list_ids("/v1/invoices?sort_by=paid_at&sort_order=desc")
        .await;
    assert_eq!(
        &by_paid[..2],
        &[ids::INV_PAID_NFE_ERROR, ids::INV_PAID_NFE_ISSUED]
    );
}

#[tokio::test]
async fn invoice_filters() {
    let api = Api::new().await;
    api.assert_lists(vec![
        (
            "/v1/invoices?status=paid".into(),
            AnyOrder(&[
                ids::INV_PAID_NFE_ISSUED,
                ids::INV_PAID_NFE_ERROR,
                ids::INV_UNVERIFIED,
            ]),
        ),
        (
            "/v1/invoices?status=open".into(),
            AnyOrder(&[ids::INV_OPEN, ids::INV_OVERDUE]),
        ),
        ("/v1/invoices?plan_filter=without_plan".into(), Count(4)),
        ("/v1/invoices?without_payments=true".into(), Count(4)),
        ("/v1/invoices?total_subcents=4990000".into(), Count(2)),
        (
            "/v1/invoices?due_date_from=2026-08-01&due_date_to=2026-08-25".into(),
            AnyOrder(&[ids::INV_OVERDUE, ids::INV_PAID_NFE_ERROR, ids::INV_OPEN]),
        ),
        (
            "/v1/invoices?date_from=2026-08-01".into(),
            AnyOrder(&[ids::INV_DRAFT, ids::INV_OPEN, ids::INV_PAID_NFE_ERROR]),
        ),
        (
            "/v1/invoices?document_number=529.982.247-25".into(),
            AnyOrder(&[ids::INV_DRAFT, ids::INV_PAID_NFE_ERROR, ids::INV_VOID]),
        ),
        (
            "/v1/invoices?search=Enterprise".into(),
            Exactly(&[ids::INV_OVERDUE]),
        ),
        (
            "/v1/invoices?search=padaria".into(),
            AnyOrder(&[ids::INV_OPEN, ids::INV_PAID_NFE_ISSUED]),
        ),
        (
            format!("/v1/invoices?subscription_id={}", ids::SUB_ACTIVE),
            AnyOrder(&[ids::INV_OPEN, ids::INV_PAID_NFE_ISSUED]),
        ),
        (
            format!("/v1/invoices?billing_account_id={}", ids::BA_RAFAEL),
            AnyOrder(&[ids::INV_UNCOLLECTIBLE, ids::INV_UNVERIFIED]),
        ),
    ])
    .await;
    let (status, body) = api.get("/v1/invoices?due_date_from=2026-13-01").await;
    let details = assert_error(status, &body, 400, "validation_error");
    assert!(details["due_date_from"].is_array());
    let (status, body) = api.get("/v1/invoices?status=overdue").await;
    assert_error(status, &body, 400, "contract_violation");
    let (status, body) = api.get("/v1/invoices?status=open,draft").await;
    assert_error(status, &body, 400, "contract_violation");
}

#[tokio::test]
async fn pending_payment_is_only_the_overdue_open_invoice() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/invoices/pending-payment").await;
    assert_eq!(status, 200);
    assert_eq!(ids_of(&body), vec![ids::INV_OVERDUE]);
    assert_eq!(body["meta"]["total"], 1);
    assert!(body["data"][0].get("_derived").is_none());
    assert_eq!(
        api.list_ids(&format!(
            "/v1/invoices/pending-payment?billing_account_id={}",
            ids::BA_PADARIA
        ))
        .await,
        Vec::<String>::new()
    );
}

#[tokio::test]
async fn pending_nfe_lists_paid_invoices_without_an_issued_nfe() {
    let api = Api::new().await;
    let (status, body) = api.get("/v1/invoices/pending-nfe").await;
    assert_eq!(status, 200);
    assert_eq!(
        ids_of(&body),
        vec![ids::INV_PAID_NFE_ERROR, ids::INV_UNVERIFIED]
    );
}

#[tokio::test]
async fn customer_search_and_kind() {
    let api = Api::new().await;
    for (q, want) in [
        ("search=MARIANA", ids::MARIANA),
        ("search=45321287", ids::PADARIA),
        ("search=45.321.287", ids::PADARIA),
        ("search=horizonte.example", ids::HORIZONTE),
        ("search=rafael.santos%40example.net", ids::RAFAEL),
    ] {
        assert_eq!(
            api.list_ids(&format!("/v1/customers?{q}")).await,
            vec![want],
            "{q}"
        );
    }
    assert_eq!(
        api.list_ids("/v1/customers?kind=natural").await,
        vec![ids::MARIANA, ids::RAFAEL]
    );
    assert_eq!(api.list_ids("/v1/customers?search=zzz").await.len(), 0);
    let (status, body) = api.get("/v1/customers?kind=company").await;
    assert_error(status, &body, 400, "contract_violation");
}

#[tokio::test]
async fn billing_account_filters_and_embedding() {
    let api = Api::new().await;
    api.assert_lists(vec![
        // person_id is the customer's id (contract ambiguities).
        (
            format!("/v1/billing_accounts?person_id={}", ids::PADARIA),
            Exactly(&[ids::BA_PADARIA]),
        ),
        (
            "/v1/billing_accounts?person_document_number=45321287000190".into(),
            Exactly(&[ids::BA_PADARIA]),
        ),
        (
            "/v1/billing_accounts?person_name_contains=souza".into(),
            Exactly(&[ids::BA_MARIANA]),
        ),
        (
            "/v1/billing_accounts?search=horizonte".into(),
            Exactly(&[ids::BA_HORIZONTE]),
        ),
        (
            "/v1/billing_accounts?status=closed".into(),
            Exactly(&[ids::BA_RAFAEL]),
        ),
        (
            "/v1/billing_accounts?auto_collection=false".into(),
            Exactly(&[ids::BA_MARIANA]),
        ),
        // Monthly recurring revenue: Padaria R$ 499,00; Horizonte R$ 11.988,00 / 12 = R$ 999,00.
        (
            "/v1/billing_accounts?mrr_min=90000".into(),
            Exactly(&[ids::BA_HORIZONTE]),
        ),
        (
            "/v1/billing_accounts?customer_tax_type=business&sort_by=created_at&sort_order=asc"
                .into(),
            Exactly(&[ids::BA_PADARIA, ids::BA_HORIZONTE]),
        ),
    ])
    .await;
    let (_, list) = api.get("/v1/billing_accounts").await;
    for ba in list["data"].as_array().unwrap() {
        // `ours` plays reading account_customer = embedded_in_lists (the other alternatives
        // are the wire's: tests/it/fake/readings.rs).
        assert!(
            ba["customer"]["name"]
                .as_str()
                .is_some_and(|n| !n.is_empty()),
            "lists embed the customer: {ba}"
        );
        assert!(
            ba.get("customer_id").is_none(),
            "not a BillingAccountV1 field"
        );
    }
    let (_, one) = api
        .get(&format!("/v1/billing_accounts/{}", ids::BA_PADARIA))
        .await;
    let customer = &one["data"]["customer"];
    assert_eq!(customer["id"], ids::PADARIA);
    assert_eq!(customer["name"], "Padaria Pão Dourado Ltda");
    assert_eq!(customer["kind"], "company");
    let (status, body) = api
        .get(&format!(
            "/v1/billing_accounts?customer_id={}",
            ids::PADARIA
        ))
        .await;
    assert_error(status, &body, 400, "contract_violation");
}

#[tokio::test]
async fn other_resource_filters() {
    let api = Api::new().await;
    api.assert_lists(vec![
        (
            "/v1/subscriptions?status=past_due".into(),
            Exactly(&[ids::SUB_PAST_DUE]),
        ),
        (
            format!("/v1/subscriptions?plan_id={}", ids::PLAN_PRO),
            Count(2),
        ),
        (
            format!("/v1/subscriptions?billing_account_id={}", ids::BA_HORIZONTE),
            Exactly(&[ids::SUB_PAST_DUE]),
        ),
        (
            "/v1/subscriptions?search=horizonte".into(),
            Exactly(&[ids::SUB_PAST_DUE]),
        ),
        (
            format!("/v1/subscriptions?person_id={}", ids::RAFAEL),
            Exactly(&[ids::SUB_CANCELED]),
        ),
        (
            "/v1/subscriptions?recurring_amount_min=1000".into(),
            Exactly(&[ids::SUB_PAST_DUE]),
        ),
        (
            "/v1/subscriptions?canceled_after=2026-06-01".into(),
            Exactly(&[ids::SUB_CANCELED]),
        ),
        ("/v1/nfes?status=error".into(), Exactly(&[ids::NFE_ERROR])),
        (
            format!("/v1/nfes?invoice_id={}", ids::INV_PAID_NFE_ISSUED),
            Exactly(&[ids::NFE_ISSUED]),
        ),
        (
            "/v1/nfes?issue_date_from=2026-07-01&issue_date_to=2026-07-31".into(),
            Exactly(&[ids::NFE_ISSUED]),
        ),
        (
            "/v1/nfes?created_after=2026-08-01".into(),
            Exactly(&[ids::NFE_ERROR]),
        ),
        (
            format!("/v1/nfes?billing_account_id={}", ids::BA_MARIANA),
            Exactly(&[ids::NFE_ERROR]),
        ),
        (
            format!("/v1/nfes?payment_id={}", ids::PAY_CARD),
            Exactly(&[ids::NFE_ISSUED]),
        ),
        (
            "/v1/nfes?person_document_number=529.982.247-25".into(),
            Exactly(&[ids::NFE_ERROR]),
        ),
        (
            "/v1/nfes?amount_min=1000".into(),
            Exactly(&[ids::NFE_ERROR]),
        ),
        ("/v1/payments?status=succeeded".into(), Count(2)),
        (
            "/v1/payments?payment_method_type=pix".into(),
            Exactly(&[ids::PAY_PIX]),
        ),
        (
            format!("/v1/payments?invoice_id={}", ids::INV_OVERDUE),
            Exactly(&[ids::PAY_FAILED]),
        ),
        (
            "/v1/payments?paid_amount_min=1000".into(),
            Exactly(&[ids::PAY_PIX]),
        ),
        (
            format!("/v1/payments?person_id={}", ids::PADARIA),
            Exactly(&[ids::PAY_BOLETO_PENDING, ids::PAY_CARD]),
        ),
    ])
    .await;
    let (status, body) = api.get("/v1/payments?status=paid").await;
    assert_error(status, &body, 400, "contract_violation");
}

#[tokio::test]
async fn plan_filters_and_items() {
    let api = Api::new().await;
    let all = [
        ids::PLAN_PRO,
        ids::PLAN_ENTERPRISE_HORIZONTE,
        ids::PLAN_BASIC_ARCHIVED,
    ];
    let pro_and_basic = [ids::PLAN_PRO, ids::PLAN_BASIC_ARCHIVED];
    let enterprise = [ids::PLAN_ENTERPRISE_HORIZONTE];
    let mut cases = vec![("/v1/plans".to_owned(), AnyOrder(&all))];
    for (q, want) in [
        ("status=archived", &[ids::PLAN_BASIC_ARCHIVED][..]),
        (
            "status=active",
            &[ids::PLAN_PRO, ids::PLAN_ENTERPRISE_HORIZONTE],
        ),
        ("plan_type=custom", &enterprise),
        ("visibility=public", &pro_and_basic),
        ("search=enterprise", &enterprise),
        ("default_billing_cycle=annual", &enterprise),
        ("exclude_custom_plans=true", &pro_and_basic),
        ("slug=pro", &[ids::PLAN_PRO]),
    ] {
        cases.push((format!("/v1/plans?{q}"), AnyOrder(want)));
    }
    cases.extend([
        (
            format!("/v1/plans?billing_account_id={}", ids::BA_HORIZONTE),
            Exactly(&enterprise),
        ),
        (
            format!("/v1/plans?scoped_billing_account_id={}", ids::BA_HORIZONTE),
            AnyOrder(&all),
        ),
        (
            format!("/v1/plans?scoped_billing_account_id={}", ids::BA_PADARIA),
            AnyOrder(&pro_and_basic),
        ),
        (format!("/v1/plans?person_id={}", ids::MARIANA), Count(0)),
    ]);
    api.assert_lists(cases).await;

    let (status, plan) = api.get(&format!("/v1/plans/{}", ids::PLAN_PRO)).await;
    assert_eq!(status, 200);
    assert_eq!(plan["data"]["name"], "Plano Pro");
    assert!(
        plan["data"].get("items").is_none(),
        "items are their own route"
    );
    let (status, items) = api
        .get(&format!(
            "/v1/plans/{}/items",
            ids::PLAN_ENTERPRISE_HORIZONTE
        ))
        .await;
    assert_eq!(status, 200);
    assert!(items.get("meta").is_none(), "no pagination: {items}");
    let items = items["data"].as_array().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[0]["price_id"], ids::PRICE_ENTERPRISE_LICENSE);
    assert_eq!(items[0]["product_id"], ids::PROD_LICENSE);
    assert_eq!(items[2]["included"], false);
    let (status, body) = api.get(&format!("/v1/plans/{}/items", ids::UNKNOWN)).await;
    assert_error(status, &body, 404, "not_found");
}

#[tokio::test]
async fn product_filters_default_to_active() {
    let api = Api::new().await;
    let active = api
        .list_ids("/v1/products?sort_by=display_order&sort_order=asc")
        .await;
    assert_eq!(
        active,
        vec![
            ids::PROD_LICENSE,
            ids::PROD_EXTRA_USER,
            ids::PROD_SUPPORT,
            ids::PROD_ONBOARDING
        ]
    );
    assert_eq!(api.list_ids("/v1/products?status=all").await.len(), 5);
    assert_eq!(
        api.list_ids("/v1/products?status=draft").await,
        vec![ids::PROD_NFSE_OVERAGE]
    );
    for (q, want) in [
        ("product_type=addon_quantity", ids::PROD_EXTRA_USER),
        ("product_type=one_time_fixed", ids::PROD_ONBOARDING),
        ("search=suporte", ids::PROD_SUPPORT),
        ("is_required=true", ids::PROD_LICENSE),
        ("visibility=private", ids::PROD_ONBOARDING),
    ] {
        assert_eq!(
            api.list_ids(&format!("/v1/products?{q}")).await,
            vec![want],
            "{q}"
        );
    }
    assert_eq!(
        api.list_ids("/v1/products?root_only=true&status=all")
            .await
            .len(),
        3
    );
    let (status, body) = api
        .get(&format!("/v1/products/{}", ids::PROD_NFSE_OVERAGE))
        .await;
    assert_eq!(status, 200, "a get finds any status");
    assert_eq!(body["data"]["product_type"], "metered");
}

#[tokio::test]
async fn fixtures_are_served_verbatim_with_nulls_for_omitted_fields() {
    let api = Api::new().await;
    let (_, body) = api.get(&format!("/v1/invoices/{}", ids::INV_OVERDUE)).await;
    let inv = &body["data"];
    assert_eq!(inv["number"], "FAT-2026-000790");
    assert_eq!(inv["total_withheld_cents"], 17982);
    assert_eq!(inv["net_value_cents"], 1_180_818);
    assert_eq!(inv["amount_due_subcents"], 119_880_000);
    assert_eq!(inv["amount_remaining_cents"], 1_198_800);
    assert_eq!(inv["due_date"], "2026-08-05T03:00:00Z");
    assert!(inv["voided_at"].is_null() && inv.get("voided_at").is_some());
    assert!(inv["footer"].is_null() && inv.get("footer").is_some());
    assert!(inv.get("_derived").is_none());
    let (_, body) = api.get(&format!("/v1/nfes/{}", ids::NFE_ERROR)).await;
    let nfe = &body["data"];
    assert_eq!(nfe["status"], "error");
    assert_eq!(nfe["issue_attempts"], 5);
    assert!(nfe.get("nbs_code").is_some_and(|v| v.is_null()));
    assert!(nfe.get("rps_number").is_some_and(|v| v.is_null()));
    let (_, body) = api.get(&format!("/v1/customers/{}", ids::MARIANA)).await;
    assert_eq!(body["data"]["document_number"], "529.982.247-25");
    assert_eq!(body["data"]["custom_metadata"], json!({"segmento": "PF"}));
    let (_, body) = api
        .get(&format!("/v1/subscriptions/{}", ids::SUB_ACTIVE))
        .await;
    assert_eq!(body["data"]["recurring_amount_cents"], 49900);
    assert!(body["data"]["trial_end"].is_null());
}
