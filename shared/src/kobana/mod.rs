//! Typed client for Kobana's Automatic Billing API (`/v1`).
//!
//! It is the only place that builds Kobana URLs. It forwards the caller's bearer token
//! unchanged, always sends the `User-Agent` Kobana requires, unwraps the `{"data","meta"}`
//! envelope, maps the `{"error":{code,message,details}}` envelope to [`KobanaError`], retries
//! safe calls on 429/5xx within one deadline, and never retries a write that has no
//! idempotency key. Every JSON answer is checked against the contract it carries
//! ([`contract`], [`drift`]). Every call of a request is bound by that request's
//! [`WorkBudget`] (calls, calls at once) and reads at most a limit of bytes from each answer.

mod body;
mod budget;
mod client;
pub mod contract;
pub mod drift;
mod error;

pub use budget::WorkBudget;
pub use client::{DownloadResponse, Envelope, KobanaClient, is_uuid, segment_is_safe};
pub use error::KobanaError;
