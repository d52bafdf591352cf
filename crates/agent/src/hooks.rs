//! The host's hooks: the callbacks it registered in `initialize` by event and matcher,
//! called through `hook_callback`, and what their answers decide.
//!
//! Events fired: `SessionStart` (before the first turn), `UserPromptSubmit` (each prompt),
//! `PreToolUse` and `PostToolUse` / `PostToolUseFailure` (around each tool call), `Stop`
//! (when the model ends a turn), `SessionEnd` (after the host's input ended: see
//! [`crate::session_end`], which also runs the settings files' command hooks). A matcher is a tool name, names joined with `|`, a regular
//! expression, or empty / `*` for every call. A callback that fails or does not answer in
//! its matcher's `timeout` (60 s by default) is reported and ignored, or blocks when its
//! matcher says `onFailure: block`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Map, Value};
use twinwire::agent::Peer;
use twinwire_protocol::hooks::{HookCallbackMatcher, HookInput, HookMatcherFailure};

/// How long a callback may take unless its matcher says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What the callbacks of one event decided, together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookReport {
    /// A callback blocked what the event guards (`decision: "block"`, or a failure of a
    /// matcher that blocks), with why.
    pub block: Option<String>,
    /// A callback said `continue: false`: the turn stops, with this reason.
    pub stop: Option<String>,
    /// `PreToolUse`: the permission decision (`allow`, `deny`, `ask`) and its reason.
    pub permission: Option<(String, Option<String>)>,
    /// `PreToolUse`: the input to run the tool with instead.
    pub updated_input: Option<Value>,
    /// Text for the model (`additionalContext`).
    pub context: Vec<String>,
}

/// The hooks a host registered.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    by_event: BTreeMap<String, Vec<HookCallbackMatcher>>,
}

impl Hooks {
    /// The hooks of an `initialize` request's `hooks`.
    pub fn new(by_event: BTreeMap<String, Vec<HookCallbackMatcher>>) -> Self {
        Self { by_event }
    }

    /// The matchers registered, by event.
    pub fn by_event(&self) -> &BTreeMap<String, Vec<HookCallbackMatcher>> {
        &self.by_event
    }

    /// Whether any callback is registered for `event`.
    pub fn has(&self, event: &str) -> bool {
        self.by_event.get(event).is_some_and(|m| !m.is_empty())
    }

    /// The ids of the callbacks registered for `event` whose matcher takes `subject`, in
    /// order.
    pub fn callback_ids(&self, event: &str, subject: Option<&str>) -> Vec<String> {
        let matchers = self
            .by_event
            .get(event)
            .map(Vec::as_slice)
            .unwrap_or_default();
        matchers
            .iter()
            .filter(|m| {
                matches(
                    m.matcher.clone().flatten().unwrap_or_default().as_str(),
                    subject,
                )
            })
            .flat_map(|m| m.hook_callback_ids.iter().cloned())
            .collect()
    }

    /// Calls every callback registered for `event` whose matcher takes `subject` (a tool
    /// name), in order, with `fields` (the event's own fields; `hook_event_name` and the
    /// common ones are added), and gathers their decisions.
    pub async fn fire(
        &self,
        session: &Peer,
        common: &Map<String, Value>,
        event: &str,
        subject: Option<&str>,
        fields: Map<String, Value>,
        tool_use_id: Option<&str>,
    ) -> HookReport {
        let mut report = HookReport::default();
        let Some(matchers) = self.by_event.get(event) else {
            return report;
        };
        let mut input = common.clone();
        input.insert("hook_event_name".into(), Value::String(event.to_owned()));
        input.extend(fields);
        let input: HookInput = match serde_json::from_value(Value::Object(input)) {
            Ok(input) => input,
            Err(err) => {
                tracing::warn!(%err, event, "a hook input that does not read");
                return report;
            }
        };
        for matcher in matchers {
            let pattern = matcher.matcher.clone().flatten().unwrap_or_default();
            if !matches(&pattern, subject) {
                continue;
            }
            let timeout = matcher
                .timeout
                .map(Duration::from_secs)
                .unwrap_or(DEFAULT_TIMEOUT);
            for id in &matcher.hook_callback_ids {
                let call = session.hook(id, input.clone(), tool_use_id.map(str::to_owned));
                let output = match tokio::time::timeout(timeout, call).await {
                    Ok(Ok(output)) => serde_json::to_value(output).unwrap_or(Value::Null),
                    failed => {
                        let why = match failed {
                            Ok(Err(err)) => err.to_string(),
                            _ => format!("no answer within {} s", timeout.as_secs()),
                        };
                        tracing::warn!(event, callback = %id, %why, "a hook failed");
                        if matcher.on_failure == Some(HookMatcherFailure::Block) {
                            report
                                .block
                                .get_or_insert(format!("The {event} hook failed: {why}"));
                        }
                        continue;
                    }
                };
                absorb(&mut report, &output);
            }
        }
        report
    }
}

