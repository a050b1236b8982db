//! Toolset `customers`: clientes and their billing accounts.

use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::billing_accounts;
use crate::access::slugs::{BILLING_ACCOUNTS, CUSTOMERS};
use crate::access::{Permission, Resource};
use crate::catalog::Asks;
use crate::catalog::args::{MAX_ARRAY_ITEMS, each_once, id_args};
use crate::catalog::context::{MAX_PER_PAGE, destructive_description, push_opt, ref_arg};
use crate::catalog::{Effect, Output, Paging, ToolCtx, ToolError, ToolMeta, ToolSpec, Toolset};

const RECORD: Output = Output::Record {
    key: "customer",
    schema: Resource::Customers,
};

/// Person or company.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CustomerKind {
    /// Pessoa física (CPF).
    Natural,
    /// Pessoa jurídica (CNPJ).
    Juridical,
}

impl CustomerKind {
    fn as_str(self) -> &'static str {
        match self {
            CustomerKind::Natural => "natural",
            CustomerKind::Juridical => "juridical",
        }
    }
}

// Arguments of `billing_customers_list`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct ListArgs {
    /// Name, CPF/CNPJ or e-mail.
    pub search: Option<String>,
    /// natural: person; juridical: company.
    pub kind: Option<CustomerKind>,
    #[serde(flatten)]
    pub paging: Paging,
}

id_args!("UUID or external_id.");

// A postal address.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct Address {
    // billing, shipping, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    // Street.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub street: Option<String>,
    // Number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
    // Complement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complement: Option<String>,
    /// Bairro.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neighborhood: Option<String>,
    // City.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// UF.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// CEP.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postal_code: Option<String>,
    // Country code, e.g. BR.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// Customer fields that can be set on create or update.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CustomerFields {
    // Name or razão social.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    // Person (natural) or company (juridical).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<CustomerKind>,
    /// CPF or CNPJ, mask allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document_number: Option<String>,
    /// Nome fantasia.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nickname: Option<String>,
    /// Razão social.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub legal_name: Option<String>,
    /// Your own id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    // Free notes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    // Tags (each kept once).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_ARRAY_ITEMS))]
    pub tags: Option<Vec<String>>,
    // Addresses.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_ARRAY_ITEMS))]
    pub addresses: Option<Vec<Address>>,
}

impl CustomerFields {
    /// The request body: the fields given, `tags` each once in the order first given.
    fn body(mut self) -> Value {
        self.tags = self.tags.map(each_once);
        body_of(&self)
    }
}

// Arguments of `billing_customers_create`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct CreateArgs {
    #[serde(flatten)]
    pub fields: CustomerFields,
    // Contact e-mail.
    pub email: Option<String>,
    // Contact phone.
    pub phone: Option<String>,
    /// Invoice e-mail (default: email).
    pub billing_email: Option<String>,
    /// Days to due date (default 10).
    #[schemars(range(min = 1, max = 90))]
    pub payment_terms_days: Option<u32>,
    /// Default true.
    pub create_billing_account: Option<bool>,
}

// Arguments of `billing_customers_update`.
#[derive(Debug, Deserialize, JsonSchema)]
#[allow(
    missing_docs,
    reason = "fields say what they are in `//` comments: a doc comment would be the schema's description"
)]
pub struct UpdateArgs {
    /// Customer UUID, or your own external_id.
    pub id: String,
    #[serde(flatten)]
    pub fields: CustomerFields,
}

/// The customer's billing accounts, found by the documented route (`GET /v1/billing_accounts`
/// with `person_id` = the customer's id; the customer read declares no `include`): the
/// members `billing_accounts` (first 100) and `billing_accounts_total`, or, when the token
/// cannot read billing accounts, `billing_accounts_note` saying so.
async fn accounts_of(ctx: &ToolCtx, result: &Value) -> Result<Map<String, Value>, ToolError> {
    let mut out = Map::new();
    if !ctx
        .principal
        .permissions
        .allows(Permission::read(Resource::BillingAccounts))
    {
        out.insert(
            "billing_accounts_note".to_owned(),
            json!("o token não tem billing_accounts:read; as contas de cobrança deste cliente não foram lidas"),
        );
        return Ok(out);
    }
    let Some(customer_id) = result.pointer("/customer/id").and_then(Value::as_str) else {
        return Ok(out);
    };
    let args = billing_accounts::ListArgs {
        customer_id: Some(customer_id.to_owned()),
        document_number: None,
        search: None,
        status: None,
        paging: Paging {
            per_page: Some(MAX_PER_PAGE),
            ..Paging::default()
        },
    };
    let query = billing_accounts::list_query(&args)?;
    let list = ctx
        .list_records(
            &[BILLING_ACCOUNTS],
            Resource::BillingAccounts,
            &args.paging,
            query,
        )
        .await?;
    learn_names(ctx, result, &list);
    out.insert(
        "billing_accounts_total".to_owned(),
        list.get("total").cloned().unwrap_or(Value::Null),
    );
    out.insert(
        BILLING_ACCOUNTS.to_owned(),
        list.get(BILLING_ACCOUNTS).cloned().unwrap_or(json!([])),
    );
    Ok(out)
}

