//! Toolset `subscriptions`: assinaturas (recurring billing of a billing account).

use reqwest::Method;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::access::slugs::SUBSCRIPTIONS;
use crate::access::{Permission, Resource};
use crate::catalog::Asks;
use crate::catalog::args::{MAX_ARRAY_ITEMS, id_args, wire_enum};
use crate::catalog::context::{destructive_description, push_opt, reason_arg, uuid_arg};
use crate::catalog::{Effect, Output, Paging, ToolError, ToolMeta, ToolSpec, Toolset};

const RECORD: Output = Output::Record {
    key: "subscription",
    schema: Resource::Subscriptions,
};

wire_enum! {
    // A subscription status.
    SubscriptionStatus {
        // Not confirmed; does not bill.
        Draft => "draft",
        // Free trial.
        Trialing => "trialing",
        // Billing every cycle.
        Active => "active",
        // Payment failed; dunning retries.
        PastDue => "past_due",
        // Collection paused.
        Paused => "paused",
        // Suspended.
        Suspended => "suspended",
        // Canceled (final).
        Canceled => "canceled",
    }
}

wire_enum! {
    // Billing cycle.
    BillingCycle {
        // Every month.
        Monthly => "monthly",
        // Every 3 months.
        Quarterly => "quarterly",
        // Every 6 months.
        Semiannual => "semiannual",
        // Every year.
        Annual => "annual",
    }
}

wire_enum! {
    // What happens to invoices while collection is paused.
    PauseBehavior {
        // New invoices are marked uncollectible (Kobana's default).
        MarkUncollectible => "mark_uncollectible",
        // New invoices stay as drafts.
        KeepAsDraft => "keep_as_draft",
        // New invoices are voided.
        Void => "void",
    }
}

// Arguments of `billing_subscriptions_list`. `status` takes the list filter's values, which
// (unlike the record's) have no `confirmed` (see tests/contract, ambiguities).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    // Status.
    pub status: Option<SubscriptionStatus>,
    /// Billing account UUID.
    pub billing_account_id: Option<String>,
    /// Plan UUID.
    pub plan_id: Option<String>,
    /// Customer name or CPF/CNPJ.
    pub search: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID.");

// One item of a subscription without a plan: a product at one of its prices.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(inline)]
pub struct Item {
    /// Product UUID.
    pub product_id: String,
    /// Price UUID (a plan item's).
    pub price_id: String,
    /// Default 1.
    #[schemars(range(min = 1))]
    pub quantity: Option<u32>,
    /// Unit price override in cents (R$ 99,90 = 9990).
    pub unit_amount_cents: Option<u64>,
}

// Arguments of `billing_subscriptions_create`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// Payer's billing account UUID.
    pub billing_account_id: String,
    /// Plan UUID; or items.
    pub plan_id: Option<String>,
    /// Products billed each cycle, instead of a plan.
    #[schemars(length(max = MAX_ARRAY_ITEMS))]
    pub items: Option<Vec<Item>>,
    /// Default monthly.
    pub billing_cycle: Option<BillingCycle>,
}

// Arguments of `billing_subscriptions_pause`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PauseArgs {
    /// UUID.
    pub id: String,
    /// Invoices meanwhile (default mark_uncollectible).
    pub behavior: Option<PauseBehavior>,
    /// Auto-resume: YYYY-MM-DD or ISO date-time; omit: until resumed.
    pub resumes_at: Option<String>,
}

// Arguments of `billing_subscriptions_cancel`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelArgs {
    /// UUID.
    pub id: String,
    /// Default false: now.
    pub cancel_at_period_end: Option<bool>,
    /// Why.
    pub reason: Option<String>,
}

/// An ISO 8601 date-time as Kobana's `date-time` fields take it, always in UTC `Z` (reading
/// `datetime_form`: valid whether or not Kobana accepts offsets). A bare `YYYY-MM-DD` is that
/// day's midnight in America/Sao_Paulo (`2026-10-01` → `2026-10-01T03:00:00Z`); a date-time
/// with an offset is the same instant in UTC.
fn instant_arg(name: &str, value: &str) -> Result<String, ToolError> {
    let v = value.trim();
    if v.len() == 10
        && let Ok(day) = v.parse::<jiff::civil::Date>()
        && let Ok(midnight) = day.to_zoned_datetime(crate::format::sao_paulo())
    {
        return Ok(midnight.timestamp().to_string());
    }
    if let Ok(instant) = v.parse::<jiff::Timestamp>() {
        return Ok(instant.to_string());
    }
    Err(ToolError::InvalidArguments(format!(
        "`{name}` deve ser uma data AAAA-MM-DD ou data-hora ISO 8601 com fuso (ex.: 2026-10-01 ou 2026-10-01T09:00:00-03:00); recebido {v:?}"
    )))
}

