//! The work budget of one request (BW-1): every Kobana call the request makes — retries
//! included — takes one call from it, and waits for one of its in-flight slots; the slot is
//! held while the call is sent and its answer read. One budget per request, built from
//! [`WorkLimits`] by [`super::KobanaClient::for_request`] and shared by every clone of the
//! [`super::BoundClient`] it binds, so a tool, a prompt, a completion and a confirmation are
//! bound the same way.
//!
//! A spent budget ends the call before anything is sent ([`KobanaError::BudgetSpent`]), so a
//! write is never half-sent, and the answer says so in pt-BR.

use std::sync::atomic::{AtomicU32, Ordering};

use tokio::sync::{Semaphore, SemaphorePermit};
use tokio::time::Instant;

use super::KobanaError;
use crate::config::WorkLimits;

/// The calls left to one request, and its in-flight slots.
#[derive(Debug)]
pub struct WorkBudget {
    limits: WorkLimits,
    calls: AtomicU32,
    in_flight: Semaphore,
}

impl WorkBudget {
    /// A fresh budget: no call made, every slot free.
    pub fn new(limits: WorkLimits) -> Self {
        Self {
            limits,
            calls: AtomicU32::new(0),
            in_flight: Semaphore::new(limits.max_in_flight.max(1) as usize),
        }
    }

    /// The limits this budget enforces.
    pub fn limits(&self) -> &WorkLimits {
        &self.limits
    }

    /// Calls made so far (admitted, retries included).
    pub fn calls_made(&self) -> u32 {
        self.calls.load(Ordering::Relaxed)
    }

    /// Admits one call: waits (until `deadline`) for an in-flight slot, then takes one call.
    /// The slot is freed when the returned permit is dropped. A call refused for the budget
    /// is not counted, so a spent budget stays at its limit.
    pub(super) async fn admit(
        &self,
        deadline: Instant,
        timeout_ms: u128,
    ) -> Result<SemaphorePermit<'_>, KobanaError> {
        let permit = tokio::time::timeout_at(deadline, self.in_flight.acquire())
            .await
            .map_err(|_| KobanaError::Timeout(timeout_ms))?
            .map_err(|_| KobanaError::BudgetSpent {
                calls: self.limits.max_calls,
            })?;
        let taken = self
            .calls
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |made| {
                (made < self.limits.max_calls).then_some(made + 1)
            });
        match taken {
            Ok(_) => Ok(permit),
            Err(_) => Err(KobanaError::BudgetSpent {
                calls: self.limits.max_calls,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn limits(max_calls: u32, max_in_flight: u32) -> WorkLimits {
        WorkLimits {
            max_calls,
            max_in_flight,
            ..WorkLimits::default()
        }
    }

    #[tokio::test]
    async fn n6_the_budget_admits_k_calls_then_refuses_without_counting() {
        let budget = WorkBudget::new(limits(2, 4));
        let deadline = Instant::now() + Duration::from_secs(1);
        drop(budget.admit(deadline, 1000).await.expect("first"));
        drop(budget.admit(deadline, 1000).await.expect("second"));
        for _ in 0..3 {
            let refused = budget.admit(deadline, 1000).await.unwrap_err();
            assert!(
                matches!(refused, KobanaError::BudgetSpent { calls: 2 }),
                "{refused:?}"
            );
        }
        assert_eq!(budget.calls_made(), 2);
    }

    #[tokio::test]
    async fn n6_at_most_c_calls_are_in_flight_and_a_wait_ends_at_the_deadline() {
        let budget = WorkBudget::new(limits(10, 1));
        let deadline = Instant::now() + Duration::from_millis(50);
        let held = budget.admit(deadline, 50).await.expect("the one slot");
        let waited = budget.admit(deadline, 50).await.unwrap_err();
        assert!(matches!(waited, KobanaError::Timeout(50)), "{waited:?}");
        drop(held);
        let later = Instant::now() + Duration::from_secs(1);
        assert!(
            budget.admit(later, 1000).await.is_ok(),
            "the slot is free again"
        );
        assert_eq!(
            budget.calls_made(),
            2,
            "a call that never got a slot is not counted"
        );
    }
}
