//! Payments (`/v1/payments`, a [P] `PaymentV1` shape) and refunds.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Value, json};

use super::opt_str;
use crate::api::{
    ApiError, ApiResult, Errors, Page, Params, data, i, list_response, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::store::{App, OrgData};

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "amount_cents",
    "paid_at",
    "status",
];
const STATUSES: &[&str] = &[
    "pending",
    "paid",
    "failed",
    "canceled",
    "refunded",
    "partially_refunded",
];
const METHODS: &[&str] = &["pix", "bank_slip", "card"];

type Q = Query<Vec<(String, String)>>;

/// `GET /v1/payments` (filters `invoice_id`, `billing_account_id`, `status`, `payment_method`).
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    let statuses = p.enum_list("status", STATUSES, &mut errors);
    let methods = p.enum_list("payment_method", METHODS, &mut errors);
    errors.finish(StatusCode::BAD_REQUEST)?;
    let invoice = p.get("invoice_id");
    let account = p.get("billing_account_id");
    let any = |list: &[String], v: Option<&str>| {
        list.is_empty() || v.is_some_and(|v| list.iter().any(|x| x == v))
    };
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = org
        .payments
        .iter()
        .filter(|r| any(&statuses, s(r, "status")))
        .filter(|r| any(&methods, s(r, "payment_method")))
        .filter(|r| invoice.is_none_or(|v| s(r, "invoice_id") == Some(v)))
        .filter(|r| account.is_none_or(|v| s(r, "billing_account_id") == Some(v)))
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(list_response(items, &page))
}

/// `GET /v1/payments/{id}`.
pub async fn get(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.payments, &id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.payments[idx].clone())))
}

fn brl(cents: i64) -> String {
    let reais = (cents / 100).to_string();
    let mut grouped = String::new();
    for (n, ch) in reais.chars().enumerate() {
        if n > 0 && (reais.len() - n).is_multiple_of(3) {
            grouped.push('.');
        }
        grouped.push(ch);
    }
    format!("R$ {grouped},{:02}", cents % 100)
}

/// `POST /v1/payments/{id}/refund` (`{amount_cents?, reason?}`): full or partial.
pub async fn refund(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let requested = match body.get("amount_cents") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_i64() {
            Some(n) if n > 0 => Some(n),
            _ => {
                errors.add("amount_cents", "deve ser um inteiro maior que 0");
                None
            }
        },
    };
    let _reason = opt_str(&body, "reason", &mut errors);
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.payments, &id).ok_or_else(ApiError::not_found)?;
    let pay = &mut org.payments[idx];
    let status = s(pay, "status").unwrap_or_default().to_string();
    if !matches!(status.as_str(), "paid" | "partially_refunded") {
        return Err(ApiError::invalid_state(format!(
            "Somente pagamentos pagos podem ser estornados (status atual: {status})."
        )));
    }
    let remaining = i(pay, "amount_cents") - i(pay, "refunded_amount_cents");
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
    let refunded = i(pay, "refunded_amount_cents") + amount;
    let new_status = if refunded >= i(pay, "amount_cents") {
        "refunded"
    } else {
        "partially_refunded"
    };
    let now = clock::now_string();
    pay.insert("refunded_amount_cents".into(), json!(refunded));
    pay.insert("status".into(), json!(new_status));
    pay.insert("refunded_at".into(), json!(now));
    pay.insert("updated_at".into(), json!(now));
    Ok(data(Value::Object(pay.clone())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn brl_format() {
        assert_eq!(super::brl(1_198_800), "R$ 11.988,00");
        assert_eq!(super::brl(49_905), "R$ 499,05");
    }
}
