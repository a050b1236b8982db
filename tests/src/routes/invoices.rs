//! Invoices (`/v1/invoices`): lists, the overdue and pending-NF-e views, create/delete,
//! and the finalize / void / send-reminder / issue-nfe transitions, plus the PDF.
//!
//! Single-invoice answers embed `line_items`; lists never do (see the contract's
//! ambiguities).

use axum::Extension;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::filters::{self, By, Table};
use super::{ById, RecordsMut, copy_as_sent, opt_str, req_str, text_or, transition};
use crate::DocKind;
use crate::api::{
    ApiError, ApiResult, Errors, Page, Params, Record, contains_ci, created, data, day_of, deleted,
    digits_of, i, list_response, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::documents;
use crate::fixtures::{normalize_invoice, normalize_line_item, normalize_nfe};
use crate::store::{App, OrgData};

/// The invoices, for [`transition`].
const INVOICES: RecordsMut = |o| &mut o.invoices;

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

/// The filters of `GET /v1/invoices`.
pub const FILTERS: &Table = &[
    ("status", By::Eq("status")),
    ("billing_account_id", By::Eq("billing_account_id")),
    ("company_id", By::Eq("company_id")),
    ("subscription_id", By::Eq("subscription_id")),
    ("due_date_from", By::Since("due_date")),
    ("due_date_to", By::Until("due_date")),
    ("date_from", By::Since("created_at")),
    ("date_to", By::Until("created_at")),
    ("search", By::With(matches_search)),
    ("total_subcents", By::Int("total_subcents")),
    ("document_number", By::With(customer_document)),
    ("without_payments", By::With(without_payments)),
    ("plan_filter", By::With(plan_filter)),
];

/// The filters of `GET /v1/invoices/pending-payment` and `/pending-nfe`.
pub const VIEW_FILTERS: &Table = &[("billing_account_id", By::Eq("billing_account_id"))];

type Q = Query<Vec<(String, String)>>;

/// Open with a due date (São Paulo calendar day) before the fake's today.
pub fn is_overdue(inv: &Record) -> bool {
    s(inv, "status") == Some("open") && day_of(inv, "due_date").is_some_and(|d| d < clock::today())
}

fn matches_search(org: &OrgData, r: &Record, needle: &str) -> bool {
    let n = needle.to_lowercase();
    ["number", "description", "id"]
        .iter()
        .filter_map(|k| s(r, k))
        .any(|v| contains_ci(v, &n))
        || org
            .customer_of(r)
            .and_then(|c| s(c, "name"))
            .is_some_and(|name| contains_ci(name, &n))
}

fn customer_document(org: &OrgData, r: &Record, v: &str) -> bool {
    org.customer_of(r)
        .and_then(|c| s(c, "document_number"))
        .is_some_and(|doc| digits_of(doc) == digits_of(v))
}

fn without_payments(org: &OrgData, r: &Record, v: &str) -> bool {
    v != "true"
        || !org
            .payments
            .iter()
            .any(|pay| s(pay, "invoice_id") == s(r, "id"))
}

fn plan_filter(_: &OrgData, r: &Record, v: &str) -> bool {
    match v {
        "with_plan" => s(r, "subscription_id").is_some(),
        "without_plan" => s(r, "subscription_id").is_none(),
        _ => true,
    }
}

/// An invoice as lists serve it: without `line_items`.
fn list_view(inv: &Record) -> Value {
    let mut out = inv.clone();
    out.remove("line_items");
    Value::Object(out)
}

/// A list of the org's invoices that `keep` and the query's `tables` let through.
fn invoice_list(
    app: &App,
    ctx: &AuthCtx,
    q: Vec<(String, String)>,
    tables: &[&Table],
    keep: fn(&OrgData, &Record) -> bool,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    filters::validate(&p, tables, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = org
        .invoices
        .iter()
        .filter(|r| keep(org, r) && filters::keeps(org, &p, tables, r))
        .map(list_view)
        .collect();
    Ok(list_response(items, &page))
}

/// `GET /v1/invoices`.
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    invoice_list(&app, &ctx, q, &[FILTERS], |_, _| true)
}

/// `GET /v1/invoices/pending-payment`: open invoices whose due date has passed.
pub async fn pending_payment(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    invoice_list(&app, &ctx, q, &[VIEW_FILTERS], |_, r| is_overdue(r))
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
    invoice_list(&app, &ctx, q, &[VIEW_FILTERS], needs_nfe)
}

/// `GET /v1/invoices/{id}` (embeds `line_items`).
pub async fn get(ById { app, ctx, id }: ById) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.invoices[idx].clone())))
}

/// The optional id fields a line item may carry, and the catalog they must exist in.
const ITEM_REFS: &[&str] = &["product_id", "price_id", "service_item_id"];

