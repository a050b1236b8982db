//! Where entries live: the [`AuditStore`] trait, and the in-memory store of local runs.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;

use super::entry::{Entry, Outcome};

/// A boxed, sendable future (keeps the trait object safe without extra crates).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The store could not be reached or answered an error. The text is for the log only.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct AuditStoreError(pub String);

/// What a completed call adds to its entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// How it ended.
    pub outcome: Outcome,
    /// The organization whose trail now holds the entry (`None`: none).
    pub organization: Option<String>,
    /// Kobana's HTTP status.
    pub kobana_status: Option<u16>,
    /// Kobana's error code.
    pub kobana_code: Option<String>,
    /// Kobana's `Request-Id`.
    pub kobana_request_id: Option<String>,
    /// The affected record.
    pub record_id: Option<String>,
    /// When (RFC 3339).
    pub completed_at: String,
}

/// One organization's entries to read: a window of ids (time), filters, and how many
/// matching entries, newest first, are wanted.
#[derive(Debug, Clone)]
pub struct ListQuery {
    /// The organization Kobana proved.
    pub organization: String,
    /// The smallest id of the window (see [`super::entry::id_range`]).
    pub from_id: String,
    /// The largest id of the window.
    pub to_id: String,
    /// Only this tool.
    pub tool: Option<String>,
    /// Only this person.
    pub person: Option<String>,
    /// Only this outcome.
    pub outcome: Option<Outcome>,
    /// Matching entries wanted, newest first.
    pub want: usize,
}

impl ListQuery {
    /// Whether `entry` is one to read: of the organization, unexpired at `now` (Unix
    /// seconds), passing the filters (the window aside: the key condition sees to it).
    pub fn keeps(&self, entry: &Entry, now: i64) -> bool {
        entry.organization.as_deref() == Some(self.organization.as_str())
            && entry.expires_at > now
            && self.tool.as_deref().is_none_or(|t| entry.tool == t)
            && self.person.as_deref().is_none_or(|p| entry.person == p)
            && self.outcome.is_none_or(|o| entry.outcome == o)
    }
}

/// What a read found.
#[derive(Debug, Clone, Default)]
pub struct Listed {
    /// Matching entries, newest first, at most [`ListQuery::want`].
    pub entries: Vec<Entry>,
    /// The read stopped at its bound before the window's end: older entries were not looked
    /// at. Holds the oldest id looked at.
    pub stopped_at: Option<String>,
}

/// Where entries live (AU-3).
pub trait AuditStore: Send + Sync + std::fmt::Debug {
    /// Writes a new entry (before the call: outcome unknown, no organization; or whole, for a
    /// decline). Never overwrites one.
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>>;

    /// Completes the entry `id` after the call.
    fn complete<'a>(
        &'a self,
        id: &'a str,
        completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>>;

    /// One organization's entries in a window, newest first: one query.
    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>>;
}

/// Most entries the in-memory store keeps: the oldest go first past it.
pub const MEMORY_CAPACITY: usize = 100_000;

/// Entries in memory, by id (local runs; lost when the process ends).
#[derive(Debug, Default)]
pub struct MemoryAudit {
    entries: Mutex<BTreeMap<String, Entry>>,
}

impl MemoryAudit {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every entry, oldest first, organization or not (what an operator's export reads).
    pub fn all(&self) -> Vec<Entry> {
        self.entries().values().cloned().collect()
    }
}

impl AuditStore for MemoryAudit {
    fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async move {
            let mut entries = self.entries();
            if entries.contains_key(&entry.id) {
                return Err(AuditStoreError("entry already exists".into()));
            }
            let now = jiff::Timestamp::now().as_second();
            if entries.len() >= MEMORY_CAPACITY {
                entries.retain(|_, e| e.expires_at > now);
            }
            while entries.len() >= MEMORY_CAPACITY {
                entries.pop_first();
            }
            entries.insert(entry.id.clone(), entry.clone());
            Ok(())
        })
    }

    fn complete<'a>(
        &'a self,
        id: &'a str,
        completion: &'a Completion,
    ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
        Box::pin(async move {
            let mut entries = self.entries();
            let entry = entries
                .get_mut(id)
                .ok_or_else(|| AuditStoreError("no such entry".into()))?;
            complete_entry(entry, completion);
            Ok(())
        })
    }

    fn list<'a>(&'a self, query: &'a ListQuery) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
        Box::pin(async move {
            let now = jiff::Timestamp::now().as_second();
            let entries = self.entries();
            let found = entries
                .range(query.from_id.clone()..=query.to_id.clone())
                .rev()
                .map(|(_, e)| e)
                .filter(|e| query.keeps(e, now))
                .take(query.want)
                .cloned()
                .collect();
            Ok(Listed {
                entries: found,
                stopped_at: None,
            })
        })
    }
}

/// `entry` with `completion` applied (what the DynamoDB update does to the item).
pub fn complete_entry(entry: &mut Entry, completion: &Completion) {
    entry.outcome = completion.outcome;
    entry.organization = completion.organization.clone();
    entry.kobana_status = completion.kobana_status;
    entry.kobana_code = completion.kobana_code.clone();
    entry.kobana_request_id = completion.kobana_request_id.clone();
    entry.record_id = completion.record_id.clone();
    entry.completed_at = Some(completion.completed_at.clone());
}
