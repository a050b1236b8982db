//! Invoices (`/v1/invoices`): lists, the overdue and pending-NF-e views, create/update/delete,
//! and the finalize / void / send-reminder / issue-nfe transitions, plus the PDF.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::{opt_str, req_str};
use crate::DocKind;
use crate::api::{
    ApiError, ApiResult, Errors, Page, Params, Record, contains_ci, created, data, day_of,
    day_within, deleted, digits_of, i, list_response, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::documents;
use crate::fixtures::{normalize_invoice, normalize_line_item, normalize_nfe};
use crate::store::{App, OrgData};

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "due_date",
    "paid_at",
    "total_subcents",
    "amount_remaining_cents",
    "number",
    "status",
];
const STATUSES: &[&str] = &["draft", "open", "paid", "void", "uncollectible"];
const COLLECTION: &[&str] = &["charge_automatically", "manual_charge", "manual_invoice"];
const NFE_POLICIES: &[&str] = &[
    "disabled",
    "on_finalization",
    "on_full_payment",
    "per_installment",
];
const ITEM_TYPES: &[&str] = &[
    "subscription",
    "addon",
    "usage",
    "one-off",
    "proration",
    "tax",
    "discount",
];

type Q = Query<Vec<(String, String)>>;

/// Open with a due date (São Paulo calendar day) before the fake's today.
pub fn is_overdue(inv: &Record) -> bool {
    s(inv, "status") == Some("open") && day_of(inv, "due_date").is_some_and(|d| d < clock::today())
}

fn any(list: &[String], v: Option<&str>) -> bool {
    list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v))
}

/// Filters shared by the invoice lists.
fn filtered(org: &OrgData, p: &Params, errors: &mut Errors) -> Vec<Value> {
    let statuses = p.enum_list("status", STATUSES, errors);
    let due_from = p.date("due_date_from", errors);
    let due_to = p.date("due_date_to", errors);
    let date_from = p.date("date_from", errors);
    let date_to = p.date("date_to", errors);
    let plan_filter = p.get("plan_filter").unwrap_or("all");
    if !matches!(plan_filter, "all" | "with_plan" | "without_plan") {
        errors.add(
            "plan_filter",
            "deve ser um de: all, with_plan, without_plan",
        );
    }
    let total = p.get("total_subcents").map(|v| {
        v.parse::<i64>().unwrap_or_else(|_| {
            errors.add("total_subcents", "deve ser um inteiro");
            -1
        })
    });
    let account = p.get("billing_account_id");
    let subscription = p.get("subscription_id");
    let company = p.get("company_id");
    let document = p.get("document_number").map(digits_of);
    let without_payments = p.get("without_payments") == Some("true");
    let search = p.get("search").map(str::to_lowercase);
    org.invoices
        .iter()
        .filter(|r| any(&statuses, s(r, "status")))
        .filter(|r| account.is_none_or(|a| s(r, "billing_account_id") == Some(a)))
        .filter(|r| subscription.is_none_or(|a| s(r, "subscription_id") == Some(a)))
        .filter(|r| company.is_none_or(|a| s(r, "company_id") == Some(a)))
        .filter(|r| total.is_none_or(|t| i(r, "total_subcents") == t))
        .filter(|r| day_within(r, "due_date", due_from, due_to))
        .filter(|r| day_within(r, "created_at", date_from, date_to))
        .filter(|r| match plan_filter {
            "with_plan" => s(r, "subscription_id").is_some(),
            "without_plan" => s(r, "subscription_id").is_none(),
            _ => true,
        })
        .filter(|r| {
            document.as_deref().is_none_or(|d| {
                s(r, "billing_account_id")
                    .and_then(|b| org.customer_of_account(b))
                    .and_then(|c| s(c, "document_number"))
                    .is_some_and(|doc| digits_of(doc) == d)
            })
        })
        .filter(|r| {
            !without_payments
                || !org
                    .payments
                    .iter()
                    .any(|pay| s(pay, "invoice_id") == s(r, "id"))
        })
        .filter(|r| {
            search.as_deref().is_none_or(|n| {
                ["number", "description", "id"]
                    .iter()
                    .filter_map(|k| s(r, k))
                    .any(|v| contains_ci(v, n))
                    || s(r, "billing_account_id")
                        .and_then(|b| org.customer_of_account(b))
                        .and_then(|c| s(c, "name"))
                        .is_some_and(|name| contains_ci(name, n))
            })
        })
        .map(|r| Value::Object(r.clone()))
        .collect()
}

