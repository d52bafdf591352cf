//! [`Pool`]: many sessions of the same options, with a limit, a fair queue, prewarmed or parked
//! spares claimed with per-session options, and per-session budgets.
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
//! - **Claims**: with [`PoolConfig::parked`], spares are started with `--await-claim` (Claude
//!   Code 2.1.330 and newer) and park, past the process start, the module load, tools, MCP
//!   handshakes and `initialize`; [`Pool::claim`] then binds one to a session with a
//!   [`Claim`]: its working directory, model, permission mode, settings overlay, agents,
//!   appended prompt, title and credentials, in one `claim_session` round trip (the
//!   TypeScript SDK's `prewarm()` and `SpareProcess.claim()`). Where a spare cannot serve a
//!   claim (a CLI without `--await-claim`, a refusal such as a folder whose project settings
//!   set `model`, a credential the CLI reads only at start-up), the session is started cold
//!   with the claim merged into the pool's options, and [`PooledClient::start`] says why:
//!   a claim always gets the session it asked for, or an error.
//!
//! Everything but a claim's fields is the pool's [`Options`] (the executable, hooks, MCP
//! servers, callbacks, tools, the environment read at start-up): run one pool per distinct set
//! of those.

mod claim;
mod config;
mod session;
mod spare;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

pub use claim::{Claim, Claimed, Start, HOOK_SETTINGS_KEYS};
pub use config::{Budget, PoolConfig, PoolMetrics};
pub use session::PooledClient;

use super::Client;
use crate::error::{Error, Result};
use crate::host::options::Options;
use session::Slot;
use spare::Spare;

/// How often the spare keeper looks for spares that died.
const SPARE_CHECK: Duration = Duration::from_millis(250);

/// After a spare fails to start, the wait before the next try (doubling up to 30 s).
const RETRY_FIRST: Duration = Duration::from_millis(500);
const RETRY_MAX: Duration = Duration::from_secs(30);

#[derive(Default)]
struct Counters {
    live: AtomicU64,
    queued: AtomicU64,
    started: AtomicU64,
    completed: AtomicU64,
    failed: AtomicU64,
    claimed: AtomicU64,
    refused: AtomicU64,
}

pub(super) struct Shared {
    options: Options,
    config: PoolConfig,
    slots: Arc<Semaphore>,
    spares: Mutex<VecDeque<Spare>>,
    counters: Counters,
    /// Set once the CLI has shown it cannot park (it refused `--await-claim`, or does not
    /// know `claim_session`): spares then start with the options as they are.
    cannot_park: AtomicBool,
    /// Wakes the spare keeper (a spare was taken).
    wanted: Notify,
    /// When a spare was last taken.
    last_taken: Mutex<Option<tokio::time::Instant>>,
    closed: CancellationToken,
}

