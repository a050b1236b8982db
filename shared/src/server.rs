//! The MCP server proper: one `ServerHandler` that answers every method from the registry,
//! under the caller's token. It knows nothing about HTTP beyond reading the request parts
//! the front put in the context.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams,
    CompleteResult, ContentBlock, CustomRequest, CustomResult, DiscoverResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, MetaObject,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::Value;

use const_format::formatcp;

use crate::access::Principal;
use crate::audit::{CallAudit, Confirmation};
use crate::catalog::{
    ERROR_META_KEY, Effect, MAX_PER_PAGE, Narrowing, Output, ToolCtx, ToolDef, ToolError,
    Visibility, WriteGate, registry,
};
use crate::confirm::{self, Clock, Gate, NonceStore, form_elicitation_declared};
use crate::deferred::{self, DeferredSlot};
use crate::kobana::KobanaClient;
use crate::protocol_errors;
use crate::resources::{self, Kind, ReadError};
use crate::telemetry::RequestRecord;

/// How long clients may cache token-filtered lists in era 2026 (P-4: private).
pub const LIST_TTL_MS: u64 = 300_000;

/// pt-BR guidance for the model, sent in `initialize` and `server/discover`.
pub const INSTRUCTIONS: &str = formatcp!(
    "Servidor MCP do Faturamento Automático do Kobana. Dá acesso, com o token de quem está conversando, \
aos clientes, assinaturas, faturas, pagamentos e NF-e da organização. Comece por billing_organization_get para saber em nome \
de qual empresa você age. Para achar ids use as tools *_list (paginadas: page, per_page até {MAX_PER_PAGE}, next_page). Valores em \
dinheiro vêm como inteiros do Kobana (*_cents ÷100, *_subcents ÷10000) com o texto em reais ao lado (*_brl); datas vêm em \
ISO e em America/Sao_Paulo (*_sao_paulo). Antes de ordenar ou filtrar por um campo, confira billing_schemas_get. Tools que \
apagam, cancelam, anulam ou estornam não podem ser desfeitas: confirme com a pessoa antes de chamá-las."
);

/// State shared by every request.
pub struct AppState {
    /// Kobana client.
    pub kobana: KobanaClient,
    /// Where confirmation nonces live.
    pub store: Arc<dyn NonceStore>,
    /// Clock for confirmation expiry (Unix seconds).
    pub clock: Clock,
    /// How list answers are shaped (compact rows, byte budget).
    pub rows: crate::catalog::RowPolicy,
    /// Customers' names by billing account, learned by this instance (see
    /// [`crate::catalog::lists::names`]).
    pub names: Arc<crate::catalog::NameCache>,
    /// The audit trail of writes.
    pub audit: Arc<crate::audit::Trail>,
    /// The billing day's clock ([`crate::format::BillingClock`]).
    pub billing_clock: crate::format::BillingClock,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("kobana", &self.kobana)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

/// The `ServerHandler`. Cheap to clone: one per request.
#[derive(Debug, Clone)]
pub struct KobanaMcp {
    state: Arc<AppState>,
}

/// The server's identity.
pub fn implementation() -> Implementation {
    let mut info = Implementation::new("kobana-mcp", env!("CARGO_PKG_VERSION"));
    info.title = Some("Kobana — Faturamento Automático".to_owned());
    info.description = Some(
        "Clientes, assinaturas, faturas, pagamentos e NF-e do Kobana, sob o token de quem usa."
            .to_owned(),
    );
    info.website_url = Some("https://www.kobana.com.br".to_owned());
    info
}

/// The protocol versions served: the three of era 2025 and 2026-07-28.
pub const SUPPORTED_VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2026_07_28,
];

