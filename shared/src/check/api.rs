//! `kobana-mcp check --token …`: every read operation the server uses, read-only, each
//! answer checked against the contract, then each open point settled from the answers.
//!
//! Only `GET`s are sent. A list's first record is read back through its `get`; documents
//! (PDF, XML) are checked by their headers and never read through.

use std::collections::BTreeSet;

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::Value;

use super::{Report, Row};
use crate::access::Resource;
use crate::access::slugs::{INVOICES, NFES, ORGANIZATION, PLANS};
use crate::format::money::{Scale, Settlement, settle_invoice, settle_line_item};
use crate::kobana::contract::contract;

/// The page every list probe asks for.
const PAGE: &[(&str, &str)] = &[("page", "1"), ("per_page", "20")];

/// The reading of a probe whose connection failed.
const UNREACHABLE: &str = "unreachable";

/// Most deviations shown in one row.
const SHOWN_DEVIATIONS: usize = 3;

/// The lists read back through their `get` (operations `<slug>.list` and `<slug>.get`, path
/// `/v1/<slug>`).
const LISTED: [Resource; 6] = [
    Resource::Customers,
    Resource::BillingAccounts,
    Resource::Subscriptions,
    Resource::Payments,
    Resource::Plans,
    Resource::Products,
];

/// What the answers showed, for settling the open points.
#[derive(Debug, Default)]
struct Seen {
    headers: BTreeSet<String>,
    invoices: Vec<Value>,
    due_dates: BTreeSet<&'static str>,
    date_times: BTreeSet<&'static str>,
    line_items: Option<bool>,
    account_customer: Option<bool>,
    /// Payments awaiting payment on the first page, and how many carry a Pix code or a
    /// digitable line in their metadata (reading `payment_codes`).
    payment_codes: (usize, usize),
    /// Whether the account list's records carry `customer` (`None`: no account listed).
    listed_account_customer: Option<bool>,
}

/// The probe of one Kobana account.
struct Prober {
    http: reqwest::Client,
    base: String,
    token: String,
    user_agent: String,
    rows: Vec<Row>,
    seen: Seen,
}

/// Checks the billing API at `api_url` with `token`. `Err` when the check cannot run at all
/// (no HTTP client, or Kobana refuses the token).
pub async fn run(api_url: &str, token: &str) -> Result<Report, String> {
    let http = crate::net::client_builder()
        .connect_timeout(std::time::Duration::from_secs(10))
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| format!("HTTP client: {e}"))?;
    let mut prober = Prober {
        http,
        base: format!("{}/v1", api_url.trim_end_matches('/')),
        token: token.to_owned(),
        user_agent: crate::config::Config::default().user_agent(),
        rows: Vec::new(),
        seen: Seen::default(),
    };
    prober.walk().await?;
    let mut rows = prober.rows;
    rows.extend(readings(&prober.seen, token, api_url));
    Ok(Report {
        target: api_url.to_owned(),
        rows,
    })
}

/// The id of the first record of a list's `data`.
fn first_id(data: &Option<Value>) -> Option<String> {
    let first = data.as_ref()?.as_array()?.first()?;
    Some(first.get("id")?.as_str()?.to_owned())
}

/// The id of the first record of `data` that `keep` accepts.
fn find_id(data: &Option<Value>, keep: impl Fn(&Value) -> bool) -> Option<String> {
    let found = data.as_ref()?.as_array()?.iter().find(|r| keep(r))?;
    Some(found.get("id")?.as_str()?.to_owned())
}

impl Prober {
    async fn walk(&mut self) -> Result<(), String> {
        self.fetch("organization.get", &[ORGANIZATION], &[]).await?;
        if self.rows.last().is_some_and(|r| r.reading == UNREACHABLE) {
            return Err(format!("cannot reach Kobana at {}", self.base));
        }
        for resource in LISTED {
            let segment = resource.slug();
            let data = self
                .fetch(&format!("{segment}.list"), &[segment], PAGE)
                .await?;
            if resource == Resource::Payments {
                self.seen.payment_codes = payment_codes(&data);
            }
            if resource == Resource::BillingAccounts
                && let Some(Value::Array(accounts)) = &data
                && !accounts.is_empty()
            {
                self.seen.listed_account_customer =
                    Some(accounts.iter().any(|a| a.get("customer").is_some()));
            }
            self.get_first(&format!("{segment}.get"), segment, first_id(&data))
                .await?;
            if resource == Resource::Plans
                && let Some(plan) = first_id(&data)
            {
                self.fetch("plans.items", &[PLANS, &plan, "items"], &[])
                    .await?;
            }
        }
        self.invoices().await?;
        self.nfes().await
    }

