//! The tool catalog: every billing tool as data, one file per toolset.
//!
//! A toolset defines each tool as a [`ToolSpec`]; the registry pairs it with its wire
//! definition (name, title, description, input and output schemas, annotations; kept in
//! `data/tools.json`) to make a [`ToolDef`]. A tool has the one permission it needs, what
//! it does to the world ([`Effect`]), and an async handler that takes typed arguments. The registry is built once
//! per process; listing is a filter over it.

mod arg_check;
mod arg_values;
mod args;
mod context;
pub mod curated;
mod errors;
#[cfg(test)]
mod features_doc;
pub mod lists;
pub mod month_report;
pub mod operations;
mod planned;
mod registry;
pub mod schemas;
mod toolset;
pub mod ui_links;

pub use crate::config::{DEFAULT_ANSWER_BUDGET_BYTES, MIN_ANSWER_BUDGET_BYTES, RowPolicy};
pub use args::{MAX_ARRAY_ITEMS, NoArgs, Paging};
pub use context::{
    MAX_NFE_REASON_CHARS, MAX_PER_PAGE, MAX_REASON_CHARS, PlannedWrite, ToolCtx, WriteGate,
    reason_arg, uuid_arg,
};
pub use curated::invoice_payments::{CREDITS, MAX_CREDIT_IDS, MAX_INSTALLMENT_IDS};
pub use errors::{ERROR_META_KEY, ToolError};
pub use lists::names::NameCache;
pub use registry::{
    Asks, Effect, MAX_TOOLS_LIST_BYTES, Output, Registry, ToolDef, ToolMeta, ToolSpec, registry,
};
pub use toolset::Toolset;

use crate::access::{Level, Permission, Permissions, Resource};

/// The client's own narrowing of what it sees (`X-MCP-Toolsets`, `X-MCP-Readonly`), read
/// once by the front from the request headers. Narrowing can only remove tools.
///
/// `X-MCP-Toolsets` names toolsets and resources: a curated toolset's slug lists its tools
/// (and is also its resource), `schemas` the schema catalog, `operations` the generic tools
/// over every resource, and any other resource slug of Kobana's document (`credits`,
/// `coupons`, …) the generic tools over that resource's operations. The generic tools are
/// listed whenever a resource or `operations` is named, and reach only the resources named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Narrowing {
    /// Toolsets the client asked for; `None` = all.
    pub toolsets: Option<Vec<Toolset>>,
    /// Resources the client named, directly or through their toolset (empty when `toolsets`
    /// is `None`).
    pub resources: Vec<Resource>,
    /// Read-only tools only.
    pub read_only: bool,
}

impl Narrowing {
    /// Reads the two headers' values. An unknown name is refused with a pt-BR text that
    /// lists the valid ones.
    pub fn parse(toolsets: Option<&str>, read_only: Option<&str>) -> Result<Self, String> {
        let mut resources = Vec::new();
        let toolsets = match toolsets {
            None => None,
            Some(raw) => {
                let mut sets = Vec::new();
                for name in raw.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let lower = name.to_ascii_lowercase();
                    let set = Toolset::from_slug(&lower);
                    let resource = set
                        .and_then(Toolset::resource)
                        .or_else(|| Resource::from_slug(&lower));
                    if set.is_none() && resource.is_none() {
                        return Err(format!(
                            "X-MCP-Toolsets: toolset desconhecido {lower:?}; use: {}, ou um recurso: {}",
                            Toolset::slugs(),
                            other_resources()
                        ));
                    }
                    sets.extend(set);
                    resources.extend(resource);
                }
                Some(sets)
            }
        };
        let read_only = read_only.is_some_and(|v| {
            matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes")
        });
        Ok(Self {
            toolsets,
            resources,
            read_only,
        })
    }
}

