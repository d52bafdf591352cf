//! Secrets out of what is kept: `twinwire tap`'s recordings, the transcripts a
//! [`TranscriptStore`](crate::sessions::stores::TranscriptStore) holds, the entries the
//! transcript mirror appends, and saved sessions (`twinwire sessions scrub`).
//!
//! Redaction applies to what is written to rest only, never to what is relayed or what the
//! CLI keeps in its own files. A secret becomes `<redacted N chars>` (N counts the characters
//! it replaces in the string as a reader of the frame sees it), so a recording still shows the
//! shape of what was there, and [`matches_redacted`] lets a replay accept the live value in its
//! place. A frame is edited in place: everything but the secrets keeps its bytes.
//!
//! ```
//! use twinwire::redact::Redactor;
//!
//! let redactor = Redactor::from_env([("DB_PASSWORD", "hunter2-hunter2")]);
//! let mut entry = serde_json::json!({
//!     "type": "user",
//!     "message": {"content": "export DB_PASSWORD=hunter2-hunter2; curl -H 'x-api-key: abc123'"},
//!     "headers": {"Authorization": "Bearer eyJhbGciOi"},
//! });
//! assert_eq!(redactor.value(&mut entry), 3);
//! let text = entry.to_string();
//! assert!(!text.contains("hunter2") && !text.contains("abc123") && !text.contains("eyJhbG"));
//! ```
//!
//! What counts as a secret (docs/tap-replay.md, "What is redacted and what is not", says the
//! same for users):
//! * tokens with a known prefix: `sk-ant-…` (API keys and OAuth tokens of Anthropic),
//!   `sk-proj-…`, `ghp_…`, `gho_…`, `github_pat_…`, `xoxb-…`, `xoxp-…`;
//! * the value of an environment variable whose name contains `KEY`, `TOKEN`, `SECRET`,
//!   `PASSWORD` or `AUTH` (in the `env` of the meta line always; inside frames when it is at
//!   least 8 characters long, wherever it appears);
//! * the token after `Bearer ` (any case);
//! * the body of a PEM private key (`-----BEGIN … PRIVATE KEY-----`);
//! * the value after a secret-looking name followed by `:` or `=`, quoted or not
//!   (`Authorization: Basic …`, `"access_token": "…"`, `?api_key=…`, `Cookie: a=1; b=2`);
//! * in JSON, everything under a secret-named key at any depth, whatever its shape (a string,
//!   a number, every leaf of an array or object). Names are compared lowercased with `-`,
//!   `_`, `.` and spaces ignored; secret names end in `token`, `secret`, `password`,
//!   `passwd`, `passphrase`, `apikey`, `accesskey`, `privatekey`, `secretkey`, `signingkey`,
//!   `sessionkey`, `clientkey`, `authorization`, `auth`, `cookie(s)`, `credential(s)`, or
//!   start with `proxy` and hold `auth` (not `apiKeySource`, `input_tokens`);
//! * all of this again inside strings that hold JSON or escaped text, through up to
//!   [`MAX_LAYERS`] layers of escaping;
//! * in the recorded argv, every value under `env` and `headers` in JSON given inline
//!   (`--mcp-config '{"mcpServers": …}'`, `--settings '{…}'`);
//! * in streamed deltas, secrets cut across the deltas of one content block (see
//!   [`stream`]).

mod escapes;
mod json;
mod layers;
mod patterns;
pub mod stream;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::ops::Range;

pub use layers::MAX_LAYERS;
use layers::{apply, json_line_edits, text_edits, Rules};
pub use patterns::is_secret_env;
use patterns::Literals;

/// A byte range of a text: `(start, end)`.
pub type Span = (usize, usize);

/// Replaces secrets with `<redacted N chars>`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// The token prefixes and the values of secret environment variables, searched at once.
    literals: Literals,
}

