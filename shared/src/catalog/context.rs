//! What a tool handler gets: the caller, the Kobana client, and helpers that turn Kobana's
//! answers into results a model can use.

use std::sync::Arc;

use reqwest::Method;
use serde_json::{Map, Value, json};

pub use super::arg_values::{
    MAX_NFE_REASON_CHARS, MAX_REASON_CHARS, date_arg, date_range, push_opt, reason_arg, ref_arg,
    text_arg, uuid_arg,
};
pub use super::planned::{PlannedWrite, WriteGate};
use super::{Output, Paging, ToolError, schemas};
use crate::access::{Principal, Resource};
use crate::audit::CallAudit;
use crate::format::enrich;
use crate::kobana::{BoundClient, Envelope};

/// Largest page Kobana serves.
pub const MAX_PER_PAGE: u32 = 100;
/// The page size of a list that names none.
pub const DEFAULT_PER_PAGE: u32 = 20;

/// The context of one tool call.
#[derive(Debug, Clone)]
pub struct ToolCtx {
    /// The request's Kobana client, bound to the caller's token (see
    /// [`crate::kobana::BoundClient`]): every call below sends that token, and none takes one.
    pub kobana: BoundClient,
    /// The caller.
    pub principal: Arc<Principal>,
    /// `X-Idempotency-Key` for the write this call makes (derived from the confirmed request,
    /// when the person confirmed it).
    pub idempotency_key: Option<String>,
    /// Whether the write is sent, planned (dry run) or checked against a confirmation.
    pub gate: WriteGate,
    /// How list answers are shaped (compact rows, byte budget).
    pub rows: super::RowPolicy,
    /// The instance's customers' names by billing account (see [`super::lists::names`]).
    pub names: Arc<super::NameCache>,
    /// The client's narrowing (`X-MCP-Toolsets`, `X-MCP-Readonly`): the generic tools reach
    /// only the resources it names.
    pub narrowing: super::Narrowing,
    /// The billing day's clock: what "today" is for days overdue and default months.
    pub clock: crate::format::BillingClock,
    /// The running tool's declared result, set by the registry before the handler runs:
    /// [`ToolCtx::record`], [`ToolCtx::list`] and [`ToolCtx::write`] put their data under its
    /// key, so the key is written once, in the tool's [`ToolMeta`](super::ToolMeta).
    pub output: Option<Output>,
    /// The audit trail: every write sent is recorded there first, and a write without it is
    /// not sent (AU-2); read tools read it.
    pub audit: Option<CallAudit>,
}

impl ToolCtx {
    /// The member and catalog resource of the running tool's declared result (a list's
    /// member is its resource's slug). Only a tool declared with a custom output has neither;
    /// it builds its own result and never calls the helpers that need them (tested over the
    /// whole catalog).
    fn declared(&self) -> (&'static str, Option<Resource>) {
        match self.output {
            Some(Output::Record { key, schema }) => (key, Some(schema)),
            Some(Output::List(resource)) => (resource.slug(), Some(resource)),
            Some(Output::Keyed { key, .. }) => (key, None),
            Some(Output::Custom(_) | Output::Summary { .. }) | None => ("result", None),
        }
    }

    /// `GET` one record and return `{ <declared key>: record }`, enriched.
    pub async fn record(
        &self,
        segments: &[&str],
        query: &[(String, String)],
    ) -> Result<Value, ToolError> {
        let envelope = self.kobana.get(segments, query).await?;
        Ok(wrap(self.declared().0, envelope.data))
    }

    /// `GET` Kobana's `data` at `segments`, enriched (`*_brl`, `*_sao_paulo`) but under no
    /// key: a part of an answer.
    pub async fn data(
        &self,
        segments: &[&str],
        query: &[(String, String)],
    ) -> Result<Value, ToolError> {
        let mut data = self.kobana.get(segments, query).await?.data;
        enrich(&mut data);
        Ok(data)
    }

    /// `GET` a list page and return `{ <slug>: [rows], page, per_page, total, total_pages,
    /// next_page, returned }`: compact rows, or `paging.fields`, under the byte budget (see
    /// `catalog::lists::shaping`).
    pub async fn list(
        &self,
        segments: &[&str],
        paging: &Paging,
        query: Vec<(String, String)>,
    ) -> Result<Value, ToolError> {
        let Some(resource) = self.declared().1 else {
            return Err(ToolError::InvalidArguments(
                "esta tool não declara uma lista".to_owned(),
            ));
        };
        let fields = super::lists::shaping::check(resource, paging.fields.as_deref())?;
        let result = self.list_records(segments, resource, paging, query).await?;
        Ok(super::lists::shaping::shape(self, resource, fields.as_deref(), result).await)
    }

