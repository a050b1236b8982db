//! The integration tests of kobana-mcp, in one binary (one link, one `cargo test` filter).
//!
//! One folder per area: `<area>/mod.rs` declares its test files, each named after what it
//! proves, and, where the area has helpers, its `support` module; `common` serves every area.
//! A test's path is `<area>::<file>::<test>`: run an area with
//! `cargo test --workspace --features kobana-mcp/demo --test it <area>::`.

// Shared by every area.
mod common;

// The areas, each a folder with its tests and, where it has helpers, its `support`.
mod audit;
mod catalog;
mod clients;
mod commands;
mod confirm;
mod contract;
mod fake;
mod hostile;
mod house;
mod lambda;
mod operations;
mod protocol;
mod telemetry;
mod token_front;
mod views;