impl Redactor {
    /// A redactor that also looks for the values of the secret variables of `env`.
    pub fn from_env<'a>(env: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut values: Vec<String> = env
            .into_iter()
            .filter(|(name, value)| {
                is_secret_env(name) && value.chars().count() >= patterns::MIN_VALUE_LEN
            })
            .map(|(_, value)| value.to_owned())
            .collect();
        values.sort();
        values.dedup();
        Self {
            literals: Literals::new(&values),
        }
    }

    /// A redactor that also looks for the values of this process's secret-named environment
    /// variables (those that are text).
    pub fn from_process_env() -> Self {
        let vars: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
            .collect();
        Self::from_env(vars.iter().map(|(n, v)| (n.as_str(), v.as_str())))
    }

    fn rules(&self) -> Rules<'_> {
        Rules {
            literals: &self.literals,
            config: false,
        }
    }

    /// The value of environment variable `name` as a recording shows it.
    pub fn env_value(&self, name: &str, value: &str) -> String {
        if is_secret_env(name) && !value.is_empty() {
            placeholder(value)
        } else {
            self.text(value).into_owned()
        }
    }

    /// `text` with every secret replaced; borrowed when there was none.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        apply(text, &text_edits(text, 1, &self.rules()))
    }

    /// The CLI's arguments as a recording shows them: each through [`Redactor::text`], and
    /// in JSON given inline, every value under `env` and `headers` too.
    pub fn argv(&self, argv: &[String]) -> Vec<String> {
        let rules = Rules {
            config: true,
            ..self.rules()
        };
        argv.iter()
            .map(|arg| apply(arg, &text_edits(arg, 1, &rules)).into_owned())
            .collect()
    }

    /// Redacts a JSON value in place (a transcript entry, a store's row): every string is
    /// read through the rules, every secret-named key's value is replaced. Returns how many
    /// secrets were replaced (0: the value is as it was).
    pub fn value(&self, value: &mut serde_json::Value) -> usize {
        let line = value.to_string();
        let Cow::Owned(redacted) = self.json_line(&line) else {
            return 0;
        };
        let replaced = markers(&redacted).saturating_sub(markers(&line));
        match serde_json::from_str(&redacted) {
            Ok(parsed) => *value = parsed,
            // The edits keep the JSON valid; should they not, nothing of the value is kept
            // rather than a secret.
            Err(_) => *value = serde_json::Value::String(placeholder(&line)),
        }
        replaced.max(1)
    }

    /// Byte ranges of the secrets in `text`, sorted and apart.
    pub(crate) fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        text_edits(text, 1, &self.rules())
            .into_iter()
            .map(|edit| (edit.start, edit.end))
            .collect()
    }

    /// A JSON line with every secret replaced in place: the line itself when there was none.
    pub fn json_line<'a>(&self, line: &'a str) -> Cow<'a, str> {
        self.json_line_with(line, None)
    }

    /// [`Redactor::json_line`], with the secrets of one of its strings known from the frames
    /// around it (a streamed delta): `interior` is the range of the escaped text between its
    /// quotes, `spans` are byte ranges of its unescaped text.
    pub fn json_line_with<'a>(&self, line: &'a str, extra: Option<KnownSecrets>) -> Cow<'a, str> {
        let quick = extra.is_none()
            && memchr::memchr(b'\\', line.as_bytes()).is_none()
            && !patterns::may_name_a_secret(line);
        if quick {
            // No escapes (the line's text is its strings' text) and no secret-named key:
            // the text rules over the line find what there is.
            let mut spans = Vec::new();
            patterns::text_spans(line, &self.literals, &mut spans);
            if spans.is_empty() {
                return Cow::Borrowed(line);
            }
        }
        match json_line_edits(line, &self.rules(), extra) {
            Some(edits) => apply(line, &edits),
            None => self.text(line),
        }
    }
}

/// The secrets of one string of a frame, known from the frames around it (see
/// [`stream`]).
#[derive(Debug, Clone, Copy)]
pub struct KnownSecrets<'a> {
    /// The escaped text between the string's quotes, in the line.
    pub interior: &'a Range<usize>,
    /// Byte ranges of its unescaped text.
    pub spans: &'a [Span],
}

/// Where the redaction markers of `text` are.
pub(crate) fn marker_ranges(text: &str) -> Vec<(usize, usize)> {
    const OPEN: &str = "<redacted ";
    const CLOSE: &str = " chars>";
    let mut ranges = Vec::new();
    for at in memchr::memmem::find_iter(text.as_bytes(), OPEN.as_bytes()) {
        let rest = &text[at + OPEN.len()..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(CLOSE) {
            ranges.push((at, at + OPEN.len() + digits + CLOSE.len()));
        }
    }
    ranges
}

/// How many redaction markers `text` holds.
pub fn markers(text: &str) -> usize {
    marker_ranges(text).len()
}

/// `<redacted N chars>` for `secret`.
pub fn placeholder(secret: &str) -> String {
    format!("<redacted {} chars>", secret.chars().count())
}

/// Whether `received` equals `recorded`, where each `<redacted N chars>` of `recorded` stands
/// for any N characters.
pub fn matches_redacted(recorded: &str, received: &str) -> bool {
    const OPEN: &str = "<redacted ";
    const CLOSE: &str = " chars>";
    let mut rest_recorded = recorded;
    let mut rest_received = received;
    loop {
        let Some(at) = rest_recorded.find(OPEN) else {
            return rest_recorded == rest_received;
        };
        let literal = &rest_recorded[..at];
        let Some(after_literal) = rest_received.strip_prefix(literal) else {
            return false;
        };
        let tail = &rest_recorded[at + OPEN.len()..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let count = tail[..digits].parse::<usize>().ok();
        match (count, tail[digits..].strip_prefix(CLOSE)) {
            (Some(count), Some(after_marker)) => {
                let mut chars = after_literal.char_indices();
                let skipped = match chars.nth(count) {
                    Some((offset, _)) => offset,
                    None if after_literal.chars().count() == count => after_literal.len(),
                    None => return false,
                };
                rest_received = &after_literal[skipped..];
                rest_recorded = after_marker;
            }
            // Not a marker after all: compare it literally.
            _ => {
                let Some(after) = after_literal.strip_prefix(OPEN) else {
                    return false;
                };
                rest_received = after;
                rest_recorded = tail;
            }
        }
    }
}
