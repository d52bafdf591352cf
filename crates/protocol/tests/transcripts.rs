#![allow(clippy::unwrap_used)]
//! Every frame of every recorded transcript (four CLI versions, both directions) parses into a
//! typed value, none of a kind the official TypeScript SDK declares comes back unknown, and
//! parse → serialize → parse gives back equal JSON.

use std::path::PathBuf;

use serde_json::Value;
use twinwire_protocol::{coverage, InputMessage, Message};

fn transcripts_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts"
    ))
}

/// `(file, line number, direction is "out", msg)` for every recorded frame.
fn frames() -> Vec<(String, usize, bool, Value)> {
    let dir = transcripts_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the transcripts must be at {}: {e}", dir.display()))
        .flat_map(|version| std::fs::read_dir(version.unwrap().path()).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            let name = path.file_name().unwrap().to_str().unwrap();
            name.ends_with(".jsonl") && !name.ends_with(".api.jsonl")
        })
        .collect();
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.display().to_string();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Value = serde_json::from_str(line).unwrap();
            let Some(msg) = record.get("msg") else {
                continue;
            };
            let out_dir = match record["dir"].as_str() {
                Some("out") => true,
                Some("in") => false,
                _ => continue,
            };
            out.push((name.clone(), index + 1, out_dir, msg.clone()));
        }
    }
    out
}

#[test]
fn every_recorded_frame_parses_and_round_trips() {
    let frames = frames();
    assert!(
        frames.len() > 800,
        "expected over 800 frames, found {}",
        frames.len()
    );
    let mut failures = Vec::new();
    let mut versions = std::collections::BTreeSet::new();
    for (file, line, out_dir, msg) in &frames {
        versions.insert(
            file.split("claude-")
                .nth(1)
                .map(|v| v.split('/').next().unwrap_or("")),
        );
        let text = msg.to_string();
        let result = if *out_dir {
            Message::from_json(&text).map(|m| (m.unknown_kind(), m.to_value()))
        } else {
            InputMessage::from_json(&text).map(|m| (m.unknown_kind(), m.to_value()))
        };
        match result {
            Err(err) => failures.push(format!("{file}:{line}: {err}")),
            Ok((Some(kind), _)) if coverage::is_listed(&kind) => failures.push(format!(
                "{file}:{line}: listed kind {kind} came back unknown"
            )),
            Ok((_, value)) if &value != msg => failures.push(format!(
                "{file}:{line}: round trip differs\n  read:  {msg}\n  wrote: {value}"
            )),
            Ok((_, value)) => {
                // Serialize → parse again gives the same value once more.
                let again = if *out_dir {
                    Message::from_json(&value.to_string()).map(|m| m.to_value())
                } else {
                    InputMessage::from_json(&value.to_string()).map(|m| m.to_value())
                };
                if again.as_ref() != Ok(&value) {
                    failures.push(format!("{file}:{line}: second round trip differs"));
                }
            }
        }
    }
    // One version per generation directory (`claude-<version>`): each is covered.
    let generations = std::fs::read_dir(transcripts_dir())
        .unwrap()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with("claude-"))
        .count();
    assert!(generations >= 5, "{generations} generation directories");
    assert_eq!(
        versions.len(),
        generations,
        "every CLI generation is covered: {versions:?}"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_only_unknown_kinds_recorded_are_the_deliberate_probe_and_the_internal_claim() {
    let mut unknown = std::collections::BTreeSet::new();
    for (_, _, out_dir, msg) in frames() {
        let text = msg.to_string();
        let kind = if out_dir {
            Message::from_json(&text)
                .ok()
                .and_then(|m| m.unknown_kind())
        } else {
            InputMessage::from_json(&text)
                .ok()
                .and_then(|m| m.unknown_kind())
        };
        unknown.extend(kind);
    }
    // `claim_session` is marked internal in the CLI's schema: the pool sends it as it is.
    let expected: std::collections::BTreeSet<String> = [
        "control_request/claim_session".to_owned(),
        "control_request/definitely_not_a_subtype".to_owned(),
    ]
    .into();
    assert_eq!(unknown, expected);
}

#[test]
fn every_control_response_matches_the_typed_response_of_its_request() {
    use std::collections::HashMap;
    let mut pending: HashMap<(String, bool, String), String> = HashMap::new();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (file, line, out_dir, msg) in frames() {
        match msg["type"].as_str() {
            Some("control_request") => {
                let id = msg["request_id"].as_str().unwrap().to_owned();
                let subtype = msg["request"]["subtype"].as_str().unwrap().to_owned();
                pending.insert((file.clone(), out_dir, id), subtype);
            }
            Some("control_response") => {
                let id = msg["response"]["request_id"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned();
                let Some(subtype) = pending.remove(&(file.clone(), !out_dir, id)) else {
                    continue;
                };
                let payload = &msg["response"]["response"];
                if msg["response"]["subtype"] != "success" || payload.is_null() {
                    continue;
                }
                if let Some(result) = coverage::check_response(&subtype, payload) {
                    checked += 1;
                    if let Err(err) = result {
                        failures.push(format!("{file}:{line}: {subtype} response: {err}"));
                    }
                }
            }
            _ => {}
        }
    }
    assert!(checked >= 80, "only {checked} typed responses checked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
