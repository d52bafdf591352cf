//! Redaction through layers of escaping: a string of a frame may hold a JSON document (a tool
//! result whose text is JSON), whose strings may hold JSON again, and so on. Each layer is
//! unescaped (up to [`MAX_LAYERS`]) and looked at with the text rules and, when it is JSON,
//! for secret-named keys; what is found is mapped back to the escaped text it came from.

use std::borrow::Cow;

use super::escapes::{escape, raw_offsets, unescape};
use super::json::{scan, Leaf};
use super::patterns::{is_secret_name, may_name_a_secret, text_spans, Literals};
use super::{placeholder, KnownSecrets};

/// Layers of escaping taken off, at most, below the text a frame's string holds.
pub const MAX_LAYERS: usize = 8;

/// One replacement: `start..end` becomes `with`, or the marker of what it covers (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edit {
    pub start: usize,
    pub end: usize,
    pub with: Option<String>,
}

impl Edit {
    pub(super) fn marker(start: usize, end: usize) -> Self {
        Self {
            start,
            end,
            with: None,
        }
    }
}

/// What counts as secret besides the text rules.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules<'a> {
    pub literals: &'a Literals,
    /// Whether every value under `env` and `headers` keys is secret too (configurations
    /// given on the command line: MCP servers, settings).
    pub config: bool,
}

impl Rules<'_> {
    fn is_secret_key(&self, name: &str) -> bool {
        is_secret_name(name)
            || (self.config
                && (name.eq_ignore_ascii_case("env") || name.eq_ignore_ascii_case("headers")))
    }

    /// Whether `text` may hold a secret-named key (else its JSON needs no look).
    fn may_hold_secret_keys(&self, text: &str) -> bool {
        self.config || may_name_a_secret(text)
    }
}

/// The edits that redact `text`, a layer of plain (unescaped) text `depth` layers below a
/// frame's string; sorted and not overlapping.
pub(super) fn text_edits(text: &str, depth: usize, rules: &Rules) -> Vec<Edit> {
    let mut edits = Vec::new();
    layer(text, depth, rules, &mut edits);
    outside_markers(text, merge(edits))
}

/// `edits` with the markers already in `text` taken out of them, so that redacting what was
/// redacted changes nothing (a store behind the mirror, a session scrubbed twice).
pub(super) fn outside_markers(text: &str, edits: Vec<Edit>) -> Vec<Edit> {
    if edits.is_empty() || memchr::memmem::find(text.as_bytes(), b"<redacted ").is_none() {
        return edits;
    }
    let markers = super::marker_ranges(text);
    let mut out = Vec::with_capacity(edits.len());
    for edit in edits {
        let inside: Vec<&(usize, usize)> = markers
            .iter()
            .filter(|(start, end)| *end > edit.start && *start < edit.end)
            .collect();
        if inside.is_empty() {
            out.push(edit);
            continue;
        }
        let mut start = edit.start;
        for &&(marker_start, marker_end) in &inside {
            if marker_start > start {
                out.push(Edit::marker(start, marker_start));
            }
            start = start.max(marker_end);
        }
        if start < edit.end {
            out.push(Edit::marker(start, edit.end));
        }
    }
    out
}

fn layer(text: &str, depth: usize, rules: &Rules, edits: &mut Vec<Edit>) {
    let mut spans = Vec::new();
    text_spans(text, rules.literals, &mut spans);
    edits.extend(spans.into_iter().map(|(s, e)| Edit::marker(s, e)));
    // A layer as deep as the limit is still read as JSON, but its strings are not unescaped.
    let escaped = depth < MAX_LAYERS && memchr::memchr(b'\\', text.as_bytes()).is_some();
    let keyed = rules.may_hold_secret_keys(text);
    if !escaped && !keyed {
        return;
    }
    let first = text.len() - text.trim_start().len();
    if matches!(text.as_bytes().get(first), Some(b'{' | b'[')) {
        let scanned = scan(
            text,
            first,
            &|name| rules.is_secret_key(name),
            &mut |leaf| {
                leaf_edits(text, leaf, depth, rules, edits);
            },
        );
        if scanned.complete && text[scanned.end..].trim().is_empty() {
            return;
        }
    }
    // Prose that may quote JSON: objects inside it, then the text unescaped once (escaped
    // JSON quoted in a log line, a string holding JSON that holds JSON…).
    if keyed {
        embedded_objects(text, rules, edits);
    }
    if escaped {
        let plain = unescape(text);
        if plain != text {
            let inner = text_edits(&plain, depth + 1, rules);
            edits.extend(map_back(text, inner));
        }
    }
}

/// The edits for one leaf of a JSON document found in a layer.
fn leaf_edits(text: &str, leaf: Leaf, depth: usize, rules: &Rules, edits: &mut Vec<Edit>) {
    match leaf {
        Leaf::Str {
            interior, secret, ..
        } if secret => {
            if !interior.is_empty() {
                edits.push(Edit::marker(interior.start, interior.end));
            }
        }
        Leaf::Str {
            interior,
            escaped: true,
            ..
        } if depth < MAX_LAYERS => {
            let raw = &text[interior.clone()];
            let inner = text_edits(&unescape(raw), depth + 1, rules);
            edits.extend(map_back(raw, inner).into_iter().map(|edit| Edit {
                start: edit.start + interior.start,
                end: edit.end + interior.start,
                with: edit.with,
            }));
        }
        // A plain string's text is the layer's own text: the text rules saw it.
        Leaf::Str { .. } => {}
        Leaf::SecretNumber(range) => {
            let marker = placeholder(&text[range.clone()]);
            edits.push(Edit {
                start: range.start,
                end: range.end,
                with: Some(format!("\"{marker}\"")),
            });
        }
    }
}

