//! Builder methods: session, settings, directories and plugins.

use std::path::PathBuf;

use serde_json::{Map, Value};
use twinwire_protocol::control::{LocalPluginConfig, SdkPluginConfig};

use super::OptionsBuilder;
use crate::host::options::{Delivery, SandboxSettings, SettingSource, Settings};

impl OptionsBuilder {
    // --- Session ---------------------------------------------------------------------------

    /// Continues the most recent conversation in the working directory (`--continue`).
    /// Cannot be combined with `resume`.
    pub fn continue_conversation(mut self, continue_conversation: bool) -> Self {
        self.options.continue_conversation = continue_conversation;
        self
    }

    /// Resumes the session with this id (`--resume`).
    pub fn resume(mut self, session_id: impl Into<String>) -> Self {
        self.options.resume = Some(session_id.into());
        self
    }

    /// Keeps a record of the live session in `dir` (one small JSON file per session, `0600`,
    /// written beside and renamed over, removed when the client closes or is dropped), so that
    /// a host that crashed can re-attach the session with
    /// [`Client::reattach`](crate::Client::reattach). A session with no id of its own (no
    /// `session_id`, `resume` or `continue_conversation`) is given one. Only for a local CLI.
    pub fn attach_records(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.attach_records = Some(dir.into());
        self
    }

    /// Parks the requests a callback parks ([`PermissionRequest::park`](crate::host::PermissionRequest::park),
    /// [`HookContext::park`](crate::host::callbacks::HookContext::park)) in `parking`'s store
    /// until they are answered there: durable approvals (see [`crate::host::parking`]).
    pub fn parking(mut self, parking: crate::host::parking::Parking) -> Self {
        self.options.parking = Some(parking);
        self
    }

    /// Resumes only up to and including this message uuid (`--resume-session-at`); needs
    /// `resume`.
    pub fn resume_session_at(mut self, message_uuid: impl Into<String>) -> Self {
        self.options.resume_session_at = Some(message_uuid.into());
        self
    }

    /// With `resume_session_at`: the prompt uuid of the turn the truncation discards, which
    /// the CLI checks before it truncates (`--resume-drops-turn`).
    pub fn resume_drops_turn(mut self, prompt_uuid: impl Into<String>) -> Self {
        self.options.resume_drops_turn = Some(prompt_uuid.into());
        self
    }

    /// A resumed or continued session gets a new id instead of extending the old one
    /// (`--fork-session`).
    pub fn fork_session(mut self, fork: bool) -> Self {
        self.options.fork_session = fork;
        self
    }

    /// The session's id, a UUID (`--session-id`). With `resume` or `continue_conversation` it
    /// needs `fork_session`, and names the fork.
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.options.session_id = Some(session_id.into());
        self
    }

    /// Whether the session is saved under `~/.claude/projects/` and can be resumed
    /// (`--no-session-persistence` when `false`). Default: `true`.
    pub fn persist_session(mut self, persist: bool) -> Self {
        self.options.persist_session = persist;
        self
    }

    /// The session's title, instead of one generated from the first prompt
    /// (`initialize.title`).
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.options.title = Some(title.into());
        self
    }

    /// Backs files up before each edit, so that `rewind_files` can restore them
    /// (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`).
    pub fn enable_file_checkpointing(mut self, enable: bool) -> Self {
        self.options.enable_file_checkpointing = enable;
        self
    }

    /// Sends every user message with `client_composed: true`, so the CLI takes the prompt as
    /// written: no `@file` expansion, no slash commands. Needs CLI 2.1.248 or newer.
    pub fn verbatim_prompts(mut self, verbatim: bool) -> Self {
        self.options.verbatim_prompts = verbatim;
        self
    }

    // --- Settings --------------------------------------------------------------------------

    /// Settings for the CLI's flag layer, given inline as a JSON object (`--settings`).
    pub fn settings(mut self, settings: Value) -> Self {
        self.options.settings = Some(Settings::Inline(settings));
        self
    }

    /// Settings for the CLI's flag layer, read from a file (`--settings`).
    pub fn settings_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.options.settings = Some(Settings::File(path.into()));
        self
    }

    /// Policy-tier settings from the host application, which only restrict
    /// (`--managed-settings`).
    pub fn managed_settings(mut self, settings: Map<String, Value>) -> Self {
        self.options.managed_settings = Some(settings);
        self
    }

    /// Which settings files the CLI loads (`--setting-sources`); an empty list loads none.
    /// Default: all of them.
    pub fn setting_sources<I>(mut self, sources: I) -> Self
    where
        I: IntoIterator<Item = SettingSource>,
    {
        self.options.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// Sandbox settings for commands, merged into the `--settings` JSON.
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.options.sandbox = Some(sandbox);
        self
    }

    // --- Directories and plugins -----------------------------------------------------------

    /// Adds a directory the tools may access besides the working directory (`--add-dir`).
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.add_dirs.push(dir.into());
        self
    }

    /// Replaces the extra directories (`--add-dir`, repeated).
    pub fn add_dirs<I, P>(mut self, dirs: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.options.add_dirs = dirs.into_iter().map(Into::into).collect();
        self
    }

    /// The trusted checkout whose project settings, `.mcp.json` and `.claude` directory apply
    /// when the working directory is a worktree of it (`--project-config-root`).
    pub fn project_config_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.project_config_root = Some(dir.into());
        self
    }

    /// Adds a plugin directory (`--plugin-dir`).
    pub fn plugin(mut self, path: impl Into<String>) -> Self {
        self.options
            .plugins
            .push(SdkPluginConfig::Local(LocalPluginConfig {
                path: path.into(),
                ..LocalPluginConfig::default()
            }));
        self
    }

    /// Replaces the plugins (`--plugin-dir`, or `--plugin-dir-no-mcp` with
    /// `skip_mcp_discovery`).
    pub fn plugins(mut self, plugins: Vec<SdkPluginConfig>) -> Self {
        self.options.plugins = plugins;
        self
    }

    /// How plugins reach the CLI. Default: [`Delivery::Argv`].
    pub fn plugin_delivery(mut self, delivery: Delivery) -> Self {
        self.options.plugin_delivery = delivery;
        self
    }
}
