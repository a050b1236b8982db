//! Each open point of the contract settled from what `check`'s reads saw: the forms of dates,
//! whether records carry their companions, the money scale, the transport's headers and the
//! token's own claims (docs/contract.md, "Readings").

use std::collections::BTreeSet;

use serde_json::Value;

use super::Row;
use crate::format::money::{Scale, Settlement, settle_invoice, settle_line_item};

/// What the answers showed, for settling the open points.
#[derive(Debug, Default)]
pub(super) struct Seen {
    pub(super) headers: BTreeSet<String>,
    pub(super) invoices: Vec<Value>,
    pub(super) due_dates: BTreeSet<&'static str>,
    pub(super) date_times: BTreeSet<&'static str>,
    pub(super) line_items: Option<bool>,
    pub(super) account_customer: Option<bool>,
    /// Payments awaiting payment on the first page, and how many carry a Pix code or a
    /// digitable line in their metadata (reading `payment_codes`).
    pub(super) payment_codes: (usize, usize),
    /// Whether the account list's records carry `customer` (`None`: no account listed).
    pub(super) listed_account_customer: Option<bool>,
}

/// Which alternative of `due_date_form` a due date is written in.
pub(super) fn due_date_form(text: &str) -> &'static str {
    match text.get(10..) {
        Some("") => "date_only",
        Some("T03:00:00Z" | "T00:00:00-03:00" | "T03:00Z") => "sao_paulo_midnight",
        Some("T00:00:00Z" | "T00:00Z" | "T00:00:00.000Z") => "utc_midnight",
        _ => "another instant",
    }
}

/// Which alternative of `datetime_form` a date-time is written in.
pub(super) fn date_time_form(text: &str) -> &'static str {
    let seconds = text.get(16..17) == Some(":");
    match (text.ends_with('Z') || text.ends_with('z'), seconds) {
        (true, true) => "utc_z",
        (true, false) => "utc_z (minute precision)",
        (false, _) if text.len() > 19 => "offset",
        _ => "unreadable",
    }
}

fn words(set: &BTreeSet<&'static str>) -> String {
    set.iter().copied().collect::<Vec<_>>().join(" + ")
}

/// `account_customer`: the single read and the list, each carrying the customer or not.
fn account_customer_row(seen: &Seen) -> Row {
    let point = "account_customer";
    let on = |found: bool| if found { "present" } else { "absent" };
    match (seen.account_customer, seen.listed_account_customer) {
        (Some(get), list) => {
            let reading = match (get, list) {
                (true, Some(true)) => "embedded_in_lists",
                (true, _) => "embedded_on_get",
                (false, _) => "when_loaded",
            };
            let list = list.map_or("no account listed", on);
            Row::fine(
                point,
                reading,
                format!("{} on the single read, {list} in the list", on(get)),
            )
        }
        (None, _) => Row::fine(point, "not settled", "nothing read"),
    }
}

/// One row per open point, settled from what was seen where it can be; a point that takes
/// a write says how to settle it in the sandbox (docs/contract.md, "Readings").
pub(super) fn readings(seen: &Seen, token: &str, api_url: &str) -> Vec<Row> {
    let not_read = |point: &str, how: &str| {
        Row::fine(
            point,
            "not settled read-only",
            format!("the server handles every alternative: {how}"),
        )
    };
    let mut rows = vec![token_row(token), scope_row(token), totals_row(seen)];
    rows.push(not_read(
        "line_item_input_unit",
        "billing_invoices_create checks each invoice it creates; settle it in the sandbox with a throwaway draft invoice",
    ));
    rows.extend(date_rows(seen));
    rows.push(not_read(
        "delete_answer",
        "200 {deleted} and 204 are both success; settle it in the sandbox by deleting a throwaway draft invoice",
    ));
    rows.push(not_read(
        "idempotency_header",
        "both names are sent with the same key; settle it in the sandbox by repeating a throwaway write under one name",
    ));
    let embedded = |found: Option<bool>, yes: &str, no: &str, what: &str| match found {
        Some(true) => Row::fine(what, yes, "present on the single read"),
        Some(false) => Row::fine(what, no, "absent on the single read"),
        None => Row::fine(what, "not settled", "nothing read"),
    };
    rows.push(embedded(
        seen.line_items,
        "embedded_on_get",
        "include_only",
        "line_items",
    ));
    rows.push(account_customer_row(seen));
    rows.push(not_read(
        "refund_result",
        "the answer's id tells the refunded payment from a new record; settle it in the sandbox by refunding a throwaway payment",
    ));
    rows.push(rate_limit_row(&seen.headers));
    rows.push(codes_row(seen.payment_codes));
    rows.push(not_read(
        "idempotent_methods",
        "keys are sent on every write; nothing relies on a DELETE replay",
    ));
    rows.extend(transport_rows(seen, api_url));
    rows
}

