//! Hook execution messages: `system/hook_started`, `hook_progress` and `hook_response`.
//!
//! These report hooks the CLI itself runs (shell hooks from settings); hook callbacks the host
//! registered arrive as `hook_callback` control requests instead.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

crate::string_enum! {
    /// How a hook run ended.
    #[derive(Default)]
    pub enum HookOutcome {
        /// The hook succeeded.
        #[default]
        Success = "success",
        /// The hook failed.
        Error = "error",
        /// The hook was cancelled.
        Cancelled = "cancelled",
    }
}

/// `system/hook_started`: a hook began running.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookStarted {
    /// Id of this hook run.
    #[serde(default)]
    pub hook_id: String,
    /// Hook name.
    #[serde(default)]
    pub hook_name: String,
    /// Hook event (`PreToolUse`, `Stop`, …).
    #[serde(default)]
    pub hook_event: String,
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

/// `system/hook_progress`: output of a running hook so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookProgress {
    /// Id of this hook run.
    #[serde(default)]
    pub hook_id: String,
    /// Hook name.
    #[serde(default)]
    pub hook_name: String,
    /// Hook event.
    #[serde(default)]
    pub hook_event: String,
    /// Standard output so far.
    #[serde(default)]
    pub stdout: String,
    /// Standard error so far.
    #[serde(default)]
    pub stderr: String,
    /// Combined output so far.
    #[serde(default)]
    pub output: String,
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

/// `system/hook_response`: a hook finished.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookResponse {
    /// Id of this hook run.
    #[serde(default)]
    pub hook_id: String,
    /// Hook name.
    #[serde(default)]
    pub hook_name: String,
    /// Hook event.
    #[serde(default)]
    pub hook_event: String,
    /// Combined output.
    #[serde(default)]
    pub output: String,
    /// Standard output.
    #[serde(default)]
    pub stdout: String,
    /// Standard error.
    #[serde(default)]
    pub stderr: String,
    /// Exit code of a command hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// How the run ended.
    #[serde(default)]
    pub outcome: HookOutcome,
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
