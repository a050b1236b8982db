//! The adversarial confirmation tests' own rig and reader: a stack whose store counts what
//! is written, and this suite's reading of a question and of what the fake Kobana received —
//! never the server's code. Shared by `truth.rs` and `refusals.rs`.

#![allow(
    dead_code,
    reason = "support shared by several areas; each area uses a part"
)]

use fake_kobana::fixtures::ids::{PAY_CARD, PAY_PIX};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::Stack;
pub use fake_kobana::routes::payments::brl;
use fake_kobana::{RecordedCall, full_token};
use kobana_mcp::confirm::{Clock, MemoryStore, NonceStore, StoreError};
use serde_json::{Value, json};

pub type Fut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A store that counts what is written to it, over any other store.
#[derive(Debug)]
pub struct CountingStore {
    pub inner: Arc<dyn NonceStore>,
    pub puts: AtomicUsize,
}

impl NonceStore for CountingStore {
    fn put<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        expires_at: i64,
    ) -> Fut<'a, Result<(), StoreError>> {
        self.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put(nonce, digest, expires_at)
    }

    fn consume<'a>(
        &'a self,
        nonce: &'a str,
        digest: &'a str,
        now: i64,
    ) -> Fut<'a, Result<bool, StoreError>> {
        self.inner.consume(nonce, digest, now)
    }
}

pub struct Rig {
    pub stack: Stack,
    pub store: Arc<CountingStore>,
}

pub async fn rig_over(inner: Arc<dyn NonceStore>, deadline: Duration) -> Rig {
    let store = Arc::new(CountingStore {
        inner,
        puts: AtomicUsize::new(0),
    });
    let clock: Clock = Arc::new(|| 1_900_000_000);
    let dyn_store: Arc<dyn NonceStore> = store.clone();
    let stack = Stack::start_full(
        move |c| c.kobana_timeout = deadline,
        Some((dyn_store, clock)),
    )
    .await;
    Rig { stack, store }
}

pub async fn memory_rig() -> Rig {
    rig_over(Arc::new(MemoryStore::new()), Duration::from_secs(10)).await
}

pub fn yes() -> Value {
    json!({"action": "accept", "content": {"confirm": true}})
}

impl Rig {
    pub async fn call(&self, token: &str, tool: &str, args: &Value, extra: Value) -> Value {
        self.stack.call_with_forms(token, tool, args, extra).await
    }

    pub fn puts(&self) -> usize {
        self.store.puts.load(Ordering::SeqCst)
    }

    /// The requests the fake received that change something.
    pub fn writes(&self) -> Vec<RecordedCall> {
        self.stack.fake.writes()
    }
}

mod reading;
pub use reading::*;

/// The records as they were when the person was asked.
pub struct Snapshot {
    pub customers: Vec<Value>,
    pub accounts: Vec<Value>,
    pub records: Vec<Value>,
    pub credits: Vec<Value>,
}

pub fn find<'a>(list: &'a [Value], id: &str) -> Option<&'a Value> {
    list.iter()
        .find(|r| r["id"] == id || r["external_id"] == id)
}

impl Snapshot {
    pub fn take(rig: &Rig, collection: &str) -> Self {
        let fake = &rig.stack.fake;
        Self {
            customers: fake.records("customers"),
            accounts: fake.records("billing_accounts"),
            records: fake.records(collection),
            credits: fake.records("credits"),
        }
    }

    /// The billing e-mail of the record's account: how the question names the payer when
    /// the account does not embed its customer (reading `account_customer`).
    pub fn payer_email(&self, record: &Value) -> Option<String> {
        let account = find(&self.accounts, record["billing_account_id"].as_str()?)?;
        account["billing_email"].as_str().map(str::to_owned)
    }

    pub fn payer_name(&self, record: &Value) -> Option<String> {
        let account = find(&self.accounts, record["billing_account_id"].as_str()?)?;
        let customer = find(&self.customers, account["customer_id"].as_str()?)?;
        customer["name"].as_str().map(str::to_owned)
    }
}

pub fn collection_of(tool: &str) -> &'static str {
    match tool {
        "billing_customers_delete" => "customers",
        "billing_subscriptions_cancel" => "subscriptions",
        "billing_invoices_void"
        | "billing_invoices_delete"
        | "billing_invoices_finalize"
        | "billing_invoices_issue_nfe"
        | "billing_invoices_mark_paid"
        | "billing_invoices_undo_payment"
        | "billing_invoices_apply_credits" => "invoices",
        "billing_payments_refund" => "payments",
        "billing_nfes_cancel" | "billing_nfes_issue" => "nfes",
        other => panic!("not a destructive tool: {other}"),
    }
}

/// What one case came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// An argument error, before anything was stored or sent.
    Refused,
    /// The record's state makes the action impossible: said, not asked (FH-3).
    Impossible,
    Asked,
}

macro_rules! ensure {
    ($cond:expr, $($fmt:tt)+) => {
        if !$cond {
            return Err(format!($($fmt)+));
        }
    };
}

mod asked;
mod settlement;
use settlement::{Seen, compare_settlement};

