//! The billing API v1 routes: one per operation of the contract (`tests/contract`).

pub mod catalog;
pub mod customers;
pub mod filters;
pub mod invoice_updates;
pub mod invoices;
pub mod ledger;
pub mod nfes;
pub mod organization;
pub mod payments;
pub mod subscriptions;

use axum::Extension;
use axum::Router;
use axum::extract::FromRequestParts;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, get, post};

use serde_json::{Value, json};

use crate::api::{ApiError, ApiResult, Errors, Page, Params, Record, data, list_response};
use crate::auth::AuthCtx;
use crate::store::{App, OrgData};
use filters::Table;

/// Every `/v1` route (the gate middleware is applied by the caller).
pub fn router() -> Router<App> {
    Router::new()
        .route("/v1/organization", get(organization::get))
        .route(
            "/v1/customers",
            get(customers::list).post(customers::create),
        )
        .route(
            "/v1/customers/{id}",
            get(customers::get)
                .patch(customers::update)
                .delete(customers::delete),
        )
        .route("/v1/customers/{id}/statement", get(ledger::statement))
        .route("/v1/billing_accounts", get(customers::list_accounts))
        .route("/v1/billing_accounts/{id}", get(customers::get_account))
        .route(
            "/v1/subscriptions",
            stored_list(&subscriptions::LIST).post(subscriptions::create),
        )
        .route(
            "/v1/subscriptions/{id}",
            stored_get(subscriptions::LIST.records),
        )
        .route("/v1/subscriptions/{id}/cancel", post(subscriptions::cancel))
        .route("/v1/subscriptions/{id}/pause", post(subscriptions::pause))
        .route("/v1/subscriptions/{id}/resume", post(subscriptions::resume))
        .route("/v1/invoices", get(invoices::list).post(invoices::create))
        .route(
            "/v1/invoices/pending-payment",
            get(invoices::pending_payment),
        )
        .route("/v1/invoices/pending-nfe", get(invoices::pending_nfe))
        .route(
            "/v1/invoices/{id}",
            get(invoices::get)
                .patch(invoice_updates::update)
                .delete(invoices::delete),
        )
        .route("/v1/invoices/{id}/pay", post(invoice_updates::pay))
        .route(
            "/v1/invoices/{id}/undo-payment",
            post(invoice_updates::undo_payment),
        )
        .route(
            "/v1/invoices/{id}/apply-credits",
            post(invoice_updates::apply_credits),
        )
        .route("/v1/invoices/{id}/finalize", post(invoices::finalize))
        .route("/v1/invoices/{id}/void", post(invoices::void))
        .route(
            "/v1/invoices/{id}/send-reminder",
            post(invoices::send_reminder),
        )
        .route("/v1/invoices/{id}/issue-nfe", post(invoices::issue_nfe))
        .route("/v1/invoices/{id}/pdf", get(invoices::pdf))
        .route("/v1/payments", stored_list(&payments::LIST))
        .route("/v1/payments/{id}", stored_get(payments::LIST.records))
        .route("/v1/payments/{id}/refund", post(payments::refund))
        .route(
            "/v1/payments/{id}/change-due-date",
            post(payments::change_due_date),
        )
        .route("/v1/credits", get(ledger::list_credits))
        .route("/v1/credits/{id}", stored_get(ledger::CREDITS.records))
        .route("/v1/nfes", stored_list(&nfes::LIST))
        .route("/v1/nfes/{id}", stored_get(nfes::LIST.records))
        // A literal the `{id}` above would take (the other operations: the fallback).
        .route("/v1/nfes/request-tries", get(crate::generic::respond))
        .route("/v1/nfes/{id}/issue", post(nfes::issue))
        .route("/v1/nfes/{id}/cancel", post(nfes::cancel))
        .route("/v1/nfes/{id}/pdf", get(nfes::pdf))
        .route("/v1/nfes/{id}/xml", get(nfes::xml))
        .route("/v1/plans", stored_list(&catalog::PLANS))
        .route("/v1/plans/{id}", get(catalog::get_plan))
        .route("/v1/plans/{id}/items", get(catalog::plan_items))
        .route("/v1/products", get(catalog::list_products))
        .route("/v1/products/{id}", get(catalog::get_product))
        // Every operation without a route of its own (WA-5).
        .method_not_allowed_fallback(crate::generic::respond)
}