/// `GET /v1/invoices`.
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = filtered(org, &p, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    Ok(list_response(items, &page))
}

/// `GET /v1/invoices/pending-payment`: open invoices whose due date has passed.
pub async fn pending_payment(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let account = p.get("billing_account_id");
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = org
        .invoices
        .iter()
        .filter(|r| is_overdue(r))
        .filter(|r| account.is_none_or(|a| s(r, "billing_account_id") == Some(a)))
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(list_response(items, &page))
}

/// Paid, and with no NF-e or only NF-e in `pending`/`processing`/`error` (none authorized).
fn needs_nfe(org: &OrgData, inv: &Record) -> bool {
    if s(inv, "status") != Some("paid") {
        return false;
    }
    let linked: Vec<&Record> = org
        .nfes
        .iter()
        .filter(|n| s(n, "invoice_id") == s(inv, "id"))
        .collect();
    linked.is_empty()
        || (linked
            .iter()
            .any(|n| matches!(s(n, "status"), Some("pending" | "processing" | "error")))
            && !linked.iter().any(|n| s(n, "status") == Some("issued")))
}

/// `GET /v1/invoices/pending-nfe`.
pub async fn pending_nfe(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let account = p.get("billing_account_id");
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = org
        .invoices
        .iter()
        .filter(|r| needs_nfe(org, r))
        .filter(|r| account.is_none_or(|a| s(r, "billing_account_id") == Some(a)))
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(list_response(items, &page))
}

/// `GET /v1/invoices/{id}` (line items are always included).
pub async fn get(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.invoices[idx].clone())))
}

/// Parses `line_items`; items sent with the `id` of an existing item keep it (PATCH).
fn parse_line_items(v: Option<&Value>, existing: &[Value], errors: &mut Errors) -> Vec<Record> {
    let items = match v {
        Some(Value::Array(a)) if (1..=200).contains(&a.len()) => a,
        _ => {
            errors.add("line_items", "deve ter entre 1 e 200 itens");
            return vec![];
        }
    };
    let mut out = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let field = |f: &str| format!("line_items[{n}].{f}");
        let Some(obj) = item.as_object() else {
            errors.add(&format!("line_items[{n}]"), "deve ser um objeto");
            continue;
        };
        let base = obj
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| {
                existing
                    .iter()
                    .find(|e| e.get("id").and_then(Value::as_str) == Some(id))
            })
            .and_then(Value::as_object)
            .cloned();
        let is_new = base.is_none();
        let mut rec = base.unwrap_or_default();
        match obj.get("description") {
            Some(Value::String(d)) if !d.trim().is_empty() => {
                rec.insert("description".into(), json!(d));
            }
            None if !is_new => {}
            _ => errors.add(&field("description"), "não pode ficar em branco"),
        }
        match obj.get("quantity") {
            None if !is_new => {}
            None => {
                rec.insert("quantity".into(), json!(1));
            }
            Some(q) if q.as_f64().is_some_and(|x| x > 0.0) => {
                rec.insert("quantity".into(), q.clone());
            }
            Some(_) => errors.add(&field("quantity"), "deve ser maior que 0"),
        }
        let unit = match (
            obj.get("unit_amount_subcents"),
            obj.get("unit_amount_cents"),
        ) {
            (Some(u), _) => u.as_i64().filter(|x| *x >= 0).ok_or("unit_amount_subcents"),
            (None, Some(c)) => c
                .as_i64()
                .filter(|x| *x >= 0)
                .map(|x| x * 100)
                .ok_or("unit_amount_cents"),
            (None, None) if !is_new => Ok(i(&rec, "unit_amount_subcents")),
            (None, None) => Err("unit_amount_subcents"),
        };
        match unit {
            Ok(u) => {
                rec.insert("unit_amount_subcents".into(), json!(u));
            }
            Err(f) => errors.add(&field(f), "deve ser um inteiro maior ou igual a 0"),
        }
        match obj.get("type").and_then(Value::as_str) {
            Some(t) if ITEM_TYPES.contains(&t) => {
                rec.insert("type".into(), json!(t));
            }
            Some(_) => errors.add(
                &field("type"),
                &format!("deve ser um de: {}", ITEM_TYPES.join(", ")),
            ),
            None => {}
        }
        let qty = rec.get("quantity").and_then(Value::as_f64).unwrap_or(1.0);
        let amount = (qty * i(&rec, "unit_amount_subcents") as f64 / 100.0).round() as i64;
        rec.insert("amount_cents".into(), json!(amount));
        out.push(rec);
    }
    out
}

