//! Toolset `audit`: the organization reads back what the assistant wrote (AU-4).
//!
//! Before reading, Kobana proves whose trail it is: one `GET /v1/organization` with the
//! caller's token. A token Kobana refuses (401) reads nothing; one it accepts but may not
//! read the organization with (403) is still Kobana's own, so its `org_id` claim stands.
//! Only entries of that organization are read: the store's query is keyed by it, and each
//! entry is checked again.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::access::slugs::ORGANIZATION;
use crate::audit::{Entry, ListQuery, Listed, Outcome, id_range, rfc3339_millis};
use crate::catalog::args::wire_enum;
use crate::catalog::{Effect, Output, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset};
use crate::kobana::KobanaError;

/// The tool's name.
pub const NAME: &str = "billing_audit_list";
/// Entries per page when `per_page` is not given.
pub const DEFAULT_PER_PAGE: u32 = 20;
/// Largest `per_page`.
pub const MAX_PER_PAGE: u32 = crate::catalog::MAX_PER_PAGE;
/// Deepest entry a page may reach (`page × per_page`); further back, `until` narrows.
pub const MAX_DEPTH: u32 = 1000;
/// Entries `kobana://billing/audit` holds: the latest ones.
pub const RESOURCE_ENTRIES: usize = 50;
/// Longest `person` looked for.
const MAX_PERSON: usize = 200;

wire_enum! {
    // An outcome.
    OutcomeArg {
        Done => "done",
        Refused => "refused",
        Declined => "declined",
        Failed => "failed",
        Unknown => "unknown",
    }
}

// Arguments of `billing_audit_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditArgs {
    /// From YYYY-MM-DD or ISO.
    pub since: Option<String>,
    /// Until, inclusive.
    pub until: Option<String>,
    // Tool name.
    pub tool: Option<String>,
    /// Token sub.
    pub person: Option<String>,
    // Outcome.
    pub outcome: Option<OutcomeArg>,
    // Page number, starting at 1.
    #[schemars(range(min = 1))]
    pub page: Option<u32>,
    // Entries per page, 1 to MAX_PER_PAGE (default DEFAULT_PER_PAGE).
    #[schemars(range(min = 1, max = MAX_PER_PAGE))]
    pub per_page: Option<u32>,
}

fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "entries": {"type": "array"},
            ORGANIZATION: {"type": "string"},
            "next_page": {"type": "integer"}
        },
        "required": ["entries", ORGANIZATION]
    })
}

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        ToolMeta {
            name: NAME,
            title: "Trilha de auditoria",
            description: "Who had the assistant change what, and when: this organization's writes, newest first, with how each was confirmed and ended.",
            toolset: Toolset::Audit,
            permission: None,
            effect: Effect::Read,
            output: Output::Custom(output_schema),
        },
        |ctx, args: AuditArgs| async move { list(&ctx, args).await },
    )]
}