impl Shared {
    fn spares(&self) -> std::sync::MutexGuard<'_, VecDeque<Spare>> {
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
            claimed: c.claimed.load(Ordering::SeqCst),
            refused: c.refused.load(Ordering::SeqCst),
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
            claimed = m.claimed,
            refused = m.refused,
            "pool"
        );
    }

    async fn start_client(&self, options: Options) -> Result<Client> {
        self.counters.started.fetch_add(1, Ordering::SeqCst);
        match Client::connect(options).await {
            Ok(client) => Ok(client),
            Err(err) => {
                self.counters.failed.fetch_add(1, Ordering::SeqCst);
                Err(err)
            }
        }
    }

    /// A new spare: parked when the pool parks and the CLI can, else started as the options
    /// say. A CLI that refuses `--await-claim` is remembered, and the spare started again
    /// without it.
    async fn start_spare(&self) -> Result<Spare> {
        if self.config.parked && !self.cannot_park.load(Ordering::SeqCst) {
            if let Some((options, parking)) = spare::parked_options(&self.options)? {
                match self.start_client(options).await {
                    Ok(client) => {
                        return Ok(Spare {
                            client,
                            parked: true,
                            parking,
                        })
                    }
                    Err(err) if spare::refuses_await_claim(&err) => {
                        tracing::info!(
                            "this Claude Code cannot park spares (no --await-claim): spares \
                             start with the pool's options, and claims start cold"
                        );
                        self.cannot_park.store(true, Ordering::SeqCst);
                    }
                    Err(err) => return Err(err),
                }
            }
        }
        Ok(Spare {
            client: self.start_client(self.options.clone()).await?,
            parked: false,
            parking: None,
        })
    }

    /// The next spare that is alive and can still be used; the dead ones are counted failed,
    /// parked ones are let go once the CLI is known not to take claims.
    fn take_spare(&self) -> Option<Spare> {
        loop {
            let spare = self.spares().pop_front()?;
            if spare.client.exit_status().is_some() {
                self.counters.failed.fetch_add(1, Ordering::SeqCst);
            } else if spare.parked && self.cannot_park.load(Ordering::SeqCst) {
                spare.let_go();
            } else {
                return Some(spare);
            }
        }
    }

    /// A CLI for one session: the pool's options, with the claim in them if there is one; a
    /// settings overlay that could not join the options' own (a settings file) is applied
    /// before the session is handed out.
    async fn start_cold(&self, claim: Option<&Claim>) -> Result<Client> {
        let Some(claim) = claim else {
            return self.start_client(self.options.clone()).await;
        };
        let (options, overlay) = claim.merged_into(&self.options)?;
        let client = self.start_client(options).await?;
        if let Some(overlay) = overlay {
            if let Err(err) = client.apply_flag_settings(overlay).await {
                let _ = client.close().await;
                return Err(err);
            }
        }
        Ok(client)
    }

    /// The claim of a plain checkout from a parked spare: the options' folder, nothing else.
    fn default_claim(&self) -> Result<Claim> {
        let cwd = match &self.options.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir()?,
        };
        Ok(Claim::new(cwd))
    }

    /// A session's CLI: a spare when one can serve it, else a cold start; and how it started.
    async fn open(&self, claim: Option<Claim>) -> Result<(Client, Start)> {
        let Some(spare) = self.take_spare() else {
            let client = self.start_cold(claim.as_ref()).await?;
            let reason = "no spare was ready".to_owned();
            return Ok((client, Start::Cold { reason }));
        };
        if !spare.parked {
            if claim
                .as_ref()
                .is_none_or(|claim| claim.asks_nothing_beyond(&self.options))
            {
                self.taken();
                return Ok((spare.client, Start::Spare));
            }
            // Still good for a session of the pool's options.
            self.spares().push_front(spare);
            let client = self.start_cold(claim.as_ref()).await?;
            let reason = if self.config.parked {
                "this Claude Code cannot park spares (it does not know --await-claim): the \
                 claim needs a CLI of its own"
            } else {
                "the pool's spares are not parked (PoolConfig::parked): the claim needs a CLI \
                 of its own"
            }
            .to_owned();
            return Ok((client, Start::Cold { reason }));
        }
        self.taken();
        let claim = match claim {
            Some(claim) => claim,
            None => self.default_claim()?,
        };
        match claim::claim(&spare.client, &claim).await {
            Ok(claimed) => {
                self.counters.claimed.fetch_add(1, Ordering::SeqCst);
                // The CLI has moved to the session's folder: the parking place can go.
                drop(spare.parking);
                Ok((spare.client, Start::Claimed(claimed)))
            }
            Err(refusal) => {
                self.counters.refused.fetch_add(1, Ordering::SeqCst);
                if refusal.unsupported {
                    self.cannot_park.store(true, Ordering::SeqCst);
                }
                tracing::info!(
                    reason = %refusal.reason,
                    "a parked spare refused its claim; the session starts cold"
                );
                spare.let_go();
                let client = self.start_cold(Some(&claim)).await?;
                Ok((
                    client,
                    Start::Cold {
                        reason: refusal.reason,
                    },
                ))
            }
        }
    }

    /// Notes that a spare was taken, for the refill delay.
    fn taken(&self) {
        *self
            .last_taken
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(tokio::time::Instant::now());
        self.wanted.notify_one();
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
            cannot_park: AtomicBool::new(false),
            wanted: Notify::new(),
            last_taken: Mutex::new(None),
            closed: CancellationToken::new(),
        });
        if config.spares > 0 {
            tokio::spawn(keep_spares(Arc::downgrade(&shared)));
        }
        Self { shared }
    }

    /// A session of the pool's options: waits for a free slot (first come, first served), then
    /// takes a spare (a parked one is claimed for the options' working directory), or starts a
    /// CLI when none is ready.
    pub async fn session(&self) -> Result<PooledClient> {
        self.checkout(None).await
    }

    /// A session of the pool's options with `claim`'s in them: waits for a free slot, then
    /// binds a parked spare to it, or starts a CLI with the claim merged into the options
    /// when no spare can serve it ([`PooledClient::start`] says which, and why).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`] for a settings overlay with keys that govern hooks
    /// ([`HOOK_SETTINGS_KEYS`]: hooks are registered when the CLI starts; give them to the
    /// pool's options), before anything is sent; the errors of a cold start otherwise.
    pub async fn claim(&self, claim: Claim) -> Result<PooledClient> {
        let hooks = claim.hook_settings();
        if !hooks.is_empty() {
            return Err(Error::InvalidOptions(format!(
                "a claim cannot set hook settings ({}): give them to the pool's options",
                hooks.join(", ")
            )));
        }
        self.checkout(Some(claim)).await
    }

    async fn checkout(&self, claim: Option<Claim>) -> Result<PooledClient> {
        let shared = &self.shared;
        if shared.closed.is_cancelled() {
            return Err(Error::Closed);
        }
        shared.counters.queued.fetch_add(1, Ordering::SeqCst);
        let permit = Arc::clone(&shared.slots).acquire_owned().await;
        shared.counters.queued.fetch_sub(1, Ordering::SeqCst);
        let permit = permit.map_err(|_| Error::Closed)?;
        let opened = shared.open(claim).await;
        shared.wanted.notify_one();
        let (client, start) = opened?;
        shared.counters.live.fetch_add(1, Ordering::SeqCst);
        shared.log(match &start {
            Start::Spare => "checkout (spare)",
            Start::Claimed(_) => "checkout (claimed)",
            Start::Cold { .. } => "checkout (cold)",
        });
        let slot = Slot {
            shared: Arc::clone(shared),
            _permit: permit,
        };
        Ok(PooledClient::new(client, start, shared.config.budget, slot))
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
            .filter_map(|spare| spare.client.pid())
            .collect()
    }

    /// Stops making spares, closes the ready ones, and refuses new sessions; sessions checked
    /// out go on until they are closed.
    pub async fn shutdown(&self) {
        self.shared.closed.cancel();
        self.shared.slots.close();
        let spares: Vec<Spare> = self.shared.spares().drain(..).collect();
        for spare in spares {
            let _ = spare.client.close().await;
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
        // Spares that died unused; and parked ones started before the CLI showed it cannot
        // be claimed (a claim refused while they started), which no session can use.
        let (died, unusable) = {
            let mut spares = shared.spares();
            let before = spares.len();
            spares.retain(|spare| spare.client.exit_status().is_none());
            let died = before - spares.len();
            let cannot_park = shared.cannot_park.load(Ordering::SeqCst);
            let (unusable, usable) = spares
                .drain(..)
                .partition::<Vec<_>, _>(|spare| spare.parked && cannot_park);
            spares.extend(usable);
            (died, unusable)
        };
        for spare in unusable {
            spare.let_go();
        }
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
            match shared.start_spare().await {
                Ok(spare) => {
                    retry = RETRY_FIRST;
                    if shared.closed.is_cancelled() {
                        let _ = spare.client.close().await;
                        return;
                    }
                    if spare.parked && shared.cannot_park.load(Ordering::SeqCst) {
                        spare.let_go();
                        continue;
                    }
                    shared.spares().push_back(spare);
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
