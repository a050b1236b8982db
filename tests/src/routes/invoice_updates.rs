//! Invoices, continued: the edit (`PATCH /v1/invoices/{id}`) and the settlements — paying
//! (a charge through a gateway, or recorded paid by hand), undoing a payment, applying the
//! account's credits. Money stays consistent: what is due less what is paid is what remains.

use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::invoices::{
    compute_totals, finish_items, parse_day_or_datetime, parse_line_items, status_pt,
};
use super::{ById, RecordsMut, opt_str, transition};
use crate::api::{ApiError, ApiResult, Errors, Record, data, i, parse_body, s};
use crate::clock;
use crate::fixtures::normalize_payment;
use crate::store::OrgData;

/// The invoices, for [`transition`].
const INVOICES: RecordsMut = |o| &mut o.invoices;

/// Members a `PATCH` sets as sent.
const PLAIN: [&str; 5] = [
    "external_id",
    "company_id",
    "description",
    "footer",
    "nfe_issuance_policy",
];

/// Records `amount` cents as paid on the invoice (subcents for the `*_subcents` members, the
/// store's form); the invoice is paid once nothing remains.
fn settle(rec: &mut Record, amount: i64) {
    let remaining = (i(rec, "amount_remaining_cents") - amount).max(0);
    rec.insert("amount_remaining_cents".into(), json!(remaining));
    let paid = i(rec, "amount_paid_subcents") + amount * 100;
    rec.insert("amount_paid_subcents".into(), json!(paid));
    if remaining == 0 {
        rec.insert("status".into(), json!("paid"));
        rec.insert("paid_at".into(), json!(clock::now_string()));
        rec.insert("next_payment_attempt".into(), Value::Null);
    }
}

/// `custom_metadata` as the body asks: replaced (default) or merged.
fn custom_metadata(rec: &mut Record, body: &Record) {
    let Some(Value::Object(sent)) = body.get("custom_metadata") else {
        return;
    };
    let merge = body.get("custom_metadata_mode").and_then(Value::as_str) == Some("merge");
    let mut next = match (merge, rec.get("custom_metadata")) {
        (true, Some(Value::Object(old))) => old.clone(),
        _ => Map::new(),
    };
    next.extend(sent.clone());
    rec.insert("custom_metadata".into(), Value::Object(next));
}

