//! In-memory state: per-organization data, recorded calls, faults and document settings.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;

use crate::api::{Record, s};
use crate::auth::AppOauthKey;
use crate::contract::Violation;
use crate::contract_log::{self, ContractLog};
use crate::faults::Fault;
use crate::readings::Readings;
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
    /// Plans (`PlanV1`).
    pub plans: Vec<Record>,
    /// Plan items (`PlanItemV1`), of every plan.
    pub plan_items: Vec<Record>,
    /// Products (`ProductV1`).
    pub products: Vec<Record>,
    /// The fake's price table (not served: the document has no price resource).
    pub prices: Vec<Price>,
    /// Refunded cents per payment id, kept outside the `PaymentV1` record.
    pub refunded_cents: HashMap<String, i64>,
    /// Last invoice number used (`FAT-2026-000812` → 812).
    pub invoice_seq: u64,
    /// The generic responder's records (operations without a hand-written route).
    pub generic: crate::generic::store::Store,
}

/// One price of the fake's price table: the amount behind a plan item's `price_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Price {
    /// The price id (a `PlanItemV1.price_id`).
    pub id: String,
    /// The product it prices.
    pub product_id: String,
    /// Unit amount in subcentavos (÷10000 = BRL).
    pub unit_amount_subcents: i64,
}

impl OrgData {
    /// An organization with no data (any org other than the fixture's).
    pub fn empty(org_id: &str) -> OrgData {
        OrgData {
            organization: fixtures::empty_organization(org_id),
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

    /// The customer behind any record: a billing account's own customer, else the customer of
    /// the record's `billing_account_id`.
    pub fn customer_of(&self, rec: &Record) -> Option<&Record> {
        match s(rec, "customer_id") {
            Some(cid) => self.customers.iter().find(|c| s(c, "id") == Some(cid)),
            None => self.customer_of_account(s(rec, "billing_account_id")?),
        }
    }

    /// The product with this id.
    pub fn product(&self, id: &str) -> Option<&Record> {
        self.products.iter().find(|r| s(r, "id") == Some(id))
    }

    /// The plan with this id.
    pub fn plan(&self, id: &str) -> Option<&Record> {
        self.plans.iter().find(|r| s(r, "id") == Some(id))
    }

    /// The items of a plan, in fixture order.
    pub fn items_of_plan<'a>(&'a self, plan_id: &'a str) -> impl Iterator<Item = &'a Record> {
        self.plan_items
            .iter()
            .filter(move |r| s(r, "plan_id") == Some(plan_id))
    }

    /// The price with this id.
    pub fn price(&self, id: &str) -> Option<&Price> {
        self.prices.iter().find(|p| p.id == id)
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
    /// Requests that passed the gate and reached a route (a hand-written handler or the
    /// generic responder).
    pub handled: u64,
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
            handled: 0,
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

/// What the contract checks found in one fake instance (kept across [`App::reset`]).
#[derive(Debug, Default)]
pub struct ContractRecord {
    /// Ids of the operations matched so far.
    pub exercised: BTreeSet<String>,
    /// Every request or answer off the contract.
    pub violations: Vec<Violation>,
}

/// The contract side of an instance: its record and its run-wide log file.
#[derive(Debug)]
pub struct ContractState {
    record: Mutex<ContractRecord>,
    log: Option<ContractLog>,
}

impl ContractState {
    /// Notes a matched operation (logged when the server called it).
    pub fn exercised(&self, operation: &str, user_agent: Option<&str>) {
        self.record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .exercised
            .insert(operation.to_string());
        if let Some(log) = &self.log
            && contract_log::is_server(user_agent)
        {
            log.exercised(operation);
        }
    }

    /// Notes a request or answer off the contract (logged when the server sent the request).
    pub fn violation(&self, violation: Violation) {
        tracing::warn!(
            operation = violation.operation.as_deref().unwrap_or("-"),
            path = %violation.path,
            problems = ?violation.problems,
            "fake Kobana: off the contract"
        );
        if let Some(log) = &self.log
            && contract_log::is_server(violation.user_agent.as_deref())
        {
            log.violation(&violation);
        }
        self.record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .violations
            .push(violation);
    }

    /// The violations so far.
    pub fn violations(&self) -> Vec<Violation> {
        self.record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .violations
            .clone()
    }

    /// The operations matched so far, sorted.
    pub fn exercised_operations(&self) -> Vec<String> {
        self.record
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .exercised
            .iter()
            .cloned()
            .collect()
    }

    /// The run-wide log file of this instance, if any.
    pub fn log_path(&self) -> Option<&Path> {
        self.log.as_ref().map(ContractLog::path)
    }
}

/// Shared, cloneable handle on the state.
#[derive(Clone)]
pub struct App {
    inner: Arc<Mutex<Inner>>,
    contract: Arc<ContractState>,
    readings: Readings,
    app_oauth: Arc<Mutex<Vec<AppOauthKey>>>,
}

impl App {
    /// State loaded with the fixtures; the contract log follows `$KOBANA_CONTRACT_LOG`, the
    /// profile `$KOBANA_FAKE_READINGS`.
    pub fn new() -> App {
        App::with_log(ContractLog::from_env(), Readings::from_env())
    }

    /// State loaded with the fixtures, playing `readings`; the contract log follows
    /// `$KOBANA_CONTRACT_LOG`.
    pub fn with_readings(readings: Readings) -> App {
        App::with_log(ContractLog::from_env(), readings)
    }

    /// State loaded with the fixtures, logging the contract record to `dir`.
    pub fn with_contract_log(dir: &Path) -> App {
        App::with_log(Some(ContractLog::in_dir(dir)), Readings::from_env())
    }

    fn with_log(log: Option<ContractLog>, readings: Readings) -> App {
        static STARTED: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let instance = nanos ^ u128::from(STARTED.fetch_add(1, Ordering::Relaxed)) << 96;
        App {
            inner: Arc::new(Mutex::new(Inner::fresh(instance))),
            contract: Arc::new(ContractState {
                record: Mutex::default(),
                log,
            }),
            readings,
            app_oauth: Arc::new(Mutex::new(vec![AppOauthKey::builtin()])),
        }
    }

    /// The alternatives this instance plays.
    pub fn readings(&self) -> &Readings {
        &self.readings
    }

    /// The keys of Kobana's app OAuth whose tokens this instance takes, when its profile
    /// plays `token_issuer` = `kobana_app_oauth`; `None` under `billing_jwt`.
    pub fn app_oauth_keys(&self) -> Option<Vec<AppOauthKey>> {
        (self.readings.token_issuer == crate::readings::TokenIssuer::KobanaAppOauth).then(|| {
            self.app_oauth
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
        })
    }

    /// Takes `keys` as app OAuth keys too (the reset keeps them).
    pub fn trust_app_oauth(&self, keys: Vec<AppOauthKey>) {
        self.app_oauth
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(keys);
    }

    /// Locks the state (a poisoned lock is recovered: the data stays usable).
    pub fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The contract record and log of this instance.
    pub fn contract(&self) -> &ContractState {
        &self.contract
    }

    /// Back to the fixtures: data, faults, calls and document settings (the contract record
    /// stays).
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
