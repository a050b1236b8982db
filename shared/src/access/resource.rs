//! The resources permissions are granted on: the first segment of Kobana's paths under
//! `/v1`, each slug written once.

/// A Kobana billing resource that permissions are granted on: the first segment of its paths
/// under `/v1` (28 of them in Kobana's document).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Resource {
    /// The token's organization.
    Organization,
    /// Customers (clientes).
    Customers,
    /// Billing accounts (contas de cobrança) that invoices and subscriptions point to.
    BillingAccounts,
    /// Plans (planos) and their items.
    Plans,
    /// Products (produtos).
    Products,
    /// Subscriptions (assinaturas).
    Subscriptions,
    /// Invoices (faturas).
    Invoices,
    /// Payments behind invoices.
    Payments,
    /// NF-e / NFS-e.
    Nfes,
    /// Plan groups (grupos de plano).
    PlanGroups,
    /// Product groups (grupos de produto).
    ProductGroups,
    /// Companies (empresas) that issue invoices and NF-e.
    Companies,
    /// Digital certificates (certificados) for NF-e.
    Certificates,
    /// Coupons (cupons) and discount codes.
    Coupons,
    /// Credits (créditos) held by billing accounts.
    Credits,
    /// Saved payment methods (métodos de pagamento).
    PaymentMethods,
    /// Proposals (propostas).
    Proposals,
    /// Proposal templates (templates de proposta).
    ProposalTemplates,
    /// Plan changes (mudanças de plano) with proration.
    PlanChanges,
    /// Subscription changes (mudanças de assinatura).
    SubscriptionChanges,
    /// Subscription item changes (mudanças de item de assinatura).
    SubscriptionItemChanges,
    /// Metered usage (uso).
    Usage,
    /// Tax rules (regras tributárias).
    TaxRules,
    /// Tax periods (períodos tributários).
    TaxPeriods,
    /// Taxes withheld at source (retenções).
    Withholdings,
    /// Service items of LC 116 (itens de serviço).
    ServiceItems,
    /// The account's dashboard users (administração da conta).
    DashboardUsers,
    /// The account's team roles (administração da conta).
    TeamRoles,
}

impl Resource {
    /// Every resource: the nine of the curated tools first, then the others in the document's
    /// order.
    pub const ALL: [Resource; 28] = [
        Resource::Organization,
        Resource::Customers,
        Resource::BillingAccounts,
        Resource::Plans,
        Resource::Products,
        Resource::Subscriptions,
        Resource::Invoices,
        Resource::Payments,
        Resource::Nfes,
        Resource::PlanGroups,
        Resource::ProductGroups,
        Resource::Companies,
        Resource::Certificates,
        Resource::Coupons,
        Resource::Credits,
        Resource::PaymentMethods,
        Resource::Proposals,
        Resource::ProposalTemplates,
        Resource::PlanChanges,
        Resource::SubscriptionChanges,
        Resource::SubscriptionItemChanges,
        Resource::Usage,
        Resource::TaxRules,
        Resource::TaxPeriods,
        Resource::Withholdings,
        Resource::ServiceItems,
        Resource::DashboardUsers,
        Resource::TeamRoles,
    ];

    /// The slug used in permissions, toolset names, Kobana's paths (`/v1/<slug>/…`), list
    /// members and the schema catalog: the one place each is written (see [`slugs`]).
    pub const fn slug(self) -> &'static str {
        match self {
            Resource::Organization => "organization",
            Resource::Customers => "customers",
            Resource::BillingAccounts => "billing_accounts",
            Resource::Plans => "plans",
            Resource::Products => "products",
            Resource::Subscriptions => "subscriptions",
            Resource::Invoices => "invoices",
            Resource::Payments => "payments",
            Resource::Nfes => "nfes",
            Resource::PlanGroups => "plan_groups",
            Resource::ProductGroups => "product_groups",
            Resource::Companies => "companies",
            Resource::Certificates => "certificates",
            Resource::Coupons => "coupons",
            Resource::Credits => "credits",
            Resource::PaymentMethods => "payment_methods",
            Resource::Proposals => "proposals",
            Resource::ProposalTemplates => "proposal_templates",
            Resource::PlanChanges => "plan_changes",
            Resource::SubscriptionChanges => "subscription_changes",
            Resource::SubscriptionItemChanges => "subscription_item_changes",
            Resource::Usage => "usage",
            Resource::TaxRules => "tax_rules",
            Resource::TaxPeriods => "tax_periods",
            Resource::Withholdings => "withholdings",
            Resource::ServiceItems => "service_items",
            Resource::DashboardUsers => "dashboard_users",
            Resource::TeamRoles => "team_roles",
        }
    }

    /// Parses a slug.
    pub fn from_slug(slug: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.slug() == slug)
    }
}

/// Each resource's slug as a constant, for Kobana paths (`&[INVOICES, id]`) and patterns
/// (`[CUSTOMERS, id] => …`): derived from [`Resource::slug`], never written again.
pub mod slugs {
    use super::Resource;

    /// `organization`.
    pub const ORGANIZATION: &str = Resource::Organization.slug();
    /// `customers`.
    pub const CUSTOMERS: &str = Resource::Customers.slug();
    /// `billing_accounts`.
    pub const BILLING_ACCOUNTS: &str = Resource::BillingAccounts.slug();
    /// `plans`.
    pub const PLANS: &str = Resource::Plans.slug();
    /// `products`.
    pub const PRODUCTS: &str = Resource::Products.slug();
    /// `subscriptions`.
    pub const SUBSCRIPTIONS: &str = Resource::Subscriptions.slug();
    /// `invoices`.
    pub const INVOICES: &str = Resource::Invoices.slug();
    /// `payments`.
    pub const PAYMENTS: &str = Resource::Payments.slug();
    /// `nfes`.
    pub const NFES: &str = Resource::Nfes.slug();
}
