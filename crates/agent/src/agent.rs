//! [`CodingAgent`]: the agent behind twinwire's agent side. It writes every frame itself
//! ([`Framing::Raw`]) so that `system/init`, the results and the session id are the agent's
//! own; twinwire's engine does the wire (framing, control requests both ways, the queue of
//! messages that arrive during a turn, interrupts).

mod control;
mod frames;
mod inbox;
mod ready;
mod state;
mod tool_calls;
mod turn;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite};
use twinwire::agent::{Agent, Framing, Peer, Reply, Turn, TurnOutcome};
use twinwire::engine::EngineConfig;
use twinwire::sessions::SavedSessions;
use twinwire_protocol::control::ControlRequestBody;

use crate::config::Config;
use crate::model::{ModelClient, ModelError};
use crate::permissions::{Permissions, RuleError};
use crate::tools::{Registry, Workspace};

pub use state::State;

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// A rule of `--allowedTools` / `--disallowedTools` that cannot be read.
    #[error("{0}")]
    Rule(#[from] RuleError),
    /// The model client could not be made.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// The scratch directory could not be made.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The session to resume could not be read.
    #[error("{0}")]
    Resume(String),
    /// The wire failed.
    #[error("{0}")]
    Wire(#[from] twinwire::Error),
}

/// What every turn and request of a session shares.
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) client: ModelClient,
    pub(crate) workspace: Arc<Workspace>,
    pub(crate) store: SavedSessions,
    pub(crate) state: Mutex<State>,
    /// Held while the session's tools are prepared (SDK and external MCP servers), once.
    pub(crate) ready: tokio::sync::Mutex<bool>,
    /// The turn running now, for the notices of messages queued behind it.
    pub(crate) live: Mutex<inbox::Live>,
    /// `true` from the moment an `initialize` is read until it is applied: a turn started by
    /// a later message waits for it.
    pub(crate) initializing: tokio::sync::watch::Sender<bool>,
    /// Whether the last result was an error (the process then exits 1, as Claude Code does).
    pub(crate) last_failed: AtomicBool,
}

/// The coding agent, as a twinwire [`Agent`].
#[derive(Clone)]
pub struct CodingAgent {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for CodingAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodingAgent")
            .field("model", &self.shared.config.model)
            .finish_non_exhaustive()
    }
}

impl CodingAgent {
    /// An agent for a session started with `config`: its rules are read, its tools made, the
    /// session to resume read back. Nothing is sent yet.
    pub fn new(config: Config) -> Result<Self, StartError> {
        let env = config.env.clone();
        let client = ModelClient::from_env(|name| env.get(name).cloned())?;
        let mut dirs = vec![config.cwd.clone()];
        dirs.extend(config.add_dirs.iter().cloned());
        let permissions = Permissions::new(
            &config.allowed_tools,
            &config.disallowed_tools,
            dirs,
            config.ask_host,
        )?;
        let workspace = Arc::new(Workspace::new(
            config.cwd.clone(),
            config.add_dirs.clone(),
            config.limits,
            config.env.clone(),
        )?);
        let store = match config
            .env
            .get("CLAUDE_CONFIG_DIR")
            .filter(|d| !d.is_empty())
        {
            Some(dir) => SavedSessions::at(dir),
            None => match config.env.get("HOME").filter(|d| !d.is_empty()) {
                Some(home) => SavedSessions::at(std::path::Path::new(home).join(".claude")),
                None => SavedSessions::from_env(),
            },
        };
        let tools = Registry::built_in(config.tools.as_deref());
        let state =
            State::start(&config, &store, tools, permissions).map_err(StartError::Resume)?;
        Ok(Self {
            shared: Arc::new(Shared {
                client,
                workspace,
                store,
                state: Mutex::new(state),
                ready: tokio::sync::Mutex::new(false),
                live: Mutex::new(inbox::Live::default()),
                last_failed: AtomicBool::new(false),
                initializing: tokio::sync::watch::channel(false).0,
                config,
            }),
        })
    }

    /// Whether the last turn's result was an error.
    pub fn last_result_failed(&self) -> bool {
        self.shared.last_failed.load(Ordering::SeqCst)
    }

    /// Serves the session over `reader` and `writer` until the host's input ends and the
    /// last turn is done.
    pub async fn serve<R, W>(self, reader: R, writer: W) -> Result<(), StartError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let watched = inbox::Watched::new(reader, Arc::clone(&self.shared));
        // A prompt on the command line is the first user message.
        let first = self
            .shared
            .config
            .prompt
            .as_ref()
            .map(|prompt| {
                let message = twinwire_protocol::UserMessage::new(prompt.clone());
                let mut line =
                    serde_json::to_vec(&twinwire_protocol::InputMessage::User(Box::new(message)))
                        .unwrap_or_default();
                line.push(b'\n');
                line
            })
            .unwrap_or_default();
        let input = std::io::Cursor::new(first).chain(watched);
        twinwire::agent::serve(input, writer, self, EngineConfig::default()).await?;
        Ok(())
    }
}

impl Agent for CodingAgent {
    fn run_turn(&self, turn: Turn, session: Peer) -> BoxFuture<'static, TurnOutcome> {
        let shared = Arc::clone(&self.shared);
        Box::pin(async move {
            turn::run(shared, turn.message, session).await;
            // The result frame is written by the turn itself (raw framing).
            Ok(Default::default())
        })
    }

    fn respond(
        &self,
        request: &ControlRequestBody,
        reply: &Reply,
        session: &Peer,
    ) -> Option<BoxFuture<'static, ()>> {
        control::respond(&self.shared, request, reply, session)
    }

    fn framing(&self) -> Framing {
        Framing::Raw
    }

    fn input_ended(&self, session: Peer) -> BoxFuture<'static, ()> {
        Box::pin(crate::session_end::fire(Arc::clone(&self.shared), session))
    }
}

/// Locks a mutex, whatever a panicking holder left (the state stays usable).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Serves a session on this process's stdin and stdout; `true` when the last result was an
/// error.
pub async fn serve_stdio(config: Config) -> Result<bool, StartError> {
    let agent = CodingAgent::new(config)?;
    agent
        .clone()
        .serve(tokio::io::stdin(), tokio::io::stdout())
        .await?;
    Ok(agent.last_result_failed())
}