/// The date-time and due-date forms the answers used.
fn date_rows(seen: &Seen) -> [Row; 2] {
    let form = |point: &str, forms: &BTreeSet<&'static str>, none: &str, evidence: &str| match forms
        .is_empty()
    {
        true => Row::fine(point, "not settled", none),
        false => Row::fine(point, words(forms), evidence),
    };
    [
        form(
            "datetime_form",
            &seen.date_times,
            "no date-time seen",
            "the *_at members of the answers",
        ),
        form(
            "due_date_form",
            &seen.due_dates,
            "no due date seen",
            "due_date members of the answers",
        ),
    ]
}

/// The request id header, the host reached and the pagination form.
fn transport_rows(seen: &Seen, api_url: &str) -> [Row; 3] {
    let request_id = seen.headers.contains("request-id");
    [
        Row::fine(
            "request_id_header",
            if request_id {
                "Request-Id sent"
            } else {
                "no Request-Id seen"
            },
            "headers: ".to_owned() + &seen.headers.iter().cloned().collect::<Vec<_>>().join(" "),
        ),
        Row::fine("sandbox_host", "reached", api_url),
        Row::fine(
            "pagination",
            "page_meta",
            "every list answer's meta is checked against the contract above",
        ),
    ]
}

/// The `alg` of a JWT's header, or `None` for a token that is not a JWT.
fn jwt_alg(token: &str) -> Option<String> {
    let header = crate::access::jwt_part(token, 0)?;
    crate::access::jwt_part(token, 1)?;
    Some(
        header
            .get("alg")
            .and_then(Value::as_str)
            .map(crate::format::plain_line)
            .unwrap_or_else(|| "-".to_owned()),
    )
}

/// What a refused token says about reading `token_issuer`: nothing for a billing JWT.
pub(super) fn refused_kind(token: &str) -> String {
    match jwt_alg(token).as_deref() {
        Some("HS512") => String::new(),
        Some(alg) => format!(
            "; it is a {alg} JWT, not a billing HS512 JWT, so token_issuer reads billing_jwt here"
        ),
        None => "; it is not a JWT (billing tokens are HS512 JWTs)".to_owned(),
    }
}

/// Reading `token_issuer`, from the token Kobana has just taken on every read: a billing
/// HS512 JWT, or another JWT (an app OAuth token taken as a billing token), or an opaque one.
fn token_row(token: &str) -> Row {
    let Some(claims) = crate::access::jwt_part(token, 1) else {
        return Row::fine(
            "token_issuer",
            "opaque token",
            "Kobana took a token that is not a JWT; the server shows every tool",
        );
    };
    let text = |key: &str| {
        claims
            .get(key)
            .and_then(Value::as_str)
            .map(crate::format::plain_line)
            .unwrap_or_else(|| "-".to_owned())
    };
    let alg = jwt_alg(token).unwrap_or_else(|| "-".to_owned());
    let (reading, taken) = if alg == "HS512" {
        ("billing_jwt", "Kobana took a billing HS512 JWT")
    } else {
        (
            "kobana_app_oauth",
            "Kobana took a JWT that is not a billing JWT (another issuer's token works for billing)",
        )
    };
    Row::fine(
        "token_issuer",
        reading,
        format!(
            "{taken}: alg {alg}, iss {}, aud {}",
            text("iss"),
            text("aud")
        ),
    )
}

fn scope_row(token: &str) -> Row {
    let Some(words) = crate::access::jwt_part(token, 1)
        .as_ref()
        .and_then(crate::access::scope_words)
    else {
        return Row::fine(
            "scope_words",
            "no scope claim",
            "every tool is listed; Kobana decides",
        );
    };
    let unknown = crate::access::unrecognised_scopes(words.iter().map(String::as_str));
    let shown: Vec<String> = words
        .iter()
        .take(12)
        .map(|w| crate::format::plain_line(w))
        .collect();
    let reading = if unknown.is_empty() {
        "resource_level"
    } else {
        "other_vocabulary"
    };
    let evidence = if unknown.is_empty() {
        format!("scope: {}", shown.join(" "))
    } else {
        format!(
            "not recognised: {} (every tool is listed; Kobana decides)",
            unknown.join(" ")
        )
    };
    Row::fine("scope_words", reading, evidence)
}