/// One page of the trail, under the answer budget.
async fn list(ctx: &ToolCtx, args: AuditArgs) -> Result<Value, ToolError> {
    let (from, to) = window(args.since.as_deref(), args.until.as_deref())?;
    let page = args.page.unwrap_or(1).max(1);
    let per_page = args.per_page.unwrap_or(DEFAULT_PER_PAGE);
    if !(1..=MAX_PER_PAGE).contains(&per_page) {
        return Err(invalid(format!(
            "`per_page` deve estar entre 1 e {MAX_PER_PAGE}; recebido {per_page}"
        )));
    }
    if page.saturating_mul(per_page) > MAX_DEPTH {
        return Err(invalid(format!(
            "a página {page} passa das {MAX_DEPTH} entradas mais recentes; para ver as anteriores, use `until`"
        )));
    }
    let mut query = ListQuery {
        organization: String::new(),
        from_id: id_range(from, to).0,
        to_id: id_range(from, to).1,
        tool: args.tool.as_deref().map(tool_arg).transpose()?,
        person: args.person.as_deref().map(person_arg).transpose()?,
        outcome: args.outcome.and_then(|o| Outcome::parse(o.as_str())),
        want: (page * per_page + 1) as usize,
    };
    let (organization, listed) = read(ctx, &mut query).await?;
    let skip = ((page - 1) * per_page) as usize;
    let more = listed.entries.len() > (page * per_page) as usize;
    let entries: Vec<Value> = listed
        .entries
        .iter()
        .skip(skip)
        .take(per_page as usize)
        .map(Entry::shown)
        .collect();
    let mut result = json!({
        ORGANIZATION: organization,
        "page": page,
        "per_page": per_page,
        "entries": entries,
    });
    if more {
        result["next_page"] = json!(page + 1);
        result["hint"] = json!(format!(
            "Há entradas mais antigas: chame de novo com page={}.",
            page + 1
        ));
    } else if let Some(stopped) = &listed.stopped_at {
        result["hint"] = json!(stopped_hint(stopped));
    }
    crate::catalog::lists::budget::fit(&mut result, "entries", ctx.rows.budget_bytes);
    if result.get("cut").is_some() {
        result["hint"] = json!(format!(
            "Resposta cortada para caber em {} bytes: vieram {} entradas. Para continuar exatamente após a última, chame de novo com page={} e per_page={}.",
            ctx.rows.budget_bytes, result["returned"], result["next_page"], result["next_per_page"]
        ));
    }
    Ok(result)
}

/// The latest [`RESOURCE_ENTRIES`] entries, as `kobana://billing/audit` holds them.
pub async fn latest(ctx: &ToolCtx) -> Result<Value, ToolError> {
    let (from, to) = window(None, None)?;
    let (from_id, to_id) = id_range(from, to);
    let mut query = ListQuery {
        organization: String::new(),
        from_id,
        to_id,
        tool: None,
        person: None,
        outcome: None,
        want: RESOURCE_ENTRIES,
    };
    let (organization, listed) = read(ctx, &mut query).await?;
    let entries: Vec<Value> = listed.entries.iter().map(Entry::shown).collect();
    Ok(json!({ORGANIZATION: organization, "entries": entries}))
}

/// Proves the organization, then reads its entries.
async fn read(ctx: &ToolCtx, query: &mut ListQuery) -> Result<(String, Listed), ToolError> {
    let audit = ctx.audit.as_ref().ok_or(ToolError::AuditUnreadable)?;
    let organization = proven_organization(ctx).await?;
    query.organization = organization.clone();
    let mut listed = audit.trail().store().list(query).await.map_err(|error| {
        tracing::error!(%error, "audit store unreadable");
        ToolError::AuditUnreadable
    })?;
    listed
        .entries
        .retain(|e| e.organization.as_deref() == Some(organization.as_str()));
    Ok((organization, listed))
}

/// The organization Kobana says the caller's token belongs to (see the module).
async fn proven_organization(ctx: &ToolCtx) -> Result<String, ToolError> {
    match ctx.kobana.get(&[ORGANIZATION], &[]).await {
        Ok(envelope) => envelope
            .data
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| crate::kobana::segment_is_safe(id))
            .map(str::to_owned)
            .ok_or_else(|| {
                ToolError::from(KobanaError::InvalidResponse {
                    status: envelope.status,
                    reason: "the organization has no id".to_owned(),
                })
            }),
        Err(KobanaError::Api { status: 403, .. })
            if !ctx.principal.organization.starts_with("token:") =>
        {
            Ok(ctx.principal.organization.clone())
        }
        Err(error) => Err(error.into()),
    }
}

