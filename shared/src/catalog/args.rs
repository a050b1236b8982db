//! Argument types shared by many tools.

use schemars::JsonSchema;
use serde::Deserialize;

/// Most items of an array argument whose size Kobana does not bound itself — a customer's
/// `tags` and `addresses`, a subscription's `items` (#25): `maxItems` in each schema, checked
/// before anything else runs, so no request can make the server parse, digest and send
/// thousands of them. Ten times what a real customer or subscription holds. (`fields` is
/// bounded by its list's names; an invoice's `line_items` by Kobana's own 200.)
pub const MAX_ARRAY_ITEMS: usize = 50;

/// `values` each once, in the order first given.
pub fn each_once(values: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    values
        .into_iter()
        .filter(|v| seen.insert(v.clone()))
        .collect()
}

/// No arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Page, size, order and fields of a list: the arguments every list tool takes, flattened
/// into its own (`#[serde(flatten)] pub paging: Paging`), and their wire schema. Plain `//`
/// comments where the model needs no text: a doc comment becomes a schema description.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct Paging {
    // Page number, starting at 1 (default 1; 0 is refused in pt-BR).
    pub page: Option<u32>,
    // Items per page, 1 to MAX_PER_PAGE (default DEFAULT_PER_PAGE; 0 is refused in pt-BR).
    #[schemars(range(max = super::context::MAX_PER_PAGE))]
    pub per_page: Option<u32>,
    // A sortable field (billing_schemas_get lists them; a wrong one is refused naming them).
    pub sort_by: Option<String>,
    // Sort direction (default desc).
    pub sort_order: Option<SortOrder>,
    // The row's fields besides the compact row (`id` always comes); not in this schema: the
    // registry adds each list's own enum of names (see `catalog::lists::compact`).
    #[schemars(skip)]
    pub fields: Option<Vec<String>>,
}

// Sort direction.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[schemars(inline)]
#[serde(rename_all = "lowercase")]
pub enum SortOrder {
    Asc,
    Desc,
}

impl SortOrder {
    /// The value Kobana takes.
    pub fn as_str(self) -> &'static str {
        match self {
            SortOrder::Asc => "asc",
            SortOrder::Desc => "desc",
        }
    }
}

/// Declares a toolset's `IdArgs`: the arguments of a tool that names one record, `{ id }`,
/// with `$doc` as the description of `id` (`"Invoice UUID."`).
macro_rules! id_args {
    ($doc:literal) => {
        /// Arguments naming one record.
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct IdArgs {
            #[doc = $doc]
            pub id: String,
        }
    };
}
pub(crate) use id_args;

/// Declares an argument enum whose values are Kobana's wire strings: the derives every
/// toolset uses (inline in the input schema, no doc text, so plain `//` comments document
/// it) and `as_str`, the value sent to Kobana — one list, so the schema and the query
/// cannot disagree.
macro_rules! wire_enum {
    ($name:ident { $($variant:ident => $wire:literal),+ $(,)? }) => {
        #[derive(Debug, Clone, Copy, serde::Deserialize, schemars::JsonSchema)]
        #[schemars(inline)]
        pub enum $name {
            $(#[serde(rename = $wire)] $variant),+
        }

        impl $name {
            /// The value Kobana takes.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $wire),+
                }
            }
        }
    };
}
pub(crate) use wire_enum;
