//! Confirmation of destructive tools (CF-1 … CF-6, CQ-1 … CQ-6): the attack matrix, the
//! refusals, and the corpus and property showing what the person confirms is what runs.

pub mod support;

mod attacks;
mod refusals;
mod truth;
