//! The unit of every money (and percent) field of the schemas, by `Schema.field` (arrays
//! walked through: `InvoiceV1.line_items.amount_cents`): one reviewed table for every row
//! whose body or answer uses the schema. A row's own [`super::row::Row::units`] settles its
//! query and path parameters, and overrides this table where one operation differs.

use super::row::Unit;

/// `(Schema.field, unit)`, sorted by schema.
pub const SCHEMA_UNITS: &[(&str, Unit)] = &[];