/// 404 for paths outside the contract and `/__fake` (the gate answers unknown `/v1`
/// operations itself).
pub async fn not_found() -> impl IntoResponse {
    ApiError::not_found()
}

/// Validates a CPF (11 digits) or CNPJ (14 digits) check digits.
pub fn valid_document(doc: &str) -> Option<&'static str> {
    let d: Vec<u32> = doc.chars().filter_map(|c| c.to_digit(10)).collect();
    if doc
        .chars()
        .any(|c| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '/' | ' ')))
    {
        return None;
    }
    if d.is_empty() || d.iter().all(|x| *x == d[0]) {
        return None;
    }
    let dv = |sum: u32| {
        let r = sum % 11;
        if r < 2 { 0 } else { 11 - r }
    };
    match d.len() {
        11 => {
            let s1: u32 = (0..9).map(|i| d[i] * (10 - i as u32)).sum();
            let s2: u32 = (0..10).map(|i| d[i] * (11 - i as u32)).sum();
            (dv(s1) == d[9] && dv(s2) == d[10]).then_some("cpf")
        }
        14 => {
            let w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
            let w2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
            let s1: u32 = (0..12).map(|i| d[i] * w1[i]).sum();
            let s2: u32 = (0..13).map(|i| d[i] * w2[i]).sum();
            (dv(s1) == d[12] && dv(s2) == d[13]).then_some("cnpj")
        }
        _ => None,
    }
}

/// An optional boolean field of a body: `default` when absent or null, an error when not a
/// Each of `keys` from `body` into `rec` as sent (`null` when the body has none).
pub fn copy_as_sent(rec: &mut crate::api::Record, body: &crate::api::Record, keys: &[&str]) {
    for key in keys {
        let value = body.get(*key).cloned().unwrap_or(Value::Null);
        rec.insert((*key).into(), value);
    }
}

/// `body[key]` as text, else `default`.
pub fn text_or(body: &crate::api::Record, key: &str, default: &str) -> String {
    body.get(key)
        .and_then(Value::as_str)
        .unwrap_or(default)
        .to_string()
}

/// boolean.
pub fn opt_bool(body: &crate::api::Record, key: &str, default: bool, errors: &mut Errors) -> bool {
    match body.get(key) {
        None | Some(serde_json::Value::Null) => default,
        Some(serde_json::Value::Bool(b)) => *b,
        Some(_) => {
            errors.add(key, "deve ser verdadeiro ou falso");
            default
        }
    }
}

/// Checks an optional string field of a body, recording a type error.
pub fn opt_str<'a>(
    body: &'a crate::api::Record,
    key: &str,
    errors: &mut Errors,
) -> Option<&'a str> {
    match body.get(key) {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            errors.add(key, "deve ser um texto");
            None
        }
    }
}

/// A required non-blank string field.
pub fn req_str<'a>(
    body: &'a crate::api::Record,
    key: &str,
    errors: &mut Errors,
) -> Option<&'a str> {
    match body.get(key) {
        Some(serde_json::Value::String(s)) if !s.trim().is_empty() => Some(s.as_str()),
        None | Some(serde_json::Value::Null) | Some(serde_json::Value::String(_)) => {
            errors.add(key, "não pode ficar em branco");
            None
        }
        Some(_) => {
            errors.add(key, "deve ser um texto");
            None
        }
    }
}

/// What every `/v1/{collection}/{id}` handler takes: the store, the caller and the id.
pub struct ById {
    /// The fake's state.
    pub app: App,
    /// Who calls, from the token.
    pub ctx: AuthCtx,
    /// The path's `{id}`.
    pub id: String,
}

impl FromRequestParts<App> for ById {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &App) -> Result<Self, Response> {
        let Extension(ctx) = Extension::<AuthCtx>::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        let Path(id) = Path::<String>::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        Ok(ById {
            app: app.clone(),
            ctx,
            id,
        })
    }
}

/// The records of one list in the caller's organization.
type Records = fn(&OrgData) -> &[Record];

/// The records of one list in the caller's organization, to change.
type RecordsMut = fn(&mut OrgData) -> &mut Vec<Record>;

/// One list of the API: its records, the `sort_by` values it takes and its filter tables.
pub struct Listing {
    /// Its records in the caller's organization.
    pub records: Records,
    /// The `sort_by` values it takes.
    pub sortable: &'static [&'static str],
    /// Its filter tables.
    pub tables: &'static [&'static Table],
}

