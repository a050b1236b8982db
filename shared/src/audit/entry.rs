//! One entry of the trail, as it is stored and (without the store's own members) shown.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// How a write ended, as the trail says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Kobana answered with success.
    Done,
    /// Kobana answered with an error status (its status and code are in the entry).
    Refused,
    /// The person said no to the server's question: nothing was sent.
    Declined,
    /// It never reached Kobana, or failed in a way that applied nothing (no connection, the
    /// request's work budget spent).
    Failed,
    /// Nobody knows: no answer came after the request left, or the entry was never completed
    /// (an entry is written `unknown` before the call and completed after it).
    Unknown,
}

impl Outcome {
    /// Every outcome, in the order the tool's enum lists them.
    pub const ALL: [Outcome; 5] = [
        Outcome::Done,
        Outcome::Refused,
        Outcome::Declined,
        Outcome::Failed,
        Outcome::Unknown,
    ];

    /// The word stored, shown and filtered on.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Refused => "refused",
            Outcome::Declined => "declined",
            Outcome::Failed => "failed",
            Outcome::Unknown => "unknown",
        }
    }

    /// Parses [`Outcome::as_str`].
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == word)
    }
}

/// How the write was confirmed: asked and answered, or not asked and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Confirmation {
    /// The server asked the person (era 2026, a client with forms) and the person said yes.
    #[serde(rename = "asked_confirmed")]
    AskedConfirmed,
    /// The server asked and the person said no.
    #[serde(rename = "asked_declined")]
    AskedDeclined,
    /// A destructive tool called in protocol era 2025, where the server cannot ask.
    #[serde(rename = "not_asked_era_2025")]
    NotAskedEra2025,
    /// A destructive tool called in era 2026 by a client that declared no form support.
    #[serde(rename = "not_asked_no_form_support")]
    NotAskedNoFormSupport,
    /// A write tool that is not destructive: such tools are never asked about.
    #[serde(rename = "not_asked_not_destructive")]
    NotAskedNotDestructive,
}

impl Confirmation {
    /// What a call's confirmation is before the gate: `None` when the gate asks (it then sets
    /// [`Confirmation::AskedConfirmed`] on a yes; a write without it is refused).
    pub fn before_gate(destructive: bool, modern: bool, forms: bool) -> Option<Self> {
        match (destructive, modern, forms) {
            (false, _, _) => Some(Confirmation::NotAskedNotDestructive),
            (true, false, _) => Some(Confirmation::NotAskedEra2025),
            (true, true, false) => Some(Confirmation::NotAskedNoFormSupport),
            (true, true, true) => None,
        }
    }

    /// The pt-BR note a destructive tool's result carries when it ran without the server's
    /// question (AU-5), saying why; `None` when it was asked or is not destructive.
    pub fn unasked_note(self) -> Option<&'static str> {
        match self {
            Confirmation::NotAskedEra2025 => Some(const_format::concatcp!(
                UNASKED_LEAD,
                "o cliente usa a versão 2025 do protocolo MCP, na qual este servidor não pode perguntar",
                UNASKED_TAIL
            )),
            Confirmation::NotAskedNoFormSupport => Some(const_format::concatcp!(
                UNASKED_LEAD,
                "o cliente não declarou suporte a formulários (elicitation), então este servidor não pôde perguntar",
                UNASKED_TAIL
            )),
            _ => None,
        }
    }
}

/// How an [unasked note](Confirmation::unasked_note) starts.
const UNASKED_LEAD: &str =
    "Atenção: esta ação foi executada sem confirmação deste servidor, porque ";
/// How it ends: where the record of it is.
const UNASKED_TAIL: &str = ". Ela ficou registrada na trilha de auditoria (billing_audit_list).";

/// The client that made the call, as the request line knows it (escaped, cut short).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    /// The client's name (`clientInfo.name`), when it says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its version, when it says it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `2025` or `2026`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// The protocol version it named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
}

/// The Kobana operation a write is: method, path template and the ids in the path.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    /// `POST`, `PATCH`, `DELETE`.
    pub method: String,
    /// The contract's path template (`/v1/payments/{id}/refund`).
    pub path: String,
    /// The path's ids, in order: Kobana UUIDs as they are; any other value (a customer's
    /// `external_id`, which may be a document number) as [`EXTERNAL_ID`].
    pub ids: Vec<String>,
}

/// What the trail keeps of a path id that is not a Kobana UUID: that there was one.
pub const EXTERNAL_ID: &str = "external_id";

/// One entry: what was asked, by whom, through which client, how it was confirmed and how it
/// ended. The same members are stored (DynamoDB attributes, one each) and, but for the
/// store's own ones, shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// Sortable by time: the Unix milliseconds (13 digits), `-`, 16 random hex digits.
    pub id: String,
    /// When it was written, UTC (RFC 3339, milliseconds).
    pub at: String,
    /// The organization whose trail holds it: one Kobana accepted (see
    /// [`super::trail`]); absent until the call is completed, and for good when Kobana
    /// refused the token (401) — then no organization reads it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    /// The organization the token claims (`org_id`), for the operator's export; never the key
    /// of a read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_organization: Option<String>,
    /// The token's subject (`sub`), or a digest of the token when it has none.
    pub person: String,
    /// The client.
    pub client: Client,
    /// The tool.
    pub tool: String,
    /// The Kobana operation.
    pub operation: Operation,
    /// SHA-256 (hex) of the tool's canonical arguments.
    pub arguments_sha256: String,
    /// What was asked, without personal data (see [`super::summary`]).
    pub summary: Value,
    /// How it was confirmed.
    pub confirmation: Confirmation,
    /// How it ended.
    pub outcome: Outcome,
    /// Kobana's HTTP status, when it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kobana_status: Option<u16>,
    /// Kobana's error code, when it refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kobana_code: Option<String>,
    /// Kobana's `Request-Id`, when it sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kobana_request_id: Option<String>,
    /// The affected record's id, when Kobana's answer (or the path) names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_id: Option<String>,
    /// When the entry was completed after the call (absent: never completed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// Unix seconds after which the store drops it (the DynamoDB TTL attribute).
    pub expires_at: i64,
}

/// The members of an [`Entry`] only the store and the operator's export see.
const STORE_ONLY: [&str; 3] = ["claimed_organization", "completed_at", "expires_at"];

impl Entry {
    /// The entry as `billing_audit_list` shows it: without the store's own members, with its
    /// time in America/Sao_Paulo beside UTC.
    pub fn shown(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_else(|_| json!({}));
        if let Value::Object(map) = &mut value {
            for key in STORE_ONLY {
                map.remove(key);
            }
            if let Some(local) = crate::format::sao_paulo_time(&self.at) {
                map.insert("at_sao_paulo".to_owned(), Value::String(local));
            }
        }
        value
    }
}

/// A new entry id at `millis` (Unix milliseconds): sorts by time, unique by its random part.
pub fn new_id(millis: i64) -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes)?;
    Ok(format!(
        "{:013}-{:016x}",
        millis.max(0),
        u64::from_be_bytes(bytes)
    ))
}

/// The smallest and largest ids of entries written in `from..=to` (Unix milliseconds).
pub fn id_range(from: i64, to: i64) -> (String, String) {
    (
        format!("{:013}", from.max(0)),
        format!("{:013}~", to.max(0)),
    )
}

/// RFC 3339 UTC with milliseconds, for `at` and `completed_at`.
pub fn rfc3339_millis(millis: i64) -> String {
    jiff::Timestamp::from_millisecond(millis)
        .map(|t| format!("{t:.3}"))
        .unwrap_or_default()
}