/// Parses `line_items` (`InvoiceLineItemCreateInput`: `unit_amount_subcents` in subcentavos,
/// ÷10000); `amount_cents` is `quantity × unit ÷ 100`, rounded.
pub(super) fn parse_line_items(
    org: &OrgData,
    v: Option<&Value>,
    errors: &mut Errors,
) -> Vec<Record> {
    let items = v.and_then(Value::as_array).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (n, item) in items.iter().enumerate() {
        let field = |f: &str| format!("line_items[{n}].{f}");
        let obj = item.as_object().cloned().unwrap_or_default();
        let mut rec = Record::new();
        match obj.get("description").and_then(Value::as_str) {
            Some(d) if !d.trim().is_empty() => {
                rec.insert("description".into(), json!(d));
            }
            _ => errors.add(&field("description"), "não pode ficar em branco"),
        }
        let qty = obj.get("quantity").cloned().unwrap_or(json!(1));
        let unit = obj
            .get("unit_amount_subcents")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            .round() as i64;
        for key in ITEM_REFS {
            if let Some(id) = obj.get(*key).and_then(Value::as_str) {
                let known = match *key {
                    "product_id" => org.product(id).is_some(),
                    "price_id" => org.price(id).is_some(),
                    _ => true,
                };
                if !known {
                    errors.add(&field(key), "não encontrado");
                }
                rec.insert((*key).to_string(), json!(id));
            }
        }
        let amount = (qty.as_f64().unwrap_or(1.0) * unit as f64 / 100.0).round() as i64;
        rec.insert("quantity".into(), qty);
        rec.insert("unit_amount_subcents".into(), json!(unit));
        rec.insert("amount_cents".into(), json!(amount));
        out.push(rec);
    }
    out
}

