//! The registry: tool definitions built once, looked up by name, filtered per request.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};

use bytes::Bytes;

use rmcp::model::{JsonObject, Tool};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
#[cfg(test)]
mod generate;
#[cfg(test)]
use generate::generate;

use super::{ToolCtx, ToolError};
use crate::access::{Permission, Resource};

/// Largest `tools/list` answer the server promises (every tool listed), in bytes: what a
/// client's context pays before the first call.
pub const MAX_TOOLS_LIST_BYTES: usize = 40 * 1024;

/// What a tool does to the world. Decides the annotations and the confirmation rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Creates or changes something that can be changed back.
    Write {
        /// Repeating the call with the same arguments changes nothing more.
        idempotent: bool,
    },
    /// Deletes, cancels, voids or refunds, moves or grants money, or issues a fiscal document
    /// (CF-1): the person is asked first.
    Destructive {
        /// Repeating the call with the same arguments changes nothing more.
        idempotent: bool,
        /// The question the person is asked before it runs (CF-2).
        asks: Asks,
    },
}

/// The confirmation question of a destructive tool: which typed reading of its planned write
/// describes it to the person (`confirm::question`). Required by [`Effect::Destructive`], so
/// a destructive tool cannot be declared without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Asks {
    /// Remove a customer.
    DeleteCustomer,
    /// Cancel a subscription.
    CancelSubscription,
    /// Void an invoice.
    VoidInvoice,
    /// Delete a draft invoice.
    DeleteInvoice,
    /// Refund a payment.
    RefundPayment,
    /// Cancel an NF-e.
    CancelNfe,
    /// Finalize a draft invoice (it may charge a saved method and issue an NF-e).
    FinalizeInvoice,
    /// Issue the NF-e of an invoice.
    IssueInvoiceNfe,
    /// Issue (or retry) an NF-e.
    IssueNfe,
    /// Record an invoice as paid off the platform.
    MarkInvoicePaid,
    /// Undo an invoice's payment.
    UndoInvoicePayment,
    /// Apply an account's credits to an invoice.
    ApplyCredits,
    /// Any destructive operation the generic tool runs: its reviewed row's sentence
    /// (`catalog::operations`, `confirm::operation`).
    Operation,
}

/// The shape of a tool's structured result, for its `outputSchema`.
#[derive(Debug, Clone, Copy)]
pub enum Output {
    /// `{ <key>: { …one Kobana record… } }`, described by `kobana://billing/schemas/<schema>`.
    Record {
        /// Member holding the record (`customer`).
        key: &'static str,
        /// Catalog resource describing it (`Resource::Customers`).
        schema: Resource,
    },
    /// `{ <slug>: [rows], page, per_page, total, total_pages, returned, next_page }`: the rows
    /// of one resource under its slug (`next_page` only when there is one; `hint`, `cut` and
    /// `next_per_page` when they apply). The schema types the compact row's fields; served
    /// with whole records (`MCP_LIST_ROWS=full`), a row is any object ([`ToolDef::wire`]).
    List(Resource),
    /// `{ <key>: … }` that is not a catalog record, described by a schema of its own.
    Keyed {
        /// Member holding the data (`issuance`).
        key: &'static str,
        /// Its output schema.
        schema: fn() -> Value,
    },
    /// A result the handler builds whole, described by a schema of its own.
    Custom(fn() -> Value),
    /// Like [`Output::Custom`], with `content` a pt-BR text the tool writes from its result
    /// (for clients that show no structured content) instead of the JSON again.
    Summary {
        /// Its output schema.
        schema: fn() -> Value,
        /// The text of a result.
        text: fn(&Value) -> String,
    },
}

/// Everything about a tool except its handler.
#[derive(Debug, Clone, Copy)]
pub struct ToolMeta {
    /// `billing_<resource>_<verb>`.
    pub name: &'static str,
    /// Short human title.
    pub title: &'static str,
    /// When to use it and what it returns.
    pub description: &'static str,
    /// Toolset it belongs to.
    pub toolset: super::Toolset,
    /// The permission it requires; `None` for the server's own catalog.
    pub permission: Option<Permission>,
    /// What it does to the world.
    pub effect: Effect,
    /// Its structured result.
    pub output: Output,
}

