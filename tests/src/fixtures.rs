//! Loads the §10 fixtures verbatim, plus the fake's own records ([P] payments, the catalog,
//! [`UNVERIFIED_INVOICE`]), and fills every omitted nullable field with `null` (and
//! non-nullable ones with Kobana's defaults), so records have their full schema shape.

use serde_json::{Value, json};

use crate::api::{Record, i, s};
use crate::clock;
use crate::ids::derived_uuid;
use crate::store::{OrgData, Price};

/// The reference §10 fixtures (the organization rewritten to `OrganizationV1`).
pub const BILLING_FIXTURES: &str = include_str!("../fixtures/billing.json");
/// The fake's own [P] payment fixtures.
pub const PAYMENT_FIXTURES: &str = include_str!("../fixtures/payments.json");
/// The fake's own [P] plans, plan items, products and price table.
pub const CATALOG_FIXTURES: &str = include_str!("../fixtures/catalog.json");

/// The fake's own invoice whose money unit nothing can verify (reading
/// `invoice_totals_unit`): paid (nothing owed), no net value, no line items. R$ 1.234,00 as
/// the profile writes it; `amount_remaining_cents` is 0, so no member whose unit is certain
/// tells `÷10000` from `÷100`.
pub const UNVERIFIED_INVOICE: &str = r#"{
  "id": "6a1d9e3b-2c4f-4e8a-b7d5-0f3c9a8e1b24",
  "number": "FAT-2026-000540",
  "status": "paid",
  "billing_account_id": "5be6128e-18c2-4797-a142-ea7d17be3111",
  "collection_method": "manual_invoice",
  "subtotal_subcents": 12340000,
  "tax_subcents": 0,
  "total_withheld_cents": 0,
  "net_value_cents": null,
  "total_subcents": 12340000,
  "amount_due_subcents": 12340000,
  "amount_paid_subcents": 12340000,
  "amount_remaining_cents": 0,
  "due_date": "2026-05-14T03:00:00Z",
  "paid_at": "2026-05-13T10:15:00-03:00",
  "finalized_at": "2026-05-04T12:00:00Z",
  "billing_reason": "manual",
  "description": "Consultoria avulsa (importada de outro sistema)",
  "payment_attempts": 1,
  "nfe_issuance_policy": "disabled",
  "created_at": "2026-05-04T12:00:00Z",
  "line_items": []
}"#;

/// Inserts each `(key, default)` that the record lacks.
pub fn fill(rec: &mut Record, defaults: &[(&str, Value)]) {
    for (k, v) in defaults {
        if !rec.contains_key(*k) {
            rec.insert((*k).to_string(), v.clone());
        }
    }
}

/// Inserts null for each of the space-separated `keys` that the record lacks.
pub fn fill_nulls(rec: &mut Record, keys: &str) {
    for k in keys.split_whitespace() {
        rec.entry(k).or_insert(Value::Null);
    }
}

fn public_id(rec: &mut Record) {
    if !rec.contains_key("public_id") {
        let id = s(rec, "id").unwrap_or_default().to_string();
        rec.insert(
            "public_id".into(),
            Value::String(derived_uuid(&format!("public:{id}"))),
        );
    }
}

/// The latest of several timestamp fields (by instant), for `updated_at`.
fn latest(rec: &Record, keys: &[&str]) -> Value {
    keys.iter()
        .filter_map(|k| s(rec, k).map(|v| (clock::parse_datetime(v).unwrap_or(0), v)))
        .max_by_key(|(t, _)| *t)
        .map(|(_, v)| Value::String(v.to_string()))
        .unwrap_or(Value::Null)
}

/// Full `CustomerV1` shape.
pub fn normalize_customer(rec: &mut Record) {
    public_id(rec);
    let created = rec.get("created_at").cloned().unwrap_or(Value::Null);
    fill_nulls(
        rec,
        "external_id nickname legal_name document_type document_number kind birthday notes \
         addresses phones emails websites tags custom_metadata",
    );
    fill(rec, &[("metadata", json!({})), ("updated_at", created)]);
}

/// Full `BillingAccountV1` shape (timestamps default to the customer's).
pub fn normalize_billing_account(rec: &mut Record, customer: Option<&Record>) {
    public_id(rec);
    let created = customer
        .and_then(|c| c.get("created_at").cloned())
        .unwrap_or(Value::Null);
    let updated = customer
        .and_then(|c| c.get("updated_at").cloned())
        .unwrap_or(Value::Null);
    fill_nulls(
        rec,
        "external_id billing_email suspended_at suspension_reason tax_exemption_certificate \
         customer_tax_type custom_metadata",
    );
    fill(
        rec,
        &[
            ("currency", json!("BRL")),
            ("payment_terms_days", json!(10)),
            ("auto_collection", json!(true)),
            ("balance_cents", json!(0)),
            ("status", json!("active")),
            ("tax_exempt", json!(false)),
            ("metadata", json!({})),
            ("created_at", created),
            ("updated_at", updated),
        ],
    );
}

