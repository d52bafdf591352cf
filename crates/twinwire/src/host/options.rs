//! [`Options`]: everything that configures a session, built with [`Options::builder`].
//!
//! ```
//! use twinwire::options::{Options, SystemPrompt};
//! use twinwire::protocol::permission::PermissionMode;
//!
//! let options = Options::builder()
//!     .model("claude-sonnet-4-5")
//!     .system_prompt(SystemPrompt::preset_with_append("Answer in French."))
//!     .permission_mode(PermissionMode::AcceptEdits)
//!     .allowed_tools(["Read", "Grep"])
//!     .max_turns(10)
//!     .build()?;
//! # let _ = options;
//! # Ok::<(), twinwire::Error>(())
//! ```
//!
//! Every option of the official Python (0.2.189) and TypeScript (0.3.332) SDKs that reaches the
//! CLI is here, under its Python name. Each reaches the CLI in one of three ways, decided the
//! way the TypeScript SDK decides it:
//!
//! - **argv**: a flag, its value always bound as `--flag=value`, so that a value starting with
//!   `-` can never be read as another flag;
//! - **`initialize`**: a field of the first control request, for everything that can be large
//!   (system prompt, agents, hooks, SDK MCP server names, JSON schema), so that no command-line
//!   length limit applies;
//! - **environment**: a variable set for the child.
//!
//! `docs/options.md` lists every option with its wire form and its Python and TypeScript
//! names.

mod argv;
mod builder;
mod env;
mod initialize;
mod sandbox;
#[cfg(test)]
mod tests;
mod types;
mod validate;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use twinwire_protocol::framing::DEFAULT_MAX_LINE_LENGTH;
use twinwire_protocol::hooks::HookEvent;
use twinwire_protocol::permission::PermissionMode;

use crate::host::callbacks::HookMatcher;
use crate::host::handler::Callbacks;
use crate::host::launch::LaunchPlan;
use crate::host::process::{ShutdownTimeouts, StderrCallback};
use crate::host::Host;

/// The oldest Claude Code a session accepts by default, as the official SDKs: a CLI reporting
/// an older version fails at connect (when it says so in the `initialize` answer) or is warned
/// about (when only `system/init` says it).
pub const MINIMUM_CLI_VERSION: &str = "2.0.0";

/// Set (to anything) to skip the version check, as with the official SDKs.
pub const SKIP_VERSION_CHECK_ENV: &str = "CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK";

pub use builder::OptionsBuilder;
pub use sandbox::{SandboxFilesystem, SandboxNetwork, SandboxRipgrep, SandboxSettings};
pub use twinwire_protocol::control::{
    AgentDefinition, AgentEffort, AgentMcpServerSpec, AgentMemoryScope, EffortLevel,
    LocalPluginConfig, SdkPluginConfig, ThinkingDisplay,
};
pub use types::{
    Delivery, McpServer, OutputFormat, PermissionPrompts, QuestionPreviewFormat, SettingSource,
    Settings, Skills, SystemPrompt, Thinking, Tools,
};

/// Default for [`OptionsBuilder::request_timeout`]: 60 s, as in the Python SDK.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);

/// Default for [`OptionsBuilder::initialize_timeout`]: 60 s, as in the Python SDK.
pub const DEFAULT_INITIALIZE_TIMEOUT: Duration = Duration::from_secs(60);

/// Default for [`OptionsBuilder::stdin_idle_ceiling`]: 600 s, the official SDKs'
/// `CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS`.
pub const DEFAULT_STDIN_IDLE_CEILING: Duration = Duration::from_secs(600);

