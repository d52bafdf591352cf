//! `Edit`: one exact replacement in a file (or every one, with `replace_all`), as Claude Code
//! makes it. `old_string` is looked for as given, then in the file's text with its CRLF line
//! ends read as LF (the file keeps its line ends), then with curly quotes read as straight
//! ones (the replacement then takes the file's curly quotes). It must occur once unless
//! `replace_all`. An empty `old_string` fills a file that is missing or empty.
//!
//! A file the model has not read may be edited (the permission asked covers it); the result
//! then does not say the file is in the model's context. One it read that changed on disk
//! since is edited only if the text to replace is still there, and the result says so.

mod quotes;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::files::write_whole;
use super::{schema, Tool, ToolContext, ToolOutput, IN_CONTEXT};

/// The `Edit` tool.
pub struct Edit;

impl Tool for Edit {
    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> String {
        "Replaces exact text in a file.\n\n- Read the file first, in this conversation.\n- \
         old_string must match the file exactly, indentation included; the line numbers and \
         tab that Read puts before each line are not part of the file.\n- old_string must be \
         found once: give enough of the lines around it to make it unique, or set replace_all \
         to change every place it occurs (renaming a variable, say).\n- new_string must differ \
         from old_string.\n- Keep emoji out of files unless asked."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::edit().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::edit().check("Edit", input)
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        plan(input, cx).err()
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            tokio::task::spawn_blocking(move || edit(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("Edit failed: {err}")))
        })
    }
}

/// Claude Code's words for a file that is not UTF-8.
const NOT_UTF8: &str = "File is not valid UTF-8: it uses a legacy encoding such as \
Windows-1252, Shift-JIS or GBK, or it is binary. These tools write UTF-8 (or UTF-16LE behind its \
byte-order mark) and never convert a file's encoding on their own, so nothing was written. If \
the file is text, make the change with a shell command that reads and writes it in its own \
encoding (iconv, or PowerShell Get-Content/Set-Content -Encoding), or ask the user whether to \
convert it to UTF-8 first. To replace the whole file with new UTF-8 text anyway, delete it \
first, then Write it.";

/// What the model is told when the file had changed on disk but the edit still applied.
const STALE: &str = " (note: the file had been modified on disk since you last read it \u{2014} \
the edit applied cleanly, but the file contains other changes not in your context. Read it \
before edits that depend on surrounding content.)";

/// An edit worked out, ready to write.
struct Plan {
    path: std::path::PathBuf,
    original: Option<String>,
    updated: String,
    /// The model has the whole file in view (read whole, or written, or new).
    in_context: bool,
    /// The file changed on disk since the model saw it.
    stale: bool,
}

/// The edit, or Claude Code's refusal.
fn plan(input: &Value, cx: &ToolContext) -> Result<Plan, ToolOutput> {
    let given = input["file_path"].as_str().unwrap_or_default();
    let old = input["old_string"].as_str().unwrap_or_default();
    let new = input["new_string"].as_str().unwrap_or_default();
    let replace_all = input["replace_all"].as_bool().unwrap_or(false);
    let path = cx.workspace.resolve(given);
    if old == new {
        return Err(ToolOutput::error(
            "No changes to make: old_string and new_string are exactly the same.",
        ));
    }
    if path.extension().and_then(|e| e.to_str()) == Some("ipynb") {
        return Err(ToolOutput::error(
            "File is a Jupyter Notebook. Use the NotebookEdit to edit this file.",
        ));
    }
    if path.is_dir() {
        return Err(ToolOutput::error(
            "Error calling tool (Edit): EISDIR: illegal operation on a directory, read",
        ));
    }
    let original = match std::fs::read(&path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(_) => return Err(ToolOutput::error(NOT_UTF8)),
        },
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(ToolOutput::failure(format!("{err}: {}", path.display()))),
    };
    let stale = cx.workspace.files.changed(&path);
    let updated = match &original {
        None if old.is_empty() => new.to_owned(),
        None => return Err(ToolOutput::error(super::read::missing(cx))),
        Some(text) if old.is_empty() => {
            if !text.is_empty() {
                return Err(ToolOutput::error(
                    "Cannot create new file - file already exists.",
                ));
            }
            new.to_owned()
        }
        Some(text) => match replace(text, old, new, replace_all) {
            Ok(updated) => updated,
            Err(_) if stale => {
                return Err(ToolOutput::error(
                    "File has been modified since read, either by the user or by a linter. \
                     Read it again before attempting to write it.",
                ))
            }
            Err(why) => return Err(ToolOutput::error(why)),
        },
    };
    // A file made by this edit is known whole too.
    let in_context = cx.workspace.files.whole(&path) || original.is_none();
    Ok(Plan {
        path,
        original,
        updated,
        in_context,
        stale,
    })
}

