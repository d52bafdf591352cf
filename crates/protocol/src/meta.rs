//! What the CLI writes about a message beside its content: where a prompt came from, how a
//! tool call is shown, why a tool result has no run behind it, which streamed blocks a retry
//! abandoned.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Where a user message (or the turn a result ends) came from: `{"kind": "human"}`, a
/// channel, a peer session, a task notification, …. One struct for every kind: the fields a
/// kind does not use are absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MessageOrigin {
    /// `human`, `channel`, `peer`, `task-notification`, `coordinator`, `unclassified`,
    /// `observer`, `auto-continuation`, `observer-activity` (open set).
    #[serde(default)]
    pub kind: String,
    /// The channel's MCP server (`channel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The sender, as it names itself (`peer`, `observer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The sending session's permission class, `bypass` or `prompting` (`peer`).
    #[serde(rename = "fromMode", default, skip_serializing_if = "Option::is_none")]
    pub from_mode: Option<String>,
    /// The sender's display name (`peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The sender's session id, for a link back (`peer`).
    #[serde(
        rename = "fromSession",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub from_session: Option<String>,
    /// The in-process background subagent that sent it (`peer`, `observer`).
    #[serde(
        rename = "senderTaskId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub sender_task_id: Option<String>,
    /// The message body without its envelope (`peer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The pid of the process that connected to the messaging socket (`peer`).
    #[serde(
        rename = "verifiedPeerPid",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub verified_peer_pid: Option<u64>,
    /// What kind of task notification (`scheduled-trigger`, `external-event`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subkind: Option<String>,
    /// Why a scheduled trigger fired.
    #[serde(
        rename = "fireReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub fire_reason: Option<String>,
    /// The run id of the background task whose notification this is.
    #[serde(rename = "runId", default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// What produced a task notification (`session-task`, …; seen from CLI 2.1.330, not in
    /// the SDK types).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// How one tool call of an assistant message is shown (`tool_use_meta`, seen from CLI 2.1.330;
/// not in the SDK types).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolUseMeta {
    /// The `tool_use` block's id.
    #[serde(default)]
    pub id: String,
    /// The tool's display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// The display name of the MCP server behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_display_name: Option<String>,
    /// The tool's own name (without the `mcp__server__` prefix).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Why a tool result of a user message has no run behind it (`tool_result_meta`, seen from CLI
/// 2.1.330; not in the SDK types).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolResultMeta {
    /// The `tool_use` block's id.
    #[serde(default)]
    pub id: String,
    /// Why the tool did not run (`permission-rule`, …; open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub non_execution_kind: Option<String>,
    /// The permission decision behind it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<ToolResultDecision>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The permission decision of a [`ToolResultMeta`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolResultDecision {
    /// `accept` or `reject` (open set).
    #[serde(default)]
    pub decision: String,
    /// Who decided (`hook`, `config`, `user`, …; open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The kind of reason (`hook`, `rule`, `mode`, …; open set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_type: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Streamed blocks a retried response abandoned (`abandoned_blocks` of a stream event, seen
/// from CLI 2.1.330; not in the SDK types): the blocks of that API message from this index on
/// were never completed.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct AbandonedBlocks {
    /// The API message whose blocks were abandoned.
    #[serde(default)]
    pub api_message_id: String,
    /// The first abandoned block's index.
    #[serde(default)]
    pub from_block_index: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn recorded_shapes_read_and_write_back() {
        let origin = json!({"kind": "task-notification", "producer": "session-task",
            "runId": "task000002"});
        let read: MessageOrigin = serde_json::from_value(origin.clone()).unwrap();
        assert_eq!(read.run_id.as_deref(), Some("task000002"));
        assert!(read.extra.is_empty());
        assert_eq!(serde_json::to_value(&read).unwrap(), origin);

        let meta = json!({"id": "toolu_1", "non_execution_kind": "permission-rule",
            "permission_decision": {"decision": "reject", "source": "hook", "reason_type": "hook"}});
        let read: ToolResultMeta = serde_json::from_value(meta.clone()).unwrap();
        assert_eq!(
            read.permission_decision
                .as_ref()
                .map(|d| d.decision.as_str()),
            Some("reject")
        );
        assert_eq!(serde_json::to_value(&read).unwrap(), meta);
    }
}
