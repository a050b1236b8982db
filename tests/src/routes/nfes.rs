//! NF-e / NFS-e (`/v1/nfes`): lists, issue / cancel, DANFSe PDF and XML.

use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::filters::{By, PERSON, REAIS, Table};
use super::{ById, Listing, RecordsMut, req_str, transition};
use crate::DocKind;
use crate::api::{ApiError, ApiResult, Errors, Record, parse_body, s};
use crate::auth::AuthCtx;
use crate::documents;
use crate::store::{App, OrgData};

/// The nfes, for [`transition`].
const NFES: RecordsMut = |o| &mut o.nfes;

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "issue_date",
    "nfe_number",
    "amount_cents",
    "status",
];

/// Minimum length of a cancellation reason.
const MIN_CANCEL_REASON: usize = 15;

/// The filters of `GET /v1/nfes` (with [`PERSON`]); amounts are in reais.
pub const FILTERS: &Table = &[
    ("billing_account_id", By::Eq("billing_account_id")),
    ("company_id", By::Eq("company_id")),
    ("invoice_id", By::Eq("invoice_id")),
    ("payment_id", By::With(paid_by)),
    ("transaction_id", By::Eq("transaction_id")),
    ("status", By::Eq("status")),
    ("invoice_filter", By::With(invoice_filter)),
    ("nfe_number", By::Int("nfe_number")),
    ("nfe_series", By::Eq("nfe_series")),
    ("nfe_key", By::Eq("nfe_key")),
    ("external_id", By::Eq("external_id")),
    ("lc116_code", By::Eq("lc116_code")),
    ("service_code", By::Eq("service_code")),
    ("amount_min", By::AtLeast("amount_cents", REAIS)),
    ("amount_max", By::AtMost("amount_cents", REAIS)),
    ("created_after", By::Since("created_at")),
    ("created_before", By::Until("created_at")),
    ("issue_date_from", By::Since("issue_date")),
    ("issue_date_to", By::Until("issue_date")),
    ("cancelled_after", By::Since("cancelled_at")),
    ("cancelled_before", By::Until("cancelled_at")),
];

/// `GET /v1/nfes`: stored records, sorted and filtered.
pub const LIST: Listing = Listing {
    records: |o| &o.nfes,
    sortable: SORT,
    tables: &[&PERSON, FILTERS],
};

/// The NF-e of the invoice a payment paid.
fn paid_by(org: &OrgData, r: &Record, payment_id: &str) -> bool {
    org.payments
        .iter()
        .find(|p| s(p, "id") == Some(payment_id))
        .and_then(|p| s(p, "invoice_id"))
        .is_some_and(|inv| s(r, "invoice_id") == Some(inv))
}

fn invoice_filter(_: &OrgData, r: &Record, v: &str) -> bool {
    match v {
        "with" => s(r, "invoice_id").is_some(),
        "without" => s(r, "invoice_id").is_none(),
        _ => true,
    }
}

/// `POST /v1/nfes/{id}/issue`: `draft`, `pending` or `error` → `pending` (queued).
pub async fn issue(ById { app, ctx, id }: ById) -> ApiResult {
    transition(&app, &ctx, &id, NFES, |_, rec| {
        match s(rec, "status").unwrap_or_default() {
            "draft" | "pending" | "error" => {}
            "issued" => return Err(ApiError::invalid_state("NF-e já emitida.")),
            other => {
                return Err(ApiError::invalid_state(format!(
                    "NF-e no status {other} não pode ser emitida."
                )));
            }
        }
        rec.insert("status".into(), json!("pending"));
        rec.insert("error_message".into(), Value::Null);
        rec.insert("next_retry_at".into(), Value::Null);
        Ok(())
    })
}

/// `POST /v1/nfes/{id}/cancel` (`{reason}` ≥ 15 characters): `issued → pending_cancel`.
pub async fn cancel(ById { app, ctx, id }: ById, body: Bytes) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let reason = req_str(&body, "reason", &mut errors).map(str::to_string);
    if reason
        .as_deref()
        .is_some_and(|r| r.trim().chars().count() < MIN_CANCEL_REASON)
    {
        errors.add("reason", "deve ter no mínimo 15 caracteres");
    }
    errors.finish(StatusCode::BAD_REQUEST)?;
    transition(&app, &ctx, &id, NFES, |_, rec| {
        let status = s(rec, "status").unwrap_or_default().to_string();
        if status != "issued" {
            return Err(ApiError::invalid_state(format!(
                "Somente NF-e emitidas podem ser canceladas (status atual: {status})."
            )));
        }
        rec.insert("status".into(), json!("pending_cancel"));
        let attempts = rec
            .get("cancel_attempts")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        rec.insert("cancel_attempts".into(), json!(attempts + 1));
        let meta = rec
            .entry("metadata")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = meta {
            m.insert("cancel_reason".into(), json!(reason));
        }
        Ok(())
    })
}

/// The NF-e if it has been authorized (PDF and XML exist), else 404.
fn issued(app: &App, ctx: &AuthCtx, id: &str) -> Result<(Record, Record), ApiError> {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.nfes, id).ok_or_else(ApiError::not_found)?;
    let nfe = org.nfes[idx].clone();
    if !documents::nfe_was_issued(&nfe) {
        return Err(ApiError::not_found());
    }
    Ok((nfe, org.organization.clone()))
}

/// `GET /v1/nfes/{id}/pdf` (DANFSe, `application/pdf`).
pub async fn pdf(ById { app, ctx, id }: ById) -> ApiResult {
    let (nfe, _) = issued(&app, &ctx, &id)?;
    let number = nfe["nfe_number"].to_string();
    Ok(documents::pdf_response(
        &app,
        DocKind::Nfe,
        &id,
        &format!("nfse-{number}.pdf"),
    ))
}

/// `GET /v1/nfes/{id}/xml` (`application/xml`).
pub async fn xml(ById { app, ctx, id }: ById) -> ApiResult {
    let (nfe, organization) = issued(&app, &ctx, &id)?;
    let number = nfe["nfe_number"].to_string();
    Ok(documents::xml_response(
        documents::nfe_xml(&nfe, &organization),
        &format!("nfse-{number}.xml"),
    ))
}