fn totals_row(seen: &Seen) -> Row {
    let (mut names, mut cents, mut conflicts, mut silent) = (0, 0, 0, 0);
    let mut by = BTreeSet::new();
    for invoice in &seen.invoices {
        let Some(map) = invoice.as_object() else {
            continue;
        };
        match settle_invoice(map) {
            Settlement::Settled(scale, how) => {
                by.extend(how);
                if scale == Scale::Subcents {
                    names += 1
                } else {
                    cents += 1
                }
            }
            Settlement::Conflict(_) => conflicts += 1,
            Settlement::Unsettled => silent += 1,
        }
        for item in invoice["line_items"].as_array().into_iter().flatten() {
            match item.as_object().and_then(settle_line_item) {
                Some(Scale::Subcents) => names += 1,
                Some(Scale::Cents) => cents += 1,
                None => {}
            }
        }
    }
    let reading = match (names, cents, conflicts) {
        (_, _, 1..) => "inconsistent",
        (0, 0, _) => "not settled",
        (_, 0, _) => "subcents",
        (0, _, _) => "cents",
        _ => "mixed",
    };
    let evidence = format!(
        "{} invoices: {names} read as subcents, {cents} as cents, {conflicts} inconsistent, {silent} without evidence; by {}",
        seen.invoices.len(),
        if by.is_empty() {
            "no evidence".to_owned()
        } else {
            by.into_iter().collect::<Vec<_>>().join(", ")
        }
    );
    Row::fine("invoice_totals_unit", reading, evidence)
}

/// `(awaiting, with a code)` among the payments of a list page.
pub(super) fn payment_codes(data: &Option<Value>) -> (usize, usize) {
    let awaiting: Vec<&Value> = data
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| matches!(p["status"].as_str(), Some("pending" | "processing")))
        .collect();
    let coded = awaiting
        .iter()
        .filter(|p| {
            let mut codes = crate::format::pay_codes::PayCodes::default();
            codes.collect(&p["metadata"]);
            codes != crate::format::pay_codes::PayCodes::default()
        })
        .count();
    (awaiting.len(), coded)
}

fn codes_row((awaiting, coded): (usize, usize)) -> Row {
    let (reading, evidence) = match (awaiting, coded) {
        (0, _) => (
            "not settled",
            "no payment awaiting payment on the first page".to_owned(),
        ),
        (n, 0) => (
            "pay_answer_only",
            format!("{n} payment(s) awaiting payment, no code in their metadata"),
        ),
        (n, c) => (
            "payment_metadata",
            format!("{c} of {n} payment(s) awaiting payment carry a code in their metadata"),
        ),
    };
    Row::fine("payment_codes", reading, evidence)
}

fn rate_limit_row(headers: &BTreeSet<String>) -> Row {
    let x = headers.iter().any(|h| h.starts_with("x-ratelimit-"));
    let bare = headers.iter().any(|h| h.starts_with("ratelimit-"));
    let reading = match (x, bare) {
        (true, false) => "x_ratelimit",
        (false, true) => "ratelimit",
        (true, true) => "both",
        (false, false) => "none seen",
    };
    Row::fine(
        "rate_limit_headers",
        reading,
        "the server reads only Retry-After",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_are_named_by_the_contracts_alternatives() {
        assert_eq!(due_date_form("2026-08-25"), "date_only");
        assert_eq!(due_date_form("2026-08-25T03:00:00Z"), "sao_paulo_midnight");
        assert_eq!(due_date_form("2026-08-25T00:00:00Z"), "utc_midnight");
        assert_eq!(due_date_form("2026-08-25T10:00:00Z"), "another instant");
        assert_eq!(
            date_time_form("2026-01-24T10:07Z"),
            "utc_z (minute precision)"
        );
        assert_eq!(date_time_form("2026-01-24T10:07:00Z"), "utc_z");
        assert_eq!(date_time_form("2026-01-24T10:07:00-03:00"), "offset");
    }
}
