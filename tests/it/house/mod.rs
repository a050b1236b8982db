//! The house rules, checked on the repository itself: layers and the test command (QL-1 … QL-5),
//! source rules (NM-4, NM-5, LH-3), the test layout (LH-2), requirement ids (NM-2) and the
//! documents (NM-1, NM-3).

pub mod support;

mod architecture_doc;
mod requirement_ids;
mod rules;
mod source_rules;
mod test_layout;
