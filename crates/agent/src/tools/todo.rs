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
