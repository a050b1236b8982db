//! Credits (`/v1/credits`, `CreditV1`) and a customer's statement
//! (`/v1/customers/{id}/statement`): the ledger built from the organization's invoices,
//! payments and credit applications.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Listing;
use super::filters::{By, PERSON, REAIS, Table};
use super::invoice_updates::expired;
use crate::api::{ApiError, ApiResult, Errors, Page, Params, Record, i, list_response, s};
use crate::auth::AuthCtx;
use crate::ids::derived_uuid;
use crate::store::{App, OrgData};

const CREDIT_SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "amount_cents",
    "amount_remaining_cents",
    "expires_at",
];

/// The filters of `GET /v1/credits` (with [`PERSON`]); amounts are in reais.
pub const CREDIT_FILTERS: &Table = &[
    ("billing_account_id", By::Eq("billing_account_id")),
    ("company_id", By::Eq("company_id")),
    ("type", By::Eq("type")),
    ("usage", By::With(usage)),
    ("include_expired", By::With(include_expired)),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("amount_min", By::AtLeast("amount_cents", REAIS)),
    ("amount_max", By::AtMost("amount_cents", REAIS)),
    (
        "amount_remaining_min",
        By::AtLeast("amount_remaining_cents", REAIS),
    ),
    (
        "amount_remaining_max",
        By::AtMost("amount_remaining_cents", REAIS),
    ),
    ("expires_after", By::Since("expires_at")),
    ("expires_before", By::Until("expires_at")),
];

/// The credits' list: records, sort fields and filters.
pub const CREDITS: Listing = Listing {
    records: |o| &o.credits,
    sortable: CREDIT_SORT,
    tables: &[&PERSON, CREDIT_FILTERS],
};

fn usage(_: &OrgData, r: &Record, v: &str) -> bool {
    let left = i(r, "amount_remaining_cents");
    match v {
        "available" => left > 0 && !expired(r),
        "used" => left == 0,
        "expired" => expired(r),
        _ => true,
    }
}

fn include_expired(_: &OrgData, r: &Record, v: &str) -> bool {
    v == "true" || !expired(r)
}

/// `GET /v1/credits`: the filters of [`CREDITS`]; a query that names neither `usage` nor
/// `include_expired` leaves lapsed credits out.
pub async fn list_credits(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Query<Vec<(String, String)>>,
) -> ApiResult {
    let p = Params::new(q.clone());
    let asked = p.get("usage").is_some() || p.get("include_expired").is_some();
    super::filtered_list(&app, &ctx, q, &CREDITS, |_, r| {
        (asked || !expired(r)).then(|| Value::Object(r.clone()))
    })
}

/// One statement line.
fn item(
    account: &str,
    kind: &str,
    at: &Value,
    description: String,
    amount: i64,
    parent: (&Value, &str),
) -> Value {
    let parent_id = parent.0.as_str().unwrap_or_default();
    json!({
        "id": derived_uuid(&format!("statement:{kind}:{parent_id}")),
        "billing_account_id": account, "kind": kind, "occurred_at": at,
        "description": description, "amount_cents": amount,
        "parent_id": parent.0, "parent_type": parent.1, "created_at": at,
    })
}

/// The statement of one billing account: each finalized invoice (what is charged, positive),
/// each voided one taken back, each payment received and each credit applied (negative).
fn statement_of(org: &OrgData, account: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mine = |r: &&Record| s(r, "billing_account_id") == Some(account);
    for inv in org.invoices.iter().filter(mine) {
        let (Some(at), Some(number)) = (inv.get("finalized_at"), s(inv, "number")) else {
            continue;
        };
        if at.is_null() {
            continue;
        }
        let total = (i(inv, "total_subcents") + 50) / 100;
        let parent = (&inv["id"], "invoice");
        out.push(item(
            account,
            "invoice",
            at,
            format!("Fatura {number}"),
            total,
            parent,
        ));
        if let Some(voided) = inv.get("voided_at").filter(|v| !v.is_null()) {
            let text = format!("Fatura {number} anulada");
            out.push(item(account, "invoice_void", voided, text, -total, parent));
        }
    }
    for pay in org.payments.iter().filter(mine) {
        let Some(at) = pay.get("paid_at").filter(|v| !v.is_null()) else {
            continue;
        };
        let amount = pay["paid_amount_cents"]
            .as_i64()
            .unwrap_or(i(pay, "amount_cents"));
        let method = s(pay, "payment_method_type").unwrap_or("registro manual");
        let text = format!("Pagamento ({method})");
        out.push(item(
            account,
            "payment",
            at,
            text,
            -amount,
            (&pay["id"], "payment"),
        ));
    }
    for application in org.credit_applications.iter().filter(mine) {
        let text = "Crédito aplicado em fatura".to_owned();
        let parent = (&application["credit_id"], "credit");
        let amount = -i(application, "amount_cents");
        out.push(item(
            account,
            "credit_application",
            &application["created_at"],
            text,
            amount,
            parent,
        ));
    }
    out
}

/// `GET /v1/customers/{id}/statement` (customer UUID or `external_id`): the statement of the
/// customer's billing account; `billing_account_id` is required when there are several.
pub async fn statement(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    Query(q): Query<Vec<(String, String)>>,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let mut page = Page::from_params(
        &p,
        &["occurred_at", "created_at", "amount_cents"],
        &mut errors,
    );
    if p.get("sort_by").is_none() {
        page.sort_by = "occurred_at".to_owned();
    }
    errors.finish(StatusCode::BAD_REQUEST)?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = org.customer_idx(&id).ok_or_else(ApiError::not_found)?;
    let customer = s(&org.customers[idx], "id").unwrap_or_default().to_owned();
    let accounts: Vec<String> = org
        .billing_accounts
        .iter()
        .filter(|a| s(a, "customer_id") == Some(customer.as_str()))
        .filter_map(|a| s(a, "id").map(str::to_owned))
        .collect();
    let account = match p.get("billing_account_id") {
        Some(a) if accounts.iter().any(|x| x == a) => a.to_owned(),
        Some(_) => return Err(ApiError::not_found()),
        None if accounts.len() == 1 => accounts[0].clone(),
        None if accounts.is_empty() => return Ok(list_response(Vec::new(), &page)),
        None => {
            return Err(ApiError::field(
                StatusCode::BAD_REQUEST,
                "billing_account_id",
                "obrigatório quando o cliente tem mais de uma conta de cobrança",
            ));
        }
    };
    Ok(list_response(statement_of(org, &account), &page))
}
