//! `Read`: a file as Claude Code shows it to the model. Text comes numbered `N\t` line by
//! line (a final newline gives a last, empty, numbered line; a range starts at `offset` and
//! is numbered from it), whole unless a range is asked, refused past 256 KB unless
//! `allow_large`; a text that is not clean UTF-8 or holds NUL bytes comes with a note.
//! Images come back as image blocks, PDFs as document blocks, notebooks as their cells.
//! Files of known binary kinds are refused.

mod media;
mod text;

use std::path::Path;

use futures::future::BoxFuture;
use serde_json::Value;

use super::files::is_binary_extension;
use super::notebook;
use super::{schema, Tool, ToolContext, ToolOutput};

/// The `Read` tool.
pub struct Read;

impl Tool for Read {
    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::read().json()
    }

    fn check_input(&self, input: &Value) -> Result<Value, String> {
        schema::read().check("Read", input)
    }

    fn read_only(&self) -> bool {
        true
    }

    fn validate(&self, input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
        refusal(input, cx)
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let blocking_cx = cx.clone();
            let read = tokio::task::spawn_blocking(move || read(&input, &blocking_cx)).await;
            match read {
                Ok(Loaded::Done(output)) => output,
                Ok(Loaded::Text(loaded)) => text::finish(loaded, &cx).await,
                Err(err) => ToolOutput::failure(format!("Read failed: {err}")),
            }
        })
    }
}

const DESCRIPTION: &str = "Reads a file and shows it to you.

- Give file_path as an absolute path. A path that does not exist is reported as an error, so \
it is fine to try one.
- A text file comes whole, each line numbered (the number, a tab, then the line), unless you \
pass offset (the first line) and limit (how many). Files over 256 KB are refused unless \
allow_large is true; read such files in parts, or search them.
- The numbers and the tab are not part of the file: leave them out of text you give to Edit.
- Images (PNG, JPEG, GIF, WebP) come back as images, PDFs as documents (pages reads some \
pages of a long one, 20 at most), notebooks as their cells with outputs.
- Directories are not files: list them with ls through Bash.
- An empty file comes back as a warning.";

/// The path's extension, lowercase.
fn extension_of(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default()
}

/// Files Claude Code will not read: known binary kinds; a PDF range that is not one.
fn refusal(input: &Value, cx: &ToolContext) -> Option<ToolOutput> {
    let path = cx
        .workspace
        .resolve(input["file_path"].as_str().unwrap_or_default());
    let extension = extension_of(&path);
    if is_binary_extension(&extension)
        && !media::is_image_extension(&extension)
        && extension != "pdf"
    {
        return Some(ToolOutput::error(format!(
            "This tool cannot read binary files. The file appears to be a binary .{extension} \
             file. Use a skill for this file type if one is available, or a shell command or \
             script that can read the format."
        )));
    }
    if extension == "pdf" {
        if let Some(pages) = input["pages"].as_str() {
            if let Err(why) = media::check_pages(pages) {
                return Some(ToolOutput::error(why));
            }
        }
    }
    None
}

/// What the blocking part of a read gave: a result, or a text file's content to finish.
enum Loaded {
    Done(ToolOutput),
    Text(text::Loaded),
}

fn read(input: &Value, cx: &ToolContext) -> Loaded {
    match read_file(input, cx) {
        Ok(loaded) => Loaded::Text(loaded),
        Err(output) => Loaded::Done(output),
    }
}

fn read_file(input: &Value, cx: &ToolContext) -> Result<text::Loaded, ToolOutput> {
    if let Some(refused) = refusal(input, cx) {
        return Err(refused);
    }
    let file_path = input["file_path"].as_str().unwrap_or_default();
    let path = cx.workspace.resolve(file_path);
    let shown = path.display().to_string();
    let extension = extension_of(&path);
    let image = media::is_image_extension(&extension);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(ToolOutput::failure(missing(cx)));
        }
        Err(err) => return Err(ToolOutput::failure(format!("{err}: {shown}"))),
    };
    if meta.is_dir() {
        return Err(ToolOutput::failure(format!(
            "EISDIR: illegal operation on a directory, read '{shown}'"
        )));
    }
    if extension == "ipynb" {
        return Err(notebook::read(&path, cx));
    }
    if image {
        return Err(media::image(&path, &meta, cx));
    }
    if extension == "pdf" {
        return Err(media::pdf(&path, &meta, input["pages"].as_str(), cx));
    }
    text::load(input, &path, &meta)
}

/// Claude Code's words for a path that is not there.
pub fn missing(cx: &ToolContext) -> String {
    format!(
        "File does not exist. Note: your current working directory is {}.",
        cx.workspace.shell_cwd().display()
    )
}

/// Lines as Claude Code numbers them: the number, a tab, the line (less a final `\r`).
pub fn numbered(lines: &[&str], first: i64) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        out.push_str(&format!("{}\t{line}", first + i as i64));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_as_claude_code_numbers_them() {
        assert_eq!(numbered(&["one", "two\r", ""], 1), "1\tone\n2\ttwo\n3\t");
        assert_eq!(numbered(&["a"], 0), "0\ta");
    }
}
