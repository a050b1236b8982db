//! The per-request record: what one HTTP request was and how it went, filled in by the front
//! (method, status, bytes), the handler (tool outcome, confirmation step) and the Kobana
//! client (one entry per call), then written once as the request line and the metrics.
//!
//! It holds names and numbers only: never the token, an argument value or record contents.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::access::Principal;

/// The request id Lambda gave this invocation; the front makes one when absent.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Where a destructive call's confirmation went in this request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmationStep {
    /// The person was asked (first call, or an unusable answer).
    Asked,
    /// The person confirmed this exact request: it ran.
    Confirmed,
    /// The person declined: nothing ran.
    Declined,
    /// The answer named a confirmation that was unknown, used, expired or bound to another
    /// request: the person was asked again.
    Mismatched,
}

impl ConfirmationStep {
    /// The word in the request line.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfirmationStep::Asked => "asked",
            ConfirmationStep::Confirmed => "confirmed",
            ConfirmationStep::Declined => "declined",
            ConfirmationStep::Mismatched => "mismatched",
        }
    }
}

/// One call to Kobana (retries are separate calls).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KobanaCall {
    /// HTTP status, or `None` when no answer came (timeout, connection failure).
    pub status: Option<u16>,
    /// Time to the answer's headers (the whole body for JSON answers), in milliseconds.
    pub millis: f64,
}

/// One place where a live Kobana answer left the contract (found by `kobana::drift`): names
/// only, never a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drift {
    /// The contract operation, e.g. `invoices.get`.
    pub operation: &'static str,
    /// The member, indexes folded: `data[].status`.
    pub field: String,
    /// `unknown_enum_value`, `missing_required_field` or `type_mismatch`.
    pub kind: &'static str,
}

/// One audit entry a request wrote, or a store failure, for the metrics (names only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditNote {
    /// The tool.
    pub tool: &'static str,
    /// The entry's outcome (`None`: no entry was written).
    pub outcome: Option<&'static str>,
    /// The step the store refused (`begin`, `complete`, `decline`), if it did.
    pub store_failure: Option<&'static str>,
}

/// Most drifts one request keeps (the first ones found), and logs.
pub const MAX_DRIFTS: usize = 10;

/// What the handler knows about one request.
#[derive(Debug, Default, Clone)]
pub struct Fields {
    /// HTTP method.
    pub http_method: String,
    /// HTTP status of the answer.
    pub http_status: u16,
    /// JSON-RPC method (`tools/call`, …), or `notification` / `response` markers.
    pub mcp_method: Option<String>,
    /// The tool, resource template or prompt the request is about (known names only).
    pub target: Option<String>,
    /// `2025` or `2026`.
    pub era: Option<&'static str>,
    /// The protocol version the client named.
    pub protocol_version: Option<String>,
    /// Client name, when the client says it.
    pub client_name: Option<String>,
    /// Client version, when the client says it.
    pub client_version: Option<String>,
    /// A short digest of the person and organization (never the token).
    pub person: Option<String>,
    /// The tool error code of an `isError` result.
    pub tool_error: Option<String>,
    /// The JSON-RPC error code of an error answer.
    pub jsonrpc_error: Option<i64>,
    /// Whether the answer asked the client for input (`input_required`).
    pub input_required: bool,
    /// Kobana calls made.
    pub kobana: Vec<KobanaCall>,
    /// Sequential rounds of Kobana calls: the longest chain of calls each started after the
    /// previous one ended (see [`Chains`]). Two lists read concurrently are one round; a list
    /// and then its names are two; a retry is a round after the attempt it repeats. An upper
    /// bound on the critical path: a call counts as following every call that ended before
    /// it started, whether or not it waited for it.
    pub kobana_rounds: u32,
    /// The confirmation step, for destructive calls.
    pub confirmation: Option<ConfirmationStep>,
    /// Bytes of the answer body.
    pub bytes_out: u64,
    /// The token's scope words this server does not recognise (made safe, never the token).
    pub unknown_scopes: Vec<String>,
    /// Where Kobana's answers left the contract.
    pub drift: Vec<Drift>,
    /// The audit entries written (and store failures).
    pub audit: Vec<AuditNote>,
}

