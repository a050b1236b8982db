//! NF-e / NFS-e (`/v1/nfes`): lists, standalone creation, issue / cancel, DANFSe PDF and XML.

use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::{opt_str, req_str, valid_document};
use crate::DocKind;
use crate::api::{
    ApiError, ApiResult, Errors, Page, Params, Record, created, data, day_within, digits_of,
    list_response, parse_body, s,
};
use crate::auth::AuthCtx;
use crate::clock;
use crate::documents;
use crate::fixtures::normalize_nfe;
use crate::store::{App, OrgData};

const SORT: &[&str] = &[
    "created_at",
    "updated_at",
    "issue_date",
    "nfe_number",
    "amount_cents",
    "status",
];
const STATUSES: &[&str] = &[
    "draft",
    "pending",
    "processing",
    "issued",
    "pending_cancel",
    "canceling",
    "canceled",
    "error",
];

/// Minimum length of a cancellation reason.
const MIN_CANCEL_REASON: usize = 15;

type Q = Query<Vec<(String, String)>>;

/// `GET /v1/nfes`.
pub async fn list(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Query(q): Q,
) -> ApiResult {
    let p = Params::new(q);
    let mut errors = Errors::default();
    let page = Page::from_params(&p, SORT, &mut errors);
    let statuses = p.enum_list("status", STATUSES, &mut errors);
    let issue_from = p.date("issue_date_from", &mut errors);
    let issue_to = p.date("issue_date_to", &mut errors);
    let created_after = p.date("created_after", &mut errors);
    let created_before = p.date("created_before", &mut errors);
    let invoice_filter = p.get("invoice_filter");
    if invoice_filter.is_some_and(|f| !matches!(f, "with" | "without")) {
        errors.add("invoice_filter", "deve ser um de: with, without");
    }
    errors.finish(StatusCode::BAD_REQUEST)?;
    let invoice = p.get("invoice_id");
    let account = p.get("billing_account_id");
    let number = p.get("nfe_number");
    let key = p.get("nfe_key");
    let person_doc = p.get("person_document_number").map(digits_of);
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let items = org
        .nfes
        .iter()
        .filter(|r| {
            statuses.is_empty() || s(r, "status").is_some_and(|v| statuses.iter().any(|x| x == v))
        })
        .filter(|r| invoice.is_none_or(|v| s(r, "invoice_id") == Some(v)))
        .filter(|r| account.is_none_or(|v| s(r, "billing_account_id") == Some(v)))
        .filter(|r| {
            number.is_none_or(|v| r["nfe_number"].as_i64().is_some_and(|n| n.to_string() == v))
        })
        .filter(|r| key.is_none_or(|v| s(r, "nfe_key") == Some(v)))
        .filter(|r| match invoice_filter {
            Some("with") => s(r, "invoice_id").is_some(),
            Some("without") => s(r, "invoice_id").is_none(),
            _ => true,
        })
        .filter(|r| {
            person_doc.as_deref().is_none_or(|d| {
                r["customer_snapshot"]["document_number"]
                    .as_str()
                    .is_some_and(|doc| digits_of(doc) == d)
            })
        })
        .filter(|r| day_within(r, "issue_date", issue_from, issue_to))
        .filter(|r| day_within(r, "created_at", created_after, created_before))
        .map(|r| Value::Object(r.clone()))
        .collect();
    Ok(list_response(items, &page))
}

/// `GET /v1/nfes/{id}`.
pub async fn get(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.nfes, &id).ok_or_else(ApiError::not_found)?;
    Ok(data(Value::Object(org.nfes[idx].clone())))
}

/// Validates the tomador snapshot of a standalone NF-e.
fn customer_snapshot(body: &Record, errors: &mut Errors) -> Value {
    let Some(c) = body.get("customer").and_then(Value::as_object) else {
        errors.add("customer", "não pode ficar em branco");
        return Value::Null;
    };
    let mut sub = Errors::default();
    let name = req_str(c, "name", &mut sub).map(str::to_string);
    let email = req_str(c, "email", &mut sub).map(str::to_string);
    if email.as_deref().is_some_and(|e| !e.contains('@')) {
        sub.add("email", "não é um e-mail válido");
    }
    let doc_type = req_str(c, "document_type", &mut sub).map(str::to_string);
    if doc_type
        .as_deref()
        .is_some_and(|t| !matches!(t, "cpf" | "cnpj"))
    {
        sub.add("document_type", "deve ser um de: cpf, cnpj");
    }
    let doc = req_str(c, "document_number", &mut sub).map(str::to_string);
    if let Some(d) = &doc {
        match valid_document(d) {
            None => sub.add("document_number", "não é um CPF ou CNPJ válido"),
            Some(kind) if doc_type.as_deref().is_some_and(|t| t != kind) => {
                sub.add("document_type", "não corresponde ao documento informado")
            }
            Some(_) => {}
        }
    }
    for (field, msgs) in sub.into_map() {
        for m in msgs.as_array().into_iter().flatten() {
            errors.add(&format!("customer.{field}"), m.as_str().unwrap_or_default());
        }
    }
    let mut snap = Map::new();
    snap.insert("name".into(), json!(name));
    snap.insert("document_type".into(), json!(doc_type));
    snap.insert(
        "document_number".into(),
        json!(doc.as_deref().map(digits_of)),
    );
    snap.insert("email".into(), json!(email));
    snap.insert(
        "address".into(),
        c.get("address")
            .filter(|a| a.is_object())
            .cloned()
            .unwrap_or(Value::Null),
    );
    if let Some(phone) = c.get("phone").filter(|p| p.is_string()) {
        snap.insert("phone".into(), phone.clone());
    }
    Value::Object(snap)
}

