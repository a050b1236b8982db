//! Customers (`/v1/customers`) and billing accounts (`/v1/billing_accounts`).

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::filters::{By, CENTS, PERSON, Table};
use super::{ById, Listing, filtered_list, opt_bool, opt_str, req_str, valid_document};
use crate::api::{
    ApiError, ApiResult, Errors, Record, contains_ci, created, data, deleted, digits_of, i,
    parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::fixtures::{normalize_billing_account, normalize_customer};
use crate::store::{App, OrgData};

const SORT: &[&str] = &["created_at", "updated_at", "name"];
const ACCOUNT_SORT: &[&str] = &["created_at", "updated_at", "balance_cents"];
const KINDS: &[&str] = &["natural", "juridical"];

/// The filters of `GET /v1/customers`.
pub const CUSTOMER_FILTERS: &Table = &[
    ("kind", By::Eq("kind")),
    ("search", By::With(search_customer)),
];

/// The filters of `GET /v1/billing_accounts` (with [`PERSON`]).
pub const ACCOUNT_FILTERS: &Table = &[
    ("status", By::Eq("status")),
    ("search", By::With(search_account)),
    ("external_id", By::Eq("external_id")),
    ("currency", By::Eq("currency")),
    ("auto_collection", By::Bool("auto_collection")),
    ("tax_exempt", By::Bool("tax_exempt")),
    ("customer_tax_type", By::Eq("customer_tax_type")),
    ("balance_min", By::AtLeast("balance_cents", CENTS)),
    ("balance_max", By::AtMost("balance_cents", CENTS)),
    ("mrr_min", By::With(mrr_at_least)),
    ("mrr_max", By::With(mrr_at_most)),
    ("allowed_negative_balance_min", By::With(negative_at_least)),
    ("allowed_negative_balance_max", By::With(negative_at_most)),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("updated_after", By::Since("updated_at")),
    ("updated_before", By::Until("updated_at")),
    ("suspended_after", By::Since("suspended_at")),
    ("suspended_before", By::Until("suspended_at")),
];

/// The fields of `BillingAccountCustomerV1` copied from the customer.
const EMBEDDED_CUSTOMER: &[&str] = &[
    "id",
    "external_id",
    "name",
    "nickname",
    "legal_name",
    "document_type",
    "document_number",
    "birthday",
    "notes",
    "addresses",
    "phones",
    "emails",
    "websites",
    "tags",
    "custom_metadata",
    "created_at",
    "updated_at",
];

type Q = Query<Vec<(String, String)>>;

/// The customer embedded in a billing account (`BillingAccountCustomerV1`: its `kind` is
/// `individual|company`).
fn customer_summary(org: &OrgData, customer_id: &str) -> Value {
    let Some(c) = org
        .customers
        .iter()
        .find(|c| s(c, "id") == Some(customer_id))
    else {
        return Value::Null;
    };
    let mut out: Record = EMBEDDED_CUSTOMER
        .iter()
        .map(|k| ((*k).to_string(), c.get(*k).cloned().unwrap_or(Value::Null)))
        .collect();
    let kind = match s(c, "kind") {
        Some("natural") => json!("individual"),
        Some("juridical") => json!("company"),
        _ => Value::Null,
    };
    out.insert("kind".into(), kind);
    Value::Object(out)
}

/// A billing account as served: `BillingAccountV1` without the fake's own `customer_id`
/// link, with the customer embedded when `embed` (the account reads, single and list).
pub fn render_account(org: &OrgData, ba: &Record, embed: bool) -> Value {
    let mut out = ba.clone();
    let cid = out.remove("customer_id");
    if embed && let Some(Value::String(cid)) = cid {
        out.insert("customer".into(), customer_summary(org, &cid));
    }
    Value::Object(out)
}

/// Monthly recurring revenue of an account, in centavos: its live subscriptions' recurring
/// amounts spread over their cycle.
fn mrr_cents(org: &OrgData, ba: &Record) -> f64 {
    org.subscriptions
        .iter()
        .filter(|sub| s(sub, "billing_account_id") == s(ba, "id"))
        .filter(|sub| matches!(s(sub, "status"), Some("active" | "past_due" | "trialing")))
        .map(|sub| {
            let months = match s(sub, "billing_cycle") {
                Some("quarterly") => 3.0,
                Some("semiannual") => 6.0,
                Some("annual") => 12.0,
                _ => 1.0,
            };
            i(sub, "recurring_amount_cents") as f64 / months
        })
        .sum()
}

fn parsed(v: &str) -> f64 {
    v.parse().unwrap_or(f64::NAN)
}

fn mrr_at_least(org: &OrgData, ba: &Record, v: &str) -> bool {
    mrr_cents(org, ba) >= parsed(v)
}

fn mrr_at_most(org: &OrgData, ba: &Record, v: &str) -> bool {
    mrr_cents(org, ba) <= parsed(v)
}

// The fake's accounts allow no negative balance (BillingAccountV1 has no such field).
fn negative_at_least(_: &OrgData, _: &Record, v: &str) -> bool {
    0.0 >= parsed(v)
}

fn negative_at_most(_: &OrgData, _: &Record, v: &str) -> bool {
    0.0 <= parsed(v)
}

fn search_account(org: &OrgData, ba: &Record, needle: &str) -> bool {
    let lower = needle.to_lowercase();
    ["id", "external_id", "billing_email"]
        .iter()
        .filter_map(|k| s(ba, k))
        .any(|v| contains_ci(v, &lower))
        || org
            .customer_of(ba)
            .is_some_and(|c| search_customer(org, c, needle))
}

/// Free-text match over names, document digits and e-mails.
fn search_customer(_: &OrgData, c: &Record, needle: &str) -> bool {
    let lower = needle.to_lowercase();
    let names = ["name", "nickname", "legal_name"]
        .iter()
        .filter_map(|k| s(c, k))
        .any(|v| contains_ci(v, &lower));
    let emails = c.get("emails").and_then(Value::as_array).is_some_and(|a| {
        a.iter()
            .filter_map(|e| e.get("value").and_then(Value::as_str))
            .any(|v| contains_ci(v, &lower))
    });
    let doc_digits = digits_of(needle);
    let looks_like_doc = needle
        .chars()
        .all(|ch| ch.is_ascii_digit() || matches!(ch, '.' | '-' | '/' | ' '));
    let doc = looks_like_doc
        && !doc_digits.is_empty()
        && s(c, "document_number").is_some_and(|d| digits_of(d).contains(&doc_digits));
    names || emails || doc
}

/// `GET /v1/customers` (never embeds billing accounts).
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let listing = Listing {
        records: |o| &o.customers,
        sortable: SORT,
        tables: &[CUSTOMER_FILTERS],
    };
    filtered_list(&app, &ctx, q, &listing, |org, c| {
        let deleted = org
            .deleted_customers
            .contains(s(c, "id").unwrap_or_default());
        (!deleted).then(|| Value::Object(c.clone()))
    })
}