    /// `get` of `id` under `segment`, or a row saying there was nothing to read.
    async fn get_first(
        &mut self,
        get: &str,
        segment: &str,
        id: Option<String>,
    ) -> Result<(), String> {
        match id {
            Some(id) => {
                let data = self.fetch(get, &[segment, &id], &[]).await?;
                if get == "billing_accounts.get"
                    && let Some(data) = data
                {
                    self.seen.account_customer = Some(data.get("customer").is_some());
                }
            }
            None => self
                .rows
                .push(Row::fine(get, "not probed", "the list came back empty")),
        }
        Ok(())
    }

    async fn invoices(&mut self) -> Result<(), String> {
        let data = self.fetch("invoices.list", &[INVOICES], PAGE).await?;
        let owed = |r: &Value| r["amount_remaining_cents"].as_i64().is_some_and(|c| c > 0);
        let id = find_id(&data, owed).or_else(|| first_id(&data));
        if let Some(id) = &id {
            let one = self.fetch("invoices.get", &[INVOICES, id], &[]).await?;
            if let Some(one) = one {
                self.seen.line_items = Some(one.get("line_items").is_some());
                self.seen.invoices.push(one);
            }
        } else {
            self.get_first("invoices.get", INVOICES, None).await?;
        }
        for (op, view) in [
            ("invoices.pending_payment", "pending-payment"),
            ("invoices.pending_nfe", "pending-nfe"),
        ] {
            self.fetch(op, &[INVOICES, view], PAGE).await?;
        }
        let finalized = find_id(&data, |r| {
            r["status"].as_str().is_some_and(|s| s != "draft")
        });
        match finalized {
            Some(id) => {
                self.fetch("invoices.pdf", &[INVOICES, &id, "pdf"], &[])
                    .await?;
            }
            None => self.rows.push(Row::fine(
                "invoices.pdf",
                "not probed",
                "no finalized invoice on the first page",
            )),
        }
        Ok(())
    }

    async fn nfes(&mut self) -> Result<(), String> {
        let data = self.fetch("nfes.list", &[NFES], PAGE).await?;
        self.get_first("nfes.get", NFES, first_id(&data)).await?;
        let issued = find_id(&data, |r| r["status"] == "issued");
        for (op, document) in [("nfes.pdf", "pdf"), ("nfes.xml", "xml")] {
            match &issued {
                Some(id) => {
                    self.fetch(op, &[NFES, id, document], &[]).await?;
                }
                None => self.rows.push(Row::fine(
                    op,
                    "not probed",
                    "no issued NF-e on the first page",
                )),
            }
        }
        Ok(())
    }

