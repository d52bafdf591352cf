//! [`Pool`]: many sessions of the same options, with a limit, a fair queue, prewarmed spares
//! and per-session budgets.
//!
//! - **Limit**: at most `max_live` sessions are checked out at once; more callers of
//!   [`Pool::session`] wait in a first-come, first-served queue (a fair semaphore).
//! - **Spares**: `spares` CLIs are started and initialized ahead of demand, so a session that
//!   takes one skips the process start and the `initialize` round trip. A spare that dies is
//!   replaced; a taken spare is replaced at once, or after `refill_delay`. Spares are not counted in `max_live`: the
//!   pool runs at most `max_live + spares` CLIs.
//! - **Budgets**: each session may be limited in prompts, cost (the CLI's running total in
//!   its results) and wall time from checkout; past one, [`PooledClient::send`] refuses and
//!   [`PooledClient::receive`] interrupts the turn and reports
//!   [`Error::BudgetExceeded`].
//! - **Metrics**: [`Pool::metrics`] (live, spare, queued, started, completed, failed), also
//!   logged with `tracing` at debug level on every change.
//!
//! Every session of a pool runs with the same [`Options`] (a spare is started before its
//! prompt is known). Run one pool per distinct set of options.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ccwire_protocol::content::UserContent;
use ccwire_protocol::Message;
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use super::Client;
use crate::error::{Error, Result};
use crate::host::options::Options;

/// How often the spare keeper looks for spares that died.
const SPARE_CHECK: Duration = Duration::from_millis(250);

/// After a spare fails to start, the wait before the next try (doubling up to 30 s).
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(30);

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
}

#[derive(Default)]
struct Counters {
    live: AtomicU64,
    queued: AtomicU64,
    started: AtomicU64,
    completed: AtomicU64,
    failed: AtomicU64,
}

struct Shared {
    options: Options,
    config: PoolConfig,
    slots: Arc<Semaphore>,
    spares: Mutex<VecDeque<Client>>,
    counters: Counters,
    /// Wakes the spare keeper (a spare was taken).
    wanted: Notify,
    /// When a spare was last taken.
    last_taken: Mutex<Option<tokio::time::Instant>>,
    closed: CancellationToken,
}

impl Shared {
    fn spares(&self) -> std::sync::MutexGuard<'_, VecDeque<Client>> {
        self.spares
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn metrics(&self) -> PoolMetrics {
        let c = &self.counters;
        PoolMetrics {
            live: c.live.load(Ordering::SeqCst),
            spare: self.spares().len() as u64,
            queued: c.queued.load(Ordering::SeqCst),
            started: c.started.load(Ordering::SeqCst),
            completed: c.completed.load(Ordering::SeqCst),
            failed: c.failed.load(Ordering::SeqCst),
        }
    }

    fn log(&self, event: &'static str) {
        let m = self.metrics();
        tracing::debug!(
            event,
            live = m.live,
            spare = m.spare,
            queued = m.queued,
            started = m.started,
            completed = m.completed,
            failed = m.failed,
            "pool"
        );
    }

    async fn start_client(&self) -> Result<Client> {
        self.counters.started.fetch_add(1, Ordering::SeqCst);
        match Client::connect(self.options.clone()).await {
            Ok(client) => Ok(client),
            Err(err) => {
                self.counters.failed.fetch_add(1, Ordering::SeqCst);
                Err(err)
            }
        }
    }
}

/// Sessions of one set of options, bounded, queued fairly, with prewarmed spares. Cheap to
/// clone. See the [module docs](self).
#[derive(Clone)]
pub struct Pool {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("config", &self.shared.config)
            .field("metrics", &self.shared.metrics())
            .finish_non_exhaustive()
    }
}

impl Pool {
    /// A pool running every session with `options`; starts its spares in the background.
    /// Must be called inside a tokio runtime.
    pub fn new(options: Options, config: PoolConfig) -> Self {
        let shared = Arc::new(Shared {
            options,
            slots: Arc::new(Semaphore::new(config.max_live.max(1))),
            config,
            spares: Mutex::new(VecDeque::new()),
            counters: Counters::default(),
            wanted: Notify::new(),
            last_taken: Mutex::new(None),
            closed: CancellationToken::new(),
        });
        if config.spares > 0 {
            tokio::spawn(keep_spares(Arc::downgrade(&shared)));
        }
        Self { shared }
    }

