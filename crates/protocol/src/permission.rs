//! Permissions: modes, rules, the updates the CLI suggests and a host applies, and the answer a
//! host gives to a `can_use_tool` request.
//!
//! The CLI asks the host before a tool runs (`can_use_tool`); the host answers with a
//! [`PermissionResult`], optionally attaching [`PermissionUpdate`]s (often copied from the
//! request's `permission_suggestions`). Denied calls are listed at the end of a run as
//! [`PermissionDenial`]s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

crate::string_enum! {
    /// How the CLI decides whether a tool may run without asking.
    pub enum PermissionMode {
        /// Ask for anything potentially dangerous.
        Default = "default",
        /// Accept file edits without asking.
        AcceptEdits = "acceptEdits",
        /// Skip every permission check.
        BypassPermissions = "bypassPermissions",
        /// Plan only: no tool actually executes.
        Plan = "plan",
        /// Never ask: deny whatever is not allowed up front.
        DontAsk = "dontAsk",
        /// Let a model classifier approve or deny.
        Auto = "auto",
        /// Legacy value some older CLIs and SDKs used.
        Delegate = "delegate",
    }
}

/// `default`.
impl Default for PermissionMode {
    fn default() -> Self {
        Self::Default
    }
}

crate::string_enum! {
    /// What a permission rule does with a matching tool call.
    pub enum PermissionBehavior {
        /// Run the tool without asking.
        Allow = "allow",
        /// Refuse the tool call.
        Deny = "deny",
        /// Ask the user (or the host).
        Ask = "ask",
    }
}

/// `ask`, the cautious choice.
impl Default for PermissionBehavior {
    fn default() -> Self {
        Self::Ask
    }
}

crate::string_enum! {
    /// Where a permission update is stored.
    pub enum PermissionUpdateDestination {
        /// The user's global settings.
        UserSettings = "userSettings",
        /// The project's shared settings.
        ProjectSettings = "projectSettings",
        /// The project's local (uncommitted) settings.
        LocalSettings = "localSettings",
        /// This session only.
        Session = "session",
        /// As if passed on the command line.
        CliArg = "cliArg",
    }
}

/// `session`, as the Python SDK assumes when none is given.
impl Default for PermissionUpdateDestination {
    fn default() -> Self {
        Self::Session
    }
}

crate::string_enum! {
    /// How a permission decision came about, for the CLI's telemetry.
    pub enum PermissionDecisionClassification {
        /// The user allowed this call once.
        UserTemporary = "user_temporary",
        /// The user allowed this kind of call for good.
        UserPermanent = "user_permanent",
        /// The user refused.
        UserReject = "user_reject",
    }
}

/// One permission rule: a tool name and, optionally, what it applies to (`Bash(npm test)`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionRuleValue {
    /// The tool the rule is about, e.g. `Bash` or `mcp__calc__add`.
    #[serde(rename = "toolName")]
    #[serde(default)]
    pub tool_name: String,
    /// The rule's argument, e.g. a command prefix; absent for a rule on the whole tool.
    #[serde(
        rename = "ruleContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub rule_content: Option<String>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionRuleValue {
    /// A rule on a whole tool.
    pub fn tool(tool_name: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            ..Self::default()
        }
    }

    /// A rule on a tool with an argument, e.g. `("Bash", "npm test")`.
    pub fn with_content(tool_name: impl Into<String>, rule_content: impl Into<String>) -> Self {
        Self {
            tool_name: tool_name.into(),
            rule_content: Some(rule_content.into()),
            ..Self::default()
        }
    }
}

