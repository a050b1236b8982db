//! What a profile changes on the wire: requests before a handler runs (line-item units,
//! date-time forms refused) and answers after the contract check (units, date forms,
//! embedded relations, the DELETE status). The store and the handlers keep the `ours` form.

use axum::body::{Body, to_bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use serde_json::{Map, Value, json};

use super::{DateTimeForm, DeleteAnswer, DueDateForm, MoneyUnit, PaymentCodes, Readings};
use crate::api::ApiError;
use crate::clock;
use crate::contract::{Field, Operation, Type, contract};

/// Schemas whose `*_subcents` members the `invoice_totals_unit` point covers.
const INVOICE_SCHEMAS: [&str; 2] = ["InvoiceV1", "InvoiceLineItemV1"];

/// The request body the handler gets under `readings`: `None` keeps it as sent. Under
/// `datetime_form = utc_z` a date-time with an offset is refused as Kobana's validator would.
pub fn request(
    readings: &Readings,
    operation: &Operation,
    body: &[u8],
) -> Result<Option<Bytes>, ApiError> {
    let Some(schema) = operation.body.as_ref().and_then(|b| b.schema.as_deref()) else {
        return Ok(None);
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(body) else {
        return Ok(None);
    };
    if readings.datetime_form == DateTimeForm::UtcZ {
        let mut offsets = Vec::new();
        if let Some(field) = contract().schema(schema) {
            offset_date_times(field, &value, "", &mut offsets);
        }
        if !offsets.is_empty() {
            let mut details = Map::new();
            for at in offsets {
                details.insert(at, json!(["deve ser uma data-hora em UTC, terminada em Z"]));
            }
            return Err(ApiError::validation(StatusCode::BAD_REQUEST, details));
        }
    }
    if readings.line_item_input_unit == MoneyUnit::Cents && operation.id == "invoices.create" {
        // The fake stores subcentavos: a unit read as centavos is 100× what it would be.
        if let Some(Value::Array(items)) = value.get_mut("line_items") {
            for item in items {
                if let Some(unit) = item.get("unit_amount_subcents").and_then(Value::as_f64) {
                    item["unit_amount_subcents"] = json!(unit * 100.0);
                }
            }
        }
        return Ok(Some(Bytes::from(value.to_string())));
    }
    Ok(None)
}

/// Collects the paths of date-time members of `value` (per `field`) that are not UTC `Z`.
fn offset_date_times(field: &Field, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(name) = &field.schema {
        if let Some(named) = contract().schema(name) {
            offset_date_times(named, value, at, out);
        }
        return;
    }
    match value {
        Value::String(s) if field.format.as_deref() == Some("date-time") && !s.ends_with('Z') => {
            out.push(at.to_owned());
        }
        Value::Object(map) => {
            for (key, child) in map {
                if let Some(f) = field.fields.as_ref().and_then(|fields| fields.get(key)) {
                    let path = if at.is_empty() {
                        key.clone()
                    } else {
                        format!("{at}.{key}")
                    };
                    offset_date_times(f, child, &path, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = &field.items {
                for (n, child) in items.iter().enumerate() {
                    offset_date_times(item, child, &format!("{at}[{n}]"), out);
                }
            }
        }
        _ => {}
    }
}

/// The answer the caller gets under `readings`, from the handler's (already checked) one.
pub async fn answer(readings: &Readings, operation: &Operation, response: Response) -> Response {
    if readings.is_ours() || !response.status().is_success() {
        return response;
    }
    if operation.method == "DELETE" && readings.delete_answer == DeleteAnswer::NoContent204 {
        let mut empty = Response::new(Body::empty());
        *empty.status_mut() = StatusCode::NO_CONTENT;
        return empty;
    }
    let Some(schema) = operation.success.schema.as_deref() else {
        return response;
    };
    let (mut parts, body) = response.into_parts();
    let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    if let Some(field) = contract().schema(schema) {
        let strip = Strip {
            account_customer: !readings.account_customer.carried_by(&operation.id),
        };
        rewrite(readings, &strip, field, schema, None, &mut value);
    }
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(value.to_string()))
}

/// The relations an answer leaves out under the profile.
struct Strip {
    /// `BillingAccountV1.customer` (reading `account_customer`, by operation).
    account_customer: bool,
}

/// Rewrites `value` (described by `field`, a member `key` of schema `owner`) in place.
fn rewrite(
    readings: &Readings,
    strip: &Strip,
    field: &Field,
    owner: &str,
    key: Option<&str>,
    value: &mut Value,
) {
    if let Some(name) = &field.schema {
        if let Some(named) = contract().schema(name) {
            rewrite(readings, strip, named, name, None, value);
        }
        return;
    }
    match value {
        Value::Object(map) => {
            if owner == "InvoiceV1" && !readings.line_items.embeds() {
                map.remove("line_items");
            }
            if owner == "BillingAccountV1" && strip.account_customer {
                map.remove("customer");
            }
            if owner == "PaymentV1" && readings.payment_codes == PaymentCodes::PayAnswerOnly {
                // The fixture's own names for the codes (`tests/fixtures/payments.json`).
                if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
                    metadata.remove("bank_slip");
                    metadata.remove("pix");
                }
            }
            let Some(fields) = &field.fields else { return };
            for (name, child) in map.iter_mut() {
                if let Some(f) = fields.get(name) {
                    rewrite(readings, strip, f, owner, Some(name), child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = &field.items {
                items
                    .iter_mut()
                    .for_each(|v| rewrite(readings, strip, item, owner, key, v));
            }
        }
        Value::String(text) if field.format.as_deref() == Some("date-time") => {
            let rewritten = if key == Some("due_date") {
                due_date(readings.due_date_form, text)
            } else {
                date_time(readings.datetime_form, text)
            };
            if let Some(new) = rewritten {
                *text = new;
            }
        }
        Value::Number(n)
            if field.ty == Some(Type::Integer)
                && field.unit.as_deref() == Some("subcents")
                && INVOICE_SCHEMAS.contains(&owner)
                && readings.invoice_totals_unit == MoneyUnit::Cents =>
        {
            if let Some(subcents) = n.as_i64() {
                *value = json!((subcents as f64 / 100.0).round() as i64);
            }
        }
        _ => {}
    }
}

/// A due date (stored as São Paulo midnight) in `form`.
fn due_date(form: DueDateForm, text: &str) -> Option<String> {
    let day = clock::local_day(clock::parse_date_or_datetime(text)?);
    let date = clock::format_date(day);
    Some(match form {
        DueDateForm::SaoPauloMidnight => return None,
        DueDateForm::UtcMidnight => format!("{date}T00:00:00Z"),
        DueDateForm::DateOnly => date,
    })
}

/// A date-time in `form`: UTC `Z`, without seconds when they are zero.
fn date_time(form: DateTimeForm, text: &str) -> Option<String> {
    match form {
        DateTimeForm::Offset => None,
        DateTimeForm::UtcZ => Some(clock::format_utc_short(clock::parse_datetime(text)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn due_dates_and_date_times_in_each_form() {
        let stored = "2026-08-25T03:00:00Z";
        assert_eq!(due_date(DueDateForm::SaoPauloMidnight, stored), None);
        assert_eq!(
            due_date(DueDateForm::UtcMidnight, stored).as_deref(),
            Some("2026-08-25T00:00:00Z")
        );
        assert_eq!(
            due_date(DueDateForm::DateOnly, stored).as_deref(),
            Some("2026-08-25")
        );
        assert_eq!(
            date_time(DateTimeForm::UtcZ, "2026-08-20T12:00:00-03:00").as_deref(),
            Some("2026-08-20T15:00Z")
        );
        assert_eq!(
            date_time(DateTimeForm::UtcZ, "2026-08-20T12:00:07-03:00").as_deref(),
            Some("2026-08-20T15:00:07Z")
        );
    }
}
