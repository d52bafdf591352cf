//! A finished command's result as Claude Code gives it: the output without trailing blanks,
//! a note for no output, `Exit code N` first for a failure (its output cut to 30,000
//! characters, the message to 10,000 with the middle left out), and output past 30,000
//! characters saved whole to a file in the session's folder, shown as a 2 KB preview.

use std::path::Path;

use serde_json::json;

use super::super::files::human_size;
use super::super::jobs::new_id;
use super::super::{ToolContext, ToolOutput};

/// The preview of output saved to a file.
const PREVIEW: usize = 2_000;
/// The most a failure's message says; past it, its middle is left out.
const MAX_ERROR: usize = 10_000;
/// How much the whole output is read into memory at most (the rest stays in the file).
const MAX_READ: u64 = 64 * 1024 * 1024;

/// How a command ended.
pub enum End {
    Success,
    Failed(i32),
    TimedOut { code: i32, after: String },
    Interrupted,
}

/// The output captured in `path`, as text.
pub fn text_of(path: &Path) -> String {
    let mut bytes = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = std::io::Read::read_to_end(&mut std::io::Read::take(file, MAX_READ), &mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// A time limit as Claude Code names it: `1s`, `2s`, `2m`, `1m30s`.
pub fn duration(ms: u64) -> String {
    let seconds = (ms + 500) / 1000;
    if seconds < 60 {
        format!("{seconds}s")
    } else if seconds.is_multiple_of(60) {
        format!("{}m", seconds / 60)
    } else {
        format!("{}m{}s", seconds / 60, seconds % 60)
    }
}

/// The first `n` characters of `text`.
fn first_chars(text: &str, n: usize) -> &str {
    match text.char_indices().nth(n) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// The last `n` characters of `text`.
fn last_chars(text: &str, n: usize) -> &str {
    let count = text.chars().count();
    if count <= n {
        return text;
    }
    match text.char_indices().nth(count - n) {
        Some((at, _)) => &text[at..],
        None => text,
    }
}

/// A failure's message, its middle left out past [`MAX_ERROR`] characters.
fn capped_error(message: &str) -> String {
    let count = message.chars().count();
    if count <= MAX_ERROR {
        return message.to_owned();
    }
    let half = MAX_ERROR / 2;
    format!(
        "{}\n\n... [{} characters truncated] ...\n\n{}",
        first_chars(message, half),
        count - MAX_ERROR,
        last_chars(message, half)
    )
}

/// The result of a command that ended (`reset`: the directory the shell was put back in).
pub fn result(
    cx: &ToolContext,
    output: String,
    end: &End,
    reset: Option<std::path::PathBuf>,
) -> ToolOutput {
    let max_inline = cx.workspace.limits.bash_output_bytes;
    // Blank lines before and after the output are left out, as Claude Code leaves them out.
    let mut text = output
        .trim_end()
        .trim_start_matches(['\n', '\r'])
        .to_owned();
    let mut stderr = String::new();
    if let Some(root) = &reset {
        stderr = format!("\nShell cwd was reset to {}", root.display());
        text.push_str(&stderr);
    }
    let structured = |stdout: &str| {
        json!({"stdout": stdout, "stderr": stderr, "interrupted": matches!(end, End::Interrupted),
               "isImage": false, "noOutputExpected": false})
    };
    let failure = |first: String, text: &str| {
        let body = first_chars(text, max_inline);
        let message = [first.as_str(), body]
            .iter()
            .filter(|part| !part.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n");
        let message = capped_error(message.trim());
        ToolOutput {
            follow_up: Vec::new(),
            notes: Vec::new(),
            result: Some(json!(format!("Error: {message}"))),
            content: message.into(),
            is_error: true,
        }
    };
    match end {
        End::Success => {
            if text.is_empty() {
                return ToolOutput::success("(Bash completed with no output)", structured(""));
            }
            if text.chars().count() > max_inline {
                return persisted(cx, &text).unwrap_or_else(|| {
                    ToolOutput::success(first_chars(&text, max_inline), structured(&text))
                });
            }
            ToolOutput::success(text.clone(), structured(&text))
        }
        End::Failed(code) => failure(format!("Exit code {code}"), &text),
        End::TimedOut { code, after } => failure(
            format!("Exit code {code}\nCommand timed out after {after}"),
            &text,
        ),
        End::Interrupted => {
            let mut output = failure("Command was interrupted".to_owned(), &text);
            output.result = Some(structured(&text));
            output
        }
    }
}

/// Output too large to give inline, saved whole; the result names the file and shows the
/// start (cut at its last line break when it has one).
fn persisted(cx: &ToolContext, text: &str) -> Option<ToolOutput> {
    let dir = cx.workspace.tool_results_dir(&cx.session_id);
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{}.txt", new_id('b')));
    std::fs::write(&path, text).ok()?;
    let head = first_chars(text, PREVIEW);
    let preview = match head.rfind('\n') {
        Some(at) if head.len() > PREVIEW / 2 => &head[..at],
        _ => head,
    };
    let message = format!(
        "<persisted-output>\nOutput too large ({}). Full output saved to: {}\n\nPreview (first \
         2KB):\n{preview}\n...\n</persisted-output>",
        human_size(text.len() as u64),
        path.display()
    );
    Some(ToolOutput::success(
        message,
        json!({"stdout": text, "stderr": "", "interrupted": false, "isImage": false,
               "noOutputExpected": false, "persistedOutputPath": path.display().to_string()}),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_limits_are_named_as_claude_code_names_them() {
        assert_eq!(duration(1000), "1s");
        assert_eq!(duration(1500), "2s");
        assert_eq!(duration(120_000), "2m");
    }

    #[test]
    fn a_long_failure_keeps_its_two_ends() {
        let message: String = "x".repeat(30_012);
        let capped = capped_error(&message);
        assert!(capped.contains("\n\n... [20012 characters truncated] ...\n\n"));
        assert_eq!(capped.chars().filter(|c| *c == 'x').count(), 10_000);
    }
}
