//! Subscriptions (`/v1/subscriptions`) and their cancel / pause / resume transitions.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::{opt_str, req_str};
use crate::api::{
    ApiError, ApiResult, Errors, Page, Params, Record, contains_ci, created, data, day_within,
    digits_of, list_response, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::fixtures::normalize_subscription;
use crate::ids::is_uuid;
use crate::store::{App, OrgData};

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "current_period_end",
    "cycle_billing_date",
    "recurring_amount_cents",
    "status",
];
const STATUSES: &[&str] = &[
    "draft",
    "confirmed",
    "trialing",
    "active",
    "past_due",
    "canceled",
    "paused",
    "suspended",
];
const CYCLES: &[&str] = &["monthly", "quarterly", "semiannual", "annual"];
const COLLECTION: &[&str] = &["charge_automatically", "manual_charge", "manual_invoice"];
const NFE_POLICIES: &[&str] = &[
    "disabled",
    "on_finalization",
    "on_full_payment",
    "per_installment",
];
const PAUSE_BEHAVIORS: &[&str] = &["mark_uncollectible", "keep_as_draft", "void"];

/// Known fixture plans and their recurring amounts.
const PLANS: &[(&str, i64)] = &[
    ("759cde66-bacf-43d0-8b1f-9163ce9ff57f", 49_900),
    ("4b0dbb41-8d52-48f1-942c-3fe860e7a113", 1_198_800),
];

type Q = Query<Vec<(String, String)>>;

fn cycle_months(cycle: &str) -> u32 {
    match cycle {
        "quarterly" => 3,
        "semiannual" => 6,
        "annual" => 12,
        _ => 1,
    }
}

fn matches_search(org: &OrgData, sub: &Record, needle: &str) -> bool {
    let lower = needle.to_lowercase();
    if ["id", "external_id", "notes"]
        .iter()
        .filter_map(|k| s(sub, k))
        .any(|v| contains_ci(v, &lower))
    {
        return true;
    }
    let Some(c) = s(sub, "billing_account_id").and_then(|b| org.customer_of_account(b)) else {
        return false;
    };
    let doc_digits = digits_of(needle);
    s(c, "name").is_some_and(|n| contains_ci(n, &lower))
        || (!doc_digits.is_empty()
            && doc_digits.len() == needle.chars().filter(char::is_ascii_alphanumeric).count()
            && s(c, "document_number").is_some_and(|d| digits_of(d).contains(&doc_digits)))
}

/// `GET /v1/subscriptions`.
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    let statuses = p.enum_list("status", STATUSES, &mut errors);
    let cycles = p.enum_list("billing_cycle", CYCLES, &mut errors);
    let methods = p.enum_list("collection_method", COLLECTION, &mut errors);
    let cape = p.get("cancel_at_period_end").map(|v| v == "true");
    let created_after = p.date("created_after", &mut errors);
    let created_before = p.date("created_before", &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let account = p.get("billing_account_id");
    let plan = p.get("plan_id");
    let external = p.get("external_id");
    let search = p.get("search");
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let any = |list: &[String], v: Option<&str>| {
        list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v))
    };
    let items = org
        .subscriptions
        .iter()
        .filter(|r| any(&statuses, s(r, "status")))
        .filter(|r| any(&cycles, s(r, "billing_cycle")))
        .filter(|r| any(&methods, s(r, "collection_method")))
        .filter(|r| account.is_none_or(|a| s(r, "billing_account_id") == Some(a)))
        .filter(|r| plan.is_none_or(|a| s(r, "plan_id") == Some(a)))
        .filter(|r| external.is_none_or(|a| s(r, "external_id") == Some(a)))
        .filter(|r| cape.is_none_or(|c| r.get("cancel_at_period_end") == Some(&json!(c))))
        .filter(|r| day_within(r, "created_at", created_after, created_before))
        .filter(|r| search.is_none_or(|n| matches_search(org, r, n)))
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(list_response(items, &page))
}

/// `GET /v1/subscriptions/{id}`.
pub async fn get(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let i = OrgData::idx(&org.subscriptions, &id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.subscriptions[i].clone())))
}

fn enum_field(
    body: &Record,
    key: &str,
    allowed: &[&str],
    default: &str,
    errors: &mut Errors,
) -> String {
    match opt_str(body, key, errors) {
        Some(v) if allowed.contains(&v) => v.to_string(),
        Some(_) => {
            errors.add(key, &format!("deve ser um de: {}", allowed.join(", ")));
            default.to_string()
        }
        None => default.to_string(),
    }
}

