//! Where what must outlive an instance is kept: the confirmation nonces
//! (`CONFIRMATIONS_TABLE`) and the audit trail (`AUDIT_TABLE`, kept `AUDIT_RETENTION_DAYS`).

use const_format::formatcp;

use super::variables::{Read, Unit, Variable};

/// Days an audit entry is kept when `AUDIT_RETENTION_DAYS` is unset.
pub const DEFAULT_AUDIT_RETENTION_DAYS: u32 = 400;
/// Most days `AUDIT_RETENTION_DAYS` may say (ten years).
const MAX_AUDIT_RETENTION_DAYS: u64 = 3660;

/// The audit trail's store and retention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditConfig {
    /// DynamoDB table of the trail (`AUDIT_TABLE`); in memory when unset.
    pub table: Option<String>,
    /// Days an entry is kept (`AUDIT_RETENTION_DAYS`): the table's TTL.
    pub retention_days: u32,
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self {
            table: None,
            retention_days: DEFAULT_AUDIT_RETENTION_DAYS,
        }
    }
}

/// `CONFIRMATIONS_TABLE`.
pub(super) const CONFIRMATIONS_TABLE: Variable = Variable::new(
    "CONFIRMATIONS_TABLE",
    "unset → in memory",
    "DynamoDB table for confirmation nonces.",
    Read::Text(|config, value| {
        config.confirmations_table = Some(value.to_owned());
        Ok(())
    }),
)
.more("The endpoint can be overridden with the AWS SDK's own `AWS_ENDPOINT_URL_DYNAMODB`.");

/// `AUDIT_TABLE`.
pub(super) const AUDIT_TABLE: Variable = Variable::new(
    "AUDIT_TABLE",
    "unset → in memory",
    "DynamoDB table of the audit trail of writes.",
    Read::Text(|config, value| {
        config.audit.table = Some(value.to_owned());
        Ok(())
    }),
)
.more(
    "One entry per write the assistant attempted or made, readable by the organization \
     through `billing_audit_list` ([docs/deploy.md](docs/deploy.md#the-audit-trail)). The \
     stack creates it; the endpoint is overridden as above.",
);

/// `AUDIT_RETENTION_DAYS`.
pub(super) const AUDIT_RETENTION_DAYS: Variable = Variable::new(
    "AUDIT_RETENTION_DAYS",
    formatcp!("`{DEFAULT_AUDIT_RETENTION_DAYS}`"),
    "Days an audit entry is kept: the table's TTL.",
    Read::Whole {
        unit: Unit::Days,
        min: 1,
        max: MAX_AUDIT_RETENTION_DAYS,
        set: |config, days| {
            config.audit.retention_days =
                u32::try_from(days).unwrap_or(DEFAULT_AUDIT_RETENTION_DAYS);
        },
    },
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::config;

    #[test]
    fn au3_the_table_and_the_retention_are_read_and_checked() {
        assert_eq!(config(&[]).unwrap().audit, AuditConfig::default());
        assert_eq!(AuditConfig::default().retention_days, 400);
        let c = config(&[("AUDIT_TABLE", " audit "), ("AUDIT_RETENTION_DAYS", "30")]).unwrap();
        assert_eq!(
            (c.audit.table.as_deref(), c.audit.retention_days),
            (Some("audit"), 30)
        );
        for bad in ["0", "3661", "a year"] {
            let error = config(&[("AUDIT_RETENTION_DAYS", bad)])
                .unwrap_err()
                .to_string();
            assert!(error.contains("AUDIT_RETENTION_DAYS"), "{error}");
        }
    }

    #[test]
    fn confirmations_stay_in_memory_unless_a_table_is_named() {
        assert!(config(&[]).unwrap().confirmations_table.is_none());
        let c = config(&[("CONFIRMATIONS_TABLE", " confirmations ")]).unwrap();
        assert_eq!(c.confirmations_table.as_deref(), Some("confirmations"));
    }
}
