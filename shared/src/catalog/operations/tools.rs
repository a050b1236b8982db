//! The four generic tools that reach every reviewed row: `billing_operations_search` finds
//! and describes operations; `billing_operations_read`, `_write` and `_write_destructive` each
//! run the rows of one effect class.
//!
//! A call runs nothing until its row allows it: an unknown or excluded operation, a row of
//! another class (the refusal names the tool that runs it), a resource the token or the
//! client's narrowing does not reach, or arguments off the operation's schema are each
//! refused before any Kobana call. A destructive row's write is planned like a curated
//! destructive tool's, so `confirm` asks the person first (era 2026 with forms).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::answer::{self, resource_of};
use super::check::{Checked, check};
use super::describe::{self, level_of};
use super::facts::{Answer, Facts, Operation, facts};
use super::row::{Class, Row};
use crate::catalog::context::destructive_description;
use crate::catalog::{
    Asks, Effect, Output, PlannedWrite, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset, Visibility,
};

/// `billing_operations_search`.
pub const SEARCH: &str = "billing_operations_search";
/// `billing_operations_read`.
pub const READ: &str = "billing_operations_read";
/// `billing_operations_write`.
pub const WRITE: &str = "billing_operations_write";
/// `billing_operations_write_destructive`.
pub const DESTRUCTIVE: &str = "billing_operations_write_destructive";

/// Most hits one search answers.
pub const MAX_HITS: usize = 12;

/// Longest free text a destructive row sends, in characters: the question shows it whole.
pub const MAX_FREE_TEXT_CHARS: usize = 1000;

/// The tool that runs the rows of `class`.
pub fn tool_for(class: Class) -> &'static str {
    match class {
        Class::Read => READ,
        Class::Write => WRITE,
        Class::Destructive { .. } => DESTRUCTIVE,
    }
}

/// Arguments of `billing_operations_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to do.
    pub query: Option<String>,
    /// Path's first segment (invoices, credits…).
    pub resource: Option<String>,
    /// An operationId to describe.
    pub operation: Option<String>,
}

/// Arguments of the three tools that run a row.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CallArgs {
    /// operationId (billing_operations_search).
    pub operation: String,
    // Path parameters (the tool's description names the three objects).
    pub path: Option<Members>,
    // Query parameters.
    pub query: Option<Members>,
    // JSON body.
    pub body: Option<Members>,
}

/// A JSON object argument (`path`, `query`, `body`), described on the wire as just an
/// object: its members are the operation's, checked by [`check`].
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct Members(pub Map<String, Value>);