impl Fields {
    /// `ok`, `input_required`, `tool_error`, `jsonrpc_error` or `http_error` (a 4xx/5xx
    /// without a JSON-RPC error, such as the 401 challenge).
    pub fn outcome(&self) -> &'static str {
        if self.jsonrpc_error.is_some() {
            "jsonrpc_error"
        } else if self.tool_error.is_some() {
            "tool_error"
        } else if self.http_status >= 400 {
            "http_error"
        } else if self.input_required {
            "input_required"
        } else {
            "ok"
        }
    }

    /// Whether the request counts as an error in the metrics.
    pub fn is_error(&self) -> bool {
        !matches!(self.outcome(), "ok" | "input_required")
    }

    /// Total time spent waiting on Kobana, in milliseconds.
    pub fn kobana_millis(&self) -> f64 {
        self.kobana.iter().fold(0.0, |sum, c| sum + c.millis)
    }

    /// The Kobana statuses in call order, `-` for a call without an answer (`200,503,200`).
    pub fn kobana_statuses(&self) -> String {
        let words: Vec<String> = self
            .kobana
            .iter()
            .map(|c| c.status.map_or_else(|| "-".to_owned(), |s| s.to_string()))
            .collect();
        words.join(",")
    }
}

/// The record of one request, shared by the front, the handler and the Kobana client.
#[derive(Debug)]
pub struct RequestRecord {
    /// The request id (Lambda's, or one made here).
    pub request_id: String,
    started: Instant,
    fields: Mutex<Fields>,
    /// The chains of Kobana calls (for [`Fields::kobana_rounds`]).
    chains: Mutex<Chains>,
}

/// The longest chain of calls each started after the previous one ended, kept as calls
/// start and end: a call that starts now follows the deepest chain among the calls that have
/// ended (a chain one longer); it can follow no call still in flight. So the depth of every
/// call is known when it starts, and the longest chain is the deepest depth ever started —
/// the same as the longest chain over the calls' intervals, at O(1) per call.
///
/// Why not "rounds by overlap" (a call that starts while another is in flight joins its
/// round): with two lists A ‖ B and a call C that needs A and starts after A ends while B
/// still runs, overlap reports one round where the work took two in a row.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Chains {
    /// The deepest chain that ends with a call that has ended.
    ended: u32,
    /// The deepest chain so far, calls in flight included.
    deepest: u32,
}

impl Chains {
    /// A call starts: answers its depth (the length of the longest chain it ends).
    pub fn start(&mut self) -> u32 {
        let depth = self.ended + 1;
        self.deepest = self.deepest.max(depth);
        depth
    }

    /// The call of `depth` has ended (answered, failed or abandoned).
    pub fn end(&mut self, depth: u32) {
        self.ended = self.ended.max(depth);
    }

    /// The longest chain so far.
    pub fn longest(&self) -> u32 {
        self.deepest
    }
}

impl RequestRecord {
    /// A new record, started now.
    pub fn new(request_id: String, http_method: &str) -> Self {
        Self {
            request_id,
            started: Instant::now(),
            chains: Mutex::new(Chains::default()),
            fields: Mutex::new(Fields {
                http_method: http_method.to_owned(),
                ..Fields::default()
            }),
        }
    }

