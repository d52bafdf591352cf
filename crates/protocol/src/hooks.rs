//! Hooks: the events a host can subscribe to, what the CLI sends when one fires, and what the
//! host answers.
//!
//! A host registers callbacks in `initialize` as [`HookMatchers`] (event name → list of
//! [`HookCallbackMatcher`]). When a hook fires, the CLI sends a `hook_callback` control request
//! whose `input` is a [`HookInput`] (a union on `hook_event_name`, one variant per
//! [`HookEvent`]); the host answers with a [`HookOutput`], whose `hookSpecificOutput` is a
//! [`HookSpecificOutput`] (a union on `hookEventName`).
//!
//! Every input struct starts with a flattened [`HookInputBase`] (the fields all events share)
//! and ends with its own `extra` map; the base has no `extra` of its own, so unknown fields land
//! in the event's `extra` and round-trip.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Declares hook input structs (derives written at the call site): a flattened
/// [`HookInputBase`] first, the event's own fields, then the `extra` map.
macro_rules! hook_input {
    ($(
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty, )*
        }
    )*) => {$(
        $(#[$meta])*
        pub struct $name {
            /// The fields every hook input carries.
            #[serde(flatten)]
            pub base: HookInputBase,
            $( $(#[$fmeta])* pub $field: $ty, )*
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

/// Implements `Default` for string sets as one of their known values.
macro_rules! default_value {
    ($($ty:ident => $variant:ident),* $(,)?) => {$(
        impl Default for $ty {
            fn default() -> Self {
                Self::$variant
            }
        }
    )*};
}

mod environment;
mod input;
mod lifecycle;
mod output;
mod specific;

pub use environment::*;
pub use input::*;
pub use lifecycle::*;
pub use output::*;
pub use specific::*;

crate::string_enum! {
    /// The events a hook can be registered for.
    pub enum HookEvent {
        /// Before a tool runs.
        PreToolUse = "PreToolUse",
        /// After a tool succeeded.
        PostToolUse = "PostToolUse",
        /// After a tool failed.
        PostToolUseFailure = "PostToolUseFailure",
        /// After all tool calls of one assistant message ran.
        PostToolBatch = "PostToolBatch",
        /// When the CLI shows a notification.
        Notification = "Notification",
        /// When the user submits a prompt.
        UserPromptSubmit = "UserPromptSubmit",
        /// When a slash command or MCP prompt expands into a prompt.
        UserPromptExpansion = "UserPromptExpansion",
        /// When a session starts.
        SessionStart = "SessionStart",
        /// When a session ends.
        SessionEnd = "SessionEnd",
        /// When the main agent is about to stop.
        Stop = "Stop",
        /// When a turn ends on an API error.
        StopFailure = "StopFailure",
        /// When a subagent starts.
        SubagentStart = "SubagentStart",
        /// When a subagent is about to stop.
        SubagentStop = "SubagentStop",
        /// Before the conversation is compacted.
        PreCompact = "PreCompact",
        /// After the conversation was compacted.
        PostCompact = "PostCompact",
        /// Before the model is switched.
        PreModelSwitch = "PreModelSwitch",
        /// After the model was switched.
        PostModelSwitch = "PostModelSwitch",
        /// When a permission prompt would be shown.
        PermissionRequest = "PermissionRequest",
        /// When a tool call was denied without a prompt.
        PermissionDenied = "PermissionDenied",
        /// On `--init` or maintenance runs.
        Setup = "Setup",
        /// When a teammate goes idle.
        TeammateIdle = "TeammateIdle",
        /// When a task is created.
        TaskCreated = "TaskCreated",
        /// When a task is completed.
        TaskCompleted = "TaskCompleted",
        /// When an MCP server asks the user for input.
        Elicitation = "Elicitation",
        /// When the user answered an MCP elicitation.
        ElicitationResult = "ElicitationResult",
        /// When a settings file changes.
        ConfigChange = "ConfigChange",
        /// When a worktree is to be created.
        WorktreeCreate = "WorktreeCreate",
        /// When a worktree is to be removed.
        WorktreeRemove = "WorktreeRemove",
        /// When a memory or instructions file is loaded.
        InstructionsLoaded = "InstructionsLoaded",
        /// When the working directory changes.
        CwdChanged = "CwdChanged",
        /// When a watched file changes.
        FileChanged = "FileChanged",
        /// When a directory is added to the session.
        DirectoryAdded = "DirectoryAdded",
        /// When streamed assistant lines are about to be displayed.
        MessageDisplay = "MessageDisplay",
        /// Before a shell command written in a skill or command file runs as it loads.
        PreSkillShellCommand = "PreSkillShellCommand",
    }
}

crate::string_enum! {
    /// What a failure of a matcher's callbacks does.
    pub enum HookMatcherFailure {
        /// Report it and go ahead (the default).
        Continue = "continue",
        /// Block the action the event guards.
        Block = "block",
    }
}

/// One matcher of a hook registration, as sent in `initialize`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct HookCallbackMatcher {
    /// Which tool names (or other event subjects) the callbacks apply to; `null` or absent
    /// matches everything.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub matcher: Option<Option<String>>,
    /// The host's ids for its callbacks; they come back as `callback_id` in `hook_callback`.
    #[serde(rename = "hookCallbackIds")]
    #[serde(default)]
    pub hook_callback_ids: Vec<String>,
    /// Timeout in seconds for the callbacks of this matcher.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// What a failing callback does.
    #[serde(rename = "onFailure", default, skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<HookMatcherFailure>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl HookCallbackMatcher {
    /// A matcher for everything (`"matcher": null`) with these callback ids.
    pub fn all(hook_callback_ids: Vec<String>) -> Self {
        Self {
            matcher: Some(None),
            hook_callback_ids,
            ..Self::default()
        }
    }

    /// A matcher for `pattern` (e.g. a tool name) with these callback ids.
    pub fn matching(pattern: impl Into<String>, hook_callback_ids: Vec<String>) -> Self {
        Self {
            matcher: Some(Some(pattern.into())),
            hook_callback_ids,
            ..Self::default()
        }
    }

    /// The pattern, if any.
    pub fn pattern(&self) -> Option<&str> {
        self.matcher.as_ref().and_then(|m| m.as_deref())
    }
}

/// The `hooks` field of `initialize`: event name (a [`HookEvent`] as written on the wire) to
/// matchers.
pub type HookMatchers = BTreeMap<String, Vec<HookCallbackMatcher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures as transcripts;
    use serde_json::json;

    #[test]
    fn initialize_hooks_round_trip() {
        let requests = transcripts::control_requests("initialize");
        let mut seen = 0;
        for (file, request) in requests {
            // The official Python SDK writes `"hooks": null` when it has none.
            let Some(hooks) = request.get("hooks").filter(|h| !h.is_null()) else {
                continue;
            };
            let parsed: HookMatchers = serde_json::from_value(hooks.clone()).expect("parse");
            assert_eq!(&serde_json::to_value(&parsed).expect("serialize"), hooks);
            for (event, matchers) in &parsed {
                assert!(
                    !matches!(HookEvent::from(event.as_str()), HookEvent::Other(_)),
                    "{file}: {event}"
                );
                for matcher in matchers {
                    assert!(matcher.extra.is_empty());
                    assert!(!matcher.hook_callback_ids.is_empty());
                }
            }
            // The recorded hosts register every hook for all tools or for `Bash`.
            for matcher in parsed.values().flatten() {
                assert!(matches!(matcher.pattern(), None | Some("Bash")), "{file}");
            }
            seen += 1;
        }
        assert!(seen >= 5, "found {seen}");
    }

    #[test]
    fn matcher_forms() {
        let omitted = json!({"hookCallbackIds": ["hook_0"], "timeout": 30, "onFailure": "block"});
        let parsed: HookCallbackMatcher = serde_json::from_value(omitted.clone()).expect("parse");
        assert_eq!(parsed.matcher, None);
        assert_eq!(parsed.on_failure, Some(HookMatcherFailure::Block));
        assert_eq!(serde_json::to_value(&parsed).expect("serialize"), omitted);
        assert_eq!(
            serde_json::to_value(HookCallbackMatcher::all(vec!["hook_1".into()]))
                .expect("serialize"),
            json!({"matcher": null, "hookCallbackIds": ["hook_1"]})
        );
        let bare: HookCallbackMatcher =
            serde_json::from_value(json!({"matcher": "Bash"})).expect("parse");
        assert!(bare.hook_callback_ids.is_empty());
    }

    #[test]
    fn events_are_the_thirty_four() {
        assert_eq!(HookEvent::KNOWN.len(), 34);
        assert_eq!(HookInput::KNOWN_TAGS, HookEvent::KNOWN);
        assert_eq!(HookSpecificOutput::KNOWN_TAGS.len(), 23);
        for tag in HookSpecificOutput::KNOWN_TAGS {
            assert!(HookEvent::KNOWN.contains(tag), "{tag}");
        }
    }
}
