//! Typed client for Kobana's Automatic Billing API (`/v1`).
//!
//! It is the only place that builds Kobana URLs. A request calls Kobana through one
//! [`BoundClient`], bound once to a bearer token that every call forwards unchanged (no call
//! takes a token), with the `User-Agent` Kobana requires. It unwraps the `{"data","meta"}`
//! envelope, maps the `{"error":{code,message,details}}` envelope to [`KobanaError`], retries
//! safe calls on 429/5xx within one deadline, and never retries a write that has no
//! idempotency key. Every JSON answer is checked against the contract it carries
//! ([`contract`], [`drift`]). Every call of a request is bound by that request's
//! [`WorkBudget`] (calls, calls at once) and reads at most a limit of bytes from each answer.

mod answer;
mod body;
mod budget;
mod client;
pub mod contract;
pub mod drift;
mod error;

pub use answer::{DownloadResponse, Envelope};
pub use budget::WorkBudget;
pub use client::{BoundClient, KobanaClient, is_uuid, segment_is_safe};
pub use error::KobanaError;