    /// Time since the request arrived.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    fn with<T>(&self, change: impl FnOnce(&mut Fields) -> T) -> T {
        change(&mut self.fields.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// A copy of what is known so far.
    pub fn snapshot(&self) -> Fields {
        self.with(|f| f.clone())
    }

    /// Notes that a Kobana call starts (see [`Fields::kobana_rounds`]); the call is noted
    /// when the returned guard is [finished](KobanaFlight::finish), and leaves the flight
    /// when it is dropped, finished or not (a call abandoned mid-way).
    pub fn kobana_started(self: &Arc<Self>) -> KobanaFlight {
        let (depth, longest) = {
            let mut chains = self.chains.lock().unwrap_or_else(|e| e.into_inner());
            let depth = chains.start();
            (depth, chains.longest())
        };
        self.with(|f| f.kobana_rounds = longest);
        KobanaFlight {
            record: self.clone(),
            started: Instant::now(),
            depth,
        }
    }

    /// Notes one Kobana call, outside any round (tests).
    pub fn kobana_call(&self, status: Option<u16>, elapsed: Duration) {
        self.with(|f| {
            f.kobana.push(KobanaCall {
                status,
                millis: elapsed.as_secs_f64() * 1000.0,
            })
        });
    }

    /// Notes a confirmation step; a mismatch stays a mismatch when the person is asked again.
    pub fn confirmation(&self, step: ConfirmationStep) {
        self.with(|f| {
            if !(step == ConfirmationStep::Asked
                && f.confirmation == Some(ConfirmationStep::Mismatched))
            {
                f.confirmation = Some(step);
            }
        });
    }

    /// Notes the tool error code of an `isError` result.
    pub fn tool_error(&self, code: &str) {
        self.with(|f| f.tool_error = Some(code.to_owned()));
    }

    /// Notes that the answer asks the client for input.
    pub fn input_required(&self) {
        self.with(|f| f.input_required = true);
    }

    /// Notes who is calling, as a short digest, and the scope words of the token this server
    /// does not recognise (one log line names them: `unknown_scopes`).
    pub fn principal(&self, principal: &Principal) {
        let digest = person_digest(&principal.organization, &principal.person);
        if !principal.unrecognised_scopes.is_empty() {
            tracing::info!(
                unknown_scopes = %principal.unrecognised_scopes.join(" "),
                "token scope words not recognised: every tool is listed and Kobana decides"
            );
        }
        self.with(|f| {
            f.person = Some(digest);
            f.unknown_scopes = principal.unrecognised_scopes.clone();
        });
    }

    /// Notes where a Kobana answer left the contract (the first [`MAX_DRIFTS`], each once);
    /// answers whether this one was kept (new, and room for it).
    pub fn drift(&self, drift: Drift) -> bool {
        self.with(|f| {
            let keep = f.drift.len() < MAX_DRIFTS && !f.drift.contains(&drift);
            if keep {
                f.drift.push(drift);
            }
            keep
        })
    }

    /// Notes an audit entry (or a store failure) for the metrics.
    pub fn audit(&self, note: AuditNote) {
        self.with(|f| f.audit.push(note));
    }

    /// Notes the HTTP status and the JSON-RPC error code of the answer.
    pub fn answer(&self, status: u16, jsonrpc_error: Option<i64>, bytes_out: u64) {
        self.with(|f| {
            f.http_status = status;
            f.jsonrpc_error = jsonrpc_error;
            f.bytes_out = bytes_out;
        });
    }

    /// Notes what the JSON-RPC message is about (see the front's `request_line::describe`).
    pub fn described(&self, described: Described) {
        self.with(|f| {
            f.mcp_method = described.method;
            f.target = described.target;
            f.era = described.era;
            f.protocol_version = described.protocol_version;
            f.client_name = described.client_name;
            f.client_version = described.client_version;
        });
    }
}

/// One Kobana call in flight, from [`RequestRecord::kobana_started`].
#[derive(Debug)]
pub struct KobanaFlight {
    record: Arc<RequestRecord>,
    started: Instant,
    /// Its place in the chains of calls.
    depth: u32,
}

impl KobanaFlight {
    /// Notes the call's answer (`None`: no answer came) and its time since it started.
    pub fn finish(self, status: Option<u16>) {
        self.record.kobana_call(status, self.started.elapsed());
    }
}

impl Drop for KobanaFlight {
    fn drop(&mut self) {
        self.record
            .chains
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .end(self.depth);
    }
}

/// The record of the request these extensions belong to.
pub fn record_of(extensions: &http::Extensions) -> Option<Arc<RequestRecord>> {
    extensions.get::<Arc<RequestRecord>>().cloned()
}

/// A short digest of (organization, person) for the request line: the same person reads the
/// same in every line and every instance, and neither the subject nor the token can be read
/// back from it. It differs from the token digest used elsewhere, even when the person is
/// itself a digest of the token.
pub fn person_digest(organization: &str, person: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"kobana-mcp request-log person v1\0");
    hasher.update((organization.len() as u64).to_be_bytes());
    hasher.update(organization.as_bytes());
    hasher.update(person.as_bytes());
    hasher.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a JSON-RPC message is about, as the front reads it: names and versions only.
#[derive(Debug, Default)]
pub struct Described {
    /// The MCP method (a served one, else `other`; `response` for a response).
    pub method: Option<String>,
    /// The known tool, prompt or resource template it names (`unknown` for any other).
    pub target: Option<String>,
    /// `2025` or `2026`.
    pub era: Option<&'static str>,
    /// The protocol version, when version-shaped.
    pub protocol_version: Option<String>,
    /// The client's name, cut short.
    pub client_name: Option<String>,
    /// The client's version, cut short.
    pub client_version: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_and_confirmation_steps() {
        let record = RequestRecord::new("r".into(), "POST");
        record.confirmation(ConfirmationStep::Mismatched);
        record.confirmation(ConfirmationStep::Asked);
        record.input_required();
        record.answer(200, None, 10);
        let f = record.snapshot();
        assert_eq!(f.confirmation, Some(ConfirmationStep::Mismatched));
        assert_eq!(f.outcome(), "input_required");
        assert!(!f.is_error());
        record.tool_error("KOBANA_NOT_FOUND");
        assert_eq!(record.snapshot().outcome(), "tool_error");
        record.answer(200, Some(-32602), 10);
        assert_eq!(record.snapshot().outcome(), "jsonrpc_error");
        record.kobana_call(Some(503), Duration::from_millis(3));
        record.kobana_call(None, Duration::from_millis(2));
        assert_eq!(record.snapshot().kobana_statuses(), "503,-");
    }

