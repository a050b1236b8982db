//! The tool catalog: every billing tool as data, one file per toolset.
//!
//! A toolset defines each tool as a [`ToolSpec`]; the registry pairs it with its wire
//! definition (name, title, description, input and output schemas, annotations; kept in
//! `data/tools.json`) to make a [`ToolDef`]. A tool has the one permission it needs, what
//! it does to the world ([`Effect`]), and an async handler that takes typed arguments. The registry is built once
//! per process; listing is a filter over it.

mod arg_check;
mod args;
mod budget;
mod context;
mod errors;
mod registry;
mod rows;
pub mod schemas;
mod shaping;

mod billing_accounts;
mod customers;
mod invoices;
mod nfes;
mod organization;
mod payments;
mod plans;
mod products;
mod schema_tools;
mod subscriptions;

pub use args::{NoArgs, Paging};
pub use budget::{DEFAULT_ANSWER_BUDGET_BYTES, MIN_ANSWER_BUDGET_BYTES, RowPolicy};
pub use context::{PlannedWrite, ToolCtx, WriteGate, uuid_arg};
pub use errors::ToolError;
pub use registry::{Effect, Output, Registry, ToolDef, ToolMeta, ToolSpec, registry};

use crate::access::Permissions;

/// Toolset names a client may select with the `X-MCP-Toolsets` header, in catalog order.
pub const TOOLSETS: [&str; 10] = [
    "organization",
    "schemas",
    "customers",
    "billing_accounts",
    "plans",
    "products",
    "subscriptions",
    "invoices",
    "payments",
    "nfes",
];

/// What a request may see: the token's permissions, narrowed by the client's own choice.
#[derive(Debug, Clone)]
pub struct Visibility {
    /// The token's permissions.
    pub permissions: Permissions,
    /// Toolsets the client asked for (`X-MCP-Toolsets`); `None` = all.
    pub toolsets: Option<Vec<String>>,
    /// The client asked for read-only tools only (`X-MCP-Readonly: true`).
    pub read_only: bool,
}

impl Visibility {
    /// Everything the permissions allow.
    pub fn of(permissions: Permissions) -> Self {
        Self {
            permissions,
            toolsets: None,
            read_only: false,
        }
    }

    /// Whether the token may run `tool` (the client's narrowing does not matter here).
    pub fn may_run(&self, tool: &ToolDef) -> bool {
        tool.meta
            .permission
            .is_none_or(|permission| self.permissions.allows(permission))
    }

    /// Whether `tool` is listed: the token may run it and the client did not narrow it away.
    /// Narrowing can only remove tools.
    pub fn shows(&self, tool: &ToolDef) -> bool {
        self.may_run(tool)
            && !(self.read_only && tool.meta.effect != Effect::Read)
            && self
                .toolsets
                .as_ref()
                .is_none_or(|sets| sets.iter().any(|s| s == tool.meta.toolset))
    }
}
