//! Subscriptions (`/v1/subscriptions`) and their cancel / pause / resume transitions.

use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::filters::{By, PERSON, REAIS, Table};
use super::{
    ById, Listing, RecordsMut, copy_as_sent, opt_bool, opt_str, req_str, text_or, transition,
};
use crate::api::{
    ApiError, ApiResult, Errors, Record, contains_ci, created, digits_of, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::fixtures::normalize_subscription;
use crate::store::{App, OrgData};

/// The subscriptions, for [`transition`].
const SUBSCRIPTIONS: RecordsMut = |o| &mut o.subscriptions;

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "current_period_end",
    "cycle_billing_date",
    "recurring_amount_cents",
    "status",
];
const CYCLES: &[&str] = &["monthly", "quarterly", "semiannual", "annual"];
const PAUSE_BEHAVIORS: &[&str] = &["mark_uncollectible", "keep_as_draft", "void"];

/// The filters of `GET /v1/subscriptions` (with [`PERSON`]).
pub const FILTERS: &Table = &[
    ("status", By::Eq("status")),
    ("plan_id", By::Eq("plan_id")),
    ("billing_cycle", By::Eq("billing_cycle")),
    ("billing_account_id", By::Eq("billing_account_id")),
    ("search", By::With(matches_search)),
    ("company_id", By::Eq("company_id")),
    ("collection_method", By::Eq("collection_method")),
    ("cancel_at_period_end", By::Bool("cancel_at_period_end")),
    ("external_id", By::Eq("external_id")),
    ("product_group_id", By::Eq("product_group_id")),
    ("proposal_id", By::Eq("proposal_id")),
    ("discount_code_id", By::Eq("discount_code_id")),
    (
        "recurring_amount_min",
        By::AtLeast("recurring_amount_cents", REAIS),
    ),
    (
        "recurring_amount_max",
        By::AtMost("recurring_amount_cents", REAIS),
    ),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    (
        "current_period_start_from",
        By::Since("current_period_start"),
    ),
    ("current_period_start_to", By::Until("current_period_start")),
    ("current_period_end_from", By::Since("current_period_end")),
    ("current_period_end_to", By::Until("current_period_end")),
    ("trial_end_from", By::Since("trial_end")),
    ("trial_end_to", By::Until("trial_end")),
    ("canceled_after", By::Since("canceled_at")),
    ("canceled_before", By::Until("canceled_at")),
    ("activated_after", By::Since("activated_at")),
    ("activated_before", By::Until("activated_at")),
];

/// `GET /v1/subscriptions`: stored records, sorted and filtered.
pub const LIST: Listing = Listing {
    records: |o| &o.subscriptions,
    sortable: SORT,
    tables: &[&PERSON, FILTERS],
};

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
    let Some(c) = org.customer_of(sub) else {
        return false;
    };
    let doc_digits = digits_of(needle);
    s(c, "name").is_some_and(|n| contains_ci(n, &lower))
        || (!doc_digits.is_empty()
            && doc_digits.len() == needle.chars().filter(char::is_ascii_alphanumeric).count()
            && s(c, "document_number").is_some_and(|d| digits_of(d).contains(&doc_digits)))
}

/// The recurring amount (centavos) of the plan: its included items at their prices.
fn plan_amount(org: &OrgData, plan_id: &str) -> i64 {
    let subcents: i64 = org
        .items_of_plan(plan_id)
        .filter(|it| it.get("included") == Some(&json!(true)))
        .map(|it| {
            let unit = s(it, "price_id")
                .and_then(|p| org.price(p))
                .map_or(0, |p| p.unit_amount_subcents);
            unit * it.get("quantity").and_then(Value::as_i64).unwrap_or(1)
        })
        .sum();
    (subcents + 50) / 100
}

/// What a subscription takes from its plan.
struct PlanTerms {
    default_cycle: String,
    cycles: Vec<String>,
}