fn is_modern(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// Whether the client may render MCP Apps views (see [`crate::catalog::ui_links`]): an era
/// 2026 client that declares the extension on this request, or any era 2025 client, whose
/// declaration at `initialize` a stateless server cannot know.
pub fn views_may_render(ctx: &RequestContext<RoleServer>) -> bool {
    !is_modern(ctx) || crate::catalog::ui_links::declared(ctx.client_capabilities().as_ref())
}

/// The request's HTTP parts, put there by the front.
fn parts(ctx: &RequestContext<RoleServer>) -> Result<&http::request::Parts, McpError> {
    ctx.extensions
        .get::<http::request::Parts>()
        .ok_or_else(|| protocol_errors::internal("a requisição chegou sem as partes HTTP"))
}

/// Where this request's handler leaves the content the front writes (see [`deferred`]).
fn deferred_slot(ctx: &RequestContext<RoleServer>) -> Result<&DeferredSlot, McpError> {
    parts(ctx)?
        .extensions
        .get::<Arc<DeferredSlot>>()
        .map(Arc::as_ref)
        .ok_or_else(|| protocol_errors::internal("a requisição chegou sem o espaço da resposta"))
}

/// Who calls and what they may see, as the front left them in the request: read once at the
/// top of each method that needs them.
struct Caller {
    /// The authenticated caller.
    principal: Arc<Principal>,
    /// What this request may see.
    visibility: Visibility,
}

impl Caller {
    /// Reads the request's principal, then what it may see.
    fn of(ctx: &RequestContext<RoleServer>) -> Result<Self, McpError> {
        let parts = parts(ctx)?;
        let principal = parts
            .extensions
            .get::<Arc<Principal>>()
            .cloned()
            .ok_or_else(|| protocol_errors::internal("a requisição chegou sem o autor"))?;
        let visibility = visibility(parts, &principal)?;
        Ok(Self {
            principal,
            visibility,
        })
    }
}

/// The request line's record, put there by the front.
fn request_record(ctx: &RequestContext<RoleServer>) -> Option<Arc<RequestRecord>> {
    parts(ctx)
        .ok()
        .and_then(|parts| crate::telemetry::record_of(&parts.extensions))
}

/// Notes how a tool call ended in the request line: its error code, or that it asks for input.
fn note_call(record: Option<&RequestRecord>, response: &CallToolResponse) {
    let Some(record) = record else { return };
    match response {
        CallToolResponse::Complete(result) if result.is_error == Some(true) => {
            record.tool_error(error_code(result).unwrap_or("UNKNOWN"));
        }
        CallToolResponse::InputRequired(_) => record.input_required(),
        _ => {}
    }
}

/// What this request may see: the token's permissions, narrowed as the front read from
/// `X-MCP-Toolsets` and `X-MCP-Readonly` and by a read-only consent at the token front (an
/// unknown toolset is refused here, -32600).
fn visibility(parts: &http::request::Parts, principal: &Principal) -> Result<Visibility, McpError> {
    let narrowing = parts
        .extensions
        .get::<Result<Narrowing, String>>()
        .ok_or_else(|| protocol_errors::internal("a requisição chegou sem o recorte de tools"))?;
    match narrowing {
        Ok(narrowing) => {
            // A read-only consent at the token front narrows like `X-MCP-Readonly` (HD-2).
            let mut narrowing = narrowing.clone();
            narrowing.read_only |= principal.consent.read_only();
            Ok(Visibility::narrowed(
                principal.permissions.clone(),
                narrowing,
            ))
        }
        Err(message) => Err(McpError::invalid_request(message.clone(), None)),
    }
}

/// The methods this server serves. rmcp turns one of these whose params it cannot read into a
/// `CustomRequest`; that is invalid params (-32602), not an unknown method.
pub const SERVED_METHODS: [&str; 11] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
];

/// Renders a successful structured result: `structuredContent`, and the same JSON serialized
/// as the text block (what clients without structured output show the model).
pub fn render_success(structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(structured.to_string())]);
    result.structured_content = Some(structured);
    result
}

/// Renders a tool's successful result: as [`render_success`], except that a tool declared with
/// [`Output::Summary`] writes its own pt-BR text as the content.
pub fn render_result(output: Output, structured: Value) -> CallToolResult {
    match output {
        Output::Summary { text, .. } => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text(&structured))]);
            result.structured_content = Some(structured);
            result
        }
        _ => render_success(structured),
    }
}