/// Recomputes the money fields from the line items (subcents ÷10000, cents ÷100).
fn compute_totals(rec: &mut Record) {
    let subtotal: i64 = rec
        .get("line_items")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .map(|it| {
                    let q = it.get("quantity").and_then(Value::as_f64).unwrap_or(1.0);
                    let u = it
                        .get("unit_amount_subcents")
                        .and_then(Value::as_i64)
                        .unwrap_or(0);
                    (q * u as f64).round() as i64
                })
                .sum()
        })
        .unwrap_or(0);
    let discount = i(rec, "discount_cents");
    let total = (subtotal - discount * 100).max(0);
    let total_cents = (total + 50) / 100;
    let withheld = i(rec, "total_withheld_cents");
    rec.insert("subtotal_subcents".into(), json!(subtotal));
    rec.insert("tax_subcents".into(), json!(0));
    rec.insert("total_subcents".into(), json!(total));
    rec.insert("amount_due_subcents".into(), json!(total));
    rec.insert("amount_paid_subcents".into(), json!(0));
    rec.insert("amount_remaining_cents".into(), json!(total_cents));
    rec.insert("net_value_cents".into(), json!(total_cents - withheld));
}

fn parse_due_date(v: &str) -> Option<String> {
    if let Some(day) = clock::parse_date(v) {
        return Some(clock::due_date_string(day));
    }
    clock::parse_datetime(v).map(|_| v.to_string())
}

fn discount_field(body: &Record, errors: &mut Errors) -> Option<i64> {
    match body.get("discount_cents") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(n) if n >= 0 => Some(n),
            _ => {
                errors.add("discount_cents", "deve ser um inteiro maior ou igual a 0");
                None
            }
        },
    }
}

fn enum_opt(body: &Record, key: &str, allowed: &[&str], errors: &mut Errors) -> Option<String> {
    let v = opt_str(body, key, errors)?;
    if allowed.contains(&v) {
        Some(v.to_string())
    } else {
        errors.add(key, &format!("deve ser um de: {}", allowed.join(", ")));
        None
    }
}

/// Gives new line items their ids and the full item shape.
fn finish_items(inner_ids: &mut dyn FnMut() -> String, rec: &mut Record, items: Vec<Record>) {
    let mut with_ids: Vec<Value> = items
        .into_iter()
        .map(|mut it| {
            if !it.contains_key("id") {
                it.insert("id".into(), json!(inner_ids()));
            }
            Value::Object(it)
        })
        .collect();
    let snapshot = rec.clone();
    for (n, it) in with_ids.iter_mut().enumerate() {
        if let Value::Object(m) = it {
            normalize_line_item(m, &snapshot, n);
        }
    }
    rec.insert("line_items".into(), Value::Array(with_ids));
}