type Handler = Arc<
    dyn Fn(ToolCtx, Value) -> Pin<Box<dyn Future<Output = Result<Value, ToolError>> + Send>>
        + Send
        + Sync,
>;

/// A tool as a toolset defines it: metadata and handler. The registry pairs it with its wire
/// definition from [`TOOLS_JSON`] to make a [`ToolDef`].
pub struct ToolSpec {
    pub(super) meta: ToolMeta,
    handler: Handler,
    /// Builds the definition from the code (schemars over the argument type): what
    /// [`TOOLS_JSON`] must equal. Test builds only, so the release binary carries neither
    /// the generator nor its cost at start-up.
    #[cfg(test)]
    generate: fn(&ToolMeta) -> Tool,
}

impl ToolSpec {
    /// Defines a tool whose handler takes arguments of type `A`.
    pub fn new<A, F, Fut>(meta: ToolMeta, handler: F) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(ToolCtx, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        let handler: Handler = Arc::new(move |ctx: ToolCtx, args: Value| {
            let handler = handler.clone();
            Box::pin(async move {
                // What the input schema cannot express still names its argument.
                let args: A = serde_path_to_error::deserialize(args).map_err(|e| {
                    let path = e.path().to_string();
                    ToolError::InvalidArguments(if path == "." {
                        e.inner().to_string()
                    } else {
                        format!("`{path}`: {}", e.inner())
                    })
                })?;
                handler(ctx, args).await
            })
        });
        Self {
            meta,
            handler,
            #[cfg(test)]
            generate: generate::<A>,
        }
    }

    /// The tool's name.
    #[cfg(test)]
    pub(super) fn name(&self) -> &'static str {
        self.meta.name
    }

    /// The definition as the code describes it (what [`TOOLS_JSON`] must hold).
    #[cfg(test)]
    pub(super) fn generated(&self) -> Tool {
        (self.generate)(&self.meta)
    }
}

/// One tool: metadata, wire definition and handler.
#[derive(Clone)]
pub struct ToolDef {
    /// Metadata.
    pub meta: ToolMeta,
    /// The definition `tools/list` shows (from [`TOOLS_JSON`]).
    pub tool: Tool,
    /// `tool` serialized as `tools/list` writes it, once (see `deferred::tool_list`).
    wire: Bytes,
    /// The same without its view links, for clients that render no view (see
    /// [`super::ui_links`]); `None` when the tool links none.
    wire_plain: Option<Bytes>,
    /// A list's definition for whole-record rows (`MCP_LIST_ROWS=full`): its rows are
    /// Kobana's records, typed `object` instead of the compact row's fields. (No list links
    /// a view, so no tool has both variants: `no_tool_has_both_wire_variants`.)
    wire_full: Option<Bytes>,
    /// The argument names its input schema declares.
    allowed_args: Vec<String>,
    handler: Handler,
}

impl std::fmt::Debug for ToolDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolDef")
            .field("name", &self.meta.name)
            .finish()
    }
}

/// The wire definitions of every tool, generated from the code by the
/// `tools_json_matches_the_code` test (`KOBANA_UPDATE_SNAPSHOTS=1` rewrites it). Loading it
/// costs a small JSON parse, where running schemars for 32 argument types cost ~0.9 ms of
/// every cold start.
pub const TOOLS_JSON: &str = include_str!("../../../data/tools.json");

impl ToolDef {
    /// `spec` with `tool` (its entry in [`TOOLS_JSON`]) as the wire definition.
    fn new(spec: ToolSpec, tool: Tool) -> Self {
        let allowed_args = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let wire = Bytes::from(serde_json::to_vec(&tool).expect("a tool serializes"));
        let wire_plain = super::ui_links::view_of(spec.meta.name).map(|_| {
            let plain = super::ui_links::without_links(&tool);
            Bytes::from(serde_json::to_vec(&plain).expect("a tool serializes"))
        });
        let wire_full = match spec.meta.output {
            Output::List(resource) => {
                let mut full = tool.clone();
                let mut schema = (*full.output_schema.clone().unwrap_or_default()).clone();
                if let Some(rows) = schema
                    .get_mut("properties")
                    .and_then(|p| p.get_mut(resource.slug()))
                {
                    rows["items"] = serde_json::json!({"type": "object"});
                }
                full.output_schema = Some(Arc::new(schema));
                Some(Bytes::from(
                    serde_json::to_vec(&full).expect("a tool serializes"),
                ))
            }
            _ => None,
        };
        Self {
            meta: spec.meta,
            tool,
            wire,
            wire_plain,
            wire_full,
            allowed_args,
            handler: spec.handler,
        }
    }

