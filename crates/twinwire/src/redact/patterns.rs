//! The text rules: what marks a secret in plain text. They run on every string of a frame
//! (after unescaping it, see `layers`), on lines that are not JSON, and on the recorded argv.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;

use super::Span;

/// Token prefixes that mark a secret on their own.
pub(super) const PREFIXES: [&str; 7] = [
    "sk-ant-",
    "sk-proj-",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "xoxp-",
];

/// Parts of environment variable names that mark their value as secret.
const SECRET_ENV_PARTS: [&str; 5] = ["KEY", "TOKEN", "SECRET", "PASSWORD", "AUTH"];

/// Endings of key and parameter names (lowercased, with `-`, `_`, `.` and spaces taken out)
/// that hold a secret. `token` but not `tokens` (`input_tokens` is a counter); `apikey` but
/// not `apikeysource`.
const SECRET_NAME_ENDINGS: [&str; 18] = [
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "signingkey",
    "sessionkey",
    "authorization",
    "auth",
    "cookie",
    "cookies",
    "credential",
    "credentials",
    "clientkey",
];

/// Words a secret name (as [`SECRET_NAME_ENDINGS`] reads it) always contains, in any case:
/// a line without any of them holds no secret-named key.
const SECRET_NAME_WORDS: [&str; 7] = [
    "token",
    "secret",
    "pass",
    "key",
    "auth",
    "cookie",
    "credential",
];

/// Secret values shorter than this are not searched for inside frames (too many false hits),
/// and bearer tokens shorter than this are not taken for tokens.
pub(super) const MIN_VALUE_LEN: usize = 8;

/// The longest name read before a `:` or `=` (longer runs are not names).
const MAX_NAME_LEN: usize = 64;

/// Whether an environment variable's name marks its value as secret.
pub fn is_secret_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_ENV_PARTS.iter().any(|part| upper.contains(part))
}

/// Whether a key or parameter name holds a secret: compared lowercased with `-`, `_`, `.`
/// and spaces ignored, so `apiKey`, `api_key`, `x-api-key`, `Proxy-Authorization`,
/// `clientSecret`, `refreshToken` and `Set-Cookie` all count. Every `Proxy-…` name with
/// `auth` in it counts too.
pub fn is_secret_name(name: &str) -> bool {
    if name.len() > MAX_NAME_LEN {
        return false;
    }
    let mut buf = [0u8; MAX_NAME_LEN];
    let mut len = 0;
    for byte in name.bytes() {
        if !matches!(byte, b'-' | b'_' | b'.' | b' ') {
            buf[len] = byte.to_ascii_lowercase();
            len += 1;
        }
    }
    let normalized = &buf[..len];
    SECRET_NAME_ENDINGS
        .iter()
        .any(|ending| normalized.ends_with(ending.as_bytes()))
        || (normalized.starts_with(b"proxy") && normalized.windows(4).any(|w| w == b"auth"))
}

/// Whether `text` holds a word that every secret name contains (a cheap test before looking
/// at a line's keys one by one).
pub(super) fn may_name_a_secret(text: &str) -> bool {
    static WORDS: OnceLock<AhoCorasick> = OnceLock::new();
    WORDS
        .get_or_init(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .build(SECRET_NAME_WORDS)
                .unwrap_or_else(|err| unreachable!("fixed patterns: {err}"))
        })
        .is_match(text)
}

/// Literal secrets searched for in one pass: the token prefixes, then the values of the
/// secret environment variables.
#[derive(Debug, Clone)]
pub(super) struct Literals {
    searcher: AhoCorasick,
}

impl Literals {
    /// `values`: the secret values to find wherever they appear.
    pub(super) fn new(values: &[String]) -> Self {
        let patterns = PREFIXES
            .iter()
            .map(|prefix| prefix.as_bytes())
            .chain(values.iter().map(|value| value.as_bytes()));
        let searcher = AhoCorasickBuilder::new()
            .match_kind(MatchKind::Standard)
            .build(patterns)
            .unwrap_or_else(|err| unreachable!("literal patterns: {err}"));
        Self { searcher }
    }

    fn find(&self, text: &str, spans: &mut Vec<Span>) {
        let bytes = text.as_bytes();
        // A token found already covers the prefixes inside it (`sk-ant-sk-ant-…` is read
        // once, not once per prefix: linear time).
        let mut covered = 0;
        for found in self.searcher.find_overlapping_iter(text) {
            let (at, end) = (found.start(), found.end());
            if found.pattern().as_usize() >= PREFIXES.len() {
                // The value of a secret environment variable, exactly.
                spans.push((at, end));
                continue;
            }
            if at < covered || (at > 0 && is_name_byte(bytes[at - 1])) {
                continue;
            }
            let token = token_end(bytes, end);
            if token > end {
                spans.push((at, token));
                covered = token;
            }
        }
    }
}

impl Default for Literals {
    fn default() -> Self {
        Self::new(&[])
    }
}

