//! `Read`: a file as Claude Code shows it to the model. Text comes numbered `N\t` line by
//! line (a final newline gives a last, empty, numbered line; a range starts at `offset` and
//! is numbered from it), whole unless a range is asked, refused past 256 KB unless
//! `allow_large`; a text that is not clean UTF-8 or holds NUL bytes comes with a note.
//! Images come back as image blocks, PDFs as document blocks, notebooks as their cells.
//! Files of known binary kinds are refused.

mod media;

use std::path::Path;

use futures::future::BoxFuture;
use serde_json::{json, Value};

use super::files::{human_size, is_binary_extension};
use super::notebook;
use super::{schema, Tool, ToolContext, ToolOutput};

/// The largest text file read whole without `allow_large`.
pub const MAX_TEXT_BYTES: u64 = 256 * 1024;

/// The most `allow_large` reads, whatever the context has room for.
const MAX_LARGE_BYTES: u64 = 10 * 1024 * 1024;

/// How far into a file NUL bytes are looked for.
const NUL_WINDOW: usize = 8 * 1024;

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
            tokio::task::spawn_blocking(move || read(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::failure(format!("Read failed: {err}")))
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

fn read(input: &Value, cx: &ToolContext) -> ToolOutput {
    if let Some(refused) = refusal(input, cx) {
        return refused;
    }
    let file_path = input["file_path"].as_str().unwrap_or_default();
    let path = cx.workspace.resolve(file_path);
    let shown = path.display().to_string();
    let extension = extension_of(&path);
    let image = media::is_image_extension(&extension);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::failure(missing(cx));
        }
        Err(err) => return ToolOutput::failure(format!("{err}: {shown}")),
    };
    if meta.is_dir() {
        return ToolOutput::failure(format!(
            "EISDIR: illegal operation on a directory, read '{shown}'"
        ));
    }
    if extension == "ipynb" {
        return notebook::read(&path, cx);
    }
    if image {
        return media::image(&path, &meta, cx);
    }
    if extension == "pdf" {
        return media::pdf(&path, &meta, input["pages"].as_str(), cx);
    }
    text(input, &path, &meta, cx)
}

/// Claude Code's words for a path that is not there.
pub fn missing(cx: &ToolContext) -> String {
    format!(
        "File does not exist. Note: your current working directory is {}.",
        cx.workspace.shell_cwd().display()
    )
}

/// A number of the input, as the schema let it through (`offset` below 0 and `limit` of 0
/// count as not given, as Claude Code takes them).
fn integer(input: &Value, field: &str) -> Option<i64> {
    input[field]
        .as_i64()
        .or_else(|| input[field].as_f64().map(|f| f as i64))
}

fn text(input: &Value, path: &Path, meta: &std::fs::Metadata, cx: &ToolContext) -> ToolOutput {
    let shown = path.display().to_string();
    let offset = integer(input, "offset").filter(|o| *o >= 0);
    let limit = integer(input, "limit").filter(|l| *l > 0);
    let allow_large = input["allow_large"].as_bool().unwrap_or(false);
    let ranged = offset.is_some() || limit.is_some();
    let cap = if allow_large {
        MAX_LARGE_BYTES
    } else {
        MAX_TEXT_BYTES
    };
    if !ranged && meta.len() > cap {
        return ToolOutput::failure(format!(
            "File content ({}) exceeds maximum allowed size ({}). Use offset and limit \
             parameters to read specific portions of the file, or search for specific content \
             instead of reading the whole file. To read it anyway, up to what still fits in your \
             context, call Read again with allow_large: true \u{2014} only if you genuinely need \
             all of it or the user asked for the whole file.",
            human_size(meta.len()),
            human_size(cap)
        ));
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return ToolOutput::failure(format!("{err}: {shown}")),
    };
    let nul = bytes[..bytes.len().min(NUL_WINDOW)].contains(&0);
    let (content, lossy) = match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true),
    };
    let lines: Vec<&str> = content.split('\n').collect();
    let total = lines.len();
    // Lines are numbered from `offset` as given (0 too), and read from the line it names.
    let first_number = offset.unwrap_or(1);
    let start = usize::try_from(first_number.saturating_sub(1).max(0)).unwrap_or(usize::MAX);
    let count = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let selected: Vec<&str> = lines.iter().skip(start).take(count).copied().collect();
    let selected_text = selected.join("\n");
    cx.workspace.files.read(path, !ranged);
    let result = json!({
        "type": "text",
        "file": {
            "filePath": shown,
            "content": selected_text,
            "numLines": selected.len(),
            "startLine": first_number,
            "totalLines": total,
        }
    });
    let mut text = if !selected_text.is_empty() {
        numbered(&selected, first_number)
    } else if !selected.is_empty() && total > 1 {
        format!("{first_number}\t")
    } else if !selected.is_empty() {
        "<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>"
            .to_owned()
    } else {
        format!(
            "<system-reminder>Warning: the file exists but is shorter than the provided offset \
             ({first_number}). The file has {total} lines.</system-reminder>"
        )
    };
    if nul {
        text.push_str(
            "\n\n[This file has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without \
             a byte-order mark, or text with embedded NULs. Edit and Write will refuse it: change \
             it with a shell command that keeps its encoding, or ask the user whether to convert \
             it to UTF-8.]",
        );
    } else if lossy {
        text.push_str(
            "\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, \
             Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit \
             and Write will refuse it: change it with a shell command that keeps its encoding, or \
             ask the user whether to convert it to UTF-8.]",
        );
    }
    ToolOutput::success(text, result)
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
