//! The agent's shared state: the running turn, the queue of user messages that arrived
//! during it, the environment and model the host set, and the agent's output.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use futures::future::BoxFuture;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::control::ControlRequest;
use twinwire_protocol::{Message, UserMessage};

use super::frames::new_id;
use super::profile::Profile;
use super::reply::OutputState;
use super::{Agent, Framing, INITIALIZE_WAIT};
use crate::engine::{lock, Connection};

/// How many resolved tool use ids are remembered, to drop repeated permission answers.
const RESOLVED_TOOL_USES: usize = 1000;

/// What every part of a served session shares.
pub(crate) struct AgentState {
    pub(crate) agent: Arc<dyn Agent>,
    pub(crate) profile: Profile,
    /// Set by whichever comes first: `serve`, or the reader serving the first frame.
    connection: OnceLock<Connection>,
    output: Arc<OutputState>,
    session_id: String,
    pub(crate) turns: Mutex<Turns>,
    /// `true` while a turn runs.
    pub(crate) busy: watch::Sender<bool>,
    /// How many tasks started with `Peer::spawn` are running.
    background: watch::Sender<usize>,
    pub(crate) resolved_tool_uses: Mutex<Bounded>,
    /// How many `initialize` requests are being answered: a turn read after one waits for it
    /// (the one place that knows; the reader counts them in order with the user messages).
    initializing: watch::Sender<usize>,
    /// How many `initialize` requests were read: an answer to any but the first lists the
    /// requests still waiting for the host, as Claude Code's does.
    pub(crate) initializations: std::sync::atomic::AtomicU64,
    /// The `can_use_tool` requests sent and not yet answered, by id, in the order sent.
    pub(crate) pending_permissions: Mutex<Vec<ControlRequest>>,
}

/// The turn running, the messages waiting for it, and what the host set.
#[derive(Default)]
pub(crate) struct Turns {
    /// The running turn's cancellation, while one runs.
    pub(crate) running: Option<CancellationToken>,
    pub(crate) queue: VecDeque<UserMessage>,
    env: BTreeMap<String, String>,
    pub(crate) model: Option<String>,
    pub(crate) count: u64,
}

impl AgentState {
    pub(crate) fn new(agent: Arc<dyn Agent>, output: Arc<OutputState>) -> Arc<Self> {
        let profile = agent.profile();
        let session_id = profile.session_id.clone().unwrap_or_else(new_id);
        Arc::new(Self {
            profile,
            agent,
            connection: OnceLock::new(),
            output,
            session_id,
            turns: Mutex::new(Turns::default()),
            busy: watch::channel(false).0,
            background: watch::channel(0).0,
            resolved_tool_uses: Mutex::new(Bounded::new(RESOLVED_TOOL_USES)),
            initializing: watch::channel(0).0,
            initializations: std::sync::atomic::AtomicU64::new(0),
            pending_permissions: Mutex::new(Vec::new()),
        })
    }

    pub(crate) fn framing(&self) -> Framing {
        self.profile.framing
    }

    /// Writes what is queued, closes the output and waits until that is done.
    pub(crate) async fn close_output(&self) {
        if let Some(connection) = self.connection() {
            connection.close_input();
            self.output.closed().await;
        }
    }

    /// Runs `work` in its own task; [`AgentState::finish`] waits for it.
    pub(crate) fn spawn(&self, work: BoxFuture<'static, ()>) {
        self.background.send_modify(|n| *n += 1);
        let background = self.background.clone();
        tokio::spawn(async move {
            // Counted down even if the work panics, so that the server still ends.
            struct Done(watch::Sender<usize>);
            impl Drop for Done {
                fn drop(&mut self) {
                    self.0.send_modify(|n| *n = n.saturating_sub(1));
                }
            }
            let _done = Done(background);
            work.await;
        });
    }

    pub(crate) fn attach(&self, connection: Connection) {
        let _ = self.connection.set(connection);
    }

    pub(crate) fn connection(&self) -> Option<&Connection> {
        self.connection.get()
    }

    pub(crate) fn session_id(&self) -> &str {
        &self.session_id
    }

    /// Writes a frame; a closed connection is not an error here (the host left).
    pub(crate) fn emit(&self, frame: &Message) {
        if let Some(connection) = self.connection() {
            let _ = connection.send(frame);
        }
    }