/// How a session is started and run: the CLI's flags, the `initialize` request, the child's
/// environment, the callbacks, and twinwire's own timeouts and limits.
///
/// Built with [`Options::builder`], which checks that the options can work together.
/// `Options::default()` is valid: the CLI found on the usual paths, an empty system prompt (as
/// in both official SDKs), and Claude Code's defaults for everything else.
///
/// Clones share the callbacks and in-process servers. `Debug` shows the names of the
/// [`env`](OptionsBuilder::env) variables but never their values, which are often secrets.
#[derive(Clone)]
pub struct Options {
    // --- Process ---------------------------------------------------------------------------
    /// The `claude` executable (a `.js` bundle runs with `node`); `None` searches for it.
    pub(crate) cli_path: Option<PathBuf>,
    /// The child's working directory.
    pub(crate) cwd: Option<PathBuf>,
    /// Variables set (`Some`) or removed (`None`) over the parent's environment, applied last.
    pub(crate) env: Vec<(OsString, Option<OsString>)>,
    /// Flags passed through as given: `--key` (`None`) or `--key=value`.
    pub(crate) extra_args: Vec<(String, Option<String>)>,
    /// Called with each line the CLI writes to stderr.
    pub(crate) stderr: Option<StderrCallback>,
    /// Where the CLI runs and what carries its stdio.
    pub(crate) launcher: crate::host::launch::Launcher,
    /// The OS user to run the CLI as (POSIX).
    pub(crate) user: Option<String>,
    /// Identifies the host application in the CLI's User-Agent.
    pub(crate) client_app: Option<String>,

    // --- Engine ----------------------------------------------------------------------------
    /// How long a control request may wait for its answer.
    pub(crate) request_timeout: Duration,
    /// How long `initialize` may take.
    pub(crate) initialize_timeout: Duration,
    /// How long a `can_use_tool` callback may take; `None` waits for as long as it takes.
    pub(crate) permission_timeout: Option<Duration>,
    /// Longest stdout line accepted from the CLI.
    pub(crate) max_line_length: usize,
    pub(crate) max_buffered_bytes: usize,
    /// How long stdin stays open after a result, waiting for the CLI to go idle.
    pub(crate) stdin_idle_ceiling: Duration,
    /// How long each step of a graceful shutdown may take.
    pub(crate) shutdown: ShutdownTimeouts,

    // --- The host's answers ------------------------------------------------------------------
    /// The builder's closures (`can_use_tool`, `on_elicitation`, `on_user_dialog`): the
    /// session's [`Host`] unless one of the user's is set.
    pub(crate) callbacks: Callbacks,
    /// A [`Host`] of the user's, answering instead of the closures.
    pub(crate) host: Option<Arc<dyn Host>>,
    /// Hook callbacks by event, in registration order.
    pub(crate) hooks: Vec<(HookEvent, Vec<HookMatcher>)>,
    /// The dialog kinds `on_user_dialog` renders (TS `supportedDialogKinds`); the CLI sends
    /// no other.
    pub(crate) supported_dialog_kinds: Vec<String>,
    /// The oldest CLI version accepted (`None`: no check).
    pub(crate) minimum_cli_version: Option<String>,
    /// Mirrors the transcript into this store (`--session-mirror`).
    pub(crate) transcript_store: Option<Arc<dyn crate::sessions::mirror::TranscriptStore>>,
    /// When the mirror appends (TS `sessionStoreFlush`).
    pub(crate) transcript_store_flush: crate::sessions::mirror::StoreFlush,
    /// How long each store call of a store-backed resume may take (TS `loadTimeoutMs`).
    pub(crate) transcript_store_load_timeout: std::time::Duration,
    /// Told each tool call's permission decision.
    pub(crate) on_permission_decision: Option<crate::host::decisions::OnDecision>,
    /// How the mirror redacts entries before the store gets them; `None`: on, with the
    /// secrets of the session's environment.
    pub(crate) transcript_redaction: Option<crate::sessions::stores::StoreRedaction>,

    // --- MCP -------------------------------------------------------------------------------
    /// MCP servers by name: configs for the CLI to run and servers in this process.
    pub(crate) mcp_servers: BTreeMap<String, McpServer>,
    /// MCP config files (or JSON strings) for `--mcp-config`.
    pub(crate) mcp_config_files: Vec<PathBuf>,
    /// How configured (not in-process) MCP servers reach the CLI.
    pub(crate) mcp_servers_delivery: Delivery,
    /// Send the in-process servers' handshakes ahead in `initialize.sdkMcpServerManifests`.
    pub(crate) sdk_mcp_manifests: bool,
    /// Use only the MCP servers given here.
    pub(crate) strict_mcp_config: bool,

