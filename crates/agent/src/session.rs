//! [`Session`]: what every turn and request of a session shares: the configuration, the model
//! client, the workspace, where sessions are saved, and the [`State`] that changes between
//! turns. A turn reads it once, into its [`TurnContext`](crate::turn::TurnContext); requests
//! change it.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{json, Map, Value};
use twinwire::sessions::SavedSessions;
use twinwire_protocol::content::{ContentBlock, MessageParam, UserContent};

use crate::config::Config;
use crate::model::ModelClient;
use crate::state::State;
use crate::tools::Workspace;

/// What every turn and request of a session shares.
pub(crate) struct Session {
    pub(crate) config: Config,
    pub(crate) client: ModelClient,
    pub(crate) workspace: Arc<Workspace>,
    pub(crate) store: SavedSessions,
    pub(crate) state: Mutex<State>,
    /// The settings' command hooks, as they were when the session started.
    pub(crate) command_hooks: crate::command_hooks::CommandHooks,
    /// Held while the session's tools are prepared (SDK and external MCP servers), once.
    pub(crate) ready: tokio::sync::Mutex<bool>,
    /// Whether the last result was an error (the process then exits 1, as Claude Code does).
    pub(crate) last_failed: AtomicBool,
    /// The MCP servers.
    pub(crate) mcp: crate::mcp::McpServers,
    /// Tool search over the MCP tools.
    pub(crate) search: Arc<crate::mcp::search::Search>,
    /// Background commands and subagents.
    pub(crate) tasks: Arc<crate::tasks::Tasks>,
    /// File checkpoints, for `rewind_files`.
    pub(crate) checkpoints: crate::checkpoints::Checkpoints,
    /// The memory files below the working directory given to the model so far.
    pub(crate) nested_memory: Mutex<Vec<std::path::PathBuf>>,
    /// The plan file, and the mode plan mode was entered from.
    pub(crate) plan: crate::plan_file::Plan,
}

impl Session {
    /// The state, whatever a panicking holder left (it stays usable), its conversation read
    /// back first if it was kept on disk between turns.
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        let mut state = lock(&self.state);
        if let Some(spilled) = state.spilled.take() {
            if let Err(err) = crate::history::restore(spilled, &mut state.conversation) {
                // Our own file, gone or unreadable: the session's file has the conversation.
                tracing::error!(%err, "could not read back the conversation kept on disk");
                let id = state.session_id.clone();
                match crate::transcript::load(&self.store, &self.config.cwd, &id, None) {
                    Ok(loaded) => {
                        let later = std::mem::take(&mut state.conversation);
                        state.conversation = loaded.messages;
                        state.conversation.extend(later);
                    }
                    Err(err) => tracing::error!(%err, "nor from the session's file"),
                }
            }
        }
        state
    }

    /// Between turns: the conversation goes to disk when it is past the size set
    /// ([`crate::in_process::spill_history_past`]).
    pub(crate) fn rest(&self) {
        let mut state = lock(&self.state);
        if state.spilled.is_none() {
            state.spilled = crate::history::spill(&mut state.conversation);
        }
    }

    /// The session's id.
    pub(crate) fn id(&self) -> String {
        self.state().session_id.clone()
    }

    /// With `--session-mirror`: the host the saved entries also go to, from the first
    /// exchange that names it.
    pub(crate) fn mirror_to(&self, peer: &twinwire::agent::Peer) {
        if self.config.session_mirror {
            let mut state = lock(&self.state);
            if state.mirror.is_none() {
                state.mirror = Some(peer.clone());
            }
        }
    }
}

/// Locks a mutex, whatever a panicking holder left (the state stays usable).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Session {
    /// Adds a user message to the conversation and the session file.
    pub(crate) fn record_user(&self, uuid: &str, content: UserContent, fields: Map<String, Value>) {
        let mut state = self.state();
        let message = MessageParam::user(content.clone());
        if let Some(file) = state.transcript(&self.config, &self.store) {
            file.user(uuid, &message, fields);
        }
        state.push_user(content);
    }

    /// Writes a tool's result to the session file (the conversation takes a reply's results
    /// together, see [`State::push_user`]).
    pub(crate) fn record_tool_result(
        &self,
        uuid: &str,
        block: ContentBlock,
        fields: Map<String, Value>,
    ) {
        let mut state = self.state();
        let message = MessageParam::user(UserContent::Blocks(vec![block]));
        if let Some(file) = state.transcript(&self.config, &self.store) {
            file.user(uuid, &message, fields);
        }
    }

    /// Writes one block of a reply to the session file.
    pub(crate) fn record_assistant(&self, uuid: &str, message: Value, request_id: Option<&str>) {
        let mut state = self.state();
        if let Some(file) = state.transcript(&self.config, &self.store) {
            file.assistant(uuid, message, request_id);
        }
    }

    /// The fields every hook input carries.
    pub(crate) fn hook_common(&self, state: &State) -> Map<String, Value> {
        let transcript =
            crate::transcript::file_of(&self.store, &self.config.cwd, &state.session_id);
        let mut common = Map::new();
        common.insert("session_id".into(), json!(state.session_id));
        common.insert(
            "transcript_path".into(),
            json!(transcript.display().to_string()),
        );
        common.insert("cwd".into(), json!(self.config.cwd.display().to_string()));
        common.insert("permission_mode".into(), json!(state.mode));
        common
    }
}