impl JsonSchema for Members {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Members".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

/// The result of a search: hits under `operations`, or one operation described.
fn search_schema() -> Value {
    json!({"type": "object", "properties": {"operations": {"type": "array"}}})
}

/// The result of a run: the operation, and its answer under `data`.
fn run_schema() -> Value {
    json!({"type": "object", "properties": {"operation": {"type": "string"}}, "required": ["operation"]})
}

/// The four generic tools.
pub fn tools() -> Vec<ToolSpec> {
    let meta = |name, title, description, effect| ToolMeta {
        name,
        title,
        description,
        toolset: Toolset::Operations,
        permission: None,
        effect,
        output: Output::Custom(if name == SEARCH {
            search_schema
        } else {
            run_schema
        }),
    };
    vec![
        ToolSpec::new(
            meta(
                SEARCH,
                "Buscar operações do Kobana",
                "Finds any of Kobana's 260 billing operations by what to do (pt-BR or English): id, method, path, title, effect, the tool that runs it. With `operation`: its path/query/body arguments, money units, whether it asks first. For jobs no other tool does.",
                Effect::Read,
            ),
            |ctx: ToolCtx, args: SearchArgs| async move { search(&ctx, args) },
        ),
        ToolSpec::new(
            meta(
                READ,
                "Executar operação de leitura",
                "Runs a read operation from billing_operations_search with its `path`, `query`, `body` objects. Lists are paged (next_page or next_offset).",
                Effect::Read,
            ),
            |ctx: ToolCtx, args: CallArgs| async move { run(ctx, args, Class::Read).await },
        ),
        ToolSpec::new(
            meta(
                WRITE,
                "Executar operação de escrita",
                "Runs a write operation (creates or changes; undoable) from billing_operations_search.",
                Effect::Write { idempotent: false },
            ),
            |ctx: ToolCtx, args: CallArgs| async move { run(ctx, args, Class::Write).await },
        ),
        ToolSpec::new(
            meta(
                DESTRUCTIVE,
                "Executar operação destrutiva",
                destructive_description!(
                    "Runs a destructive operation (deletes, cancels, moves money, issues fiscal documents) from billing_operations_search."
                ),
                Effect::Destructive {
                    idempotent: false,
                    asks: Asks::Operation,
                },
            ),
            |ctx: ToolCtx, args: CallArgs| async move {
                run(ctx, args, Class::Destructive { asks: "" }).await
            },
        ),
    ]
}

fn visibility(ctx: &ToolCtx) -> Visibility {
    Visibility::narrowed(ctx.principal.permissions.clone(), ctx.narrowing.clone())
}

/// Whether the caller may run `row` (its operation `op`).
fn reachable(visibility: &Visibility, row: &Row, op: &Operation) -> bool {
    resource_of(op).is_some_and(|r| visibility.reaches(r, level_of(row.class)))
}

fn search(ctx: &ToolCtx, args: SearchArgs) -> Result<Value, ToolError> {
    let facts = facts();
    let visibility = visibility(ctx);
    if let Some(id) = args.operation.as_deref().map(str::trim) {
        let (row, op) = known(facts, id)?;
        allowed(&visibility, row, op)?;
        return Ok(describe::operation(facts, row, op));
    }
    let resource = match args.resource.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(slug) => Some(crate::access::Resource::from_slug(slug).ok_or_else(|| {
            let slugs: Vec<&str> = crate::access::Resource::ALL
                .iter()
                .map(|r| r.slug())
                .collect();
            ToolError::InvalidArguments(format!(
                "`resource` desconhecido; use um de: {}",
                slugs.join(", ")
            ))
        })?),
    };
    let query = args.query.unwrap_or_default();
    if query.trim().is_empty() && resource.is_none() {
        return Err(ToolError::InvalidArguments(
            "diga o que fazer em `query` (ex.: \"prorrogar vencimento\"), ou passe `resource` ou `operation`".to_owned(),
        ));
    }
    let runnable: Vec<(&Row, &Operation)> = super::all()
        .filter(|row| row.excluded.is_none())
        .filter_map(|row| facts.operation(row.operation).map(|op| (row, op)))
        .filter(|(row, op)| reachable(&visibility, row, op))
        .filter(|(_, op)| resource.is_none_or(|r| resource_of(op) == Some(r)))
        .collect();
    let found: Vec<&Row> = if query.trim().is_empty() {
        runnable
            .iter()
            .map(|(row, _)| *row)
            .take(MAX_HITS)
            .collect()
    } else {
        super::search::rank(&query, runnable.iter().map(|(row, _)| *row), MAX_HITS)
    };
    let hits: Vec<Value> = found
        .into_iter()
        .filter_map(|row| {
            runnable
                .iter()
                .find(|(r, _)| r.operation == row.operation)
                .map(|(row, op)| describe::hit(row, op))
        })
        .collect();
    let mut result = json!({"returned": hits.len(), "operations": hits});
    result["hint"] = json!(if result["returned"] == 0 {
        "Nenhuma operação que este token possa executar corresponde; tente outras palavras ou outro `resource`."
    } else {
        "Para os argumentos de uma, chame billing_operations_search com operation=<id>; depois execute com a tool indicada."
    });
    Ok(result)
}

/// The row of operation `id`.
fn row_of(id: &str) -> Result<&'static Row, ToolError> {
    super::find(id).ok_or_else(|| {
        ToolError::InvalidArguments(format!(
            "operação desconhecida {id:?}: use o `operation` que billing_operations_search responde (ex.: patch-invoices-id)"
        ))
    })
}