/// The window `since..=until` in Unix milliseconds (a day is São Paulo's whole day).
fn window(since: Option<&str>, until: Option<&str>) -> Result<(i64, i64), ToolError> {
    let from = since.map(|s| instant("since", s, false)).transpose()?;
    let to = until.map(|u| instant("until", u, true)).transpose()?;
    let (from, to) = (from.unwrap_or(0), to.unwrap_or(9_999_999_999_999));
    if from > to {
        return Err(invalid(
            "`since` é posterior a `until`; inverta as datas".to_owned(),
        ));
    }
    Ok((from, to))
}

/// `YYYY-MM-DD` (the start of that day in São Paulo, or its last millisecond when `end`) or
/// an ISO 8601 instant, as Unix milliseconds.
fn instant(name: &str, value: &str, end: bool) -> Result<i64, ToolError> {
    let v = value.trim();
    if v.len() == 10
        && let Ok(day) = v.parse::<jiff::civil::Date>()
    {
        let day = if end { day.tomorrow().ok() } else { Some(day) };
        if let Some(midnight) =
            day.and_then(|d| d.to_zoned_datetime(crate::format::sao_paulo()).ok())
        {
            return Ok(midnight.timestamp().as_millisecond() - i64::from(end));
        }
    }
    if let Ok(at) = v.parse::<jiff::Timestamp>() {
        return Ok(at.as_millisecond());
    }
    Err(invalid(format!(
        "`{name}` deve ser uma data AAAA-MM-DD ou data-hora ISO 8601 com fuso (ex.: 2026-10-01 ou 2026-10-01T09:00:00-03:00); recebido {v:?}"
    )))
}

/// A tool name: `[a-z0-9_]`, at most 64.
fn tool_arg(value: &str) -> Result<String, ToolError> {
    let v = value.trim();
    let ok = (1..=64).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(v.to_owned())
    } else {
        Err(invalid(format!(
            "`tool` deve ser o nome de uma tool (ex.: billing_invoices_void); recebido {v:?}"
        )))
    }
}

/// A person (a token's `sub`): not blank, at most [`MAX_PERSON`] characters.
fn person_arg(value: &str) -> Result<String, ToolError> {
    crate::catalog::context::text_arg("person", value, MAX_PERSON).map(str::to_owned)
}

/// Where a read stopped before the window's end, and how to go on.
fn stopped_hint(stopped_id: &str) -> String {
    let at = stopped_id
        .get(..13)
        .and_then(|ms| ms.parse::<i64>().ok())
        .map(rfc3339_millis)
        .unwrap_or_default();
    format!(
        "A leitura parou nas entradas até {at} (limite de leitura por chamada). Para ver as anteriores, chame de novo com until={at}."
    )
}

fn invalid(text: String) -> ToolError {
    ToolError::InvalidArguments(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AU-4: the tool's whole definition costs a client's context at most 900 bytes.
    #[test]
    fn au4_the_tools_definition_is_at_most_900_bytes() {
        let tool = crate::catalog::registry().get(NAME).expect("registered");
        let bytes = serde_json::to_vec(&tool.tool).unwrap().len();
        assert!(bytes <= 900, "{NAME}: {bytes} bytes");
    }

    #[test]
    fn au4_days_are_sao_paulo_days_and_instants_are_exact() {
        let (from, to) = window(Some("2026-08-01"), Some("2026-08-01")).unwrap();
        // São Paulo is UTC−3: the day runs 03:00 UTC to 02:59:59.999 UTC the next day.
        assert_eq!(rfc3339_millis(from), "2026-08-01T03:00:00.000Z");
        assert_eq!(rfc3339_millis(to), "2026-08-02T02:59:59.999Z");
        let (from, _) = window(Some("2026-08-01T12:00:00Z"), None).unwrap();
        assert_eq!(rfc3339_millis(from), "2026-08-01T12:00:00.000Z");
        assert!(window(Some("2026-08-02"), Some("2026-08-01")).is_err());
        assert!(window(Some("ontem"), None).is_err());
        assert!(tool_arg("billing_invoices_void").is_ok());
        assert!(tool_arg("x; drop").is_err());
        assert!(person_arg(" ").is_err());
    }
}
