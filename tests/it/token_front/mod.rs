//! The optional token front (HT-1, HD-2 … HD-4): its flow over plain HTTP, refusals,
//! hardening, several instances, Lambda, and a browser from no token to a tool call.

pub mod support;

mod browser;
mod flow;
mod hardening;
mod instances;
mod lambda;
mod refusals;