/// Renders a tool failure as an `isError` result the model can act on (T-4): the pt-BR text
/// as its content, and the machine-readable error in `_meta` under [`ERROR_META_KEY`]. No
/// `structuredContent`: it would have to match the tool's `outputSchema`, and clients that
/// check it would throw away the text (CL-7).
pub fn render_error(error: &ToolError) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(error.to_string())]);
    let mut meta = MetaObject::new();
    meta.0.insert(ERROR_META_KEY.to_owned(), error.details());
    result.meta = Some(meta);
    result
}

/// The code of a tool error result (`_meta`'s [`ERROR_META_KEY`] `error`).
fn error_code(result: &CallToolResult) -> Option<&str> {
    result
        .meta
        .as_ref()?
        .0
        .get(ERROR_META_KEY)?
        .get("error")?
        .as_str()
}

impl KobanaMcp {
    /// A handler over shared state.
    pub fn new(state: Arc<AppState>) -> Self {
        Self { state }
    }

    fn tool_ctx(&self, principal: Arc<Principal>, context: &RequestContext<RoleServer>) -> ToolCtx {
        let narrowing = parts(context)
            .ok()
            .and_then(|parts| parts.extensions.get::<Result<Narrowing, String>>())
            .and_then(|narrowing| narrowing.as_ref().ok())
            .cloned()
            .unwrap_or_default();
        ToolCtx {
            // The caller's token, bound once: every Kobana call of the request sends it.
            kobana: self
                .state
                .kobana
                .for_request(principal.token.clone(), request_record(context)),
            principal,
            idempotency_key: None,
            gate: WriteGate::Open,
            rows: self.state.rows,
            names: self.state.names.clone(),
            narrowing,
            clock: self.state.billing_clock,
            output: None,
            audit: Some(CallAudit::reader(self.state.audit.clone())),
        }
    }

    async fn run_tool(
        &self,
        tool: &ToolDef,
        ctx: ToolCtx,
        args: Option<rmcp::model::JsonObject>,
    ) -> CallToolResult {
        // AU-5: a destructive tool that runs without the server's question says so.
        let unasked = ctx.audit.as_ref().and_then(CallAudit::unasked_note);
        match tool.run(ctx, args).await {
            Ok(structured) => {
                let mut result = render_result(tool.meta.output, structured);
                result.content.extend(unasked.map(ContentBlock::text));
                result
            }
            Err(error) => {
                tracing::info!(tool = tool.meta.name, code = %error.code(), "tool failed");
                render_error(&error)
            }
        }
    }
}

fn text_contents(uri: &str, mime_type: &str, text: String) -> ResourceContents {
    ResourceContents::TextResourceContents {
        uri: uri.to_owned(),
        mime_type: Some(mime_type.to_owned()),
        text,
        meta: None,
    }
}

fn read_error(uri: &str, error: ReadError) -> McpError {
    match error {
        ReadError::NotFound => protocol_errors::resource_not_found(uri),
        ReadError::NotYet(why) => protocol_errors::resource_not_found_because(uri, &why),
        ReadError::TooLarge { size, limit } => McpError::internal_error(
            format!(
                "Documento grande demais: {size} bytes; o limite é {limit} bytes ({} MB).",
                limit.div_ceil(1024 * 1024)
            ),
            Some(serde_json::json!({"uri": uri, "size_bytes": size, "limit_bytes": limit})),
        ),
        ReadError::Failed(message) => {
            McpError::internal_error(message, Some(serde_json::json!({"uri": uri})))
        }
    }
}

