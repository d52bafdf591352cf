//! Session-level system messages: `session_state_changed`, `worker_shutting_down`,
//! `commands_changed`, `notification`, `informational`, `files_persisted`, `memory_recall`,
//! `elicitation_complete`, `permission_denied`, `mirror_error`, `session_writes_lost`,
//! `session_title_changed` and `ui_invalidate`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::control::SlashCommand;

crate::string_enum! {
    /// Whether the session is working.
    #[derive(Default)]
    pub enum SessionState {
        /// Waiting for input.
        #[default]
        Idle = "idle",
        /// Running a turn.
        Running = "running",
        /// Blocked on the host (a permission prompt, a dialog).
        RequiresAction = "requires_action",
    }
}

/// `system/session_state_changed`: the session became idle, running or blocked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionStateChanged {
    /// The new state.
    #[serde(default)]
    pub state: SessionState,
    /// Meant for the SDK host only; the official SDKs consume it and do not yield it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdk_host_only: Option<bool>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/worker_shutting_down`: the worker process is about to exit.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WorkerShuttingDown {
    /// Short snake_case reason, e.g. `host_exit`.
    #[serde(default)]
    pub reason: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/commands_changed`: the full slash-command list after a change; replace the cached
/// list with it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CommandsChanged {
    /// Every available command.
    #[serde(default)]
    pub commands: Vec<SlashCommand>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Priority of a notification.
    #[derive(Default)]
    pub enum NotificationPriority {
        /// Low.
        Low = "low",
        /// Medium.
        #[default]
        Medium = "medium",
        /// High.
        High = "high",
        /// Show at once.
        Immediate = "immediate",
    }
}

/// `system/notification`: a text notification from the agent loop.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SystemNotification {
    /// Deduplication key.
    #[serde(default)]
    pub key: String,
    /// Text to show.
    #[serde(default)]
    pub text: String,
    /// Priority.
    #[serde(default)]
    pub priority: NotificationPriority,
    /// Display color.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// How long to show it, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Render level of an informational line.
    #[derive(Default)]
    pub enum InformationalLevel {
        /// Shown only in transcript mode.
        #[default]
        Info = "info",
        /// Rendered dimmed.
        Notice = "notice",
        /// A suggestion, rendered prominently.
        Suggestion = "suggestion",
        /// A warning, rendered prominently.
        Warning = "warning",
    }
}

/// `system/informational`: a plain-text banner (status line, hook feedback, command output).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Informational {
    /// Text to show.
    #[serde(default)]
    pub content: String,
    /// Render level.
    #[serde(default)]
    pub level: InformationalLevel,
    /// Tool use this line belongs to (for deduplication).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// Whether execution stops after this line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prevent_continuation: Option<bool>,
    /// Feature tag a host may treat specially.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file uploaded by `files_persisted`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PersistedFile {
    /// Local file name.
    #[serde(default)]
    pub filename: String,
    /// Id of the uploaded file.
    #[serde(default)]
    pub file_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A file `files_persisted` could not upload.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FailedFile {
    /// Local file name.
    #[serde(default)]
    pub filename: String,
    /// What went wrong.
    #[serde(default)]
    pub error: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/files_persisted`: files were uploaded.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FilesPersisted {
    /// Uploaded files.
    #[serde(default)]
    pub files: Vec<PersistedFile>,
    /// Files that failed.
    #[serde(default)]
    pub failed: Vec<FailedFile>,
    /// When the upload was processed (ISO 8601).
    #[serde(default)]
    pub processed_at: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// How memories were surfaced.
    #[derive(Default)]
    pub enum MemoryRecallMode {
        /// Whole memory files chosen by a selector.
        #[default]
        Select = "select",
        /// A paragraph distilled from many memories.
        Synthesize = "synthesize",
    }
}

crate::string_enum! {
    /// Whose memory it is.
    #[derive(Default)]
    pub enum MemoryScope {
        /// The user's own.
        #[default]
        Personal = "personal",
        /// Shared with a team.
        Team = "team",
        /// The organization's.
        Organization = "organization",
    }
}

/// One recalled memory.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RecalledMemory {
    /// Memory file path, `<synthesis:DIR>` sentinel, or URL.
    #[serde(default)]
    pub path: String,
    /// Whose memory it is.
    #[serde(default)]
    pub scope: MemoryScope,
    /// The memory body, when not loaded lazily from `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/memory_recall`: memories were surfaced into the turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemoryRecall {
    /// How they were surfaced.
    #[serde(default)]
    pub mode: MemoryRecallMode,
    /// The memories.
    #[serde(default)]
    pub memories: Vec<RecalledMemory>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/elicitation_complete`: an MCP server confirmed a URL-mode elicitation finished.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ElicitationComplete {
    /// MCP server name.
    #[serde(default)]
    pub mcp_server_name: String,
    /// Elicitation id.
    #[serde(default)]
    pub elicitation_id: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/permission_denied`: a tool call was denied without asking the host.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionDenied {
    /// Tool name.
    #[serde(default)]
    pub tool_name: String,
    /// Id of the `tool_use` block.
    #[serde(default)]
    pub tool_use_id: String,
    /// Subagent the call came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// Kind of decision (`classifier`, `mode`, `rule`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason_type: Option<String>,
    /// Human-readable reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision_reason: Option<String>,
    /// The rejection message returned to the model.
    #[serde(default)]
    pub message: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Which mirrored transcript a `mirror_error` is about.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MirrorKey {
    /// Project key.
    #[serde(rename = "projectKey")]
    #[serde(default)]
    pub project_key: String,
    /// Session id.
    #[serde(rename = "sessionId")]
    #[serde(default)]
    pub session_id: String,
    /// Sub-path (e.g. a subagent transcript).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/mirror_error`: writing to the host's session store failed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MirrorError {
    /// What went wrong.
    #[serde(default)]
    pub error: String,
    /// Which transcript.
    #[serde(default)]
    pub key: MirrorKey,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Why writes were lost.
    #[derive(Default)]
    pub enum WriteErrorCode {
        /// The disk was full.
        #[default]
        Enospc = "ENOSPC",
        /// The disk quota was used up.
        Edquot = "EDQUOT",
    }
}

crate::string_enum! {
    /// What was not saved.
    pub enum LostWrite {
        /// Lines of a session transcript.
        Transcript = "transcript",
        /// Changes to `~/.claude.json`.
        GlobalConfig = "global_config",
    }
}

/// `system/session_writes_lost`: the disk was full, so transcript or config writes were lost.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionWritesLost {
    /// Why.
    #[serde(default)]
    pub error_code: WriteErrorCode,
    /// What was not saved.
    #[serde(default)]
    pub lost: Vec<LostWrite>,
    /// Sessions whose transcripts lost lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_session_ids: Option<Vec<String>>,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/session_title_changed`: the session got a title (a claim's, `rename_session`'s, or
/// one the CLI made up). Not declared by the TypeScript SDK; sent by Claude Code 2.1.330 on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionTitleChanged {
    /// The new title.
    #[serde(default)]
    pub title: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `system/ui_invalidate`: what a terminal interface shows changed (`event`, e.g. `ui.render`).
/// Not declared by the TypeScript SDK; a host without an interface of the CLI's ignores it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct UiInvalidate {
    /// What changed.
    #[serde(default)]
    pub event: String,
    /// Id of this message.
    #[serde(default)]
    pub uuid: String,
    /// Session id.
    #[serde(default)]
    pub session_id: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