/// Full `SubscriptionV1` shape.
pub fn normalize_subscription(rec: &mut Record) {
    public_id(rec);
    let created = rec.get("activated_at").cloned().unwrap_or(Value::Null);
    fill(rec, &[("created_at", created)]);
    let updated = latest(
        rec,
        &[
            "created_at",
            "activated_at",
            "canceled_at",
            "paused_at",
            "resumed_at",
        ],
    );
    fill_nulls(
        rec,
        "external_id company_id plan_id product_group_id current_period_start \
         current_period_end cycle_billing_date trial_start trial_end activated_at confirmed_at \
         canceled_at cancellation_reason pause_collection paused_at resumes_at resumed_at \
         discount_code_id discount_percent recurring_amount_cents collection_method \
         nfe_issuance_policy proposal_id notes custom_metadata",
    );
    fill(
        rec,
        &[
            ("billing_cycle", json!("monthly")),
            ("cancel_at_period_end", json!(false)),
            ("proration_behavior", json!("create_prorations")),
            ("renewal_settings", json!({"type": "auto_renew"})),
            ("commitment", json!({})),
            ("allow_pause", json!(true)),
            ("allow_cancel", json!(true)),
            ("metadata", json!({})),
            ("updated_at", updated),
        ],
    );
}

/// Full invoice line item shape.
pub fn normalize_line_item(item: &mut Record, invoice: &Record, index: usize) {
    let invoice_id = s(invoice, "id").unwrap_or_default().to_string();
    if !item.contains_key("id") {
        item.insert(
            "id".into(),
            Value::String(derived_uuid(&format!("line-item:{invoice_id}:{index}"))),
        );
    }
    let kind = if invoice.get("subscription_id").is_some_and(|v| !v.is_null()) {
        "subscription"
    } else {
        "one-off"
    };
    fill(
        item,
        &[
            ("invoice_id", Value::String(invoice_id)),
            ("subscription_item_id", Value::Null),
            ("product_id", Value::Null),
            ("price_id", Value::Null),
            ("service_item_id", Value::Null),
            ("type", json!(kind)),
            ("description", Value::Null),
            ("quantity", json!(1)),
            ("unit_amount_subcents", json!(0)),
            ("amount_cents", json!(0)),
            ("discount_cents", json!(0)),
            ("tax_subcents", json!(0)),
            (
                "period_start",
                invoice.get("period_start").cloned().unwrap_or(Value::Null),
            ),
            (
                "period_end",
                invoice.get("period_end").cloned().unwrap_or(Value::Null),
            ),
            ("proration", json!(false)),
            ("proration_details", Value::Null),
            ("metadata", json!({})),
            (
                "created_at",
                invoice.get("created_at").cloned().unwrap_or(Value::Null),
            ),
        ],
    );
}

/// Full `InvoiceV1` shape. Fixture invoices without line items get one item that matches the
/// subtotal; the fixture-only `_derived` annotation (computed values the MCP adds) is dropped.
pub fn normalize_invoice(rec: &mut Record) {
    rec.remove("_derived");
    public_id(rec);
    let updated = latest(rec, &["created_at", "finalized_at", "paid_at", "voided_at"]);
    fill_nulls(
        rec,
        "external_id number company_id subscription_id product_group_id net_value_cents \
         period_start period_end due_date paid_at voided_at finalized_at billing_reason \
         description footer hosted_invoice_url invoice_pdf_url next_payment_attempt \
         installment_count nfe_issuance_policy custom_metadata",
    );
    fill(
        rec,
        &[
            ("collection_method", json!("manual_invoice")),
            ("currency", json!("BRL")),
            ("subtotal_subcents", json!(0)),
            ("discount_cents", json!(0)),
            ("tax_subcents", json!(0)),
            ("total_withheld_cents", json!(0)),
            ("total_subcents", json!(0)),
            ("amount_due_subcents", json!(0)),
            ("amount_paid_subcents", json!(0)),
            ("amount_remaining_cents", json!(0)),
            ("payment_attempts", json!(0)),
            ("metadata", json!({})),
            ("updated_at", updated),
        ],
    );
    if !rec.get("line_items").is_some_and(Value::is_array) {
        let subtotal = i(rec, "subtotal_subcents");
        let description = match (s(rec, "description"), s(rec, "period_start")) {
            (Some(d), _) => d.to_string(),
            (None, Some(start)) => format!(
                "Assinatura — período iniciado em {}",
                start.get(..10).unwrap_or(start)
            ),
            (None, None) => "Serviço".to_string(),
        };
        rec.insert(
            "line_items".into(),
            json!([{
                "description": description,
                "quantity": 1,
                "unit_amount_subcents": subtotal,
                "amount_cents": subtotal / 100,
            }]),
        );
    }
    let snapshot = rec.clone();
    if let Some(Value::Array(items)) = rec.get_mut("line_items") {
        for (n, item) in items.iter_mut().enumerate() {
            if let Value::Object(m) = item {
                normalize_line_item(m, &snapshot, n);
            }
        }
    }
}

