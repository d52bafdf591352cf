//! Curly and straight quotes, as Claude Code's Edit treats them: text the model typed with
//! straight quotes finds the same text written with curly ones, and its replacement is then
//! written with curly quotes too.

/// Curly quotes read as straight ones; every other character as it is (one for one, so
/// places in the two texts line up).
fn straightened(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{201c}' | '\u{201d}' => '"',
            other => other,
        })
        .collect()
}

/// The text of `body` that `wanted` stands for: `wanted` itself, or the text it matches when
/// curly quotes count as straight.
pub fn find_actual(body: &str, wanted: &str) -> Option<String> {
    if body.contains(wanted) {
        return Some(wanted.to_owned());
    }
    let plain_body = straightened(body);
    let plain_wanted = straightened(wanted);
    let at = plain_body.find(&plain_wanted)?;
    // Same characters one for one: the match's place in characters is its place in `body`.
    let start = plain_body[..at].chars().count();
    let length = plain_wanted.chars().count();
    Some(body.chars().skip(start).take(length).collect())
}

/// `text` with its straight quotes made curly: opening after the start, a space or an opening
/// bracket, closing elsewhere; a single quote between two letters is an apostrophe.
pub fn styled_like(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let opens_after = |i: usize| {
        i == 0 || {
            let before = chars[i - 1];
            before.is_whitespace() || matches!(before, '(' | '[' | '{' | '\u{2014}' | '\u{2013}')
        }
    };
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| match c {
            '"' if opens_after(i) => '\u{201c}',
            '"' => '\u{201d}',
            '\'' => {
                let letter = |j: Option<&char>| j.is_some_and(|c| c.is_alphabetic());
                if i > 0 && letter(chars.get(i - 1)) && letter(chars.get(i + 1)) {
                    '\u{2019}'
                } else if opens_after(i) {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                }
            }
            other => other,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_text_finds_curly_text() {
        let body = "it\u{2018}s \u{2018}quoted\u{2019}\n";
        assert_eq!(
            find_actual(body, "'quoted'").as_deref(),
            Some("\u{2018}quoted\u{2019}")
        );
        assert_eq!(find_actual(body, "nope"), None);
    }

    #[test]
    fn replacements_take_curly_quotes() {
        assert_eq!(styled_like("'said'"), "\u{2018}said\u{2019}");
        assert_eq!(
            styled_like("say \"yo\" and it's done"),
            "say \u{201c}yo\u{201d} and it\u{2019}s done"
        );
    }
}
