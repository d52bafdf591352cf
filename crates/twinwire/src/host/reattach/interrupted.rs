//! The tool uses a crash cut off: asked for by the model in the session's last turn, with no
//! result in the transcript. They may have run, in part or whole: they are reported, never
//! run again.

use serde_json::Value;

use crate::sessions::SessionMessage;

/// A tool use that was in flight when the host died: the model asked for it and no result was
/// recorded. It may have run, in part or whole (its effects are the caller's to check); the
/// resumed session does not run it again.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct InterruptedToolUse {
    /// The tool use's id.
    pub tool_use_id: String,
    /// The tool.
    pub name: String,
    /// Its input, as the model gave it.
    pub input: Value,
}

/// The tool uses of the main thread's last turn that have no result: walking the conversation
/// oldest first, a result settles its use, and a prompt (a user message that is not only tool
/// results) starts a new turn, leaving what came before it behind.
pub(crate) fn unanswered(messages: &[SessionMessage]) -> Vec<InterruptedToolUse> {
    let mut open: Vec<InterruptedToolUse> = Vec::new();
    for message in messages.iter().filter(|m| m.parent_tool_use_id.is_none()) {
        let blocks = message
            .message
            .get("content")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        match message.kind.as_str() {
            "assistant" => {
                for block in blocks {
                    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
                        continue;
                    }
                    let text = |key: &str| block.get(key).and_then(Value::as_str);
                    if let (Some(id), Some(name)) = (text("id"), text("name")) {
                        open.retain(|u| u.tool_use_id != id);
                        open.push(InterruptedToolUse {
                            tool_use_id: id.to_owned(),
                            name: name.to_owned(),
                            input: block.get("input").cloned().unwrap_or(Value::Null),
                        });
                    }
                }
            }
            "user" => {
                let results: Vec<&str> = blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
                    .collect();
                if results.is_empty() && !is_meta(message) {
                    open.clear();
                }
                open.retain(|u| !results.contains(&u.tool_use_id.as_str()));
            }
            _ => {}
        }
    }
    open
}

/// An entry the CLI wrote for itself (a note, a command's output), not a prompt.
fn is_meta(message: &SessionMessage) -> bool {
    ["is_meta", "isMeta"]
        .iter()
        .any(|key| message.extra.get(*key).and_then(Value::as_bool) == Some(true))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(kind: &str, content: Value) -> SessionMessage {
        serde_json::from_value(json!({
            "type": kind, "uuid": "u", "session_id": "s",
            "message": {"role": kind, "content": content},
            "parent_tool_use_id": null, "parent_agent_id": null
        }))
        .unwrap()
    }

    fn tool_use(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "true"}})
    }

    fn result(id: &str) -> Value {
        json!({"type": "tool_result", "tool_use_id": id, "content": "ok"})
    }

    #[test]
    fn only_the_last_turns_uses_without_a_result_are_interrupted() {
        let messages = [
            message("user", json!("first")),
            message("assistant", json!([tool_use("a")])),
            message("user", json!([result("a")])),
            message("assistant", json!([tool_use("b"), tool_use("c")])),
            message("user", json!([result("b")])),
        ];
        let open = unanswered(&messages);
        assert_eq!(
            open.iter()
                .map(|u| u.tool_use_id.as_str())
                .collect::<Vec<_>>(),
            ["c"]
        );
        assert_eq!(open[0].input, json!({"command": "true"}));
    }

    #[test]
    fn a_later_prompt_leaves_an_older_turn_behind() {
        let messages = [
            message("user", json!("first")),
            message("assistant", json!([tool_use("a")])),
            message("user", json!([{"type": "text", "text": "next"}])),
            message("assistant", json!([{"type": "text", "text": "hi"}])),
        ];
        assert!(unanswered(&messages).is_empty());
    }
}