    /// A session: waits for a free slot (first come, first served), then takes a spare, or
    /// starts a CLI when none is ready.
    pub async fn session(&self) -> Result<PooledClient> {
        let shared = &self.shared;
        if shared.closed.is_cancelled() {
            return Err(Error::Closed);
        }
        shared.counters.queued.fetch_add(1, Ordering::SeqCst);
        let permit = Arc::clone(&shared.slots).acquire_owned().await;
        shared.counters.queued.fetch_sub(1, Ordering::SeqCst);
        let permit = permit.map_err(|_| Error::Closed)?;
        let spare = loop {
            let Some(client) = shared.spares().pop_front() else {
                break None;
            };
            if client.exit_status().is_none() {
                break Some(client);
            }
            shared.counters.failed.fetch_add(1, Ordering::SeqCst);
        };
        if spare.is_some() {
            *shared
                .last_taken
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner) =
                Some(tokio::time::Instant::now());
        }
        shared.wanted.notify_one();
        let (client, prewarmed) = match spare {
            Some(client) => (client, true),
            None => (shared.start_client().await?, false),
        };
        shared.counters.live.fetch_add(1, Ordering::SeqCst);
        shared.log(if prewarmed {
            "checkout (spare)"
        } else {
            "checkout (cold)"
        });
        let budget = shared.config.budget;
        Ok(PooledClient {
            client,
            prewarmed,
            budget,
            deadline: budget
                .max_wall
                .map(|wall| tokio::time::Instant::now() + wall),
            turns: 0,
            cost_usd: 0.0,
            checked_out: Instant::now(),
            slot: Some(Slot {
                shared: Arc::clone(shared),
                _permit: permit,
            }),
        })
    }

    /// The pool's figures now.
    pub fn metrics(&self) -> PoolMetrics {
        self.shared.metrics()
    }

    /// The process ids of the ready spares (for monitoring).
    pub fn spare_pids(&self) -> Vec<u32> {
        self.shared
            .spares()
            .iter()
            .filter_map(Client::pid)
            .collect()
    }

    /// Stops making spares, closes the ready ones, and refuses new sessions; sessions checked
    /// out go on until they are closed.
    pub async fn shutdown(&self) {
        self.shared.closed.cancel();
        self.shared.slots.close();
        let spares: Vec<Client> = self.shared.spares().drain(..).collect();
        for spare in spares {
            let _ = spare.close().await;
        }
    }
}

/// Starts spares until there are `config.spares`, replaces those that die, until the pool is
/// dropped or shut down.
async fn keep_spares(pool: std::sync::Weak<Shared>) {
    let mut retry = RETRY_FIRST;
    loop {
        let Some(shared) = pool.upgrade() else { return };
        if shared.closed.is_cancelled() {
            return;
        }
        // Spares that died unused.
        let died = {
            let mut spares = shared.spares();
            let before = spares.len();
            spares.retain(|client| client.exit_status().is_none());
            before - spares.len()
        };
        if died > 0 {
            shared
                .counters
                .failed
                .fetch_add(died as u64, Ordering::SeqCst);
            shared.log("spare died");
        }
        let refill_at = shared
            .last_taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .map(|taken| taken + shared.config.refill_delay);
        if let Some(at) = refill_at.filter(|at| *at > tokio::time::Instant::now()) {
            let closed = shared.closed.clone();
            drop(shared);
            tokio::select! {
                () = tokio::time::sleep_until(at) => {}
                () = closed.cancelled() => return,
            }
            continue;
        }
        if shared.spares().len() < shared.config.spares {
            match shared.start_client().await {
                Ok(client) => {
                    retry = RETRY_FIRST;
                    if shared.closed.is_cancelled() {
                        let _ = client.close().await;
                        return;
                    }
                    shared.spares().push_back(client);
                    shared.log("spare ready");
                    continue;
                }
                Err(err) => {
                    tracing::warn!(%err, "a spare CLI failed to start; retrying in {retry:?}");
                    let closed = shared.closed.clone();
                    drop(shared);
                    tokio::select! {
                        () = tokio::time::sleep(retry) => {}
                        () = closed.cancelled() => return,
                    }
                    retry = (retry * 2).min(RETRY_MAX);
                    continue;
                }
            }
        }
        // Holding the pool for at most SPARE_CHECK: once every handle is dropped, the next
        // upgrade fails and the keeper ends (and the spares with the pool).
        let closed = shared.closed.clone();
        tokio::select! {
            () = shared.wanted.notified() => {}
            () = tokio::time::sleep(SPARE_CHECK) => {}
            () = closed.cancelled() => return,
        }
    }
}