/// `POST /v1/invoices`: creates a draft.
pub async fn create(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let account = req_str(&body, "billing_account_id", &mut errors).map(str::to_string);
    let items = parse_line_items(body.get("line_items"), &[], &mut errors);
    let method = enum_opt(&body, "collection_method", COLLECTION, &mut errors)
        .unwrap_or_else(|| "manual_invoice".into());
    let policy = enum_opt(&body, "nfe_issuance_policy", NFE_POLICIES, &mut errors)
        .unwrap_or_else(|| "on_full_payment".into());
    let discount = discount_field(&body, &mut errors).unwrap_or(0);
    let due = match opt_str(&body, "due_date", &mut errors) {
        Some(v) => {
            let d = parse_due_date(v);
            if d.is_none() {
                errors.add("due_date", "deve ser uma data no formato AAAA-MM-DD");
            }
            d
        }
        None => None,
    };
    let description = opt_str(&body, "description", &mut errors).map(str::to_string);
    let footer = opt_str(&body, "footer", &mut errors).map(str::to_string);
    let external_id = opt_str(&body, "external_id", &mut errors).map(str::to_string);
    let subscription = opt_str(&body, "subscription_id", &mut errors).map(str::to_string);

    let mut inner = app.lock();
    let id = inner.new_id("invoice");
    let public_id = inner.new_id("invoice-public");
    let item_ids: Vec<String> = (0..items.len())
        .map(|_| inner.new_id("line-item"))
        .collect();
    let org = inner.org(ctx.org());
    let mut terms = 10;
    if let Some(a) = &account {
        match org.billing_account(a) {
            None => errors.add("billing_account_id", "não encontrada"),
            Some(ba) if s(ba, "status") == Some("closed") => {
                errors.add("billing_account_id", "está encerrada")
            }
            Some(ba) => terms = i(ba, "payment_terms_days").max(1),
        }
    }
    if let Some(sid) = &subscription
        && OrgData::idx(&org.subscriptions, sid).is_none()
    {
        errors.add("subscription_id", "não encontrada");
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;

    let now = clock::now_string();
    let mut rec = Record::new();
    rec.insert("id".into(), json!(id));
    rec.insert("public_id".into(), json!(public_id));
    rec.insert("external_id".into(), json!(external_id));
    rec.insert("status".into(), json!("draft"));
    rec.insert("billing_account_id".into(), json!(account));
    rec.insert("subscription_id".into(), json!(subscription));
    rec.insert("collection_method".into(), json!(method));
    rec.insert("nfe_issuance_policy".into(), json!(policy));
    rec.insert("discount_cents".into(), json!(discount));
    rec.insert(
        "due_date".into(),
        json!(due.unwrap_or_else(|| clock::due_date_string(clock::today() + terms))),
    );
    rec.insert("billing_reason".into(), json!("manual"));
    rec.insert("description".into(), json!(description));
    rec.insert("footer".into(), json!(footer));
    if let Some(cm) = body.get("custom_metadata").filter(|v| v.is_object()) {
        rec.insert("custom_metadata".into(), cm.clone());
    }
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    let mut ids = item_ids.into_iter();
    finish_items(&mut || ids.next().unwrap_or_default(), &mut rec, items);
    compute_totals(&mut rec);
    normalize_invoice(&mut rec);
    org.invoices.push(rec.clone());
    Ok(created(Value::Object(rec)))
}

/// `PATCH /v1/invoices/{id}`: drafts accept everything (line items are replaced); other
/// statuses only `description`, `footer` and `custom_metadata`.
pub async fn update(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut inner = app.lock();
    let org_id = ctx.org().to_string();
    let (idx, mut rec) = {
        let org = inner.org(&org_id);
        let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
        (idx, org.invoices[idx].clone())
    };
    let draft = s(&rec, "status") == Some("draft");
    let draft_only = [
        "line_items",
        "due_date",
        "discount_cents",
        "collection_method",
        "nfe_issuance_policy",
        "billing_account_id",
    ];
    if !draft && draft_only.iter().any(|k| body.contains_key(*k)) {
        return Err(ApiError::invalid_state(
            "Somente faturas em rascunho podem ter itens, valores ou vencimento alterados.",
        ));
    }
    let mut errors = Errors::default();
    for key in ["description", "footer"] {
        if body.contains_key(key) {
            let v = opt_str(&body, key, &mut errors).map(str::to_string);
            rec.insert(key.into(), json!(v));
        }
    }
    match body.get("custom_metadata") {
        None => {}
        Some(v @ (Value::Object(_) | Value::Null)) => {
            rec.insert("custom_metadata".into(), v.clone());
        }
        Some(_) => errors.add("custom_metadata", "deve ser um objeto"),
    }
    if let Some(v) = opt_str(&body, "due_date", &mut errors) {
        match parse_due_date(v) {
            Some(d) => {
                rec.insert("due_date".into(), json!(d));
            }
            None => errors.add("due_date", "deve ser uma data no formato AAAA-MM-DD"),
        }
    }
    if let Some(d) = discount_field(&body, &mut errors) {
        rec.insert("discount_cents".into(), json!(d));
    }
    if let Some(m) = enum_opt(&body, "collection_method", COLLECTION, &mut errors) {
        rec.insert("collection_method".into(), json!(m));
    }
    if let Some(m) = enum_opt(&body, "nfe_issuance_policy", NFE_POLICIES, &mut errors) {
        rec.insert("nfe_issuance_policy".into(), json!(m));
    }
    if let Some(a) = opt_str(&body, "billing_account_id", &mut errors) {
        if inner.org(&org_id).billing_account(a).is_none() {
            errors.add("billing_account_id", "não encontrada");
        }
        rec.insert("billing_account_id".into(), json!(a));
    }
    let items = body.contains_key("line_items").then(|| {
        let existing = rec
            .get("line_items")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        parse_line_items(body.get("line_items"), &existing, &mut errors)
    });
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
    if let Some(items) = items {
        let needed = items.iter().filter(|it| !it.contains_key("id")).count();
        let fresh: Vec<String> = (0..needed).map(|_| inner.new_id("line-item")).collect();
        let mut fresh = fresh.into_iter();
        finish_items(&mut || fresh.next().unwrap_or_default(), &mut rec, items);
    }
    if draft {
        compute_totals(&mut rec);
    }
    rec.insert("updated_at".into(), json!(clock::now_string()));
    inner.org(&org_id).invoices[idx] = rec.clone();
    Ok(data(Value::Object(rec)))
}

/// `DELETE /v1/invoices/{id}`: drafts only.
pub async fn delete(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    if s(&org.invoices[idx], "status") != Some("draft") {
        return Err(ApiError::invalid_state(
            "Somente faturas em rascunho podem ser removidas; use void.",
        ));
    }
    org.invoices.remove(idx);
    Ok(deleted())
}

/// Applies a transition to an invoice and answers with it.
fn transition(
    app: &App,
    ctx: &AuthCtx,
    id: &str,
    f: impl FnOnce(&mut OrgData, &mut Record) -> Result<(), ApiError>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, id).ok_or_else(ApiError::not_found)?;
    let mut rec = org.invoices[idx].clone();
    f(org, &mut rec)?;
    rec.insert("updated_at".into(), json!(clock::now_string()));
    org.invoices[idx] = rec.clone();
    Ok(data(Value::Object(rec)))
}