    /// [`ToolCtx::list`] with Kobana's whole records (enriched) of `resource`, under its slug,
    /// for tools that embed a list in a `_get` answer.
    pub async fn list_records(
        &self,
        segments: &[&str],
        resource: Resource,
        paging: &Paging,
        mut query: Vec<(String, String)>,
    ) -> Result<Value, ToolError> {
        let page = paging.page.unwrap_or(1);
        if page == 0 {
            return Err(ToolError::InvalidArguments("`page` começa em 1".to_owned()));
        }
        let per_page = paging.per_page.unwrap_or(DEFAULT_PER_PAGE);
        if !(1..=MAX_PER_PAGE).contains(&per_page) {
            return Err(ToolError::InvalidArguments(format!(
                "`per_page` deve estar entre 1 e {MAX_PER_PAGE}; recebido {per_page}"
            )));
        }
        if let Some(sort_by) = &paging.sort_by {
            schemas::check_sort(resource.slug(), sort_by)?;
        }
        query.push(("page".to_owned(), page.to_string()));
        query.push(("per_page".to_owned(), per_page.to_string()));
        push_opt(&mut query, "sort_by", paging.sort_by.as_deref());
        push_opt(
            &mut query,
            "sort_order",
            paging.sort_order.map(|o| o.as_str()),
        );
        let envelope = self.kobana.get(segments, &query).await?;
        Ok(list_result(
            resource.slug(),
            envelope.data,
            envelope.meta,
            page,
            per_page,
        ))
    }

    /// A write (`POST`/`PATCH`/`DELETE`) returning `{ <key>: data }`, enriched, under the
    /// call's [`WriteGate`]. The audit entry is written before it is sent and completed
    /// after; a store that refuses the entry sends nothing. A failure after which the write
    /// may have been applied (see [`crate::kobana::KobanaError::may_have_applied`]) becomes
    /// [`ToolError::UncertainOutcome`], which tells the person to check the record first.
    pub async fn write(
        &self,
        method: Method,
        segments: &[&str],
        body: Option<Value>,
    ) -> Result<Value, ToolError> {
        let key = self.declared().0;
        let planned = PlannedWrite::new(method, segments, body.as_ref());
        let envelope = self.send_write(planned).await?;
        Ok(wrap(key, envelope.data))
    }

    /// Sends `planned` under the call's [`WriteGate`] and answers Kobana's envelope as it came
    /// (what [`ToolCtx::write`] wraps; the generic tools shape it themselves).
    pub async fn send_write(&self, planned: PlannedWrite) -> Result<Envelope, ToolError> {
        match &self.gate {
            WriteGate::Open => {}
            WriteGate::Plan(slot) => {
                *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some(planned);
                return Err(ToolError::ConfirmationRequired);
            }
            WriteGate::Confirmed(confirmed) => {
                if planned.canonical() != confirmed.canonical() {
                    tracing::error!(
                        confirmed = %confirmed.path_shape(),
                        actual = %planned.path_shape(),
                        "the confirmed run would send another request: refused"
                    );
                    return Err(ToolError::ConfirmationMismatch);
                }
            }
        }
        let segments: Vec<&str> = planned.segments.iter().map(String::as_str).collect();
        let entry = self
            .audit
            .as_ref()
            .ok_or(ToolError::AuditUnavailable)?
            .begin(planned.method.as_str(), &segments, planned.body.as_ref())
            .await
            .map_err(|_| ToolError::AuditUnavailable)?;
        let deleting = planned.method == Method::DELETE;
        let sent = self
            .kobana
            .send(
                planned.method.clone(),
                &segments,
                &planned.query,
                planned.body.as_ref(),
                self.idempotency_key.as_deref(),
            )
            .await;
        entry.finish(sent.as_ref()).await;
        let mut envelope = sent.map_err(|error| {
            if error.may_have_applied() {
                ToolError::UncertainOutcome {
                    error: Box::new(error),
                    check_with: check_tool(&segments, planned.operation.is_some()),
                    repeat_safe: matches!(self.gate, WriteGate::Confirmed(_)),
                }
            } else {
                error.into()
            }
        })?;
        if deleting && envelope.data.is_null() {
            // Reading `delete_answer`: a 204 No Content is the same success as the document's
            // 200 {"deleted": true}.
            envelope.data = json!({"deleted": true});
        }
        Ok(envelope)
    }
}

