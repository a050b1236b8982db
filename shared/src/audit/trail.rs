//! Writing the trail: the instance's [`Trail`], what one tool call brings to it
//! ([`CallAudit`]), and an entry between its call to Kobana and its completion ([`Pending`]).
//!
//! **Whose trail.** An entry's organization is one Kobana accepted. The claims of the token
//! are read, never verified; Kobana verifies them on every call. So the entry written before
//! the call has no organization (the claimed one is kept apart, for the operator), and the
//! completion gives it the token's `org_id` only when Kobana answered with anything but 401,
//! or did not answer at all (the write may have been applied: it must stay in the trail). A
//! write Kobana refused with 401, or one that never reached Kobana, stays under no
//! organization: a forged token cannot plant a line in another organization's trail. A token
//! that names no organization (no `org_id`) leaves its entries under none either; only the
//! operator's export shows them. A decline joins the organization only when the question's
//! single-use state was really consumed — the question itself was made with a token Kobana
//! accepted.

use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::entry::{self, Client, Confirmation, Entry, Outcome};
use super::store::{AuditStore, AuditStoreError, Completion};
use super::summary;
use crate::access::Principal;
use crate::kobana::{Envelope, KobanaError};
use crate::telemetry::RequestRecord;
use crate::telemetry::record::AuditNote;

/// Longest `Request-Id` kept.
const MAX_REQUEST_ID: usize = 128;

/// The trail of this server: its store and how long entries stay.
#[derive(Debug)]
pub struct Trail {
    store: Arc<dyn AuditStore>,
    retention_days: u32,
}

impl Trail {
    /// A trail over `store` whose entries expire after `retention_days`.
    pub fn new(store: Arc<dyn AuditStore>, retention_days: u32) -> Self {
        Self {
            store,
            retention_days,
        }
    }

    /// The store.
    pub fn store(&self) -> &dyn AuditStore {
        self.store.as_ref()
    }

    /// `now` (Unix milliseconds) plus the retention, in Unix seconds.
    fn expiry(&self, now_ms: i64) -> i64 {
        (now_ms / 1000).saturating_add(i64::from(self.retention_days) * 86_400)
    }
}

/// What one tool call brings to the trail: the trail, and for a call that may write, who,
/// through which client, which tool and arguments, and how it was confirmed.
#[derive(Debug, Clone)]
pub struct CallAudit {
    trail: Arc<Trail>,
    call: Option<Arc<CallFacts>>,
}

/// The facts of one call that may write.
#[derive(Debug, Clone)]
struct CallFacts {
    tool: &'static str,
    arguments_sha256: String,
    person: String,
    claimed_organization: Option<String>,
    client: Client,
    /// `None` until the gate settles it (a call the server asks about).
    confirmation: Option<Confirmation>,
    record: Option<Arc<RequestRecord>>,
}

impl CallAudit {
    /// The trail for a call that only reads it (resources, prompts, read tools).
    pub fn reader(trail: Arc<Trail>) -> Self {
        Self { trail, call: None }
    }

    /// The trail for a call of `tool` that may write: `arguments` as the client sent them,
    /// the request's `record` (client, era; metrics), and the confirmation as it stands
    /// before the gate ([`Confirmation::before_gate`]).
    pub fn for_call(
        trail: Arc<Trail>,
        tool: &'static str,
        arguments: Option<&serde_json::Map<String, Value>>,
        principal: &Principal,
        record: Option<Arc<RequestRecord>>,
        confirmation: Option<Confirmation>,
    ) -> Self {
        let arguments = Value::Object(arguments.cloned().unwrap_or_default());
        let canonical = crate::canonical::canonical_json(&arguments);
        let client = record.as_deref().map(client_of).unwrap_or_default();
        let claimed = &principal.organization;
        Self {
            trail,
            call: Some(Arc::new(CallFacts {
                tool,
                arguments_sha256: hex(&Sha256::digest(canonical.as_bytes())),
                person: principal.person.clone(),
                claimed_organization: (!claimed.starts_with("token:")).then(|| claimed.clone()),
                client,
                confirmation,
                record,
            })),
        }
    }