fn status_pt(status: &str) -> &'static str {
    match status {
        "draft" => "em rascunho",
        "open" => "em aberto",
        "paid" => "paga",
        "void" => "anulada",
        "uncollectible" => "incobrável",
        _ => "neste status",
    }
}

/// `POST /v1/invoices/{id}/finalize`: `draft → open`, assigns the number.
pub async fn finalize(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    transition(&app, &ctx, &id, |org, rec| {
        let status = s(rec, "status").unwrap_or_default().to_string();
        if status != "draft" {
            return Err(ApiError::invalid_state(format!(
                "Somente faturas em rascunho podem ser finalizadas (a fatura está {}).",
                status_pt(&status)
            )));
        }
        org.invoice_seq += 1;
        let year = clock::format_date(clock::today())[..4].to_string();
        let number = format!("FAT-{year}-{:06}", org.invoice_seq);
        let short: String = s(rec, "id").unwrap_or_default().chars().take(8).collect();
        rec.insert("number".into(), json!(number));
        rec.insert("status".into(), json!("open"));
        rec.insert("finalized_at".into(), json!(clock::now_string()));
        rec.insert(
            "hosted_invoice_url".into(),
            json!(format!("https://fake.kobana.test/i/{short}")),
        );
        rec.insert(
            "invoice_pdf_url".into(),
            json!(format!("https://fake.kobana.test/i/{short}.pdf")),
        );
        Ok(())
    })
}

