//! The audit trail's configuration: where entries go (`AUDIT_TABLE`) and how long they stay
//! (`AUDIT_RETENTION_DAYS`).

use super::{ConfigError, bounded};

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

impl AuditConfig {
    /// `AUDIT_TABLE` and `AUDIT_RETENTION_DAYS` (1 to 3660 days).
    pub(super) fn from_lookup(get: &impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let days = bounded(
            get,
            "AUDIT_RETENTION_DAYS",
            (1, MAX_AUDIT_RETENTION_DAYS),
            DEFAULT_AUDIT_RETENTION_DAYS.into(),
            "days",
        )?;
        Ok(Self {
            table: get("AUDIT_TABLE").map(|t| t.trim().to_owned()),
            retention_days: u32::try_from(days).unwrap_or(DEFAULT_AUDIT_RETENTION_DAYS),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(vars: &[(&str, &str)]) -> Result<AuditConfig, ConfigError> {
        AuditConfig::from_lookup(&|name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn au3_the_table_and_the_retention_are_read_and_checked() {
        assert_eq!(read(&[]).unwrap(), AuditConfig::default());
        assert_eq!(AuditConfig::default().retention_days, 400);
        let c = read(&[("AUDIT_TABLE", " audit "), ("AUDIT_RETENTION_DAYS", "30")]).unwrap();
        assert_eq!((c.table.as_deref(), c.retention_days), (Some("audit"), 30));
        for bad in ["0", "3661", "a year"] {
            let error = read(&[("AUDIT_RETENTION_DAYS", bad)])
                .unwrap_err()
                .to_string();
            assert!(error.contains("AUDIT_RETENTION_DAYS"), "{error}");
        }
    }
}