fn edit(input: &Value, cx: &ToolContext) -> ToolOutput {
    let plan = match plan(input, cx) {
        Ok(plan) => plan,
        Err(refused) => return refused,
    };
    let given = input["file_path"].as_str().unwrap_or_default();
    let old = input["old_string"].as_str().unwrap_or_default();
    let new = input["new_string"].as_str().unwrap_or_default();
    let replace_all = input["replace_all"].as_bool().unwrap_or(false);
    if let Err(why) = write_whole(&plan.path, &plan.updated) {
        return ToolOutput::failure(why);
    }
    cx.workspace
        .files
        .wrote(&plan.path, &plan.updated, plan.in_context);
    let suffix = if plan.stale {
        STALE
    } else if plan.in_context {
        IN_CONTEXT
    } else {
        ""
    };
    let text = if replace_all {
        format!("The file {given} has been updated. All occurrences were successfully replaced.{suffix}")
    } else {
        format!("The file {given} has been updated successfully.{suffix}")
    };
    ToolOutput::success(
        text,
        json!({"filePath": given, "oldString": old, "newString": new,
               "originalFile": plan.original, "replaceAll": replace_all, "userModified": false}),
    )
}

/// `text` with `old` replaced by `new`, or Claude Code's words for why not.
fn replace(text: &str, old: &str, new: &str, replace_all: bool) -> Result<String, String> {
    let crlf = text.contains("\r\n");
    let body = if crlf {
        text.replace("\r\n", "\n")
    } else {
        text.to_owned()
    };
    let (actual, new) = match quotes::find_actual(&body, old) {
        Some(actual) if actual == old => (actual, new.to_owned()),
        Some(actual) => {
            let styled = quotes::styled_like(new);
            (actual, styled)
        }
        None => {
            return Err(format!(
                "String to replace not found in file.\nString: {old}"
            ))
        }
    };
    let found = body.matches(actual.as_str()).count();
    if found > 1 && !replace_all {
        return Err(format!(
            "Found {found} matches of the string to replace, but replace_all is false. To replace \
             all occurrences, set replace_all to true. To replace only one occurrence, please \
             provide more context to uniquely identify the instance.\nString: {old}"
        ));
    }
    let updated = if replace_all {
        body.replace(actual.as_str(), &new)
    } else {
        body.replacen(actual.as_str(), &new, 1)
    };
    Ok(if crlf {
        updated.replace('\n', "\r\n")
    } else {
        updated
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_files_are_matched_by_lf_text_and_keep_their_line_ends() {
        let text = "x = \"hello\"\r\ny = 2\r\n";
        assert_eq!(
            replace(text, "x = \"hello\"\ny = 2", "x = \"bye\"\ny = 3", false).unwrap(),
            "x = \"bye\"\r\ny = 3\r\n"
        );
    }

    #[test]
    fn straight_quotes_find_curly_ones_and_the_replacement_takes_them() {
        let text = "say \u{201c}hi\u{201d} and it\u{2019}s done\n";
        assert_eq!(
            replace(
                text,
                "say \"hi\" and it's done",
                "say \"yo\" and it's done",
                false
            )
            .unwrap(),
            "say \u{201c}yo\u{201d} and it\u{2019}s done\n"
        );
    }

    #[test]
    fn several_matches_need_replace_all() {
        let err = replace("b\nb\n", "b", "c", false).unwrap_err();
        assert!(err.starts_with("Found 2 matches"), "{err}");
        assert_eq!(replace("b\nb\n", "b", "c", true).unwrap(), "c\nc\n");
        let err = replace("a\n", "z", "c", false).unwrap_err();
        assert_eq!(err, "String to replace not found in file.\nString: z");
    }
}
