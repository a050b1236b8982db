//! What the demo holds, said at start (`kobana-mcp --demo`): the fake's clock, its month, and
//! how many customers and invoices (open, overdue) the fixture organization has, so a
//! newcomer knows what to ask for and what the answers should show.

use std::fmt;

use crate::api::s;
use crate::{FIXTURE_ORG_ID, FakeKobana, clock};

/// The fixture organization's figures at the fake's clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DemoSummary {
    /// The fake's today (São Paulo), `YYYY-MM-DD`: the server takes it as its own in demo mode.
    pub today: String,
    /// Customers (soft-deleted ones left out).
    pub customers: usize,
    /// Invoices, every status.
    pub invoices: usize,
    /// Open invoices.
    pub open: usize,
    /// Open invoices past their due date.
    pub overdue: usize,
    /// Invoices created in the clock's month (what `monthly_billing_summary` reads by default).
    pub this_month: usize,
}

impl DemoSummary {
    /// The clock's month, `YYYY-MM`.
    pub fn month(&self) -> &str {
        &self.today[..7]
    }
}

impl FakeKobana {
    /// What the fixture organization holds now (after any writes).
    pub fn summary(&self) -> DemoSummary {
        let mut inner = self.app.lock();
        let org = inner.org(FIXTURE_ORG_ID);
        let today = clock::format_date(clock::today());
        let month = today[..7].to_owned();
        let customers = org
            .customers
            .iter()
            .filter(|c| {
                !org.deleted_customers
                    .contains(s(c, "id").unwrap_or_default())
            })
            .count();
        let invoices = &org.invoices;
        DemoSummary {
            customers,
            invoices: invoices.len(),
            open: invoices
                .iter()
                .filter(|i| s(i, "status") == Some("open"))
                .count(),
            overdue: invoices
                .iter()
                .filter(|i| crate::routes::invoices::is_overdue(i))
                .count(),
            this_month: invoices
                .iter()
                .filter_map(|i| s(i, "created_at").and_then(clock::parse_date_or_datetime))
                .filter(|t| clock::format_date(clock::local_day(*t)).starts_with(&month))
                .count(),
            today,
        }
    }
}

impl fmt::Display for DemoSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "demo data: {} customers, {} invoices ({} open, {} overdue), {} created in {}; \
             today is {} for the server and the fake alike, so a monthly summary without a month reads {}",
            self.customers,
            self.invoices,
            self.open,
            self.overdue,
            self.this_month,
            self.month(),
            self.today,
            self.month(),
        )
    }
}
