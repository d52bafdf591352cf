//! `Edit`: one exact replacement in a file (or every one, with `replace_all`). The text to
//! replace must occur exactly once unless `replace_all`; the file must have been read and be
//! unchanged since; an empty `old_string` creates a file that does not exist yet.

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::tools::FileEditInput;

use super::files::{check_file, snippet, write_whole};
use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The `Edit` tool.
pub struct Edit;

impl Tool for Edit {
    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> String {
        "Replaces exact text in a file. `old_string` must occur exactly once (give enough \
         surrounding text to make it unique) unless `replace_all` is true. Read the file \
         first. An empty `old_string` creates a new file holding `new_string`."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::edit()
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: FileEditInput = match typed_input("Edit", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            tokio::task::spawn_blocking(move || edit(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::error(format!("Edit failed: {err}")))
        })
    }
}

fn edit(input: &FileEditInput, cx: &ToolContext) -> ToolOutput {
    let path = cx.workspace.resolve(&input.file_path);
    let shown = path.display().to_string();
    let replace_all = input.replace_all.unwrap_or(false);
    if input.old_string == input.new_string {
        return ToolOutput::error(
            "No changes to make: old_string and new_string are exactly the same.",
        );
    }
    if input.old_string.is_empty() {
        if path.exists() {
            return ToolOutput::error(format!(
                "Cannot create {shown}: it already exists (give the text to replace)."
            ));
        }
        if let Err(why) = write_whole(&path, &input.new_string) {
            return ToolOutput::error(why);
        }
        cx.workspace.mark_read(&path);
        return ToolOutput::success(
            format!("File created successfully at: {shown}"),
            json!({"filePath": shown, "oldString": "", "newString": input.new_string,
                   "replaceAll": false, "originalFile": null}),
        );
    }
    if let Err(why) = check_file(&path, cx.workspace.limits.file_bytes) {
        return ToolOutput::error(why);
    }
    if let Err(why) = cx.workspace.check_unchanged(&path) {
        return ToolOutput::error(why);
    }
    let original = match std::fs::read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return ToolOutput::error(format!("{shown} is not UTF-8 text")),
        },
        Err(err) => return ToolOutput::error(format!("{shown}: {err}")),
    };
    let found = original.matches(&input.old_string).count();
    if found == 0 {
        return ToolOutput::error(format!(
            "String to replace not found in file.\nString: {}",
            input.old_string
        ));
    }
    if found > 1 && !replace_all {
        return ToolOutput::error(format!(
            "Found {found} matches of the string to replace, but replace_all is false. To \
             replace all occurrences, set replace_all to true. To replace only one \
             occurrence, give more context to make it unique.\nString: {}",
            input.old_string
        ));
    }
    let first = original.find(&input.old_string).unwrap_or(0);
    let updated = if replace_all {
        original.replace(&input.old_string, &input.new_string)
    } else {
        original.replacen(&input.old_string, &input.new_string, 1)
    };
    if let Err(why) = write_whole(&path, &updated) {
        return ToolOutput::error(why);
    }
    cx.workspace.mark_read(&path);
    let text = if replace_all {
        format!("The file {shown} has been updated. All {found} occurrences were replaced.")
    } else {
        format!(
            "The file {shown} has been updated. Here are the lines around the change:\n{}",
            snippet(&updated, first, 4)
        )
    };
    ToolOutput::success(
        text,
        json!({"filePath": shown, "oldString": input.old_string, "newString": input.new_string,
               "replaceAll": replace_all, "originalFile": original}),
    )
}
