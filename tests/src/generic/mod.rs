//! The generic responder: every operation of the contract without a hand-written route
//! (`crate::routes`) is answered here, after the gate has checked the request against the
//! contract. It answers the documented success status with a body made from the success
//! schema ([`synth`]) that the fake's own answer check passes, deterministic and readable:
//! the path's id echoed as the record's `id`, the organization's real ids where a member
//! names one (`billing_account_id`), `meta` honouring `page`/`per_page` or `limit`/`offset`.
//!
//! A small store per collection ([`store`]) keeps it coherent: a POST to a list's path
//! creates a record there, GET/PATCH/PUT/DELETE by id act on it (a deleted id is 404), and
//! the list lists what was created beside two seeded records. Anything stored is fitted
//! into the schema it is answered under, member by member, so every answer stays on the
//! contract. Binary operations answer real bytes (a PDF, an NF-e XML).

pub mod request;
pub mod store;
pub mod synth;

use std::collections::HashMap;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use crate::api::{ApiError, Record};
use crate::auth::AuthCtx;
use crate::contract::{Field, Operation, check_field, contract, percent_decode_path, query_pairs};
use crate::store::{App, OrgData};
use synth::Synth;

/// The operation the gate matched, left in the request for the generic responder.
#[derive(Clone, Copy, Debug)]
pub struct Matched(pub &'static Operation);

/// Largest body the responder reads (the gate has read it already).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// The router's fallback: the generic answer of a matched operation, else 404.
pub async fn respond(State(app): State<App>, req: Request) -> Response {
    let matched = req.extensions().get::<Matched>().copied();
    let ctx = req.extensions().get::<AuthCtx>().cloned();
    let (Some(Matched(op)), Some(ctx)) = (matched, ctx) else {
        return ApiError::not_found().into_response();
    };
    let path = req.uri().path().to_owned();
    let query = query_pairs(req.uri().query().unwrap_or(""));
    let body = to_bytes(req.into_body(), MAX_BODY)
        .await
        .unwrap_or_default();
    let call = Call {
        op,
        params: contract()
            .find(&op.method, &path)
            .map(|(_, params)| {
                params
                    .into_iter()
                    .map(|(n, v)| (n.to_owned(), percent_decode_path(v)))
                    .collect()
            })
            .unwrap_or_default(),
        path,
        query,
        body: serde_json::from_slice::<Map<String, Value>>(&body).unwrap_or_default(),
    };
    if let Some(binary) = &op.success.binary {
        return binary_answer(&call, binary);
    }
    let mut inner = app.lock();
    let org = inner.org(ctx.org());
    match call.answer(org) {
        Ok(value) => json_answer(op.success.status, &value),
        Err(err) => err.into_response(),
    }
}

/// One request the responder answers.
struct Call {
    op: &'static Operation,
    path: String,
    /// The path parameters, decoded, in template order.
    params: Vec<(String, String)>,
    query: Vec<(String, String)>,
    /// The JSON body's members (empty for none or a multipart body).
    body: Map<String, Value>,
}

/// What an answer schema holds.
enum Shape<'c> {
    /// `data` is an array of these.
    List(&'c Field),
    /// `data` is one record of this schema.
    Record(&'c Field),
    /// No `data` member: the answer is the record.
    Whole,
}

impl Call {
    /// The answer's schema.
    fn answer_field(&self) -> &'static Field {
        let success = &self.op.success;
        match (&success.schema, &success.field) {
            (Some(name), _) => contract()
                .schema(name)
                .expect("the contract's refs resolve"),
            (None, Some(field)) => field,
            (None, None) => unreachable!("JSON answers have a schema"),
        }
    }

    fn shape(&self) -> Shape<'static> {
        let answer = resolved(self.answer_field());
        let Some(data) = answer.fields.as_ref().and_then(|f| f.get("data")) else {
            return Shape::Whole;
        };
        let data = resolved(data);
        match &data.items {
            Some(item) if data.ty == Some(crate::contract::Type::Array) => Shape::List(item),
            _ => Shape::Record(data),
        }
    }

    /// The last path segment when it is a parameter: the record the path names.
    fn last_id(&self) -> Option<&str> {
        let last = self.op.path.rsplit('/').next()?;
        last.starts_with('{')
            .then(|| self.params.last().map(|(_, v)| v.as_str()))
            .flatten()
    }

    /// The concrete path up to the record id (the collection it lives in), or the whole
    /// concrete path when the path names no record.
    fn collection(&self) -> String {
        let path = self.path.trim_end_matches('/');
        match self.last_id() {
            Some(_) => path.rsplit_once('/').map_or(path, |(c, _)| c).to_owned(),
            None => path.to_owned(),
        }
    }

    /// Whether a GET of this same path lists records (so a POST here creates one).
    fn creates(&self) -> bool {
        self.op.method == "POST"
            && contract()
                .operations
                .iter()
                .any(|o| o.method == "GET" && o.path == self.op.path && o.success.schema.is_some())
    }

    fn answer(&self, org: &mut OrgData) -> Result<Value, ApiError> {
        let known = known_ids(org);
        let lookup = |name: &str| known.get(name).cloned();
        let seed = format!("{}{}", self.op.operation_id, self.path);
        let synth = Synth::full(contract(), &seed, &lookup);
        let collection = self.collection();
        if let Some(id) = self.last_id()
            && org.generic.deleted(&collection, id)
        {
            return Err(ApiError::not_found());
        }
        let mut answer = synth.value(self.answer_field(), "answer");
        match self.shape() {
            Shape::List(item) => {
                let items = self.list(org, &synth, item, &collection);
                page(self.op, &self.query, &mut answer, items);
            }
            Shape::Record(field) => {
                let record = self.record(org, &synth, field, &collection);
                answer["data"] = record;
            }
            Shape::Whole => {
                if let Some(id) = self.last_id() {
                    echo_id(&mut answer, id);
                }
                if self.op.method != "GET" {
                    fit(&mut answer, &self.body, self.answer_field(), &synth);
                }
            }
        }
        Ok(answer)
    }

    /// Every record of the collection (seeded on first use), each fitted into `item`.
    fn list(
        &self,
        org: &mut OrgData,
        synth: &Synth<'_>,
        item: &Field,
        collection: &str,
    ) -> Vec<Value> {
        if self.op.method != "GET" {
            return vec![synth.value(item, "item")];
        }
        let seed = |n: usize| -> Record {
            let id = crate::ids::derived_uuid(&format!("{collection}#{n}"));
            let mut value = synth.value(item, "item");
            echo_id(&mut value, &id);
            match value {
                Value::Object(map) => map,
                _ => Record::new(),
            }
        };
        let stored = org.generic.list(collection, seed).to_vec();
        stored
            .iter()
            .map(|record| {
                let mut value = synth.value(item, "item");
                if let Some(id) = crate::api::s(record, "id") {
                    echo_id(&mut value, id);
                }
                fit(&mut value, record, item, synth);
                value
            })
            .collect()
    }

    /// The record the operation answers: read, created, changed, deleted or acted on.
    fn record(
        &self,
        org: &mut OrgData,
        synth: &Synth<'_>,
        field: &Field,
        collection: &str,
    ) -> Value {
        let mut record = synth.value(field, "data");
        let id = match (self.last_id(), self.creates()) {
            (_, true) => {
                let n = org.generic.next_number();
                Some(crate::ids::derived_uuid(&format!("{collection}+{n}")))
            }
            (Some(id), false) => Some(id.to_owned()),
            (None, false) => self.params.last().map(|(_, v)| v.clone()),
        };
        if let Some(id) = &id {
            echo_id(&mut record, id);
            if let Some(stored) = org.generic.get(collection, id) {
                fit(&mut record, &stored.clone(), field, synth);
            }
        }
        let writes = matches!(self.op.method.as_str(), "PATCH" | "PUT") || self.creates();
        if writes {
            fit(&mut record, &self.body, field, synth);
        }
        match (self.op.method.as_str(), &id, &record) {
            ("DELETE", Some(id), _) if self.last_id().is_some() => {
                org.generic.delete(collection, id);
            }
            (_, Some(_), Value::Object(map)) if writes => {
                org.generic.put(collection, map.clone());
            }
            _ => {}
        }
        record
    }
}