fn create_body(args: CreateArgs) -> Result<Value, ToolError> {
    let mut body = Map::new();
    body.insert(
        "billing_account_id".into(),
        json!(uuid_arg("billing_account_id", &args.billing_account_id)?),
    );
    if let Some(plan) = &args.plan_id {
        body.insert("plan_id".into(), json!(uuid_arg("plan_id", plan)?));
    }
    match args.items {
        Some(items) if !items.is_empty() => {
            let mut out = Vec::with_capacity(items.len());
            for (n, item) in items.iter().enumerate() {
                let product = uuid_arg(&format!("items[{n}].product_id"), &item.product_id)?;
                let price = uuid_arg(&format!("items[{n}].price_id"), &item.price_id)?;
                let quantity = item.quantity.unwrap_or(1);
                if quantity == 0 {
                    return Err(ToolError::InvalidArguments(format!(
                        "`items[{n}].quantity` deve ser ao menos 1"
                    )));
                }
                let mut line =
                    json!({"product_id": product, "price_id": price, "quantity": quantity});
                if let Some(cents) = item.unit_amount_cents {
                    let subcents = cents.checked_mul(100).ok_or_else(|| {
                        ToolError::InvalidArguments(format!(
                            "`items[{n}].unit_amount_cents` é grande demais"
                        ))
                    })?;
                    line["unit_amount_subcents"] = json!(subcents);
                }
                out.push(line);
            }
            body.insert("items".into(), Value::Array(out));
        }
        Some(_) => {
            return Err(ToolError::InvalidArguments(
                "`items` está vazio; passe ao menos um item ou use `plan_id`".to_owned(),
            ));
        }
        None if args.plan_id.is_none() => {
            return Err(ToolError::InvalidArguments(
                "passe `plan_id` (assinatura de um plano, veja billing_plans_list) ou `items` (produtos com product_id e price_id, veja billing_products_list e billing_plans_get)"
                    .to_owned(),
            ));
        }
        None => {}
    }
    if let Some(cycle) = args.billing_cycle {
        body.insert("billing_cycle".into(), json!(cycle.as_str()));
    }
    Ok(Value::Object(body))
}