    /// The trail itself (to read it).
    pub fn trail(&self) -> &Trail {
        &self.trail
    }

    /// The person confirmed this call's write (the gate).
    pub fn confirmed(&mut self) {
        if let Some(call) = &mut self.call {
            Arc::make_mut(call).confirmation = Some(Confirmation::AskedConfirmed);
        }
    }

    /// The pt-BR note the result carries when a destructive tool runs without the server's
    /// question (AU-5).
    pub fn unasked_note(&self) -> Option<&'static str> {
        self.call.as_ref()?.confirmation?.unasked_note()
    }

    /// Writes the entry of a write about to be sent (outcome `unknown`, no organization yet).
    /// An error means the store did not take it: the write must not be sent.
    pub async fn begin<S: AsRef<str>>(
        &self,
        method: &str,
        segments: &[S],
        body: Option<&Value>,
    ) -> Result<Pending, AuditStoreError> {
        let call = self
            .call
            .clone()
            .ok_or_else(|| AuditStoreError("a write outside a tool call".into()))?;
        let Some(confirmation) = call.confirmation else {
            return Err(AuditStoreError(
                "a write the server should have asked about reached Kobana's door".into(),
            ));
        };
        let entry = self.entry(
            &call,
            method,
            segments,
            body,
            confirmation,
            Outcome::Unknown,
        )?;
        if let Err(error) = self.trail.store.put(&entry).await {
            tracing::error!(tool = call.tool, %error, "audit store refused the entry: nothing sent");
            note(&call, None, Some("begin"));
            return Err(error);
        }
        Ok(Pending {
            trail: self.trail.clone(),
            call,
            id: entry.id,
            segments: segments.iter().map(|s| s.as_ref().to_owned()).collect(),
        })
    }

    /// Records a destructive call the person declined: one whole entry. It joins the
    /// organization only when `consumed` (the question's state was ours and used now).
    pub async fn declined<S: AsRef<str>>(
        &self,
        method: &str,
        segments: &[S],
        body: Option<&Value>,
        consumed: bool,
    ) {
        let Some(call) = self.call.clone() else {
            return;
        };
        let Ok(mut entry) = self.entry(
            &call,
            method,
            segments,
            body,
            Confirmation::AskedDeclined,
            Outcome::Declined,
        ) else {
            return;
        };
        if consumed {
            entry.organization = call.claimed_organization.clone();
        }
        entry.completed_at = Some(entry.at.clone());
        let failure = match self.trail.store.put(&entry).await {
            Ok(()) => None,
            Err(error) => {
                tracing::warn!(tool = call.tool, %error, "audit store refused a declined call's entry");
                Some("decline")
            }
        };
        note(&call, Some(Outcome::Declined), failure);
    }

    fn entry<S: AsRef<str>>(
        &self,
        call: &CallFacts,
        method: &str,
        segments: &[S],
        body: Option<&Value>,
        confirmation: Confirmation,
        outcome: Outcome,
    ) -> Result<Entry, AuditStoreError> {
        let now = jiff::Timestamp::now().as_millisecond();
        let id = entry::new_id(now).map_err(|e| AuditStoreError(format!("no randomness: {e}")))?;
        Ok(Entry {
            id,
            at: entry::rfc3339_millis(now),
            organization: None,
            claimed_organization: call.claimed_organization.clone(),
            person: call.person.clone(),
            client: call.client.clone(),
            tool: call.tool.to_owned(),
            operation: summary::operation(method, segments),
            arguments_sha256: call.arguments_sha256.clone(),
            summary: summary::summary(body),
            confirmation,
            outcome,
            kobana_status: None,
            kobana_code: None,
            kobana_request_id: None,
            record_id: None,
            completed_at: None,
            expires_at: self.trail.expiry(now),
        })
    }
}

/// An entry written before its call to Kobana, to be completed with the answer.
#[derive(Debug)]
pub struct Pending {
    trail: Arc<Trail>,
    call: Arc<CallFacts>,
    id: String,
    segments: Vec<String>,
}

