//! Payments (`/v1/payments`, a [P] `PaymentV1` shape) and refunds.

use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::ById;
use super::Listing;
use super::filters::{By, PERSON, REAIS, Table};
use crate::api::{ApiError, ApiResult, Record, contains_ci, data, i, parse_body, s};
use crate::clock;
use crate::readings::RefundResult;
use crate::store::OrgData;

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "amount_cents",
    "paid_at",
    "status",
];

/// The filters of `GET /v1/payments` (with [`PERSON`]); amounts are in reais.
pub const FILTERS: &Table = &[
    ("status", By::Eq("status")),
    ("invoice_id", By::Eq("invoice_id")),
    ("billing_account_id", By::Eq("billing_account_id")),
    ("company_id", By::Eq("company_id")),
    ("gateway_id", By::Eq("gateway_id")),
    ("payment_method_id", By::Eq("payment_method_id")),
    ("payment_method_type", By::Eq("payment_method_type")),
    ("external_id", By::Eq("external_id")),
    ("gateway_payment_id", By::Eq("gateway_payment_id")),
    ("invoice_filter", By::With(invoice_filter)),
    ("search", By::With(matches_search)),
    ("amount_min", By::AtLeast("amount_cents", REAIS)),
    ("amount_max", By::AtMost("amount_cents", REAIS)),
    ("paid_amount_min", By::AtLeast("paid_amount_cents", REAIS)),
    ("paid_amount_max", By::AtMost("paid_amount_cents", REAIS)),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("paid_after", By::Since("paid_at")),
    ("paid_before", By::Until("paid_at")),
];

/// `GET /v1/payments`: stored records, sorted and filtered.
pub const LIST: Listing = Listing {
    records: |o| &o.payments,
    sortable: SORT,
    tables: &[&PERSON, FILTERS],
};

fn invoice_filter(_: &OrgData, r: &Record, v: &str) -> bool {
    match v {
        "with_invoice" => s(r, "invoice_id").is_some(),
        "without_invoice" => s(r, "invoice_id").is_none(),
        _ => true,
    }
}

fn matches_search(org: &OrgData, r: &Record, needle: &str) -> bool {
    let lower = needle.to_lowercase();
    ["id", "external_id", "gateway_payment_id"]
        .iter()
        .filter_map(|k| s(r, k))
        .any(|v| contains_ci(v, &lower))
        || org
            .customer_of(r)
            .and_then(|c| s(c, "name"))
            .is_some_and(|n| contains_ci(n, &lower))
}

/// Centavos as Brazilian reais: `R$ 11.988,00` (`-R$ 5,00` below zero).
pub fn brl(cents: i64) -> String {
    let negative = cents < 0;
    let cents = cents.unsigned_abs();
    let reais = (cents / 100).to_string();
    let mut grouped = String::new();
    for (n, ch) in reais.chars().enumerate() {
        if n > 0 && (reais.len() - n).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(ch);
    }
    format!(
        "{}R$ {grouped},{:02}",
        if negative { "-" } else { "" },
        cents % 100
    )
}

