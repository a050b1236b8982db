//! How list answers are shaped for a model: compact rows per resource (`compact`), the
//! shaping of one page (`shaping`: rows or `fields`, customers' names, the byte budget), the
//! byte budget itself (`budget`) and the instance's cache of customers' names (`names`).

pub(crate) mod budget;
pub(crate) mod compact;
pub mod names;
pub(crate) mod shaping;
