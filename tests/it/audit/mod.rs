//! The audit trail of writes (AU-1 … AU-6): each write's one entry in memory and in
//! DynamoDB (moto), what it keeps and tells, and reading it back.

pub mod support;

mod entries;
mod privacy;
mod reads;