    /// `GET /v1/<segments>` as operation `op`: one row, and the answer's `data` when it is
    /// JSON on the contract's success status. A 401 stops the whole check.
    async fn fetch(
        &mut self,
        op: &str,
        segments: &[&str],
        query: &[(&str, &str)],
    ) -> Result<Option<Value>, String> {
        let url = format!("{}/{}", self.base, segments.join("/"));
        let sent = self
            .http
            .get(&url)
            .query(query)
            .bearer_auth(&self.token)
            .header(reqwest::header::USER_AGENT, &self.user_agent)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .send()
            .await;
        let response = match sent {
            Ok(response) => response,
            Err(error) => {
                let why = if error.is_timeout() {
                    "timed out"
                } else {
                    UNREACHABLE
                };
                self.rows.push(Row::broken(op, why, format!("GET {url}")));
                return Ok(None);
            }
        };
        self.note_headers(response.headers());
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(self.answered(op, status, response).await);
        }
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let code = body["error"]["code"].as_str().unwrap_or("").to_owned();
        match status {
            401 => Err(format!(
                "Kobana refused the token (HTTP 401 {code}){}: pass a billing API token of this account",
                refused_kind(&self.token)
            )),
            403 => {
                let details = &body["error"]["details"];
                let evidence = format!(
                    "HTTP 403 {code}; required {}; granted {}",
                    details["required"], details["granted"]
                );
                self.rows
                    .push(Row::fine(op, "refused (no permission)", evidence));
                Ok(None)
            }
            _ => {
                self.rows.push(Row::broken(
                    op,
                    "error answer",
                    format!("HTTP {status} {code}"),
                ));
                Ok(None)
            }
        }
    }

    /// Checks a 2xx answer against the contract and notes what it shows.
    async fn answered(
        &mut self,
        op: &str,
        status: u16,
        response: reqwest::Response,
    ) -> Option<Value> {
        let Some(operation) = contract().operation(op) else {
            self.rows
                .push(Row::broken(op, "unknown operation", "not in the contract"));
            return None;
        };
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut problems = Vec::new();
        if !operation.allows(status) {
            problems.push(format!(
                "status {status}, the contract says {}",
                operation.status
            ));
        }
        let Some(schema) = operation.schema.as_deref() else {
            let media = operation.media_type.as_deref().unwrap_or("");
            if !content_type.starts_with(media) {
                problems.push(format!(
                    "content-type {content_type:?}, the contract says {media}"
                ));
            }
            drop(response);
            self.push_verdict(op, status, problems);
            return None;
        };
        let body: Option<Value> = response.json().await.ok();
        let Some(body) = body else {
            problems.push("answer is not JSON".to_owned());
            self.push_verdict(op, status, problems);
            return None;
        };
        for deviation in contract().check_answer(schema, &body) {
            problems.push(format!("{}: {}", deviation.field, deviation.kind));
        }
        self.push_verdict(op, status, problems);
        let data = body.get("data").cloned()?;
        self.note_values(&data, None, 0);
        if op == "invoices.list"
            && let Some(items) = data.as_array()
        {
            self.seen.invoices.extend(items.iter().cloned());
        }
        Some(data)
    }

    fn push_verdict(&mut self, op: &str, status: u16, problems: Vec<String>) {
        if problems.is_empty() {
            self.rows
                .push(Row::fine(op, "on contract", format!("HTTP {status}")));
            return;
        }
        let mut shown: Vec<String> = problems.iter().take(SHOWN_DEVIATIONS).cloned().collect();
        if problems.len() > SHOWN_DEVIATIONS {
            shown.push(format!("and {} more", problems.len() - SHOWN_DEVIATIONS));
        }
        self.rows.push(Row::broken(
            op,
            "OFF CONTRACT",
            format!("HTTP {status}: {}", shown.join("; ")),
        ));
    }

    fn note_headers(&mut self, headers: &HeaderMap) {
        for name in headers.keys() {
            let name = name.as_str();
            if name == "request-id"
                || name == "retry-after"
                || name.starts_with("x-ratelimit-")
                || name.starts_with("ratelimit-")
                || name.contains("idempot")
            {
                self.seen.headers.insert(name.to_owned());
            }
        }
    }

    /// Notes the forms of date-times and due dates in `value` (a few levels deep).
    fn note_values(&mut self, value: &Value, key: Option<&str>, depth: u8) {
        match value {
            Value::Object(map) if depth < 4 => {
                for (k, v) in map {
                    self.note_values(v, Some(k), depth + 1);
                }
            }
            Value::Array(items) if depth < 4 => {
                items
                    .iter()
                    .for_each(|v| self.note_values(v, key, depth + 1));
            }
            Value::String(text) => match key {
                Some(k) if crate::format::is_day_key(k) => {
                    self.seen.due_dates.insert(due_date_form(text));
                }
                Some(k) if k.ends_with("_at") => {
                    self.seen.date_times.insert(date_time_form(text));
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// Which alternative of `due_date_form` a due date is written in.
fn due_date_form(text: &str) -> &'static str {
    match text.get(10..) {
        Some("") => "date_only",
        Some("T03:00:00Z" | "T00:00:00-03:00" | "T03:00Z") => "sao_paulo_midnight",
        Some("T00:00:00Z" | "T00:00Z" | "T00:00:00.000Z") => "utc_midnight",
        _ => "another instant",
    }
}

/// Which alternative of `datetime_form` a date-time is written in.
fn date_time_form(text: &str) -> &'static str {
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
fn readings(seen: &Seen, token: &str, api_url: &str) -> Vec<Row> {
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
fn refused_kind(token: &str) -> String {
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
fn payment_codes(data: &Option<Value>) -> (usize, usize) {
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
