//! The mutation corpus of the liberal reader: every frame of the project's recorded sessions,
//! with each field removed, set to `null`, retyped, duplicated, given an unknown value, and
//! every list of typed objects given an unknown one (one mutant per frame kind, path shape and
//! mutation). Each mutant must read as a value (typed, or kept raw as malformed), never panic,
//! keep its route (`type`), and write back what it kept: reading what it writes gives the same
//! value again. Prints the figures (mutants, typed, repaired, kept raw).
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::panic::AssertUnwindSafe;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use twinwire::protocol::{Decoded, InputMessage, Message, RepairAction};
use twinwire_testkit::fixtures::{all_frames, transcripts_dir};
use twinwire_testkit::mutations::{distinct_mutants, Mutant};

/// The fields that route a frame: changing them may leave the whole frame untyped.
const ROUTING: &[&str] = &[
    "type",
    "request_id",
    "request",
    "response",
    "response.request_id",
    "response.subtype",
    "request.subtype",
    "event",
];

#[derive(Debug, Default)]
struct Figures {
    mutants: usize,
    clean: usize,
    repaired: usize,
    kept_raw: usize,
}

/// Reads a mutant as `T`, checks the promises, and counts what happened.
fn check<T>(
    mutant: &Mutant,
    decode: fn(&str) -> Result<Decoded<T>, twinwire::protocol::DecodeError>,
    is_malformed: fn(&T) -> bool,
    figures: &mut Figures,
) -> Result<(), String>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let line = mutant.line.as_str();
    let decoded = decode(line).map_err(|err| format!("not read: {err}"))?;
    // Only a change to what routes the frame may leave the frame itself untyped.
    if is_malformed(&decoded.value) && !ROUTING.contains(&mutant.path.as_str()) {
        return Err(format!("kept raw as a whole: {:?}", decoded.repairs));
    }
    let written =
        serde_json::to_value(&decoded.value).map_err(|err| format!("not written: {err}"))?;
    // The route survives: the frame comes back as the kind it was sent as.
    let sent: Value = serde_json::from_str(line).map_err(|err| err.to_string())?;
    if written.get("type") != sent.get("type") {
        return Err(format!("type changed: {written}"));
    }
    // What was kept writes back, and reads back as the same value (a fixed point).
    let again =
        decode(&written.to_string()).map_err(|err| format!("its own output not read: {err}"))?;
    if again.value != decoded.value {
        return Err(format!(
            "not a fixed point:\nfirst  {:?}\nsecond {:?}",
            decoded.value, again.value
        ));
    }
    if !again.repairs.is_empty()
        && !again
            .repairs
            .iter()
            .all(|r| matches!(r.action, RepairAction::KeptRaw(_)))
    {
        return Err(format!(
            "its own output needed repairs: {:?}",
            again.repairs
        ));
    }
    figures.mutants += 1;
    if decoded.repairs.is_empty() {
        figures.clean += 1;
    } else if decoded
        .repairs
        .iter()
        .any(|r| matches!(r.action, RepairAction::KeptRaw(_)))
    {
        figures.kept_raw += 1;
    } else {
        figures.repaired += 1;
    }
    Ok(())
}

#[test]
fn every_mutant_of_every_recorded_frame_is_read_and_written_back() {
    let frames = all_frames(&transcripts_dir());
    assert!(frames.len() > 100, "only {} recorded frames", frames.len());
    let outbound: Vec<Value> = frames
        .iter()
        .filter(|f| !f.from_host)
        .map(|f| f.frame.clone())
        .collect();
    let inbound: Vec<Value> = frames
        .iter()
        .filter(|f| f.from_host)
        .map(|f| f.frame.clone())
        .collect();
    let mut figures = Figures::default();
    let mut failures = Vec::new();
    for (direction, mutants) in [
        ("out", distinct_mutants(&outbound)),
        ("in", distinct_mutants(&inbound)),
    ] {
        for mutant in mutants {
            let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
                if direction == "out" {
                    let malformed = |m: &Message| m.as_malformed().is_some();
                    check::<Message>(&mutant, Message::decode, malformed, &mut figures)
                } else {
                    let malformed = |m: &InputMessage| m.as_malformed().is_some();
                    check::<InputMessage>(&mutant, InputMessage::decode, malformed, &mut figures)
                }
            }));
            let failure = match outcome {
                Ok(Ok(())) => continue,
                Ok(Err(why)) => why,
                Err(_) => "panicked".to_owned(),
            };
            failures.push(format!(
                "{direction} {} {:?}: {failure}\n  {}",
                mutant.path,
                mutant.mutation,
                truncate(&mutant.line)
            ));
        }
    }
    eprintln!(
        "mutation corpus: {} frames, {} mutants: {} read as they are, {} repaired, {} with a part kept raw; {} failures",
        frames.len(),
        figures.mutants + failures.len(),
        figures.clean,
        figures.repaired,
        figures.kept_raw,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
    assert!(figures.mutants > 1_000, "only {} mutants", figures.mutants);
}

fn truncate(line: &str) -> String {
    match line.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &line[..end]),
        None => line.to_owned(),
    }
}

/// Every recorded frame, unchanged, reads on the fast path with no repair and writes back
/// exactly as it was read.
#[test]
fn recorded_frames_need_no_repair() {
    let frames = all_frames(&transcripts_dir());
    for recorded in frames {
        let line = recorded.frame.to_string();
        let (repairs, written) = if recorded.from_host {
            let decoded = InputMessage::decode(&line).unwrap();
            (decoded.repairs, decoded.value.to_value())
        } else {
            let decoded = Message::decode(&line).unwrap();
            (decoded.repairs, decoded.value.to_value())
        };
        assert!(repairs.is_empty(), "{}: {repairs:?}", recorded.at);
        assert_eq!(written, recorded.frame, "{}", recorded.at);
    }
}
