//! Hook inputs of the session, subagent, compaction and model-switch events.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::HookInputBase;
use crate::AssistantMessageError;

hook_input! {
    /// Input of `SessionStart`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SessionStartInput {
        /// Why the session started.
        #[serde(default)]
        pub source: SessionStartSource,
        /// The model in use.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub model: Option<String>,
        /// The session's title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_title: Option<String>,
        /// Seconds since the last assistant response (on resume).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub seconds_since_last_response: Option<Number>,
        /// Tokens in the context.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub context_tokens: Option<u64>,
        /// Whether the prompt cache has probably expired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub prompt_cache_likely_expired: Option<bool>,
        /// Estimated cost in USD of rewriting the cache.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub estimated_cache_write_usd: Option<Number>,
    }

    /// Input of `SessionEnd`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SessionEndInput {
        /// Why the session ended.
        #[serde(default)]
        pub reason: ExitReason,
    }

    /// Input of `Stop`: the main agent is about to stop.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct StopInput {
        /// Whether a Stop hook already made the agent continue once.
        #[serde(default)]
        pub stop_hook_active: bool,
        /// The text of the last assistant message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
        /// Background tasks still running.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub background_tasks: Option<Vec<BackgroundTaskSummary>>,
        /// Scheduled prompts of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_crons: Option<Vec<SessionCronSummary>>,
    }

    /// Input of `StopFailure`: the turn ended on an API error.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct StopFailureInput {
        /// The error kind (`rate_limit`, `overloaded`, …).
        #[serde(default)]
        pub error: AssistantMessageError,
        /// Details of the error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub error_details: Option<String>,
        /// The text of the last assistant message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
    }

    /// Input of `Setup`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SetupInput {
        /// Why setup runs.
        #[serde(default)]
        pub trigger: SetupTrigger,
    }

    /// Input of `SubagentStart` (`agent_id` and `agent_type` are in the base).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SubagentStartInput {}

    /// Input of `SubagentStop` (`agent_id` and `agent_type` are in the base).
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct SubagentStopInput {
        /// Whether a stop hook already made the subagent continue once.
        #[serde(default)]
        pub stop_hook_active: bool,
        /// The path of the subagent's transcript.
        #[serde(default)]
        pub agent_transcript_path: String,
        /// The text of the subagent's last message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub last_assistant_message: Option<String>,
        /// Background tasks still running.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub background_tasks: Option<Vec<BackgroundTaskSummary>>,
        /// Scheduled prompts of the session.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_crons: Option<Vec<SessionCronSummary>>,
    }

    /// Input of `PreCompact`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreCompactInput {
        /// What started compaction.
        #[serde(default)]
        pub trigger: CompactTrigger,
        /// Instructions given to `/compact`, or null.
        #[serde(default)]
        pub custom_instructions: Option<String>,
    }

    /// Input of `PostCompact`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PostCompactInput {
        /// What started compaction.
        #[serde(default)]
        pub trigger: CompactTrigger,
        /// The summary that replaced the conversation.
        #[serde(default)]
        pub compact_summary: String,
    }

    /// Input of `PreModelSwitch`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PreModelSwitchInput {
        /// The current model.
        #[serde(default)]
        pub from_model: String,
        /// The model switched to.
        #[serde(default)]
        pub to_model: String,
        /// The model as requested (an alias, say), or null.
        #[serde(default)]
        pub requested_model: Option<String>,
        /// What asked for the switch.
        #[serde(default)]
        pub source: ModelSwitchSource,
        /// Tokens in the context.
        #[serde(default)]
        pub context_tokens: u64,
        /// Whether the prompt cache is warm.
        #[serde(default)]
        pub prompt_cache_warm: bool,
        /// The cache's time to live.
        #[serde(default)]
        pub cache_ttl: CacheTtl,
        /// Estimated cost in USD of writing the cache for the new model.
        #[serde(default = "crate::serde_util::zero")]
        pub estimated_cache_write_usd: Number,
        /// Where the price came from.
        #[serde(default)]
        pub pricing: ModelPricingSource,
    }

    /// Input of `PostModelSwitch`.
    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    pub struct PostModelSwitchInput {
        /// The previous model.
        #[serde(default)]
        pub from_model: String,
        /// The model switched to.
        #[serde(default)]
        pub to_model: String,
        /// The model as requested (an alias, say), or null.
        #[serde(default)]
        pub requested_model: Option<String>,
        /// What asked for the switch.
        #[serde(default)]
        pub source: ModelSwitchSource,
        /// Tokens in the context.
        #[serde(default)]
        pub context_tokens: u64,
        /// Whether the prompt cache is warm.
        #[serde(default)]
        pub prompt_cache_warm: bool,
        /// The cache's time to live.
        #[serde(default)]
        pub cache_ttl: CacheTtl,
        /// Estimated cost in USD of writing the cache for the new model.
        #[serde(default = "crate::serde_util::zero")]
        pub estimated_cache_write_usd: Number,
        /// Where the price came from.
        #[serde(default)]
        pub pricing: ModelPricingSource,
    }
}