    // --- Model and prompt ------------------------------------------------------------------
    /// The model.
    pub(crate) model: Option<String>,
    /// Model(s) to fall back to when the model is overloaded.
    pub(crate) fallback_model: Option<String>,
    /// The system prompt.
    pub(crate) system_prompt: SystemPrompt,
    /// Record the system prompt once and reuse it.
    pub(crate) system_prompt_snapshot: Option<bool>,
    /// Move per-user dynamic sections out of the preset system prompt.
    pub(crate) exclude_dynamic_sections: Option<bool>,
    /// Custom plan-mode workflow instructions.
    pub(crate) plan_mode_instructions: Option<String>,
    /// Extended thinking.
    pub(crate) thinking: Option<Thinking>,
    /// How thinking is shown.
    pub(crate) thinking_display: Option<ThinkingDisplay>,
    /// Reasoning effort.
    pub(crate) effort: Option<EffortLevel>,
    /// API beta headers.
    pub(crate) betas: Vec<String>,
    /// Structured output.
    pub(crate) output_format: Option<OutputFormat>,

    // --- Tools and permissions -------------------------------------------------------------
    /// The base set of built-in tools.
    pub(crate) tools: Option<Tools>,
    /// Tools allowed without asking.
    pub(crate) allowed_tools: Vec<String>,
    /// Tools removed from the model's context.
    pub(crate) disallowed_tools: Vec<String>,
    /// Tool-name aliases.
    pub(crate) tool_aliases: BTreeMap<String, String>,
    /// Skills to enable.
    pub(crate) skills: Option<Skills>,
    /// The permission mode at start.
    pub(crate) permission_mode: Option<PermissionMode>,
    /// Allow switching to `bypassPermissions`.
    pub(crate) allow_dangerously_skip_permissions: bool,
    /// The MCP tool that answers permission prompts.
    pub(crate) permission_prompt_tool_name: Option<String>,
    /// Who answers permission prompts.
    pub(crate) permission_prompts: Option<PermissionPrompts>,
    /// Format of `AskUserQuestion` option previews.
    pub(crate) question_preview_format: Option<QuestionPreviewFormat>,

    // --- Session ---------------------------------------------------------------------------
    /// Continue the most recent conversation in the working directory.
    pub(crate) continue_conversation: bool,
    /// The session to resume.
    pub(crate) resume: Option<String>,
    /// Resume only up to this message.
    pub(crate) resume_session_at: Option<String>,
    /// The prompt of the turn a truncating resume discards.
    pub(crate) resume_drops_turn: Option<String>,
    /// Resume into a new session id.
    pub(crate) fork_session: bool,
    /// The session id to use.
    pub(crate) session_id: Option<String>,
    /// Where the client keeps the record of its live session, for a re-attach after a crash.
    pub(crate) attach_records: Option<std::path::PathBuf>,
    /// Where parked requests wait for their answers (durable approvals).
    pub(crate) parking: Option<super::parking::Parking>,
    /// Save the session to disk.
    pub(crate) persist_session: bool,
    /// The session's title.
    pub(crate) title: Option<String>,
    /// Back up files before edits, for `rewind_files`.
    pub(crate) enable_file_checkpointing: bool,
    /// Mark every user message as composed by the client.
    pub(crate) verbatim_prompts: bool,

    // --- Limits ----------------------------------------------------------------------------
    /// Maximum agentic turns.
    pub(crate) max_turns: Option<u32>,
    /// Maximum spend in USD.
    pub(crate) max_budget_usd: Option<f64>,
    /// API-side task budget in tokens.
    pub(crate) task_budget: Option<u64>,

    // --- Settings, directories, plugins ----------------------------------------------------
    /// Flag-layer settings.
    pub(crate) settings: Option<Settings>,
    /// Policy-tier settings from the host.
    pub(crate) managed_settings: Option<Map<String, Value>>,
    /// Which settings files to load.
    pub(crate) setting_sources: Option<Vec<SettingSource>>,
    /// Sandbox settings, merged into the settings.
    pub(crate) sandbox: Option<SandboxSettings>,
    /// More directories the tools may access.
    pub(crate) add_dirs: Vec<PathBuf>,
    /// The checkout whose project configuration applies.
    pub(crate) project_config_root: Option<PathBuf>,
    /// Plugins to load.
    pub(crate) plugins: Vec<SdkPluginConfig>,
    /// How plugins reach the CLI.
    pub(crate) plugin_delivery: Delivery,

