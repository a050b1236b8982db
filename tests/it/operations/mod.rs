//! The generic tools over every reviewed operation row (WA-1 … WA-3): the rows against the
//! contract, each row run through its tool, and confirmation on the generic path.

pub mod support;

mod confirm;
mod rows;
mod tools;
