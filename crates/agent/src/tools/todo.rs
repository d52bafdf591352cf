//! `TodoWrite`: the session's todo list, replaced whole on each call.

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::tools::TodoWriteInput;

use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The most items a list may hold.
const MAX_TODOS: usize = 1000;

/// The `TodoWrite` tool.
pub struct TodoWrite;

impl Tool for TodoWrite {
    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> String {
        "Keeps a todo list for the work at hand: send the whole updated list each time, with \
         each item `pending`, `in_progress` (one at a time) or `completed`."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::todo_write()
    }

    fn read_only(&self) -> bool {
        // It changes only the session's own list, nothing on disk.
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: TodoWriteInput = match typed_input("TodoWrite", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            let Some(items) = input.todos.as_array() else {
                return ToolOutput::error("todos must be a list");
            };
            if items.len() > MAX_TODOS {
                return ToolOutput::error(format!("at most {MAX_TODOS} todos"));
            }
            for item in items {
                let status = item["status"].as_str().unwrap_or_default();
                if item["content"].as_str().is_none_or(str::is_empty)
                    || !["pending", "in_progress", "completed"].contains(&status)
                {
                    return ToolOutput::error(format!(
                        "each todo needs `content` and a `status` of pending, in_progress or \
                         completed: {item}"
                    ));
                }
            }
            let old = cx.workspace.replace_todos(input.todos.clone());
            ToolOutput::success(
                "The todo list is updated. Keep it current as the work goes on.",
                json!({"oldTodos": old, "newTodos": input.todos}),
            )
        })
    }
}
