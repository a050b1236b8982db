//! `kobana-mcp check --token …`: every read operation the server uses, read-only, each
//! answer checked against the contract, then each open point settled from the answers.
//!
//! Only `GET`s are sent. A list's first record is read back through its `get`; documents
//! (PDF, XML) are checked by their headers and never read through.

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::Value;

use super::readings::{Seen, date_time_form, due_date_form, payment_codes, readings, refused_kind};
use super::{Report, Row};
use crate::access::slugs::{BILLING_ACCOUNTS, CUSTOMERS, INVOICES, NFES, ORGANIZATION, PLANS};
use crate::access::{BearerToken, Resource};
use crate::kobana::contract::contract;

/// The page every list probe asks for.
pub(super) const PAGE: &[(&str, &str)] = &[("page", "1"), ("per_page", "20")];

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

/// The probe of one Kobana account: its own client, bound to the operator's token (every
/// probe sends it; none takes one), which reads raw statuses and headers the server's
/// [`crate::kobana::BoundClient`] would settle itself.
pub(super) struct Prober {
    http: reqwest::Client,
    base: String,
    token: BearerToken,
    user_agent: String,
    pub(super) rows: Vec<Row>,
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
        token: BearerToken::new(token),
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
pub(super) fn first_id(data: &Option<Value>) -> Option<String> {
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
        let (mut customer, mut account) = (None, None);
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
            let got = self
                .get_first(&format!("{segment}.get"), segment, first_id(&data))
                .await?;
            match segment {
                CUSTOMERS => customer = first_id(&data),
                BILLING_ACCOUNTS => account = got,
                _ => {}
            }
            if resource == Resource::Plans
                && let Some(plan) = first_id(&data)
            {
                self.fetch("plans.items", &[PLANS, &plan, "items"], &[])
                    .await?;
            }
        }
        self.invoices().await?;
        self.nfes().await?;
        super::ledger::probe(self, customer, account).await
    }

    /// `get` of `id` under `segment`, or a row saying there was nothing to read.
    pub(super) async fn get_first(
        &mut self,
        get: &str,
        segment: &str,
        id: Option<String>,
    ) -> Result<Option<Value>, String> {
        let Some(id) = id else {
            let row = Row::fine(get, "not probed", "the list came back empty");
            self.rows.push(row);
            return Ok(None);
        };
        let data = self.fetch(get, &[segment, &id], &[]).await?;
        if get == "billing_accounts.get"
            && let Some(data) = &data
        {
            self.seen.account_customer = Some(data.get("customer").is_some());
        }
        Ok(data)
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
    pub(super) async fn fetch(
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
            .bearer_auth(self.token.expose())
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
                refused_kind(self.token.expose())
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
