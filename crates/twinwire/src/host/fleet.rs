//! [`Fleet`]: sessions spread over several hosts, each reached through a [`Launcher`] (`ssh`,
//! `docker exec -i`, your code), that outlive the loss of a host.
//!
//! - **Placement**: each new session goes where a [`Placement`] says; [`LeastLoaded`] (the
//!   default) picks the healthy host with the lowest share of its capacity in use, and limits
//!   each tenant's sessions. A scheduler of your own replaces it.
//! - **Health**: every host is probed ([`Probe`]; through a prefix launcher, `true` run on the
//!   far side) every [`health_every`](FleetBuilder::health_every), and at once when a session
//!   on it is lost or cannot start. A host that fails is down: nothing is placed on it until a
//!   probe passes again. Both changes are [`FleetEvent`]s.
//! - **Loss**: when a session's CLI is lost mid-turn (its host went down, the connection
//!   dropped, the CLI crashed), the session is resumed on another host from the options'
//!   [transcript store](crate::options::OptionsBuilder::transcript_store), at the last turn it
//!   finished (the lost turn's partial entries are dropped with `--resume-session-at`), and
//!   the turn's prompt is sent again there. The caller is told twice: the [`Turn`] lists the
//!   [`Move`]s it took, and every subscriber gets a [`FleetEvent::Moved`].
//!
//! The launcher contract is the pool's: a host is a launcher plus the environment its CLIs
//! get. A cluster's engine (Kubernetes, Nomad) fits as a [`Launcher::Custom`] per node with a
//! [`Probe`] and a [`Placement`] of its own (see docs/scale.md).

mod health;
mod placement;
mod session;

use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

pub use health::{CommandProbe, Probe, ProbeFuture};
pub use placement::{HostLoad, LeastLoaded, Placement, PlacementRequest};
pub use session::{FleetSession, Move, Turn};

use crate::error::{Error, Result};
use crate::host::launch::Launcher;
use crate::host::options::Options;

/// One host of a fleet: how its CLIs are launched, what they get in their environment, how
/// many sessions it takes, and how it is checked.
#[derive(Clone)]
pub struct FleetHost {
    name: String,
    launcher: Launcher,
    capacity: usize,
    env: Vec<(OsString, OsString)>,
    probe: Option<Arc<dyn Probe>>,
}

impl std::fmt::Debug for FleetHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetHost")
            .field("name", &self.name)
            .field("launcher", &self.launcher)
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

impl FleetHost {
    /// A host named `name` (in events and errors), reached through `launcher`; it takes 64
    /// sessions unless [`capacity`](Self::capacity) says otherwise.
    pub fn new(name: impl Into<String>, launcher: Launcher) -> Self {
        Self {
            name: name.into(),
            launcher,
            capacity: 64,
            env: Vec::new(),
            probe: None,
        }
    }

    /// A host through `ssh` (or any prefix), from its command line.
    pub fn via(name: impl Into<String>, command_line: &str) -> Result<Self> {
        Ok(Self::new(name, Launcher::via(command_line)?))
    }

    /// The most sessions placed on it at once.
    #[must_use]
    pub fn capacity(mut self, sessions: usize) -> Self {
        self.capacity = sessions;
        self
    }

    /// A variable its CLIs get, after the fleet's options' own (a per-host API endpoint, a
    /// configuration directory).
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// How it is checked; by default `true` through its prefix launcher, and nothing for a
    /// local or custom one.
    #[must_use]
    pub fn probe(mut self, probe: impl Probe) -> Self {
        self.probe = Some(Arc::new(probe));
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// Something that happened to the fleet, for every [`Fleet::subscribe`]r.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FleetEvent {
    /// A probe failed: nothing is placed on the host until one passes.
    HostDown {
        /// The host.
        host: String,
        /// What the probe said.
        reason: String,
    },
    /// A probe passed on a host that was down.
    HostUp {
        /// The host.
        host: String,
    },
    /// A session was lost on one host and resumed on another (or on the same, when it is
    /// healthy and the CLI alone was lost).
    Moved(Move),
}

/// A host's state, from [`Fleet::hosts`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HostStatus {
    /// Its name.
    pub name: String,
    /// Whether its last probe passed.
    pub healthy: bool,
    /// Sessions on it now.
    pub sessions: usize,
    /// The most it takes.
    pub capacity: usize,
}