/// `GET /v1/customers/{id}` (UUID or `external_id`; never embeds billing accounts: they
/// are `GET /v1/billing_accounts?person_id=<customer id>`).
pub async fn get(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = org.customer_idx(&id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.customers[idx].clone())))
}

const ARRAY_FIELDS: &[&str] = &["addresses", "phones", "emails", "websites", "tags"];
const TEXT_FIELDS: &[&str] = &["nickname", "legal_name", "birthday", "notes"];

/// Copies the free-form optional fields of a create/update body, type-checking them.
fn copy_optional(body: &Record, rec: &mut Record, errors: &mut Errors) {
    for key in ARRAY_FIELDS {
        match body.get(*key) {
            None => {}
            Some(v @ (Value::Array(_) | Value::Null)) => {
                rec.insert((*key).to_string(), v.clone());
            }
            Some(_) => errors.add(key, "deve ser uma lista"),
        }
    }
    for key in TEXT_FIELDS {
        if body.contains_key(*key) {
            let v = opt_str(body, key, errors).map(str::to_string);
            rec.insert((*key).to_string(), json!(v));
        }
    }
    if let Some(b) = opt_str(body, "birthday", errors)
        && clock::parse_date(b).is_none()
    {
        errors.add("birthday", "deve ser uma data no formato AAAA-MM-DD");
    }
}