/// `PATCH /v1/invoices/{id}` (`InvoiceUpdateRequest`): drafts and open invoices; line items
/// only on a draft (the totals follow).
pub async fn update(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let mut dates = Map::new();
    for key in ["due_date", "period_start", "period_end"] {
        if let Some(v) = opt_str(&body, key, &mut errors) {
            match parse_day_or_datetime(v) {
                Some(d) => {
                    dates.insert(key.to_owned(), json!(d));
                }
                None => errors.add(key, "deve ser uma data no formato AAAA-MM-DD"),
            }
        }
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
    let items = body.get("line_items").cloned();
    let count = items.as_ref().and_then(Value::as_array).map_or(0, Vec::len);
    let item_ids: Vec<String> = {
        let mut inner = app.lock();
        (0..count).map(|_| inner.new_id("line-item")).collect()
    };
    transition(&app, &ctx, &id, INVOICES, |org, rec| {
        let status = s(rec, "status").unwrap_or_default().to_owned();
        if !matches!(status.as_str(), "draft" | "open") {
            return Err(ApiError::invalid_state(format!(
                "Somente faturas em rascunho ou em aberto podem ser alteradas (a fatura está {}).",
                status_pt(&status)
            )));
        }
        if items.is_some() && status != "draft" {
            return Err(ApiError::invalid_state(
                "Os itens só podem ser alterados enquanto a fatura é um rascunho.",
            ));
        }
        for key in PLAIN.iter().chain(&["collection_method"]) {
            if let Some(v) = body.get(*key) {
                rec.insert((*key).to_owned(), v.clone());
            }
        }
        rec.extend(dates);
        custom_metadata(rec, &body);
        if items.is_some() {
            let mut errors = Errors::default();
            let parsed = parse_line_items(org, items.as_ref(), &mut errors);
            errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
            finish_items(item_ids, rec, parsed);
            compute_totals(rec);
        }
        Ok(())
    })
}

/// `POST /v1/invoices/{id}/pay` (`InvoicePayRequest`). With `payment_method`, a charge
/// through a gateway: a pending payment of that method. Without, the invoice is recorded
/// paid by hand — all it owes, `amount_cents`, or the `installment_ids` — as a succeeded
/// manual payment. Answers `{"data": {…}}` (untyped in the document).
pub async fn pay(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut inner = app.lock();
    let ids = (inner.new_id("payment"), inner.new_id("payment-public"));
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    let status = s(&org.invoices[idx], "status")
        .unwrap_or_default()
        .to_owned();
    match status.as_str() {
        "open" | "uncollectible" => {}
        "paid" => return Err(ApiError::invalid_state("A fatura já está paga.")),
        other => {
            return Err(ApiError::invalid_state(format!(
                "Somente faturas em aberto podem ser pagas (a fatura está {}).",
                status_pt(other)
            )));
        }
    }
    let method = body.get("payment_method").and_then(Value::as_str);
    let amount = match method {
        Some(_) => i(&org.invoices[idx], "amount_remaining_cents"),
        None => manual_amount(org, idx, &body)?,
    };
    let payment = payment_record(&org.invoices[idx], ids, method, amount);
    if method.is_none() {
        let inv = &mut org.invoices[idx];
        settle(inv, amount);
        inv.insert("updated_at".into(), json!(clock::now_string()));
    }
    let answer = json!({
        "invoice_id": id, "payment_id": payment["id"], "mode": if method.is_some() { "gateway" } else { "manual" },
        "status": payment["status"], "amount_cents": amount,
        "invoice_status": org.invoices[idx]["status"]
    });
    org.payments.push(payment);
    Ok(data(answer))
}

/// The cents a payment recorded by hand settles: the installments named (each pending on
/// the invoice, then marked paid), `amount_cents` (at most what remains), or all that
/// remains.
fn manual_amount(org: &mut OrgData, idx: usize, body: &Record) -> Result<i64, ApiError> {
    let remaining = i(&org.invoices[idx], "amount_remaining_cents");
    let named: Vec<String> = body
        .get("installment_ids")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if !named.is_empty() {
        let Some(Value::Array(installments)) = org.invoices[idx].get_mut("installments") else {
            return Err(ApiError::field(
                StatusCode::UNPROCESSABLE_ENTITY,
                "installment_ids",
                "a fatura não tem parcelas",
            ));
        };
        let mut sum = 0;
        for id in &named {
            let Some(inst) = installments
                .iter_mut()
                .find(|x| x["id"] == id.as_str() && x["status"] == "pending")
            else {
                return Err(ApiError::field(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "installment_ids",
                    format!("parcela {id} não encontrada em aberto nesta fatura"),
                ));
            };
            sum += inst["amount_cents"].as_i64().unwrap_or(0);
            inst["status"] = json!("paid");
            inst["paid_at"] = json!(clock::now_string());
        }
        return Ok(sum.min(remaining));
    }
    match body.get("amount_cents").and_then(Value::as_i64) {
        Some(amount) if amount > remaining => Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            "amount_cents",
            format!("excede o saldo em aberto da fatura ({remaining} centavos)"),
        )),
        Some(amount) => Ok(amount),
        None => Ok(remaining),
    }
}

/// The payment a `pay` creates: pending through the method's gateway, or succeeded by hand.
fn payment_record(
    invoice: &Record,
    (id, public_id): (String, String),
    method: Option<&str>,
    amount: i64,
) -> Record {
    let now = clock::now_string();
    let (status, gateway, paid) = match method {
        Some("card") => ("processing", json!("PAGARME"), Value::Null),
        Some(_) => ("pending", json!("KOBANA"), Value::Null),
        None => ("succeeded", Value::Null, json!(amount)),
    };
    let mut rec = Record::new();
    for (key, value) in [
        ("id", json!(id)),
        ("public_id", json!(public_id)),
        ("invoice_id", invoice["id"].clone()),
        ("billing_account_id", invoice["billing_account_id"].clone()),
        ("payment_method_type", json!(method)),
        ("amount_cents", json!(amount)),
        ("paid_amount_cents", paid),
        ("status", json!(status)),
        ("payment_gateway", gateway),
        (
            "paid_at",
            if method.is_none() {
                json!(now)
            } else {
                Value::Null
            },
        ),
        ("created_at", json!(now)),
        ("metadata", json!({"manual": method.is_none()})),
    ] {
        rec.insert(key.into(), value);
    }
    normalize_payment(&mut rec);
    rec
}