impl ServerHandler for KobanaMcp {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .enable_completions()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(implementation())
            .with_instructions(INSTRUCTIONS)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(SUPPORTED_VERSIONS)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, McpError> {
        // In era 2026 `initialize` and `ping` are removed methods (404 / -32601), not bad params.
        let removed =
            is_modern(&context) && matches!(request.method.as_str(), "initialize" | "ping");
        if !removed && SERVED_METHODS.contains(&request.method.as_str()) {
            return Err(protocol_errors::unreadable_params(&request.method));
        }
        Err(McpError::new(
            ErrorCode::METHOD_NOT_FOUND,
            protocol_errors::unknown_method_sentence(&request.method),
            None,
        ))
    }

    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, McpError> {
        // Every served version, legacy ones included: the same list rmcp puts in
        // `UnsupportedProtocolVersionError.data.supported`, which must be a subset of this.
        Ok(
            DiscoverResult::from_server_info(SUPPORTED_VERSIONS.to_vec(), self.get_info())
                .with_ttl_ms(3_600_000)
                .with_cache_scope(CacheScope::Public),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let Caller { visibility, .. } = Caller::of(&context)?;
        let views = views_may_render(&context);
        let visible = registry().all().iter().filter(|t| visibility.shows(t));
        // The front swaps the stand-in for the definitions serialized once at start.
        let tools = deferred::tool_list::defer(
            deferred_slot(&context)?,
            visible.map(|t| t.wire_for(views, self.state.rows)),
        );
        let mut result = ListToolsResult::with_all_items(tools);
        if is_modern(&context) {
            result.ttl_ms = Some(LIST_TTL_MS);
            result.cache_scope = Some(CacheScope::Private);
        }
        Ok(result)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let Caller { visibility, .. } = Caller::of(&context)?;
        let mut result = ListResourcesResult::with_all_items(resources::list(&visibility));
        if is_modern(&context) {
            result.ttl_ms = Some(LIST_TTL_MS);
            result.cache_scope = Some(CacheScope::Private);
        }
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let Caller { visibility, .. } = Caller::of(&context)?;
        let mut result =
            ListResourceTemplatesResult::with_all_items(resources::templates(&visibility));
        if is_modern(&context) {
            result.ttl_ms = Some(LIST_TTL_MS);
            result.cache_scope = Some(CacheScope::Private);
        }
        Ok(result)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri.clone();
        let Caller {
            principal,
            visibility,
        } = Caller::of(&context)?;
        let not_found = || protocol_errors::resource_not_found(&uri);
        if let Some(view) = crate::views::find(&uri) {
            if !crate::views::readable(&visibility, view) {
                return Err(not_found());
            }
            let mut result = ReadResourceResult::new(vec![crate::views::contents(view)]);
            if is_modern(&context) {
                result = result
                    .with_ttl_ms(LIST_TTL_MS)
                    .with_cache_scope(CacheScope::Public);
            }
            return Ok(result.into());
        }
        let target = resources::parse(&uri).ok_or_else(not_found)?;
        let entry = resources::entry(target.kind);
        if !resources::readable(&visibility, entry) {
            return Err(not_found());
        }
        let ctx = self.tool_ctx(principal, &context);
        let contents = match target.kind {
            Kind::InvoicePdf | Kind::NfePdf => {
                resources::read_pdf(&ctx, &target, deferred_slot(&context)?).await
            }
            Kind::NfeXml => resources::read_xml(&ctx, target.param.as_deref().unwrap_or(""))
                .await
                .map(|text| text_contents(&uri, entry.mime_type, text)),
            _ => resources::read_json(ctx, &target)
                .await
                .map(|text| text_contents(&uri, entry.mime_type, text)),
        };
        let contents = contents.map_err(|error| read_error(&uri, error))?;
        let mut result = ReadResourceResult::new(vec![contents]);
        if is_modern(&context) {
            result = result.with_ttl_ms(0).with_cache_scope(CacheScope::Private);
        }
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let Caller { visibility, .. } = Caller::of(&context)?;
        let mut result = ListPromptsResult::with_all_items(crate::prompts::list(&visibility));
        if is_modern(&context) {
            result.ttl_ms = Some(LIST_TTL_MS);
            result.cache_scope = Some(CacheScope::Private);
        }
        Ok(result)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let Caller {
            principal,
            visibility,
        } = Caller::of(&context)?;
        let args: serde_json::Map<String, Value> = request
            .arguments
            .clone()
            .unwrap_or_default()
            .into_iter()
            .collect();
        crate::prompts::get(
            self.tool_ctx(principal, &context),
            &visibility,
            &request.name,
            &args,
        )
        .await
        .map(GetPromptResponse::from)
        .map_err(|e| {
            McpError::invalid_params(
                e.to_string(),
                Some(serde_json::json!({"prompt": request.name})),
            )
        })
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, McpError> {
        let Caller {
            principal,
            visibility,
        } = Caller::of(&context)?;
        let completion = crate::completions::complete(
            self.tool_ctx(principal, &context),
            &visibility,
            &request.r#ref,
            &request.argument.name,
            &request.argument.value,
        )
        .await;
        Ok(CompleteResult::new(completion))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let record = request_record(&context);
        let response = self.call(request, context).await;
        if let Ok(response) = &response {
            note_call(record.as_deref(), response);
        }
        response
    }
}

impl KobanaMcp {
    /// `tools/call`: find the tool the caller may see, build its context, pass the
    /// confirmation gate, run it.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Caller {
            principal,
            visibility,
        } = Caller::of(&context)?;
        let tool = shown_tool(&visibility, &request.name)?;
        if !visibility.may_run(tool) {
            // A generic writing tool has no permission of its own: any `<resource>:write`.
            let permission = tool.meta.permission.map_or_else(
                || match tool.meta.effect {
                    Effect::Read => "<recurso>:read".to_owned(),
                    _ => "<recurso>:write".to_owned(),
                },
                |p| p.to_string(),
            );
            return Ok(render_error(&ToolError::PermissionDenied(permission)).into());
        }
        let forms = form_elicitation_declared(context.client_capabilities().as_ref());
        let asks = is_modern(&context) && forms;
        let mut ctx = self.call_ctx(principal, &context, tool)?;
        if tool.meta.effect != Effect::Read {
            let destructive = matches!(tool.meta.effect, Effect::Destructive { .. });
            ctx.audit = Some(CallAudit::for_call(
                self.state.audit.clone(),
                tool.meta.name,
                request.arguments.as_ref(),
                &ctx.principal,
                request_record(&context),
                Confirmation::before_gate(destructive, is_modern(&context), forms),
            ));
        }
        let store = self.state.store.as_ref();
        Ok(
            match confirm::gate(store, &self.state.clock, tool, ctx, &request, asks).await? {
                Gate::Run(ctx) => self.run_tool(tool, ctx, request.arguments).await.into(),
                Gate::Ask(input_required) => input_required.into(),
                Gate::Answer(Ok(structured)) => render_success(structured).into(),
                Gate::Answer(Err(error)) => render_error(&error).into(),
            },
        )
    }