/// Builds a [`Fleet`]: [`Fleet::builder`].
pub struct FleetBuilder {
    options: Options,
    hosts: Vec<FleetHost>,
    placement: Arc<dyn Placement>,
    health_every: Duration,
    probe_limit: Duration,
    failures_before_down: u32,
    max_moves: u32,
}

impl std::fmt::Debug for FleetBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetBuilder")
            .field("hosts", &self.hosts)
            .field("health_every", &self.health_every)
            .field("probe_limit", &self.probe_limit)
            .field("failures_before_down", &self.failures_before_down)
            .field("max_moves", &self.max_moves)
            .finish_non_exhaustive()
    }
}

impl FleetBuilder {
    /// Adds a host.
    #[must_use]
    pub fn host(mut self, host: FleetHost) -> Self {
        self.hosts.push(host);
        self
    }

    /// Where sessions go (default [`LeastLoaded`] with no tenant limit).
    #[must_use]
    pub fn placement(mut self, placement: impl Placement) -> Self {
        self.placement = Arc::new(placement);
        self
    }

    /// How often every host is probed (default 5 s).
    #[must_use]
    pub fn health_every(mut self, every: Duration) -> Self {
        self.health_every = every;
        self
    }

    /// How long a probe may take before the host counts as down (default 10 s).
    #[must_use]
    pub fn probe_limit(mut self, limit: Duration) -> Self {
        self.probe_limit = limit;
        self
    }

    /// How many failed probes in a row take a host down (default 3; at least 1). After one of
    /// its sessions is lost, one failed probe does.
    #[must_use]
    pub fn failures_before_down(mut self, failures: u32) -> Self {
        self.failures_before_down = failures;
        self
    }

    /// How many times one turn may move before it fails (default 3).
    #[must_use]
    pub fn max_moves(mut self, moves: u32) -> Self {
        self.max_moves = moves;
        self
    }

    /// The fleet, its health checks started on the current Tokio runtime. Fails without hosts,
    /// or without a transcript store in the options (a lost session could not be resumed).
    pub fn build(self) -> Result<Fleet> {
        if self.hosts.is_empty() {
            return Err(Error::InvalidOptions(
                "a fleet needs at least one host".into(),
            ));
        }
        if self.options.transcript_store.is_none() {
            return Err(Error::InvalidOptions(
                "a fleet needs a transcript store in its options: a session lost with its host \
                 is resumed elsewhere from it"
                    .into(),
            ));
        }
        let mut names = std::collections::HashSet::new();
        for host in &self.hosts {
            if !names.insert(host.name.as_str()) {
                return Err(Error::InvalidOptions(format!(
                    "two fleet hosts are named `{}`",
                    host.name
                )));
            }
        }
        let (events, _) = broadcast::channel(1024);
        let hosts = self
            .hosts
            .into_iter()
            .map(|host| {
                let probe = host
                    .probe
                    .clone()
                    .unwrap_or_else(|| health::default_probe(&host.launcher));
                Member {
                    host,
                    probe,
                    state: Mutex::new(MemberState {
                        healthy: true,
                        sessions: 0,
                        tenants: HashMap::new(),
                        probes_started: 0,
                        probe_answered: 0,
                        failures: 0,
                    }),
                }
            })
            .collect();
        let inner = Arc::new(Inner {
            options: self.options,
            hosts,
            placement: self.placement,
            probe_limit: self.probe_limit,
            failures_before_down: self.failures_before_down.max(1),
            max_moves: self.max_moves,
            events,
            closed: CancellationToken::new(),
        });
        tokio::spawn(health_loop(Arc::downgrade(&inner), self.health_every));
        Ok(Fleet { inner })
    }
}