    /// The definition as a client sees it: with its view links when it may render views.
    pub fn tool_for(&self, views: bool) -> Tool {
        if views {
            self.tool.clone()
        } else {
            super::ui_links::without_links(&self.tool)
        }
    }

    /// The definition as `tools/list` writes it, serialized once: without view links for a
    /// client that renders no view; a list's rows typed as the compact row, or as any object
    /// when lists carry whole records (`rows.full_records`).
    pub fn wire_for(&self, views: bool, rows: super::RowPolicy) -> &Bytes {
        match (&self.wire_plain, &self.wire_full) {
            (Some(plain), _) if !views => plain,
            (_, Some(full)) if rows.full_records => full,
            _ => &self.wire,
        }
    }

    /// Runs the tool: checks argument names, then each value against the input schema
    /// (naming the argument and what to send), deserializes, calls the handler.
    pub async fn run(
        &self,
        mut ctx: ToolCtx,
        args: Option<JsonObject>,
    ) -> Result<Value, ToolError> {
        ctx.output = Some(self.meta.output);
        let args = args.unwrap_or_default();
        if let Some(unknown) = args.keys().find(|k| !self.allowed_args.contains(k)) {
            let allowed = if self.allowed_args.is_empty() {
                "nenhum".to_owned()
            } else {
                self.allowed_args.join(", ")
            };
            return Err(ToolError::InvalidArguments(format!(
                "argumento desconhecido `{unknown}`; argumentos aceitos: {allowed}"
            )));
        }
        if let Some(problem) = super::arg_check::explain(&self.tool.input_schema, &args) {
            return Err(ToolError::InvalidArguments(problem));
        }
        (self.handler)(ctx, Value::Object(args)).await
    }
}

/// All tools, in catalog order, with a name index.
#[derive(Debug)]
pub struct Registry {
    tools: Vec<ToolDef>,
    by_name: HashMap<&'static str, usize>,
}

impl Registry {
    /// The tools as the code defines them, without their wire definitions yet.
    pub(super) fn defined() -> Vec<ToolSpec> {
        let mut tools = super::curated::tools();
        tools.extend(super::operations::tools::tools());
        tools
    }

    fn build() -> Self {
        let mut definitions: HashMap<String, Tool> = serde_json::from_str::<Vec<Tool>>(TOOLS_JSON)
            .expect("data/tools.json holds tool definitions")
            .into_iter()
            .map(|t| (t.name.to_string(), t))
            .collect();
        let tools: Vec<ToolDef> = Self::defined()
            .into_iter()
            .map(|spec| {
                let definition = definitions.remove(spec.meta.name).unwrap_or_else(|| {
                    panic!(
                        "data/tools.json has no `{}`: run {UPDATE_TOOLS_JSON}",
                        spec.meta.name
                    )
                });
                ToolDef::new(spec, definition)
            })
            .collect();
        let by_name = tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.meta.name, i))
            .collect::<HashMap<_, _>>();
        assert_eq!(by_name.len(), tools.len(), "tool names are unique");
        Self { tools, by_name }
    }

    /// Every tool, in catalog order.
    pub fn all(&self) -> &[ToolDef] {
        &self.tools
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&ToolDef> {
        self.by_name.get(name).map(|&i| &self.tools[i])
    }
}

/// The command that rewrites `data/tools.json` from the code. It resolves the workspace's one
/// feature set, as every build of the quick loop does, so it recompiles only what changed.
pub const UPDATE_TOOLS_JSON: &str =
    "KOBANA_UPDATE_SNAPSHOTS=1 cargo test --workspace --features kobana-mcp/demo --lib tools_json";

