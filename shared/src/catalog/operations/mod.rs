//! Every operation of Kobana's billing API as a reviewed row (`row`, `rows`, `units`), found
//! by what a person says (`search`), and the four generic tools that reach them (`tools`):
//! the operations' facts from the contract (`facts`), the argument check (`check`), the
//! description a search answers (`describe`), money by the reviewed units (`money`) and the
//! shaping of an answer (`answer`).

pub mod answer;
pub mod check;
pub mod describe;
pub mod facts;
pub mod money;
pub mod row;
pub mod rows;
pub mod search;
pub mod template;
pub mod tools;
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
