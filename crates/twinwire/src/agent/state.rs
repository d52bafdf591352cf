//! The agent's shared state: the running turn, the queue of user messages that arrived
//! during it, the environment and model the host set, and the agent's output.

use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, OnceLock};

use futures::future::BoxFuture;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::control::InterruptResponse;
use twinwire_protocol::{Message, UserMessage};

use super::frames::new_id;
use super::reply::OutputState;
use super::{Agent, Framing};
use crate::engine::{lock, Connection};

/// How many resolved tool use ids are remembered, to drop repeated permission answers.
const RESOLVED_TOOL_USES: usize = 1000;

/// What every part of a served session shares.
pub(crate) struct AgentState {
    pub(crate) agent: Arc<dyn Agent>,
    framing: Framing,
    connection: OnceLock<Connection>,
    /// Woken when `connection` is set.
    attached: tokio::sync::Notify,
    output: Arc<OutputState>,
    session_id: String,
    pub(crate) turns: Mutex<Turns>,
    /// `true` while a turn runs.
    pub(crate) busy: watch::Sender<bool>,
    /// How many tasks started with `Peer::spawn` are running.
    background: watch::Sender<usize>,
    pub(crate) resolved_tool_uses: Mutex<Bounded>,
    /// User messages the reader has read (counted as it reads them, in order with the
    /// requests it dispatches) and those `serve` has handed to the turns: an interrupt waits
    /// until every user message read before it has started its turn or joined the queue.
    users_read: std::sync::atomic::AtomicU64,
    users_taken: watch::Sender<u64>,
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
        Arc::new(Self {
            framing: agent.framing(),
            agent,
            connection: OnceLock::new(),
            attached: tokio::sync::Notify::new(),
            output,
            session_id: new_id(),
            turns: Mutex::new(Turns::default()),
            busy: watch::channel(false).0,
            background: watch::channel(0).0,
            resolved_tool_uses: Mutex::new(Bounded::new(RESOLVED_TOOL_USES)),
            users_read: std::sync::atomic::AtomicU64::new(0),
            users_taken: watch::channel(0).0,
        })
    }

    pub(crate) fn framing(&self) -> Framing {
        self.framing
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
        self.attached.notify_waiters();
    }

    pub(crate) fn connection(&self) -> Option<&Connection> {
        self.connection.get()
    }

    /// Waits until the connection is attached: a request may arrive before `serve` attaches
    /// it (the reader starts with the engine).
    pub(crate) async fn attached(&self) {
        loop {
            let notified = self.attached.notified();
            let mut notified = std::pin::pin!(notified);
            notified.as_mut().enable();
            if self.connection.get().is_some() {
                return;
            }
            notified.await;
        }
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

    /// The reader read a user message.
    pub(crate) fn user_read(&self) {
        self.users_read
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    /// `serve` handed a user message to the turns.
    pub(crate) fn user_taken(&self) {
        self.users_taken.send_modify(|taken| *taken += 1);
    }

    /// How many user messages the reader has read so far.
    pub(crate) fn users_read(&self) -> u64 {
        self.users_read.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits until the first `count` user messages read have been handed to the turns.
    pub(crate) async fn users_taken(&self, count: u64) {
        let mut taken = self.users_taken.subscribe();
        let _ = taken.wait_for(|taken| *taken >= count).await;
    }

    /// The receipt of an interrupt, and the running turn it is to cancel.
    pub(crate) fn interrupt(&self) -> (InterruptResponse, Option<CancellationToken>) {
        let turns = lock(&self.turns);
        let still_queued = turns.queue.iter().filter_map(|m| m.uuid.clone()).collect();
        let receipt = InterruptResponse {
            still_queued: Some(still_queued),
            ..InterruptResponse::default()
        };
        (receipt, turns.running.clone())
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