/// Validates `plan_id` for this account: it exists, is not archived, and a custom plan
/// belongs to the account.
fn check_plan(
    org: &OrgData,
    plan_id: &str,
    account: Option<&str>,
    errors: &mut Errors,
) -> Option<PlanTerms> {
    let Some(plan) = org.plan(plan_id) else {
        errors.add("plan_id", "não encontrado");
        return None;
    };
    if s(plan, "status") == Some("archived") {
        errors.add("plan_id", "está arquivado");
    }
    if let Some(owner) = s(plan, "billing_account_id")
        && account.is_some_and(|a| a != owner)
    {
        errors.add(
            "plan_id",
            "é um plano personalizado de outra conta de cobrança",
        );
    }
    Some(PlanTerms {
        default_cycle: s(plan, "default_billing_cycle")
            .unwrap_or("monthly")
            .to_string(),
        cycles: plan
            .get("available_billing_cycles")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// The recurring amount (centavos) of `items`: each `{product_id, price_id, quantity?,
/// unit_amount_subcents?}` needs a known product and a price of that product (a plan
/// item's `price_id`); `unit_amount_subcents` overrides the price.
fn items_amount(org: &OrgData, items: &[Value], errors: &mut Errors) -> i64 {
    let mut subcents = 0i64;
    for (n, item) in items.iter().enumerate() {
        let field = |f: &str| format!("items[{n}].{f}");
        let product = item.get("product_id").and_then(Value::as_str).unwrap_or("");
        let price = item.get("price_id").and_then(Value::as_str).unwrap_or("");
        if org.product(product).is_none() {
            errors.add(&field("product_id"), "não encontrado");
        }
        let unit = match org.price(price) {
            None => {
                errors.add(&field("price_id"), "não encontrado");
                0
            }
            Some(p) if p.product_id != product => {
                errors.add(&field("price_id"), "não pertence ao produto informado");
                0
            }
            Some(p) => p.unit_amount_subcents,
        };
        let unit = item
            .get("unit_amount_subcents")
            .and_then(Value::as_i64)
            .unwrap_or(unit);
        let qty = item.get("quantity").and_then(Value::as_i64).unwrap_or(1);
        subcents += unit * qty;
    }
    (subcents + 50) / 100
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
    let items = body_items(&body, plan.is_some(), &mut errors);
    let trial_days = trial_days(&body, &mut errors);

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
    let terms = plan
        .as_deref()
        .and_then(|p| check_plan(org, p, account.as_deref(), &mut errors));
    let cycle = billing_cycle(&body, terms.as_ref(), &mut errors);
    let amount = match (&items, &plan) {
        (Some(items), _) => items_amount(org, items, &mut errors),
        (None, Some(p)) => plan_amount(org, p),
        (None, None) => 0,
    };
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;

    let mut rec = Record::new();
    rec.insert("id".into(), json!(id));
    rec.insert("public_id".into(), json!(public_id));
    subscription_members(&mut rec, &body, account, plan);
    rec.insert("billing_cycle".into(), json!(cycle));
    rec.insert("recurring_amount_cents".into(), json!(amount));
    let now = clock::now_string();
    subscription_dates(&mut rec, trial_days, &cycle, &now);
    if let Some(cm) = body.get("custom_metadata").filter(|v| v.is_object()) {
        rec.insert("custom_metadata".into(), cm.clone());
    }
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    normalize_subscription(&mut rec);
    org.subscriptions.push(rec.clone());
    Ok(created(Value::Object(rec)))
}

/// The body's `items`, when it is a list of at least one; without a plan either, an error.
fn body_items(body: &Record, has_plan: bool, errors: &mut Errors) -> Option<Vec<Value>> {
    let items = match body.get("items") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if !a.is_empty() => Some(a.clone()),
        Some(_) => {
            errors.add("items", "deve ser uma lista com ao menos um item");
            None
        }
    };
    if !has_plan && items.is_none() && !errors.has("items") {
        errors.add("plan_id", "plan_id ou items deve ser informado");
    }
    items
}

/// The trial's days: to `trial_end`, else `trial_period_days` (at most 730), else none.
fn trial_days(body: &Record, errors: &mut Errors) -> i64 {
    let trial_end = opt_str(body, "trial_end", errors).and_then(clock::parse_datetime);
    match (
        trial_end,
        body.get("trial_period_days").and_then(Value::as_i64),
    ) {
        (Some(end), _) => (clock::local_day(end) - clock::today()).max(0),
        (None, Some(n)) if n <= 730 => n,
        (None, Some(_)) => {
            errors.add("trial_period_days", "deve ser no máximo 730");
            0
        }
        (None, None) => 0,
    }
}

/// The body's billing cycle, one the plan accepts, else the plan's default, else the first.
fn billing_cycle(body: &Record, terms: Option<&PlanTerms>, errors: &mut Errors) -> String {
    match (body.get("billing_cycle").and_then(Value::as_str), terms) {
        (Some(c), Some(t)) if !t.cycles.iter().any(|a| a == c) => {
            errors.add(
                "billing_cycle",
                &format!("o plano aceita: {}", t.cycles.join(", ")),
            );
            c.to_string()
        }
        (Some(c), _) => c.to_string(),
        (None, Some(t)) => t.default_cycle.clone(),
        (None, None) => CYCLES[0].to_string(),
    }
}

/// The members the body gives as they are, the account and plan, and the collection, NF-e
/// and proration choices with their defaults.
fn subscription_members(
    rec: &mut Record,
    body: &Record,
    account: Option<String>,
    plan: Option<String>,
) {
    copy_as_sent(
        rec,
        body,
        &[
            "external_id",
            "company_id",
            "product_group_id",
            "discount_code_id",
            "notes",
        ],
    );
    rec.insert("billing_account_id".into(), json!(account));
    rec.insert("plan_id".into(), json!(plan));
    let choices = [
        ("collection_method", "charge_automatically"),
        ("nfe_issuance_policy", "on_full_payment"),
        ("proration_behavior", "create_prorations"),
    ];
    for (key, default) in choices {
        rec.insert(key.into(), json!(text_or(body, key, default)));
    }
}

/// The status, the trial and the first period: a trial first when it has days.
fn subscription_dates(rec: &mut Record, trial_days: i64, cycle: &str, now: &str) {
    let start = clock::today();
    let period_start = start + trial_days;
    let period_end = clock::add_months(period_start, cycle_months(cycle));
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
}

/// `POST /v1/subscriptions/{id}/cancel` (`{cancel_at_period_end?, reason?}`).
pub async fn cancel(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let at_end = opt_bool(&body, "cancel_at_period_end", false, &mut errors);
    let reason = opt_str(&body, "reason", &mut errors).map(str::to_string);
    errors.finish(StatusCode::BAD_REQUEST)?;
    transition(&app, &ctx, &id, SUBSCRIPTIONS, |_, rec| {
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

/// `POST /v1/subscriptions/{id}/pause` (`{behavior?, resumes_at?}`, `resumes_at` a date-time;
/// active, past_due or trialing).
pub async fn pause(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let behavior = opt_str(&body, "behavior", &mut errors)
        .unwrap_or(PAUSE_BEHAVIORS[0])
        .to_string();
    let resumes_at = match opt_str(&body, "resumes_at", &mut errors) {
        Some(v) => match clock::parse_datetime(v) {
            Some(t) if t > clock::now_epoch() => Some(v.to_string()),
            Some(_) => {
                errors.add("resumes_at", "deve estar no futuro");
                None
            }
            None => {
                errors.add("resumes_at", "deve ser uma data-hora ISO 8601");
                None
            }
        },
        None => None,
    };
    errors.finish(StatusCode::BAD_REQUEST)?;
    transition(&app, &ctx, &id, SUBSCRIPTIONS, |_, rec| {
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
pub async fn resume(ById { app, ctx, id }: ById) -> ApiResult {
    transition(&app, &ctx, &id, SUBSCRIPTIONS, |_, rec| {
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
