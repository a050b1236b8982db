//! The fake Kobana on its own (no MCP server): access rules, lists, writes and state
//! transitions, documents and faults, the contract it enforces (WA-5), and the readings it
//! plays (RK-1).

pub mod support;

mod access;
mod contract;
mod invoices;
mod lists;
mod operations;
mod readings;
mod resources;
mod transport;
