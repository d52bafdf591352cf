//! Hook inputs: the shared base, the [`HookInput`] union, and the inputs of the tool,
//! permission and prompt events.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::*;
use crate::mcp::McpServerProvenance;
use crate::permission::{PermissionMode, PermissionUpdate};

/// The reasoning effort of the current turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookEffort {
    /// The effort level (`low`, `medium`, `high`, `xhigh`, `max`).
    #[serde(default)]
    pub level: String,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The fields every hook input carries. Always flattened first into an event's input, so it has
/// no `extra` map of its own.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookInputBase {
    /// The session's id.
    #[serde(default)]
    pub session_id: String,
    /// The path of the session's transcript file.
    #[serde(default)]
    pub transcript_path: String,
    /// The working directory.
    #[serde(default)]
    pub cwd: String,
    /// Correlates everything that follows one user prompt; absent before the first prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<String>,
    /// The permission mode in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionMode>,
    /// The subagent the hook fires in; absent on the main thread. Always present for
    /// `SubagentStart` and `SubagentStop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The agent type (in a subagent, or on the main thread of an `--agent` session). Always
    /// present for `SubagentStart` and `SubagentStop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// The reasoning effort of the current turn, on models that support it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effort: Option<HookEffort>,
}

/// Declares [`HookInput`] and the accessors that reach every variant's base.
macro_rules! hook_input_union {
    ($($(#[$vmeta:meta])* $wire:literal => $variant:ident($ty:ty)),* $(,)?) => {
        crate::tagged_union! {
            /// What the CLI sends in a `hook_callback` request: a union on `hook_event_name`.
            pub enum HookInput: "hook_event_name", "hook input" {
                $($(#[$vmeta])* $wire => $variant($ty)),*
            }
        }

        impl HookInput {
            /// The fields every event carries, unless the event is unknown.
            pub fn base(&self) -> Option<&HookInputBase> {
                match self {
                    $(Self::$variant(input) => Some(&input.base),)*
                    Self::Unknown(_) | Self::Malformed(_) => None,
                }
            }

            /// The fields every event carries, mutably, unless the event is unknown.
            pub fn base_mut(&mut self) -> Option<&mut HookInputBase> {
                match self {
                    $(Self::$variant(input) => Some(&mut input.base),)*
                    Self::Unknown(_) | Self::Malformed(_) => None,
                }
            }
        }
    };
}

hook_input_union! {
    /// Before a tool runs.
    "PreToolUse" => PreToolUse(PreToolUseInput),
    /// After a tool succeeded.
    "PostToolUse" => PostToolUse(PostToolUseInput),
    /// After a tool failed.
    "PostToolUseFailure" => PostToolUseFailure(PostToolUseFailureInput),
    /// After the tool calls of one assistant message ran.
    "PostToolBatch" => PostToolBatch(PostToolBatchInput),
    /// A notification.
    "Notification" => Notification(NotificationInput),
    /// A prompt was submitted.
    "UserPromptSubmit" => UserPromptSubmit(UserPromptSubmitInput),
    /// A command or MCP prompt expanded.
    "UserPromptExpansion" => UserPromptExpansion(UserPromptExpansionInput),
    /// The session started.
    "SessionStart" => SessionStart(SessionStartInput),
    /// The session ended.
    "SessionEnd" => SessionEnd(SessionEndInput),
    /// The main agent is about to stop.
    "Stop" => Stop(StopInput),
    /// The turn ended on an API error.
    "StopFailure" => StopFailure(StopFailureInput),
    /// A subagent started.
    "SubagentStart" => SubagentStart(SubagentStartInput),
    /// A subagent is about to stop.
    "SubagentStop" => SubagentStop(SubagentStopInput),
    /// Compaction is about to run.
    "PreCompact" => PreCompact(PreCompactInput),
    /// Compaction ran.
    "PostCompact" => PostCompact(PostCompactInput),
    /// The model is about to be switched.
    "PreModelSwitch" => PreModelSwitch(PreModelSwitchInput),
    /// The model was switched.
    "PostModelSwitch" => PostModelSwitch(PostModelSwitchInput),
    /// A permission prompt would be shown.
    "PermissionRequest" => PermissionRequest(PermissionRequestInput),
    /// A tool call was denied without a prompt.
    "PermissionDenied" => PermissionDenied(PermissionDeniedInput),
    /// Setup or maintenance run.
    "Setup" => Setup(SetupInput),
    /// A teammate went idle.
    "TeammateIdle" => TeammateIdle(TeammateIdleInput),
    /// A task was created.
    "TaskCreated" => TaskCreated(TaskCreatedInput),
    /// A task was completed.
    "TaskCompleted" => TaskCompleted(TaskCompletedInput),
    /// An MCP server asks the user for input.
    "Elicitation" => Elicitation(ElicitationInput),
    /// The user answered an MCP elicitation.
    "ElicitationResult" => ElicitationResult(ElicitationResultInput),
    /// A settings file changed.
    "ConfigChange" => ConfigChange(ConfigChangeInput),
    /// A worktree is to be created.
    "WorktreeCreate" => WorktreeCreate(WorktreeCreateInput),
    /// A worktree is to be removed.
    "WorktreeRemove" => WorktreeRemove(WorktreeRemoveInput),
    /// An instructions file was loaded.
    "InstructionsLoaded" => InstructionsLoaded(InstructionsLoadedInput),
    /// The working directory changed.
    "CwdChanged" => CwdChanged(CwdChangedInput),
    /// A watched file changed.
    "FileChanged" => FileChanged(FileChangedInput),
    /// A directory was added.
    "DirectoryAdded" => DirectoryAdded(DirectoryAddedInput),
    /// Streamed assistant lines are about to be displayed.
    "MessageDisplay" => MessageDisplay(MessageDisplayInput),
    /// A shell command of a skill or command file is about to run.
    "PreSkillShellCommand" => PreSkillShellCommand(PreSkillShellCommandInput),
}

impl HookInput {
    /// The event, as a [`HookEvent`] (`Other` for an unknown one).
    pub fn event(&self) -> HookEvent {
        HookEvent::from(self.tag())
    }

    /// The session's id (read from the raw object for an unknown event).
    pub fn session_id(&self) -> Option<&str> {
        match self {
            Self::Unknown(unknown) => unknown.raw.get("session_id").and_then(Value::as_str),
            known => known.base().map(|base| base.session_id.as_str()),
        }
    }
}

hook_input! {
    /// Input of `PreToolUse`: a tool is about to run.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PreToolUseInput {
        /// The tool's name.
        #[serde(default)]
        pub tool_name: String,
        /// The tool's input.
        #[serde(default)]
        pub tool_input: Value,
        /// The tool call's id (absent before CLI 2.0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// The MCP server behind an `mcp__*` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerProvenance>,
    }

    /// Input of `PostToolUse`: a tool succeeded.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PostToolUseInput {
        /// The tool's name.
        #[serde(default)]
        pub tool_name: String,
        /// The tool's input.
        #[serde(default)]
        pub tool_input: Value,
        /// What the tool returned.
        #[serde(default)]
        pub tool_response: Value,
        /// The tool call's id (absent before CLI 2.0).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub tool_use_id: Option<String>,
        /// How long the tool ran, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub duration_ms: Option<u64>,
        /// The MCP server behind an `mcp__*` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerProvenance>,
    }

    /// Input of `PostToolUseFailure`: a tool failed.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PostToolUseFailureInput {
        /// The tool's name.
        #[serde(default)]
        pub tool_name: String,
        /// The tool's input.
        #[serde(default)]
        pub tool_input: Value,
        /// The tool call's id.
        #[serde(default)]
        pub tool_use_id: String,
        /// The error.
        #[serde(default)]
        pub error: String,
        /// Whether the failure was an interrupt.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub is_interrupt: Option<bool>,
        /// How long the tool ran, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub duration_ms: Option<u64>,
        /// The MCP server behind an `mcp__*` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerProvenance>,
    }

    /// Input of `PostToolBatch`: all tool calls of one assistant message ran.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PostToolBatchInput {
        /// The calls, in order.
        #[serde(default)]
        pub tool_calls: Vec<PostToolBatchToolCall>,
    }

    /// Input of `PermissionRequest`: a permission prompt would be shown.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionRequestInput {
        /// The tool's name.
        #[serde(default)]
        pub tool_name: String,
        /// The tool's input.
        #[serde(default)]
        pub tool_input: Value,
        /// Updates the CLI suggests offering ("always allow", …).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub permission_suggestions: Option<Vec<PermissionUpdate>>,
        /// The MCP server behind an `mcp__*` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerProvenance>,
    }

    /// Input of `PermissionDenied`: a tool call was denied without a prompt.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct PermissionDeniedInput {
        /// The tool's name.
        #[serde(default)]
        pub tool_name: String,
        /// The tool's input.
        #[serde(default)]
        pub tool_input: Value,
        /// The tool call's id.
        #[serde(default)]
        pub tool_use_id: String,
        /// Why it was denied.
        #[serde(default)]
        pub reason: String,
        /// The MCP server behind an `mcp__*` tool.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub mcp_server: Option<McpServerProvenance>,
    }

    /// Input of `Notification`.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct NotificationInput {
        /// The notification's text.
        #[serde(default)]
        pub message: String,
        /// Its title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub title: Option<String>,
        /// Its kind.
        #[serde(default)]
        pub notification_type: String,
    }

    /// Input of `UserPromptSubmit`: a prompt was submitted.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserPromptSubmitInput {
        /// The prompt's text.
        #[serde(default)]
        pub prompt: String,
        /// Where the prompt came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub source: Option<UserPromptSource>,
        /// The session's title.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub session_title: Option<String>,
    }

    /// Input of `UserPromptExpansion`: a slash command or MCP prompt expanded.
    #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
    pub struct UserPromptExpansionInput {
        /// What expanded.
        #[serde(default)]
        pub expansion_type: PromptExpansionType,
        /// The command's name.
        #[serde(default)]
        pub command_name: String,
        /// The command's arguments.
        #[serde(default)]
        pub command_args: String,
        /// Where the command is defined.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub command_source: Option<String>,
        /// The expanded prompt.
        #[serde(default)]
        pub prompt: String,
    }
}

