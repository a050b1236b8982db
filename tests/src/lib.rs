//! A fake of Kobana's Automatic Billing API (v1) for tests and local demos.
//!
//! It serves the reference fixtures (§10 of `kobana-billing-api.md`) for
//! [`FIXTURE_ORG_ID`], keeps every change in memory, checks `User-Agent`, HS512 bearer
//! tokens and per-endpoint permissions like Kobana, holds every request and answer to the
//! contract transcribed from Kobana's OpenAPI document ([`contract`]; off-contract requests
//! get `400 contract_violation`), records every `/v1/*` request, and lets a test inject
//! faults (error statuses, latency, connection resets, truncated JSON).
//!
//! With `KOBANA_CONTRACT_LOG=<dir>`, every instance also appends what the MCP server
//! exercised and every violation to a file in `<dir>` ([`contract_log`]); the
//! `contract-report` binary ([`report`]) sums a whole run up.
//!
//! ```no_run
//! # async fn demo() {
//! let fake = fake_kobana::FakeKobana::start().await;
//! let url = format!("{}/v1/invoices/pending-payment", fake.base_url());
//! let token = fake_kobana::full_token();
//! # let _ = (url, token);
//! # }
//! ```

pub mod api;
pub mod auth;
pub mod bodies;
pub mod clock;
pub mod contract;
pub mod contract_log;
pub mod control;
pub mod demo;
pub mod documents;
pub mod faults;
pub mod fixtures;
pub mod gate;
pub mod generic;
pub mod hostile;
pub mod ids;
pub mod readings;
pub mod report;
pub mod routes;
pub mod store;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::serve::ListenerExt;
use serde::{Deserialize, Serialize};

pub use auth::{
    AppOauthKey, Claims, FIXTURE_ORG_ID, JWT_SECRET, app_oauth_token, app_oauth_token_in,
    expired_token, full_token, full_token_in, mint_token, readonly_token, scoped_token,
};
pub use clock::FAKE_NOW;
pub use contract::{Violation, ViolationKind};
pub use faults::{Fault, FaultKind};
pub use readings::Readings;
use store::App;

/// Which generated document a PDF belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocKind {
    /// `GET /v1/invoices/{id}/pdf`.
    Invoice,
    /// `GET /v1/nfes/{id}/pdf` (DANFSe).
    Nfe,
}

/// One `/v1/*` request as the fake received it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    /// HTTP method.
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// Raw query string, if any.
    pub query: Option<String>,
    /// The idempotency key under the header name the fake reads (`X-Idempotency-Key`, or
    /// `Idempotency-Key` under the `others` profile), if sent.
    pub idempotency_key: Option<String>,
    /// The idempotency header names the request carried, lower case.
    #[serde(default)]
    pub idempotency_headers: Vec<String>,
    /// `User-Agent`, if sent.
    pub user_agent: Option<String>,
    /// False when the request failed the `User-Agent`, token or permission check.
    pub authorized: bool,
    /// The person (`sub`) of the token the fake verified, if it took one: whose billing token
    /// reached Kobana.
    #[serde(default)]
    pub person: Option<String>,
    /// The JSON body (a string when the body was not JSON), if any.
    pub body: Option<serde_json::Value>,
}

