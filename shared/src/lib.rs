//! # kobana-mcp
//!
//! A stateless remote MCP server for Kobana's Automatic Billing API. It serves both protocol
//! eras (2025-03-26 / 2025-06-18 / 2025-11-25 with `initialize`, and 2026-07-28 with
//! per-request `_meta`) on one endpoint, and gives an AI assistant the organization's
//! customers, subscriptions, invoices, payments and NF-e through tools, resources, prompts
//! and completions — always under the caller's own Kobana token.
//!
//! The crate holds the whole server; `functions/mcp` only wires it to Lambda or to a local
//! listener. Data flows one way: [`http`] parses and authenticates, [`server`] decides,
//! [`catalog`] acts, [`kobana`] talks upstream. The one hand-back — content the handler
//! leaves for the front to write into rmcp's answer — goes through [`deferred`], which both
//! sides use and which depends on neither. [`check`] is the operator's `kobana-mcp check`.

pub mod access;
pub mod audit;
pub mod body;
pub mod canonical;
pub mod catalog;
pub mod check;
pub mod completions;
pub mod config;
pub mod confirm;
pub mod deferred;
pub mod format;
pub mod http;
pub mod kobana;
pub mod net;
pub mod prompts;
pub mod protocol_errors;
pub mod resources;
pub mod server;
pub mod telemetry;
pub mod token_front;
pub mod views;

pub use config::Config;
pub use http::{App, serve};
