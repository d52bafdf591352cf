//! The recorder: secrets cut across streamed deltas, and the bounds on what it holds back.

use serde_json::{json, Value};

use super::redact::stream::{LOOKAHEAD, MAX_OPEN_BLOCKS};
use super::*;

const KEY: &str =
    "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1-Qq8Rr7Ss6Tt5Uu4Vv3Ww2Xx1Yy0Zz9_AaBbCc";

fn event(event: Value) -> String {
    json!({"type": "stream_event", "event": event, "parent_tool_use_id": null}).to_string()
}

fn delta(index: u64, text: &str) -> String {
    event(json!({"type": "content_block_delta", "index": index,
                 "delta": {"type": "text_delta", "text": text}}))
}

/// A recorder writing into a temporary directory.
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Self {
        Self {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> std::path::PathBuf {
        self.dir.path().join("record.jsonl")
    }

    fn recorder(&self, redactor: Redactor) -> Recorder {
        Recorder::create(&self.path(), redactor).unwrap()
    }

    /// Lines written so far.
    fn count(&self) -> usize {
        let text = std::fs::read(self.path()).unwrap();
        text.iter().filter(|&&b| b == b'\n').count()
    }

    fn lines(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path())
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }
}

/// Records `pieces` as the deltas of one streamed block; returns the recorded texts.
fn record_block(redactor: &Redactor, pieces: &[&str]) -> Vec<String> {
    let scratch = Scratch::new();
    let recorder = scratch.recorder(redactor.clone());
    recorder.frame(Direction::Out, &event(json!({"type": "message_start"})));
    for piece in pieces {
        recorder.frame(Direction::Out, &delta(0, piece));
    }
    recorder.frame(
        Direction::Out,
        &event(json!({"type": "content_block_stop", "index": 0})),
    );
    drop(recorder);
    scratch
        .lines()
        .iter()
        .filter(|l| l["msg"]["event"]["type"] == "content_block_delta")
        .map(|l| {
            l["msg"]["event"]["delta"]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// `recorded` is `original` with `secret` replaced by markers that add up to its length.
fn assert_only_secret_replaced(recorded: &[String], original: &[&str], secret: &str) {
    assert_eq!(recorded.len(), original.len());
    let whole = original.concat();
    let at = whole.find(secret).unwrap();
    let (before, after) = (&whole[..at], &whole[at + secret.len()..]);
    let joined = recorded.concat();
    let context = if whole.len() > 400 {
        format!("{} deltas recorded as {:?}", original.len(), short(&joined))
    } else {
        format!("{original:?} recorded as {recorded:?}")
    };
    assert!(
        joined.starts_with(before) && joined.ends_with(after),
        "{context}"
    );
    let mut middle = &joined[before.len()..joined.len() - after.len()];
    let mut counted = 0;
    while let Some(rest) = middle.strip_prefix("<redacted ") {
        let (count, tail) = rest.split_once(" chars>").unwrap();
        counted += count.parse::<usize>().unwrap();
        middle = tail;
    }
    assert!(middle.is_empty(), "{context}");
    assert_eq!(counted, secret.chars().count(), "{context}");
    for (recorded, original) in recorded.iter().zip(original) {
        assert!(redact::matches_redacted(recorded, original), "{context}");
    }
}

/// The part of `text` around its first marker, or its start.
fn short(text: &str) -> &str {
    let at = text.find("<redacted").unwrap_or(0);
    let start = at.saturating_sub(100);
    let start = (0..=start)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let end = (at + 300).min(text.len());
    let end = (end..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len());
    &text[start..end]
}

#[test]
fn every_cut_of_a_key_in_two_deltas_is_redacted() {
    let env_secret = "plain-env-value-0123456789";
    let redactor = Redactor::from_env([("SERVICE_TOKEN", env_secret)]);
    let cases = [
        (format!("my key {KEY} is here"), KEY.to_owned()),
        (format!("pw {env_secret} end"), env_secret.to_owned()),
        (
            "set password=hunter2hunter2 ok".to_owned(),
            "hunter2hunter2".to_owned(),
        ),
        (
            "h: Authorization: Bearer abcdefghijklmnop\nx".to_owned(),
            "abcdefghijklmnop".to_owned(),
        ),
    ];
    for (text, secret) in &cases {
        for cut in 1..text.len() {
            let pieces = [&text[..cut], &text[cut..]];
            assert_only_secret_replaced(&record_block(&redactor, &pieces), &pieces, secret);
        }
        // Three pieces, cuts every few bytes.
        for first in (1..text.len()).step_by(5) {
            for second in (first + 1..text.len()).step_by(7) {
                let pieces = [&text[..first], &text[first..second], &text[second..]];
                assert_only_secret_replaced(&record_block(&redactor, &pieces), &pieces, secret);
            }
        }
    }
}

#[test]
fn a_key_in_one_character_deltas_inside_a_long_block_is_redacted() {
    // Enough text around the key that deltas are written while the block goes on.
    let text = format!(
        "{} {KEY}{}",
        "a".repeat(3 * LOOKAHEAD + 17),
        " b".repeat(2 * LOOKAHEAD)
    );
    let pieces: Vec<&str> = (0..text.len()).map(|i| &text[i..i + 1]).collect();
    let recorded = record_block(&Redactor::default(), &pieces);
    assert_only_secret_replaced(&recorded, &pieces, KEY);
}

/// While a block goes on, a delta is written once at most `LOOKAHEAD` + 256 bytes of text
/// have followed it; everything is written when the recorder ends.
#[test]
fn the_recording_lags_by_a_bounded_window() {
    let scratch = Scratch::new();
    let recorder = scratch.recorder(Redactor::default());
    let total = 4 * LOOKAHEAD;
    let mut most_behind = 0;
    for sent in 1..=total {
        recorder.frame(Direction::Out, &delta(0, "x"));
        let written = scratch.count();
        let behind = sent - written;
        most_behind = most_behind.max(behind);
        assert!(
            behind <= LOOKAHEAD + 256,
            "{behind} deltas held after {sent}"
        );
    }
    assert!(most_behind >= LOOKAHEAD, "{most_behind}: deltas are held");
    drop(recorder);
    assert_eq!(scratch.lines().len(), total);
}

/// Lines behind a held delta wait in order, up to the limit; past it everything is written.
#[test]
fn held_lines_are_bounded() {
    let scratch = Scratch::new();
    let recorder = scratch.recorder(Redactor::default());
    recorder.frame(Direction::Out, &delta(0, "sk-ant-"));
    let host_line = r#"{"type":"keep_alive"}"#;
    for _ in 0..MAX_HELD_LINES + 10 {
        recorder.frame(Direction::In, host_line);
    }
    // Everything was written when the limit was passed, and the lines after it at once.
    let lines = scratch.lines();
    assert_eq!(lines.len(), MAX_HELD_LINES + 11);
    // The delta came first and is still first.
    assert_eq!(lines[0]["msg"]["event"]["delta"]["text"], "sk-ant-");
    let times: Vec<f64> = lines.iter().map(|l| l["t"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
}

/// A turn's end, or a new message, writes what its blocks held.
#[test]
fn the_end_of_a_message_or_turn_writes_what_was_held() {
    let scratch = Scratch::new();
    let recorder = scratch.recorder(Redactor::default());
    recorder.frame(Direction::Out, &delta(0, "a"));
    recorder.frame(Direction::Out, &delta(1, "b"));
    assert_eq!(scratch.count(), 0);
    recorder.frame(Direction::Out, &event(json!({"type": "message_stop"})));
    assert_eq!(scratch.count(), 3);
    recorder.frame(Direction::Out, &delta(0, "c"));
    recorder.frame(Direction::Out, r#"{"type":"result","subtype":"success"}"#);
    assert_eq!(scratch.count(), 5);
}

/// A stream that opens block after block and ends none holds no more than
/// `MAX_OPEN_BLOCKS` of them.
#[test]
fn open_blocks_are_bounded() {
    let scratch = Scratch::new();
    let recorder = scratch.recorder(Redactor::default());
    let blocks = 10 * MAX_OPEN_BLOCKS as u64;
    for index in 0..blocks {
        recorder.frame(Direction::Out, &delta(index, "x"));
        assert!(
            index as usize + 1 - scratch.count() <= MAX_OPEN_BLOCKS,
            "{} written after {} blocks",
            scratch.count(),
            index + 1
        );
    }
    drop(recorder);
    assert_eq!(scratch.count(), blocks as usize);
}