/// Sessions over several hosts. See the [module docs](self).
#[derive(Clone)]
pub struct Fleet {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("hosts", &self.hosts())
            .finish_non_exhaustive()
    }
}

impl Fleet {
    /// A fleet whose sessions all use `options` (which must have a transcript store); each
    /// host adds its launcher and environment.
    pub fn builder(options: Options) -> FleetBuilder {
        FleetBuilder {
            options,
            hosts: Vec::new(),
            placement: Arc::new(LeastLoaded::new()),
            health_every: Duration::from_secs(5),
            probe_limit: Duration::from_secs(10),
            failures_before_down: 3,
            max_moves: 3,
        }
    }

    /// A new session for `tenant`, placed and started. A host where it cannot start is probed
    /// (and marked down if the probe fails) and the next placement tried, once per host.
    pub async fn session(&self, tenant: &str) -> Result<FleetSession> {
        let session_id = uuid::Uuid::new_v4().to_string();
        let (host, client) = self.inner.start(tenant, &session_id, None, None).await?;
        Ok(FleetSession::new(
            Arc::clone(&self.inner),
            tenant.to_owned(),
            session_id,
            host,
            client,
        ))
    }

    /// Every event from now on. A subscriber that falls more than 1,024 events behind misses
    /// the oldest (and is told so by `broadcast`).
    pub fn subscribe(&self) -> broadcast::Receiver<FleetEvent> {
        self.inner.events.subscribe()
    }

    /// Every host's state, in the fleet's order.
    pub fn hosts(&self) -> Vec<HostStatus> {
        self.inner
            .hosts
            .iter()
            .map(|member| {
                let state = member.state();
                HostStatus {
                    name: member.host.name.clone(),
                    healthy: state.healthy,
                    sessions: state.sessions,
                    capacity: member.host.capacity,
                }
            })
            .collect()
    }

    /// Probes every host now (as the health interval does), and returns their states.
    pub async fn check_now(&self) -> Vec<HostStatus> {
        self.inner.check_all().await;
        self.hosts()
    }

    /// Stops the health checks. Sessions already out keep running until closed.
    pub fn close(&self) {
        self.inner.closed.cancel();
    }
}

struct Member {
    host: FleetHost,
    probe: Arc<dyn Probe>,
    state: Mutex<MemberState>,
}

impl Member {
    fn state(&self) -> std::sync::MutexGuard<'_, MemberState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

struct MemberState {
    healthy: bool,
    sessions: usize,
    tenants: HashMap<String, usize>,
    /// Probes started, and the number of the latest that answered.
    probes_started: u64,
    probe_answered: u64,
    /// Probes failed in a row.
    failures: u32,
}

pub(crate) struct Inner {
    options: Options,
    hosts: Vec<Member>,
    placement: Arc<dyn Placement>,
    probe_limit: Duration,
    failures_before_down: u32,
    max_moves: u32,
    events: broadcast::Sender<FleetEvent>,
    closed: CancellationToken,
}

/// What a session resumes from when it starts on a new host: its id, and the last message of
/// the last turn it finished (none: it finished none, and starts afresh under its id).
pub(crate) struct ResumeAt<'a> {
    pub(crate) last_message: Option<&'a str>,
}

