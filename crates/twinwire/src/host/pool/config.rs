//! A pool's sizes, budgets and figures.

use std::time::Duration;

/// Limits of one pooled session; `None` is no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Budget {
    /// Prompts sent.
    pub max_turns: Option<u32>,
    /// The session's cost in US dollars, as the CLI reports it.
    pub max_cost_usd: Option<f64>,
    /// Time from checkout.
    pub max_wall: Option<Duration>,
}

/// A pool's sizes: `PoolConfig::default().max_live(8).spares(2)`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct PoolConfig {
    /// Sessions checked out at once.
    pub max_live: usize,
    /// CLIs kept started and initialized, ready for the next session.
    pub spares: usize,
    /// Every session's budget.
    pub budget: Budget,
    /// After a spare is taken, how long the pool waits before starting its replacement: a
    /// CLI starting takes a core for a good part of a second, which the session that took the
    /// spare needs for its first answer on a small machine. Zero: at once.
    pub refill_delay: Duration,
    /// Spares are parked: started with `--await-claim` in a parking directory (the options'
    /// `cwd` if they give one, else a private directory under the CLI's configuration
    /// directory), and bound to a session's folder, model and the rest of a
    /// [`Claim`](super::Claim) when one takes them. Off: spares start in the options' `cwd`
    /// and serve only sessions of the pool's options as they are.
    pub parked: bool,
}

impl Budget {
    /// At most `n` prompts.
    #[must_use]
    pub fn max_turns(mut self, n: u32) -> Self {
        self.max_turns = Some(n);
        self
    }

    /// At most this cost in US dollars.
    #[must_use]
    pub fn max_cost_usd(mut self, usd: f64) -> Self {
        self.max_cost_usd = Some(usd);
        self
    }

    /// At most this long from checkout.
    #[must_use]
    pub fn max_wall(mut self, wall: Duration) -> Self {
        self.max_wall = Some(wall);
        self
    }
}

impl PoolConfig {
    /// Sessions checked out at once.
    #[must_use]
    pub fn max_live(mut self, n: usize) -> Self {
        self.max_live = n;
        self
    }

    /// Spares kept ready.
    #[must_use]
    pub fn spares(mut self, n: usize) -> Self {
        self.spares = n;
        self
    }

    /// Every session's budget.
    #[must_use]
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Whether spares are parked for claims (see [`PoolConfig::parked`]).
    #[must_use]
    pub fn parked(mut self, parked: bool) -> Self {
        self.parked = parked;
        self
    }

    /// How long to wait before replacing a spare that was taken.
    #[must_use]
    pub fn refill_delay(mut self, delay: Duration) -> Self {
        self.refill_delay = delay;
        self
    }
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            max_live: 16,
            spares: 1,
            budget: Budget::default(),
            refill_delay: Duration::ZERO,
            parked: false,
        }
    }
}

/// A snapshot of a pool.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolMetrics {
    /// Sessions checked out now.
    pub live: u64,
    /// Spares ready now.
    pub spare: u64,
    /// Callers waiting for a session.
    pub queued: u64,
    /// CLIs started (spares and cold starts).
    pub started: u64,
    /// Sessions returned (closed or dropped).
    pub completed: u64,
    /// CLIs that failed to start, and spares that died unused.
    pub failed: u64,
    /// Sessions a parked spare took by a claim.
    pub claimed: u64,
    /// Claims a parked spare refused (the session then started cold).
    pub refused: u64,
}