/// `POST /v1/invoices/{id}/void` (`{reason}` required): `open → void`.
pub async fn void(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let reason = req_str(&body, "reason", &mut errors).map(str::to_string);
    transition(&app, &ctx, &id, |_, rec| {
        errors.finish(StatusCode::BAD_REQUEST)?;
        match s(rec, "status") {
            Some("open") => {}
            Some("paid") => {
                return Err(ApiError::invalid_state("Fatura paga não pode ser anulada."));
            }
            Some("void") => return Err(ApiError::invalid_state("Fatura já está anulada.")),
            Some("draft") => {
                return Err(ApiError::invalid_state(
                    "Fatura em rascunho não pode ser anulada; remova-a (DELETE).",
                ));
            }
            _ => {
                return Err(ApiError::invalid_state(
                    "Fatura incobrável não pode ser anulada.",
                ));
            }
        }
        rec.insert("status".into(), json!("void"));
        rec.insert("voided_at".into(), json!(clock::now_string()));
        rec.insert("amount_remaining_cents".into(), json!(0));
        rec.insert("next_payment_attempt".into(), Value::Null);
        let meta = rec
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta {
            m.insert("void_reason".into(), json!(reason));
        }
        Ok(())
    })
}

/// `POST /v1/invoices/{id}/send-reminder`: open invoices only; counted in `metadata`.
pub async fn send_reminder(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    transition(&app, &ctx, &id, |_, rec| {
        let status = s(rec, "status").unwrap_or_default().to_string();
        if status != "open" {
            return Err(ApiError::invalid_state(format!(
                "Lembretes só podem ser enviados para faturas em aberto (a fatura está {}).",
                status_pt(&status)
            )));
        }
        let meta = rec
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta {
            let sent = m.get("reminders_sent").and_then(Value::as_i64).unwrap_or(0) + 1;
            m.insert("reminders_sent".into(), json!(sent));
            m.insert("last_reminder_at".into(), json!(clock::now_string()));
        }
        Ok(())
    })
}