impl Pending {
    /// The entry's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Completes the entry with what Kobana answered. When the store cannot take it the
    /// entry stays `unknown`: a WARN line and the `AuditStoreFailures` metric say so, and the
    /// caller goes on with Kobana's answer.
    pub async fn finish(self, sent: Result<&Envelope, &KobanaError>) {
        let completion = self.completion(sent);
        let outcome = completion.outcome;
        let failure = match self.trail.store.complete(&self.id, &completion).await {
            Ok(()) => None,
            Err(error) => {
                tracing::warn!(
                    tool = self.call.tool,
                    entry = %self.id,
                    outcome = outcome.as_str(),
                    %error,
                    "audit entry not completed: it stays unknown"
                );
                Some("complete")
            }
        };
        let shown = if failure.is_some() {
            Outcome::Unknown
        } else {
            outcome
        };
        note(&self.call, Some(shown), failure);
    }

    fn completion(&self, sent: Result<&Envelope, &KobanaError>) -> Completion {
        let (outcome, status, code, request_id) = match sent {
            Ok(envelope) => (
                Outcome::Done,
                Some(envelope.status),
                None,
                envelope.request_id.as_deref(),
            ),
            Err(
                error @ KobanaError::Api {
                    status, request_id, ..
                },
            ) => (
                Outcome::Refused,
                Some(*status),
                error.code(),
                request_id.as_deref(),
            ),
            Err(error) if error.may_have_applied() => {
                (Outcome::Unknown, error.status(), None, None)
            }
            Err(error) => (Outcome::Failed, error.status(), None, None),
        };
        // Kobana accepted the token: it answered (anything but 401), or the write may have
        // been applied without an answer.
        let accepted = match outcome {
            Outcome::Refused => status != Some(401),
            Outcome::Done | Outcome::Unknown => true,
            Outcome::Failed | Outcome::Declined => false,
        };
        let data = sent.ok().map(|envelope| &envelope.data);
        Completion {
            outcome,
            organization: self.call.claimed_organization.clone().filter(|_| accepted),
            kobana_status: status,
            kobana_code: code.map(str::to_owned),
            kobana_request_id: request_id.and_then(safe_request_id),
            record_id: summary::record_id(data, &self.segments),
            completed_at: entry::rfc3339_millis(jiff::Timestamp::now().as_millisecond()),
        }
    }
}

/// Kobana's `Request-Id` when it is a plain token (letters, digits, `-_.:`), else nothing.
fn safe_request_id(id: &str) -> Option<String> {
    let ok = !id.is_empty()
        && id.len() <= MAX_REQUEST_ID
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'));
    ok.then(|| id.to_owned())
}

/// The client of the request, as its record has it.
fn client_of(record: &RequestRecord) -> Client {
    let fields = record.snapshot();
    Client {
        name: fields.client_name,
        version: fields.client_version,
        era: fields.era.map(str::to_owned),
        protocol_version: fields.protocol_version,
    }
}

