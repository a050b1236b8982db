//! Every operation of Kobana's billing API as a reviewed row (`row`, `rows`, `units`), found
//! by what a person says (`search`).

pub mod row;
pub mod rows;
pub mod search;
pub mod template;
pub mod units;

pub use row::{Class, Row, Unit};
pub use template::{Place, Template, TemplateError};

/// Every row, in the order of the files of [`rows`].
pub fn all() -> impl Iterator<Item = &'static Row> {
    rows::ROWS.iter().flat_map(|rows| rows.iter())
}

/// The row of `operation` (Kobana's `operationId`).
pub fn find(operation: &str) -> Option<&'static Row> {
    all().find(|row| row.operation == operation)
}

#[cfg(test)]
mod tests;