#[allow(
    clippy::too_many_lines,
    reason = "a toolset's declaration list is data, one entry per tool"
)]
pub(super) fn tools() -> Vec<ToolSpec> {
    let read = Some(Permission::read(Resource::Subscriptions));
    let write = Some(Permission::write(Resource::Subscriptions));
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_list",
                title: "Listar assinaturas",
                description: "Lists subscriptions (assinaturas), with customer, cycle and amount.",
                toolset: Toolset::Subscriptions,
                permission: read,
                effect: Effect::Read,
                output: Output::List(Resource::Subscriptions),
            },
            |ctx, args: ListArgs| async move {
                let mut query = Vec::new();
                push_opt(
                    &mut query,
                    "status",
                    args.status.map(SubscriptionStatus::as_str),
                );
                if let Some(id) = &args.billing_account_id {
                    push_opt(
                        &mut query,
                        "billing_account_id",
                        Some(uuid_arg("billing_account_id", id)?),
                    );
                }
                if let Some(id) = &args.plan_id {
                    push_opt(&mut query, "plan_id", Some(uuid_arg("plan_id", id)?));
                }
                push_opt(&mut query, "search", args.search);
                ctx.list(&[SUBSCRIPTIONS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_get",
                title: "Ver assinatura",
                description: "One subscription: status, plan, cycle, recurring amount, period, pause, cancellation.",
                toolset: Toolset::Subscriptions,
                permission: read,
                effect: Effect::Read,
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?;
                ctx.record(&[SUBSCRIPTIONS, id], &[]).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_create",
                title: "Criar assinatura",
                description: "Creates a subscription from plan_id, or items of product_id + price_id (billing_plans_get).",
                toolset: Toolset::Subscriptions,
                permission: write,
                effect: Effect::Write { idempotent: false },
                output: RECORD,
            },
            |ctx, args: CreateArgs| async move {
                let body = create_body(args)?;
                ctx.write(Method::POST, &[SUBSCRIPTIONS], Some(body)).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_pause",
                title: "Pausar assinatura",
                description: "Pauses collection of an active, past_due or trialing subscription.",
                toolset: Toolset::Subscriptions,
                permission: write,
                effect: Effect::Write { idempotent: true },
                output: RECORD,
            },
            |ctx, args: PauseArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                let mut body = Map::new();
                if let Some(behavior) = args.behavior {
                    body.insert("behavior".into(), json!(behavior.as_str()));
                }
                if let Some(at) = args.resumes_at.as_deref().filter(|v| !v.trim().is_empty()) {
                    body.insert("resumes_at".into(), json!(instant_arg("resumes_at", at)?));
                }
                ctx.write(
                    Method::POST,
                    &[SUBSCRIPTIONS, &id, "pause"],
                    Some(Value::Object(body)),
                )
                .await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_resume",
                title: "Retomar assinatura",
                description: "Resumes billing of a paused subscription (status back to active).",
                toolset: Toolset::Subscriptions,
                permission: write,
                effect: Effect::Write { idempotent: true },
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                ctx.write(Method::POST, &[SUBSCRIPTIONS, &id, "resume"], None)
                    .await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_subscriptions_cancel",
                title: "Cancelar assinatura",
                description: destructive_description!(
                    "Cancels a subscription, now or at period end."
                ),
                toolset: Toolset::Subscriptions,
                permission: write,
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::CancelSubscription,
                },
                output: RECORD,
            },
            |ctx, args: CancelArgs| async move {
                let id = uuid_arg("id", &args.id)?.to_owned();
                let mut body = Map::new();
                if let Some(at_end) = args.cancel_at_period_end {
                    body.insert("cancel_at_period_end".into(), json!(at_end));
                }
                if let Some(reason) = args.reason.as_deref().filter(|r| !r.trim().is_empty()) {
                    body.insert(
                        "reason".into(),
                        json!(reason_arg(
                            "reason",
                            reason,
                            crate::catalog::context::MAX_REASON_CHARS
                        )?),
                    );
                }
                ctx.write(
                    Method::POST,
                    &[SUBSCRIPTIONS, &id, "cancel"],
                    Some(Value::Object(body)),
                )
                .await
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACCOUNT: &str = "371ecd7b-27cd-4130-8722-9389571aa876";
    const PRODUCT: &str = "0b9a3f5e-2c41-4d6e-9f70-1a2b3c4d5e01";
    const PRICE: &str = "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e02";

    #[test]
    fn contract_1_subscription_items_are_product_and_price_ids_in_subcents() {
        let args: CreateArgs = serde_json::from_value(json!({
            "billing_account_id": ACCOUNT,
            "items": [
                {"product_id": PRODUCT, "price_id": PRICE, "quantity": 2, "unit_amount_cents": 9990},
                {"product_id": PRODUCT, "price_id": PRICE}
            ]
        }))
        .unwrap();
        let body = create_body(args).unwrap();
        assert_eq!(
            body["items"],
            json!([
                {"product_id": PRODUCT, "price_id": PRICE, "quantity": 2, "unit_amount_subcents": 999000},
                {"product_id": PRODUCT, "price_id": PRICE, "quantity": 1}
            ])
        );
        // The old shape is refused by the argument type itself.
        let old: Result<CreateArgs, _> = serde_json::from_value(json!({
            "billing_account_id": ACCOUNT,
            "items": [{"description": "Plano", "unit_amount_cents": 9990}]
        }));
        assert!(old.is_err());
        let bad = serde_json::from_value::<CreateArgs>(json!({
            "billing_account_id": ACCOUNT,
            "items": [{"product_id": "abc", "price_id": PRICE}]
        }))
        .unwrap();
        let e = create_body(bad).unwrap_err().to_string();
        assert!(e.contains("items[0].product_id"), "{e}");
    }

    #[test]
    fn contract_6_resumes_at_is_a_date_time_in_utc_z() {
        assert_eq!(
            instant_arg("resumes_at", "2026-10-01").unwrap(),
            "2026-10-01T03:00:00Z"
        );
        assert_eq!(
            instant_arg("resumes_at", " 2026-10-01T12:00:00Z ").unwrap(),
            "2026-10-01T12:00:00Z"
        );
        // Reading datetime_form: an offset goes out as the same instant in UTC `Z`.
        assert_eq!(
            instant_arg("resumes_at", "2026-10-01T09:00:00-03:00").unwrap(),
            "2026-10-01T12:00:00Z"
        );
        for bad in ["2026-02-30", "01/10/2026", "2026-10-01T12:00:00"] {
            assert!(instant_arg("resumes_at", bad).is_err(), "{bad}");
        }
    }
}