/// A background task still running when the agent stops.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BackgroundTaskSummary {
    /// The task's id.
    #[serde(default)]
    pub id: String,
    /// Its kind (`shell`, `subagent`, `monitor`, `workflow`, …).
    #[serde(rename = "type")]
    #[serde(default)]
    pub task_type: String,
    /// Its status.
    #[serde(default)]
    pub status: String,
    /// Its description (clipped to 1000 characters).
    #[serde(default)]
    pub description: String,
    /// The command line, for shell tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The subagent type, for subagent tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The MCP server, for monitor tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The MCP tool, for monitor tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The workflow's name, for workflow tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A scheduled prompt of the session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SessionCronSummary {
    /// Its id.
    #[serde(default)]
    pub id: String,
    /// Its cron schedule.
    #[serde(default)]
    pub schedule: String,
    /// Whether it repeats.
    #[serde(default)]
    pub recurring: bool,
    /// The prompt it sends.
    #[serde(default)]
    pub prompt: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Why a session started.
    pub enum SessionStartSource {
        /// A fresh start.
        Startup = "startup",
        /// A resumed session.
        Resume = "resume",
        /// After `/clear`.
        Clear = "clear",
        /// After compaction.
        Compact = "compact",
        /// A forked session.
        Fork = "fork",
    }
}

crate::string_enum! {
    /// Why a session ended.
    pub enum ExitReason {
        /// `/clear`.
        Clear = "clear",
        /// Switching to another session.
        Resume = "resume",
        /// Logging out.
        Logout = "logout",
        /// The user left the prompt.
        PromptInputExit = "prompt_input_exit",
        /// Any other reason (`other` on the wire).
        OtherReason = "other",
    }
}

crate::string_enum! {
    /// Why the `Setup` hook runs.
    pub enum SetupTrigger {
        /// `--init`.
        Init = "init",
        /// A maintenance run.
        Maintenance = "maintenance",
    }
}

crate::string_enum! {
    /// What started a compaction.
    pub enum CompactTrigger {
        /// `/compact`.
        Manual = "manual",
        /// The context filled up.
        Auto = "auto",
    }
}

crate::string_enum! {
    /// What asked for a model switch.
    pub enum ModelSwitchSource {
        /// A slash command.
        Command = "command",
        /// The model picker.
        Picker = "picker",
        /// An SDK host.
        Sdk = "sdk",
        /// The CLI itself.
        Auto = "auto",
        /// Resuming a session.
        Resume = "resume",
    }
}

crate::string_enum! {
    /// The prompt cache's time to live.
    pub enum CacheTtl {
        /// Five minutes.
        FiveMinutes = "5m",
        /// One hour.
        OneHour = "1h",
    }
}

crate::string_enum! {
    /// Where a model's price came from.
    pub enum ModelPricingSource {
        /// The user's configuration.
        Configured = "configured",
        /// The built-in catalog.
        Catalog = "catalog",
        /// A fallback.
        Default = "default",
    }
}

default_value! {
    SessionStartSource => Startup,
    ExitReason => OtherReason,
    SetupTrigger => Init,
    CompactTrigger => Manual,
    ModelSwitchSource => Command,
    CacheTtl => FiveMinutes,
    ModelPricingSource => Default,
}

#[cfg(test)]
mod tests {
    use super::super::{HookEvent, HookInput};
    use super::*;
    use crate::hooks::SkillInvoker;
    use serde_json::json;