/// The row and facts of operation `id`, or why it cannot run.
fn known<'f>(facts: &'f Facts, id: &str) -> Result<(&'static Row, &'f Operation), ToolError> {
    let row = row_of(id)?;
    let op = facts.operation(row.operation).ok_or_else(|| {
        ToolError::InvalidArguments(format!(
            "a operação `{}` ainda não está disponível nesta versão do servidor",
            row.operation
        ))
    })?;
    Ok((row, op))
}

/// Refuses a row the token or the client's narrowing does not reach.
fn allowed(visibility: &Visibility, row: &Row, op: &Operation) -> Result<(), ToolError> {
    let Some(resource) = resource_of(op) else {
        return Err(ToolError::InvalidArguments(format!(
            "a operação `{}` não pertence a um recurso conhecido",
            row.operation
        )));
    };
    let level = level_of(row.class);
    let permission = crate::access::Permission { resource, level };
    if !visibility.permissions.allows(permission) {
        return Err(ToolError::PermissionDenied(permission.to_string()));
    }
    if !visibility.reaches(resource, level) {
        return Err(ToolError::InvalidArguments(format!(
            "a operação `{}` é de `{}`, fora do que este cliente pediu (X-MCP-Toolsets / X-MCP-Readonly)",
            row.operation,
            resource.slug()
        )));
    }
    Ok(())
}

/// Runs `args` through the tool of `class`.
async fn run(ctx: ToolCtx, args: CallArgs, class: Class) -> Result<Value, ToolError> {
    let row = row_of(args.operation.trim())?;
    if let Some(why) = row.excluded {
        return Err(ToolError::Excluded(format!(
            "A operação `{}` não passa por este servidor: {why} Nada foi enviado ao Kobana.",
            row.operation
        )));
    }
    let right = tool_for(row.class);
    if right != tool_for(class) {
        return Err(ToolError::WrongTool(format!(
            "A operação `{}` é de {} ({}); chame-a com `{right}`. Nada foi executado.",
            row.operation,
            describe::effect_name(row.class),
            row.title
        )));
    }
    let facts = facts();
    let (row, op) = known(facts, row.operation)?;
    allowed(&visibility(&ctx), row, op)?;
    let checked = check(
        facts,
        op,
        args.path.as_ref().map(|m| &m.0),
        args.query.as_ref().map(|m| &m.0),
        args.body.as_ref().map(|m| &m.0),
    )
    .map_err(ToolError::InvalidArguments)?;
    routed(facts, op, &checked)?;
    if matches!(row.class, Class::Destructive { .. }) {
        plain_texts(checked.body.as_ref(), "body").map_err(ToolError::InvalidArguments)?;
    }
    let envelope = match (&op.answer, row.class) {
        (Answer::Binary(media), Class::Read) => return document(&ctx, op, &checked, media).await,
        (_, Class::Read) if op.method == "GET" => {
            let segments: Vec<&str> = checked.segments.iter().map(String::as_str).collect();
            ctx.kobana.get(&segments, &checked.query).await?
        }
        (_, Class::Read) => {
            // One of the document's POST look-ups: changes nothing, sent once.
            let segments: Vec<&str> = checked.segments.iter().map(String::as_str).collect();
            ctx.kobana
                .send(
                    method(op)?,
                    &segments,
                    &checked.query,
                    checked.body.as_ref(),
                    None,
                )
                .await?
        }
        _ => {
            let planned = PlannedWrite {
                method: method(op)?,
                segments: checked.segments.clone(),
                query: checked.query.clone(),
                body: checked.body.clone(),
                operation: Some(row.operation),
            };
            ctx.send_write(planned).await?
        }
    };
    Ok(answer::shape(&ctx, facts, row, op, &checked.query, envelope).await)
}

fn method(op: &Operation) -> Result<Method, ToolError> {
    Method::from_bytes(op.method.as_bytes())
        .map_err(|_| ToolError::InvalidArguments(format!("método {} desconhecido", op.method)))
}

/// Refuses ids that would make the path another operation's (`/v1/invoices/pending-nfe` is
/// not the invoice `pending-nfe`): the request must reach the operation the row reviewed.
fn routed(facts: &Facts, op: &Operation, checked: &Checked) -> Result<(), ToolError> {
    let literal_rival = facts.operations().iter().find(|other| {
        other.id != op.id
            && other.method == op.method
            && matches_literally(&other.path, &checked.segments)
            && literals(&other.path) > literals(&op.path)
    });
    match literal_rival {
        Some(other) => Err(ToolError::InvalidArguments(format!(
            "os ids dados fazem do caminho o de outra operação (`{}`); use um id de registro",
            other.id
        ))),
        None => Ok(()),
    }
}

