//! Text from the model, tools or the CLI made safe to print on a terminal.
//!
//! A terminal obeys escape sequences wherever they appear in its input, so text the model
//! wrote could set the window title (OSC), clear the screen, move the cursor to overwrite what
//! twinwire printed, or hide text with colours; and Unicode format characters reorder or hide
//! what is shown (a right-to-left override turns `txt.exe` around, zero-width and tag
//! characters carry text nobody sees). [`sanitize`] shows every control and format character
//! instead of sending it: C0 controls in caret notation (`ESC` → `^[`, `BEL` → `^G`, `CR` →
//! `^M`, `DEL` → `^?`); C1 controls, every character of the Unicode category Cf (format:
//! bidirectional embeddings, overrides, isolates and marks, zero-width spaces and joiners,
//! invisible operators, the byte order mark, tags, interlinear annotations…) and the line and
//! paragraph separators as `<U+202E>`; newline and tab are kept. [`Style`] says whether twinwire's own output is
//! coloured (a terminal, and `NO_COLOR` unset); [`Interrupts`] delivers Ctrl-C.

use std::borrow::Cow;
use std::io;

/// `text` with every control character shown rather than obeyed (see the module docs).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !needs_escape(c) {
            out.push(c);
        } else if (c as u32) < 0x20 {
            out.push('^');
            out.push(char::from(c as u8 + 0x40));
        } else if c == '\u{7f}' {
            out.push_str("^?");
        } else {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        }
    }
    Cow::Owned(out)
}

fn needs_escape(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        _ if c.is_ascii() => false,
        // Line and paragraph separators: a line break some terminals and viewers obey.
        '\u{2028}' | '\u{2029}' => true,
        _ => is_format(c),
    }
}

/// The Unicode category Cf (format characters), Unicode 16.0, and the whole tag block
/// (`U+E0000`–`U+E007F`, one of which is unassigned). Checked against the Unicode data of
/// the `unicode-general-category` crate, code point by code point, in the tests.
fn is_format(c: char) -> bool {
    matches!(c,
        '\u{ad}'
        | '\u{600}'..='\u{605}'
        | '\u{61c}'
        | '\u{6dd}'
        | '\u{70f}'
        | '\u{890}'..='\u{891}'
        | '\u{8e2}'
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}'
        | '\u{2066}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{110bd}'
        | '\u{110cd}'
        | '\u{13430}'..='\u{1343f}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e007f}'
    )
}

/// Whether to use ANSI styles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Dim thinking and tool results, colour the summary mark.
    pub color: bool,
}

impl Style {
    /// Styles when `out` is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect(out_is_terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            color: out_is_terminal && !no_color,
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Dimmed text.
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }
}

/// SIGINT (Ctrl-C), delivered as a stream so that none is lost between two waits.
pub struct Interrupts {
    #[cfg(unix)]
    signal: tokio::signal::unix::Signal,
}

impl Interrupts {
    pub fn new() -> io::Result<Self> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(Self {
                signal: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(not(unix))]
        Ok(Self {})
    }

