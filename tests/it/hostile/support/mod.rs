//! The hostile corpus and its runner (`inputs.rs`, `telemetry::log_scan`), and the server as a
//! process of its own against a scriptable hostile Kobana ([`process`]).

pub mod argument_corpus;
pub mod cases;
pub mod header_corpus;
pub mod process;
pub mod protocol_corpus;
pub mod runner;