fn literals(template: &str) -> usize {
    template.split('/').filter(|s| !s.starts_with('{')).count()
}

fn matches_literally(template: &str, segments: &[String]) -> bool {
    let parts: Vec<&str> = template.trim_start_matches("/v1/").split('/').collect();
    parts.len() == segments.len()
        && parts
            .iter()
            .zip(segments)
            .all(|(t, s)| t.starts_with('{') || *t == s)
}

/// A destructive row's free texts must read in the question exactly as they are sent: one
/// plain line, no quote delimiters, at most [`MAX_FREE_TEXT_CHARS`].
fn plain_texts(value: Option<&Value>, at: &str) -> Result<(), String> {
    match value {
        Some(Value::String(text)) => {
            if crate::format::quotable_line(text) != *text {
                return Err(format!(
                    "`{at}` precisa ser uma linha simples, sem quebras de linha, caracteres invisíveis, espaços repetidos ou aspas « »: a pergunta de confirmação mostra exatamente o que será enviado"
                ));
            }
            let chars = text.chars().count();
            if chars > MAX_FREE_TEXT_CHARS {
                return Err(format!(
                    "`{at}` aceita até {MAX_FREE_TEXT_CHARS} caracteres nesta operação; recebido {chars}"
                ));
            }
            Ok(())
        }
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .try_for_each(|(n, item)| plain_texts(Some(item), &format!("{at}[{n}]"))),
        Some(Value::Object(map)) => map
            .iter()
            .try_for_each(|(k, v)| plain_texts(Some(v), &format!("{at}.{k}"))),
        _ => Ok(()),
    }
}

/// A binary document stays a resource: its description and `kobana://` URI, never its bytes.
async fn document(
    ctx: &ToolCtx,
    op: &Operation,
    checked: &Checked,
    media: &str,
) -> Result<Value, ToolError> {
    let segments: Vec<&str> = checked.segments.iter().map(String::as_str).collect();
    let id = op
        .path_params
        .last()
        .and_then(|p| {
            let at = op
                .path
                .split('/')
                .position(|s| s == format!("{{{}}}", p.name))?;
            checked.segments.get(at.checked_sub(2)?)
        })
        .cloned()
        .unwrap_or_default();
    let uri = format!("kobana://billing/{}", checked.segments.join("/"));
    let mut described = ctx
        .describe_document(&segments, media, answer::DATA, "id", &id, uri)
        .await?;
    described["operation"] = json!(op.id);
    Ok(described)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wa2_an_id_that_makes_the_path_another_operations_is_refused() {
        let facts = Facts::parse(
            "> get-things-id GET /v1/things/{id} 200 - - - path.id:s
> get-things-pending GET /v1/things/pending 200 - - -
",
        );
        let op = facts.operation("get-things-id").unwrap();
        let checked = |id: &str| Checked {
            segments: vec!["things".into(), id.into()],
            query: vec![],
            body: None,
        };
        let refused = routed(&facts, op, &checked("pending"))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("get-things-pending"), "{refused}");
        assert!(routed(&facts, op, &checked("t-1")).is_ok());
    }

    /// WA-2 (tools/list budget): the four generic tools' definitions together stay within
    /// 3,500 bytes of `tools/list`.
    #[test]
    fn wa2_the_four_tools_fit_in_3500_bytes_of_tools_list() {
        let registry = crate::catalog::registry();
        let bytes: usize = [SEARCH, READ, WRITE, DESTRUCTIVE]
            .iter()
            .map(|name| {
                let tool = registry.get(name).expect(name);
                tool.wire_for(false, crate::catalog::RowPolicy::default())
                    .len()
            })
            .sum();
        println!("the four generic tools: {bytes} bytes of tools/list");
        assert!(bytes <= 3500, "{bytes} bytes");
    }
}
