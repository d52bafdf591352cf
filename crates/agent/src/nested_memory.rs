//! The memory of a directory below the working directory, given to the model the first time
//! a file there is read or written, as Claude Code gives it: after the call's result, one
//! `<system-reminder>` per file (`Contents of <path>:`), each file once a session.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::session::{lock, Session};

/// The reminders for the memory files `tool`'s call (with `input`) brings into view, in order;
/// the files are noted as given.
pub(crate) fn touched(session: &Session, tool: &str, input: &Value) -> Vec<String> {
    let key = match tool {
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" => "notebook_path",
        _ => return Vec::new(),
    };
    let Some(path) = input.get(key).and_then(Value::as_str) else {
        return Vec::new();
    };
    let path = session.workspace.resolve(path);
    let dirs = below(session.workspace.root(), &path);
    if dirs.is_empty() {
        return Vec::new();
    }
    let mut given = lock(&session.nested_memory);
    let known: Vec<PathBuf> = {
        let state = session.state();
        state
            .memory
            .iter()
            .map(|file| file.path.clone())
            .chain(given.iter().cloned())
            .collect()
    };
    let home = session.config.env.get("HOME").map(Path::new);
    let files = crate::memory::read_nested(
        &dirs,
        home,
        &known,
        session.config.setting_sources.as_deref(),
    );
    given.extend(files.iter().map(|file| file.path.clone()));
    let count = files.len();
    files
        .iter()
        .enumerate()
        .map(|(at, file)| {
            // Claude Code ends each of several reminders but the last with a new line.
            let end = if at + 1 < count { "\n" } else { "" };
            format!(
                "<system-reminder>\nContents of {}:\n\n{}\n\n</system-reminder>{end}",
                file.path.display(),
                file.text.trim_end()
            )
        })
        .collect()
}

/// The directories from below `root` down to `file`'s own, when `file` is beneath `root`.
fn below(root: &Path, file: &Path) -> Vec<PathBuf> {
    let Some(Ok(inside)) = file.parent().map(|dir| dir.strip_prefix(root)) else {
        return Vec::new();
    };
    let mut dir = root.to_owned();
    inside
        .components()
        .map(|part| {
            dir.push(part);
            dir.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directories_below_the_root_down_to_the_files() {
        let root = Path::new("/w");
        assert_eq!(
            below(root, Path::new("/w/a/b/f.txt")),
            [PathBuf::from("/w/a"), PathBuf::from("/w/a/b")]
        );
        assert!(below(root, Path::new("/w/f.txt")).is_empty());
        assert!(below(root, Path::new("/elsewhere/a/f.txt")).is_empty());
    }
}