    // --- Agents ----------------------------------------------------------------------------
    /// The agent that runs the main thread.
    pub(crate) agent: Option<String>,
    /// Custom subagents by name.
    pub(crate) agents: BTreeMap<String, AgentDefinition>,

    // --- Output ----------------------------------------------------------------------------
    /// Emit `stream_event` partial messages.
    pub(crate) include_partial_messages: bool,
    /// Emit hook lifecycle messages.
    pub(crate) include_hook_events: bool,
    /// Forward subagents' text and thinking.
    pub(crate) forward_subagent_text: bool,
    /// Emit a predicted next prompt after each turn.
    pub(crate) prompt_suggestions: bool,
    /// Emit periodic progress summaries of subagents.
    pub(crate) agent_progress_summaries: bool,
    /// The host offers a per-task stop control.
    pub(crate) per_task_stop_affordance: bool,
    /// Debug logging.
    pub(crate) debug: bool,
    /// Debug log file.
    pub(crate) debug_file: Option<PathBuf>,

    // --- Escape hatch ----------------------------------------------------------------------
    /// Fields added to `initialize` as given.
    pub(crate) initialize_extra: Map<String, Value>,
    /// What a turn that meets a usage limit does; `None` ends it there.
    pub(crate) usage_limits: Option<crate::host::limits::LimitPolicy>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            cli_path: None,
            cwd: None,
            env: Vec::new(),
            extra_args: Vec::new(),
            stderr: None,
            launcher: crate::host::launch::Launcher::Local,
            user: None,
            client_app: None,
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            initialize_timeout: DEFAULT_INITIALIZE_TIMEOUT,
            permission_timeout: None,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            max_buffered_bytes: crate::engine::DEFAULT_MAX_BUFFERED_BYTES,
            stdin_idle_ceiling: DEFAULT_STDIN_IDLE_CEILING,
            shutdown: ShutdownTimeouts::default(),
            callbacks: Callbacks::default(),
            host: None,
            hooks: Vec::new(),
            supported_dialog_kinds: Vec::new(),
            transcript_store: None,
            transcript_store_flush: crate::sessions::mirror::StoreFlush::Batched,
            transcript_store_load_timeout: crate::sessions::restore::LOAD_TIMEOUT,
            transcript_redaction: None,
            on_permission_decision: None,
            minimum_cli_version: std::env::var_os(SKIP_VERSION_CHECK_ENV)
                .filter(|v| !v.is_empty())
                .is_none()
                .then(|| MINIMUM_CLI_VERSION.to_owned()),
            mcp_servers: BTreeMap::new(),
            mcp_config_files: Vec::new(),
            mcp_servers_delivery: Delivery::Argv,
            sdk_mcp_manifests: false,
            strict_mcp_config: false,
            model: None,
            fallback_model: None,
            system_prompt: SystemPrompt::default(),
            system_prompt_snapshot: None,
            exclude_dynamic_sections: None,
            plan_mode_instructions: None,
            thinking: None,
            thinking_display: None,
            effort: None,
            betas: Vec::new(),
            output_format: None,
            tools: None,
            allowed_tools: Vec::new(),
            disallowed_tools: Vec::new(),
            tool_aliases: BTreeMap::new(),
            skills: None,
            permission_mode: None,
            allow_dangerously_skip_permissions: false,
            permission_prompt_tool_name: None,
            permission_prompts: None,
            question_preview_format: None,
            continue_conversation: false,
            resume: None,
            resume_session_at: None,
            resume_drops_turn: None,
            fork_session: false,
            session_id: None,
            attach_records: None,
            parking: None,
            persist_session: true,
            title: None,
            enable_file_checkpointing: false,
            verbatim_prompts: false,
            max_turns: None,
            max_budget_usd: None,
            task_budget: None,
            settings: None,
            managed_settings: None,
            setting_sources: None,
            sandbox: None,
            add_dirs: Vec::new(),
            project_config_root: None,
            plugins: Vec::new(),
            plugin_delivery: Delivery::Argv,
            agent: None,
            agents: BTreeMap::new(),
            include_partial_messages: false,
            include_hook_events: false,
            forward_subagent_text: false,
            prompt_suggestions: false,
            agent_progress_summaries: false,
            per_task_stop_affordance: false,
            debug: false,
            debug_file: None,
            initialize_extra: Map::new(),
            usage_limits: None,
        }
    }
}

