//! Text from the model, tools or the CLI made safe to print on a terminal.
//!
//! A terminal obeys escape sequences wherever they appear in its input, so text the model
//! wrote could set the window title (OSC), clear the screen, move the cursor to overwrite what
//! ccwire printed, or hide text with colours. [`sanitize`] shows every control character
//! instead of sending it: C0 controls in caret notation (`ESC` → `^[`, `BEL` → `^G`, `CR` →
//! `^M`, `DEL` → `^?`), C1 controls and the bidirectional overrides that reorder what is shown
//! as `<U+009B>`; newline and tab are kept. [`Style`] says whether ccwire's own output is
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
        // Bidirectional embeddings, overrides and isolates: they reorder the text around them.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' => true,
        _ => false,
    }
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
}