/// The resources without a curated toolset, comma-separated, for error texts.
fn other_resources() -> String {
    Resource::ALL
        .into_iter()
        .filter(|r| Toolset::from_slug(r.slug()).is_none())
        .map(Resource::slug)
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a request may see: the token's permissions, narrowed by the client's own choice.
#[derive(Debug, Clone)]
pub struct Visibility {
    /// The token's permissions.
    pub permissions: Permissions,
    /// Toolsets the client asked for (`X-MCP-Toolsets`); `None` = all.
    pub toolsets: Option<Vec<Toolset>>,
    /// Resources the client named (see [`Narrowing`]).
    pub resources: Vec<Resource>,
    /// The client asked for read-only tools only (`X-MCP-Readonly: true`).
    pub read_only: bool,
}

impl Visibility {
    /// The permissions, narrowed as the client asked.
    pub fn narrowed(permissions: Permissions, narrowing: Narrowing) -> Self {
        Self {
            permissions,
            toolsets: narrowing.toolsets,
            resources: narrowing.resources,
            read_only: narrowing.read_only,
        }
    }

    /// Everything the permissions allow.
    pub fn of(permissions: Permissions) -> Self {
        Self {
            permissions,
            toolsets: None,
            resources: Vec::new(),
            read_only: false,
        }
    }

    /// Whether the token may run `tool` (the client's narrowing does not matter here): it
    /// grants the tool's permission, or the tool needs none (a toolset that
    /// [needs some read](Toolset::needs_some_read) asks for any read permission; a generic
    /// writing tool, some write permission).
    pub fn may_run(&self, tool: &ToolDef) -> bool {
        match tool.meta.permission {
            Some(permission) => self.permissions.allows(permission),
            None if tool.meta.effect != Effect::Read => self.permissions.can_write(),
            None => !tool.meta.toolset.needs_some_read() || self.permissions.reads_something(),
        }
    }

    /// Whether `tool` is listed: the token may run it and the client did not narrow it away.
    /// Narrowing can only remove tools.
    pub fn shows(&self, tool: &ToolDef) -> bool {
        if !self.may_run(tool) || (self.read_only && tool.meta.effect != Effect::Read) {
            return false;
        }
        if tool.meta.toolset == Toolset::Operations {
            let level = match tool.meta.effect {
                Effect::Read => Level::Read,
                _ => Level::Write,
            };
            return Resource::ALL.into_iter().any(|r| self.reaches(r, level));
        }
        self.toolsets
            .as_ref()
            .is_none_or(|sets| sets.contains(&tool.meta.toolset))
    }

    /// Whether a generic tool may act on `resource` at `level`: the token allows it, and the
    /// client named the resource or `operations` (or narrowed nothing), and asked for more
    /// than reading when `level` is write.
    pub fn reaches(&self, resource: Resource, level: Level) -> bool {
        let named = self.toolsets.as_ref().is_none_or(|sets| {
            sets.contains(&Toolset::Operations) || self.resources.contains(&resource)
        });
        named
            && !(self.read_only && level == Level::Write)
            && self.permissions.allows(Permission { resource, level })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_reads_both_headers_and_refuses_unknown_toolsets() {
        assert_eq!(Narrowing::parse(None, None), Ok(Narrowing::default()));
        let n = Narrowing::parse(Some(" Invoices, ,nfes "), Some(" YES ")).unwrap();
        assert_eq!(n.toolsets, Some(vec![Toolset::Invoices, Toolset::Nfes]));
        assert!(n.read_only);
        assert!(!Narrowing::parse(None, Some("no")).unwrap().read_only);
        let error = Narrowing::parse(Some("invoices,../Admin"), None).unwrap_err();
        assert!(error.contains(r#"desconhecido "../admin""#), "{error}");
        assert!(error.contains("billing_accounts"), "{error}");
        assert!(error.contains("credits"), "{error}");
        assert_eq!(n.resources, vec![Resource::Invoices, Resource::Nfes]);
        let n = Narrowing::parse(Some("Credits, operations"), None).unwrap();
        assert_eq!(n.toolsets, Some(vec![Toolset::Operations]));
        assert_eq!(n.resources, vec![Resource::Credits]);
    }
}
