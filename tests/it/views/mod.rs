//! The month report and the MCP Apps views (UI-1 … UI-4): totals against the fake's own
//! records, the negotiated view links, and the views rendered in a browser host.

pub mod support;

mod browser;
mod reports;