/// Recurring amount from `items` (`quantity × unit_amount_cents`), when given.
fn items_amount(items: &[Value], errors: &mut Errors) -> Option<i64> {
    let mut total = 0i64;
    let mut known = false;
    for (n, item) in items.iter().enumerate() {
        let Some(obj) = item.as_object() else {
            errors.add(&format!("items[{n}]"), "deve ser um objeto");
            continue;
        };
        let qty = obj.get("quantity").and_then(Value::as_i64).unwrap_or(1);
        if qty < 1 {
            errors.add(&format!("items[{n}].quantity"), "deve ser maior que 0");
        }
        if let Some(unit) = obj.get("unit_amount_cents").and_then(Value::as_i64) {
            total += unit * qty;
            known = true;
        }
    }
    known.then_some(total)
}

/// `POST /v1/subscriptions`: `billing_account_id` and `plan_id` or `items` required.
pub async fn create(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let account = req_str(&body, "billing_account_id", &mut errors).map(str::to_string);
    let plan = opt_str(&body, "plan_id", &mut errors).map(str::to_string);
    if plan.as_deref().is_some_and(|p| !is_uuid(p)) {
        errors.add("plan_id", "deve ser um UUID");
    }
    let items = match body.get("items") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if !a.is_empty() => Some(a.clone()),
        Some(_) => {
            errors.add("items", "deve ser uma lista com ao menos um item");
            None
        }
    };
    if plan.is_none() && items.is_none() && !errors.has("items") {
        errors.add("plan_id", "plan_id ou items deve ser informado");
    }
    let cycle = enum_field(&body, "billing_cycle", CYCLES, "monthly", &mut errors);
    let method = enum_field(
        &body,
        "collection_method",
        COLLECTION,
        "charge_automatically",
        &mut errors,
    );
    let policy = enum_field(
        &body,
        "nfe_issuance_policy",
        NFE_POLICIES,
        "on_full_payment",
        &mut errors,
    );
    let mut amount = match body.get("recurring_amount_cents") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(n) if n >= 0 => Some(n),
            _ => {
                errors.add(
                    "recurring_amount_cents",
                    "deve ser um inteiro maior ou igual a 0",
                );
                None
            }
        },
    };
    if amount.is_none() {
        amount = items.as_deref().and_then(|i| items_amount(i, &mut errors));
    }
    if amount.is_none() {
        amount = PLANS
            .iter()
            .find(|(id, _)| Some(*id) == plan.as_deref())
            .map(|(_, a)| *a);
    }
    let trial_days = match body.get("trial_period_days") {
        None | Some(Value::Null) => 0,
        Some(v) => match v.as_i64() {
            Some(n) if (0..=730).contains(&n) => n,
            _ => {
                errors.add("trial_period_days", "deve ser um inteiro entre 0 e 730");
                0
            }
        },
    };
    let start = match opt_str(&body, "start_date", &mut errors) {
        Some(d) => clock::parse_date(d).unwrap_or_else(|| {
            errors.add("start_date", "deve ser uma data no formato AAAA-MM-DD");
            clock::today()
        }),
        None => clock::today(),
    };
    let external_id = opt_str(&body, "external_id", &mut errors).map(str::to_string);
    let notes = opt_str(&body, "notes", &mut errors).map(str::to_string);

    let mut inner = app.lock();
    let id = inner.new_id("subscription");
    let public_id = inner.new_id("subscription-public");
    let org = inner.org(ctx.org());
    if let Some(a) = &account {
        match org.billing_account(a) {
            None => errors.add("billing_account_id", "não encontrada"),
            Some(ba) if s(ba, "status") == Some("closed") => {
                errors.add("billing_account_id", "está encerrada")
            }
            Some(_) => {}
        }
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;

    let now = clock::now_string();
    let period_start = start + trial_days;
    let period_end = clock::add_months(period_start, cycle_months(&cycle));
    let mut rec = Record::new();
    rec.insert("id".into(), json!(id));
    rec.insert("public_id".into(), json!(public_id));
    rec.insert("external_id".into(), json!(external_id));
    rec.insert("billing_account_id".into(), json!(account));
    rec.insert("plan_id".into(), json!(plan));
    rec.insert("billing_cycle".into(), json!(cycle));
    rec.insert("collection_method".into(), json!(method));
    rec.insert("nfe_issuance_policy".into(), json!(policy));
    rec.insert("recurring_amount_cents".into(), json!(amount));
    rec.insert("notes".into(), json!(notes));
    if trial_days > 0 {
        rec.insert("status".into(), json!("trialing"));
        rec.insert("trial_start".into(), json!(clock::due_date_string(start)));
        rec.insert(
            "trial_end".into(),
            json!(clock::due_date_string(period_start)),
        );
    } else {
        rec.insert("status".into(), json!("active"));
        rec.insert("activated_at".into(), json!(now));
    }
    rec.insert(
        "current_period_start".into(),
        json!(clock::due_date_string(period_start)),
    );
    rec.insert(
        "current_period_end".into(),
        json!(clock::due_date_string(period_end)),
    );
    rec.insert(
        "cycle_billing_date".into(),
        json!(clock::due_date_string(period_end)),
    );
    if let Some(cm) = body.get("custom_metadata").filter(|v| v.is_object()) {
        rec.insert("custom_metadata".into(), cm.clone());
    }
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    normalize_subscription(&mut rec);
    org.subscriptions.push(rec.clone());
    Ok(created(Value::Object(rec)))
}