    pub async fn recv(&mut self) {
        #[cfg(unix)]
        if self.signal.recv().await.is_none() {
            std::future::pending::<()>().await;
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

pub async fn wait_interrupt(interrupts: Option<&mut Interrupts>) {
    match interrupts {
        Some(interrupts) => interrupts.recv().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_shown_not_obeyed() {
        let cases = [
            ("plain text, ünïcode ✓", "plain text, ünïcode ✓"),
            ("two\nlines\tand a tab", "two\nlines\tand a tab"),
            ("\x1b]0;pwned\x07title", "^[]0;pwned^Gtitle"),
            ("\x1b[2J\x1b[Hclear", "^[[2J^[[Hclear"),
            ("\x1b[31mred\x1b[0m", "^[[31mred^[[0m"),
            ("over\rwrite", "over^Mwrite"),
            ("back\x08space", "back^Hspace"),
            ("nul\0", "nul^@"),
            ("del\x7f", "del^?"),
            ("c1 csi \u{9b}2J", "c1 csi <U+009B>2J"),
            (
                "osc8 \x1b]8;;http://x\x1b\\link",
                "osc8 ^[]8;;http://x^[\\link",
            ),
            ("bidi \u{202e}txt.exe", "bidi <U+202E>txt.exe"),
        ];
        for (input, shown) in cases {
            assert_eq!(sanitize(input), shown, "{input:?}");
        }
        assert!(matches!(sanitize("clean"), Cow::Borrowed(_)));
    }

    /// The format characters an attacker reaches for first, by name.
    #[test]
    fn bidi_and_invisible_characters_are_shown() {
        let cases = [
            ("\u{202a}", "<U+202A>"),   // left-to-right embedding
            ("\u{202b}", "<U+202B>"),   // right-to-left embedding
            ("\u{202c}", "<U+202C>"),   // pop directional formatting
            ("\u{202d}", "<U+202D>"),   // left-to-right override
            ("\u{202e}", "<U+202E>"),   // right-to-left override
            ("\u{2066}", "<U+2066>"),   // left-to-right isolate
            ("\u{2067}", "<U+2067>"),   // right-to-left isolate
            ("\u{2068}", "<U+2068>"),   // first strong isolate
            ("\u{2069}", "<U+2069>"),   // pop directional isolate
            ("\u{200e}", "<U+200E>"),   // left-to-right mark
            ("\u{200f}", "<U+200F>"),   // right-to-left mark
            ("\u{61c}", "<U+061C>"),    // Arabic letter mark
            ("\u{200b}", "<U+200B>"),   // zero-width space
            ("\u{200c}", "<U+200C>"),   // zero-width non-joiner
            ("\u{200d}", "<U+200D>"),   // zero-width joiner
            ("\u{2060}", "<U+2060>"),   // word joiner
            ("\u{2064}", "<U+2064>"),   // invisible plus
            ("\u{feff}", "<U+FEFF>"),   // byte order mark
            ("\u{e0001}", "<U+E0001>"), // language tag
            ("\u{e0041}", "<U+E0041>"), // tag latin capital letter A
            ("\u{e007f}", "<U+E007F>"), // cancel tag
            ("\u{fff9}", "<U+FFF9>"),   // interlinear annotation anchor
            ("\u{fffa}", "<U+FFFA>"),   // interlinear annotation separator
            ("\u{fffb}", "<U+FFFB>"),   // interlinear annotation terminator
            ("\u{ad}", "<U+00AD>"),     // soft hyphen
            ("\u{2028}", "<U+2028>"),   // line separator
            ("\u{2029}", "<U+2029>"),   // paragraph separator
        ];
        for (input, shown) in cases {
            let text = format!("a{input}b");
            assert_eq!(sanitize(&text), format!("a{shown}b"), "{input:?}");
        }
        // Text that only looks unusual is kept: accents, emoji with variation selectors,
        // right-to-left letters themselves.
        for kept in ["é", "✔\u{fe0f}", "שלום", "مرحبا", "👍🏽", "\u{3000}"] {
            assert!(matches!(sanitize(kept), Cow::Borrowed(_)), "{kept:?}");
        }
    }

    /// Every code point: shown exactly when it is a control (Cc), a format character (Cf, as
    /// the Unicode data of `unicode-general-category` says), in the tag block, or a line or
    /// paragraph separator; kept otherwise.
    #[test]
    fn every_format_and_control_character_is_shown_and_nothing_else() {
        use unicode_general_category::{get_general_category, GeneralCategory};
        let mut format_chars = 0;
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let category = get_general_category(c);
            let shown = match category {
                GeneralCategory::Format => {
                    format_chars += 1;
                    true
                }
                GeneralCategory::Control => c != '\n' && c != '\t',
                GeneralCategory::LineSeparator | GeneralCategory::ParagraphSeparator => true,
                _ => ('\u{e0000}'..='\u{e007f}').contains(&c),
            };
            let text = c.to_string();
            let out = sanitize(&text);
            if shown {
                let expected = match c as u32 {
                    0..=0x1f => format!("^{}", char::from(c as u8 + 0x40)),
                    0x7f => "^?".to_owned(),
                    code => format!("<U+{code:04X}>"),
                };
                assert_eq!(out, expected, "U+{:04X} ({category:?})", c as u32);
            } else {
                assert!(
                    matches!(out, Cow::Borrowed(_)),
                    "U+{:04X} ({category:?}) became {out:?}",
                    c as u32
                );
            }
        }
        // The data is the real table, not an empty one.
        assert!(format_chars > 150, "{format_chars} format characters");
    }
}