/// The customer's name, for each of its accounts just listed: list rows of invoices and
/// subscriptions can then name it without a read (see [`crate::catalog::lists::names`]).
fn learn_names(ctx: &ToolCtx, customer: &Value, accounts: &Value) {
    let Some(name) = customer
        .pointer("/customer/name")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
    else {
        return;
    };
    let now = std::time::Instant::now();
    for id in accounts
        .get(BILLING_ACCOUNTS)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|a| a.get("id").and_then(Value::as_str))
    {
        ctx.names
            .remember(&ctx.principal.organization, id, Some(name), now);
    }
}

fn body_of(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[allow(
    clippy::too_many_lines,
    reason = "a toolset's declaration list is data, one entry per tool"
)]
pub(super) fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec::new(
            ToolMeta {
                name: "billing_customers_list",
                title: "Listar clientes",
                description: "Lists customers (clientes), newest first: finds a customer's id.",
                toolset: Toolset::Customers,
                permission: Some(Permission::read(Resource::Customers)),
                effect: Effect::Read,
                output: Output::List(Resource::Customers),
            },
            |ctx, args: ListArgs| async move {
                let mut query = Vec::new();
                push_opt(&mut query, "search", args.search);
                push_opt(&mut query, "kind", args.kind.map(CustomerKind::as_str));
                ctx.list(&[CUSTOMERS], &args.paging, query).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_customers_get",
                title: "Ver cliente",
                description: "One customer and its billing_accounts, whose ids invoices and subscriptions take.",
                toolset: Toolset::Customers,
                permission: Some(Permission::read(Resource::Customers)),
                effect: Effect::Read,
                output: RECORD,
            },
            |ctx, args: IdArgs| async move {
                let id = ref_arg("id", &args.id)?;
                let mut result = ctx.record(&[CUSTOMERS, id], &[]).await?;
                let accounts = accounts_of(&ctx, &result).await?;
                if let Some(map) = result.as_object_mut() {
                    map.extend(accounts);
                }
                Ok(result)
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_customers_create",
                title: "Criar cliente",
                description: "Creates a customer and, unless create_billing_account is false, its billing account.",
                toolset: Toolset::Customers,
                permission: Some(Permission::write(Resource::Customers)),
                effect: Effect::Write { idempotent: false },
                output: Output::Record {
                    key: "created",
                    schema: Resource::Customers,
                },
            },
            |ctx, args: CreateArgs| async move {
                if args
                    .fields
                    .name
                    .as_deref()
                    .is_none_or(|n| n.trim().is_empty())
                {
                    return Err(ToolError::InvalidArguments(
                        "`name` é obrigatório para criar um cliente".to_owned(),
                    ));
                }
                let mut body = args.fields.body();
                for (key, value) in [
                    ("email", args.email.map(Value::from)),
                    ("phone", args.phone.map(Value::from)),
                    ("billing_email", args.billing_email.map(Value::from)),
                    (
                        "payment_terms_days",
                        args.payment_terms_days.map(Value::from),
                    ),
                    (
                        "create_billing_account",
                        args.create_billing_account.map(Value::from),
                    ),
                ] {
                    if let Some(value) = value {
                        body[key] = value;
                    }
                }
                ctx.write(Method::POST, &[CUSTOMERS], Some(body)).await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_customers_update",
                title: "Alterar cliente",
                description: "Changes only the customer fields passed. Returns the customer.",
                toolset: Toolset::Customers,
                permission: Some(Permission::write(Resource::Customers)),
                effect: Effect::Write { idempotent: true },
                output: RECORD,
            },
            |ctx, args: UpdateArgs| async move {
                let id = ref_arg("id", &args.id)?.to_owned();
                let body = args.fields.body();
                if body.as_object().is_none_or(|m| m.is_empty()) {
                    return Err(ToolError::InvalidArguments(
                        "passe ao menos um campo para alterar (ex.: name, document_number, notes)"
                            .to_owned(),
                    ));
                }
                ctx.write(Method::PATCH, &[CUSTOMERS, &id], Some(body))
                    .await
            },
        ),
        ToolSpec::new(
            ToolMeta {
                name: "billing_customers_delete",
                title: "Remover cliente",
                description: destructive_description!(
                    "Removes a customer (soft delete: history kept)."
                ),
                toolset: Toolset::Customers,
                permission: Some(Permission::write(Resource::Customers)),
                effect: Effect::Destructive {
                    idempotent: true,
                    asks: Asks::DeleteCustomer,
                },
                output: Output::Record {
                    key: "result",
                    schema: Resource::Customers,
                },
            },
            |ctx, args: IdArgs| async move {
                let id = ref_arg("id", &args.id)?.to_owned();
                ctx.write(Method::DELETE, &[CUSTOMERS, &id], None).await
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_6_a_partial_address_sends_no_nulls() {
        let args: CreateArgs = serde_json::from_value(serde_json::json!({
            "name": "Oficina Boa Vista Ltda",
            "addresses": [{"street": "Rua Augusta", "city": "São Paulo", "state": "SP"}]
        }))
        .unwrap();
        let body = body_of(&args.fields);
        assert_eq!(
            body["addresses"],
            serde_json::json!([{"street": "Rua Augusta", "city": "São Paulo", "state": "SP"}])
        );
    }
}
