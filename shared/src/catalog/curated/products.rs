//! Toolset `products`: produtos — the product ids a subscription's items take.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::access::slugs::PRODUCTS;
use crate::access::{Permission, Resource};
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{push_opt, uuid_arg};
use crate::catalog::{Effect, Output, Paging, ToolMeta, ToolSpec, Toolset};

wire_enum! {
    // A product status filter.
    ProductStatus {
        // Every status.
        All => "all",
        // Being set up.
        Draft => "draft",
        // Offered.
        Active => "active",
        // No longer offered.
        Archived => "archived",
    }
}

wire_enum! {
    // A product type.
    ProductType {
        // A plan's base product.
        Base => "base",
        // Add-on billed per unit.
        AddonQuantity => "addon_quantity",
        // Add-on at a fixed price.
        AddonFixed => "addon_fixed",
        // Billed by usage.
        Metered => "metered",
        // Charged once, fixed.
        OneTimeFixed => "one_time_fixed",
        // Charged once, per unit.
        OneTimeQuantity => "one_time_quantity",
    }
}

// Arguments of `billing_products_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    // Status (all = every status).
    pub status: Option<ProductStatus>,
    // Type.
    pub product_type: Option<ProductType>,
    /// Name or slug.
    pub search: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Products));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_products_list",
                title: "Listar produtos",
                description: "Lists products (produtos), whose ids subscription items take.",
                toolset: Toolset::Products,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Products),
            },
            |ctx, args: ListArgs| async move {
                let mut query = Vec::new();
                push_opt(&mut query, "status", args.status.map(ProductStatus::as_str));
                push_opt(
                    &mut query,
                    "product_type",
                    args.product_type.map(ProductType::as_str),
                );
                push_opt(&mut query, "search", args.search);
                ctx.list(&[PRODUCTS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_products_get",
                title: "Ver produto",
                description: "One product: name, type, status, unit label, group. Prices: billing_plans_get.",
                toolset: Toolset::Products,
                permission: read,
                effect: Effect::Read,
                output: Output::Record {
                    key: "product",
                    schema: Resource::Products,
                },
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                ctx.record(&[PRODUCTS, id], &[]).await
            },
        ),
    ]
}