impl Inner {
    /// Places the session (moving from `from`, when it moves) and starts its CLI, trying the
    /// next placement when a host fails to start it; the host's index and the client.
    async fn start(
        &self,
        tenant: &str,
        session_id: &str,
        from: Option<usize>,
        resume: Option<ResumeAt<'_>>,
    ) -> Result<(usize, crate::host::Client)> {
        let mut last_error = None;
        for _ in 0..self.hosts.len() {
            let index = self.place(tenant, session_id, from)?;
            let options = self.options_for(index, session_id, resume.as_ref())?;
            match crate::host::Client::connect(options).await {
                Ok(client) => return Ok((index, client)),
                Err(err) => {
                    tracing::warn!(host = %self.hosts[index].host.name, %err,
                        "a fleet session could not start");
                    self.release(index, tenant);
                    self.check(index, true).await;
                    last_error = Some(err);
                }
            }
        }
        Err(last_error.unwrap_or(Error::Closed))
    }

    /// Asks placement for a host and counts the session on it.
    fn place(&self, tenant: &str, session_id: &str, from: Option<usize>) -> Result<usize> {
        let mut states: Vec<_> = self.hosts.iter().map(Member::state).collect();
        let tenant_total = states
            .iter()
            .map(|s| s.tenants.get(tenant).copied().unwrap_or(0))
            .sum();
        let loads: Vec<HostLoad> = self
            .hosts
            .iter()
            .zip(&states)
            .map(|(member, state)| HostLoad {
                name: member.host.name.clone(),
                healthy: state.healthy,
                sessions: state.sessions,
                capacity: member.host.capacity,
                tenant_sessions: state.tenants.get(tenant).copied().unwrap_or(0),
            })
            .collect();
        let request = PlacementRequest {
            tenant,
            tenant_total,
            session_id,
            moving_from: from.map(|i| self.hosts[i].host.name.as_str()),
        };
        let refused =
            |why: String| Error::InvalidOptions(format!("no host for the session: {why}"));
        let index = self.placement.place(&request, &loads).map_err(refused)?;
        match loads.get(index) {
            Some(load) if load.has_room() => {}
            Some(load) => {
                return Err(refused(format!(
                    "placement chose `{}`, which is down or full",
                    load.name
                )))
            }
            None => {
                return Err(refused(format!(
                    "placement chose host {index} of {}",
                    loads.len()
                )))
            }
        }
        let state = &mut states[index];
        state.sessions += 1;
        *state.tenants.entry(tenant.to_owned()).or_default() += 1;
        Ok(index)
    }

    fn release(&self, index: usize, tenant: &str) {
        let mut state = self.hosts[index].state();
        state.sessions = state.sessions.saturating_sub(1);
        if let Some(count) = state.tenants.get_mut(tenant) {
            *count -= 1;
            if *count == 0 {
                state.tenants.remove(tenant);
            }
        }
    }

    /// The fleet's options for one session on host `index`.
    fn options_for(
        &self,
        index: usize,
        session_id: &str,
        resume: Option<&ResumeAt<'_>>,
    ) -> Result<Options> {
        let host = &self.hosts[index].host;
        let mut builder = self.options.to_builder().launcher(host.launcher.clone());
        for (key, value) in &host.env {
            builder = builder.env(key.clone(), value.clone());
        }
        builder = match resume {
            Some(ResumeAt {
                last_message: Some(uuid),
            }) => builder.resume(session_id).resume_session_at(*uuid),
            _ => builder.session_id(session_id),
        };
        builder.build()
    }