impl Options {
    /// The CLI's `projects` directory, from the environment it gets: `CLAUDE_CONFIG_DIR`, else
    /// `HOME/.claude`.
    pub(crate) fn cli_projects_dir(&self) -> std::path::PathBuf {
        let env = self.env();
        let var = |name: &str| {
            env.iter()
                .rev()
                .find(|(key, _)| key == name)
                .map(|(_, value)| value.clone())
                .unwrap_or_else(|| std::env::var_os(name))
                .filter(|v| !v.is_empty())
        };
        let config = match var("CLAUDE_CONFIG_DIR") {
            Some(dir) => std::path::PathBuf::from(dir),
            None => std::path::PathBuf::from(var("HOME").unwrap_or_default()).join(".claude"),
        };
        config.join("projects")
    }

    /// A builder, starting from the defaults.
    pub fn builder() -> OptionsBuilder {
        OptionsBuilder::default()
    }

    /// A builder starting from these options, to derive others from them.
    pub fn to_builder(&self) -> OptionsBuilder {
        OptionsBuilder::from_options(self.clone())
    }

    /// Whether the CLI may call back into this process (permissions, hooks, in-process MCP
    /// servers, elicitation), in which case stdin stays open after a result until the CLI is
    /// idle, so that calls from background tasks still reach the host.
    pub(crate) fn has_callbacks(&self) -> bool {
        self.host.is_some()
            || self.callbacks.can_use_tool.is_some()
            || self.hooks.iter().any(|(_, matchers)| !matchers.is_empty())
            || self.callbacks.elicitation.is_some()
            || self.callbacks.user_dialog.is_some()
            || self
                .mcp_servers
                .values()
                .any(|server| matches!(server, McpServer::InProcess(_)))
    }

    /// What starting the CLI takes.
    pub(crate) fn launch_plan(&self) -> LaunchPlan {
        LaunchPlan {
            launcher: self.launcher.clone(),
            cli_path: self.cli_path.clone(),
            args: self.command_args(),
            env: self.env(),
            cwd: self.cwd.clone(),
            on_stderr: self.stderr.clone(),
            user: self.user.clone(),
            shutdown: self.shutdown,
        }
    }

    /// The session's [`Host`]: the user's, else the builder's closures.
    pub(crate) fn host(&self) -> Arc<dyn Host> {
        match &self.host {
            Some(host) => Arc::clone(host),
            None => Arc::new(self.callbacks.clone()),
        }
    }

    /// Whether someone answers permission prompts (the CLI then asks over stdio).
    pub(crate) fn answers_permissions(&self) -> bool {
        self.host.is_some() || self.callbacks.can_use_tool.is_some()
    }

    /// Whether someone answers user dialogs.
    pub(crate) fn answers_dialogs(&self) -> bool {
        self.host.is_some() || self.callbacks.user_dialog.is_some()
    }

