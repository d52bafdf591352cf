//! `--policy FILE`: `can_use_tool` requests the tap answers itself.
//!
//! The file is JSON: `{"allow": ["Read", "Bash(ls*)", "mcp__calc__*"], "deny": ["Bash(rm*)"]}`.
//! A pattern is a tool name (`Read`), a glob over tool names (`*` any run of characters, `?`
//! one: `mcp__calc__*`), or a tool with a glob over its main argument in parentheses:
//! `Bash(ls*)` (the command starts with `ls`), `Bash(npm test:*)` (Claude Code's syntax: `npm
//! test` alone or followed by a space), `Write(/tmp/*)` (the file path). The main argument is
//! the input's `command`, else `file_path`, `path`, `url` or `pattern`.
//!
//! Deny wins. A Bash command is split at `&&`, `||`, `;`, `|`, `&` and newlines: it is denied
//! when any part matches a deny pattern, and allowed by a pattern with parentheses only when
//! every part matches one and it holds no substitution or redirection (`$(`, backquotes, `<(`,
//! `>(`, `>`, `<`). Anything no pattern decides goes to the host.

use std::path::Path;

use anyhow::{bail, Context};
use ccwire_protocol::control::ControlResponse;
use ccwire_protocol::permission::PermissionResult;
use ccwire_protocol::InputMessage;
use serde::Deserialize;
use serde_json::Value;

/// The rules of a policy file.
#[derive(Debug, Clone)]
pub struct Policy {
    /// The file's name, quoted in deny messages.
    name: String,
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
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
        let patterns = |list: Vec<String>| -> anyhow::Result<Vec<Pattern>> {
            list.iter().map(|p| Pattern::parse(p)).collect()
        };
        Ok(Self {
            name: name.to_owned(),
            allow: patterns(file.allow)?,
            deny: patterns(file.deny)?,
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
                "Denied by the ccwire tap policy {}: rule {rule}",
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
        let argument = main_argument(input);
        let parts = argument
            .filter(|_| tool == "Bash")
            .map(split_command)
            .unwrap_or_default();
        let matches_any = |patterns: &[Pattern], text: Option<&str>| {
            patterns.iter().find(|p| p.matches(tool, text)).cloned()
        };
        // Deny: the whole argument, or any part of a compound command.
        let denied = matches_any(&self.deny, argument).or_else(|| {
            parts
                .iter()
                .find_map(|part| matches_any(&self.deny, Some(part)))
        });
        if let Some(rule) = denied {
            return Some((false, rule.text));
        }
        // Allow: a bare tool pattern allows every call; a pattern on the argument needs every
        // part of a Bash command to match, and no substitution.
        if let Some(rule) = self
            .allow
            .iter()
            .find(|p| p.bare() && p.matches(tool, None))
        {
            return Some((true, rule.text.clone()));
        }
        if tool == "Bash" {
            let command = argument?;
            if has_substitution(command) {
                return None;
            }
            let mut rule = None;
            for part in &parts {
                rule = Some(matches_any(&self.allow, Some(part))?);
            }
            return rule.map(|rule| (true, rule.text));
        }
        matches_any(&self.allow, argument).map(|rule| (true, rule.text))
    }
}

/// One pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    text: String,
    tool: Vec<char>,
    content: Option<Content>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    Glob(Vec<char>),
    /// `prefix:*`: the argument is the prefix, or starts with it and a space.
    Word(String),
}

impl Pattern {
    fn parse(text: &str) -> anyhow::Result<Self> {
        let trimmed = text.trim();
        let (tool, content) = match trimmed.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    bail!("pattern {text:?}: missing the closing parenthesis");
                };
                let content = match inner.strip_suffix(":*") {
                    Some(word) => Content::Word(word.to_owned()),
                    None => Content::Glob(inner.chars().collect()),
                };
                (tool, Some(content))
            }
            None => (trimmed, None),
        };
        if tool.is_empty() {
            bail!("pattern {text:?}: no tool name");
        }
        Ok(Self {
            text: trimmed.to_owned(),
            tool: tool.chars().collect(),
            content,
        })
    }

    fn bare(&self) -> bool {
        self.content.is_none()
    }

    fn matches(&self, tool: &str, argument: Option<&str>) -> bool {
        if !glob(&self.tool, tool) {
            return false;
        }
        match (&self.content, argument) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(Content::Glob(pattern)), Some(arg)) => glob(pattern, arg.trim()),
            (Some(Content::Word(word)), Some(arg)) => {
                let arg = arg.trim();
                arg == word
                    || arg
                        .strip_prefix(word.as_str())
                        .is_some_and(|rest| rest.starts_with(' '))
            }
        }
    }
}

/// `*` matches any run of characters, `?` one.
fn glob(pattern: &[char], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                backtrack = Some((p + 1, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match backtrack {
                Some((after_star, from)) => {
                    p = after_star;
                    t = from + 1;
                    backtrack = Some((after_star, from + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// The argument a content pattern looks at.
fn main_argument(input: &Value) -> Option<&str> {
    ["command", "file_path", "path", "url", "pattern"]
        .iter()
        .find_map(|key| input.get(key).and_then(Value::as_str))
}

/// The parts of a compound shell command.
fn split_command(command: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' | '\n' | '|' | '&' => {
                if matches!((c, chars.peek()), ('|', Some('|')) | ('&', Some('&'))) {
                    chars.next();
                }
                parts.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|part| part.trim().to_owned())
        .filter(|part| !part.is_empty())
        .collect()
}

/// Whether a command runs other commands or writes files in ways its prefix does not show.
fn has_substitution(command: &str) -> bool {
    command.contains("$(")
        || command.contains('`')
        || command.contains('>')
        || command.contains('<')
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
        assert_eq!(decide("Bash", json!({"command": "npm test"})), Some(true));
        assert_eq!(
            decide("Bash", json!({"command": "npm test -- a"})),
            Some(true)
        );
        assert_eq!(decide("Bash", json!({"command": "npm testx"})), None);
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