/// A running fake; the server stops when this handle is dropped.
pub struct FakeKobana {
    app: App,
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

/// The whole application: control routes, `/v1` routes, the gate and the 404 fallback.
pub fn app_router(app: App) -> Router {
    Router::new()
        .merge(control::router())
        .merge(routes::router())
        .fallback(generic::respond)
        .layer(from_fn_with_state(app.clone(), gate::gate))
        .with_state(app)
}

pub(crate) fn set_pdf_size_in(app: &App, id: &str, bytes: usize) {
    let mut inner = app.lock();
    inner.pdf_sizes.insert(id.to_string(), bytes);
    inner.pdf_cache.retain(|(_, cached), _| cached != id);
}

impl FakeKobana {
    /// Start on 127.0.0.1 with an ephemeral port (tests). Spawns on the current tokio runtime.
    pub async fn start() -> FakeKobana {
        Self::start_on(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("bind the fake Kobana on 127.0.0.1")
    }

    /// Start on a given address (standalone binary / demo mode). Only loopback addresses are
    /// accepted. The contract record goes to `$KOBANA_CONTRACT_LOG` when set.
    pub async fn start_on(addr: SocketAddr) -> std::io::Result<FakeKobana> {
        Self::serve(addr, App::new()).await
    }

    /// Start on 127.0.0.1 with an ephemeral port, playing `readings` whatever
    /// `$KOBANA_FAKE_READINGS` says.
    pub async fn start_with_readings(readings: Readings) -> FakeKobana {
        Self::serve(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            App::with_readings(readings),
        )
        .await
        .expect("bind the fake Kobana on 127.0.0.1")
    }

    /// The alternatives this fake plays.
    pub fn readings(&self) -> Readings {
        *self.app.readings()
    }

    /// A full-access token in the scope vocabulary this fake plays.
    pub fn full_token(&self) -> String {
        auth::full_token_in(self.readings().scope_words)
    }

    /// A full-access token of Kobana's app OAuth (RS256, not a billing JWT) in the scope
    /// vocabulary this fake plays: taken only where the profile plays `token_issuer` =
    /// `kobana_app_oauth`.
    pub fn app_oauth_token(&self) -> String {
        auth::app_oauth_token_in(self.readings().scope_words)
    }

    /// Takes the RSA keys of `jwks` (an authorization server's JWK set, e.g. the OAuth
    /// stand-in's `/jwks`) as keys of Kobana's app OAuth; returns how many were added.
    pub fn trust_app_oauth(&self, jwks: &serde_json::Value) -> usize {
        let keys = AppOauthKey::from_jwks(jwks);
        let added = keys.len();
        self.app.trust_app_oauth(keys);
        added
    }

    /// Start on 127.0.0.1 with an ephemeral port, writing the contract record to `dir`
    /// whatever `$KOBANA_CONTRACT_LOG` says.
    pub async fn start_with_contract_log(dir: &Path) -> std::io::Result<FakeKobana> {
        Self::serve(
            SocketAddr::from(([127, 0, 0, 1], 0)),
            App::with_contract_log(dir),
        )
        .await
    }

    async fn serve(addr: SocketAddr, app: App) -> std::io::Result<FakeKobana> {
        if !addr.ip().is_loopback() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the fake Kobana only binds loopback addresses, not {addr}"),
            ));
        }
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let listener = listener.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let router = app_router(app.clone());
        let task = tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router).await {
                tracing::error!(error = %e, "fake Kobana server stopped");
            }
        });
        Ok(FakeKobana { app, addr, task })
    }

    /// Base URL WITHOUT the version path, e.g. `http://127.0.0.1:41234`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// How many `/v1/*` requests passed the gate and reached a route (hand-written or the
    /// generic responder): an off-contract request never does.
    pub fn handled(&self) -> u64 {
        self.app.lock().handled
    }

    /// Every `/v1/*` request received so far, in order.
    pub fn calls(&self) -> Vec<RecordedCall> {
        self.app.lock().calls.clone()
    }

    /// The requests received so far that change something (every method but GET), in order.
    pub fn writes(&self) -> Vec<RecordedCall> {
        let app = self.app.lock();
        app.calls
            .iter()
            .filter(|c| c.method != "GET")
            .cloned()
            .collect()
    }

    /// Forgets the recorded requests.
    pub fn clear_calls(&self) {
        self.app.lock().calls.clear();
    }

    /// Queues a fault for the next matching requests.
    pub fn inject(&self, fault: Fault) {
        self.app.lock().faults.push(fault);
    }

    /// The cents refunded so far from a payment of the fixture organization (what Kobana
    /// keeps outside `PaymentV1`): how many refunds actually applied.
    pub fn refunded_cents(&self, payment_id: &str) -> i64 {
        self.app
            .lock()
            .org(FIXTURE_ORG_ID)
            .refunded_cents
            .get(payment_id)
            .copied()
            .unwrap_or(0)
    }

    /// A record of the fixture organization as stored (`collection`: `customers`,
    /// `billing_accounts`, `subscriptions`, `invoices`, `payments`, `nfes`, `credits`;
    /// customers also by `external_id`).
    pub fn record(&self, collection: &str, id: &str) -> Option<serde_json::Value> {
        let mut inner = self.app.lock();
        let org = inner.org(FIXTURE_ORG_ID);
        let list = records_of(org, collection)?;
        list.iter()
            .find(|r| {
                api::s(r, "id") == Some(id)
                    || (collection == "customers" && api::s(r, "external_id") == Some(id))
            })
            .map(|r| serde_json::Value::Object(r.clone()))
    }

    /// Every stored record of a collection of the fixture organization (see
    /// [`FakeKobana::record`]), soft-deleted customers included.
    pub fn records(&self, collection: &str) -> Vec<serde_json::Value> {
        let mut inner = self.app.lock();
        let org = inner.org(FIXTURE_ORG_ID);
        records_of(org, collection)
            .map(|list| {
                list.iter()
                    .map(|r| serde_json::Value::Object(r.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Sets members of a stored record of the fixture organization (as an unconfirmed write,
    /// or Kobana itself, could have): e.g. a hostile customer name or invoice number. Returns
    /// whether the record exists.
    pub fn update_record(&self, collection: &str, id: &str, fields: serde_json::Value) -> bool {
        let mut inner = self.app.lock();
        let org = inner.org(FIXTURE_ORG_ID);
        let Some(list) = records_of(org, collection) else {
            return false;
        };
        let Some(record) = list.iter_mut().find(|r| api::s(r, "id") == Some(id)) else {
            return false;
        };
        if let serde_json::Value::Object(fields) = fields {
            record.extend(fields);
        }
        true
    }

    /// Adds a record to a collection of the fixture organization, as Kobana itself could have
    /// (a pending boleto, an invoice with installments). Returns whether the collection
    /// exists.
    pub fn insert_record(&self, collection: &str, record: serde_json::Value) -> bool {
        let mut inner = self.app.lock();
        let org = inner.org(FIXTURE_ORG_ID);
        match (records_of(org, collection), record) {
            (Some(list), serde_json::Value::Object(record)) => {
                list.push(record);
                true
            }
            _ => false,
        }
    }

    /// A boleto's due date (`YYYY-MM-DD`) as `POST /v1/payments/{id}/change-due-date` last set
    /// it (the fixture organization), `None` while never changed.
    pub fn boleto_due_date(&self, payment_id: &str) -> Option<String> {
        self.app
            .lock()
            .org(FIXTURE_ORG_ID)
            .boleto_due_dates
            .get(payment_id)
            .cloned()
    }

    /// Removes every queued fault.
    pub fn clear_faults(&self) {
        self.app.lock().faults.clear();
    }

    /// Makes documents of this id have this many bytes (at least 15).
    pub fn set_pdf_size(&self, id: &str, bytes: usize) {
        set_pdf_size_in(&self.app, id, bytes);
    }

    /// The exact bytes served for `GET /v1/invoices/{id}/pdf` or `/v1/nfes/{id}/pdf`, or
    /// `None` when no organization serves that document (unknown id, draft invoice, NF-e
    /// never issued).
    pub fn pdf_bytes(&self, kind: DocKind, id: &str) -> Option<Vec<u8>> {
        documents::exists(&self.app, kind, id)
            .then(|| documents::pdf_bytes(&self.app, kind, id).to_vec())
    }

    /// Serve PDFs chunked, without `Content-Length` (default: with `Content-Length`).
    pub fn set_pdf_content_length(&self, send: bool) {
        self.app.lock().pdf_content_length = send;
    }

    /// Resets data, faults, calls and document settings to the fixtures (the contract record
    /// stays: a violation is never forgotten).
    pub fn reset(&self) {
        self.app.reset();
    }

    /// Every request and answer off the contract so far, in order (requests from any
    /// `User-Agent`).
    pub fn contract_violations(&self) -> Vec<Violation> {
        self.app.contract().violations()
    }

    /// The ids of the contract operations matched so far, sorted.
    pub fn exercised_operations(&self) -> Vec<String> {
        self.app.contract().exercised_operations()
    }

    /// The file this instance writes the run-wide contract record to, if it logs.
    pub fn contract_log_path(&self) -> Option<PathBuf> {
        self.app.contract().log_path().map(Path::to_path_buf)
    }
}

fn records_of<'a>(
    org: &'a mut store::OrgData,
    collection: &str,
) -> Option<&'a mut Vec<api::Record>> {
    Some(match collection {
        "customers" => &mut org.customers,
        "billing_accounts" => &mut org.billing_accounts,
        "subscriptions" => &mut org.subscriptions,
        "invoices" => &mut org.invoices,
        "payments" => &mut org.payments,
        "nfes" => &mut org.nfes,
        "plans" => &mut org.plans,
        "products" => &mut org.products,
        "credits" => &mut org.credits,
        _ => return None,
    })
}

impl Drop for FakeKobana {
    fn drop(&mut self) {
        self.task.abort();
    }
}