/// Adds one callback's answer to the report (the first block, stop and decision win).
pub(crate) fn absorb(report: &mut HookReport, output: &Value) {
    let text = |value: &Value| value.as_str().map(str::to_owned);
    if output["continue"] == Value::Bool(false) {
        report
            .stop
            .get_or_insert(text(&output["stopReason"]).unwrap_or_default());
    }
    if output["decision"] == "block" {
        report.block.get_or_insert(
            text(&output["reason"]).unwrap_or_else(|| "Blocked by a hook.".to_owned()),
        );
    }
    let specific = &output["hookSpecificOutput"];
    if let Some(decision) = text(&specific["permissionDecision"]) {
        report
            .permission
            .get_or_insert((decision, text(&specific["permissionDecisionReason"])));
    }
    if specific["updatedInput"].is_object() {
        report
            .updated_input
            .get_or_insert(specific["updatedInput"].clone());
    }
    if let Some(context) = text(&specific["additionalContext"]).filter(|c| !c.is_empty()) {
        report.context.push(context);
    }
}

/// The events whose hooks guard a tool call: a judging hook (prompt, agent) that cannot give
/// its verdict blocks the call rather than let it through.
pub(crate) const GUARDS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// A settings hook's refusal as Claude Code words it: `<event>:<subject> hook error: <text>`
/// (`<event> hook error: <text>` for an event without a subject).
pub(crate) fn hook_error(event: &str, subject: Option<&str>, text: &str) -> String {
    match subject {
        Some(subject) => format!("{event}:{subject} hook error: {text}"),
        None => format!("{event} hook error: {text}"),
    }
}

/// Whether a matcher takes `subject`.
pub(crate) fn matches(pattern: &str, subject: Option<&str>) -> bool {
    let pattern = pattern.trim();
    if pattern.is_empty() || pattern == "*" {
        return true;
    }
    let Some(subject) = subject else {
        return true;
    };
    if pattern
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
    {
        return pattern.split('|').any(|name| name == subject);
    }
    regex::Regex::new(&format!("^(?:{pattern})$")).is_ok_and(|re| re.is_match(subject))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matchers_are_names_lists_or_patterns() {
        assert!(matches("", Some("Bash")));
        assert!(matches("*", Some("Bash")));
        assert!(matches("Bash", Some("Bash")));
        assert!(!matches("Bash", Some("BashOutput")));
        assert!(matches("Edit|Write", Some("Write")));
        assert!(matches("mcp__.*", Some("mcp__calc__add")));
        assert!(!matches("mcp__.*", Some("Read")));
    }

    #[test]
    fn answers_are_gathered_first_decision_first() {
        let mut report = HookReport::default();
        absorb(
            &mut report,
            &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no shell",
            "additionalContext": "ctx"}}),
        );
        absorb(
            &mut report,
            &json!({"decision": "block", "reason": "later",
            "hookSpecificOutput": {"permissionDecision": "allow"}}),
        );
        absorb(
            &mut report,
            &json!({"continue": false, "stopReason": "enough"}),
        );
        assert_eq!(
            report.permission,
            Some(("deny".into(), Some("no shell".into())))
        );
        assert_eq!(report.block.as_deref(), Some("later"));
        assert_eq!(report.stop.as_deref(), Some("enough"));
        assert_eq!(report.context, vec!["ctx"]);
    }
}