/// Declares the structs of the three rule updates, which share one shape.
macro_rules! rules_update {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// The rules concerned.
            #[serde(default)]
            pub rules: Vec<PermissionRuleValue>,
            /// What the rules do.
            #[serde(default)]
            pub behavior: PermissionBehavior,
            /// Where the change is stored.
            #[serde(default)]
            pub destination: PermissionUpdateDestination,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

/// Declares the structs of the two directory updates, which share one shape.
macro_rules! directories_update {
    ($($(#[$meta:meta])* $name:ident;)*) => {$(
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
        pub struct $name {
            /// The directories concerned.
            #[serde(default)]
            pub directories: Vec<String>,
            /// Where the change is stored.
            #[serde(default)]
            pub destination: PermissionUpdateDestination,
            /// Fields this version does not know.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }
    )*};
}

rules_update! {
    /// Adds rules with a behavior.
    AddRulesUpdate;
    /// Replaces all rules of a behavior with these.
    ReplaceRulesUpdate;
    /// Removes rules.
    RemoveRulesUpdate;
}

directories_update! {
    /// Adds directories the tools may work in.
    AddDirectoriesUpdate;
    /// Removes working directories.
    RemoveDirectoriesUpdate;
}

/// Switches the permission mode.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SetModeUpdate {
    /// The new mode.
    #[serde(default)]
    pub mode: PermissionMode,
    /// Where the change is stored.
    #[serde(default)]
    pub destination: PermissionUpdateDestination,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

crate::tagged_union! {
    /// A change to the permission settings, suggested by the CLI or sent by the host.
    pub enum PermissionUpdate: "type", "permission update" {
        /// Adds rules.
        "addRules" => AddRules(AddRulesUpdate),
        /// Replaces the rules of a behavior.
        "replaceRules" => ReplaceRules(ReplaceRulesUpdate),
        /// Removes rules.
        "removeRules" => RemoveRules(RemoveRulesUpdate),
        /// Switches the permission mode.
        "setMode" => SetMode(SetModeUpdate),
        /// Adds working directories.
        "addDirectories" => AddDirectories(AddDirectoriesUpdate),
        /// Removes working directories.
        "removeDirectories" => RemoveDirectories(RemoveDirectoriesUpdate),
    }
}

impl PermissionUpdate {
    /// Adds `rules` with `behavior`, stored at `destination`.
    pub fn add_rules(
        rules: Vec<PermissionRuleValue>,
        behavior: PermissionBehavior,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::AddRules(AddRulesUpdate {
            rules,
            behavior,
            destination,
            extra: Map::new(),
        })
    }

    /// Switches to `mode`, stored at `destination`.
    pub fn set_mode(mode: PermissionMode, destination: PermissionUpdateDestination) -> Self {
        Self::SetMode(SetModeUpdate {
            mode,
            destination,
            extra: Map::new(),
        })
    }

    /// Adds working `directories`, stored at `destination`.
    pub fn add_directories(
        directories: Vec<String>,
        destination: PermissionUpdateDestination,
    ) -> Self {
        Self::AddDirectories(AddDirectoriesUpdate {
            directories,
            destination,
            extra: Map::new(),
        })
    }

    /// Where the update is stored, unless the kind is unknown.
    pub fn destination(&self) -> Option<&PermissionUpdateDestination> {
        match self {
            Self::AddRules(u) => Some(&u.destination),
            Self::ReplaceRules(u) => Some(&u.destination),
            Self::RemoveRules(u) => Some(&u.destination),
            Self::SetMode(u) => Some(&u.destination),
            Self::AddDirectories(u) => Some(&u.destination),
            Self::RemoveDirectories(u) => Some(&u.destination),
            Self::Unknown(_) | Self::Malformed(_) => None,
        }
    }
}

/// The host lets the tool run, possibly with a changed input.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionAllow {
    /// The input to run the tool with (the original one if unchanged).
    #[serde(
        rename = "updatedInput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_input: Option<Value>,
    /// Permission changes to apply along with this decision.
    #[serde(
        rename = "updatedPermissions",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_permissions: Option<Vec<PermissionUpdate>>,
    /// The tool call this answers.
    #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// How the decision came about, for telemetry.
    #[serde(
        rename = "decisionClassification",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub decision_classification: Option<PermissionDecisionClassification>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionAllow {
    /// Allows the call with `input` (pass the request's input to run it unchanged).
    pub fn new(input: Value) -> Self {
        Self {
            updated_input: Some(input),
            ..Self::default()
        }
    }

    /// Attaches permission changes to apply.
    pub fn with_updated_permissions(mut self, updates: Vec<PermissionUpdate>) -> Self {
        self.updated_permissions = Some(updates);
        self
    }

    /// Sets the telemetry classification.
    pub fn with_classification(mut self, classification: PermissionDecisionClassification) -> Self {
        self.decision_classification = Some(classification);
        self
    }
}

/// The host refuses the tool call.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionDeny {
    /// Why, shown to the model.
    #[serde(default)]
    pub message: String,
    /// Whether to stop the whole turn, not just this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<bool>,
    /// The tool call this answers.
    #[serde(rename = "toolUseID", default, skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// How the decision came about, for telemetry.
    #[serde(
        rename = "decisionClassification",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub decision_classification: Option<PermissionDecisionClassification>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl PermissionDeny {
    /// Refuses the call with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            ..Self::default()
        }
    }

    /// Also stops the turn.
    pub fn interrupt(mut self) -> Self {
        self.interrupt = Some(true);
        self
    }

    /// Sets the telemetry classification.
    pub fn with_classification(mut self, classification: PermissionDecisionClassification) -> Self {
        self.decision_classification = Some(classification);
        self
    }
}

crate::tagged_union! {
    /// The host's answer to a `can_use_tool` request.
    pub enum PermissionResult: "behavior", "permission result" {
        /// Let the tool run.
        "allow" => Allow(PermissionAllow),
        /// Refuse the call.
        "deny" => Deny(PermissionDeny),
    }
}

impl PermissionResult {
    /// Allows the call with `input` (pass the request's input to run it unchanged).
    pub fn allow(input: Value) -> Self {
        Self::Allow(PermissionAllow::new(input))
    }

    /// Refuses the call with `message`.
    pub fn deny(message: impl Into<String>) -> Self {
        Self::Deny(PermissionDeny::new(message))
    }

    /// Whether the tool may run.
    pub fn is_allow(&self) -> bool {
        matches!(self, Self::Allow(_))
    }
}

/// A tool call that was refused during a run (an entry of `result.permission_denials`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PermissionDenial {
    /// The tool's name.
    #[serde(default)]
    pub tool_name: String,
    /// The refused call's id.
    #[serde(default)]
    pub tool_use_id: String,
    /// The input the model gave.
    #[serde(default)]
    pub tool_input: Value,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip<T: Serialize + for<'de> Deserialize<'de>>(value: &Value) -> T {
        let parsed: T = serde_json::from_value(value.clone()).expect("parse");
        assert_eq!(
            &serde_json::to_value(&parsed).expect("serialize"),
            value,
            "round trip"
        );
        parsed
    }

    #[test]
    fn can_use_tool_answers_round_trip() {
        let answers = crate::test_fixtures::control_responses("can_use_tool", "in");
        assert!(answers.len() >= 20, "found {}", answers.len());
        let mut denies = 0;
        for (file, payload) in answers {
            let result: PermissionResult = round_trip(&payload);
            assert!(result.as_unknown().is_none(), "{file}: {payload}");
            if let PermissionResult::Deny(deny) = &result {
                assert!(!deny.message.is_empty(), "{file}: {payload}");
                denies += 1;
            }
        }
        assert!(denies >= 4);
    }

    #[test]
    fn permission_suggestions_round_trip() {
        let mut seen = 0;
        for (file, request) in crate::test_fixtures::control_requests("can_use_tool") {
            let Some(suggestions) = request["permission_suggestions"].as_array() else {
                continue;
            };
            for suggestion in suggestions {
                let update: PermissionUpdate = round_trip(suggestion);
                assert!(update.as_unknown().is_none(), "{file}: {suggestion}");
                assert!(update.destination().is_some());
                seen += 1;
            }
        }
        assert!(seen >= 20, "found {seen}");
    }

    #[test]
    fn permission_denials_and_modes() {
        let mut denials = 0;
        for frame in crate::test_fixtures::all() {
            if frame.msg["type"] == "result" {
                for denial in frame.msg["permission_denials"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let parsed: PermissionDenial = round_trip(denial);
                    assert!(
                        ["Bash", "Write"].contains(&parsed.tool_name.as_str()),
                        "{}: {denial}",
                        frame.file
                    );
                    denials += 1;
                }
            }
            if frame.msg["type"] == "system" && frame.msg["subtype"] == "init" {
                let mode: PermissionMode = round_trip(&frame.msg["permissionMode"]);
                assert!(!matches!(mode, PermissionMode::Other(_)), "{}", frame.file);
            }
        }
        assert!(denials >= 8);
    }

    #[test]
    fn constructors_write_the_wire_form() {
        let allow = PermissionResult::Allow(
            PermissionAllow::new(json!({"command": "ls"})).with_updated_permissions(vec![
                PermissionUpdate::add_rules(
                    vec![PermissionRuleValue::with_content("Bash", "ls")],
                    PermissionBehavior::Allow,
                    PermissionUpdateDestination::Session,
                ),
            ]),
        );
        assert_eq!(
            serde_json::to_value(&allow).expect("serialize"),
            json!({
                "behavior": "allow",
                "updatedInput": {"command": "ls"},
                "updatedPermissions": [{
                    "type": "addRules",
                    "rules": [{"toolName": "Bash", "ruleContent": "ls"}],
                    "behavior": "allow",
                    "destination": "session"
                }]
            })
        );
        let deny = PermissionResult::Deny(PermissionDeny::new("no").interrupt());
        assert_eq!(
            serde_json::to_value(&deny).expect("serialize"),
            json!({"behavior": "deny", "message": "no", "interrupt": true})
        );
        assert_eq!(
            serde_json::to_value(PermissionResult::deny("no")).expect("serialize"),
            json!({"behavior": "deny", "message": "no"})
        );
        assert!(PermissionResult::allow(json!({})).is_allow());
    }

    #[test]
    fn partial_broken_and_unknown() {
        // A deny without its message reads with an empty one (the writer always sends one).
        let deny: PermissionResult = serde_json::from_value(json!({"behavior": "deny"})).unwrap();
        assert!(matches!(&deny, PermissionResult::Deny(d) if d.message.is_empty()));
        let update: PermissionUpdate =
            serde_json::from_value(json!({"type": "setMode", "destination": "session"})).unwrap();
        assert_eq!(update.tag(), "setMode");
        let raw = json!({"behavior": "defer", "why": 1});
        let parsed: PermissionResult = round_trip(&raw);
        assert_eq!(parsed.tag(), "defer");
        assert!(parsed.as_unknown().is_some());
        let raw = json!({"type": "addSandboxRules", "destination": "session"});
        let parsed: PermissionUpdate = round_trip(&raw);
        assert!(parsed.as_unknown().is_some());
        let mode: PermissionMode = round_trip(&json!("yolo"));
        assert_eq!(mode, PermissionMode::Other("yolo".into()));
    }
}
