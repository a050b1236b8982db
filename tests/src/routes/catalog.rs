//! Plans (`/v1/plans`, `/v1/plans/{id}/items`) and products (`/v1/products`), read-only.

use axum::Extension;
use axum::extract::{Query, State};
use serde_json::{Value, json};

use super::filters::{By, PERSON, Table};
use super::{ById, Listing, filtered_list};
use crate::api::{ApiError, ApiResult, Record, data, s};
use crate::auth::AuthCtx;
use crate::store::{App, OrgData};

const PLAN_SORT: &[&str] = &["created_at", "updated_at", "name"];
const PRODUCT_SORT: &[&str] = &["created_at", "updated_at", "name", "display_order"];

/// The filters of `GET /v1/plans` (with [`PERSON`], through a custom plan's account).
/// Without `status`, every plan is listed (the filter has no `all`).
pub const PLAN_FILTERS: &Table = &[
    ("status", By::Eq("status")),
    ("plan_type", By::Eq("plan_type")),
    ("visibility", By::Eq("visibility")),
    ("plan_group_id", By::Eq("plan_group_id")),
    ("company_id", By::Eq("company_id")),
    ("billing_account_id", By::Eq("billing_account_id")),
    ("scoped_billing_account_id", By::With(usable_by)),
    ("exclude_custom_plans", By::With(exclude_custom)),
    ("default_billing_cycle", By::Eq("default_billing_cycle")),
    ("external_id", By::Eq("external_id")),
    ("slug", By::Eq("slug")),
    ("search", By::Contains(&["name", "slug", "description"])),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("updated_after", By::Since("updated_at")),
    ("updated_before", By::Until("updated_at")),
];

/// The filters of `GET /v1/products`. Without `status`, only `active` products are listed;
/// `status=all` lists every one.
pub const PRODUCT_FILTERS: &Table = &[
    ("status", By::With(product_status)),
    ("visibility", By::Eq("visibility")),
    ("product_type", By::Eq("product_type")),
    ("product_group_id", By::Eq("product_group_id")),
    ("company_id", By::Eq("company_id")),
    ("parent_product_id", By::Eq("parent_product_id")),
    ("root_only", By::With(root_only)),
    ("search", By::Contains(&["name", "slug"])),
    ("service_item_id", By::Eq("service_item_id")),
    ("is_required", By::Bool("is_required")),
    // ProductV1 has no such field: no fake product is editable by the customer.
    ("self_service_editable", By::Bool("self_service_editable")),
    ("external_id", By::Eq("external_id")),
    ("slug", By::Eq("slug")),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("updated_after", By::Since("updated_at")),
    ("updated_before", By::Until("updated_at")),
];

/// Standard (and promotional) plans plus the account's own custom plans.
fn usable_by(_: &OrgData, plan: &Record, account: &str) -> bool {
    s(plan, "billing_account_id").is_none_or(|owner| owner == account)
}

fn exclude_custom(_: &OrgData, plan: &Record, v: &str) -> bool {
    v != "true" || s(plan, "plan_type") != Some("custom")
}

fn product_status(_: &OrgData, product: &Record, v: &str) -> bool {
    v == "all" || s(product, "status") == Some(v)
}

/// `GET /v1/plans`.
pub const PLANS: Listing = Listing {
    records: |o| &o.plans,
    sortable: PLAN_SORT,
    tables: &[&PERSON, PLAN_FILTERS],
};

/// What `GET /v1/products` lists.
pub const PRODUCTS: Listing = Listing {
    records: |o| &o.products,
    sortable: PRODUCT_SORT,
    tables: &[PRODUCT_FILTERS],
};

fn root_only(_: &OrgData, product: &Record, v: &str) -> bool {
    v != "true" || s(product, "parent_product_id").is_none()
}

/// `GET /v1/plans/{id}` (items are `GET /v1/plans/{id}/items`, not embedded).
pub async fn get_plan(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let plan = org.plan(&id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(plan.clone())))
}

/// `GET /v1/plans/{id}/items` → `{"data": [PlanItemV1…]}` (no `meta`).
pub async fn plan_items(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    org.plan(&id).ok_or_else(ApiError::not_found)?;
    let items: Vec<Value> = org
        .items_of_plan(&id)
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(data(json!(items)))
}

/// `GET /v1/products` (active products unless the query names a `status`).
pub async fn list_products(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(mut q): Query<Vec<(String, String)>>,
) -> ApiResult {
    if !q.iter().any(|(k, v)| k == "status" && !v.trim().is_empty()) {
        q.push(("status".into(), "active".into()));
    }
    filtered_list(&app, &ctx, q, &PRODUCTS, |_, r| {
        Some(Value::Object(r.clone()))
    })
}

/// `GET /v1/products/{id}`.
pub async fn get_product(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let product = org.product(&id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(product.clone())))
}