/// Notes an entry (or a store failure) for the request's metrics.
fn note(call: &CallFacts, outcome: Option<Outcome>, store_failure: Option<&'static str>) {
    if let Some(record) = &call.record {
        record.audit(AuditNote {
            tool: call.tool,
            outcome: outcome.map(Outcome::as_str),
            store_failure,
        });
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use base64::Engine as _;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use serde_json::json;

    use super::*;
    use crate::access::BearerToken;
    use crate::audit::store::BoxFuture;
    use crate::audit::{ListQuery, Listed, MemoryAudit};

    const INVOICE: &str = "47378190-96da-4dac-b2ff-5d2a386ecbe0";

    /// Keeps first writes in memory; refuses every completion.
    #[derive(Debug, Default)]
    struct CompletionFails(MemoryAudit);

    impl AuditStore for CompletionFails {
        fn put<'a>(&'a self, entry: &'a Entry) -> BoxFuture<'a, Result<(), AuditStoreError>> {
            self.0.put(entry)
        }
        fn complete<'a>(
            &'a self,
            _: &'a str,
            _: &'a Completion,
        ) -> BoxFuture<'a, Result<(), AuditStoreError>> {
            Box::pin(async { Err(AuditStoreError("refused".into())) })
        }
        fn list<'a>(
            &'a self,
            query: &'a ListQuery,
        ) -> BoxFuture<'a, Result<Listed, AuditStoreError>> {
            self.0.list(query)
        }
    }

    #[derive(Clone, Default)]
    struct Log(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(data);
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn call(store: Arc<dyn AuditStore>, record: Option<Arc<RequestRecord>>) -> CallAudit {
        let claims = URL_SAFE_NO_PAD.encode(r#"{"sub":"ana","org_id":"org-1","scope":"all"}"#);
        let token = BearerToken::new(format!("eyJhbGciOiJIUzUxMiJ9.{claims}.c2ln"));
        let principal = Principal::from_token(token, 0).unwrap();
        CallAudit::for_call(
            Arc::new(Trail::new(store, 400)),
            "billing_invoices_void",
            None,
            &principal,
            record,
            Some(Confirmation::NotAskedEra2025),
        )
    }

    #[tokio::test]
    async fn au2_a_completion_the_store_refuses_warns_and_notes_the_metric() {
        let store = Arc::new(CompletionFails::default());
        let record = Arc::new(RequestRecord::new("r".into(), "POST"));
        let log = Log::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let pending = call(store.clone(), Some(record.clone()))
            .begin("POST", &["invoices", INVOICE, "void"], None)
            .await
            .unwrap();
        let answer = Envelope {
            data: json!({"id": INVOICE}),
            meta: None,
            status: 200,
            request_id: Some("rid-1".into()),
        };
        pending.finish(Ok(&answer)).await;
        let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert!(
            text.contains("WARN") && text.contains("audit entry not completed"),
            "{text}"
        );
        assert_eq!(
            record.snapshot().audit,
            [AuditNote {
                tool: "billing_invoices_void",
                outcome: Some("unknown"),
                store_failure: Some("complete"),
            }]
        );
        let kept = store.0.all();
        assert_eq!(kept[0].outcome, Outcome::Unknown);
        assert!(kept[0].organization.is_none());
    }

    #[tokio::test]
    async fn au4_only_an_answer_other_than_401_or_none_at_all_gives_the_entry_its_organization() {
        let store = Arc::new(MemoryAudit::new());
        let api = |status: u16| KobanaError::Api {
            status,
            code: "x".into(),
            message: String::new(),
            details: None,
            request_id: Some("rid\n2".into()),
            retry_after: None,
        };
        let answered = Envelope {
            data: json!({"deleted": true}),
            meta: None,
            status: 204,
            request_id: Some("rid-3".into()),
        };
        let cases: [(Result<&Envelope, &KobanaError>, Outcome, Option<&str>); 6] = [
            (Ok(&answered), Outcome::Done, Some("org-1")),
            (Err(&api(401)), Outcome::Refused, None),
            (Err(&api(403)), Outcome::Refused, Some("org-1")),
            (Err(&api(422)), Outcome::Refused, Some("org-1")),
            (
                Err(&KobanaError::Timeout(1)),
                Outcome::Unknown,
                Some("org-1"),
            ),
            (
                Err(&KobanaError::BudgetSpent { calls: 1 }),
                Outcome::Failed,
                None,
            ),
        ];
        for (sent, outcome, organization) in cases {
            let pending = call(store.clone(), None)
                .begin("DELETE", &["invoices", INVOICE], None)
                .await
                .unwrap();
            let completion = pending.completion(sent);
            assert_eq!(completion.outcome, outcome);
            assert_eq!(
                completion.organization.as_deref(),
                organization,
                "{outcome:?}"
            );
            assert_eq!(completion.record_id.as_deref(), Some(INVOICE));
            // A request id that is not a plain token is not kept.
            let id = completion.kobana_request_id.as_deref();
            assert!(id.is_none() || id == Some("rid-3"), "{id:?}");
        }
    }
}
