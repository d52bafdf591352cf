//! Requests a host sends to the CLI about the session: turns, model, permissions, settings,
//! files, tasks. Initialization is in `initialize.rs`, MCP server management in `servers.rs`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use crate::permission::PermissionMode;

/// `interrupt`: stop the running turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct InterruptRequest {
    /// Also cancel the user messages still queued (listed in the answer's `cancelled`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel_queued: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_permission_mode`: change how tool calls are approved.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetPermissionModeRequest {
    /// The new mode.
    #[serde(default)]
    pub mode: PermissionMode,
    /// Whether this request answers the CLI's offer to leave `bypassPermissions` (sent by the
    /// TypeScript SDK's `setPermissionMode(mode, {answersBypassSwitchBack})`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers_bypass_switch_back: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_model`: change the model for later turns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetModelRequest {
    /// The model; absent, `null` or `"default"` go back to the session default.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub model: Option<Option<String>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// How thinking is shown (`thinking_display`).
    pub enum ThinkingDisplay {
        /// A prose summary of the thinking.
        Summarized = "summarized",
        /// No thinking text.
        Omitted = "omitted",
        /// One short title per stretch of thinking.
        Highlights = "highlights",
    }
}

/// `set_max_thinking_tokens`: change the thinking budget and how thinking is shown.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetMaxThinkingTokensRequest {
    /// The budget; `null` resets to the session default, absent leaves it alone.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub max_thinking_tokens: Option<Option<u64>>,
    /// The display mode; `null` clears the override, absent keeps the launch setting.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub thinking_display: Option<Option<ThinkingDisplay>>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Who chose a session title (`rename_session.source`).
    pub enum RenameSource {
        /// A rename made on claude.ai and relayed (the default).
        Remote = "remote",
        /// A rename the user made in the hosting application.
        Host = "host",
    }
}

/// `rename_session`: set the session's title.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RenameSessionRequest {
    /// The new title.
    #[serde(default)]
    pub title: String,
    /// Who chose it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<RenameSource>,
    /// The session the title is for; refused if the process has moved on to another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_color`: set the session accent color.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetColorRequest {
    /// An agent color name, or `"default"` to reset.
    #[serde(default)]
    pub color: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// How precisely `get_context_usage` counts.
    pub enum ContextUsageDetail {
        /// From the last response's usage and local estimates.
        Summary = "summary",
        /// Each category counted with the token-count API (the default).
        Full = "full",
    }
}

/// `get_context_usage`: context window usage by category.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetContextUsageRequest {
    /// How precisely to count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<ContextUsageDetail>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_session_cost`: the formatted cost summary /usage prints.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetSessionCostRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `list_models`: the models this session can run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListModelsRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_usage`: session cost totals and plan rate-limit utilization (experimental).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetUsageRequest {
    /// Skip the local transcript scan behind the `behaviors` section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_behaviors: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_binary_version`: the version of the CLI that answers.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetBinaryVersionRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `file_suggestions`: at-mention completions for a partial path.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileSuggestionsRequest {
    /// The partial path typed so far.
    #[serde(default)]
    pub query: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `rewind_files`: undo the file changes made since a user message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RewindFilesRequest {
    /// The `uuid` of the user message to rewind to.
    #[serde(default)]
    pub user_message_id: String,
    /// Only report what would change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `cancel_async_message`: drop a queued user message.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CancelAsyncMessageRequest {
    /// The `uuid` of the queued message.
    #[serde(default)]
    pub message_uuid: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// How `read_file` encodes the bytes it returns.
    pub enum ReadFileEncoding {
        /// Text, lossy for binary files (the default).
        Utf8 = "utf-8",
        /// Base64, exact.
        Base64 = "base64",
    }
}

/// `read_file`: read a file from the session's filesystem.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadFileRequest {
    /// The path, resolved against the session's working directory.
    #[serde(default)]
    pub path: String,
    /// Read at most this many bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// How to encode the contents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<ReadFileEncoding>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `seed_read_state`: record that the client saw a file at some modification time, so a later
/// edit passes the read-before-write check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedReadStateRequest {
    /// The file's path.
    #[serde(default)]
    pub path: String,
    /// Its modification time in milliseconds (possibly fractional).
    #[serde(default = "crate::serde_util::zero")]
    pub mtime: Number,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Default for SeedReadStateRequest {
    fn default() -> Self {
        Self {
            path: String::new(),
            mtime: Number::from(0u8),
            extra: Map::new(),
        }
    }
}

/// `register_repo_root`: add a subdirectory as a working-directory root.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RegisterRepoRootRequest {
    /// The directory to add.
    #[serde(default)]
    pub directory: String,
    /// Reload CLAUDE.md files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_claude_md: Option<bool>,
    /// Reload plugins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_plugins: Option<bool>,
    /// Reload skills.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reload_skills: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `reload_plugins`: reload plugins from disk.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadPluginsRequest {
    /// Do not apply a reload that would change the tool list the prompt cache depends on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_on_cache_impact: Option<bool>,
    /// More plugins to load, as with `--plugin-dir`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add_plugins: Option<Vec<super::SdkPluginConfig>>,
    /// Refuse (error code `reload_plugins_busy`) while the session is busy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refuse_if_busy: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `reload_skills`: reload skills from disk.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadSkillsRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `reload_output_styles`: reload output styles from disk.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReloadOutputStylesRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `set_has_subscribers`: whether anybody watches the output the host relays.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetHasSubscribersRequest {
    /// `false`: nobody; `true`: somebody; `null`: unknown, counted as `true`.
    #[serde(default)]
    pub has_subscribers: Option<bool>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `stop_task`: stop a running task.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StopTaskRequest {
    /// The task's id.
    #[serde(default)]
    pub task_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `background_tasks`: move foreground tasks (shell commands, subagents) to the background.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackgroundTasksRequest {
    /// Only the task started by this tool_use block; all foreground tasks when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_task_output`: the last 8 KiB a shell or Monitor task wrote.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetTaskOutputRequest {
    /// The task's id, from `task_started` or `background_tasks_changed`.
    #[serde(default)]
    pub task_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `apply_flag_settings`: merge settings into the session-scoped flag layer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ApplyFlagSettingsRequest {
    /// Settings keys and values, as in settings.json.
    #[serde(default)]
    pub settings: Map<String, Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_settings`: the effective merged settings and each source's raw settings.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetSettingsRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `get_hooks_listing`: the hooks the /hooks menu lists.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GetHooksListingRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Which settings file `update_settings` writes.
    #[derive(Default)]
    pub enum UpdateSettingsSource {
        /// The project's local settings file.
        #[default]
        LocalSettings = "localSettings",
        /// The user's settings file (takes `effortLevel` only).
        UserSettings = "userSettings",
    }
}

/// `update_settings`: write settings through the CLI's own writer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UpdateSettingsRequest {
    /// The file to write.
    #[serde(default)]
    pub source: UpdateSettingsSource,
    /// String-valued keys to merge in.
    #[serde(default)]
    pub settings: Map<String, Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `list_permission_rules`: the live permission rules and workspace directories.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ListPermissionRulesRequest {
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
