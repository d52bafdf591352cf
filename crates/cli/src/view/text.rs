//! Text cut to fit a row: one line of a few hundred characters, or a few lines of a block,
//! without ever walking (or copying) more of a large text than is shown.

use serde_json::Value;

/// `text` on one line (runs of whitespace made one space), cut at `max` characters with `…`.
pub fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut count = 0;
    for word in text.split_whitespace() {
        let space = (count > 0).then_some(' ');
        for c in space.into_iter().chain(word.chars()) {
            if count == max {
                out.pop();
                out.push('…');
                return out;
            }
            out.push(c);
            count += 1;
        }
    }
    out
}

/// At most `max_lines` lines of `text`, each cut at `max_width` characters; the lines left out
/// are counted.
pub fn block(text: &str, max_lines: usize, max_width: usize) -> (Vec<String>, usize) {
    let mut lines = Vec::new();
    let mut left = 0;
    for line in text.lines() {
        if lines.len() < max_lines {
            lines.push(cut(line, max_width));
        } else {
            left += 1;
        }
    }
    (lines, left)
}

/// `text` cut at `max` characters with `…`.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some(_) => {
            let mut out: String = text.chars().take(max.saturating_sub(1)).collect();
            out.push('…');
            out
        }
    }
}

/// A string field, or empty.
pub fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The text of message content: a string, or the `text` of its blocks.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The content blocks of a message (none when its content is a string).
pub fn blocks(content: &Value) -> impl Iterator<Item = &Value> {
    content.as_array().into_iter().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_cuts_without_walking_everything() {
        assert_eq!(one_line("  a\n b\t c ", 10), "a b c");
        assert_eq!(one_line("hello world", 8), "hello w…");
        assert_eq!(one_line("abcdefghij", 4), "abc…");
        assert_eq!(one_line(&"word ".repeat(1_000_000), 9), "word wor…");
        assert_eq!(cut("héllo", 3), "hé…");
        assert_eq!(cut("abc", 3), "abc");
        let (lines, left) = block("1\n2\n3\n4", 2, 10);
        assert_eq!((lines, left), (vec!["1".to_owned(), "2".to_owned()], 2));
    }
}