/// Every secret the text rules find in `text`, as byte ranges (unsorted, may overlap).
pub(super) fn text_spans(text: &str, literals: &Literals, spans: &mut Vec<Span>) {
    literals.find(text, spans);
    bearer_tokens(text, spans);
    named_values(text, spans);
    private_key_blocks(text, spans);
}

fn is_token_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~' | b'+' | b'/' | b'=')
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-')
}

/// Where a run of token bytes starting at `start` ends.
fn token_end(bytes: &[u8], start: usize) -> usize {
    start
        + bytes[start..]
            .iter()
            .take_while(|&&b| is_token_byte(b))
            .count()
}

fn bearer_tokens(text: &str, spans: &mut Vec<Span>) {
    const BEARER: &[u8] = b"bearer ";
    let bytes = text.as_bytes();
    for at in memchr::memchr2_iter(b'b', b'B', bytes) {
        if at + BEARER.len() > bytes.len()
            || !bytes[at..at + BEARER.len()].eq_ignore_ascii_case(BEARER)
            || (at > 0 && is_name_byte(bytes[at - 1]))
        {
            continue;
        }
        let mut start = at + BEARER.len();
        while bytes.get(start) == Some(&b' ') {
            start += 1;
        }
        let end = token_end(bytes, start);
        if end - start >= MIN_VALUE_LEN {
            spans.push((start, end));
        }
    }
}

/// `name: value`, `name=value`, `"name": "value"` (also escaped inside a string, any number
/// of times) where the name looks secret.
fn named_values(text: &str, spans: &mut Vec<Span>) {
    let bytes = text.as_bytes();
    // A value found already covers the separators inside it (`password=password=…` is read
    // once: linear time).
    let mut covered = 0;
    for at in memchr::memchr2_iter(b':', b'=', bytes) {
        if at < covered {
            continue;
        }
        // Back over spaces and closing quotes (`"`, `\"`, `\\\"`…) to the end of the name.
        let mut end = at;
        while end > 0
            && at - end < MAX_NAME_LEN
            && matches!(bytes[end - 1], b' ' | b'"' | b'\\' | b'\'')
        {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && end - start <= MAX_NAME_LEN && is_name_byte(bytes[start - 1]) {
            start -= 1;
        }
        if start == end || end - start > MAX_NAME_LEN || !is_secret_name(&text[start..end]) {
            continue;
        }
        // Forward over spaces and opening quotes, and a scheme word (`Bearer`, `Basic`, …).
        let mut value = at + 1;
        while value < bytes.len()
            && value - at <= MAX_NAME_LEN
            && matches!(bytes[value], b' ' | b'"' | b'\\' | b'\'')
        {
            value += 1;
        }
        let word_end = value
            + bytes[value..]
                .iter()
                .take_while(|b| b.is_ascii_alphabetic())
                .count();
        if bytes.get(word_end) == Some(&b' ')
            && matches!(
                text[value..word_end].to_ascii_lowercase().as_str(),
                "bearer" | "basic" | "token" | "digest"
            )
        {
            value = word_end;
            while bytes.get(value) == Some(&b' ') {
                value += 1;
            }
        }
        let name = &text[start..end];
        let value_end = if is_cookie_name(name) {
            // `Cookie: a=1; b=2`: every pair, up to the end of the line or the quote.
            value
                + bytes[value..]
                    .iter()
                    .take_while(|b| !matches!(b, b'\n' | b'\r' | b'"' | b'\\' | b'\''))
                    .count()
        } else {
            token_end(bytes, value)
        };
        // A marker that is already there, numbers (`max_tokens: 100`) and empty values stay.
        let candidate = &text[value..value_end];
        if candidate.len() >= 4 && !candidate.bytes().all(|b| b.is_ascii_digit()) {
            spans.push((value, value_end));
            covered = value_end;
        }
    }
}

fn is_cookie_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with("cookie") || lower.ends_with("cookies")
}

/// The body of a PEM private key (`-----BEGIN … PRIVATE KEY-----` to `-----END …`), or to the
/// end of the text when the end is not there (yet).
fn private_key_blocks(text: &str, spans: &mut Vec<Span>) {
    const BEGIN: &[u8] = b"-----BEGIN ";
    const DASHES: &[u8] = b"-----";
    // Built once: building a searcher costs more than a short string's search.
    static FINDER: OnceLock<memmem::Finder<'static>> = OnceLock::new();
    let finder = FINDER.get_or_init(|| memmem::Finder::new(BEGIN));
    let bytes = text.as_bytes();
    for at in finder.find_iter(bytes) {
        let label_start = at + BEGIN.len();
        let Some(label_len) = memmem::find(&bytes[label_start..], DASHES) else {
            continue;
        };
        let label = &bytes[label_start..label_start + label_len];
        if label.len() > MAX_NAME_LEN || memmem::find(label, b"PRIVATE KEY").is_none() {
            continue;
        }
        let body = label_start + label_len + DASHES.len();
        let Some(end) = memmem::find(&bytes[body..], b"-----END").map(|n| body + n) else {
            // No end: the rest is the key (and later blocks are inside it).
            spans.push((body, bytes.len()));
            break;
        };
        if end > body {
            spans.push((body, end));
        }
    }
}