/// One call of a `PostToolBatch`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PostToolBatchToolCall {
    /// The tool's name.
    #[serde(default)]
    pub tool_name: String,
    /// The tool's input.
    #[serde(default)]
    pub tool_input: Value,
    /// The tool call's id.
    #[serde(default)]
    pub tool_use_id: String,
    /// What the tool returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<Value>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::string_enum! {
    /// Where a submitted prompt came from.
    pub enum UserPromptSource {
        /// Typed by the user.
        User = "user",
        /// Sent by an SDK host.
        Sdk = "sdk",
        /// Generated by the CLI.
        System = "system",
        /// A loop waking up.
        LoopWakeup = "loop_wakeup",
        /// A scheduled wake-up.
        ScheduleWakeup = "schedule_wakeup",
        /// A polled event.
        PollEvent = "poll_event",
    }
}

crate::string_enum! {
    /// What kind of command expanded into a prompt.
    pub enum PromptExpansionType {
        /// A slash command.
        SlashCommand = "slash_command",
        /// An MCP prompt.
        McpPrompt = "mcp_prompt",
    }
}

default_value! {
    UserPromptSource => User,
    PromptExpansionType => SlashCommand,
}

/// The tool a tool hook is about, typed (see [`crate::tools::ToolInput`]).
macro_rules! typed_tool_input {
    ($($ty:ty),*) => {$(
        impl $ty {
            /// The tool's input, typed when its schema is known.
            pub fn tool(&self) -> crate::tools::ToolInput {
                crate::tools::ToolInput::parse(&self.tool_name, &self.tool_input)
            }
        }
    )*};
}
typed_tool_input!(
    PreToolUseInput,
    PostToolUseInput,
    PostToolUseFailureInput,
    PermissionRequestInput
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures as transcripts;
    use serde_json::json;

    fn round_trip(value: &Value) -> HookInput {
        let parsed: HookInput = serde_json::from_value(value.clone()).expect("parse");
        assert_eq!(
            &serde_json::to_value(&parsed).expect("serialize"),
            value,
            "round trip"
        );
        parsed
    }

    #[test]
    fn recorded_hook_inputs_round_trip() {
        let requests = transcripts::control_requests("hook_callback");
        assert!(requests.len() >= 18, "found {}", requests.len());
        for (file, request) in requests {
            let input = round_trip(&request["input"]);
            assert!(input.as_unknown().is_none(), "{file}: {}", request["input"]);
            let base = input.base().expect("base");
            assert_eq!(Some(base.session_id.as_str()), input.session_id());
            // The CLI names the mode with the events of a turn, not with a compaction's.
            if !matches!(input, HookInput::PreCompact(_)) {
                assert_eq!(
                    base.permission_mode,
                    Some(PermissionMode::Default),
                    "{file}"
                );
            }
            match &input {
                HookInput::PreToolUse(pre) => {
                    assert!(pre.extra.is_empty(), "{file}: {:?}", pre.extra);
                    assert!(pre.tool_input.is_object());
                }
                HookInput::PostToolUse(post) => {
                    assert!(post.extra.is_empty(), "{file}: {:?}", post.extra);
                    assert_eq!(post.tool_name, "Bash");
                }
                HookInput::UserPromptSubmit(submit) => assert!(submit.extra.is_empty()),
                HookInput::Stop(stop) => assert!(!stop.stop_hook_active && stop.extra.is_empty()),
                HookInput::PreCompact(pre) => {
                    assert!(pre.extra.is_empty(), "{file}: {:?}", pre.extra);
                    assert_eq!(pre.custom_instructions.as_deref(), Some("keep the marker"));
                }
                other => panic!("{file}: unexpected event {}", other.tag()),
            }
        }
    }

    #[test]
    fn base_is_flattened_and_unknown_fields_stay_in_extra() {
        let raw = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/w",
            "prompt_id": "p", "permission_mode": "plan", "agent_id": "a1",
            "effort": {"level": "high"}, "hook_event_name": "PreToolUse",
            "tool_name": "mcp__calc__add", "tool_input": {"a": 1}, "tool_use_id": "t1",
            "mcp_server": {"name": "calc", "source": "sdk"}, "brand_new": [1, 2.5]
        });
        let input = round_trip(&raw);
        assert_eq!(input.event(), HookEvent::PreToolUse);
        let HookInput::PreToolUse(pre) = input else {
            panic!("not PreToolUse")
        };
        assert_eq!(pre.base.agent_id.as_deref(), Some("a1"));
        assert_eq!(
            pre.base.effort.as_ref().map(|e| e.level.as_str()),
            Some("high")
        );
        assert_eq!(pre.base.permission_mode, Some(PermissionMode::Plan));
        assert_eq!(pre.extra.len(), 1);
        assert_eq!(pre.extra["brand_new"], json!([1, 2.5]));
    }

    #[test]
    fn partial_broken_and_unknown() {
        let base = json!({"session_id": "s", "transcript_path": "/t", "cwd": "/w"});
        let with = |fields: Value| {
            let mut object = base.clone();
            for (k, v) in fields.as_object().expect("object") {
                object[k] = v.clone();
            }
            object
        };
        // A known event missing fields reads them as defaults.
        let no_tool_name = with(json!({"hook_event_name": "PreToolUse", "tool_input": {}}));
        let input: HookInput = serde_json::from_value(no_tool_name).expect("read");
        assert!(matches!(&input, HookInput::PreToolUse(p) if p.tool_name.is_empty()));
        let no_session = json!({"hook_event_name": "Stop", "transcript_path": "/t", "cwd": "/w",
            "stop_hook_active": true});
        let input: HookInput = serde_json::from_value(no_session).expect("read");
        assert_eq!(input.session_id(), Some(""));
        // A wrong type is coerced on the lenient path.
        let odd = with(json!({"hook_event_name": "Stop", "stop_hook_active": "true"}));
        assert!(serde_json::from_value::<HookInput>(odd.clone()).is_err());
        let read = crate::from_value::<HookInput>(odd).expect("read leniently");
        assert!(matches!(&read.value, HookInput::Stop(s) if s.stop_hook_active));
        // An invented event is kept whole.
        let invented = with(json!({"hook_event_name": "MoonRise", "phase": 3}));
        let input = round_trip(&invented);
        assert_eq!(input.event(), HookEvent::Other("MoonRise".into()));
        assert_eq!(input.session_id(), Some("s"));
        assert!(input.as_unknown().is_some() && input.base().is_none());
    }

    #[test]
    fn permission_request_and_prompt_inputs() {
        let raw = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/w",
            "hook_event_name": "PermissionRequest", "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "permission_suggestions": [
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}
            ]
        });
        let HookInput::PermissionRequest(request) = round_trip(&raw) else {
            panic!("not PermissionRequest")
        };
        assert_eq!(request.permission_suggestions.map(|s| s.len()), Some(1));
        let raw = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/w",
            "hook_event_name": "UserPromptExpansion", "expansion_type": "mcp_prompt",
            "command_name": "c", "command_args": "", "prompt": "p"
        });
        let HookInput::UserPromptExpansion(expansion) = round_trip(&raw) else {
            panic!("not UserPromptExpansion")
        };
        assert_eq!(expansion.expansion_type, PromptExpansionType::McpPrompt);
        let raw = json!({
            "session_id": "s", "transcript_path": "/t", "cwd": "/w",
            "hook_event_name": "PostToolBatch",
            "tool_calls": [{"tool_name": "Read", "tool_input": {}, "tool_use_id": "t"}]
        });
        assert!(matches!(round_trip(&raw), HookInput::PostToolBatch(_)));
    }
}
