//! `TodoWrite`: the session's todo list, replaced whole on each call. Claude Code 2.1.332
//! offers it only when its task tools are turned off (`CLAUDE_CODE_ENABLE_TASKS=false`);
//! otherwise a call is answered as a tool disabled for the session.

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::{schema, Tool, ToolContext, ToolOutput};

/// The `TodoWrite` tool.
pub struct TodoWrite;

/// What a call gets when the tool is off, as Claude Code says it.
pub const DISABLED: &str =
    "Error: No such tool available: TodoWrite. TodoWrite is disabled for this session, in \
     subagents as well as here.";

/// Whether the todo list is on: Claude Code turns it on when its task tools are off.
pub fn enabled(env: &std::collections::BTreeMap<String, String>) -> bool {
    env.get("CLAUDE_CODE_ENABLE_TASKS").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "off"
        )
    })
}

/// Turns (each block of a reply counts as one, as Claude Code counts them) since the list was
/// last written, and since the last reminder, before the model is reminded of the list.
const TURNS_SINCE_WRITE: usize = 10;
const TURNS_BETWEEN_REMINDERS: usize = 10;

/// What opens the reminder.
const REMINDER: &str = "The TodoWrite tool hasn't been used recently. If you're working on \
tasks that would benefit from tracking progress, consider using the TodoWrite tool to track \
progress. Also consider cleaning up the todo list if has become stale and no longer matches what \
you are working on. Only use it if it's relevant to the current work. This is just a gentle \
reminder - ignore if not applicable.\n";

/// The reminder of the todo list, when it is due: it has not been written, nor recalled,
/// for ten turns.
pub fn reminder(
    conversation: &[twinwire_protocol::content::MessageParam],
    todos: &Value,
) -> Option<String> {
    use twinwire_protocol::content::{ContentBlock, UserContent};
    if conversation.is_empty() {
        return None;
    }
    let mut since_write = 0;
    let mut since_reminder = 0;
    let (mut written, mut reminded) = (false, false);
    for message in conversation.iter().rev() {
        match (message.role.as_str(), &message.content) {
            ("assistant", UserContent::Blocks(blocks)) => {
                for block in blocks.iter().rev() {
                    if !written {
                        if matches!(block, ContentBlock::ToolUse(call) if call.name == "TodoWrite")
                        {
                            written = true;
                        } else {
                            since_write += 1;
                        }
                    }
                    if !reminded {
                        since_reminder += 1;
                    }
                }
            }
            ("system", UserContent::Text(text)) if text.starts_with(REMINDER) => reminded = true,
            _ => {}
        }
        if written && reminded {
            break;
        }
    }
    if since_write < TURNS_SINCE_WRITE || since_reminder < TURNS_BETWEEN_REMINDERS {
        return None;
    }
    let items: Vec<String> = todos
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, item)| {
            format!(
                "{}. [{}] {}",
                i + 1,
                item["status"].as_str().unwrap_or_default(),
                item["content"].as_str().unwrap_or_default()
            )
        })
        .collect();
    Some(if items.is_empty() {
        REMINDER.to_owned()
    } else {
        format!(
            "{REMINDER}\nHere are the existing contents of your todo list:\n[{}]",
            items.join("\n")
        )
    })
}

impl Tool for TodoWrite {
    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> String {
        "Keeps a todo list for the work at hand, which the user sees as it changes. Use it \
         for work of several steps or several requests: write the steps down, mark one \
         in_progress before starting it (one at a time) and completed as soon as it is done, \
         and add what you find along the way. Skip it for a single quick task. Send the whole \
         list each time; each item has content (the imperative: \"Run the tests\"), activeForm \
         (what is shown while it runs: \"Running the tests\") and a status."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::todo_write().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::todo_write().check("TodoWrite", input)
    }

    fn read_only(&self) -> bool {
        // It changes only the session's own list, nothing on disk.
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let todos = input["todos"].clone();
            let old = cx.workspace.replace_todos(todos.clone());
            ToolOutput::success(
                "Todos have been modified successfully. Ensure that you continue to use the todo \
                 list to track your progress. Please proceed with the current tasks if applicable",
                json!({"oldTodos": old, "newTodos": todos}),
            )
        })
    }
}