/// The NF-e for an invoice, with the tomador snapshot taken from its customer.
fn nfe_for_invoice(org: &OrgData, inv: &Record, org_id: &str) -> Record {
    let account_id = s(inv, "billing_account_id").unwrap_or_default();
    let account = org.billing_account(account_id);
    let customer = org.customer_of_account(account_id);
    let field = |k: &str| {
        customer
            .and_then(|c| c.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let address = customer
        .and_then(|c| c.get("addresses"))
        .and_then(|a| a.get(0))
        .map(|a| {
            json!({
                "street": a["street"], "number": a["number"], "neighborhood": a["neighborhood"],
                "city": a["city"], "city_code": null, "state": a["state"],
                "zip_code": a["postal_code"].as_str().map(digits_of),
            })
        })
        .unwrap_or(Value::Null);
    let email = account
        .and_then(|a| a.get("billing_email"))
        .cloned()
        .unwrap_or(Value::Null);
    let subscription = s(inv, "subscription_id").is_some();
    let (code, default_desc) = if subscription {
        ("01.05", "Licenciamento de uso de software")
    } else {
        ("17.01", "Assessoria ou consultoria")
    };
    let description = s(inv, "description")
        .map(str::to_string)
        .unwrap_or_else(|| match s(inv, "number") {
            Some(n) => format!("{default_desc} — fatura {n}"),
            None => default_desc.to_string(),
        });
    let amount = (i(inv, "total_subcents") + 50) / 100;
    let mut rec = Record::new();
    rec.insert("invoice_id".into(), inv["id"].clone());
    rec.insert("billing_account_id".into(), json!(account_id));
    rec.insert("company_id".into(), json!(org_id));
    rec.insert("status".into(), json!("pending"));
    rec.insert("amount_cents".into(), json!(amount));
    rec.insert("service_code".into(), json!(code));
    rec.insert("lc116_code".into(), json!(code));
    rec.insert("service_description".into(), json!(description));
    rec.insert(
        "customer_snapshot".into(),
        json!({
            "name": field("name"),
            "document_type": field("document_type"),
            "document_number": field("document_number").as_str().map(digits_of),
            "email": email,
            "address": address,
        }),
    );
    rec.insert(
        "taxes".into(),
        json!({"iss_rate": 0.02, "iss_amount_cents": (amount as f64 * 0.02).round() as i64}),
    );
    rec
}

/// `POST /v1/invoices/{id}/issue-nfe`: paid invoices (or open ones whose policy issues on
/// finalization) get an NF-e queued in `pending`; a failed one is re-queued.
pub async fn issue_nfe(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let new_id = inner.new_id("nfe");
    let new_public = inner.new_id("nfe-public");
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    let inv = org.invoices[idx].clone();
    let status = s(&inv, "status").unwrap_or_default();
    let policy = s(&inv, "nfe_issuance_policy").unwrap_or("on_full_payment");
    if policy == "disabled" {
        return Err(ApiError::invalid_state(
            "A emissão de NF-e está desativada para esta fatura.",
        ));
    }
    match status {
        "paid" => {}
        "open" if matches!(policy, "on_finalization" | "per_installment") => {}
        "open" => {
            return Err(ApiError::invalid_state(format!(
                "A política de emissão da fatura ({policy}) exige o pagamento integral antes da NF-e."
            )));
        }
        other => {
            return Err(ApiError::invalid_state(format!(
                "NF-e só pode ser emitida para faturas pagas ou em aberto (a fatura está {}).",
                status_pt(other)
            )));
        }
    }
    let linked: Vec<usize> = org
        .nfes
        .iter()
        .enumerate()
        .filter(|(_, n)| s(n, "invoice_id") == Some(id.as_str()))
        .map(|(n, _)| n)
        .collect();
    for &n in &linked {
        match s(&org.nfes[n], "status") {
            Some("issued" | "pending_cancel" | "canceling") => {
                return Err(ApiError::invalid_state(
                    "Esta fatura já possui NF-e emitida.",
                ));
            }
            Some("pending" | "processing") => {
                return Err(ApiError::invalid_state(
                    "Esta fatura já possui NF-e na fila de emissão.",
                ));
            }
            _ => {}
        }
    }
    let now = clock::now_string();
    if let Some(&n) = linked
        .iter()
        .find(|&&n| matches!(s(&org.nfes[n], "status"), Some("error" | "draft")))
    {
        let nfe = &mut org.nfes[n];
        nfe.insert("status".into(), json!("pending"));
        nfe.insert("error_message".into(), Value::Null);
        nfe.insert("next_retry_at".into(), Value::Null);
        nfe.insert("updated_at".into(), json!(now));
        return Ok(data(Value::Object(nfe.clone())));
    }
    let org_id = ctx.org().to_string();
    let mut nfe = nfe_for_invoice(org, &inv, &org_id);
    nfe.insert("id".into(), json!(new_id));
    nfe.insert("public_id".into(), json!(new_public));
    nfe.insert("created_at".into(), json!(now));
    nfe.insert("updated_at".into(), json!(now));
    normalize_nfe(&mut nfe, &org_id);
    org.nfes.push(nfe.clone());
    Ok(data(Value::Object(nfe)))
}

/// `GET /v1/invoices/{id}/pdf` (not for drafts).
pub async fn pdf(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let name = {
        let mut inner = app.lock();
        let org = inner.org(ctx.org());
        let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
        let inv = &org.invoices[idx];
        if !documents::invoice_has_pdf(inv) {
            return Err(ApiError::not_found());
        }
        s(inv, "number").unwrap_or(&id).to_string()
    };
    Ok(documents::pdf_response(
        &app,
        DocKind::Invoice,
        &id,
        &format!("fatura-{name}.pdf"),
    ))
}
