//! Toolset `plans`: planos and their items — the product and price ids a subscription takes.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::access::slugs::PLANS;
use crate::access::{Permission, Resource};
use crate::catalog::args::{id_args, wire_enum};
use crate::catalog::context::{push_opt, uuid_arg};
use crate::catalog::{Effect, Output, Paging, ToolMeta, ToolSpec, Toolset};

wire_enum! {
    // A plan status.
    PlanStatus {
        // Being set up.
        Draft => "draft",
        // Offered.
        Active => "active",
        // No longer offered.
        Archived => "archived",
    }
}

// Arguments of `billing_plans_list`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    // Status.
    pub status: Option<PlanStatus>,
    /// Only plans this account can use.
    pub billing_account_id: Option<String>,
    /// Name or slug.
    pub search: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Plans));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_plans_list",
                title: "Listar planos",
                description: "Lists plans (planos), whose ids subscriptions take. Prices: billing_plans_get.",
                toolset: Toolset::Plans,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Plans),
            },
            |ctx, args: ListArgs| async move {
                let mut query = Vec::new();
                push_opt(&mut query, "status", args.status.map(PlanStatus::as_str));
                if let Some(id) = &args.billing_account_id {
                    push_opt(
                        &mut query,
                        "scoped_billing_account_id",
                        Some(uuid_arg("billing_account_id", id)?),
                    );
                }
                push_opt(&mut query, "search", args.search);
                ctx.list(&[PLANS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_plans_get",
                title: "Ver plano",
                description: "One plan and its items (product_id, price_id, quantity): what subscription items take.",
                toolset: Toolset::Plans,
                permission: read,
                effect: Effect::Read,
                output: Output::Record {
                    key: "plan",
                    schema: Resource::Plans,
                },
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                let (plan_path, items_path) = ([PLANS, id], [PLANS, id, "items"]);
                let (mut plan, items) =
                    tokio::try_join!(ctx.record(&plan_path, &[]), ctx.data(&items_path, &[]),)?;
                if let Some(record) = plan.get_mut("plan").and_then(Value::as_object_mut) {
                    record.insert("items".to_owned(), items);
                }
                Ok(plan)
            },
        ),
    ]
}
