//! A tolerant JSON scanner that says where each leaf is, and whether it sits under a
//! secret-named key (at any depth, in any shape: a string, a number, every leaf of an array or
//! an object). Redaction edits the text in place at those places, so a recorded frame keeps
//! its bytes, order and spacing everywhere else.
//!
//! Tolerant: it reports the leaves it read before an error, and where it stopped, so a
//! document cut short (a tool's output truncated mid-way) still has its complete members
//! redacted.

use std::ops::Range;

use super::escapes::unescape;

/// Containers nested deeper than this end the scan (as an error): the stack stays small.
const MAX_NESTING: usize = 512;

/// A string or number read by [`scan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Leaf {
    /// A string: the text between its quotes, whether that holds a backslash, whether it is
    /// an object's key, and whether it is a secret (under a secret-named key).
    Str {
        interior: Range<usize>,
        escaped: bool,
        key: bool,
        secret: bool,
    },
    /// A number under a secret-named key (other numbers are not reported).
    SecretNumber(Range<usize>),
}

/// Where a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Scanned {
    /// The offset after the last byte read.
    pub end: usize,
    /// Whether one whole JSON value was read.
    pub complete: bool,
}

enum State {
    Value,
    AfterValue,
    Key,
}

/// Reads one JSON value of `text` from `start` (at its first byte), reporting each leaf to
/// `visit`. `is_secret_key` decides which keys hold secrets.
pub(super) fn scan(
    text: &str,
    start: usize,
    is_secret_key: &dyn Fn(&str) -> bool,
    visit: &mut dyn FnMut(Leaf),
) -> Scanned {
    let bytes = text.as_bytes();
    // (is an object, is under a secret key) for each open container.
    let mut stack: Vec<(bool, bool)> = Vec::new();
    let mut at = start;
    let mut secret = false;
    let mut state = State::Value;
    let stop = |at: usize| Scanned {
        end: at,
        complete: false,
    };
    loop {
        if matches!(state, State::AfterValue) && stack.is_empty() {
            return Scanned {
                end: at,
                complete: true,
            };
        }
        at = skip_space(bytes, at);
        let Some(&byte) = bytes.get(at) else {
            return stop(at);
        };
        match state {
            State::Value => match byte {
                b'{' | b'[' => {
                    if stack.len() >= MAX_NESTING {
                        return stop(at);
                    }
                    let object = byte == b'{';
                    stack.push((object, secret));
                    at = skip_space(bytes, at + 1);
                    let close = if object { b'}' } else { b']' };
                    if bytes.get(at) == Some(&close) {
                        stack.pop();
                        at += 1;
                        state = State::AfterValue;
                    } else if object {
                        state = State::Key;
                    }
                }
                b'"' => {
                    let Some((interior, escaped)) = string(bytes, at) else {
                        return stop(at);
                    };
                    at = interior.end + 1;
                    visit(Leaf::Str {
                        interior,
                        escaped,
                        key: false,
                        secret,
                    });
                    state = State::AfterValue;
                }
                b'-' | b'0'..=b'9' => {
                    let end = at
                        + bytes[at..]
                            .iter()
                            .take_while(|b| {
                                matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                            })
                            .count();
                    if secret {
                        visit(Leaf::SecretNumber(at..end));
                    }
                    at = end;
                    state = State::AfterValue;
                }
                _ => {
                    let word = [&b"true"[..], b"false", b"null"]
                        .into_iter()
                        .find(|word| bytes[at..].starts_with(word));
                    let Some(word) = word else {
                        return stop(at);
                    };
                    at += word.len();
                    state = State::AfterValue;
                }
            },
            State::AfterValue => {
                let Some(&(object, container_secret)) = stack.last() else {
                    unreachable!("an empty stack ends the scan above");
                };
                match byte {
                    b',' => {
                        at += 1;
                        if object {
                            state = State::Key;
                        } else {
                            secret = container_secret;
                            state = State::Value;
                        }
                    }
                    b'}' if object => {
                        stack.pop();
                        at += 1;
                    }
                    b']' if !object => {
                        stack.pop();
                        at += 1;
                    }
                    _ => return stop(at),
                }
            }
            State::Key => {
                let container_secret = stack.last().is_some_and(|&(_, s)| s);
                if byte != b'"' {
                    return stop(at);
                }
                let Some((interior, escaped)) = string(bytes, at) else {
                    return stop(at);
                };
                let name = &text[interior.clone()];
                secret = container_secret
                    || if escaped {
                        is_secret_key(&unescape(name))
                    } else {
                        is_secret_key(name)
                    };
                at = skip_space(bytes, interior.end + 1);
                visit(Leaf::Str {
                    interior,
                    escaped,
                    key: true,
                    secret: false,
                });
                if bytes.get(at) != Some(&b':') {
                    return stop(at);
                }
                at += 1;
                state = State::Value;
            }
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The interior of the string whose opening quote is at `at`, and whether it holds a
/// backslash; `None` if it does not end.
fn string(bytes: &[u8], at: usize) -> Option<(Range<usize>, bool)> {
    let start = at + 1;
    let mut i = start;
    let mut escaped = false;
    loop {
        let n = memchr::memchr2(b'"', b'\\', &bytes[i..])?;
        i += n;
        if bytes[i] == b'"' {
            return Some((start..i, escaped));
        }
        escaped = true;
        i += 2;
        if i > bytes.len() {
            return None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(text: &str) -> (Vec<(String, bool)>, Scanned) {
        let mut found = Vec::new();
        let is_secret = |name: &str| name == "pw";
        let scanned = scan(text, 0, &is_secret, &mut |leaf| match leaf {
            Leaf::Str {
                interior,
                key: false,
                secret,
                ..
            } => found.push((text[interior].to_owned(), secret)),
            Leaf::SecretNumber(range) => found.push((text[range].to_owned(), true)),
            Leaf::Str { .. } => {}
        });
        (found, scanned)
    }

    #[test]
    fn secret_keys_mark_every_leaf_under_them() {
        let text = r#"{"a": "x", "pw": ["p1", {"k": "p2", "n": 12}, [3.5]], "b": [true, "y"], "c": {"pw": "p3"}}"#;
        let (found, scanned) = leaves(text);
        assert!(scanned.complete && scanned.end == text.len());
        let secret: Vec<&str> = found
            .iter()
            .filter(|(_, s)| *s)
            .map(|(t, _)| t.as_str())
            .collect();
        assert_eq!(secret, ["p1", "p2", "12", "3.5", "p3"]);
        let open: Vec<&str> = found
            .iter()
            .filter(|(_, s)| !*s)
            .map(|(t, _)| t.as_str())
            .collect();
        assert_eq!(open, ["x", "y"]);
    }

    #[test]
    fn a_cut_document_reports_what_it_read() {
        let text = r#"{"pw": "p1", "x": "a\"b", "pw": ["p2", "p3"#;
        let (found, scanned) = leaves(text);
        assert!(!scanned.complete);
        assert_eq!(
            found,
            [
                ("p1".to_owned(), true),
                ("a\\\"b".to_owned(), false),
                ("p2".to_owned(), true)
            ]
        );
        let (_, deep) = leaves(&"[".repeat(MAX_NESTING + 10));
        assert!(!deep.complete);
    }
}