/// Full `NfeV1` shape.
pub fn normalize_nfe(rec: &mut Record, org_id: &str) {
    public_id(rec);
    let updated = latest(rec, &["created_at", "issue_date", "cancelled_at"]);
    fill_nulls(
        rec,
        "external_id invoice_id transaction_id company_id person_id nfe_number nfe_series \
         nfe_key verification_code issue_date cancelled_at service_code service_description \
         lc116_code cnae_code nbs_code ncm_code xml_url pdf_url provider_company_id rps_number \
         rps_serial_number next_retry_at error_message custom_metadata pdf_downloaded_at \
         xml_downloaded_at",
    );
    fill(
        rec,
        &[
            ("organization_id", Value::String(org_id.to_string())),
            ("customer_snapshot", json!({})),
            ("taxes", json!({})),
            ("issue_attempts", json!(0)),
            ("cancel_attempts", json!(0)),
            ("metadata", json!({})),
            ("updated_at", updated),
        ],
    );
}

/// Full [P] `PaymentV1` shape.
pub fn normalize_payment(rec: &mut Record) {
    public_id(rec);
    let created = rec.get("created_at").cloned().unwrap_or(Value::Null);
    fill_nulls(
        rec,
        "external_id invoice_id billing_account_id company_id payment_method_id gateway_id \
         payment_method_type paid_amount_cents payment_gateway gateway_payment_id failure_code \
         failure_message idempotency_key paid_at custom_metadata",
    );
    fill(
        rec,
        &[
            ("currency", json!("BRL")),
            ("metadata", json!({})),
            ("updated_at", created),
        ],
    );
}

/// Full [P] `ProductV1` shape.
pub fn normalize_product(rec: &mut Record, org_id: &str) {
    public_id(rec);
    let created = rec.get("created_at").cloned().unwrap_or(Value::Null);
    fill_nulls(
        rec,
        "external_id company_id parent_product_id product_group_id service_item_id description \
         unit_label website_url custom_metadata",
    );
    fill(
        rec,
        &[
            ("organization_id", Value::String(org_id.to_string())),
            ("increment", json!(1)),
            ("display_order", json!(0)),
            ("is_required", json!(false)),
            ("metadata", json!({})),
            ("updated_at", created),
        ],
    );
}

/// Full [P] `PlanV1` shape.
pub fn normalize_plan(rec: &mut Record, org_id: &str) {
    public_id(rec);
    let created = rec.get("created_at").cloned().unwrap_or(Value::Null);
    fill_nulls(
        rec,
        "external_id company_id plan_group_id billing_account_id description trial_period_days \
         custom_metadata",
    );
    fill(
        rec,
        &[
            ("organization_id", Value::String(org_id.to_string())),
            ("features", json!([])),
            ("limits", json!({})),
            ("default_billing_cycle", json!("monthly")),
            ("metadata", json!({})),
            ("updated_at", created),
        ],
    );
    let cycle = rec["default_billing_cycle"].clone();
    fill(rec, &[("available_billing_cycles", json!([cycle]))]);
}

/// The `OrganizationV1` of an organization the fixtures do not know.
pub fn empty_organization(org_id: &str) -> Record {
    let short: String = org_id.chars().take(8).collect();
    let now = clock::now_string();
    let mut rec = Record::new();
    rec.insert("id".into(), json!(org_id));
    public_id(&mut rec);
    for (k, v) in [
        ("external_id", Value::Null),
        ("status", json!("active")),
        ("metadata", json!({})),
        ("custom_metadata", Value::Null),
        ("created_at", json!(now)),
        ("updated_at", json!(now)),
        (
            "person",
            json!({"name": format!("Organização {short}"), "document_type": null,
                   "document_number": null, "kind": "company"}),
        ),
    ] {
        rec.insert(k.into(), v);
    }
    rec
}

fn records(v: &Value, key: &str) -> Vec<Record> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| x.as_object().cloned()).collect())
        .unwrap_or_default()
}