/// Runs one call of a destructive tool: an argument error before anything is stored or sent,
/// or a question whose facts equal those of the request the fake received after a yes.
pub async fn check_case(rig: &Rig, tool: &str, args: &Value) -> Result<(Outcome, String), String> {
    let token = full_token();
    let snapshot = Snapshot::take(rig, collection_of(tool));
    let refunded_before =
        rig.stack.fake.refunded_cents(PAY_CARD) + rig.stack.fake.refunded_cents(PAY_PIX);
    let (puts, writes) = (rig.puts(), rig.writes().len());
    let body = rig.call(&token, tool, args, json!({})).await;
    let result = &body["result"];
    if result["resultType"] != "input_required" {
        let code = crate::common::error_code(result);
        ensure!(
            result["isError"] == true
                && (code == "INVALID_ARGUMENTS" || code == "STATE_FORBIDS_ACTION"),
            "neither a question nor an argument or state error: {body}"
        );
        ensure!(
            rig.puts() == puts,
            "an argument error stored a confirmation"
        );
        ensure!(
            rig.writes().len() == writes,
            "an argument error reached Kobana"
        );
        let outcome = if code == "STATE_FORBIDS_ACTION" {
            Outcome::Impossible
        } else {
            Outcome::Refused
        };
        return Ok((outcome, crate::common::text_of(result)));
    }
    ensure!(
        rig.puts() == puts + 1,
        "one confirmation stored per question"
    );
    ensure!(rig.writes().len() == writes, "asking sent a write");
    let message = result["inputRequests"]["confirm"]["params"]["message"]
        .as_str()
        .ok_or("no message")?
        .to_owned();
    let state = result["requestState"]
        .as_str()
        .ok_or("no state")?
        .to_owned();
    let read = read_question(&message)?;
    let done = rig
        .call(
            &token,
            tool,
            args,
            json!({"requestState": state, "inputResponses": {"confirm": yes()}}),
        )
        .await;
    ensure!(
        done["result"]["resultType"] != "input_required",
        "a yes asked again: {done}"
    );
    let sent = rig.writes();
    ensure!(
        sent.len() == writes + 1,
        "a yes sent {} writes",
        sent.len() - writes
    );
    let call = sent.last().unwrap();
    let succeeded = done["result"]["isError"] == false;
    let refunded = rig.stack.fake.refunded_cents(PAY_CARD) + rig.stack.fake.refunded_cents(PAY_PIX)
        - refunded_before;
    let after = Snapshot::take(rig, collection_of(tool));
    compare(
        tool,
        &read,
        &message,
        call,
        (&snapshot, &after),
        succeeded,
        refunded,
    )?;
    Ok((Outcome::Asked, message))
}

/// The question's facts against the request the fake received (and the records it names).
#[allow(
    clippy::too_many_arguments,
    reason = "each fact the question states beside what the fake saw"
)]
pub fn compare(
    tool: &str,
    read: &Read,
    message: &str,
    call: &RecordedCall,
    (snapshot, after): (&Snapshot, &Snapshot),
    succeeded: bool,
    refunded: i64,
) -> Result<(), String> {
    let facts = read.facts.as_str();
    let body = call.body.clone().unwrap_or(Value::Null);
    let segments: Vec<&str> = call.path.trim_start_matches("/v1/").split('/').collect();
    let id = segments.get(1).copied().unwrap_or_default();
    let record = find(&snapshot.records, id)
        .ok_or_else(|| format!("the fake has no record {id} ({})", call.path))?;
    let quote = |label: &str| {
        read.quotes
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, q)| q.as_str())
    };
    let mut expected_amounts: Vec<String> = Vec::new();
    let check_reason = || asked::reason(&body, facts, &quote);
    let check_payer = |record: &Value| asked::payer(snapshot, record, &quote);
    let asked = asked::Asked {
        tool,
        facts,
        message,
        body: &body,
        call,
        segments: &segments,
        record,
        succeeded,
        refunded,
        quote: &quote,
        payer: &check_payer,
        reason: &check_reason,
    };
    match tool {
        "billing_customers_delete" => asked::customers_delete(&asked)?,
        "billing_subscriptions_cancel" => {
            asked::subscriptions_cancel(&asked, &mut expected_amounts)?
        }
        "billing_invoices_void" | "billing_invoices_delete" => {
            asked::invoices_void_or_delete(&asked, &mut expected_amounts)?
        }
        "billing_payments_refund" => asked::payments_refund(&asked, &mut expected_amounts)?,
        "billing_nfes_cancel" => asked::nfes_cancel(&asked, &mut expected_amounts)?,
        other => {
            let quote = |label: &str| quote(label).map(str::to_owned);
            let seen = Seen {
                tool: other,
                facts,
                body: &body,
                call,
                segments: &segments,
                record,
                before: snapshot,
                after,
                succeeded,
                quote: &quote,
                payer: &check_payer,
                reason: &check_reason,
            };
            compare_settlement(&seen, &mut expected_amounts)?;
        }
    }
    for amount in amounts(facts) {
        ensure!(
            expected_amounts.contains(&amount),
            "{amount} in the facts is none of {expected_amounts:?}: {facts}"
        );
    }
    for amount in &expected_amounts {
        ensure!(facts.contains(amount.as_str()), "{amount} not in {facts}");
    }
    Ok(())
}