/// Applies a transition to a subscription and answers with it.
fn transition(
    app: &App,
    ctx: &AuthCtx,
    id: &str,
    f: impl FnOnce(&mut Record) -> Result<(), ApiError>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let i = OrgData::idx(&org.subscriptions, id).ok_or_else(ApiError::not_found)?;
    let mut rec = org.subscriptions[i].clone();
    f(&mut rec)?;
    rec.insert("updated_at".into(), json!(clock::now_string()));
    org.subscriptions[i] = rec.clone();
    Ok(data(Value::Object(rec)))
}

/// `POST /v1/subscriptions/{id}/cancel` (`{cancel_at_period_end?, reason?}`).
pub async fn cancel(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let at_end = match body.get("cancel_at_period_end") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            errors.add("cancel_at_period_end", "deve ser verdadeiro ou falso");
            false
        }
    };
    let reason = opt_str(&body, "reason", &mut errors).map(str::to_string);
    errors.finish(StatusCode::BAD_REQUEST)?;
    transition(&app, &ctx, &id, |rec| {
        if s(rec, "status") == Some("canceled") {
            return Err(ApiError::invalid_state("Assinatura já está cancelada."));
        }
        if reason.is_some() {
            rec.insert("cancellation_reason".into(), json!(reason));
        }
        if at_end {
            rec.insert("cancel_at_period_end".into(), json!(true));
        } else {
            rec.insert("status".into(), json!("canceled"));
            rec.insert("cancel_at_period_end".into(), json!(false));
            rec.insert("canceled_at".into(), json!(clock::now_string()));
            rec.insert("pause_collection".into(), Value::Null);
        }
        Ok(())
    })
}

/// `POST /v1/subscriptions/{id}/pause` (`{behavior?, resumes_at?}`; active, past_due or trialing).
pub async fn pause(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let behavior = enum_field(
        &body,
        "behavior",
        PAUSE_BEHAVIORS,
        "mark_uncollectible",
        &mut errors,
    );
    let resumes_at = match opt_str(&body, "resumes_at", &mut errors) {
        Some(v) => match clock::parse_date_or_datetime(v) {
            Some(t) if t > clock::now_epoch() => Some(v.to_string()),
            Some(_) => {
                errors.add("resumes_at", "deve estar no futuro");
                None
            }
            None => {
                errors.add("resumes_at", "deve ser uma data ou data-hora ISO 8601");
                None
            }
        },
        None => None,
    };
    errors.finish(StatusCode::BAD_REQUEST)?;
    transition(&app, &ctx, &id, |rec| {
        let status = s(rec, "status").unwrap_or_default().to_string();
        if !matches!(status.as_str(), "active" | "past_due" | "trialing") {
            return Err(ApiError::invalid_state(format!(
                "Somente assinaturas ativas, em atraso ou em período de teste podem ser pausadas (status atual: {status})."
            )));
        }
        rec.insert("status".into(), json!("paused"));
        rec.insert(
            "pause_collection".into(),
            json!({"behavior": behavior, "resumes_at": resumes_at}),
        );
        rec.insert("paused_at".into(), json!(clock::now_string()));
        rec.insert("resumes_at".into(), json!(resumes_at));
        Ok(())
    })
}

/// `POST /v1/subscriptions/{id}/resume` (paused only).
pub async fn resume(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    transition(&app, &ctx, &id, |rec| {
        let status = s(rec, "status").unwrap_or_default().to_string();
        if status != "paused" {
            return Err(ApiError::invalid_state(format!(
                "Somente assinaturas pausadas podem ser retomadas (status atual: {status})."
            )));
        }
        rec.insert("status".into(), json!("active"));
        rec.insert("pause_collection".into(), Value::Null);
        rec.insert("resumes_at".into(), Value::Null);
        rec.insert("resumed_at".into(), json!(clock::now_string()));
        Ok(())
    })
}