    /// Whether every user message is sent with `client_composed: true`.
    pub(crate) fn verbatim_prompts(&self) -> bool {
        self.verbatim_prompts
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let env_keys: Vec<_> = self.env.iter().map(|(key, _)| key).collect();
        let hooks: Vec<_> = self
            .hooks
            .iter()
            .map(|(event, matchers)| (event.as_str(), matchers))
            .collect();
        f.debug_struct("Options")
            .field("cli_path", &self.cli_path)
            .field("cwd", &self.cwd)
            .field("env (keys only)", &env_keys)
            .field("extra_args", &self.extra_args)
            .field("stderr", &self.stderr.as_ref().map(|_| "<callback>"))
            .field("launcher", &self.launcher)
            .field("user", &self.user)
            .field("client_app", &self.client_app)
            .field("request_timeout", &self.request_timeout)
            .field("initialize_timeout", &self.initialize_timeout)
            .field("permission_timeout", &self.permission_timeout)
            .field("max_line_length", &self.max_line_length)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .field("stdin_idle_ceiling", &self.stdin_idle_ceiling)
            .field("shutdown", &self.shutdown)
            .field(
                "can_use_tool",
                &self.callbacks.can_use_tool.as_ref().map(|_| "<callback>"),
            )
            .field("host", &self.host.as_ref().map(|_| "<host>"))
            .field("hooks", &hooks)
            .field(
                "on_elicitation",
                &self.callbacks.elicitation.as_ref().map(|_| "<callback>"),
            )
            .field(
                "on_user_dialog",
                &self.callbacks.user_dialog.as_ref().map(|_| "<callback>"),
            )
            .field("supported_dialog_kinds", &self.supported_dialog_kinds)
            .field(
                "transcript_store",
                &self.transcript_store.as_ref().map(|_| "<store>"),
            )
            .field("transcript_store_flush", &self.transcript_store_flush)
            .field(
                "on_permission_decision",
                &self.on_permission_decision.as_ref().map(|_| "<callback>"),
            )
            .field(
                "transcript_redaction",
                &self.transcript_redaction.as_ref().map(|r| r.is_on()),
            )
            .field(
                "transcript_store_load_timeout",
                &self.transcript_store_load_timeout,
            )
            .field("mcp_servers", &self.mcp_servers)
            .field("mcp_config_files", &self.mcp_config_files)
            .field("mcp_servers_delivery", &self.mcp_servers_delivery)
            .field("sdk_mcp_manifests", &self.sdk_mcp_manifests)
            .field("strict_mcp_config", &self.strict_mcp_config)
            .field("model", &self.model)
            .field("fallback_model", &self.fallback_model)
            .field("system_prompt", &self.system_prompt)
            .field("system_prompt_snapshot", &self.system_prompt_snapshot)
            .field("exclude_dynamic_sections", &self.exclude_dynamic_sections)
            .field("plan_mode_instructions", &self.plan_mode_instructions)
            .field("thinking", &self.thinking)
            .field("thinking_display", &self.thinking_display)
            .field("effort", &self.effort)
            .field("betas", &self.betas)
            .field("output_format", &self.output_format)
            .field("tools", &self.tools)
            .field("allowed_tools", &self.allowed_tools)
            .field("disallowed_tools", &self.disallowed_tools)
            .field("tool_aliases", &self.tool_aliases)
            .field("skills", &self.skills)
            .field("permission_mode", &self.permission_mode)
            .field(
                "allow_dangerously_skip_permissions",
                &self.allow_dangerously_skip_permissions,
            )
            .field(
                "permission_prompt_tool_name",
                &self.permission_prompt_tool_name,
            )
            .field("permission_prompts", &self.permission_prompts)
            .field("question_preview_format", &self.question_preview_format)
            .field("continue_conversation", &self.continue_conversation)
            .field("resume", &self.resume)
            .field("resume_session_at", &self.resume_session_at)
            .field("resume_drops_turn", &self.resume_drops_turn)
            .field("fork_session", &self.fork_session)
            .field("session_id", &self.session_id)
            .field("attach_records", &self.attach_records)
            .field("parking", &self.parking)
            .field("persist_session", &self.persist_session)
            .field("title", &self.title)
            .field("enable_file_checkpointing", &self.enable_file_checkpointing)
            .field("verbatim_prompts", &self.verbatim_prompts)
            .field("max_turns", &self.max_turns)
            .field("max_budget_usd", &self.max_budget_usd)
            .field("task_budget", &self.task_budget)
            .field("settings", &self.settings)
            .field("managed_settings", &self.managed_settings)
            .field("setting_sources", &self.setting_sources)
            .field("sandbox", &self.sandbox)
            .field("add_dirs", &self.add_dirs)
            .field("project_config_root", &self.project_config_root)
            .field("plugins", &self.plugins)
            .field("plugin_delivery", &self.plugin_delivery)
            .field("agent", &self.agent)
            .field("agents", &self.agents)
            .field("include_partial_messages", &self.include_partial_messages)
            .field("include_hook_events", &self.include_hook_events)
            .field("forward_subagent_text", &self.forward_subagent_text)
            .field("prompt_suggestions", &self.prompt_suggestions)
            .field("agent_progress_summaries", &self.agent_progress_summaries)
            .field("per_task_stop_affordance", &self.per_task_stop_affordance)
            .field("debug", &self.debug)
            .field("debug_file", &self.debug_file)
            .field("initialize_extra", &self.initialize_extra)
            .field("usage_limits", &self.usage_limits)
            .finish()
    }
}
