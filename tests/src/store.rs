//! In-memory state: per-organization data, recorded calls, faults and document settings.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;
use serde_json::Value;

use crate::api::{Record, s};
use crate::faults::Fault;
use crate::{DocKind, RecordedCall, fixtures, ids};

/// Default size of a generated PDF, in bytes.
pub const DEFAULT_PDF_SIZE: usize = 20 * 1024;

/// One organization's records.
#[derive(Clone, Debug, Default)]
pub struct OrgData {
    /// The organization object served by `GET /v1/organization`.
    pub organization: Record,
    /// Customers, including soft-deleted ones (see `deleted_customers`).
    pub customers: Vec<Record>,
    /// Ids of soft-deleted customers.
    pub deleted_customers: HashSet<String>,
    /// Billing accounts.
    pub billing_accounts: Vec<Record>,
    /// Subscriptions.
    pub subscriptions: Vec<Record>,
    /// Invoices.
    pub invoices: Vec<Record>,
    /// Payments.
    pub payments: Vec<Record>,
    /// NF-e.
    pub nfes: Vec<Record>,
    /// Last invoice number used (`FAT-2026-000812` → 812).
    pub invoice_seq: u64,
}

impl OrgData {
    /// An organization with no data (any org other than the fixture's).
    pub fn empty(org_id: &str) -> OrgData {
        let mut organization = Record::new();
        organization.insert("id".into(), Value::String(org_id.to_string()));
        let short: String = org_id.chars().take(8).collect();
        organization.insert("name".into(), Value::String(format!("Organização {short}")));
        organization.insert("document_number".into(), Value::Null);
        OrgData {
            organization,
            ..OrgData::default()
        }
    }

    /// Finds a live (not soft-deleted) customer by UUID or `external_id`.
    pub fn customer_idx(&self, key: &str) -> Option<usize> {
        self.customers.iter().position(|c| {
            let id = s(c, "id").unwrap_or_default();
            !self.deleted_customers.contains(id) && (id == key || s(c, "external_id") == Some(key))
        })
    }

    /// Index of a record with this id.
    pub fn idx(list: &[Record], id: &str) -> Option<usize> {
        list.iter().position(|r| s(r, "id") == Some(id))
    }

    /// The billing account with this id.
    pub fn billing_account(&self, id: &str) -> Option<&Record> {
        self.billing_accounts
            .iter()
            .find(|r| s(r, "id") == Some(id))
    }

    /// The customer (deleted or not) behind a billing account.
    pub fn customer_of_account(&self, billing_account_id: &str) -> Option<&Record> {
        let cid = s(self.billing_account(billing_account_id)?, "customer_id")?;
        self.customers.iter().find(|c| s(c, "id") == Some(cid))
    }
}

/// A response stored under an idempotency key.
#[derive(Clone, Debug)]
pub struct StoredResponse {
    /// Method of the original request.
    pub method: String,
    /// Path of the original request.
    pub path: String,
    /// Status of the original response.
    pub status: u16,
    /// Content type of the original response.
    pub content_type: Option<String>,
    /// Body of the original response.
    pub body: Bytes,
}

/// Everything behind the lock.
pub struct Inner {
    /// Data per organization id.
    pub orgs: HashMap<String, OrgData>,
    /// Recorded `/v1/*` requests.
    pub calls: Vec<RecordedCall>,
    /// Queued faults, matched in order.
    pub faults: Vec<Fault>,
    /// Configured PDF sizes per document id.
    pub pdf_sizes: HashMap<String, usize>,
    /// Whether PDFs carry `Content-Length`.
    pub pdf_content_length: bool,
    /// Generated PDFs: (kind, id) → (size, bytes).
    pub pdf_cache: HashMap<(DocKind, String), (usize, Bytes)>,
    /// Idempotency keys: (org, key) → response.
    pub idempotency: HashMap<(String, String), StoredResponse>,
    /// Counter for generated record ids.
    pub id_counter: u64,
    /// Counter for request ids.
    pub request_counter: u64,
    /// Per-instance seed so request ids differ between fakes.
    pub instance: u128,
    /// Rate-limit window: (unix second, org) → requests.
    pub rate_window: (i64, HashMap<String, u32>),
}

impl Inner {
    fn fresh(instance: u128) -> Inner {
        let mut orgs = HashMap::new();
        orgs.insert(crate::FIXTURE_ORG_ID.to_string(), fixtures::fixture_org());
        Inner {
            orgs,
            calls: Vec::new(),
            faults: Vec::new(),
            pdf_sizes: HashMap::new(),
            pdf_content_length: true,
            pdf_cache: HashMap::new(),
            idempotency: HashMap::new(),
            id_counter: 0,
            request_counter: 0,
            instance,
            rate_window: (0, HashMap::new()),
        }
    }

    /// The data of an organization, created empty on first use.
    pub fn org(&mut self, org_id: &str) -> &mut OrgData {
        self.orgs
            .entry(org_id.to_string())
            .or_insert_with(|| OrgData::empty(org_id))
    }

    /// A new deterministic UUID.
    pub fn new_id(&mut self, what: &str) -> String {
        self.id_counter += 1;
        ids::derived_uuid(&format!("fake-kobana:{what}:{}", self.id_counter))
    }

    /// A new request id for the `Request-Id` header.
    pub fn request_id(&mut self) -> String {
        self.request_counter += 1;
        ids::derived_uuid(&format!(
            "fake-kobana:request:{}:{}",
            self.instance, self.request_counter
        ))
    }
}

/// Shared, cloneable handle on the state.
#[derive(Clone)]
pub struct App(Arc<Mutex<Inner>>);

impl App {
    /// State loaded with the fixtures.
    pub fn new() -> App {
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let instance = nanos ^ u128::from(STARTED.fetch_add(1, Ordering::Relaxed)) << 96;
        App(Arc::new(Mutex::new(Inner::fresh(instance))))
    }

    /// Locks the state (a poisoned lock is recovered: the data stays usable).
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Back to the fixtures: data, faults, calls and document settings.
    pub fn reset(&self) {
        let mut inner = self.lock();
        let instance = inner.instance;
        *inner = Inner::fresh(instance);
    }
}

impl Default for App {
    fn default() -> Self {
        App::new()
    }
}
