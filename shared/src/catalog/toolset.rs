//! Toolsets: the groups a client may select with `X-MCP-Toolsets`, one file each in
//! `catalog/curated` (and `operations`, the generic tools). A toolset knows its slug and the
//! permission resource its tools act on (whose slug is also the Kobana path segment of its
//! records). Every resource's slug is a name a client may write too (see
//! [`super::Narrowing`]): it narrows the generic tools to that resource's operations.

use crate::access::Resource;

/// One toolset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Toolset {
    /// The token's organization.
    Organization,
    /// The server's own schema catalog.
    Schemas,
    /// Customers (clientes).
    Customers,
    /// Billing accounts (contas de cobrança).
    BillingAccounts,
    /// Plans (planos) and their items.
    Plans,
    /// Products (produtos) and their prices.
    Products,
    /// Subscriptions (assinaturas).
    Subscriptions,
    /// Invoices (faturas).
    Invoices,
    /// Payments behind invoices.
    Payments,
    /// NF-e / NFS-e.
    Nfes,
    /// Figures the server computes from several lists (`billing_reports_month`).
    Reports,
    /// The server's own audit trail of writes.
    Audit,
    /// The generic tools that reach every operation of the document (`catalog::operations`).
    Operations,
}

impl Toolset {
    /// The server's own catalog's slug (`schemas`): its toolset, its resource URIs
    /// (`kobana://billing/schemas/…`).
    pub const SCHEMAS: &'static str = Toolset::Schemas.slug();
    /// The generic tools' slug (`operations`).
    pub const OPERATIONS: &'static str = Toolset::Operations.slug();

    /// The audit trail's slug (`audit`): its toolset, its resource URI
    /// (`kobana://billing/audit`).
    pub const AUDIT: &'static str = Toolset::Audit.slug();

    /// Every toolset, in catalog order.
    pub const ALL: [Toolset; 13] = [
        Toolset::Organization,
        Toolset::Schemas,
        Toolset::Customers,
        Toolset::BillingAccounts,
        Toolset::Plans,
        Toolset::Products,
        Toolset::Subscriptions,
        Toolset::Invoices,
        Toolset::Payments,
        Toolset::Nfes,
        Toolset::Reports,
        Toolset::Audit,
        Toolset::Operations,
    ];

    /// The reports' slug (`reports`).
    pub const REPORTS: &'static str = "reports";

    /// The permission resource its tools act on; `None` for the server's own catalog, the
    /// reports (which read several resources; each tool names the permission it needs) and
    /// the audit trail.
    pub const fn resource(self) -> Option<Resource> {
        Some(match self {
            Toolset::Schemas | Toolset::Reports | Toolset::Audit | Toolset::Operations => {
                return None;
            }
            Toolset::Organization => Resource::Organization,
            Toolset::Customers => Resource::Customers,
            Toolset::BillingAccounts => Resource::BillingAccounts,
            Toolset::Plans => Resource::Plans,
            Toolset::Products => Resource::Products,
            Toolset::Subscriptions => Resource::Subscriptions,
            Toolset::Invoices => Resource::Invoices,
            Toolset::Payments => Resource::Payments,
            Toolset::Nfes => Resource::Nfes,
        })
    }

    /// The name a client writes in `X-MCP-Toolsets` (the permission slug, `schemas`, `reports`,
    /// `audit` or `operations`).
    pub const fn slug(self) -> &'static str {
        match (self, self.resource()) {
            (Toolset::Reports, _) => Self::REPORTS,
            (Toolset::Audit, _) => "audit",
            (Toolset::Operations, _) => "operations",
            (_, Some(resource)) => resource.slug(),
            (_, None) => "schemas",
        }
    }

    /// Whether its tools, which need no permission of their own, are shown only to a token
    /// that may read something (the audit trail: a token that may read nothing reads no
    /// trail either).
    pub const fn needs_some_read(self) -> bool {
        matches!(self, Toolset::Audit)
    }

    /// Parses a slug as a client writes it (case and surrounding blanks ignored).
    pub fn from_slug(slug: &str) -> Option<Self> {
        let slug = slug.trim();
        Self::ALL
            .into_iter()
            .find(|set| set.slug().eq_ignore_ascii_case(slug))
    }

    /// The slugs, comma-separated, for error texts.
    pub fn slugs() -> String {
        Self::ALL.map(Toolset::slug).join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_round_trip_and_are_unique() {
        for set in Toolset::ALL {
            assert_eq!(Toolset::from_slug(set.slug()), Some(set));
            assert_eq!(
                Toolset::from_slug(&format!(" {} ", set.slug().to_uppercase())),
                Some(set)
            );
        }
        let mut slugs: Vec<_> = Toolset::ALL.map(Toolset::slug).to_vec();
        slugs.dedup();
        assert_eq!(slugs.len(), Toolset::ALL.len());
        assert_eq!(Toolset::from_slug("../admin"), None);
    }

    #[test]
    fn every_toolset_of_a_resource_is_named_by_its_slug() {
        for set in Toolset::ALL {
            if let Some(resource) = set.resource() {
                assert_eq!(set.slug(), resource.slug());
            }
        }
        assert_eq!(Toolset::from_slug("operations"), Some(Toolset::Operations));
    }
}