    fn input(event: &str, fields: Value) -> Value {
        let mut object = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/w", "hook_event_name": event
        });
        for (k, v) in fields.as_object().expect("object") {
            object[k] = v.clone();
        }
        object
    }

    fn round_trip(value: &Value) -> HookInput {
        let parsed: HookInput = serde_json::from_value(value.clone()).expect("parse");
        assert!(parsed.as_unknown().is_none(), "{value}");
        assert_eq!(&serde_json::to_value(&parsed).expect("serialize"), value);
        assert_eq!(
            parsed.event(),
            HookEvent::from(value["hook_event_name"].as_str().unwrap_or(""))
        );
        parsed
    }

    #[test]
    fn lifecycle_inputs_round_trip() {
        let samples = [
            input(
                "SessionStart",
                json!({"source": "resume", "model": "m",
                "seconds_since_last_response": 12.5, "context_tokens": 9,
                "estimated_cache_write_usd": 0}),
            ),
            input("SessionEnd", json!({"reason": "other"})),
            input(
                "Stop",
                json!({"stop_hook_active": true, "background_tasks": [
                {"id": "b1", "type": "shell", "status": "running", "description": "d",
                 "command": "sleep 9"}],
                "session_crons": [{"id": "c", "schedule": "* * * * *", "recurring": false,
                 "prompt": "p"}]}),
            ),
            input(
                "StopFailure",
                json!({"error": "rate_limit", "error_details": "429"}),
            ),
            input("Setup", json!({"trigger": "maintenance"})),
            input(
                "SubagentStart",
                json!({"agent_id": "a", "agent_type": "general-purpose"}),
            ),
            input(
                "SubagentStop",
                json!({"stop_hook_active": false, "agent_id": "a",
                "agent_transcript_path": "/a", "agent_type": "x"}),
            ),
            input(
                "PreCompact",
                json!({"trigger": "auto", "custom_instructions": null}),
            ),
            input(
                "PostCompact",
                json!({"trigger": "manual", "compact_summary": "sum"}),
            ),
            input(
                "PreModelSwitch",
                json!({"from_model": "a", "to_model": "b",
                "requested_model": null, "source": "picker", "context_tokens": 100,
                "prompt_cache_warm": true, "cache_ttl": "1h",
                "estimated_cache_write_usd": 0.25, "pricing": "catalog"}),
            ),
            input(
                "PostModelSwitch",
                json!({"from_model": "a", "to_model": "b",
                "requested_model": "opus", "source": "resume", "context_tokens": 0,
                "prompt_cache_warm": false, "cache_ttl": "5m",
                "estimated_cache_write_usd": 1, "pricing": "default"}),
            ),
            input(
                "TeammateIdle",
                json!({"teammate_name": "t", "team_name": "n"}),
            ),
            input("TaskCreated", json!({"task_id": "1", "task_subject": "s"})),
            input(
                "TaskCompleted",
                json!({"task_id": "1", "task_subject": "s",
                "team_name": "n"}),
            ),
            input(
                "Elicitation",
                json!({"mcp_server_name": "m", "message": "?",
                "mode": "form", "requested_schema": {"type": "object"}}),
            ),
            input(
                "ElicitationResult",
                json!({"mcp_server_name": "m", "action": "accept",
                "content": {"a": 1}}),
            ),
            input("ConfigChange", json!({"source": "skills"})),
            input("WorktreeCreate", json!({"name": "w"})),
            input("WorktreeRemove", json!({"worktree_path": "/w2"})),
            input(
                "InstructionsLoaded",
                json!({"file_path": "/CLAUDE.md",
                "memory_type": "Project", "load_reason": "include", "globs": ["*.rs"]}),
            ),
            input("CwdChanged", json!({"old_cwd": "/a", "new_cwd": "/b"})),
            input("FileChanged", json!({"file_path": "/f", "event": "unlink"})),
            input(
                "DirectoryAdded",
                json!({"directory": "/d", "source": "register_repo_root"}),
            ),
            input(
                "MessageDisplay",
                json!({"turn_id": "t", "message_id": "m", "index": 2,
                "final": true, "delta": "line\n"}),
            ),
            input(
                "PreSkillShellCommand",
                json!({"tool_name": "Bash", "tool_input": {"command": "git status"},
                "tool_use_id": "skill-shell-1", "command_name": "review",
                "command_source": "projectSettings", "invoked_by": "claude"}),
            ),
        ];
        for sample in &samples {
            round_trip(sample);
        }
        let HookInput::SubagentStart(start) = round_trip(&samples[5]) else {
            panic!("not SubagentStart")
        };
        assert_eq!(start.base.agent_id.as_deref(), Some("a"));
        assert!(start.extra.is_empty());
        let HookInput::MessageDisplay(display) = round_trip(&samples[23]) else {
            panic!("not MessageDisplay")
        };
        assert!(display.is_final);
        let HookInput::PreSkillShellCommand(shell) = round_trip(&samples[24]) else {
            panic!("not PreSkillShellCommand")
        };
        assert_eq!(shell.tool_input.command, "git status");
        assert_eq!(shell.invoked_by, SkillInvoker::Claude);
        assert!(shell.extra.is_empty());
        let HookInput::SessionEnd(end) = round_trip(&samples[1]) else {
            panic!("not SessionEnd")
        };
        assert_eq!(end.reason, ExitReason::OtherReason);
    }

    #[test]
    fn broken_lifecycle_inputs_are_repaired() {
        for partial in [
            input("Stop", json!({})),
            input("PreModelSwitch", json!({"from_model": "a"})),
        ] {
            serde_json::from_value::<HookInput>(partial).expect("missing fields read as defaults");
        }
        let fractional = input(
            "MessageDisplay",
            json!({"turn_id": "t", "message_id": "m", "index": 0.5, "final": true, "delta": ""}),
        );
        assert!(serde_json::from_value::<HookInput>(fractional.clone()).is_err());
        let read = crate::from_value::<HookInput>(fractional).expect("read leniently");
        assert!(matches!(&read.value, HookInput::MessageDisplay(m) if m.index == 0));
        assert_eq!(read.repairs[0].action, crate::RepairAction::Removed);
    }
}
