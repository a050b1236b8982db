//! The curated tool catalog end to end against the fake Kobana: the registry and
//! `tools/list` (T-1, CF-1), each toolset's tools, what every list shares, compact rows and
//! the byte budget (CX-1 … CX-4), the output schemas (HR-3, FH-5) and the schema catalog
//! against Kobana's contract.

pub mod support;

mod compact_rows;
mod invoices;
mod lists;
mod nfes;
mod output_schemas;
mod payments;
mod registry;
mod schemas;
mod settlement;
mod subscriptions;