/// `POST /v1/payments/{id}/refund` (`{amount_cents?, reason?}`): `succeeded` payments only.
/// No amount, or the whole paid amount, refunds fully (`refunded`); less refunds partially
/// (`partially_refunded`). The refunded total is kept outside the record, so nothing beyond
/// what was paid is ever refunded.
pub async fn refund(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let requested = body.get("amount_cents").and_then(Value::as_i64);
    let new_record = app.readings().refund_result == RefundResult::NewPayment;
    let mut inner = app.lock();
    let ids = new_record.then(|| (inner.new_id("payment"), inner.new_id("payment-public")));
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.payments, &id).ok_or_else(ApiError::not_found)?;
    let pay = &org.payments[idx];
    let status = s(pay, "status").unwrap_or_default().to_string();
    if status != "succeeded" {
        return Err(ApiError::invalid_state(format!(
            "Somente pagamentos pagos (succeeded) podem ser estornados (status atual: {status})."
        )));
    }
    let paid = pay
        .get("paid_amount_cents")
        .and_then(Value::as_i64)
        .unwrap_or_else(|| i(pay, "amount_cents"));
    let already = org.refunded_cents.get(&id).copied().unwrap_or(0);
    let remaining = paid - already;
    let amount = requested.unwrap_or(remaining);
    if amount > remaining {
        return Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            "amount_cents",
            format!(
                "excede o valor disponível para estorno ({})",
                brl(remaining)
            ),
        ));
    }
    let refunded = already + amount;
    org.refunded_cents.insert(id.clone(), refunded);
    let new_status = if refunded >= paid {
        "refunded"
    } else {
        "partially_refunded"
    };
    let pay = &mut org.payments[idx];
    if let Some(reason) = body.get("reason")
        && let Some(Value::Object(meta)) = pay.get_mut("metadata")
    {
        meta.insert("refund_reason".into(), reason.clone());
    }
    pay.insert("status".into(), json!(new_status));
    pay.insert("updated_at".into(), json!(clock::now_string()));
    let refunded_payment = pay.clone();
    match ids {
        None => Ok(data(Value::Object(refunded_payment))),
        Some(ids) => {
            let record = refund_record(&refunded_payment, ids, amount);
            org.payments.push(record.clone());
            Ok(data(Value::Object(record)))
        }
    }
}

/// `POST /v1/payments/{id}/change-due-date` (`{due_date}`, `YYYY-MM-DD`): a pending boleto
/// issued through Kobana's own gateway, to a day after the fake's today. The new day is kept
/// beside the payment ([`crate::store::OrgData::boleto_due_dates`]).
pub async fn change_due_date(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let due = body
        .get("due_date")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let day = clock::parse_date(&due).ok_or_else(|| {
        ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            "due_date",
            "deve ser uma data AAAA-MM-DD",
        )
    })?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.payments, &id).ok_or_else(ApiError::not_found)?;
    let pay = &org.payments[idx];
    let kobana = s(pay, "payment_gateway").is_some_and(|g| g.eq_ignore_ascii_case("kobana"));
    if s(pay, "payment_method_type") != Some("bank_slip")
        || s(pay, "status") != Some("pending")
        || !kobana
    {
        return Err(ApiError::invalid_state(
            "Só o vencimento de um boleto pendente emitido pelo gateway Kobana pode ser alterado.",
        ));
    }
    if day <= clock::today() {
        return Err(ApiError::field(
            StatusCode::UNPROCESSABLE_ENTITY,
            "due_date",
            "deve ser uma data futura",
        ));
    }
    org.boleto_due_dates.insert(id, due.clone());
    Ok(data(json!({"due_date": due, "updated": true})))
}

/// The payment record a refund creates (the `new_payment` reading): the refunded amount,
/// status `refunded`, pointing back at the payment in `metadata.refund_of`.
fn refund_record(payment: &Record, (id, public_id): (String, String), amount: i64) -> Record {
    let now = clock::now_string();
    let mut rec = payment.clone();
    for (key, value) in [
        ("id", json!(id)),
        ("public_id", json!(public_id)),
        ("external_id", Value::Null),
        ("status", json!("refunded")),
        ("amount_cents", json!(amount)),
        ("paid_amount_cents", json!(amount)),
        ("gateway_payment_id", Value::Null),
        ("failure_code", Value::Null),
        ("failure_message", Value::Null),
        ("idempotency_key", Value::Null),
        ("paid_at", json!(now)),
        ("created_at", json!(now)),
        ("updated_at", json!(now)),
        ("metadata", json!({"refund_of": payment["id"]})),
    ] {
        rec.insert(key.into(), value);
    }
    rec
}

#[cfg(test)]
mod tests {
    #[test]
    fn brl_format() {
        assert_eq!(super::brl(1_198_800), "R$ 11.988,00");
        assert_eq!(super::brl(49_905), "R$ 499,05");
    }
}
