//! Secrets out of recordings: API keys, bearer and OAuth tokens, the values of secret
//! environment variables.
//!
//! Redaction applies to what is written to a recording only, never to what is relayed. A
//! secret becomes `<redacted N chars>` (N counts characters), so a recording still shows the
//! shape of what was there, and [`matches_redacted`] lets a replay accept the live value in its
//! place.
//!
//! What counts as a secret:
//! * tokens with a known prefix: `sk-ant-…` (API keys and OAuth tokens of Anthropic),
//!   `sk-proj-…`, `ghp_…`, `gho_…`, `github_pat_…`, `xoxb-…`, `xoxp-…`;
//! * the value of an environment variable whose name contains `KEY`, `TOKEN`, `SECRET`,
//!   `PASSWORD` or `AUTH` (in the `env` of the meta line always; inside frames when it is at
//!   least 8 characters long, wherever it appears);
//! * the token after `Bearer ` (any case);
//! * the value after a secret-looking name followed by `:` or `=`, quoted or not
//!   (`Authorization: Basic …`, `"access_token": "…"`, `?api_key=…`), and in JSON frames the
//!   string value of such a key. Secret-looking names: `authorization`, and names ending in
//!   `token`, `secret`, `password`, `passwd`, `api_key` / `apikey` / `api-key`, `private_key`
//!   (not `apiKeySource` or `input_tokens`).

use std::borrow::Cow;

use serde_json::Value;

/// Token prefixes that mark a secret on their own.
const PREFIXES: [&str; 7] = [
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

/// Secret values shorter than this are not searched for inside frames (too many false hits).
const MIN_VALUE_LEN: usize = 8;

/// Replaces secrets with `<redacted N chars>`.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Values of secret environment variables, longest first.
    values: Vec<String>,
}

impl Redactor {
    /// A redactor that also looks for the values of the secret variables of `env`.
    pub fn from_env<'a>(env: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut values: Vec<String> = env
            .into_iter()
            .filter(|(name, value)| is_secret_env(name) && value.chars().count() >= MIN_VALUE_LEN)
            .map(|(_, value)| value.to_owned())
            .collect();
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.dedup();
        Self { values }
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
        let mut spans = Vec::new();
        prefixed_tokens(text, &mut spans);
        bearer_tokens(text, &mut spans);
        named_values(text, &mut spans);
        for value in &self.values {
            spans.extend(
                text.match_indices(value.as_str())
                    .map(|(at, v)| (at, at + v.len())),
            );
        }
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        spans.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut done = 0;
        let mut iter = spans.into_iter().peekable();
        while let Some((start, mut end)) = iter.next() {
            while let Some(&(next_start, next_end)) = iter.peek() {
                if next_start > end {
                    break;
                }
                end = end.max(next_end);
                iter.next();
            }
            let start = start.max(done);
            if start >= end {
                continue;
            }
            out.push_str(&text[done..start]);
            out.push_str(&placeholder(&text[start..end]));
            done = end;
        }
        out.push_str(&text[done..]);
        Cow::Owned(out)
    }

    /// A JSON line with every secret replaced: the line itself when there was none, else the
    /// value re-serialized with its strings redacted (and the strings of secret-named keys
    /// replaced whole).
    pub fn json_line<'a>(&self, line: &'a str) -> Cow<'a, str> {
        if let Cow::Borrowed(_) = self.text(line) {
            // The text holds no secret, but a secret-named key's value is redacted whole
            // however short (`"Authorization": "Basic zz"`): look closer when one may be there.
            if !may_name_a_secret(line) {
                return Cow::Borrowed(line);
            }
        }
        match serde_json::from_str::<Value>(line) {
            Ok(mut value) => {
                let before = value.clone();
                self.value(&mut value);
                // Unchanged: the line as it came (re-serializing could reorder its keys).
                if value == before {
                    return Cow::Borrowed(line);
                }
                Cow::Owned(value.to_string())
            }
            Err(_) => self.text(line),
        }
    }

    /// Redacts every string inside `value`.
    pub fn value(&self, value: &mut Value) {
        match value {
            Value::String(text) => {
                if let Cow::Owned(redacted) = self.text(text) {
                    *text = redacted;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.value(item)),
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    match item {
                        Value::String(text) if is_secret_name(key) && !text.is_empty() => {
                            *text = placeholder(text);
                        }
                        _ => self.value(item),
                    }
                }
            }
            _ => {}
        }
    }
}

/// Whether an environment variable's name marks its value as secret.
pub fn is_secret_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_ENV_PARTS.iter().any(|part| upper.contains(part))
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

/// Whether `line` holds a word that a secret-looking key name contains (a cheap test before
/// parsing it).
fn may_name_a_secret(line: &str) -> bool {
    const WORDS: [&str; 5] = ["token", "secret", "passw", "authorization", "key"];
    let lower_hit = |word: &str| {
        line.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    };
    WORDS.iter().any(|word| lower_hit(word))
}

