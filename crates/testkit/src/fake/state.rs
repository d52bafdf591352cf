//! The fake's shared state: what host requests changed (model, permission mode, hooks, MCP
//! handshakes), the process's fixed facts, and the bookkeeping of turns and background steps.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use twinwire::agent::Peer;
use twinwire::protocol::Message;

use super::frames::{self, Meta};
use super::wire::Requests;
use crate::script::Script;

/// Write one frame. A host that is gone is not an error here: the writer ends the process
/// when stdout breaks, as the real CLI dies.
pub(crate) fn emit(peer: &Peer, frame: &Message) {
    let _ = peer.emit(frame);
}

/// Write a frame the script gives as it is, `type` first.
pub(crate) fn emit_raw(peer: &Peer, frame: &Value) {
    let _ = peer.send_line(frames::line(frame));
}

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
pub(crate) struct FakeState {
    pub(crate) requests: Arc<Requests>,
    pub(crate) script: Script,
    pub(crate) config: Config,
    state: Mutex<State>,
    /// Number of turns started.
    pub(crate) turns: AtomicU64,
    background: Mutex<Background>,
    last_result_error: AtomicBool,
}

impl FakeState {
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

    /// Peer id and current model, for building frames.
    pub(crate) fn meta(&self) -> Meta {
        Meta {
            session_id: self.config.session_id.clone(),
            model: self.state().model.clone(),
        }
    }

    /// Write `system/session_state_changed` if the host asked for them.
    pub(crate) fn session_state(&self, session: &Peer, state: &str) {
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
    pub(crate) fn background_finished(&self, session: &Peer) {
        let mut bg = self.background();
        bg.running = bg.running.saturating_sub(1);
        if bg.running == 0 && bg.idle_owed && !bg.turn_active {
            bg.idle_owed = false;
            self.session_state(session, "idle");
        }
    }

    pub(crate) fn turn_started(&self) {
        let mut bg = self.background();
        bg.turn_active = true;
        bg.idle_owed = false;
    }

    pub(crate) fn turn_finished(&self, session: &Peer) {
        let mut bg = self.background();
        bg.turn_active = false;
        if bg.running == 0 {
            self.session_state(session, "idle");
        } else {
            bg.idle_owed = true;
        }
    }
}