    /// Takes the queued message with this uuid out of the queue; whether it was there.
    pub(crate) fn withdraw_queued(&self, uuid: &str) -> bool {
        let mut turns = lock(&self.turns);
        let before = turns.queue.len();
        turns.queue.retain(|m| m.uuid.as_deref() != Some(uuid));
        turns.queue.len() != before
    }

    /// Takes every queued message (for injection at a model-call boundary).
    pub(crate) fn take_queue(&self) -> Vec<UserMessage> {
        lock(&self.turns).queue.drain(..).collect()
    }

    pub(crate) fn update_env(&self, variables: BTreeMap<String, String>) {
        lock(&self.turns).env.extend(variables);
    }

    pub(crate) fn env(&self) -> BTreeMap<String, String> {
        lock(&self.turns).env.clone()
    }

    /// Waits until no turn runs, nothing is queued and no spawned work is left.
    pub(crate) async fn finish(&self) {
        let mut busy = self.busy.subscribe();
        let mut background = self.background.subscribe();
        loop {
            let _ = busy.wait_for(|busy| !busy).await;
            let _ = background.wait_for(|running| *running == 0).await;
            // Spawned work may have queued another turn meanwhile, or a turn spawned work.
            if !*busy.borrow() && *background.borrow() == 0 {
                return;
            }
        }
    }

    /// An `initialize` was read; the returned guard marks it answered when dropped.
    pub(crate) fn initialize_read(self: &Arc<Self>) -> Initializing {
        self.initializing.send_modify(|n| *n += 1);
        Initializing(Arc::clone(self))
    }

    /// Waits until no `initialize` is being answered, at most [`INITIALIZE_WAIT`].
    pub(crate) async fn initialized(&self) {
        let mut initializing = self.initializing.subscribe();
        let waited = tokio::time::timeout(INITIALIZE_WAIT, initializing.wait_for(|n| *n == 0));
        if waited.await.is_err() {
            tracing::warn!("initialize was not answered in time; the turn goes on without it");
        }
    }

    /// The uuids of the messages waiting behind the running turn.
    pub(crate) fn queued_uuids(&self) -> Vec<String> {
        lock(&self.turns)
            .queue
            .iter()
            .filter_map(|m| m.uuid.clone())
            .collect()
    }

    /// The model the host set with `set_model`, if any.
    pub(crate) fn model(&self) -> Option<String> {
        lock(&self.turns).model.clone()
    }

    /// The running turn, to cancel when an interrupt arrives.
    pub(crate) fn running(&self) -> Option<CancellationToken> {
        lock(&self.turns).running.clone()
    }
}

/// Stops the session's turns when the serving ends without waiting for them: the serve future
/// was dropped (the host stopped the session). The turns run as tasks of their own, which
/// would otherwise go on (a command, model calls) with no one to read them.
pub(crate) struct StopTurns(pub(crate) Arc<AgentState>);

impl Drop for StopTurns {
    fn drop(&mut self) {
        let mut turns = lock(&self.0.turns);
        turns.queue.clear();
        if let Some(running) = &turns.running {
            running.cancel();
        }
    }
}

/// An `initialize` being answered; answered (or given up) when dropped.
pub(crate) struct Initializing(Arc<AgentState>);

impl Drop for Initializing {
    fn drop(&mut self) {
        self.0
            .initializing
            .send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A set that forgets its oldest members past a bound.
pub(crate) struct Bounded {
    order: VecDeque<String>,
    members: HashSet<String>,
    capacity: usize,
}

impl Bounded {
    fn new(capacity: usize) -> Self {
        Self {
            order: VecDeque::new(),
            members: HashSet::new(),
            capacity,
        }
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.members.contains(id)
    }

    pub(crate) fn insert(&mut self, id: &str) {
        if self.members.insert(id.to_owned()) {
            self.order.push_back(id.to_owned());
            if self.order.len() > self.capacity {
                if let Some(old) = self.order.pop_front() {
                    self.members.remove(&old);
                }
            }
        }
    }
}

/// Joins queued messages into one (text joined by blank lines); `None` for none.
pub(crate) fn join(mut messages: Vec<UserMessage>) -> Option<UserMessage> {
    match messages.len() {
        0 => None,
        1 => messages.pop(),
        _ => {
            let text = messages
                .iter()
                .map(|m| content_text(&m.message.content))
                .collect::<Vec<_>>()
                .join("\n\n");
            Some(UserMessage::new(text))
        }
    }
}

/// The text of a message's content (text blocks joined).
pub(crate) fn content_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        blocks => blocks.joined_text(),
    }
}
