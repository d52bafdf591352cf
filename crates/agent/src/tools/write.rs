//! `Write`: a whole file. An existing file must have been read first and be unchanged since.

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::tools::FileWriteInput;

use super::files::write_whole;
use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The `Write` tool.
pub struct Write;

impl Tool for Write {
    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> String {
        "Writes a file whole, creating it and its directory if needed. An existing file must \
         be read with Read first; prefer Edit to change part of a file."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::write()
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: FileWriteInput = match typed_input("Write", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            tokio::task::spawn_blocking(move || write(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::error(format!("Write failed: {err}")))
        })
    }
}

fn write(input: &FileWriteInput, cx: &ToolContext) -> ToolOutput {
    let path = cx.workspace.resolve(&input.file_path);
    if path.is_dir() {
        return ToolOutput::error(format!("{} is a directory", path.display()));
    }
    if let Err(why) = cx.workspace.check_unchanged(&path) {
        return ToolOutput::error(why);
    }
    let existed = path.exists();
    if let Err(why) = write_whole(&path, &input.content) {
        return ToolOutput::error(why);
    }
    cx.workspace.mark_read(&path);
    let shown = path.display().to_string();
    let (kind, text) = if existed {
        ("update", format!("The file {shown} has been updated."))
    } else {
        ("create", format!("File created successfully at: {shown}"))
    };
    ToolOutput::success(
        text,
        json!({"type": kind, "filePath": shown, "content": input.content}),
    )
}
