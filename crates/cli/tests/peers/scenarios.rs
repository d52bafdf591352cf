//! The scenarios, as the suite's side of them: what the model server answers in mode (a),
//! what `fake-claude` plays in mode (b), and what mode (a) can check beyond the SDK's own
//! checks (files the real tools made or did not make, what reached the model). The SDK side
//! is in `peers/python/scenarios.py` and `peers/node/scenarios.mjs`; prompts, replies and
//! messages must agree with them.

use std::path::Path;

use serde_json::{json, Value};
use twinwire_model_server::{request_tool_results, ModelScript};

/// What the deny callback says.
const DENIAL: &str = "not on my watch";
/// The reason the PreToolUse hook denies with.
const HOOK_REASON: &str = "the hook says no shell";
/// The context the UserPromptSubmit hook adds.
const HOOK_CONTEXT: &str = "context from the UserPromptSubmit hook: 7f3a";

/// A scenario, by the name both scenario programs take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    Text,
    PermissionAllow,
    PermissionDeny,
    Hooks,
    Mcp,
    Interrupt,
    ThreeTurns,
    /// Three processes: a query, one that resumes its session, one that forks it; then the
    /// SDK's session functions. Runs in modes (a) and (e) only: `fake-claude` keeps no
    /// sessions, and a replay plays one process.
    Resume,
}

