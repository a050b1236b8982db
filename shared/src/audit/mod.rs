//! The audit trail (AU-1…AU-6): who had the assistant change what at Kobana, and when.
//!
//! One [`Entry`] per write a tool call attempted or made, and per destructive call the person
//! declined. Tools do nothing for it: every write goes through the catalog's one write path
//! (`ToolCtx::write`), which writes the entry before the call to Kobana (outcome `unknown`)
//! and completes it after ([`CallAudit::begin`], [`Pending::finish`]); the confirmation gate
//! records declines ([`CallAudit::declined`]). If the store does not take the first write,
//! nothing is sent. An entry's organization is one Kobana accepted ([`trail`]); what it says
//! the write asked for is built from the request itself, without personal data
//! ([`summary`]).
//!
//! Entries live where the nonces do: in memory locally ([`MemoryAudit`]), in DynamoDB under
//! Lambda ([`DynamoAudit`], `AUDIT_TABLE`), for `AUDIT_RETENTION_DAYS`. The organization reads
//! them back through `billing_audit_list` and `kobana://billing/audit`, after Kobana proves
//! which organization the caller's token belongs to.
//!
//! It sits below the features (the catalog writes it, the gate records declines, the catalog
//! reads it) and above `kobana`, whose answers complete an entry.

mod dynamo;
mod entry;
mod store;
pub mod summary;
mod trail;

use std::sync::Arc;

pub use dynamo::{BY_ORGANIZATION, DynamoAudit, MAX_QUERY_PAGES};
pub use entry::{
    Client, Confirmation, EXTERNAL_ID, Entry, Operation, Outcome, id_range, new_id, rfc3339_millis,
};
pub use store::{
    AuditStore, AuditStoreError, BoxFuture, Completion, ListQuery, Listed, MemoryAudit,
};
pub use trail::{CallAudit, Pending, Trail};

/// The store the configuration names: DynamoDB when `AUDIT_TABLE` is set, else in memory.
pub fn store_for(config: &crate::config::Config) -> Arc<dyn AuditStore> {
    match &config.audit.table {
        Some(table) => Arc::new(DynamoAudit::new(table.clone())),
        None => Arc::new(MemoryAudit::new()),
    }
}

/// The trail the configuration names, over `store`.
pub fn trail_for(config: &crate::config::Config, store: Arc<dyn AuditStore>) -> Arc<Trail> {
    Arc::new(Trail::new(store, config.audit.retention_days))
}
