//! The house rules, checked on the repository itself: layers, the test binary and the test
//! command (QL-1 … QL-5), source rules (NM-4, NM-5, LH-3), requirement ids (NM-2) and the
//! architecture document (NM-1, NM-3).

pub mod support;

mod architecture_doc;
mod front;
mod requirement_ids;
mod rules;
mod source_rules;
mod test_layout;
