//! `--policy FILE`: `can_use_tool` requests the tap answers itself.
//!
//! The file is JSON: `{"allow": ["Read", "Bash(ls*)", "mcp__calc__*"], "deny": ["Bash(rm*)"]}`.
//! The patterns are those of `twinwire run --allow` ([`twinwire_policy`]): a tool name (`Read`), a
//! glob over tool names (`mcp__calc__*`), or a tool with a pattern over its main argument:
//! `Bash(ls*)`, `Bash(npm test:*)`, `Write(/tmp/*)`. Deny wins; a compound Bash command is
//! allowed only when every part is, and never when it substitutes or redirects (`$(`,
//! backquotes, `<(`, `>(`, `>`, `<`): nobody confirms what a policy allows. Anything no pattern
//! decides goes to the host.

use std::path::Path;

use anyhow::Context;
use serde::Deserialize;
use serde_json::Value;
use twinwire_protocol::control::ControlResponse;
use twinwire_protocol::permission::PermissionResult;
use twinwire_protocol::InputMessage;

use twinwire_policy::{Decision as RuleDecision, PermissionPolicy, Rule};

/// The rules of a policy file.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file's name, quoted in deny messages.
    name: String,
    rules: PermissionPolicy,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

/// What the tap answers to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The answer, one JSON line for the CLI's stdin.
    pub answer: String,
    /// The pattern that decided.
    pub rule: String,
}

