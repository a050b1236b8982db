//! The hostile corpus and its runner (see `hostile.rs`).

pub mod argument_corpus;
pub mod cases;
pub mod header_corpus;
pub mod protocol_corpus;
pub mod runner;
