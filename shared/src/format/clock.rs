//! The one "now" of billing data: what day it is for days overdue, the default month of a
//! summary, the months offered as completions and the time a prompt says it read its data.
//!
//! Normally the system's clock. The demo and the tests fix it to the fake Kobana's clock
//! ([`crate::Config::billing_now`]), so the server and the fake tell one story: an invoice the
//! fake counts as overdue is the one the server says is overdue, by the same number of days.
//! Expiry times (confirmations, tokens, codes) never read this clock: they are real time.

use jiff::Timestamp;
use jiff::civil::Date;

use super::sao_paulo;

/// Where "now" comes from for billing dates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BillingClock {
    fixed: Option<Timestamp>,
}

impl BillingClock {
    /// The system's clock, or the instant `fixed` (Unix seconds) when set and representable.
    pub fn new(fixed: Option<i64>) -> Self {
        Self {
            fixed: fixed.and_then(|s| Timestamp::from_second(s).ok()),
        }
    }

    /// The instant taken as now.
    pub fn now(&self) -> Timestamp {
        self.fixed.unwrap_or_else(Timestamp::now)
    }

    /// Today in America/Sao_Paulo.
    pub fn today(&self) -> Date {
        self.now().to_zoned_datetime(sao_paulo()).date()
    }

    /// The current month in America/Sao_Paulo, `YYYY-MM`.
    pub fn month(&self) -> String {
        let today = self.today();
        format!("{:04}-{:02}", today.year(), today.month())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fh1_a_fixed_clock_gives_its_sao_paulo_day_and_month() {
        let fixed: Timestamp = "2026-09-01T02:30:00Z".parse().unwrap();
        let clock = BillingClock::new(Some(fixed.as_second()));
        // 02:30 UTC is still 31 August in São Paulo (UTC-3).
        assert_eq!(clock.today().to_string(), "2026-08-31");
        assert_eq!(clock.month(), "2026-08");
        assert_eq!(clock.now(), fixed);
        let system = BillingClock::new(None);
        let before = Timestamp::now();
        assert!(system.now() >= before);
    }
}