/// Validates `document_number`/`document_type`/`kind` and writes them.
fn apply_document(body: &Record, rec: &mut Record, errors: &mut Errors) {
    if body.contains_key("document_number") {
        match opt_str(body, "document_number", errors) {
            Some(doc) => match valid_document(doc) {
                Some(kind) => {
                    if let Some(t) = opt_str(body, "document_type", errors)
                        && t != kind
                    {
                        errors.add("document_type", "não corresponde ao documento informado");
                    }
                    rec.insert("document_number".into(), json!(doc));
                    rec.insert("document_type".into(), json!(kind));
                }
                None => errors.add("document_number", "não é um CPF ou CNPJ válido"),
            },
            None => {
                rec.insert("document_number".into(), Value::Null);
                rec.insert("document_type".into(), Value::Null);
            }
        }
    }
    match opt_str(body, "kind", errors) {
        Some(k) if KINDS.contains(&k) => {
            rec.insert("kind".into(), json!(k));
        }
        Some(_) => errors.add("kind", "deve ser um de: natural, juridical"),
        None if rec.get("kind").is_none_or(Value::is_null) => {
            let inferred = match s(rec, "document_type") {
                Some("cpf") => json!("natural"),
                Some("cnpj") => json!("juridical"),
                _ => Value::Null,
            };
            rec.insert("kind".into(), inferred);
        }
        None => {}
    }
}

fn external_id_taken(org: &OrgData, ext: &str, except: Option<&str>) -> bool {
    org.customers.iter().any(|c| {
        let id = s(c, "id").unwrap_or_default();
        s(c, "external_id") == Some(ext)
            && Some(id) != except
            && !org.deleted_customers.contains(id)
    })
}

/// The new billing account's `payment_terms_days`: 1 to 90, 10 when not given.
fn payment_terms(body: &Record, errors: &mut Errors) -> i64 {
    match body.get("payment_terms_days") {
        None | Some(Value::Null) => 10,
        Some(v) => match v.as_i64() {
            Some(n) if (1..=90).contains(&n) => n,
            _ => {
                errors.add("payment_terms_days", "deve ser um inteiro entre 1 e 90");
                10
            }
        },
    }
}