impl Scenario {
    pub fn from_name(name: &str) -> Self {
        match name {
            "text" => Self::Text,
            "permission_allow" => Self::PermissionAllow,
            "permission_deny" => Self::PermissionDeny,
            "hooks" => Self::Hooks,
            "mcp" => Self::Mcp,
            "interrupt" => Self::Interrupt,
            "three_turns" => Self::ThreeTurns,
            "resume" => Self::Resume,
            other => panic!("no scenario `{other}`"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::PermissionAllow => "permission_allow",
            Self::PermissionDeny => "permission_deny",
            Self::Hooks => "hooks",
            Self::Mcp => "mcp",
            Self::Interrupt => "interrupt",
            Self::ThreeTurns => "three_turns",
            Self::Resume => "resume",
        }
    }

    /// How many times the SDK starts its CLI in this scenario.
    pub fn spawns(self) -> usize {
        match self {
            Self::Resume => 3,
            _ => 1,
        }
    }

    /// The model's side in mode (a): rules on the request's content (see docs/model-server.md).
    pub fn model_script(self) -> ModelScript {
        let text = |text: &str| json!({"text": text});
        let bash = |command: &str| {
            json!({"tool_use": {"name": "Bash", "text": "Running it.",
                                "input": {"command": command, "description": "Make a file"}}})
        };
        let rules = match self {
            Self::Text => json!([
                {"when": {"last_user_text_contains": "say hello"},
                 "reply": text("Hello from the model.")}
            ]),
            Self::PermissionAllow => json!([
                {"when": {"last_is_tool_result": true}, "reply": text("done")},
                {"when": {"last_user_text_contains": "run the command"},
                 "reply": bash("touch allowed.txt")}
            ]),
            Self::PermissionDeny => json!([
                {"when": {"last_is_tool_result": true}, "reply": text("done")},
                {"when": {"last_user_text_contains": "run the command"},
                 "reply": bash("touch denied.txt")}
            ]),
            Self::Hooks => json!([
                {"when": {"last_is_tool_result": true}, "reply": text("hooks done")},
                {"when": {"last_user_text_contains": "use the shell"},
                 "reply": {"tool_use": {"name": "Bash", "input": {"command": "touch hooked.txt"}}}}
            ]),
            Self::Mcp => json!([
                {"when": {"tool_result_contains": "sum=42"}, "reply": text("the sum is 42")},
                {"when": {"last_is_tool_result": true}, "reply": text("wrong tool result")},
                {"when": {"last_user_text_contains": "add them"},
                 "reply": {"tool_use": {"name": "mcp__calc__add", "input": {"a": 2, "b": 40}}}}
            ]),
            // 40 pieces 100 ms apart: the SDK interrupts at the first.
            Self::Interrupt => json!([
                {"when": {"last_user_text_contains": "tell a long story"},
                 "reply": {"slow_text": {"text": STORY, "deltas": 40, "delay_ms": 100}}},
                {"when": {"last_user_text_contains": "short one"}, "reply": text("the end")}
            ]),
            Self::ThreeTurns => json!([
                {"when": {"last_user_text_contains": "first question"}, "reply": text("one")},
                {"when": {"last_user_text_contains": "second question"}, "reply": text("two")},
                {"when": {"last_user_text_contains": "third question"}, "reply": text("three")}
            ]),
            // The answers after the first need the earlier conversation in the request.
            Self::Resume => json!([
                {"when": {"last_user_text_contains": "remember the word PELICAN"},
                 "reply": text("noted")},
                {"when": {"all": [{"last_user_text_contains": "what was the word?"},
                                  {"conversation_contains": "remember the word PELICAN"}]},
                 "reply": text("the word was PELICAN")},
                {"when": {"all": [{"last_user_text_contains": "fork question"},
                                  {"conversation_contains": "the word was PELICAN"}]},
                 "reply": text("forked with PELICAN")}
            ]),
        };
        serde_json::from_value(
            json!({"rules": rules, "default": text("unexpected"), "model": null}),
        )
        .expect("a valid model script")
    }

    /// The fake's script in mode (b) (format: crates/testkit/src/script.rs): the same
    /// conversation as the real CLI has with the model script.
    pub fn fake_script(self) -> Value {
        let bash = |command: &str| {
            json!({"tool": {"name": "Bash", "ask": true, "output": "",
                            "input": {"command": command, "description": "Make a file"}}})
        };
        let turns = match self {
            Self::Text => json!([{"steps": [{"text": "Hello from the model."}]}]),
            Self::PermissionAllow => {
                json!([{"steps": [{"text": "Running it."}, bash("touch allowed.txt"), {"text": "done"}]}])
            }
            Self::PermissionDeny => {
                json!([{"steps": [{"text": "Running it."}, bash("touch denied.txt"), {"text": "done"}]}])
            }
            Self::Hooks => json!([{"steps": [
                {"hook": {"event": "UserPromptSubmit", "input": {"prompt": "{{prompt}}"}}},
                {"tool": {"name": "Bash", "ask": true, "output": "",
                          "input": {"command": "touch hooked.txt"}}},
                {"text": "hooks done"}
            ]}]),
            Self::Mcp => json!([{"steps": [
                {"mcp_call": {"server": "calc", "tool": "add", "arguments": {"a": 2, "b": 40}}},
                {"text": "the sum is 42"}
            ]}]),
            Self::Interrupt => json!([
                {"steps": [{"stream": {"text": STORY, "deltas": 40, "delay_ms": 100}}]},
                {"steps": [{"text": "the end"}]}
            ]),
            Self::ThreeTurns => json!([
                {"steps": [{"text": "one"}]},
                {"steps": [{"text": "two"}]},
                {"steps": [{"text": "three"}]}
            ]),
            // Not run in mode (b) (see the variant): one process's first turn.
            Self::Resume => json!([{"steps": [{"text": "noted"}]}]),
        };
        json!({ "turns": turns })
    }

    /// What mode (a) checks beyond the SDK: the real tools' effects in `work`, and what the
    /// CLI told the model (`requests`: the bodies of its `POST /v1/messages`).
    pub fn effects(self, work: &Path, requests: &[Value]) -> Result<(), String> {
        let all = Value::from(requests.to_vec()).to_string();
        let results: Vec<String> = requests.iter().map(request_tool_results).collect();
        let told = |needle: &str| results.iter().any(|r| r.contains(needle));
        let expect = |holds: bool, what: &str| {
            if holds {
                Ok(())
            } else {
                Err(format!(
                    "{what} (model requests: {})",
                    crate::world::tail(&all, 3000)
                ))
            }
        };
        match self {
            Self::Text | Self::ThreeTurns | Self::Interrupt => {
                expect(!requests.is_empty(), "the CLI asked the model")
            }
            Self::PermissionAllow => {
                expect(work.join("allowed.txt").is_file(), "Bash made allowed.txt")?;
                expect(
                    results
                        .iter()
                        .any(|r| !r.is_empty() && !r.contains("\"is_error\":true")),
                    "the tool's success reached the model",
                )
            }
            Self::PermissionDeny => {
                expect(!work.join("denied.txt").exists(), "no denied.txt")?;
                expect(told(DENIAL), "the denial message reached the model")
            }
            Self::Hooks => {
                expect(!work.join("hooked.txt").exists(), "no hooked.txt")?;
                expect(told(HOOK_REASON), "the hook's reason reached the model")?;
                expect(
                    all.contains(HOOK_CONTEXT),
                    "the prompt hook's context reached the model",
                )
            }
            Self::Mcp => expect(told("sum=42"), "the MCP tool's output reached the model"),
            Self::Resume => {
                let asked = |prompt: &str, earlier: &[&str]| {
                    requests.iter().any(|request| {
                        let conversation = request["messages"].to_string();
                        conversation.contains(prompt)
                            && earlier.iter().all(|text| conversation.contains(text))
                    })
                };
                expect(
                    asked(
                        "what was the word?",
                        &["remember the word PELICAN", "noted"],
                    ),
                    "the resumed turn's request carries the first prompt and reply",
                )?;
                expect(
                    asked(
                        "fork question",
                        &["remember the word PELICAN", "the word was PELICAN"],
                    ),
                    "the forked turn's request carries the session's history",
                )
            }
        }
    }
}

/// The text the model streams in the interrupt scenario.
const STORY: &str = "once upon a time there was a very long story that went on and on";
