//! `Read`: a text file's lines, numbered, from `offset` for `limit` lines (the first 2,000
//! by default), each cut at 2,000 characters. The file is read line by line: only the lines
//! shown are held.

use std::io::BufRead;

use futures::future::BoxFuture;
use serde_json::{json, Value};
use twinwire_protocol::tools::FileReadInput;

use super::files::{cut_line, looks_binary, numbered};
use super::{schema, typed_input, Tool, ToolContext, ToolOutput};

/// The `Read` tool.
pub struct Read;

impl Tool for Read {
    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> String {
        "Reads a text file and shows its lines numbered from 1. Give an absolute path; for a \
         long file, `offset` (the first line) and `limit` (how many) read a part of it. A \
         file must be read before Edit or Write may change it."
            .to_owned()
    }

    fn input_schema(&self) -> Value {
        schema::read()
    }

    fn read_only(&self) -> bool {
        true
    }

    fn call(&self, input: Value, cx: ToolContext) -> BoxFuture<'static, ToolOutput> {
        Box::pin(async move {
            let input: FileReadInput = match typed_input("Read", &input) {
                Ok(input) => input,
                Err(error) => return error,
            };
            tokio::task::spawn_blocking(move || read(&input, &cx))
                .await
                .unwrap_or_else(|err| ToolOutput::error(format!("Read failed: {err}")))
        })
    }
}

fn number(value: Option<&serde_json::Number>) -> Option<usize> {
    value
        .and_then(|n| n.as_u64().or_else(|| n.as_f64().map(|f| f.max(0.0) as u64)))
        .and_then(|n| usize::try_from(n).ok())
}

fn read(input: &FileReadInput, cx: &ToolContext) -> ToolOutput {
    let limits = cx.workspace.limits;
    let path = cx.workspace.resolve(&input.file_path);
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return ToolOutput::error(format!("File does not exist: {}", path.display()))
        }
        Err(err) => return ToolOutput::error(format!("{}: {err}", path.display())),
    };
    if meta.is_dir() {
        return ToolOutput::error(format!(
            "{} is a directory, not a file (use Bash's ls or Glob)",
            path.display()
        ));
    }
    let file = match std::fs::File::open(&path) {
        Ok(file) => file,
        Err(err) => return ToolOutput::error(format!("{}: {err}", path.display())),
    };
    let mut reader = std::io::BufReader::new(file);
    match reader.fill_buf() {
        Ok(start) if looks_binary(start) => {
            return ToolOutput::error(format!(
                "{} is a binary file; this agent reads text files only",
                path.display()
            ))
        }
        Ok(_) => {}
        Err(err) => return ToolOutput::error(format!("{}: {err}", path.display())),
    }
    let start = number(input.offset.as_ref()).unwrap_or(1).max(1);
    let limit = number(input.limit.as_ref())
        .unwrap_or(limits.read_lines)
        .max(1);
    let mut shown = Vec::new();
    let mut content = String::new();
    let mut total = 0usize;
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(err) => return ToolOutput::error(format!("{}: {err}", path.display())),
        }
        total += 1;
        if total >= start && total < start.saturating_add(limit) {
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end_matches(['\n', '\r']);
            let text = cut_line(text, limits.read_line_chars);
            shown.push(numbered(total, &text));
            content.push_str(&text);
            content.push('\n');
        }
    }
    cx.workspace.mark_read(&path);
    let result = json!({
        "type": "text",
        "file": {
            "filePath": path.display().to_string(),
            "content": content,
            "numLines": shown.len(),
            "startLine": start,
            "totalLines": total,
        }
    });
    let text = if total == 0 {
        "<system-reminder>The file exists but is empty.</system-reminder>".to_owned()
    } else if shown.is_empty() {
        format!(
            "<system-reminder>The file has {total} lines, fewer than the offset {start}.</system-reminder>"
        )
    } else if start + shown.len() <= total {
        format!(
            "{}\n\n(Lines {start} to {} of {total}; read on with offset {}.)",
            shown.join("\n"),
            start + shown.len() - 1,
            start + shown.len()
        )
    } else {
        shown.join("\n")
    };
    ToolOutput::success(text, result)
}
