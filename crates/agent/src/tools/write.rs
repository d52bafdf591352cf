//! `Write`: a whole file, as Claude Code writes it. A file the model has not seen may be
//! written (the permission asked covers it); one it has seen must not have changed on disk
//! since. A new file is 0644; an existing one keeps its mode.

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::files::write_whole;
use super::{schema, Tool, ToolContext, ToolOutput, IN_CONTEXT};

/// The `Write` tool.
pub struct Write;

impl Tool for Write {
    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> String {
        "Writes a whole file, creating it or replacing it. Give an absolute path. Read an \
         existing file first; to change part of one, use Edit. Do not create documentation \
         files unless asked."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::write().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::write().check("Write", input)
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        refusal(input, cx)
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || write(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("Write failed: {err}")))
        })
    }
}

/// Why the file may not be written, in Claude Code's words.
fn refusal(input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
    let path = cx
        .workspace
        .resolve(input["file_path"].as_str().unwrap_or_default());
    if path.is_dir() {
        return Some(ToolOutput::error(format!(
            "{} is a directory, not a file. To create a file inside it, include the file name in \
             file_path.",
            path.display()
        )));
    }
    if cx.workspace.files.changed(&path) {
        return Some(ToolOutput::error(
            "File has been modified since read, either by the user or by a linter. Read it again \
             before attempting to write it.",
        ));
    }
    None
}

fn write(input: &Value, cx: &ToolContext) -> ToolOutput {
    let given = input["file_path"].as_str().unwrap_or_default();
    let content = input["content"].as_str().unwrap_or_default();
    let path = cx.workspace.resolve(given);
    if let Some(refused) = refusal(input, cx) {
        return refused;
    }
    let original = std::fs::read_to_string(&path).ok();
    if let Err(why) = write_whole(&path, content) {
        return ToolOutput::failure(why);
    }
    cx.workspace.files.wrote(&path, content, true);
    let (kind, text) = match original {
        Some(_) => (
            "update",
            format!("The file {given} has been updated successfully.{IN_CONTEXT}"),
        ),
        None => (
            "create",
            format!("File created successfully at: {given}{IN_CONTEXT}"),
        ),
    };
    ToolOutput::success(
        text,
        json!({"type": kind, "filePath": path.display().to_string(), "content": content,
               "originalFile": original}),
    )
}
