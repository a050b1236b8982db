//! What the server tells its operator: one structured line per request
//! (written by the HTTP front, filled in through a [`record::RequestRecord`]), CloudWatch metrics in the
//! Embedded Metric Format ([`emf`]), and the log set-up itself ([`logging`]).
//!
//! The request line (target `kobana_mcp::request`, message `request`) carries names and
//! numbers only: the request id, HTTP method and status, MCP method, the tool / resource
//! template / prompt name, era, protocol version, client name and version, outcome and error
//! code, Kobana calls (count, statuses, total time), the confirmation step, duration and bytes
//! out, and the person as a short digest. Never the token, an argument value or a record; a
//! value from outside (the client's name) only [escaped](escape).

pub mod emf;
pub mod escape;
pub mod logging;
pub mod record;

pub use escape::escaped;
pub use record::{
    AuditNote, ConfirmationStep, Described, Drift, RequestId, RequestRecord, record_of,
};
