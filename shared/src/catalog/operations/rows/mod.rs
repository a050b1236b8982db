//! The reviewed rows, one file per resource (the first segment of the path under `/v1`), in
//! the document's order, and within each file in the document's order too.

use super::row::Row;

mod billing_accounts;
mod certificates;
mod companies;
mod coupons;
mod credits;
mod customers;
mod dashboard_users;
mod invoices;
mod nfes;
mod organization;
mod payment_methods;
mod payments;
mod plan_changes;
mod plan_groups;
mod plans;
mod product_groups;
mod products;
mod proposal_templates;
mod proposals;
mod service_items;
mod subscription_changes;
mod subscription_item_changes;
mod subscriptions;
mod tax_periods;
mod tax_rules;
mod team_roles;
mod usage;
mod withholdings;

/// Why team and role administration never passes through a model (shown to the person).
const TEAM_ADMIN: &str = "A administração da equipe e dos papéis concede ou retira acesso ao painel de faturamento; por segurança, ela nunca passa pelo assistente. Faça essa alteração no painel do Kobana.";

/// Every row, by resource.
pub const ROWS: &[&[Row]] = &[
    subscriptions::ROWS,
    billing_accounts::ROWS,
    customers::ROWS,
    plans::ROWS,
    plan_groups::ROWS,
    products::ROWS,
    product_groups::ROWS,
    organization::ROWS,
    companies::ROWS,
    certificates::ROWS,
    coupons::ROWS,
    credits::ROWS,
    invoices::ROWS,
    payments::ROWS,
    payment_methods::ROWS,
    nfes::ROWS,
    proposals::ROWS,
    proposal_templates::ROWS,
    plan_changes::ROWS,
    subscription_changes::ROWS,
    subscription_item_changes::ROWS,
    usage::ROWS,
    tax_rules::ROWS,
    tax_periods::ROWS,
    withholdings::ROWS,
    service_items::ROWS,
    dashboard_users::ROWS,
    team_roles::ROWS,
];