/// `POST /v1/nfes`: a standalone NF-e, created as `draft`.
pub async fn create(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    body: Bytes,
) -> ApiResult {
    let body = parse_body(&body)?;
    let mut errors = Errors::default();
    let account = req_str(&body, "billing_account_id", &mut errors).map(str::to_string);
    let amount = match body.get("amount_cents") {
        Some(v) if v.as_i64().is_some_and(|n| n > 0) => v.as_i64(),
        None | Some(Value::Null) => {
            errors.add("amount_cents", "não pode ficar em branco");
            None
        }
        Some(_) => {
            errors.add("amount_cents", "deve ser um inteiro maior que 0");
            None
        }
    };
    let snapshot = customer_snapshot(&body, &mut errors);
    let invoice = opt_str(&body, "invoice_id", &mut errors).map(str::to_string);
    let mut text = Map::new();
    for key in [
        "service_code",
        "lc116_code",
        "service_description",
        "cnae_code",
        "nbs_code",
        "external_id",
    ] {
        if let Some(v) = opt_str(&body, key, &mut errors) {
            text.insert(key.to_string(), json!(v));
        }
    }
    let taxes = match body.get("taxes") {
        None | Some(Value::Null) => json!({"iss_rate": 0.02}),
        Some(t @ Value::Object(_)) => t.clone(),
        Some(_) => {
            errors.add("taxes", "deve ser um objeto");
            Value::Null
        }
    };

    let mut inner = app.lock();
    let id = inner.new_id("nfe");
    let public_id = inner.new_id("nfe-public");
    let org_id = ctx.org().to_string();
    let org = inner.org(&org_id);
    if let Some(a) = &account
        && org.billing_account(a).is_none()
    {
        errors.add("billing_account_id", "não encontrada");
    }
    if let Some(inv) = &invoice
        && OrgData::idx(&org.invoices, inv).is_none()
    {
        errors.add("invoice_id", "não encontrada");
    }
    errors.finish(StatusCode::UNPROCESSABLE_ENTITY)?;

    let now = clock::now_string();
    let mut rec = text;
    rec.insert("id".into(), json!(id));
    rec.insert("public_id".into(), json!(public_id));
    rec.insert("invoice_id".into(), json!(invoice));
    rec.insert("billing_account_id".into(), json!(account));
    rec.insert("company_id".into(), json!(org_id));
    rec.insert("status".into(), json!("draft"));
    rec.insert("amount_cents".into(), json!(amount));
    rec.insert("customer_snapshot".into(), snapshot);
    rec.insert("taxes".into(), taxes);
    rec.insert("created_at".into(), json!(now));
    rec.insert("updated_at".into(), json!(now));
    normalize_nfe(&mut rec, &org_id);
    org.nfes.push(rec.clone());
    Ok(created(Value::Object(rec)))
}

/// Applies a transition to an NF-e and answers with it.
fn transition(
    app: &App,
    ctx: &AuthCtx,
    id: &str,
    f: impl FnOnce(&mut Record) -> Result<(), ApiError>,
) -> ApiResult {
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    let idx = OrgData::idx(&org.nfes, id).ok_or_else(ApiError::not_found)?;
    let mut rec = org.nfes[idx].clone();
    f(&mut rec)?;
    rec.insert("updated_at".into(), json!(clock::now_string()));
    org.nfes[idx] = rec.clone();
    Ok(data(Value::Object(rec)))
}

/// `POST /v1/nfes/{id}/issue`: `draft`, `pending` or `error` → `pending` (queued).
pub async fn issue(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    transition(&app, &ctx, &id, |rec| {
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
pub async fn cancel(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> ApiResult {
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
    transition(&app, &ctx, &id, |rec| {
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
pub async fn pdf(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
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
pub async fn xml(
    State(app): State<App>,
    Extension(ctx): Extension<AuthCtx>,
    Path(id): Path<String>,
) -> ApiResult {
    let (nfe, organization) = issued(&app, &ctx, &id)?;
    let number = nfe["nfe_number"].to_string();
    Ok(documents::xml_response(
        documents::nfe_xml(&nfe, &organization),
        &format!("nfse-{number}.xml"),
    ))
}
