//! A text file as `Read` gives it: numbered as Claude Code numbers it, refused past 256 KB
//! (unless `allow_large`) and past 25,000 tokens. A whole-file read over the token cap is not
//! refused but cut to a first page (whole lines, or characters for a file of very long lines),
//! with a note for the model on how to read on; a ranged read over the cap is refused. Tokens
//! are counted by the API (`count_tokens`) for a text that may be near the cap, as Claude Code
//! counts them.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::super::files::human_size;
use super::super::{ToolContext, ToolOutput};
use super::numbered;

/// The largest text file read whole without `allow_large`.
pub const MAX_TEXT_BYTES: u64 = 256 * 1024;

/// The most `allow_large` reads, whatever the context has room for.
const MAX_LARGE_BYTES: u64 = 10 * 1024 * 1024;

/// How far into a file NUL bytes are looked for.
const NUL_WINDOW: usize = 8 * 1024;

/// The most tokens a read gives (without `allow_large`).
const MAX_TOKENS: u64 = 25_000;

/// What Claude Code says of reading past a limit anyway.
const ALLOW_LARGE: &str = " To read it anyway, up to what still fits in your context, call Read \
again with allow_large: true \u{2014} only if you genuinely need all of it or the user asked for \
the whole file.";

/// A text file's content, read, not yet given.
pub struct Loaded {
    path: PathBuf,
    content: String,
    offset: Option<i64>,
    limit: Option<i64>,
    allow_large: bool,
    nul: bool,
    lossy: bool,
}

/// A number of the input, as the schema let it through (`offset` below 0 and `limit` of 0
/// count as not given, as Claude Code takes them).
fn integer(input: &Value, field: &str) -> Option<i64> {
    input[field]
        .as_i64()
        .or_else(|| input[field].as_f64().map(|f| f as i64))
}

/// Reads the file (blocking), or refuses it.
pub fn load(input: &Value, path: &Path, meta: &std::fs::Metadata) -> Result<Loaded, ToolOutput> {
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
        return Err(ToolOutput::failure(format!(
            "File content ({}) exceeds maximum allowed size ({}). Use offset and limit \
             parameters to read specific portions of the file, or search for specific content \
             instead of reading the whole file.{ALLOW_LARGE}",
            human_size(meta.len()),
            human_size(cap)
        )));
    }
    let bytes = std::fs::read(path)
        .map_err(|err| ToolOutput::failure(format!("{err}: {}", path.display())))?;
    let nul = bytes[..bytes.len().min(NUL_WINDOW)].contains(&0);
    let (mut content, lossy) = match String::from_utf8(bytes) {
        Ok(text) => (text, false),
        Err(err) => (String::from_utf8_lossy(err.as_bytes()).into_owned(), true),
    };
    if content.starts_with('\u{feff}') {
        content.remove(0);
    }
    Ok(Loaded {
        path: path.to_owned(),
        content,
        offset,
        limit,
        allow_large,
        nul,
        lossy,
    })
}

/// The tokens of `text`: the API's count when the text may be near the cap, else an
/// estimate (four characters a token).
async fn tokens(text: &str, cx: &ToolContext) -> u64 {
    let estimate = (text.len() as u64).div_ceil(4);
    if estimate <= MAX_TOKENS / 2 {
        return estimate;
    }
    let Some((client, model)) = &cx.model else {
        return estimate;
    };
    let body = json!({"model": model, "messages": [{"role": "user", "content": text}],
                      "tools": []});
    client.count_tokens(&body).await.unwrap_or(estimate)
}

