//! The session: state shared by the turns, the host's requests and background steps, and the
//! [`Agent`] that ccwire's agent server runs, one turn per user message.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use ccwire::agent::{Agent, Framing, Reply, Session, Turn as UserTurn, TurnOutcome};
use ccwire::protocol::content::UserContent;
use ccwire::protocol::control::ControlRequestBody;
use ccwire::protocol::result::ResultMessage;
use futures_util::future::BoxFuture;
use serde_json::{json, Value};

use super::frames::{self, Meta};
use super::steps::{emit, Runner};
use super::wire::Requests;
use crate::script::{Script, Turn};

/// One registered hook matcher from `initialize`.
#[derive(Clone, Debug)]
pub(crate) struct HookMatcher {
    pub(crate) matcher: Option<String>,
    pub(crate) callback_ids: Vec<String>,
    pub(crate) timeout: Option<Duration>,
}

/// Handshake progress with one SDK MCP server.
#[derive(Clone, Debug, Default)]
pub(crate) struct McpServer {
    pub(crate) initialized: bool,
    pub(crate) notified: bool,
    pub(crate) next_id: u64,
}

/// What host requests can change.
pub(crate) struct State {
    pub(crate) model: String,
    pub(crate) permission_mode: String,
    pub(crate) max_thinking_tokens: Value,
    pub(crate) hooks: BTreeMap<String, Vec<HookMatcher>>,
    pub(crate) sdk_mcp_servers: Vec<String>,
    pub(crate) mcp: HashMap<String, McpServer>,
}

/// Background steps and the `idle` state they hold back.
#[derive(Default)]
struct Background {
    running: usize,
    turn_active: bool,
    idle_owed: bool,
}

/// Fixed facts about the process, read from argv and the environment.
pub(crate) struct Config {
    pub(crate) session_id: String,
    pub(crate) cwd: String,
    pub(crate) home: String,
    pub(crate) model: String,
    pub(crate) permission_mode: String,
    pub(crate) reads_session_state: bool,
    pub(crate) request_timeout: Duration,
}

/// Everything the turns, host requests and background steps share.
pub(crate) struct Shared {
    pub(crate) requests: Arc<Requests>,
    pub(crate) script: Script,
    pub(crate) config: Config,
    state: Mutex<State>,
    /// Number of turns started.
    turns: AtomicU64,
    background: Mutex<Background>,
    last_result_error: AtomicBool,
}

impl Shared {
    pub(crate) fn new(script: Script, config: Config, requests: Arc<Requests>) -> Self {
        let state = State {
            model: config.model.clone(),
            permission_mode: config.permission_mode.clone(),
            max_thinking_tokens: Value::Null,
            hooks: BTreeMap::new(),
            sdk_mcp_servers: Vec::new(),
            mcp: HashMap::new(),
        };
        Self {
            requests,
            script,
            config,
            state: Mutex::new(state),
            turns: AtomicU64::new(0),
            background: Mutex::new(Background::default()),
            last_result_error: AtomicBool::new(false),
        }
    }

    /// The mutable session state.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn background(&self) -> MutexGuard<'_, Background> {
        self.background
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Session id and current model, for building frames.
    pub(crate) fn meta(&self) -> Meta {
        Meta {
            session_id: self.config.session_id.clone(),
            model: self.state().model.clone(),
        }
    }

    /// Write `system/session_state_changed` if the host asked for them.
    pub(crate) fn session_state(&self, session: &Session, state: &str) {
        if self.config.reads_session_state {
            emit(session, &frames::session_state(&self.meta(), state));
        }
    }

    /// Remember whether the last result was an error (the exit code depends on it).
    pub(crate) fn set_last_result_error(&self, is_error: bool) {
        self.last_result_error.store(is_error, Ordering::SeqCst);
    }

    /// The exit code: 1 if the last result was an error.
    pub(crate) fn exit_code(&self) -> i32 {
        i32::from(self.last_result_error.load(Ordering::SeqCst))
    }

    /// A background step task starts.
    pub(crate) fn background_started(&self) {
        self.background().running += 1;
    }

    /// A background step task ended; write the `idle` a finished turn held back.
    pub(crate) fn background_finished(&self, session: &Session) {
        let mut bg = self.background();
        bg.running = bg.running.saturating_sub(1);
        if bg.running == 0 && bg.idle_owed && !bg.turn_active {
            bg.idle_owed = false;
            self.session_state(session, "idle");
        }
    }

    fn turn_started(&self) {
        let mut bg = self.background();
        bg.turn_active = true;
        bg.idle_owed = false;
    }

    fn turn_finished(&self, session: &Session) {
        let mut bg = self.background();
        bg.turn_active = false;
        if bg.running == 0 {
            self.session_state(session, "idle");
        } else {
            bg.idle_owed = true;
        }
    }

    /// Play the turn answering the next user message.
    async fn play_turn(self: Arc<Self>, turn: UserTurn, session: Session) {
        let index = self.turns.fetch_add(1, Ordering::SeqCst);
        self.turn_started();
        self.session_state(&session, "running");
        let prompt = user_text(&turn.message.message.content);
        let echo;
        let steps = match usize::try_from(index)
            .ok()
            .and_then(|i| self.script.turn(i))
        {
            Some(Turn { steps }) => steps,
            None => {
                echo = Script::echo();
                &echo.turns[0].steps
            }
        };
        let mut runner = Runner::new(Arc::clone(&self), session.clone(), prompt.clone(), true);
        if self.script.auto_hooks {
            runner
                .auto_hook("UserPromptSubmit", json!({"prompt": prompt}))
                .await;
        }
        let init = {
            let state = self.state();
            let info = frames::InitInfo {
                cwd: &self.config.cwd,
                permission_mode: &state.permission_mode,
                mcp_servers: &state.sdk_mcp_servers,
            };
            frames::system_init(
                &Meta {
                    session_id: self.config.session_id.clone(),
                    model: state.model.clone(),
                },
                &info,
            )
        };
        emit(&session, &init);
        runner.play(steps).await;
        self.turn_finished(&session);
    }
}

/// The text of a user message (text blocks joined by newlines, or a plain string content).
fn user_text(content: &UserContent) -> String {
    match content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| block.as_text())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The fake as ccwire sees it: an agent that writes every frame itself and answers every host
/// request as the script says.
pub(crate) struct Fake(pub(crate) Arc<Shared>);

impl Agent for Fake {
    fn framing(&self) -> Framing {
        Framing::Raw
    }

    fn run_turn(&self, turn: UserTurn, session: Session) -> BoxFuture<'static, TurnOutcome> {
        let shared = Arc::clone(&self.0);
        Box::pin(async move {
            shared.play_turn(turn, session).await;
            // Raw framing: the turn wrote its own result (or none, on purpose).
            Ok(ResultMessage::default())
        })
    }

    fn respond(
        &self,
        request: &ControlRequestBody,
        reply: &Reply,
        session: &Session,
    ) -> Option<BoxFuture<'static, ()>> {
        let request = serde_json::to_value(request).unwrap_or(Value::Null);
        Some(super::control::respond(
            Arc::clone(&self.0),
            request,
            reply.clone(),
            session.clone(),
        ))
    }
}
