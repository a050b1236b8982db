//! The hostile corpus (data files, read by [`corpus`]) and its runner (`inputs.rs`,
//! `telemetry::log_scan`), and the server as a process of its own against a scriptable
//! hostile Kobana ([`process`]).

pub mod argument_corpus;
pub mod cases;
pub mod corpus;
pub mod header_corpus;
pub mod process;
pub mod protocol_corpus;
pub mod runner;
