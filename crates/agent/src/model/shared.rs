//! Limits every session of the process shares, for many sessions in one process
//! ([`crate::in_process`]): a cap on model calls in flight, so that a slow API queues calls here
//! rather than opening thousands of connections; and one retry budget, so that when the API
//! rate-limits, the process retries a bounded number of times in all rather than each session
//! its ten, and every session waits out the wait the API named. None is set by default (the
//! binary serves one session).

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

static CALL_SLOTS: OnceLock<Arc<Semaphore>> = OnceLock::new();
static RETRY_BUDGET: OnceLock<RetryBudget> = OnceLock::new();

/// Caps the model calls in flight at once (from the request until the reply's last event) at
/// `max`; a call beyond it waits, first come, first served. The first call sets it.
pub(crate) fn limit_calls(max: usize) -> bool {
    let max = max.clamp(1, Semaphore::MAX_PERMITS);
    CALL_SLOTS.set(Arc::new(Semaphore::new(max))).is_ok()
}

/// A slot for one call, when calls are capped; held by the reply's stream.
pub(crate) async fn call_slot() -> Option<OwnedSemaphorePermit> {
    let slots = CALL_SLOTS.get()?;
    Arc::clone(slots).acquire_owned().await.ok()
}

/// Shares one retry budget among the process's calls (see [`RetryBudget`]). The first call
/// sets it.
pub(crate) fn share_retries(budget: RetryBudget) -> bool {
    RETRY_BUDGET.set(budget).is_ok()
}

/// The process's retry budget, when one is shared.
pub(crate) fn retry_budget() -> Option<&'static RetryBudget> {
    RETRY_BUDGET.get()
}

/// Retries for the whole process: a bucket of `capacity` tokens refilled at `per_second`; a
/// retry takes one, and with none left a failed call fails at once. A wait the API names on a
/// rate limit or an overload (`retry-after`, 429 or 529) holds every call of the process until
/// it has passed, not only the one that was told.
#[derive(Debug)]
pub struct RetryBudget {
    capacity: f64,
    per_second: f64,
    state: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    tokens: f64,
    filled_at: Instant,
    /// No call starts before this.
    hold_until: Option<Instant>,
}

/// The longest a named wait holds the process's calls.
const MAX_HOLD: Duration = Duration::from_secs(300);

impl RetryBudget {
    /// `capacity` retries at once, refilled at `per_second` (0: never refilled).
    pub fn new(capacity: u32, per_second: f64) -> Self {
        let per_second = if per_second.is_finite() {
            per_second.max(0.0)
        } else {
            0.0
        };
        Self {
            capacity: f64::from(capacity),
            per_second,
            state: Mutex::new(Bucket {
                tokens: f64::from(capacity),
                filled_at: Instant::now(),
                hold_until: None,
            }),
        }
    }

    fn bucket(&self) -> std::sync::MutexGuard<'_, Bucket> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes a retry: `false` when the budget is spent.
    pub(crate) fn take(&self) -> bool {
        let mut bucket = self.bucket();
        let now = Instant::now();
        let refill = now.duration_since(bucket.filled_at).as_secs_f64() * self.per_second;
        bucket.tokens = (bucket.tokens + refill).min(self.capacity);
        bucket.filled_at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Holds every call until `wait` from now has passed (the API named it).
    pub(crate) fn hold_for(&self, wait: Duration) {
        let until = Instant::now() + wait.min(MAX_HOLD);
        let mut bucket = self.bucket();
        if bucket.hold_until.is_none_or(|held| held < until) {
            bucket.hold_until = Some(until);
        }
    }

    /// Waits until no named wait holds the calls.
    pub(crate) async fn wait_turn(&self) {
        let until = self.bucket().hold_until;
        if let Some(until) = until {
            tokio::time::sleep_until(until.into()).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_is_spent_and_refilled() {
        let budget = RetryBudget::new(2, 0.0);
        assert!(budget.take());
        assert!(budget.take());
        assert!(!budget.take(), "spent");
        let refilled = RetryBudget::new(1, 1000.0);
        assert!(refilled.take());
        std::thread::sleep(Duration::from_millis(5));
        assert!(refilled.take(), "refilled");
    }

    #[tokio::test]
    async fn a_named_wait_holds_every_call() {
        let budget = RetryBudget::new(1, 0.0);
        budget.hold_for(Duration::from_millis(100));
        budget.hold_for(Duration::from_millis(10));
        let started = Instant::now();
        budget.wait_turn().await;
        assert!(
            started.elapsed() >= Duration::from_millis(90),
            "the longer wait wins"
        );
    }
}
