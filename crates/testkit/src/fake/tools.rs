//! Tool uses (with PreToolUse / PostToolUse hooks and `can_use_tool`) and hook steps.

use serde_json::{json, Map, Value};
use twinwire::protocol::content::{ContentBlock, ToolResultContent, ToolUseBlock};
use twinwire::protocol::control::RequestId;
use twinwire::protocol::permission::PermissionDenial;
use twinwire::protocol::Message;

use super::frames;
use super::io::{hex, uuid};
use super::pending::Answer;
use super::steps::Runner;
use crate::script::{HookStep, McpCallStep, ToolStep};

/// A tool use the model makes.
pub(super) struct ToolCall {
    pub(super) name: String,
    pub(super) input: Value,
    pub(super) id: String,
    pub(super) ask: bool,
    pub(super) suggestions: Vec<Value>,
    pub(super) mcp_server: Option<String>,
}

/// How the tool runs once allowed.
pub(super) enum ToolRun<'a> {
    /// A built-in tool: its scripted output (and the input it was scripted with).
    Scripted(&'a ToolStep, Value),
    /// A tool of an SDK MCP server: `tools/call` over the control channel (with the tool use
    /// id).
    Mcp(&'a McpCallStep, String),
}

/// What running the tool produced.
pub(super) struct ToolOutcome {
    pub(super) content: Value,
    pub(super) is_error: bool,
    pub(super) tool_use_result: Value,
}

/// Whether the tool may run.
enum Verdict {
    Allow { input: Value, source: &'static str },
    Deny { message: String, interrupt: bool },
    Interrupted,
}

/// What PreToolUse hooks decided, strongest last.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum HookDecision {
    None,
    Allow,
    Ask,
    Deny,
}

const INTERRUPTED_FOR_TOOL: &str = "[Request interrupted by user for tool use]";

impl Runner {
    /// Call every registered callback of `event` whose matcher accepts `target`, in order.
    async fn run_hooks(
        &mut self,
        event: &str,
        target: Option<&str>,
        fields: Map<String, Value>,
        tool_use_id: Option<&str>,
    ) -> Vec<(String, Answer)> {
        let matchers = self
            .shared
            .state()
            .hooks
            .get(event)
            .cloned()
            .unwrap_or_default();
        let mut input = self.hook_input(event);
        input.extend(fields);
        let mut answers = Vec::new();
        for matcher in matchers
            .iter()
            .filter(|m| matcher_accepts(m.matcher.as_deref(), target))
        {
            for callback_id in &matcher.callback_ids {
                let mut request = Map::new();
                request.insert("subtype".into(), json!("hook_callback"));
                request.insert("callback_id".into(), json!(callback_id));
                request.insert("input".into(), Value::Object(input.clone()));
                request.insert(
                    "tool_use_id".into(),
                    json!(tool_use_id.map_or_else(uuid, str::to_string)),
                );
                let pending = self.send_request(request).await;
                let timeout = matcher
                    .timeout
                    .unwrap_or(self.shared.config.request_timeout);
                let (_, answer) = self.await_answer(pending, timeout, false).await;
                answers.push((callback_id.clone(), answer));
            }
        }
        answers
    }

    /// The fields every hook input carries.
    fn hook_input(&self, event: &str) -> Map<String, Value> {
        let config = &self.shared.config;
        let project = config.cwd.replace(['/', '.'], "-");
        let transcript = format!(
            "{}/.claude/projects/{project}/{}.jsonl",
            config.home, config.session_id
        );
        let mode = self.shared.state().permission_mode.clone();
        let mut input = Map::new();
        input.insert("session_id".into(), json!(config.session_id));
        input.insert("transcript_path".into(), json!(transcript));
        input.insert("cwd".into(), json!(config.cwd));
        input.insert("permission_mode".into(), json!(mode));
        input.insert("hook_event_name".into(), json!(event));
        input
    }

    /// Run the hooks of an event the fake fires by itself (`auto_hooks`); answers are ignored.
    pub(crate) async fn auto_hook(&mut self, event: &str, fields: Value) {
        let fields = match fields {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        self.run_hooks(event, None, fields, None).await;
    }

    /// The `hook` step: call the callbacks, report each answer as `system/fake_hook_answer`.
    pub(super) async fn hook(&mut self, step: &HookStep) {
        let fields: Map<String, Value> = step
            .input
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => (k.clone(), json!(s.replace("{{prompt}}", &self.prompt))),
                other => (k.clone(), other.clone()),
            })
            .collect();
        let target = fields
            .get("tool_name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let tool_use_id = step.tool_use_id.as_deref();
        let answers = self
            .run_hooks(&step.event, target.as_deref(), fields, tool_use_id)
            .await;
        for (callback_id, answer) in answers {
            let (outcome, output, response) = match answer {
                Answer::Response(r) if is_success(&r) => {
                    let output = r.get("response").cloned().unwrap_or(Value::Null);
                    ("success", output, r)
                }
                Answer::Response(r) => ("error", Value::Null, r),
                Answer::TimedOut => ("timeout", Value::Null, Value::Null),
                Answer::Closed => ("closed", Value::Null, Value::Null),
                Answer::Interrupted => ("interrupted", Value::Null, Value::Null),
            };
            let fields = json!({
                "hook_id": callback_id,
                "hook_name": step.event,
                "hook_event": step.event,
                "outcome": outcome,
                "output": output,
                "response": response
            });
            self.emit(&frames::notice(&self.meta(), "fake_hook_answer", fields));
        }
    }

    /// The `tool` step.
    pub(super) async fn tool(&mut self, step: &ToolStep) {
        let input = match &step.input {
            Value::Null => json!({}),
            other => other.clone(),
        };
        let suggestions = step
            .suggestions
            .clone()
            .unwrap_or_else(|| default_suggestions(&step.name, &input));
        let call = ToolCall {
            name: step.name.clone(),
            input: input.clone(),
            id: step.id.clone().unwrap_or_else(new_tool_use_id),
            ask: step.ask,
            suggestions,
            mcp_server: None,
        };
        self.tool_use(call, ToolRun::Scripted(step, input)).await;
    }

    /// Run an allowed tool.
    async fn run_tool(&mut self, run: ToolRun<'_>, final_input: &Value) -> ToolOutcome {
        let (step, input) = match run {
            ToolRun::Scripted(step, input) => (step, input),
            ToolRun::Mcp(step, id) => return self.mcp_tool(step, &id, final_input).await,
        };
        let text = if *final_input == input {
            step.output.clone()
        } else {
            format!("ran with input: {final_input}")
        };
        let tool_use_result = if step.is_error {
            json!(format!("Error: {text}"))
        } else if step.name == "Bash" {
            json!({"stdout": text, "stderr": "", "interrupted": false,
                   "isImage": false, "noOutputExpected": false})
        } else {
            json!(text)
        };
        ToolOutcome {
            content: json!(text),
            is_error: step.is_error,
            tool_use_result,
        }
    }

    /// A tool use: the assistant frame, PreToolUse hooks, the permission prompt, the tool,
    /// PostToolUse hooks, the tool result.
    pub(super) async fn tool_use(&mut self, call: ToolCall, run: ToolRun<'_>) {
        let (msg_id, request_id) = self.message();
        let block = ContentBlock::ToolUse(ToolUseBlock {
            id: call.id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
            ..ToolUseBlock::default()
        });
        let frame = frames::assistant(&self.meta(), &msg_id, &request_id, block);
        self.emit(&Message::Assistant(Box::new(frame)));
        match self.pre_tool_use(&call).await {
            Verdict::Interrupted => {
                self.end_message();
                self.abort("aborted_tools", INTERRUPTED_FOR_TOOL);
            }
            Verdict::Deny { message, interrupt } => {
                let frame = frames::tool_result(
                    &self.meta(),
                    &call.id,
                    ToolResultContent::Text(message.clone()),
                    true,
                    json!(format!("Error: {message}")),
                    json!({"decision": "reject", "source": "user_reject"}),
                );
                self.emit(&frame);
                self.denials.push(PermissionDenial {
                    tool_name: call.name.clone(),
                    tool_use_id: call.id.clone(),
                    tool_input: call.input.clone(),
                    extra: Map::new(),
                });
                self.end_message();
                if interrupt {
                    self.abort("aborted_tools", INTERRUPTED_FOR_TOOL);
                }
            }
            Verdict::Allow { input, source } => {
                let outcome = self.run_tool(run, &input).await;
                let mut fields = Map::new();
                fields.insert("tool_name".into(), json!(call.name));
                fields.insert("tool_input".into(), input);
                fields.insert("tool_response".into(), outcome.tool_use_result.clone());
                fields.insert("tool_use_id".into(), json!(call.id));
                self.run_hooks("PostToolUse", Some(&call.name), fields, Some(&call.id))
                    .await;
                let frame = frames::tool_result(
                    &self.meta(),
                    &call.id,
                    content(outcome.content),
                    outcome.is_error,
                    outcome.tool_use_result,
                    json!({"decision": "accept", "source": source}),
                );
                self.emit(&frame);
                self.end_message();
            }
        }
    }

    /// PreToolUse hooks, then `can_use_tool` if asked for.
    async fn pre_tool_use(&mut self, call: &ToolCall) -> Verdict {
        let mut fields = Map::new();
        fields.insert("tool_name".into(), json!(call.name));
        fields.insert("tool_input".into(), call.input.clone());
        fields.insert("tool_use_id".into(), json!(call.id));
        let answers = self
            .run_hooks("PreToolUse", Some(&call.name), fields, Some(&call.id))
            .await;
        let mut input = call.input.clone();
        let mut decision = HookDecision::None;
        let mut reason = None;
        for (_, answer) in answers {
            let Answer::Response(response) = answer else {
                continue;
            };
            let Some(output) = response.get("response").filter(|_| is_success(&response)) else {
                continue;
            };
            if let Some(specific) = output.get("hookSpecificOutput") {
                if let Some(updated) = specific.get("updatedInput") {
                    input = updated.clone();
                }
                let said = match specific.get("permissionDecision").and_then(Value::as_str) {
                    Some("deny") => HookDecision::Deny,
                    Some("ask") => HookDecision::Ask,
                    Some("allow") => HookDecision::Allow,
                    _ => HookDecision::None,
                };
                if said > decision {
                    decision = said;
                    reason = specific
                        .get("permissionDecisionReason")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
            }
            if output.get("decision").and_then(Value::as_str) == Some("block") {
                decision = HookDecision::Deny;
                reason = output
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
        }
        match decision {
            HookDecision::Deny => Verdict::Deny {
                message: reason.unwrap_or_else(|| "Blocked by PreToolUse hook".into()),
                interrupt: false,
            },
            HookDecision::Allow => Verdict::Allow {
                input,
                source: "hook",
            },
            HookDecision::Ask => self.ask_unless_mode(call, input).await,
            HookDecision::None if call.ask => self.ask_unless_mode(call, input).await,
            HookDecision::None => Verdict::Allow {
                input,
                source: "config",
            },
        }
    }

    /// The permission mode may settle the question: `bypassPermissions` allows, `dontAsk`
    /// denies; otherwise ask the host.
    async fn ask_unless_mode(&mut self, call: &ToolCall, input: Value) -> Verdict {
        let mode = self.shared.state().permission_mode.clone();
        match mode.as_str() {
            "bypassPermissions" => Verdict::Allow {
                input,
                source: "mode",
            },
            "dontAsk" => Verdict::Deny {
                message: format!("Permission to use {} was denied (dontAsk mode)", call.name),
                interrupt: false,
            },
            _ => self.ask(call, input).await,
        }
    }

    /// `can_use_tool`: ask the host and wait (interruptible, with the permission timeout).
    async fn ask(&mut self, call: &ToolCall, input: Value) -> Verdict {
        let mut request = Map::new();
        request.insert("subtype".into(), json!("can_use_tool"));
        request.insert("tool_name".into(), json!(call.name));
        request.insert("display_name".into(), json!(call.name));
        request.insert("input".into(), input.clone());
        if let Some(description) = input.get("description").and_then(Value::as_str) {
            request.insert("description".into(), json!(description));
        }
        if let Some(server) = &call.mcp_server {
            request.insert(
                "mcp_server".into(),
                json!({"name": server, "source": "sdk"}),
            );
        }
        request.insert("permission_suggestions".into(), json!(call.suggestions));
        request.insert("tool_use_id".into(), json!(call.id));
        self.shared.session_state(&self.session, "requires_action");
        let pending = self.send_request(request).await;
        let timeout = self.shared.config.request_timeout;
        let (id, answer) = self.await_answer(pending, timeout, true).await;
        self.shared.session_state(&self.session, "running");
        let cancel = RequestId::Text(id.clone());
        match answer {
            Answer::Response(response) if is_success(&response) => {
                let payload = response.get("response").cloned().unwrap_or(Value::Null);
                match payload.get("behavior").and_then(Value::as_str) {
                    Some("allow") => Verdict::Allow {
                        input: payload.get("updatedInput").cloned().unwrap_or(input),
                        source: "user_temporary",
                    },
                    Some("deny") => Verdict::Deny {
                        message: payload
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("Permission denied")
                            .to_string(),
                        interrupt: payload.get("interrupt").and_then(Value::as_bool) == Some(true),
                    },
                    _ => Verdict::Deny {
                        message: format!("unrecognized permission answer: {payload}"),
                        interrupt: false,
                    },
                }
            }
            Answer::Response(response) => Verdict::Deny {
                message: response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("permission request failed")
                    .to_string(),
                interrupt: false,
            },
            Answer::TimedOut => {
                let _ = self.session.withdraw(&cancel);
                Verdict::Deny {
                    message: "Permission request timed out".into(),
                    interrupt: false,
                }
            }
            Answer::Closed => Verdict::Deny {
                message: "Stream closed".into(),
                interrupt: false,
            },
            Answer::Interrupted => {
                let _ = self.session.withdraw(&cancel);
                Verdict::Interrupted
            }
        }
    }
}

/// A tool result reporting a failure.
pub(super) fn failed(message: &str) -> ToolOutcome {
    ToolOutcome {
        content: json!(message),
        is_error: true,
        tool_use_result: json!(format!("Error: {message}")),
    }
}

/// Whether a control response is a success.
pub(super) fn is_success(response: &Value) -> bool {
    response.get("subtype").and_then(Value::as_str) == Some("success")
}

/// A fresh `toolu_fake_…` id.
pub(super) fn new_tool_use_id() -> String {
    format!("toolu_fake_{}", hex(16))
}

fn default_suggestions(name: &str, input: &Value) -> Vec<Value> {
    let mut rule = Map::new();
    rule.insert("toolName".into(), json!(name));
    if let Some(command) = input.get("command").and_then(Value::as_str) {
        rule.insert("ruleContent".into(), json!(command));
    }
    vec![
        json!({"type": "addRules", "rules": [rule], "behavior": "allow",
                "destination": "localSettings"}),
    ]
}

/// Hook matchers, regex-ish: null, `""`, `*` and `.*` match everything; `A|B` alternatives;
/// a trailing `*` or `.*` matches a prefix; otherwise the exact tool name. Events without a
/// tool (no `target`) match every matcher.
fn matcher_accepts(matcher: Option<&str>, target: Option<&str>) -> bool {
    let (Some(matcher), Some(target)) = (matcher.map(str::trim), target) else {
        return true;
    };
    matcher.is_empty()
        || matcher.split('|').map(str::trim).any(|alt| {
            alt == "*"
                || alt == target
                || alt
                    .strip_suffix(".*")
                    .or_else(|| alt.strip_suffix('*'))
                    .is_some_and(|prefix| target.starts_with(prefix))
        })
}

/// A tool's content as the result block carries it (text, or blocks as the script gives them).
fn content(value: Value) -> ToolResultContent {
    match value {
        Value::String(text) => ToolResultContent::Text(text),
        other => serde_json::from_value(other.clone())
            .unwrap_or_else(|_| ToolResultContent::Text(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::matcher_accepts;

    #[test]
    fn matchers() {
        assert!(matcher_accepts(None, Some("Bash")));
        assert!(matcher_accepts(Some(""), Some("Bash")));
        assert!(matcher_accepts(Some("*"), Some("Bash")));
        assert!(matcher_accepts(Some(".*"), Some("Bash")));
        assert!(matcher_accepts(Some("Bash"), Some("Bash")));
        assert!(!matcher_accepts(Some("Bash"), Some("Write")));
        assert!(matcher_accepts(Some("Write|Bash"), Some("Bash")));
        assert!(matcher_accepts(
            Some("mcp__calc__.*"),
            Some("mcp__calc__add")
        ));
        assert!(!matcher_accepts(Some("mcp__calc__.*"), Some("Bash")));
        assert!(matcher_accepts(Some("Bash"), None));
    }
}
