//! [`State`]: what a session holds between turns, and how it begins (new, resumed, forked).

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use twinwire::sessions::SavedSessions;
use twinwire_protocol::content::{MessageParam, UserContent};
use twinwire_protocol::control::{McpPermissionModeOverride, ThinkingDisplay};
use twinwire_protocol::mcp::McpServerStatus;
use twinwire_protocol::permission::PermissionMode;
use twinwire_protocol::usage::{ModelUsage, Usage};

use crate::agents::Catalog;
use crate::config::{Config, SessionStart};
use crate::hooks::Hooks;
use crate::model::pricing;
use crate::permissions::Permissions;
use crate::tools::Registry;
use crate::transcript::{self, Loaded, Transcript};
use twinwire::agent::frames::new_id;

/// A session's state.
pub struct State {
    /// The session's id: a new one, the one `--session-id` gives, or the resumed one.
    pub session_id: String,
    /// The conversation the model is sent.
    pub conversation: Vec<MessageParam>,
    /// The model of the next call.
    pub model: String,
    /// The permission mode.
    pub mode: PermissionMode,
    /// The extended thinking budget.
    pub thinking_tokens: Option<u32>,
    /// The host's hooks.
    pub hooks: Hooks,
    /// The tools offered.
    pub tools: Registry,
    /// The rules.
    pub permissions: Permissions,
    /// A system prompt the host gave in `initialize` (over the command line's).
    pub system_prompt: Option<String>,
    /// Text the host asked to add to the system prompt.
    pub append_system_prompt: Option<String>,
    /// The schema of structured output.
    pub json_schema: Option<Value>,
    /// The host's in-process MCP servers, by name, with their manifests when given.
    pub sdk_servers: BTreeMap<String, Option<Value>>,
    /// Each MCP server's status, for `system/init` and `mcp_status`.
    pub mcp_status: Vec<McpServerStatus>,
    /// What the session has cost so far.
    pub cost_usd: f64,
    /// Usage per model, over the session.
    pub model_usage: BTreeMap<String, ModelUsage>,
    /// The session file, once the first turn opened it.
    pub transcript: Option<Transcript>,
    /// A conversation read back, not yet written to a forked session's new file.
    pending_fork: Option<Loaded>,
    /// The conversation while it is kept on disk between turns (then `conversation` holds only
    /// what was added since).
    pub(crate) spilled: Option<crate::history::Spilled>,
    /// With `--session-mirror`, the host each saved entry also goes to (known from the
    /// session's first exchange with it).
    pub(crate) mirror: Option<twinwire::agent::Peer>,
    /// The entry the session file goes on from.
    leaf: Option<String>,
    /// Whether `SessionStart` has fired, and as what.
    pub started: Option<&'static str>,
    /// How the session began: `startup` or `resume`.
    pub source: &'static str,
    /// The agents the `Task` tool can start.
    pub agents: Catalog,
    /// The MCP tools tool search leaves in full view.
    pub always_loaded: Vec<String>,
    /// Permission modes pinned for one MCP server's tools (`set_mcp_permission_mode_override`).
    pub mcp_modes: BTreeMap<String, McpPermissionModeOverride>,
    /// Settings the host applied (`apply_flag_settings`), over `--settings`.
    pub flag_settings: Map<String, Value>,
    /// How many tokens the context held at the last model call (its usage), for compaction
    /// and `get_context_usage`.
    pub context_tokens: Option<u64>,
    /// How thinking is shown (`set_max_thinking_tokens`'s `thinking_display`).
    pub thinking_display: Option<ThinkingDisplay>,
    /// The dialog kinds the host renders (`initialize`'s `supportedDialogKinds`).
    pub dialog_kinds: Vec<String>,
    /// The commands as last listed (`reload_skills` tells the host when they change).
    pub commands: Option<Vec<twinwire_protocol::control::SlashCommand>>,
    /// The user's memory files (CLAUDE.md), read when the session starts and when the host
    /// registers a repository.
    pub memory: Vec<crate::memory::MemoryFile>,
    /// The output style's name (`outputStyle` of the settings; `default`).
    pub output_style: String,
    /// Its instructions, for the system prompt; none for `default`.
    pub style: Option<crate::output_styles::Style>,
}

impl State {
    /// Takes the output style the settings choose (`outputStyle`).
    fn choose_style(&mut self, config: &Config, store: &SavedSessions) {
        let settings = crate::settings::effective(&config.settings_sources());
        if let Some(name) = settings.get("outputStyle").and_then(Value::as_str) {
            let styles = crate::output_styles::available(&config.cwd, Some(store.config_dir()));
            self.style = crate::output_styles::chosen(&styles, name);
            if self.style.is_some() {
                self.output_style = name.to_owned();
            }
        }
    }