/// Recomputes the money fields from the line items (subcents ÷10000, cents ÷100).
pub(super) fn compute_totals(rec: &mut Record) {
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

/// A `YYYY-MM-DD` (midnight in São Paulo, written `…T03:00:00Z`) or RFC 3339 value as the
/// date-time an `InvoiceV1` carries.
pub(super) fn parse_day_or_datetime(v: &str) -> Option<String> {
    if let Some(day) = clock::parse_date(v) {
        return Some(clock::due_date_string(day));
    }
    clock::parse_datetime(v).map(|_| v.to_string())
}

/// The date-ish text fields of a create body (no format in the contract): parsed here.
const DATE_FIELDS: &[&str] = &["due_date", "period_start", "period_end"];

/// Gives new line items their ids and the full item shape.
pub(super) fn finish_items(ids: Vec<String>, rec: &mut Record, items: Vec<Record>) {
    let mut with_ids: Vec<Value> = items
        .into_iter()
        .zip(ids)
        .map(|(mut it, id)| {
            it.insert("id".into(), json!(id));
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

/// `POST /v1/invoices`: creates a draft (the contract already checked the body's shape).
pub async fn create(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let account = req_str(&body, "billing_account_id", &mut errors).map(str::to_string);
    let dates = body_dates(&body, &mut errors);
    let subscription = opt_str(&body, "subscription_id", &mut errors).map(str::to_string);
    let installments = installments_of(&body);

    let mut inner = app.lock();
    let id = inner.new_id("invoice");
    let public_id = inner.new_id("invoice-public");
    let count = body
        .get("line_items")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let item_ids: Vec<String> = (0..count).map(|_| inner.new_id("line-item")).collect();
    let org = inner.org(ctx.org());
    let items = parse_line_items(org, body.get("line_items"), &mut errors);
    let terms = draft_terms(
        org,
        account.as_deref(),
        subscription.as_deref(),
        &mut errors,
    );

    let mut rec = Record::new();
    rec.insert("id".into(), json!(id));
    rec.insert("public_id".into(), json!(public_id));
    draft_members(&mut rec, &body, account, subscription);
    rec.extend(dates);
    if !rec.contains_key("due_date") {
        rec.insert(
            "due_date".into(),
            json!(clock::due_date_string(clock::today() + terms)),
        );
    }
    if let Some(cm) = body.get("custom_metadata").filter(|v| v.is_object()) {
        rec.insert("custom_metadata".into(), cm.clone());
    }
    let now = clock::now_string();
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    finish_items(item_ids, &mut rec, items);
    compute_totals(&mut rec);
    if !installments.is_empty() {
        if installments.iter().sum::<i64>() != i(&rec, "amount_remaining_cents") {
            errors.add(
                "installments",
                "a soma das parcelas deve ser igual ao total da fatura",
            );
        }
        rec.insert("installment_count".into(), json!(installments.len()));
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
    normalize_invoice(&mut rec);
    org.invoices.push(rec.clone());
    Ok(created(Value::Object(rec)))
}

/// The dates a new invoice's body gives, each a day or a date-time.
fn body_dates(body: &Record, errors: &mut Errors) -> Map<String, Value> {
    let mut dates = Map::new();
    for key in DATE_FIELDS {
        if let Some(v) = opt_str(body, key, errors) {
            match parse_day_or_datetime(v) {
                Some(d) => {
                    dates.insert((*key).to_string(), json!(d));
                }
                None => errors.add(key, "deve ser uma data no formato AAAA-MM-DD"),
            }
        }
    }
    dates
}

/// The amounts of the installments a new invoice's body asks for.
fn installments_of(body: &Record) -> Vec<i64> {
    body.get("installments")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|x| x.get("amount_cents").and_then(Value::as_i64).unwrap_or(0))
                .collect()
        })
        .unwrap_or_default()
}

/// The payment terms of the draft's billing account (10 days without one); an unknown or
/// closed account and an unknown subscription are errors.
fn draft_terms(
    org: &OrgData,
    account: Option<&str>,
    subscription: Option<&str>,
    errors: &mut Errors,
) -> i64 {
    let mut terms = 10;
    if let Some(a) = account {
        match org.billing_account(a) {
            None => errors.add("billing_account_id", "não encontrada"),
            Some(ba) if s(ba, "status") == Some("closed") => {
                errors.add("billing_account_id", "está encerrada")
            }
            Some(ba) => terms = i(ba, "payment_terms_days").max(1),
        }
    }
    if let Some(sid) = subscription
        && OrgData::idx(&org.subscriptions, sid).is_none()
    {
        errors.add("subscription_id", "não encontrada");
    }
    terms
}

/// The draft's members the body gives as they are, and its status, account, subscription,
/// collection, NF-e policy, discount and billing reason.
fn draft_members(
    rec: &mut Record,
    body: &Record,
    account: Option<String>,
    subscription: Option<String>,
) {
    copy_as_sent(
        rec,
        body,
        &[
            "external_id",
            "company_id",
            "product_group_id",
            "description",
            "footer",
        ],
    );
    let reason = if subscription.is_some() {
        "subscription_cycle"
    } else {
        "manual"
    };
    rec.insert("status".into(), json!("draft"));
    rec.insert("billing_account_id".into(), json!(account));
    rec.insert("subscription_id".into(), json!(subscription));
    rec.insert(
        "collection_method".into(),
        json!(text_or(body, "collection_method", "manual_invoice")),
    );
    rec.insert(
        "nfe_issuance_policy".into(),
        json!(text_or(body, "nfe_issuance_policy", "on_full_payment")),
    );
    let discount = body
        .get("discount_cents")
        .and_then(Value::as_i64)
        .unwrap_or(0);
    rec.insert("discount_cents".into(), json!(discount));
    rec.insert("billing_reason".into(), json!(reason));
}

/// `DELETE /v1/invoices/{id}`: drafts only.
pub async fn delete(ById { app, ctx, id }: ById) -> ApiResult {
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

pub(super) fn status_pt(status: &str) -> &'static str {
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
pub async fn finalize(ById { app, ctx, id }: ById) -> ApiResult {
    transition(&app, &ctx, &id, INVOICES, |org, rec| {
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

/// `POST /v1/invoices/{id}/void` (`{reason?}`, kept in `metadata.void_reason`): `open → void`.
pub async fn void(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let reason = body.get("reason").cloned().unwrap_or(Value::Null);
    transition(&app, &ctx, &id, INVOICES, |_, rec| {
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
            m.insert("void_reason".into(), reason);
        }
        Ok(())
    })
}

/// `POST /v1/invoices/{id}/send-reminder`: open invoices only; counted in `metadata`.
pub async fn send_reminder(ById { app, ctx, id }: ById) -> ApiResult {
    transition(&app, &ctx, &id, INVOICES, |_, rec| {
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
    rec.insert(
        "person_id".into(),
        customer.map_or(Value::Null, |c| c["id"].clone()),
    );
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

/// The answer of `POST /v1/invoices/{id}/issue-nfe`: an issuance result, not an `NfeV1` (the
/// contract types `data` as an untyped object).
fn issuance(invoice_id: &str, nfe: &Record, requeued: bool) -> Value {
    json!({
        "invoice_id": invoice_id,
        "nfe_id": nfe["id"],
        "status": nfe["status"],
        "requeued": requeued,
        "queued_at": clock::now_string(),
    })
}

/// `POST /v1/invoices/{id}/issue-nfe`: paid invoices (or open ones whose policy issues on
/// finalization) get an NF-e queued in `pending`; a failed one is re-queued. Answers
/// `{"data": {"invoice_id", "nfe_id", "status": "pending", "requeued", "queued_at"}}`.
pub async fn issue_nfe(ById { app, ctx, id }: ById) -> ApiResult {
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
        return Ok(data(issuance(&id, nfe, true)));
    }
    let org_id = ctx.org().to_string();
    let mut nfe = nfe_for_invoice(org, &inv, &org_id);
    nfe.insert("id".into(), json!(new_id));
    nfe.insert("public_id".into(), json!(new_public));
    nfe.insert("created_at".into(), json!(now));
    nfe.insert("updated_at".into(), json!(now));
    normalize_nfe(&mut nfe, &org_id);
    let answer = issuance(&id, &nfe, false);
    org.nfes.push(nfe);
    Ok(data(answer))
}

/// `GET /v1/invoices/{id}/pdf` (not for drafts).
pub async fn pdf(ById { app, ctx, id }: ById) -> ApiResult {
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