/// `POST /v1/customers` → `201 {"data":{"customer","billing_account"}}`.
pub async fn create(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let mut rec = Record::new();
    let name = req_str(&body, "name", &mut errors).map(str::to_string);
    rec.insert("name".into(), json!(name));
    apply_document(&body, &mut rec, &mut errors);
    copy_optional(&body, &mut rec, &mut errors);
    let email = opt_str(&body, "email", &mut errors).map(str::to_string);
    if email.as_deref().is_some_and(|e| !e.contains('@')) {
        errors.add("email", "não é um e-mail válido");
    }
    if let Some(e) = &email
        && !body.contains_key("emails")
    {
        rec.insert("emails".into(), json!([{"kind": "billing", "value": e}]));
    }
    if let Some(phone) = opt_str(&body, "phone", &mut errors)
        && !body.contains_key("phones")
    {
        rec.insert("phones".into(), json!([{"kind": "mobile", "value": phone}]));
    }
    let external_id = opt_str(&body, "external_id", &mut errors).map(str::to_string);
    match body.get("custom_metadata") {
        None => {}
        Some(v @ (Value::Object(_) | Value::Null)) => {
            rec.insert("custom_metadata".into(), v.clone());
        }
        Some(_) => errors.add("custom_metadata", "deve ser um objeto"),
    }
    let create_account = opt_bool(&body, "create_billing_account", true, &mut errors);
    let terms = payment_terms(&body, &mut errors);
    let auto_collection = opt_bool(&body, "auto_collection", true, &mut errors);
    let billing_email = opt_str(&body, "billing_email", &mut errors).map(str::to_string);

    let mut inner = app.lock();
    let customer_id = inner.new_id("customer");
    let customer_public = inner.new_id("customer-public");
    let account_id = inner.new_id("billing-account");
    let account_public = inner.new_id("billing-account-public");
    let org = inner.org(ctx.org());
    if let Some(ext) = &external_id
        && external_id_taken(org, ext, None)
    {
        errors.add("external_id", "já está em uso");
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;

    let now = clock::now_string();
    rec.insert("id".into(), json!(customer_id));
    rec.insert("public_id".into(), json!(customer_public));
    rec.insert("external_id".into(), json!(external_id));
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    normalize_customer(&mut rec);

    let account = create_account.then(|| {
        let first_email = rec
            .get("emails")
            .and_then(|e| e.get(0))
            .and_then(|e| e.get("value"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let tax_type = match s(&rec, "kind") {
            Some("juridical") => "business",
            _ => "individual",
        };
        let mut ba = Record::new();
        ba.insert("id".into(), json!(account_id));
        ba.insert("public_id".into(), json!(account_public));
        ba.insert("customer_id".into(), json!(customer_id));
        ba.insert("status".into(), json!("active"));
        ba.insert("billing_email".into(), json!(billing_email.or(first_email)));
        ba.insert("payment_terms_days".into(), json!(terms));
        ba.insert("auto_collection".into(), json!(auto_collection));
        ba.insert("customer_tax_type".into(), json!(tax_type));
        normalize_billing_account(&mut ba, Some(&rec));
        ba
    });
    org.customers.push(rec.clone());
    let account_json = match account {
        Some(ba) => {
            org.billing_accounts.push(ba.clone());
            render_account(org, &ba, false)
        }
        None => Value::Null,
    };
    Ok(created(json!({
        "customer": Value::Object(rec),
        "billing_account": account_json,
    })))
}

/// `PATCH /v1/customers/{id}` (`custom_metadata_mode`: `replace` (default) or `merge`).
pub async fn update(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = org.customer_idx(&id).ok_or_else(ApiError::not_found)?;
    let mut rec = org.customers[idx].clone();
    let mut errors = Errors::default();
    if body.contains_key("name") {
        let name = req_str(&body, "name", &mut errors).map(str::to_string);
        if let Some(n) = name {
            rec.insert("name".into(), json!(n));
        }
    }
    apply_document(&body, &mut rec, &mut errors);
    copy_optional(&body, &mut rec, &mut errors);
    if body.contains_key("external_id") {
        let ext = opt_str(&body, "external_id", &mut errors).map(str::to_string);
        let own_id = s(&rec, "id").unwrap_or_default().to_string();
        if let Some(e) = &ext
            && external_id_taken(org, e, Some(&own_id))
        {
            errors.add("external_id", "já está em uso");
        }
        rec.insert("external_id".into(), json!(ext));
    }
    let mode = opt_str(&body, "custom_metadata_mode", &mut errors).unwrap_or("replace");
    if !matches!(mode, "replace" | "merge") {
        errors.add("custom_metadata_mode", "deve ser um de: replace, merge");
    }
    match body.get("custom_metadata") {
        None => {}
        Some(Value::Object(new)) if mode == "merge" => {
            let mut merged = rec
                .get("custom_metadata")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            for (k, v) in new {
                if v.is_null() {
                    merged.remove(k);
                } else {
                    merged.insert(k.clone(), v.clone());
                }
            }
            rec.insert("custom_metadata".into(), Value::Object(merged));
        }
        Some(v @ (Value::Object(_) | Value::Null)) => {
            rec.insert("custom_metadata".into(), v.clone());
        }
        Some(_) => errors.add("custom_metadata", "deve ser um objeto"),
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
    rec.insert("updated_at".into(), json!(clock::now_string()));
    org.customers[idx] = rec.clone();
    Ok(data(Value::Object(rec)))
}

/// `DELETE /v1/customers/{id}`: soft delete (later GETs answer 404, lists skip it).
pub async fn delete(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = org.customer_idx(&id).ok_or_else(ApiError::not_found)?;
    let real_id = s(&org.customers[idx], "id").unwrap_or_default().to_string();
    org.deleted_customers.insert(real_id);
    Ok(deleted())
}

/// `GET /v1/billing_accounts` ([`ACCOUNT_FILTERS`] and [`PERSON`]; embeds each account's
/// customer, as `ours` plays reading `account_customer`; the wire leaves it out under the
/// other alternatives).
pub async fn list_accounts(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let listing = Listing {
        records: |o| &o.billing_accounts,
        sortable: ACCOUNT_SORT,
        tables: &[&PERSON, ACCOUNT_FILTERS],
    };
    filtered_list(&app, &ctx, q, &listing, |org, ba| {
        Some(render_account(org, ba, true))
    })
}

/// `GET /v1/billing_accounts/{id}` (embeds the customer).
pub async fn get_account(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let ba = org.billing_account(&id).ok_or_else(ApiError::not_found)?;
    Ok(data(render_account(org, ba, true)))
}