    /// The state a session starts in.
    pub fn start(
        config: &Config,
        store: &SavedSessions,
        tools: Registry,
        permissions: Permissions,
    ) -> Result<Self, String> {
        let mut state = Self {
            session_id: new_id(),
            conversation: Vec::new(),
            spilled: None,
            mirror: None,
            model: config.model.clone(),
            mode: config.permission_mode.clone(),
            thinking_tokens: config.max_thinking_tokens,
            hooks: Hooks::default(),
            tools,
            permissions,
            system_prompt: config.system_prompt.clone(),
            append_system_prompt: config.append_system_prompt.clone(),
            json_schema: config.json_schema.clone(),
            sdk_servers: BTreeMap::new(),
            mcp_status: Vec::new(),
            cost_usd: 0.0,
            model_usage: BTreeMap::new(),
            transcript: None,
            pending_fork: None,
            leaf: None,
            started: None,
            source: "startup",
            agents: Catalog::built_in(),
            always_loaded: Vec::new(),
            mcp_modes: BTreeMap::new(),
            flag_settings: Map::new(),
            context_tokens: None,
            thinking_display: None,
            dialog_kinds: Vec::new(),
            commands: None,
            memory: crate::memory::read(&crate::memory::Places {
                cwd: &config.cwd,
                config_dir: store.config_dir(),
                home: config.env.get("HOME").map(std::path::Path::new),
                sources: config.setting_sources.as_deref(),
            }),
            output_style: crate::output_styles::DEFAULT.to_owned(),
            style: None,
        };
        state.choose_style(config, store);
        state.agents.add_files(store.config_dir());
        state.agents.add_files(&config.cwd.join(".claude"));
        for agents in &config.agents {
            state.agents.add_json(agents);
        }
        let (id, at, fork) = match &config.start {
            SessionStart::New => return Ok(state),
            SessionStart::NewWithId(id) => {
                state.session_id = id.clone();
                return Ok(state);
            }
            SessionStart::Resume { id, at, fork } => (id.clone(), at.clone(), *fork),
            SessionStart::Continue { fork } => match transcript::latest(store, &config.cwd) {
                Some(id) => (id, None, *fork),
                None => return Err("No conversation found to continue".to_owned()),
            },
        };
        let loaded =
            transcript::load(store, &config.cwd, &id, at.as_deref()).map_err(|e| e.to_string())?;
        state.conversation = loaded.messages.clone();
        state.source = "resume";
        if fork {
            state.pending_fork = Some(loaded);
        } else {
            state.session_id = id;
            state.leaf = loaded.leaf;
        }
        Ok(state)
    }

    /// The session file, opened on first use (written only when the session is kept).
    pub fn transcript(
        &mut self,
        config: &Config,
        store: &SavedSessions,
    ) -> Option<&mut Transcript> {
        if !config.persist_session {
            return None;
        }
        if self.transcript.is_none() {
            let id = self.session_id.clone();
            match Transcript::open(store, &config.cwd, &id, self.leaf.take()) {
                Ok(mut file) => {
                    file.mirror_to(self.mirror.as_ref());
                    if let Some(loaded) = self.pending_fork.take() {
                        for (kind, _, message) in loaded.entries {
                            match kind.as_str() {
                                "assistant" => file.assistant(&new_id(), message, None),
                                _ => {
                                    if let Ok(message) = serde_json::from_value(message) {
                                        file.user(&new_id(), &message, Map::new());
                                    }
                                }
                            }
                        }
                    }
                    self.transcript = Some(file);
                }
                Err(err) => {
                    tracing::warn!(%err, "cannot open the session file; the session is not saved");
                    return None;
                }
            }
        }
        let file = self.transcript.as_mut()?;
        file.mirror_to(self.mirror.as_ref());
        Some(file)
    }

    /// Adds a user message to the conversation, joined onto the last one if that is a user
    /// message too (the API takes turns).
    pub fn push_user(&mut self, content: UserContent) {
        match self.conversation.last_mut() {
            Some(last) if last.role == "user" => transcript::append(&mut last.content, content),
            _ => self.conversation.push(MessageParam::user(content)),
        }
    }

    /// The permission mode a call of `tool` runs in: `mode`, or `default` when the
    /// host pinned that for the tool's MCP server and the session's mode would not ask
    /// (an override only tightens).
    pub fn mode_for(&self, mode: &PermissionMode, tool: &str) -> PermissionMode {
        let server = tool
            .strip_prefix("mcp__")
            .and_then(|rest| rest.split("__").next());
        let pinned = server.and_then(|s| self.mcp_modes.get(s));
        let loose = matches!(
            mode,
            PermissionMode::BypassPermissions | PermissionMode::AcceptEdits
        ) || mode.as_str() == "auto";
        match pinned {
            Some(_) if loose => PermissionMode::Default,
            _ => mode.clone(),
        }
    }

    /// Adds a note for the model between two steps (a background job that ended, a file that
    /// changed on disk, a new working directory): a `system` message of its own after the
    /// last one, as Claude Code sends them.
    pub fn push_system(&mut self, text: String) {
        self.conversation.push(MessageParam {
            role: "system".to_owned(),
            content: UserContent::Text(text),
            extra: Map::new(),
        });
    }

    /// Counts a model call's usage; returns its cost.
    pub fn charge(&mut self, model: &str, usage: &Usage) -> f64 {
        let cost = pricing::cost(model, usage);
        self.cost_usd += cost;
        let entry = self.model_usage.entry(model.to_owned()).or_default();
        entry.input_tokens += usage.input_tokens;
        entry.output_tokens += usage.output_tokens;
        entry.cache_read_input_tokens += usage.cache_read_input_tokens.unwrap_or(0);
        entry.cache_creation_input_tokens += usage.cache_creation_input_tokens.unwrap_or(0);
        entry.cost_usd += cost;
        entry.context_window = pricing::CONTEXT_WINDOW;
        cost
    }
}
