//! Hook outputs: the host's answer to a `hook_callback` request ([`HookOutput`]) and its
//! event-specific part ([`HookSpecificOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::*;

crate::string_enum! {
    /// The top-level decision of a hook output.
    pub enum HookDecision {
        /// Approve (legacy).
        Approve = "approve",
        /// Block the action the event guards.
        Block = "block",
    }
}

crate::string_enum! {
    /// A `PreToolUse` hook's permission decision.
    pub enum HookPermissionDecision {
        /// Run the tool without asking.
        Allow = "allow",
        /// Refuse the tool call.
        Deny = "deny",
        /// Ask as usual.
        Ask = "ask",
        /// Leave the decision to the rest of the permission flow.
        Defer = "defer",
    }
}

/// The host's answer to a `hook_callback` request.
///
/// One struct for both forms the SDK types distinguish: the synchronous answer (every field but
/// `async`/`asyncTimeout`) and the asynchronous one (`{"async": true, "asyncTimeout"?}`). An
/// empty object means "go ahead".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookOutput {
    /// Whether the agent goes on after the hook (`false` stops it).
    #[serde(rename = "continue", default, skip_serializing_if = "Option::is_none")]
    pub continue_: Option<bool>,
    /// Hide the hook's output from the transcript.
    #[serde(
        rename = "suppressOutput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub suppress_output: Option<bool>,
    /// Shown to the user when `continue` is false.
    #[serde(
        rename = "stopReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_reason: Option<String>,
    /// Approve or block the guarded action.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<HookDecision>,
    /// A message shown to the user.
    #[serde(
        rename = "systemMessage",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub system_message: Option<String>,
    /// Why, for `decision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// A terminal escape sequence to emit.
    #[serde(
        rename = "terminalSequence",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub terminal_sequence: Option<String>,
    /// The event-specific part.
    #[serde(
        rename = "hookSpecificOutput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub hook_specific_output: Option<HookSpecificOutput>,
    /// `true` for the asynchronous form: the hook goes on in the background.
    #[serde(rename = "async", default, skip_serializing_if = "Option::is_none")]
    pub async_: Option<bool>,
    /// For the asynchronous form, how long to wait, in milliseconds.
    #[serde(
        rename = "asyncTimeout",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub async_timeout: Option<u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl HookOutput {
    /// Go ahead: `{"continue": true}`.
    pub fn proceed() -> Self {
        Self {
            continue_: Some(true),
            ..Self::default()
        }
    }

    /// Block the guarded action: `{"decision": "block", "reason": …}`.
    pub fn block(reason: impl Into<String>) -> Self {
        Self {
            decision: Some(HookDecision::Block),
            reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// Stop the agent: `{"continue": false, "stopReason": …}`.
    pub fn stop(reason: impl Into<String>) -> Self {
        Self {
            continue_: Some(false),
            stop_reason: Some(reason.into()),
            ..Self::default()
        }
    }

    /// A `PreToolUse` permission decision with its reason.
    pub fn pre_tool_use_decision(
        decision: HookPermissionDecision,
        reason: impl Into<String>,
    ) -> Self {
        Self::default().with_specific(PreToolUseOutput {
            permission_decision: Some(decision),
            permission_decision_reason: Some(reason.into()),
            ..PreToolUseOutput::default()
        })
    }

    /// The asynchronous form: `{"async": true, "asyncTimeout"?: …}`.
    pub fn asynchronous(timeout_ms: Option<u64>) -> Self {
        Self {
            async_: Some(true),
            async_timeout: timeout_ms,
            ..Self::default()
        }
    }

    /// Sets the event-specific part.
    pub fn with_specific(mut self, output: impl Into<HookSpecificOutput>) -> Self {
        self.hook_specific_output = Some(output.into());
        self
    }

    /// Sets the message shown to the user.
    pub fn with_system_message(mut self, message: impl Into<String>) -> Self {
        self.system_message = Some(message.into());
        self
    }

    /// Whether this is the asynchronous form.
    pub fn is_async(&self) -> bool {
        self.async_ == Some(true)
    }
}

crate::tagged_union! {
    /// The event-specific part of a hook output: a union on `hookEventName`.
    pub enum HookSpecificOutput: "hookEventName", "hook specific output" {
        /// For `PreToolUse`.
        "PreToolUse" => PreToolUse(PreToolUseOutput),
        /// For `PostToolUse`.
        "PostToolUse" => PostToolUse(PostToolUseOutput),
        /// For `PostToolUseFailure`.
        "PostToolUseFailure" => PostToolUseFailure(PostToolUseFailureOutput),
        /// For `PostToolBatch`.
        "PostToolBatch" => PostToolBatch(PostToolBatchOutput),
        /// For `Notification`.
        "Notification" => Notification(NotificationOutput),
        /// For `UserPromptSubmit`.
        "UserPromptSubmit" => UserPromptSubmit(UserPromptSubmitOutput),
        /// For `UserPromptExpansion`.
        "UserPromptExpansion" => UserPromptExpansion(UserPromptExpansionOutput),
        /// For `SessionStart`.
        "SessionStart" => SessionStart(SessionStartOutput),
        /// For `Setup`.
        "Setup" => Setup(SetupOutput),
        /// For `Stop`.
        "Stop" => Stop(StopOutput),
        /// For `SubagentStart`.
        "SubagentStart" => SubagentStart(SubagentStartOutput),
        /// For `SubagentStop`.
        "SubagentStop" => SubagentStop(SubagentStopOutput),
        /// For `PreModelSwitch`.
        "PreModelSwitch" => PreModelSwitch(PreModelSwitchOutput),
        /// For `PostModelSwitch`.
        "PostModelSwitch" => PostModelSwitch(PostModelSwitchOutput),
        /// For `PermissionRequest`.
        "PermissionRequest" => PermissionRequest(PermissionRequestOutput),
        /// For `PermissionDenied`.
        "PermissionDenied" => PermissionDenied(PermissionDeniedOutput),
        /// For `Elicitation`.
        "Elicitation" => Elicitation(ElicitationOutput),
        /// For `ElicitationResult`.
        "ElicitationResult" => ElicitationResult(ElicitationResultOutput),
        /// For `CwdChanged`.
        "CwdChanged" => CwdChanged(CwdChangedOutput),
        /// For `FileChanged`.
        "FileChanged" => FileChanged(FileChangedOutput),
        /// For `WorktreeCreate`.
        "WorktreeCreate" => WorktreeCreate(WorktreeCreateOutput),
        /// For `MessageDisplay`.
        "MessageDisplay" => MessageDisplay(MessageDisplayOutput),
        /// For `PreSkillShellCommand`.
        "PreSkillShellCommand" => PreSkillShellCommand(PreSkillShellCommandOutput),
    }
}

impl HookSpecificOutput {
    /// The event this output is for.
    pub fn event(&self) -> HookEvent {
        HookEvent::from(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures as transcripts;
    use serde_json::json;

    fn round_trip(value: &Value) -> HookOutput {
        let parsed: HookOutput = serde_json::from_value(value.clone()).expect("parse");
        assert_eq!(&serde_json::to_value(&parsed).expect("serialize"), value);
        parsed
    }

    #[test]
    fn recorded_hook_answers_round_trip() {
        let answers = transcripts::control_responses("hook_callback", "in");
        assert!(answers.len() >= 18, "found {}", answers.len());
        for (file, payload) in answers {
            let output = round_trip(&payload);
            assert!(output.extra.is_empty(), "{file}: {payload}");
            // The recorded hosts answer "go ahead", nothing, or a typed event-specific part.
            let plain = output == HookOutput::proceed() || output == HookOutput::default();
            let specific = matches!(
                output.hook_specific_output,
                Some(HookSpecificOutput::PreToolUse(_) | HookSpecificOutput::UserPromptSubmit(_))
            );
            assert!(plain || specific, "{file}: {payload}");
        }
    }

    #[test]
    fn constructors_write_the_wire_form() {
        let cases = [
            (HookOutput::proceed(), json!({"continue": true})),
            (
                HookOutput::block("no"),
                json!({"decision": "block", "reason": "no"}),
            ),
            (
                HookOutput::stop("done"),
                json!({"continue": false, "stopReason": "done"}),
            ),
            (
                HookOutput::pre_tool_use_decision(HookPermissionDecision::Deny, "risky"),
                json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                    "permissionDecision": "deny", "permissionDecisionReason": "risky"}}),
            ),
            (
                HookOutput::asynchronous(Some(5000)),
                json!({"async": true, "asyncTimeout": 5000}),
            ),
        ];
        for (output, expected) in cases {
            assert_eq!(serde_json::to_value(&output).expect("serialize"), expected);
            assert_eq!(round_trip(&expected), output);
        }
        assert!(HookOutput::asynchronous(None).is_async());
    }

    #[test]
    fn specific_outputs_round_trip() {
        let samples = [
            json!({"hookEventName": "PreToolUse", "permissionDecision": "defer",
                "updatedInput": {"command": "ls"}, "additionalContext": "c"}),
            json!({"hookEventName": "PostToolUse", "updatedMCPToolOutput": [1],
                "classifierContext": "x"}),
            json!({"hookEventName": "PostToolUseFailure", "additionalContext": "c"}),
            json!({"hookEventName": "PostToolBatch"}),
            json!({"hookEventName": "Notification", "additionalContext": "c"}),
            json!({"hookEventName": "UserPromptSubmit", "sessionTitle": "t",
                "suppressOriginalPrompt": true}),
            json!({"hookEventName": "UserPromptExpansion", "additionalContext": "c"}),
            json!({"hookEventName": "SessionStart", "initialUserMessage": "hi",
                "watchPaths": ["/a"], "reloadSkills": false}),
            json!({"hookEventName": "Setup", "additionalContext": "c"}),
            json!({"hookEventName": "Stop", "additionalContext": "c"}),
            json!({"hookEventName": "SubagentStart", "additionalContext": "c"}),
            json!({"hookEventName": "SubagentStop", "additionalContext": "c"}),
            json!({"hookEventName": "PreModelSwitch", "permissionDecision": "ask"}),
            json!({"hookEventName": "PostModelSwitch", "additionalContext": "c"}),
            json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "allow",
                "updatedPermissions": [{"type": "addDirectories", "directories": ["/d"],
                "destination": "session"}]}}),
            json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "deny",
                "interrupt": true}}),
            json!({"hookEventName": "PermissionDenied", "retry": true}),
            json!({"hookEventName": "Elicitation", "action": "accept", "content": {"a": 1}}),
            json!({"hookEventName": "ElicitationResult", "action": "decline"}),
            json!({"hookEventName": "CwdChanged", "watchPaths": []}),
            json!({"hookEventName": "FileChanged", "watchPaths": ["/f"]}),
            json!({"hookEventName": "WorktreeCreate", "worktreePath": "/w"}),
            json!({"hookEventName": "MessageDisplay", "displayContent": "x"}),
            json!({"hookEventName": "PreSkillShellCommand", "permissionDecision": "deny",
                "permissionDecisionReason": "no shell in skills"}),
        ];
        let mut events = std::collections::BTreeSet::new();
        for sample in &samples {
            let wrapped = json!({"continue": true, "hookSpecificOutput": sample});
            let output = round_trip(&wrapped);
            let specific = output.hook_specific_output.expect("specific");
            assert!(specific.as_unknown().is_none(), "{sample}");
            assert!(!matches!(specific.event(), HookEvent::Other(_)));
            events.insert(specific.tag().to_owned());
        }
        assert_eq!(events.len(), HookSpecificOutput::KNOWN_TAGS.len());
    }

    #[test]
    fn partial_broken_and_unknown() {
        // Known events missing fields read them as defaults; a wrong type fails the strict path
        // and is repaired on the lenient one.
        let partial = [
            json!({"hookSpecificOutput": {"hookEventName": "WorktreeCreate"}}),
            json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                "decision": {"behavior": "allow", "updatedPermissions": [{"type": "setMode"}]}}}),
        ];
        for value in partial {
            serde_json::from_value::<HookOutput>(value).expect("read");
        }
        let odd = json!({"asyncTimeout": "soon"});
        assert!(serde_json::from_value::<HookOutput>(odd.clone()).is_err());
        assert!(crate::from_value::<HookOutput>(odd).is_ok());
        // A permission request decision of the wrong shape is kept raw.
        let odd = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": "allow"}});
        let read = crate::from_value::<HookOutput>(odd).expect("read leniently");
        let specific = read.value.hook_specific_output.expect("specific");
        let HookSpecificOutput::PermissionRequest(request) = specific else {
            panic!("not a permission request output");
        };
        assert!(request.decision.as_malformed().is_some());
        // Unknown events and behaviors are kept whole.
        let raw = json!({"hookSpecificOutput": {"hookEventName": "MoonRise", "glow": 1},
            "novel": true});
        let output = round_trip(&raw);
        assert_eq!(output.extra["novel"], json!(true));
        let specific = output.hook_specific_output.expect("specific");
        assert_eq!(specific.event(), HookEvent::Other("MoonRise".into()));
        assert!(specific.as_unknown().is_some());
        let raw = json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
            "decision": {"behavior": "escalate"}}});
        let output = round_trip(&raw);
        assert!(matches!(
            output.hook_specific_output,
            Some(HookSpecificOutput::PermissionRequest(
                PermissionRequestOutput {
                    decision: PermissionRequestDecision::Unknown(_),
                    ..
                }
            ))
        ));
    }
}