/// The fixture organization's data.
pub fn fixture_org() -> OrgData {
    let billing: Value = serde_json::from_str(BILLING_FIXTURES).expect("billing fixtures parse");
    let payments: Value = serde_json::from_str(PAYMENT_FIXTURES).expect("payment fixtures parse");
    let catalog: Value = serde_json::from_str(CATALOG_FIXTURES).expect("catalog fixtures parse");
    let organization = billing["organization"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let org_id = s(&organization, "id")
        .unwrap_or(crate::FIXTURE_ORG_ID)
        .to_string();

    let mut customers = records(&billing, "customers");
    customers.iter_mut().for_each(normalize_customer);
    let mut billing_accounts = records(&billing, "billing_accounts");
    for ba in &mut billing_accounts {
        let cid = s(ba, "customer_id").unwrap_or_default().to_string();
        let customer = customers.iter().find(|c| s(c, "id") == Some(cid.as_str()));
        normalize_billing_account(ba, customer);
    }
    let mut subscriptions = records(&billing, "subscriptions");
    subscriptions.iter_mut().for_each(normalize_subscription);
    let mut invoices = records(&billing, "invoices");
    invoices.extend(
        serde_json::from_str::<Value>(UNVERIFIED_INVOICE)
            .ok()
            .and_then(|v| v.as_object().cloned()),
    );
    invoices.iter_mut().for_each(normalize_invoice);
    let mut nfes = records(&billing, "nfes");
    for nfe in &mut nfes {
        // The taker person is the customer of the NF-e's billing account (see the contract's
        // ambiguities on `person_id`).
        let person = s(nfe, "billing_account_id")
            .and_then(|b| billing_accounts.iter().find(|ba| s(ba, "id") == Some(b)))
            .and_then(|ba| ba.get("customer_id"))
            .cloned()
            .unwrap_or(Value::Null);
        fill(nfe, &[("person_id", person)]);
        normalize_nfe(nfe, &org_id);
    }
    let mut payments = records(&payments, "payments");
    payments.iter_mut().for_each(normalize_payment);
    let mut products = records(&catalog, "products");
    products
        .iter_mut()
        .for_each(|p| normalize_product(p, &org_id));
    let mut plans = records(&catalog, "plans");
    plans.iter_mut().for_each(|p| normalize_plan(p, &org_id));
    let plan_items = records(&catalog, "plan_items");
    let prices = records(&catalog, "prices")
        .iter()
        .map(|p| Price {
            id: s(p, "id").unwrap_or_default().to_string(),
            product_id: s(p, "product_id").unwrap_or_default().to_string(),
            unit_amount_subcents: i(p, "unit_amount_subcents"),
        })
        .collect();

    let invoice_seq = invoices
        .iter()
        .filter_map(|inv| s(inv, "number"))
        .filter_map(|n| n.rsplit('-').next()?.parse::<u64>().ok())
        .max()
        .unwrap_or(0);

    OrgData {
        organization,
        customers,
        deleted_customers: Default::default(),
        generic: Default::default(),
        billing_accounts,
        subscriptions,
        invoices,
        payments,
        nfes,
        plans,
        plan_items,
        products,
        prices,
        refunded_cents: Default::default(),
        invoice_seq,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixtures_load_with_full_shapes() {
        let org = fixture_org();
        assert_eq!(org.customers.len(), 4);
        assert_eq!(org.invoices.len(), 8);
        let unverified = org.invoices.last().unwrap();
        assert_eq!(unverified["line_items"], json!([]));
        assert!(unverified["net_value_cents"].is_null());
        assert_eq!(org.invoice_seq, 812);
        let overdue = &org.invoices[2];
        assert!(!overdue.contains_key("_derived"));
        assert!(overdue["voided_at"].is_null());
        assert_eq!(overdue["line_items"][0]["amount_cents"], json!(1_198_800));
        assert!(org.nfes[1]["nbs_code"].is_null());
        assert_eq!(
            org.nfes[1]["person_id"],
            json!("23b8c1e9-3924-46de-beb1-3b9046685257")
        );
        assert_eq!(org.payments.len(), 4);
        assert_eq!(org.plans.len(), 3);
        assert_eq!(org.products.len(), 5);
        for plan in &org.plans {
            let n = org.items_of_plan(s(plan, "id").unwrap()).count();
            assert!((1..=3).contains(&n), "{plan:?}");
        }
        for item in &org.plan_items {
            let price = org.price(s(item, "price_id").unwrap()).expect("priced");
            assert_eq!(Some(price.product_id.as_str()), s(item, "product_id"));
            assert!(org.product(&price.product_id).is_some());
        }
    }
}