/// The read tool that shows the record a write to `segments` changes (`generic`: the write
/// of a generic tool, checked with the generic read).
fn check_tool(segments: &[&str], generic: bool) -> String {
    if generic {
        return "billing_operations_read".to_owned();
    }
    match segments.first().copied().and_then(Resource::from_slug) {
        Some(
            resource @ (Resource::Customers
            | Resource::Subscriptions
            | Resource::Invoices
            | Resource::Payments
            | Resource::Nfes),
        ) => format!("billing_{}_get", resource.slug()),
        _ => "a tool de leitura correspondente".to_owned(),
    }
}

/// `{ key: data }` with money and dates made readable.
pub fn wrap(key: &str, mut data: Value) -> Value {
    enrich(&mut data);
    let mut map = Map::new();
    map.insert(key.to_owned(), data);
    Value::Object(map)
}

/// Builds the list result from Kobana's `data` and `meta`.
pub fn list_result(
    key: &str,
    mut data: Value,
    meta: Option<Value>,
    page: u32,
    per_page: u32,
) -> Value {
    enrich(&mut data);
    let count = data.as_array().map_or(0, Vec::len) as u64;
    let meta = meta.unwrap_or(Value::Null);
    let number = |k: &str| meta.get(k).and_then(Value::as_u64);
    let total = number("total").unwrap_or(count);
    let page = number("page").unwrap_or(u64::from(page));
    let per_page = number("per_page").unwrap_or(u64::from(per_page));
    let total_pages = number("total_pages")
        .unwrap_or_else(|| total.div_ceil(per_page.max(1)))
        .max(1);
    let next_page = (page < total_pages).then(|| page.saturating_add(1));
    let mut result = json!({
        "page": page,
        "per_page": per_page,
        "total": total,
        "total_pages": total_pages,
    });
    // Moved in, not through `json!`, which would deep-copy the whole list.
    result[key] = data;
    if let Some(next) = next_page {
        // Only when there is one: like a row, the envelope leaves nulls out (and its
        // schema types `next_page` as one integer, FH-5).
        result["next_page"] = json!(next);
        result["hint"] = json!(format!(
            "{total} no total; esta é a página {page} de {total_pages}. Para a próxima, chame de novo com page={next}."
        ));
    }
    result
}

/// The sentence every destructive tool's description ends with (CF-2/CF-5), so the model
/// knows who confirms.
macro_rules! destructive_description {
    ($text:expr) => {
        const_format::concatcp!($text, " Asks the person first (2026); else ask them.")
    };
}
pub(crate) use destructive_description;

impl ToolCtx {
    /// Describes a document Kobana serves (PDF, XML) without handing out its bytes:
    /// `{ <key>: { <id_key>: id, mime_type, size_bytes, resource_uri } }`. Only the response
    /// headers are read; the body is dropped unread. `size_bytes` is `null` when Kobana sends
    /// no `Content-Length`.
    pub async fn describe_document(
        &self,
        segments: &[&str],
        accept: &str,
        key: &str,
        id_key: &str,
        id: &str,
        resource_uri: String,
    ) -> Result<Value, ToolError> {
        let download = self.kobana.download(segments, accept).await?;
        let mime_type = download.media_type().unwrap_or_else(|| accept.to_owned());
        let size_bytes = download.content_length;
        drop(download);
        Ok(json!({ key: {
            id_key: id,
            "mime_type": mime_type,
            "size_bytes": size_bytes,
            "resource_uri": resource_uri,
        }}))
    }
}

/// The output schema of a document description (`billing_invoices_pdf`, `billing_nfes_xml`, …).
pub fn document_schema(key: &str, id_key: &str) -> Value {
    json!({
        "type": "object",
        "properties": { key: {
            "type": "object",
            "required": [id_key, "mime_type", "size_bytes", "resource_uri"]
        }},
        "required": [key]
    })
}