/// A page of the `listing`'s records that the query's filters let through, each as `show`
/// renders it; `show` leaves a record out with `None`.
fn filtered_list(
    app: &App,
    ctx: &AuthCtx,
    q: Vec<(String, String)>,
    listing: &Listing,
    show: impl Fn(&OrgData, &Record) -> Option<Value>,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, listing.sortable, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = (listing.records)(org)
        .iter()
        .filter(|r| filters::keeps(org, &p, listing.tables, r))
        .filter_map(|r| show(org, r))
        .collect();
    Ok(list_response(items, &page))
}

/// `GET` of a list whose records are answered as they are stored.
fn stored_list(listing: &'static Listing) -> MethodRouter<App> {
    get(
        move |State(app): State<App>,
              Extension(ctx): Extension<AuthCtx>,
              Query(q): Query<Vec<(String, String)>>| async move {
            filtered_list(&app, &ctx, q, listing, |_, r| {
                Some(Value::Object(r.clone()))
            })
        },
    )
}

/// `GET` of one record of `records` by id, as it is stored, or 404.
fn stored_get(records: Records) -> MethodRouter<App> {
    get(
        move |State(app): State<App>,
              Extension(ctx): Extension<AuthCtx>,
              Path(id): Path<String>| async move {
            let mut inner = app.lock();
            let org = inner.org(ctx.org());
            let list = records(org);
            let idx = OrgData::idx(list, &id).ok_or_else(ApiError::not_found)?;
            Ok::<_, ApiError>(data(Value::Object(list[idx].clone())))
        },
    )
}

/// Applies `f` to the record of `records` with `id` (404 when there is none), stamps its
/// `updated_at` and answers with it.
fn transition(
    app: &App,
    ctx: &AuthCtx,
    id: &str,
    records: RecordsMut,
    f: impl FnOnce(&mut OrgData, &mut Record) -> Result<(), ApiError>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(records(org), id).ok_or_else(ApiError::not_found)?;
    let mut rec = records(org)[idx].clone();
    f(org, &mut rec)?;
    rec.insert("updated_at".into(), json!(crate::clock::now_string()));
    records(org)[idx] = rec.clone();
    Ok(data(Value::Object(rec)))
}

#[cfg(test)]
mod tests {
    use super::filters::{PAGING, PERSON, Table};
    use super::{
        catalog, customers, invoices, ledger, nfes, payments, subscriptions, valid_document,
    };
    use crate::contract::contract;

    /// Every list operation's filter tables: each declared query parameter is a filter (or
    /// paging), and each filter is declared.
    #[test]
    fn every_declared_list_filter_is_implemented() {
        let lists: [(&str, Vec<&Table>); 11] = [
            ("customers.list", vec![customers::CUSTOMER_FILTERS]),
            (
                "billing_accounts.list",
                vec![&PERSON, customers::ACCOUNT_FILTERS],
            ),
            ("subscriptions.list", vec![&PERSON, subscriptions::FILTERS]),
            ("invoices.list", vec![invoices::FILTERS]),
            ("invoices.pending_payment", vec![invoices::VIEW_FILTERS]),
            ("invoices.pending_nfe", vec![invoices::VIEW_FILTERS]),
            ("payments.list", vec![&PERSON, payments::FILTERS]),
            ("nfes.list", vec![&PERSON, nfes::FILTERS]),
            ("plans.list", vec![&PERSON, catalog::PLAN_FILTERS]),
            ("products.list", vec![catalog::PRODUCT_FILTERS]),
            ("get-credits", vec![&PERSON, ledger::CREDIT_FILTERS]),
        ];
        for (id, tables) in lists {
            let op = contract().operation(id).unwrap();
            let mut implemented: Vec<&str> = tables
                .iter()
                .flat_map(|t| t.iter().map(|(n, _)| *n))
                .chain(PAGING)
                .collect();
            implemented.sort();
            let declared: Vec<&str> = op.query.keys().map(String::as_str).collect();
            assert_eq!(implemented, declared, "{id}");
        }
    }

    #[test]
    fn fixture_documents_are_valid() {
        for doc in [
            "529.982.247-25",
            "45.321.287/0001-90",
            "08.351.459/0001-41",
            "111.444.777-35",
            "11.222.333/0001-81",
        ] {
            assert!(valid_document(doc).is_some(), "{doc}");
        }
        assert_eq!(valid_document("529.982.247-24"), None);
        assert_eq!(valid_document("111.111.111-11"), None);
    }
}
