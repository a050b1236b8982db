//! Toolset `organization`: who the token belongs to.

use crate::access::slugs::ORGANIZATION;
use crate::access::{Permission, Resource};
use crate::catalog::{Effect, NoArgs, Output, ToolMeta, ToolSpec, Toolset};

pub(super) fn tools() -> Vec<ToolSpec> {
    vec![ToolSpec::new(
        ToolMeta {
            name: "billing_organization_get",
            title: "Ver organização",
            description: "The organization the token acts for (id, name, CNPJ): confirm the company first.",
            toolset: Toolset::Organization,
            permission: Some(Permission::read(Resource::Organization)),
            effect: Effect::Read,
            output: Output::Record {
                key: ORGANIZATION,
                schema: Resource::Organization,
            },
        },
        |ctx, _args: NoArgs| async move { ctx.record(&[ORGANIZATION], &[]).await },
    )]
}
