//! The reviewed rows, one file per resource (the first segment of the path under `/v1`), in
//! the document's order within each file.

use super::row::Row;

mod organization;

/// Every row, by resource.
pub const ROWS: &[&[Row]] = &[organization::ROWS];