    /// Probes host `index` and records (and announces) a change. Probes overlap (the health
    /// loop's, and one per session lost on the host): an answer is taken only if no probe
    /// started later has answered already, so that a probe that began before the host was
    /// lost cannot bring it back up after a later one saw it down.
    ///
    /// A host goes down on one failed probe after one of its sessions was lost (`lost`), or
    /// on `failures_before_down` failed probes in a row otherwise: a probe that is merely slow
    /// on a busy machine does not take a healthy host out.
    async fn check(&self, index: usize, lost: bool) -> bool {
        let member = &self.hosts[index];
        let ticket = {
            let mut state = member.state();
            state.probes_started += 1;
            state.probes_started
        };
        let answer = health::check(member.probe.as_ref(), self.probe_limit).await;
        let was = {
            let mut state = member.state();
            if ticket < state.probe_answered {
                return state.healthy;
            }
            state.probe_answered = ticket;
            state.failures = if answer.is_ok() {
                0
            } else {
                state.failures + 1
            };
            let healthy = answer.is_ok()
                || (state.healthy && !lost && state.failures < self.failures_before_down);
            std::mem::replace(&mut state.healthy, healthy)
        };
        let healthy = member.state().healthy;
        let name = member.host.name.clone();
        match (was, answer) {
            (true, Err(reason)) if !healthy => {
                tracing::warn!(host = %name, %reason, "fleet host down");
                let _ = self
                    .events
                    .send(FleetEvent::HostDown { host: name, reason });
            }
            (false, Ok(())) => {
                tracing::info!(host = %name, "fleet host up");
                let _ = self.events.send(FleetEvent::HostUp { host: name });
            }
            _ => {}
        }
        healthy
    }

    async fn check_all(&self) {
        futures::future::join_all((0..self.hosts.len()).map(|index| self.check(index, false)))
            .await;
    }
}

/// Probes every host every `every` until the fleet is closed or dropped.
async fn health_loop(inner: std::sync::Weak<Inner>, every: Duration) {
    loop {
        let Some(fleet) = inner.upgrade() else { return };
        let closed = fleet.closed.clone();
        fleet.check_all().await;
        drop(fleet);
        tokio::select! {
            () = closed.cancelled() => return,
            () = tokio::time::sleep(every) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::stores::InMemoryTranscriptStore;

    fn stored() -> Options {
        Options::builder()
            .transcript_store(Arc::new(InMemoryTranscriptStore::new()))
            .build()
            .unwrap()
    }

    #[tokio::test]
    async fn a_fleet_needs_hosts_with_distinct_names_and_a_transcript_store() {
        let err = Fleet::builder(stored()).build().unwrap_err();
        assert!(err.to_string().contains("at least one host"), "{err}");
        let err = Fleet::builder(Options::default())
            .host(FleetHost::new("a", Launcher::Local))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("transcript store"), "{err}");
        let err = Fleet::builder(stored())
            .host(FleetHost::new("a", Launcher::Local))
            .host(FleetHost::new("a", Launcher::Local))
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("two fleet hosts"), "{err}");
    }

    /// Placement that always names the first host.
    struct First;

    impl Placement for First {
        fn place(&self, _: &PlacementRequest<'_>, _: &[HostLoad]) -> Result<usize, String> {
            Ok(0)
        }
    }

    #[tokio::test]
    async fn a_placement_on_a_host_that_is_down_or_full_is_refused_and_counts_nothing() {
        let down = Launcher::via("false").unwrap();
        let fleet = Fleet::builder(stored())
            .host(FleetHost::new("down", down))
            .host(FleetHost::new("full", Launcher::Local).capacity(0))
            .placement(First)
            .health_every(Duration::from_secs(3600))
            .failures_before_down(2)
            .build()
            .unwrap();
        // The health loop probes once at the start: one failure, not enough.
        while fleet.inner.hosts[0].state().probe_answered < 1 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            fleet.hosts()[0].healthy,
            "one failure does not take a host down"
        );
        let hosts = fleet.check_now().await;
        assert!(!hosts[0].healthy && hosts[1].healthy, "{hosts:?}");
        let err = fleet.inner.place("t", "s", None).unwrap_err();
        assert!(err.to_string().contains("down or full"), "{err}");
        assert!(fleet.hosts().iter().all(|h| h.sessions == 0));
        let err = Fleet::builder(stored())
            .host(FleetHost::new("full", Launcher::Local).capacity(0))
            .build()
            .unwrap()
            .inner
            .place("t", "s", None)
            .unwrap_err();
        assert!(err.to_string().contains("all of them full"), "{err}");
    }
}