impl Policy {
    /// Reads a policy file.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the policy {}", path.display()))?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        Self::parse(&name, &text).with_context(|| format!("in the policy {}", path.display()))
    }

    /// Parses the JSON of a policy file.
    pub fn parse(name: &str, json: &str) -> anyhow::Result<Self> {
        let file: PolicyFile = serde_json::from_str(json)?;
        let patterns = |list: Vec<String>| -> anyhow::Result<Vec<Rule>> {
            list.iter()
                .map(|p| p.parse::<Rule>().map_err(anyhow::Error::from))
                .collect()
        };
        Ok(Self {
            name: name.to_owned(),
            rules: PermissionPolicy::new(patterns(file.allow)?, patterns(file.deny)?)
                .strict_redirects(),
        })
    }

    /// If `line` is a `can_use_tool` request this policy decides, the answer to send.
    pub fn decide_line(&self, line: &str) -> Option<Decision> {
        // Cheap test first: most frames are not permission requests.
        if !line.contains("can_use_tool") {
            return None;
        }
        // Read as plain JSON, not the typed request: a payload this version does not model
        // must not make the tap skip its policy.
        let frame: Value = serde_json::from_str(line).ok()?;
        let request = frame.get("request")?;
        if frame.get("type")? != "control_request" || request.get("subtype")? != "can_use_tool" {
            return None;
        }
        let request_id = frame.get("request_id")?.as_str()?;
        let tool = request.get("tool_name")?.as_str()?;
        let input = request.get("input").cloned().unwrap_or(Value::Null);
        let (allowed, rule) = self.decide(tool, &input)?;
        let result = if allowed {
            PermissionResult::allow(input)
        } else {
            PermissionResult::deny(format!(
                "Denied by the twinwire tap policy {}: rule {rule}",
                self.name
            ))
        };
        let payload = serde_json::to_value(&result).ok()?;
        let response = ControlResponse::success(request_id, Some(payload));
        let answer =
            serde_json::to_string(&InputMessage::ControlResponse(Box::new(response))).ok()?;
        Some(Decision { answer, rule })
    }

    /// `Some((allowed, rule))` when a pattern decides this call; deny wins.
    pub fn decide(&self, tool: &str, input: &Value) -> Option<(bool, String)> {
        match self.rules.decide(tool, input) {
            RuleDecision::Allow(rule) => Some((true, rule.to_string())),
            RuleDecision::Deny(rule) => Some((false, rule.to_string())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn policy() -> Policy {
        Policy::parse(
            "p.json",
            r#"{"allow": ["Read", "Bash(ls*)", "Bash(npm test:*)", "mcp__calc__*", "Write(/tmp/*)"],
                "deny": ["Bash(rm*)", "mcp__calc__div"]}"#,
        )
        .unwrap()
    }

    fn decide(tool: &str, input: Value) -> Option<bool> {
        policy().decide(tool, &input).map(|(allowed, _)| allowed)
    }

    #[test]
    fn names_globs_and_prefixes() {
        assert_eq!(
            decide("Read", json!({"file_path": "/etc/hosts"})),
            Some(true)
        );
        assert_eq!(decide("mcp__calc__add", json!({"a": 1})), Some(true));
        assert_eq!(decide("mcp__calc__div", json!({"a": 1})), Some(false));
        assert_eq!(decide("mcp__other__add", json!({})), None);
        assert_eq!(decide("Bash", json!({"command": "ls -la"})), Some(true));
        assert_eq!(decide("Bash", json!({"command": "rm -rf x"})), Some(false));
        assert_eq!(decide("Bash", json!({"command": "touch x"})), None);
        // `npm test` runs whatever the package's script says, so it may run what
        // `Bash(rm*)` denies: with that deny rule present the call goes to the host.
        assert_eq!(decide("Bash", json!({"command": "npm test"})), None);
        assert_eq!(decide("Bash", json!({"command": "npm testx"})), None);
        let without_deny = Policy::parse("p.json", r#"{"allow": ["Bash(npm test:*)"]}"#).unwrap();
        let npm = |command: &str| {
            without_deny
                .decide("Bash", &json!({ "command": command }))
                .map(|(allowed, _)| allowed)
        };
        assert_eq!(npm("npm test"), Some(true));
        assert_eq!(npm("npm test -- a"), Some(true));
        assert_eq!(npm("npm testx"), None);
        assert_eq!(decide("Write", json!({"file_path": "/tmp/a"})), Some(true));
        assert_eq!(decide("Write", json!({"file_path": "/etc/a"})), None);
    }

    #[test]
    fn compound_commands() {
        assert_eq!(
            decide("Bash", json!({"command": "ls && rm -rf /"})),
            Some(false)
        );
        assert_eq!(decide("Bash", json!({"command": "ls; touch x"})), None);
        assert_eq!(decide("Bash", json!({"command": "ls | ls -l"})), Some(true));
        assert_eq!(decide("Bash", json!({"command": "ls $(touch x)"})), None);
        assert_eq!(decide("Bash", json!({"command": "ls > /etc/passwd"})), None);
    }

    #[test]
    fn answers_are_control_responses() {
        let ask = json!({"type": "control_request", "request_id": "r1", "request": {
            "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": "rm x"}}});
        let decision = policy().decide_line(&ask.to_string()).unwrap();
        assert_eq!(decision.rule, "Bash(rm*)");
        let answer: Value = serde_json::from_str(&decision.answer).unwrap();
        assert_eq!(answer["type"], "control_response");
        assert_eq!(answer["response"]["request_id"], "r1");
        assert_eq!(answer["response"]["response"]["behavior"], "deny");
        let message = answer["response"]["response"]["message"].as_str().unwrap();
        assert!(message.contains("p.json") && message.contains("Bash(rm*)"));

        let ask = json!({"type": "control_request", "request_id": "r2", "request": {
            "subtype": "can_use_tool", "tool_name": "Read", "input": {"file_path": "a"}}});
        let answer: Value =
            serde_json::from_str(&policy().decide_line(&ask.to_string()).unwrap().answer).unwrap();
        assert_eq!(answer["response"]["response"]["behavior"], "allow");
        assert_eq!(
            answer["response"]["response"]["updatedInput"],
            json!({"file_path": "a"})
        );
        assert!(policy()
            .decide_line(r#"{"type":"user","x":"can_use_tool"}"#)
            .is_none());
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(Policy::parse("p", r#"{"alow": []}"#).is_err());
        assert!(Policy::parse("p", r#"{"allow": ["Bash(ls"]}"#).is_err());
    }
}