/// The process-wide registry, built on first use.
pub fn registry() -> &'static Registry {
    static REGISTRY: LazyLock<Registry> = LazyLock::new(Registry::build);
    &REGISTRY
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `data/tools.json` is exactly what the code generates; `KOBANA_UPDATE_SNAPSHOTS=1`
    /// rewrites it (then rebuild: the file is compiled in).
    #[test]
    fn tools_json_matches_the_code() {
        let generated: Vec<Value> = Registry::defined()
            .iter()
            .map(|t| serde_json::to_value(t.generated()).expect("a tool serializes"))
            .collect();
        let update = std::env::var_os("KOBANA_UPDATE_SNAPSHOTS").is_some();
        assert!(
            !(update && std::env::var_os("CI").is_some()),
            "KOBANA_UPDATE_SNAPSHOTS is set under CI: the snapshot is checked there, never rewritten"
        );
        let snapshot: Vec<Value> = serde_json::from_str(TOOLS_JSON).expect("valid JSON");
        if update {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/tools.json");
            // One tool per line: diffs stay readable, and the file the binary embeds stays
            // small (indentation would add ~22 KB to the release binary).
            let lines: Vec<String> = generated
                .iter()
                .map(|t| serde_json::to_string(t).expect("serializes"))
                .collect();
            let text = format!("[\n{}\n]\n", lines.join(",\n"));
            std::fs::write(path, text).expect("data/tools.json is writable");
            // Straight to stderr: the test harness captures `eprintln!`, and the person who
            // ran the update wants to know what it did.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                rewrite_report(&snapshot, &generated)
            );
            return;
        }
        let names = |v: &[Value]| -> Vec<String> {
            v.iter()
                .map(|t| t["name"].as_str().unwrap_or("?").to_owned())
                .collect()
        };
        assert_eq!(names(&snapshot), names(&generated), "tool list differs");
        for (snap, code) in snapshot.iter().zip(&generated) {
            assert_eq!(
                snap, code,
                "data/tools.json is stale for {}: run {UPDATE_TOOLS_JSON}",
                code["name"]
            );
        }
    }

    /// What an update of `data/tools.json` did: the tools added, removed and changed, and
    /// the bytes of `tools/list` before and after (FH-6).
    fn rewrite_report(before: &[Value], after: &[Value]) -> String {
        let name = |t: &Value| t["name"].as_str().unwrap_or("?").to_owned();
        let find = |list: &[Value], n: &str| list.iter().find(|t| name(t) == n).cloned();
        let mut changed = Vec::new();
        for tool in after {
            match find(before, &name(tool)) {
                None => changed.push(format!("+{}", name(tool))),
                Some(old) if &old != tool => changed.push(name(tool)),
                Some(_) => {}
            }
        }
        changed.extend(
            before
                .iter()
                .filter(|t| find(after, &name(t)).is_none())
                .map(|t| format!("-{}", name(t))),
        );
        let bytes =
            |list: &[Value]| serde_json::to_vec(&json!({"tools": list})).map_or(0, |b| b.len());
        if changed.is_empty() {
            return format!(
                "tools_json: shared/data/tools.json unchanged ({} tools, tools/list {} bytes)",
                after.len(),
                bytes(after)
            );
        }
        format!(
            "tools_json: rewrote shared/data/tools.json: {} changed ({}), {} tools; tools/list {} bytes, was {}. Rebuild to embed it.",
            changed.len(),
            changed.join(", "),
            after.len(),
            bytes(after),
            bytes(before)
        )
    }

    #[test]
    fn fh6_the_snapshot_update_says_what_it_rewrote() {
        let before = vec![json!({"name": "a", "x": 1}), json!({"name": "b"})];
        let after = vec![json!({"name": "a", "x": 2}), json!({"name": "c"})];
        let report = rewrite_report(&before, &after);
        assert!(
            report.contains("rewrote shared/data/tools.json: 3 changed (a, +c, -b), 2 tools"),
            "{report}"
        );
        assert!(rewrite_report(&after, &after).contains("unchanged (2 tools"));
        // The command the stale-snapshot message gives resolves the workspace's one feature
        // set (QL-2), so it rebuilds only the crates that changed.
        assert!(UPDATE_TOOLS_JSON.contains("--workspace --features kobana-mcp/demo --lib"));
    }

    #[test]
    fn no_tool_has_both_wire_variants() {
        for tool in registry().all() {
            assert!(
                tool.wire_plain.is_none() || tool.wire_full.is_none(),
                "{} links a view and lists rows: `wire_for` would need a third variant",
                tool.meta.name
            );
        }
    }

    #[test]
    fn the_registry_takes_definitions_and_allowed_arguments_from_the_snapshot() {
        let tool = registry().get("billing_customers_list").expect("listed");
        assert_eq!(tool.tool.title.as_deref(), Some(tool.meta.title));
        assert!(tool.tool.output_schema.is_some());
        for arg in ["search", "kind", "page", "per_page"] {
            assert!(
                tool.allowed_args.iter().any(|a| a == arg),
                "{arg}: {:?}",
                tool.allowed_args
            );
        }
        let organization = registry().get("billing_organization_get").expect("listed");
        assert!(organization.allowed_args.is_empty());
    }

    #[test]
    fn no_type_level_doc_or_definition_reaches_an_input_schema() {
        for tool in registry().all() {
            let schema = &tool.tool.input_schema;
            assert!(
                !schema.contains_key("description"),
                "{}: root description {:?}",
                tool.meta.name,
                schema.get("description")
            );
            let text = Value::Object((**schema).clone()).to_string();
            for shape in ["\"$defs\"", "\"$ref\"", "\"anyOf\"", "\"oneOf\""] {
                assert!(
                    !text.contains(shape),
                    "{}: {shape} in {text}",
                    tool.meta.name
                );
            }
        }
    }

    #[test]
    fn every_destructive_tool_asks_its_own_question() {
        let mut seen = std::collections::HashSet::new();
        for tool in registry().all() {
            if let Effect::Destructive { asks, .. } = tool.meta.effect {
                assert!(seen.insert(asks), "{} reuses {asks:?}", tool.meta.name);
            }
        }
        assert_eq!(
            seen.len(),
            13,
            "CF-1's six, the three that charge or issue a fiscal document, WA-4's three and the generic one"
        );
    }

    /// NM-4: each limit is one constant, and what the wire says of it (`tools.json`: the
    /// schemas' bounds, the descriptions' numbers) follows the constant.
    #[test]
    fn nm4_limits_in_the_tool_definitions_follow_their_constants() {
        let tool = |name: &str| registry().get(name).expect(name).tool.clone();
        let create = tool("billing_invoices_create");
        let items = &create.input_schema["properties"]["line_items"];
        let max = super::super::curated::invoices::MAX_LINE_ITEMS;
        assert_eq!(items["maxItems"], json!(max), "{items}");
        let text = items["description"].as_str().unwrap_or_default();
        assert!(text.contains(&format!("1 to {max} ")), "{text}");
        let text = create.description.as_deref().unwrap_or_default();
        assert!(text.contains(&format!("1-{max} line_items")), "{text}");

        let cancel = tool("billing_nfes_cancel");
        let reason = &cancel.input_schema["properties"]["reason"];
        let min = super::super::curated::nfes::MIN_CANCEL_REASON;
        assert_eq!(reason["minLength"], json!(min), "{reason}");
        let text = reason["description"].as_str().unwrap_or_default();
        assert!(text.contains(&format!("at least {min} ")), "{text}");
        let text = cancel.description.as_deref().unwrap_or_default();
        assert!(text.contains(&format!("{min}+ characters")), "{text}");

        let per_page = super::super::MAX_PER_PAGE;
        let mut lists = 0;
        for tool in registry().all() {
            if let Output::List(_) = tool.meta.output {
                lists += 1;
                let size = &tool.tool.input_schema["properties"]["per_page"];
                assert_eq!(size["maximum"], json!(per_page), "{}", tool.meta.name);
            }
        }
        assert_eq!(lists, 8);
    }
}