/// Whether a key or parameter name looks like it holds a secret.
fn is_secret_name(name: &str) -> bool {
    const ENDINGS: [&str; 8] = [
        "token",
        "secret",
        "password",
        "passwd",
        "api_key",
        "apikey",
        "access_key",
        "private_key",
    ];
    let name = name.to_ascii_lowercase().replace('-', "_");
    name == "authorization" || ENDINGS.iter().any(|ending| name.ends_with(ending))
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

fn prefixed_tokens(text: &str, spans: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    for prefix in PREFIXES {
        for (at, _) in text.match_indices(prefix) {
            if at > 0 && is_name_byte(bytes[at - 1]) {
                continue;
            }
            let end = token_end(bytes, at + prefix.len());
            if end > at + prefix.len() {
                spans.push((at, end));
            }
        }
    }
}

fn bearer_tokens(text: &str, spans: &mut Vec<(usize, usize)>) {
    const BEARER: &[u8] = b"bearer ";
    let bytes = text.as_bytes();
    let mut at = 0;
    while at + BEARER.len() <= bytes.len() {
        if bytes[at..at + BEARER.len()].eq_ignore_ascii_case(BEARER)
            && (at == 0 || !is_name_byte(bytes[at - 1]))
        {
            let mut start = at + BEARER.len();
            while bytes.get(start) == Some(&b' ') {
                start += 1;
            }
            let end = token_end(bytes, start);
            if end - start >= MIN_VALUE_LEN {
                spans.push((start, end));
            }
            at = end.max(at + 1);
        } else {
            at += 1;
        }
    }
}

/// `name: value`, `name=value`, `"name": "value"` (also JSON-escaped inside a string) where
/// the name looks secret.
fn named_values(text: &str, spans: &mut Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    for (at, &byte) in bytes.iter().enumerate() {
        if byte != b':' && byte != b'=' {
            continue;
        }
        // Back over spaces and closing quotes (`"` or `\"`) to the end of the name.
        let mut end = at;
        while end > 0 && matches!(bytes[end - 1], b' ' | b'"' | b'\\' | b'\'') {
            end -= 1;
        }
        let mut start = end;
        while start > 0 && is_name_byte(bytes[start - 1]) {
            start -= 1;
        }
        if start == end || end - start > 64 || !is_secret_name(&text[start..end]) {
            continue;
        }
        // Forward over spaces and opening quotes, and a scheme word (`Bearer`, `Basic`, …).
        let mut value = at + 1;
        while value < bytes.len() && matches!(bytes[value], b' ' | b'"' | b'\\' | b'\'') {
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
        let value_end = token_end(bytes, value);
        // A marker that is already there, numbers (`max_tokens: 100`) and empty values stay.
        let candidate = &text[value..value_end];
        if candidate.len() >= 4 && !candidate.bytes().all(|b| b.is_ascii_digit()) {
            spans.push((value, value_end));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor() -> Redactor {
        Redactor::from_env([
            ("MY_SERVICE_TOKEN", "hunter2hunter2"),
            ("HOME", "/home/someone"),
            ("SHORT_KEY", "abc"),
        ])
    }

    #[test]
    fn api_keys_and_env_values_in_text() {
        let r = redactor();
        assert_eq!(
            r.text("key sk-ant-api03-AbC_12-x, ok"),
            "key <redacted 21 chars>, ok"
        );
        assert_eq!(
            r.text("pw hunter2hunter2 at /home/someone"),
            "pw <redacted 14 chars> at /home/someone"
        );
        assert!(matches!(r.text("nothing here: 12"), Cow::Borrowed(_)));
        assert_eq!(r.text("abc stays"), "abc stays");
    }

    #[test]
    fn bearer_authorization_and_named_values() {
        let r = Redactor::default();
        assert_eq!(
            r.text("Authorization: Bearer abcdefghijkl"),
            "Authorization: Bearer <redacted 12 chars>"
        );
        assert_eq!(
            r.text("curl -H 'authorization: Basic dXNlcjpwYXNz' x"),
            "curl -H 'authorization: Basic <redacted 12 chars>' x"
        );
        assert_eq!(
            r.text(r#"{\"access_token\": \"ya29.A0xyz\", \"max_tokens\": 100}"#),
            r#"{\"access_token\": \"<redacted 10 chars>\", \"max_tokens\": 100}"#
        );
        assert_eq!(
            r.text("https://x.test/cb?code=1&refresh_token=r3fr3sh&x=1"),
            "https://x.test/cb?code=1&refresh_token=<redacted 7 chars>&x=1"
        );
        // Usage counters and ordinary keys are left alone.
        let usage = r#"{"input_tokens": 100, "output_tokens": 20, "type": "text"}"#;
        assert!(matches!(r.text(usage), Cow::Borrowed(_)));
    }

    #[test]
    fn json_lines_keep_their_shape() {
        let r = redactor();
        let line = r#"{"type":"user","message":{"content":"my key is sk-ant-api03-zzzzzzzz"},"password":"pw1"}"#;
        let out: Value = serde_json::from_str(&r.json_line(line)).unwrap();
        assert_eq!(out["message"]["content"], "my key is <redacted 21 chars>");
        assert_eq!(out["password"], "<redacted 3 chars>");
        let clean = r#"{"type":"keep_alive"}"#;
        assert!(matches!(r.json_line(clean), Cow::Borrowed(_)));
    }

    #[test]
    fn env_values_in_the_meta_line() {
        let r = redactor();
        assert_eq!(r.env_value("SHORT_KEY", "abc"), "<redacted 3 chars>");
        assert_eq!(r.env_value("HOME", "/home/someone"), "/home/someone");
        assert_eq!(
            r.env_value("OTHER", "x sk-ant-oat01-secret"),
            "x <redacted 19 chars>"
        );
    }

    #[test]
    fn redacted_text_matches_any_value_of_that_length() {
        assert!(matches_redacted("key <redacted 3 chars>!", "key abc!"));
        assert!(matches_redacted("<redacted 2 chars>", "é1"));
        assert!(!matches_redacted("key <redacted 3 chars>!", "key abcd!"));
        assert!(!matches_redacted("key <redacted 3 chars>", "key ab"));
        assert!(matches_redacted("plain", "plain"));
        assert!(!matches_redacted("plain", "plains"));
        assert!(matches_redacted("<redacted x chars>", "<redacted x chars>"));
    }

    /// Every kind of secret the module docs (and docs/reliability.md) list, one case each: the
    /// secret must not appear in the recorded text, what is around it must.
    #[test]
    fn every_listed_secret_is_redacted() {
        let env = [
            ("ANTHROPIC_API_KEY", "plainvalue-0001"),
            ("GH_TOKEN", "plainvalue-0002"),
            ("CLIENT_SECRET", "plainvalue-0003"),
            ("DB_PASSWORD", "plainvalue-0004"),
            ("PROXY_AUTH", "plainvalue-0005"),
        ];
        let r = Redactor::from_env(env);
        let cases = [
            // Tokens with a known prefix.
            ("sk-ant-api03-abcdef", "sk-ant-api03-abcdef"),
            ("sk-ant-oat01-abcdef", "sk-ant-oat01-abcdef"),
            ("sk-proj-abcdef", "sk-proj-abcdef"),
            ("ghp_abcdef123", "ghp_abcdef123"),
            ("gho_abcdef123", "gho_abcdef123"),
            ("github_pat_abc123", "github_pat_abc123"),
            ("xoxb-123-abc", "xoxb-123-abc"),
            ("xoxp-123-abc", "xoxp-123-abc"),
            // Values of secret-named environment variables, found inside frames.
            ("key plainvalue-0001 end", "plainvalue-0001"),
            ("gh plainvalue-0002 end", "plainvalue-0002"),
            ("cs plainvalue-0003 end", "plainvalue-0003"),
            ("db plainvalue-0004 end", "plainvalue-0004"),
            ("px plainvalue-0005 end", "plainvalue-0005"),
            // Bearer tokens, Authorization headers.
            ("bearer tok3n-value", "tok3n-value"),
            ("Authorization: Basic dXNlcjpw", "dXNlcjpw"),
            ("Authorization=opaque-v4lue", "opaque-v4lue"),
            // Values after secret-looking names.
            ("\"access_token\": \"at-value\"", "at-value"),
            ("refresh_token=rt-value&x=1", "rt-value"),
            ("client_secret: cs-value", "cs-value"),
            ("password=pw-value", "pw-value"),
            ("passwd: pd-value", "pd-value"),
            ("?api_key=ak-value", "ak-value"),
            ("apikey=ak2-value", "ak2-value"),
            ("api-key: ak3-value", "ak3-value"),
            ("private_key=pk-value", "pk-value"),
        ];
        for (text, secret) in cases {
            let recorded = r.text(text);
            assert!(
                !recorded.contains(secret),
                "{text:?} recorded as {recorded:?}"
            );
            assert!(
                recorded.contains("<redacted"),
                "{text:?} recorded as {recorded:?}"
            );
        }
        // In the meta line every secret-named variable is redacted, however short.
        for (name, _) in env {
            assert_eq!(r.env_value(name, "x"), "<redacted 1 chars>", "{name}");
        }
        // JSON frames: the string value of a secret-named key, whole.
        let line =
            r#"{"type":"x","headers":{"Authorization":"Basic zz","X":"y"},"client_secret":"s3"}"#;
        let recorded: Value = serde_json::from_str(&r.json_line(line)).unwrap();
        assert_eq!(recorded["headers"]["Authorization"], "<redacted 8 chars>");
        assert_eq!(recorded["headers"]["X"], "y");
        assert_eq!(recorded["client_secret"], "<redacted 2 chars>");
        // Not secrets: names that only look like it.
        let kept = r#"{"type":"result","usage":{"input_tokens":5},"apiKeySource":"none"}"#;
        assert!(matches!(r.json_line(kept), Cow::Borrowed(_)));
    }
}