/// `POST /v1/invoices/{id}/undo-payment` (`{reason?}`): `paid → open`; what was paid is owed
/// again, and the payments recorded by hand are canceled.
pub async fn undo_payment(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let reason = body.get("reason").cloned().unwrap_or(Value::Null);
    transition(&app, &ctx, &id, INVOICES, |org, rec| {
        let status = s(rec, "status").unwrap_or_default().to_owned();
        if status != "paid" {
            return Err(ApiError::invalid_state(format!(
                "Somente faturas pagas podem ter o pagamento desfeito (a fatura está {}).",
                status_pt(&status)
            )));
        }
        let due = i(rec, "amount_due_subcents");
        rec.insert("status".into(), json!("open"));
        rec.insert("paid_at".into(), Value::Null);
        rec.insert("amount_paid_subcents".into(), json!(0));
        rec.insert("amount_remaining_cents".into(), json!((due + 50) / 100));
        if let Some(Value::Object(meta)) = rec.get_mut("metadata") {
            meta.insert("undo_payment_reason".into(), reason);
        }
        for payment in org.payments.iter_mut() {
            if s(payment, "invoice_id") == Some(id.as_str())
                && payment["metadata"]["manual"] == true
                && s(payment, "status") == Some("succeeded")
            {
                payment.insert("status".into(), json!("canceled"));
                payment.insert("updated_at".into(), json!(clock::now_string()));
            }
        }
        Ok(())
    })
}

/// Whether a credit has lapsed (its `expires_at` is past, by the fake's clock).
pub fn expired(credit: &Record) -> bool {
    s(credit, "expires_at")
        .and_then(clock::parse_datetime)
        .is_some_and(|at| at <= clock::now_epoch())
}

/// `POST /v1/invoices/{id}/apply-credits` (`{credit_ids, amount_cents?}`): open invoices
/// only; each credit of the invoice's account, with a balance, not expired. Applies up to
/// `amount_cents` (or all the credits hold), never more than the invoice owes, credit by
/// credit in the order given.
pub async fn apply_credits(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let wanted: Vec<String> = body["credit_ids"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mut inner = app.lock();
    let app_ids: Vec<String> = wanted
        .iter()
        .map(|_| inner.new_id("credit-application"))
        .collect();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.invoices, &id).ok_or_else(ApiError::not_found)?;
    let invoice = org.invoices[idx].clone();
    if s(&invoice, "status") != Some("open") {
        return Err(ApiError::invalid_state(format!(
            "Créditos só podem ser aplicados em faturas em aberto (a fatura está {}).",
            status_pt(s(&invoice, "status").unwrap_or_default())
        )));
    }
    let mut available = 0;
    for credit_id in &wanted {
        let problem = match org.credit(credit_id) {
            None => Some("não encontrado"),
            Some(c) if s(c, "billing_account_id") != s(&invoice, "billing_account_id") => {
                Some("é de outra conta de cobrança")
            }
            Some(c) if i(c, "amount_remaining_cents") <= 0 => Some("sem saldo"),
            Some(c) if expired(c) => Some("expirado"),
            Some(c) => {
                available += i(c, "amount_remaining_cents");
                None
            }
        };
        if let Some(problem) = problem {
            return Err(ApiError::field(
                StatusCode::UNPROCESSABLE_ENTITY,
                "credit_ids",
                format!("crédito {credit_id}: {problem}"),
            ));
        }
    }
    let owed = i(&invoice, "amount_remaining_cents");
    let asked = body.get("amount_cents").and_then(Value::as_i64);
    if asked.is_some_and(|a| a > available || a > owed) {
        return Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            "amount_cents",
            "excede o saldo dos créditos ou o que a fatura deve",
        ));
    }
    let mut left = asked.unwrap_or(available).min(owed);
    let mut applications = Vec::new();
    for (credit_id, app_id) in wanted.iter().zip(app_ids) {
        if left == 0 {
            break;
        }
        let credit = org
            .credits
            .iter_mut()
            .find(|c| s(c, "id") == Some(credit_id.as_str()));
        let Some(credit) = credit else { continue };
        let take = i(credit, "amount_remaining_cents").min(left);
        credit.insert(
            "amount_remaining_cents".into(),
            json!(i(credit, "amount_remaining_cents") - take),
        );
        credit.insert("updated_at".into(), json!(clock::now_string()));
        left -= take;
        applications.push(
            json!({"id": app_id, "invoice_id": id, "credit_id": credit_id,
            "billing_account_id": invoice["billing_account_id"], "amount_cents": take,
            "created_at": clock::now_string()}),
        );
    }
    let applied: i64 = applications
        .iter()
        .filter_map(|a| a["amount_cents"].as_i64())
        .sum();
    let inv = &mut org.invoices[idx];
    settle(inv, applied);
    inv.insert("updated_at".into(), json!(clock::now_string()));
    let answer = json!({"invoice_id": id, "applied_cents": applied,
        "amount_remaining_cents": inv["amount_remaining_cents"], "invoice_status": inv["status"],
        "applications": applications});
    org.credit_applications.extend(
        applications
            .into_iter()
            .filter_map(|a| a.as_object().cloned()),
    );
    Ok(data(answer))
}