/// A checked-out session's place in the pool, given back on drop.
struct Slot {
    shared: Arc<Shared>,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let counters = &self.shared.counters;
        counters.live.fetch_sub(1, Ordering::SeqCst);
        counters.completed.fetch_add(1, Ordering::SeqCst);
        self.shared.log("returned");
    }
}

/// A session from a [`Pool`], under its budget. Dropping it ends the CLI at once and frees its
/// slot; [`PooledClient::close`] ends it gracefully first.
pub struct PooledClient {
    client: Client,
    prewarmed: bool,
    budget: Budget,
    deadline: Option<tokio::time::Instant>,
    turns: u32,
    cost_usd: f64,
    checked_out: Instant,
    slot: Option<Slot>,
}

impl std::fmt::Debug for PooledClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledClient")
            .field("client", &self.client)
            .field("prewarmed", &self.prewarmed)
            .field("turns", &self.turns)
            .field("cost_usd", &self.cost_usd)
            .finish_non_exhaustive()
    }
}

impl PooledClient {
    /// The client, for the whole control plane. Prompts sent through it directly are not
    /// counted against the budget.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Whether this session took a prewarmed spare.
    pub fn prewarmed(&self) -> bool {
        self.prewarmed
    }

    /// How long ago it was checked out.
    pub fn age(&self) -> Duration {
        self.checked_out.elapsed()
    }

    /// Sends a prompt, unless a budget is spent.
    pub async fn send(&mut self, prompt: impl Into<UserContent>) -> Result<()> {
        self.check_budget(true)?;
        self.client.send(prompt).await?;
        self.turns += 1;
        Ok(())
    }

    /// The next message; past the wall-time budget, interrupts the turn and returns
    /// [`Error::BudgetExceeded`].
    pub async fn receive(&mut self) -> Option<Result<Message>> {
        let next = match self.deadline {
            Some(deadline) => {
                match tokio::time::timeout_at(deadline, self.client.receive()).await {
                    Ok(next) => next,
                    Err(_) => {
                        let client = self.client.clone();
                        tokio::spawn(async move {
                            let _ =
                                tokio::time::timeout(Duration::from_secs(5), client.interrupt())
                                    .await;
                        });
                        return Some(Err(self.exceeded("wall time")));
                    }
                }
            }
            None => self.client.receive().await,
        };
        if let Some(Ok(Message::Result(result))) = &next {
            self.cost_usd = result.total_cost_usd;
        }
        next
    }

    /// The session's cost so far (the CLI's running total, from its last result).
    pub fn cost_usd(&self) -> f64 {
        self.cost_usd
    }

    /// Prompts sent through [`PooledClient::send`].
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Ends the session gracefully (stdin, then signals) and frees its slot.
    pub async fn close(mut self) -> Result<()> {
        let closed = self.client.close().await;
        self.slot.take();
        closed.map(drop)
    }

    fn check_budget(&self, sending: bool) -> Result<()> {
        if let Some(max) = self.budget.max_turns {
            if sending && self.turns >= max {
                return Err(self.exceeded("turns"));
            }
        }
        if let Some(max) = self.budget.max_cost_usd {
            if self.cost_usd >= max {
                return Err(self.exceeded("cost"));
            }
        }
        if let Some(deadline) = self.deadline {
            if tokio::time::Instant::now() >= deadline {
                return Err(self.exceeded("wall time"));
            }
        }
        Ok(())
    }

    fn exceeded(&self, what: &'static str) -> Error {
        Error::BudgetExceeded {
            what,
            turns: self.turns,
            cost_usd: self.cost_usd,
            elapsed: self.checked_out.elapsed(),
        }
    }
}