    #[test]
    fn n6_calls_in_flight_together_are_one_round_and_calls_after_them_another() {
        let record = Arc::new(RequestRecord::new("r".into(), "POST"));
        // Two lists at once: one round.
        let (a, b) = (record.kobana_started(), record.kobana_started());
        a.finish(Some(200));
        b.finish(Some(200));
        // A call abandoned mid-way (dropped) is a round of its own and leaves the flight, so
        // the next call starts a third round.
        drop(record.kobana_started());
        let c = record.kobana_started();
        // A call that starts while `c` is in flight joins its round.
        let d = record.kobana_started();
        c.finish(Some(503));
        d.finish(None);
        let f = record.snapshot();
        assert_eq!(f.kobana.len(), 4);
        assert_eq!(f.kobana_rounds, 3);
        assert_eq!(f.kobana_statuses(), "200,200,503,-");
    }

    /// The rounds [`Chains`] counts for calls over `intervals` (start, end), fed in time
    /// order; at the same instant an end comes before a start (a call that starts the moment
    /// another ends follows it).
    fn chains_over(intervals: &[(u32, u32)]) -> u32 {
        let mut events: Vec<(u32, bool, usize)> = Vec::new();
        for (i, (start, end)) in intervals.iter().enumerate() {
            events.push((*start, true, i));
            events.push((*end, false, i));
        }
        // `false` (an end) sorts before `true` (a start) at the same instant.
        events.sort();
        let mut chains = Chains::default();
        let mut depths = vec![0; intervals.len()];
        for (_, starts, i) in events {
            if starts {
                depths[i] = chains.start();
            } else {
                chains.end(depths[i]);
            }
        }
        chains.longest()
    }

    /// The longest chain of intervals each starting at or after the previous one's end,
    /// found the slow way: every call's longest chain from every call before it.
    fn longest_chain(intervals: &[(u32, u32)]) -> u32 {
        let mut sorted = intervals.to_vec();
        sorted.sort();
        let mut depth = vec![1u32; sorted.len()];
        for i in 0..sorted.len() {
            for j in 0..i {
                if sorted[j].1 <= sorted[i].0 {
                    depth[i] = depth[i].max(depth[j] + 1);
                }
            }
        }
        depth.into_iter().max().unwrap_or(0)
    }

    #[test]
    fn bw2_rounds_are_the_longest_chain_of_calls_each_after_the_previous_one_ended() {
        // review_pending_nfes as the audit found it: invoices A ‖ NF-e B, then the names
        // read C after A ended while B still ran. Overlap said 1 round; it is 2 in a row.
        let pending = [(0, 100), (0, 300), (150, 250)];
        assert_eq!(chains_over(&pending), 2);
        // The same through the record's own flights.
        let record = Arc::new(RequestRecord::new("r".into(), "POST"));
        let (a, b) = (record.kobana_started(), record.kobana_started());
        a.finish(Some(200));
        let c = record.kobana_started();
        c.finish(Some(200));
        b.finish(Some(200));
        assert_eq!(record.snapshot().kobana_rounds, 2);
        // A chain that hops across overlapping calls: A, then C after A, then E after C,
        // while B and D overlap them; 3 in a row.
        assert_eq!(
            chains_over(&[(0, 10), (5, 40), (12, 20), (15, 50), (25, 30)]),
            3
        );
        // A retry starts when its attempt ended: list 503 → list 200 → names, 3 in a row.
        assert_eq!(chains_over(&[(0, 10), (10, 20), (20, 30)]), 3);
        // Everything at once is one round; nothing is none.
        assert_eq!(chains_over(&[(0, 10), (1, 9), (2, 30), (8, 10)]), 1);
        assert_eq!(chains_over(&[]), 0);
        // And on generated interval sets, the same as the slow longest chain.
        let mut seed = 0x2545_f491_u64;
        let mut next = |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % below) as u32
        };
        for _ in 0..2000 {
            let n = next(9) as usize;
            let intervals: Vec<(u32, u32)> = (0..n)
                .map(|_| {
                    let start = next(40);
                    (start, start + 1 + next(15))
                })
                .collect();
            assert_eq!(
                chains_over(&intervals),
                longest_chain(&intervals),
                "{intervals:?}"
            );
        }
    }

    #[test]
    fn the_person_digest_is_short_stable_and_not_the_token_digest() {
        let a = person_digest("org", "ana");
        assert_eq!(a.len(), 12);
        assert_eq!(a, person_digest("org", "ana"));
        assert_ne!(a, person_digest("org", "bia"));
        assert_ne!(person_digest("or", "gana"), person_digest("org", "ana"));
    }
}