/// Makes an argument schema terse for `tools/list` (which must stay within 40 KB): optional
/// properties are typed `"string"` rather than `["string", "null"]` (a null is still
/// accepted), integer `format`s and `minimum: 0` go, and so does `additionalProperties:
/// false` (the registry refuses unknown argument names itself, listing the accepted ones).
/// The registry's generator applies it to every tool's input schema (test builds: the
/// results live in `data/tools.json`). For the same reason the toolsets
/// document argument structs, enums and self-explanatory fields with plain `//` comments: a
/// doc comment there becomes schema text in every `tools/list`.
#[cfg(test)]
pub fn compact_object(schema: &mut serde_json::Map<String, Value>) {
    let mut value = Value::Object(std::mem::take(schema));
    tidy(&mut value);
    if let Value::Object(map) = value {
        *schema = map;
    }
}

#[cfg(test)]
fn tidy(node: &mut Value) {
    let Some(map) = node.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(types)) = map.get("type")
        && types.len() == 2
        && types.contains(&json!("null"))
        && let Some(kind) = types.iter().find(|t| *t != "null").cloned()
    {
        map.insert("type".to_owned(), kind);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    map.remove("format");
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        map.remove("additionalProperties");
    }
    if map.get("minimum") == Some(&json!(0)) {
        map.remove("minimum");
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            children.values_mut().for_each(tidy);
        }
    }
    for key in ["items", "anyOf", "oneOf"] {
        match map.get_mut(key) {
            Some(Value::Array(children)) => children.iter_mut().for_each(tidy),
            Some(child) => tidy(child),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kobana::KobanaClient;
    use std::sync::Mutex;

    fn ctx(gate: WriteGate) -> ToolCtx {
        // A Kobana that is not there: a write that got as far as sending fails to connect.
        let config = crate::config::Config {
            kobana_api_url: "http://127.0.0.1:9".to_owned(),
            kobana_timeout: std::time::Duration::from_secs(2),
            ..crate::config::Config::default()
        };
        ToolCtx {
            kobana: KobanaClient::new(&config)
                .expect("client")
                .for_request(crate::access::BearerToken::new("opaque"), None),
            principal: Arc::new(
                Principal::from_token(crate::access::BearerToken::new("opaque"), 0)
                    .expect("principal"),
            ),
            idempotency_key: None,
            gate,
            rows: crate::catalog::RowPolicy::default(),
            names: Default::default(),
            narrowing: Default::default(),
            clock: Default::default(),
            output: None,
            audit: Some(crate::audit::CallAudit::for_call(
                Arc::new(crate::audit::Trail::new(
                    Arc::new(crate::audit::MemoryAudit::new()),
                    1,
                )),
                "billing_payments_refund",
                None,
                &Principal::from_token(crate::access::BearerToken::new("opaque"), 0)
                    .expect("principal"),
                None,
                Some(crate::audit::Confirmation::AskedConfirmed),
            )),
        }
    }

    #[tokio::test]
    async fn cf4_the_dry_run_captures_the_write_and_the_confirmed_run_sends_only_it() {
        let refund = ["payments", "5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60", "refund"];
        let body = json!({"amount_cents": 1000, "reason": "Desconto"});
        let slot = Arc::new(Mutex::new(None));
        let planned = ctx(WriteGate::Plan(slot.clone()))
            .write(Method::POST, &refund, Some(body.clone()))
            .await;
        assert!(matches!(planned, Err(ToolError::ConfirmationRequired)));
        let planned = slot.lock().unwrap().take().expect("captured");
        assert_eq!(planned.path(), format!("/v1/{}", refund.join("/")));
        assert_eq!(planned.path_shape(), "/v1/payments/{id}/refund");
        assert_eq!(
            planned.canonical(),
            r#"{"body":{"amount_cents":1000,"reason":"Desconto"},"method":"POST","path":"/v1/payments/5f0c2a1e-7b3d-4e8f-9a6b-1c2d3e4f5a60/refund"}"#
        );
        let confirmed = ctx(WriteGate::Confirmed(Arc::new(planned)));
        // Another body, another path, another method: refused before anything is sent.
        for (method, segments, body) in [
            (
                Method::POST,
                &refund[..],
                Some(json!({"reason": "Desconto"})),
            ),
            (
                Method::POST,
                &refund[..],
                Some(json!({"amount_cents": 100000, "reason": "Desconto"})),
            ),
            (
                Method::POST,
                &["payments", "9d8c7b6a-5e4f-4a3b-8c2d-1e0f9a8b7c6d", "refund"][..],
                Some(body.clone()),
            ),
            (Method::DELETE, &refund[..], Some(body.clone())),
        ] {
            let outcome = confirmed.write(method, segments, body).await;
            assert!(
                matches!(outcome, Err(ToolError::ConfirmationMismatch)),
                "{outcome:?}"
            );
        }
        // The same request goes out (and here finds no Kobana to connect to).
        let outcome = confirmed.write(Method::POST, &refund, Some(body)).await;
        assert!(matches!(outcome, Err(ToolError::Kobana(_))), "{outcome:?}");
    }

    /// LH-3: the token bound into a call's context, client and caller alike, is not in its
    /// `Debug` print (a context reaches log lines and panics through it).
    #[test]
    fn lh3_a_tool_contexts_debug_shows_no_token() {
        let token = crate::access::BearerToken::new("lh3-ctx.c2VjcmV0");
        let mut ctx = ctx(WriteGate::Open);
        ctx.kobana = KobanaClient::new(&crate::config::Config::default())
            .expect("client")
            .for_request(token.clone(), None);
        ctx.principal = Arc::new(Principal::from_token(token, 0).expect("principal"));
        for shown in [format!("{ctx:?}"), format!("{ctx:#?}")] {
            assert!(shown.contains("BoundClient"), "{shown}");
            assert!(
                !shown.contains("lh3-ctx") && !shown.contains("c2VjcmV0"),
                "{shown}"
            );
        }
    }

    #[test]
    fn t4_argument_checks_name_the_argument() {
        assert!(uuid_arg("id", "47378190-96da-4dac-b2ff-5d2a386ecbe0").is_ok());
        let e = uuid_arg("id", "FAT-2026-000812").unwrap_err().to_string();
        assert!(e.contains("`id`") && e.contains("UUID"), "{e}");
        assert_eq!(
            date_arg("d", Some(" 2026-08-31 ")).unwrap().as_deref(),
            Some("2026-08-31")
        );
        assert!(date_arg("d", None).unwrap().is_none());
        for bad in ["2026-02-30", "31/08/2026", "2026-8-1"] {
            let e = date_arg("due_date_to", Some(bad)).unwrap_err().to_string();
            assert!(
                e.contains("`due_date_to`") && e.contains("AAAA-MM-DD"),
                "{e}"
            );
        }
        let (a, b) = (Some("2026-09-01".to_owned()), Some("2026-08-01".to_owned()));
        assert!(date_range("from", &a, "to", &b).is_err());
        assert!(date_range("from", &b, "to", &a).is_ok());
        assert!(text_arg("reason", "   ", 10).is_err());
        assert!(text_arg("reason", "x".repeat(11).as_str(), 10).is_err());
    }

    /// What the curated tools (the reports and the audit trail included) may take of
    /// `tools/list`: the 40 KiB promise less 4 KiB kept for the four generic tools (WA-4).
    const CURATED_TOOLS_LIST_BYTES: usize = crate::catalog::MAX_TOOLS_LIST_BYTES - 4096;

    #[test]
    fn t1_full_tools_list_stays_within_40_kb() {
        let registry = super::super::registry();
        let tools: Vec<_> = registry.all().iter().map(|t| t.tool.clone()).collect();
        let bytes = serde_json::to_vec(&json!({ "tools": tools }))
            .unwrap()
            .len();
        println!("tools/list: {} tools, {bytes} bytes", tools.len());
        assert!(
            bytes <= crate::catalog::MAX_TOOLS_LIST_BYTES,
            "tools/list is {bytes} bytes (limit {} bytes)",
            crate::catalog::MAX_TOOLS_LIST_BYTES
        );
        let curated: Vec<_> = super::super::curated::tools()
            .iter()
            .map(|spec| registry.get(spec.name()).expect("listed").tool.clone())
            .collect();
        for tool in &curated {
            let bytes = serde_json::to_vec(tool).unwrap().len();
            println!("{bytes:>6}  {}", tool.name);
        }
        let curated_bytes = serde_json::to_vec(&json!({ "tools": curated }))
            .unwrap()
            .len();
        println!("the {} curated tools: {curated_bytes} bytes", curated.len());
        assert!(
            curated_bytes <= CURATED_TOOLS_LIST_BYTES,
            "the curated tools take {curated_bytes} bytes of tools/list (their share: {CURATED_TOOLS_LIST_BYTES})"
        );
    }
}