    /// The context of a call to `tool`: every write carries an idempotency key, so a retry
    /// can never apply it twice.
    fn call_ctx(
        &self,
        principal: Arc<Principal>,
        context: &RequestContext<RoleServer>,
        tool: &ToolDef,
    ) -> Result<ToolCtx, McpError> {
        let mut ctx = self.tool_ctx(principal, context);
        if tool.meta.effect != Effect::Read {
            let nonce = crate::confirm::new_nonce().map_err(|error| {
                tracing::error!(%error, "no idempotency key for a write");
                protocol_errors::internal("sem aleatoriedade para a chave de idempotência")
            })?;
            ctx.idempotency_key = Some(crate::canonical::idempotency_key(&nonce));
        }
        Ok(ctx)
    }
}

/// The tool `name`, unless it does not exist or the client narrowed it away
/// (`X-MCP-Toolsets` / `X-MCP-Readonly`): then it is not there (-32602). A tool the token may
/// not run is found here and refused by the caller with the permission it needs.
fn shown_tool(visibility: &Visibility, name: &str) -> Result<&'static ToolDef, McpError> {
    match registry().get(name) {
        Some(tool) if !visibility.may_run(tool) || visibility.shows(tool) => Ok(tool),
        _ => Err(protocol_errors::unknown_tool(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NM-4: the guidance quotes the page size the lists accept, from its constant.
    #[test]
    fn nm4_the_instructions_quote_the_page_size() {
        let hint = format!("per_page até {MAX_PER_PAGE},");
        assert!(INSTRUCTIONS.contains(&hint), "{INSTRUCTIONS}");
    }
}