/// The named schema a field refers to, followed through `ref`s.
fn resolved(field: &'static Field) -> &'static Field {
    match field.schema.as_deref().and_then(|n| contract().schema(n)) {
        Some(named) => resolved(named),
        None => field,
    }
}

/// The organization's first id of each kind a member may name.
fn known_ids(org: &OrgData) -> HashMap<&'static str, String> {
    let first = |records: &[Record]| {
        records
            .first()
            .and_then(|r| crate::api::s(r, "id"))
            .map(str::to_owned)
    };
    let kinds: [(&'static str, Option<String>); 9] = [
        ("billing_account_id", first(&org.billing_accounts)),
        ("customer_id", first(&org.customers)),
        ("person_id", first(&org.customers)),
        ("invoice_id", first(&org.invoices)),
        ("subscription_id", first(&org.subscriptions)),
        ("plan_id", first(&org.plans)),
        ("product_id", first(&org.products)),
        ("payment_id", first(&org.payments)),
        ("nfe_id", first(&org.nfes)),
    ];
    kinds
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect()
}

/// Sets `value.id` to `id` when the value is an object with an `id` member of the same kind
/// (a uuid stays a uuid).
fn echo_id(value: &mut Value, id: &str) {
    let Some(map) = value.as_object_mut() else {
        return;
    };
    let fits = match map.get("id") {
        Some(Value::String(made)) => !crate::ids::is_uuid(made) || crate::ids::is_uuid(id),
        _ => false,
    };
    if fits {
        map.insert("id".to_owned(), Value::String(id.to_owned()));
    }
}

/// Copies into `value` each member of `source` that `field` lists and that is valid there
/// alone: what was sent or stored shows, and the answer stays on the contract.
fn fit(value: &mut Value, source: &Map<String, Value>, field: &Field, synth: &Synth<'_>) {
    let field = synth.resolve(field);
    let (Some(map), Some(fields)) = (value.as_object_mut(), field.fields.as_ref()) else {
        return;
    };
    for (name, v) in source {
        if let Some(f) = fields.get(name)
            && check_field(f, v, name).is_empty()
        {
            map.insert(name.clone(), v.clone());
        }
    }
}

/// One page of `items` into `answer.data`, with `meta` saying which.
fn page(op: &Operation, query: &[(String, String)], answer: &mut Value, items: Vec<Value>) {
    let number = |name: &str, default: usize| {
        query
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(default)
    };
    let total = items.len();
    let (skip, take) = if op.query.contains_key("per_page") {
        let (page, per_page) = (number("page", 1).max(1), number("per_page", 20).max(1));
        if let Some(meta) = answer.get_mut("meta").filter(|m| m.is_object()) {
            meta["total"] = total.into();
            meta["page"] = page.into();
            meta["per_page"] = per_page.into();
            meta["total_pages"] = total.div_ceil(per_page).into();
        }
        ((page - 1) * per_page, per_page)
    } else if op.query.contains_key("limit") {
        let (offset, limit) = (number("offset", 0), number("limit", 100).max(1));
        if let Some(meta) = answer.get_mut("meta").filter(|m| m.is_object()) {
            meta["total"] = total.into();
            meta["limit"] = limit.into();
            meta["offset"] = offset.into();
        }
        (offset, limit)
    } else {
        (0, total)
    };
    answer["data"] = Value::Array(items.into_iter().skip(skip).take(take).collect());
}

fn json_answer(status: u16, value: &Value) -> Response {
    let mut resp = Response::new(Body::from(value.to_string()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json; charset=utf-8"),
    );
    resp
}

/// Real bytes of the documented media type: a PDF or an NF-e XML.
fn binary_answer(call: &Call, binary: &str) -> Response {
    let media = binary.trim_start_matches("content-type").trim();
    let id = call.params.last().map_or("documento", |(_, v)| v.as_str());
    let bytes = match media {
        "application/pdf" => crate::documents::build_pdf(
            crate::DocKind::Invoice,
            id,
            crate::store::DEFAULT_PDF_SIZE,
        ),
        _ => format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<documento id=\"{id}\">Kobana</documento>\n"
        )
        .into_bytes(),
    };
    let mut resp = Response::new(Body::from(bytes));
    if let Ok(v) = HeaderValue::from_str(media) {
        resp.headers_mut().insert(header::CONTENT_TYPE, v);
    }
    resp
}