/// Secret-named keys in the JSON objects that prose holds (`config: {"password": …}`). The
/// work is bounded: a few times the text's length.
fn embedded_objects(text: &str, rules: &Rules, edits: &mut Vec<Edit>) {
    let budget = 4 * text.len() + 4096;
    let mut work = 0;
    let mut skip_to = 0;
    for at in memchr::memchr_iter(b'{', text.as_bytes()) {
        if at < skip_to {
            continue;
        }
        let scanned = scan(text, at, &|name| rules.is_secret_key(name), &mut |leaf| {
            if matches!(leaf, Leaf::Str { secret: true, .. } | Leaf::SecretNumber(_)) {
                leaf_edits(text, leaf, MAX_LAYERS, rules, edits);
            }
        });
        if scanned.complete {
            skip_to = scanned.end;
        }
        work += scanned.end - at;
        if work > budget {
            break;
        }
    }
}

/// Edits of `unescape(raw)` moved onto `raw`: ranges widened to whole escapes, replacement
/// text escaped again.
pub(super) fn map_back(raw: &str, inner: Vec<Edit>) -> Vec<Edit> {
    if inner.is_empty() {
        return inner;
    }
    let offsets: Vec<usize> = inner.iter().flat_map(|e| [e.start, e.end]).collect();
    let raw_at = raw_offsets(raw, &offsets);
    inner
        .into_iter()
        .zip(raw_at.chunks(2))
        .map(|(edit, at)| Edit {
            start: at[0],
            end: at[1],
            with: edit.with.map(|text| escape(&text)),
        })
        .collect()
}

/// Sorted, with overlapping edits made one marker over both (touching markers join too).
pub(super) fn merge(mut edits: Vec<Edit>) -> Vec<Edit> {
    edits.retain(|edit| edit.start < edit.end);
    edits.sort_unstable_by_key(|edit| (edit.start, edit.end));
    let mut merged: Vec<Edit> = Vec::with_capacity(edits.len());
    for edit in edits {
        if let Some(last) = merged.last_mut() {
            if *last == edit {
                continue;
            }
            if edit.start < last.end {
                // Inside a marker: nothing to add. Otherwise one marker over both.
                if edit.end > last.end || last.with.is_some() {
                    last.with = None;
                    last.end = last.end.max(edit.end);
                }
                continue;
            }
            if edit.start == last.end && last.with.is_none() && edit.with.is_none() {
                last.end = edit.end;
                continue;
            }
        }
        merged.push(edit);
    }
    merged
}

/// `text` with `edits` (sorted, not overlapping) applied; markers count the characters of
/// `text` they replace.
pub(super) fn apply<'a>(text: &'a str, edits: &[Edit]) -> Cow<'a, str> {
    if edits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for edit in edits {
        out.push_str(&text[done..edit.start]);
        match &edit.with {
            Some(with) => out.push_str(with),
            None => out.push_str(&placeholder(&text[edit.start..edit.end])),
        }
        done = edit.end;
    }
    out.push_str(&text[done..]);
    Cow::Owned(out)
}

/// The edits that redact a JSON frame's `line` in place: secret-named keys' values whole,
/// and each string through its layers. `extra`: the secrets of one string (its interior's
/// range in `line`, and spans of its unescaped text), found by reading it with the frames
/// around it, used instead of what the string alone shows. `None` when `line` is not one
/// JSON value.
pub(super) fn json_line_edits(
    line: &str,
    rules: &Rules,
    extra: Option<KnownSecrets>,
) -> Option<Vec<Edit>> {
    let first = line.len() - line.trim_start().len();
    let mut edits = Vec::new();
    let scanned = scan(
        line,
        first,
        &|name| rules.is_secret_key(name),
        &mut |leaf| {
            let Leaf::Str {
                interior,
                escaped,
                secret,
                ..
            } = leaf
            else {
                if let Leaf::SecretNumber(range) = leaf {
                    let marker = placeholder(&line[range.clone()]);
                    edits.push(Edit {
                        start: range.start,
                        end: range.end,
                        with: Some(format!("\"{marker}\"")),
                    });
                }
                return;
            };
            let raw = &line[interior.clone()];
            let plain = if escaped {
                Cow::Owned(unescape(raw))
            } else {
                Cow::Borrowed(raw)
            };
            let known = extra
                .filter(|known| *known.interior == interior)
                .map(|known| known.spans);
            let inner = if secret {
                if plain.is_empty() {
                    return;
                }
                outside_markers(&plain, vec![Edit::marker(0, plain.len())])
            } else if let Some(spans) = known {
                // Found with the text around it: better than this string alone.
                spans.iter().map(|&(s, e)| Edit::marker(s, e)).collect()
            } else {
                text_edits(&plain, 1, rules)
            };
            if inner.is_empty() {
                return;
            }
            // Markers count the characters of the string as a reader of the frame sees it.
            let inner: Vec<Edit> = merge(inner)
                .into_iter()
                .map(|edit| Edit {
                    with: Some(
                        edit.with
                            .unwrap_or_else(|| placeholder(&plain[edit.start..edit.end])),
                    ),
                    ..edit
                })
                .collect();
            let mapped = if escaped { map_back(raw, inner) } else { inner };
            edits.extend(mapped.into_iter().map(|edit| Edit {
                start: edit.start + interior.start,
                end: edit.end + interior.start,
                with: edit.with,
            }));
        },
    );
    if !scanned.complete || !line[scanned.end..].trim().is_empty() {
        return None;
    }
    Some(merge(edits))
}