/// Gives the file: its lines numbered, cut or refused past the token cap.
pub async fn finish(loaded: Loaded, cx: &ToolContext) -> ToolOutput {
    let shown = loaded.path.display().to_string();
    let lines: Vec<&str> = loaded.content.split('\n').collect();
    let total = lines.len();
    // Lines are numbered from `offset` as given (0 too), and read from the line it names.
    let first_number = loaded.offset.unwrap_or(1);
    let start = usize::try_from(first_number.saturating_sub(1).max(0)).unwrap_or(usize::MAX);
    let count = loaded
        .limit
        .map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
    let mut selected: Vec<&str> = lines.iter().skip(start).take(count).copied().collect();
    let mut selected_text = selected.join("\n");
    let mut note = None;
    if !loaded.allow_large {
        let counted = tokens(&selected_text, cx).await;
        if counted > MAX_TOKENS {
            let whole = loaded.offset.unwrap_or(1) <= 1 && loaded.limit.is_none();
            if !whole {
                return ToolOutput::failure(format!(
                    "File content ({counted} tokens) exceeds maximum allowed tokens \
                     ({MAX_TOKENS}). Use offset and limit parameters to read specific portions \
                     of the file, or search for specific content instead of reading the whole \
                     file.{ALLOW_LARGE}"
                ));
            }
            let (page, message) = first_page(&selected_text, total, counted, &shown);
            selected_text = page;
            selected = selected_text.split('\n').collect();
            note = Some(message);
        }
    }
    cx.workspace.files.read(
        &loaded.path,
        loaded.offset.is_none() && loaded.limit.is_none() && note.is_none(),
    );
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
    if loaded.nul {
        text.push_str(
            "\n\n[This file has NUL bytes in its first 8 KB: binary data, UTF-16/UTF-32 without \
             a byte-order mark, or text with embedded NULs. Edit and Write will refuse it: change \
             it with a shell command that keeps its encoding, or ask the user whether to convert \
             it to UTF-8.]",
        );
    } else if loaded.lossy {
        text.push_str(
            "\n\n[This file is not valid UTF-8: it uses a legacy encoding such as Windows-1252, \
             Shift-JIS or GBK, or it is binary. Its undecodable bytes show above as U+FFFD. Edit \
             and Write will refuse it: change it with a shell command that keeps its encoding, or \
             ask the user whether to convert it to UTF-8.]",
        );
    }
    let mut output = ToolOutput::success(text, result);
    output.notes.extend(note);
    output
}

/// The first page of a text over the token cap (whole lines, or characters when its lines
/// are too long), and the note that says so.
fn first_page(content: &str, total_lines: usize, counted: u64, path: &str) -> (String, String) {
    let cap = MAX_TOKENS as f64;
    let chars_per_token = (content.chars().count() as f64 / counted.max(1) as f64).max(0.5);
    let estimate = |text: &str| text.chars().count() as f64 / chars_per_token;
    let lines: Vec<&str> = content.split('\n').collect();
    let mut taken = ((lines.len() as f64 * cap / counted.max(1) as f64 * 0.85).floor() as usize)
        .clamp(1, lines.len());
    let mut page = lines[..taken].join("\n");
    for _ in 0..6 {
        if estimate(&page) <= cap || taken <= 1 {
            break;
        }
        taken = ((taken as f64 * 0.7).floor() as usize).max(1);
        page = lines[..taken].join("\n");
    }
    let by_characters = estimate(&page) > cap || page.trim().is_empty();
    if by_characters {
        let mut size = ((cap * chars_per_token * 0.85).floor() as usize).max(1);
        for _ in 0..6 {
            page = content.chars().take(size).collect();
            if estimate(&page) <= cap {
                break;
            }
            size = ((size as f64 * 0.7).floor() as usize).max(1);
        }
    }
    let shown_lines = if by_characters {
        page.matches('\n').count() + 1
    } else {
        taken
    };
    let note = if !by_characters && shown_lines < total_lines {
        format!(
            "[Truncated: PARTIAL view \u{2014} {path}: showing lines 1-{shown_lines} of \
             {total_lines} total ({counted} tokens, cap {MAX_TOKENS}). Call Read with offset={} \
             limit={shown_lines} for the next page, or Grep to find a specific section.\
             {ALLOW_LARGE} Do NOT answer from this page alone if the answer may be further in \
             the file.]",
            shown_lines + 1
        )
    } else {
        format!(
            "[Truncated: PARTIAL view \u{2014} {path}: showing the first {} of {} characters \
             ({counted} tokens, cap {MAX_TOKENS}); this file has very long lines and cannot be \
             paginated by line. Use Grep to find a specific section, or Read with offset/limit \
             to page through it.{ALLOW_LARGE} Do NOT answer from this excerpt alone if the \
             answer may be elsewhere in the file.]",
            page.chars().count(),
            content.chars().count()
        )
    };
    (page, note)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_of_long_lines_is_cut_by_characters() {
        let content = "word ".repeat(30_000);
        let (page, note) = first_page(&content, 1, 37_520, "/w/medium.txt");
        assert_eq!(page.chars().count(), 84_954);
        assert!(
            note.contains("showing the first 84954 of 150000 characters (37520 tokens, cap 25000)")
        );
    }

    #[test]
    fn a_text_of_many_lines_is_cut_by_lines() {
        let content: String = (0..20_000).map(|i| format!("line number {i}\n")).collect();
        let counted = content.len() as u64 / 4;
        let (page, note) = first_page(&content, 20_001, counted, "/w/many.txt");
        let shown = page.split('\n').count();
        assert!(shown < 20_000 && shown > 1000, "{shown}");
        assert!(
            note.contains(&format!("showing lines 1-{shown} of 20001 total")),
            "{note}"
        );
    }
}
