//! Mode (a)'s proof that the recording is true: it equals, line by line, what an independent
//! witness saw cross the pipes between the tap and the real CLI, and its order is one that
//! could have happened.
//!
//! The witness is a `bash` script the tap runs as its CLI: `tee witness.in | claude | tee
//! witness.out`. Its lines get what the tap's relay does to every line (a trailing `\r` goes,
//! blank lines are not relayed) and the tap's redaction, built from the environment the witness
//! got (`witness.env`); then the recording's `in` frames must equal `witness.in` and its `out`
//! frames `witness.out`, in number and text.
//!
//! The order: `meta` first and only once, `t` never decreasing, every control response after
//! the request it answers (in the other direction) and every request answered once (or
//! cancelled by the side that asked), every `can_use_tool` after the assistant frame that
//! announced its tool use.

use std::collections::{HashMap, HashSet};

use serde_json::value::RawValue;
use serde_json::Value;
use twinwire_protocol::recording::RecordLine;

// The tap's own redaction, so that the witness's lines are redacted exactly as the recording.
use twinwire::redact::Redactor;

/// A relayed frame of the recording: its direction, its text, and its line number.
struct Frame {
    dir: String,
    text: String,
    line: usize,
}

/// Compares `recording` with the witness's `input` (what reached the CLI), `output` (what the
/// CLI wrote) and `env` (`env -0` of the CLI), and checks the recording's order.
pub fn check(recording: &str, input: &str, output: &str, env: &str) -> Result<(), String> {
    let frames = frames(recording)?;
    let redactor = redactor(env);
    for (dir, seen) in [("in", input), ("out", output)] {
        let recorded: Vec<&Frame> = frames.iter().filter(|f| f.dir == dir).collect();
        let witnessed: Vec<String> = seen
            .split('\n')
            .map(|line| line.strip_suffix('\r').unwrap_or(line))
            .filter(|line| !line.trim().is_empty())
            .map(|line| as_recorded(&redactor, line))
            .collect();
        for (at, (frame, line)) in recorded.iter().zip(&witnessed).enumerate() {
            if frame.text != *line {
                return Err(format!(
                    "`{dir}` frame {} (recording line {}) differs from what the witness saw:\n\
                     recorded: {}\nwitnessed: {}",
                    at + 1,
                    frame.line,
                    frame.text,
                    line
                ));
            }
        }
        if recorded.len() != witnessed.len() {
            return Err(format!(
                "the recording has {} `{dir}` frames, the witness saw {} lines",
                recorded.len(),
                witnessed.len()
            ));
        }
    }
    order(recording, &frames)
}

/// A witnessed line as the tap records it: JSON lines redacted, as `msg`; other lines as the
/// JSON string of `raw`.
fn as_recorded(redactor: &Redactor, line: &str) -> String {
    if serde_json::from_str::<&RawValue>(line).is_ok() {
        redactor.json_line(line).trim().to_owned()
    } else {
        redactor.text(line).into_owned()
    }
}

/// The tap's redactor, from the environment the witness (and so the tap) had.
fn redactor(env: &str) -> Redactor {
    let pairs: Vec<(&str, &str)> = env
        .split('\0')
        .filter_map(|entry| entry.split_once('='))
        .collect();
    Redactor::from_env(pairs)
}

/// The relayed frames of a recording. Frames the tap answered itself or dropped never crossed
/// the witness's pipes; this suite sets no policy, so there must be none.
fn frames(recording: &str) -> Result<Vec<Frame>, String> {
    let mut frames = Vec::new();
    for (index, text) in recording.lines().enumerate() {
        let line = RecordLine::parse(text)
            .map_err(|err| format!("recording line {}: {err}: {text}", index + 1))?;
        if line.tap.is_some() || line.dropped.is_some() {
            return Err(format!(
                "recording line {}: a frame the tap handled itself: {text}",
                index + 1
            ));
        }
        let Some(text) = line.frame_text() else {
            continue;
        };
        frames.push(Frame {
            dir: line.dir.clone().into_owned(),
            text: text.into_owned(),
            line: index + 1,
        });
    }
    Ok(frames)
}

/// Where a control request stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Request {
    Open,
    Answered,
    Cancelled,
}

/// The order checks (see the module docs).
fn order(recording: &str, frames: &[Frame]) -> Result<(), String> {
    let lines: Vec<RecordLine<'_>> = recording
        .lines()
        .map(|text| RecordLine::parse(text).map_err(|err| err.to_string()))
        .collect::<Result<_, _>>()?;
    if lines.first().map(|l| l.dir.as_ref()) != Some("meta") {
        return Err("the recording does not start with its meta line".into());
    }
    if lines.iter().skip(1).any(|l| l.dir == "meta") {
        return Err("more than one meta line: more than one session in one recording".into());
    }
    if let Some(at) = lines.windows(2).position(|w| w[1].t < w[0].t) {
        return Err(format!("time goes back at recording line {}", at + 2));
    }
    // Request id → (direction of the request, where it stands).
    let mut open: HashMap<String, (String, Request)> = HashMap::new();
    let mut announced = HashSet::new();
    for frame in frames {
        let Ok(value) = serde_json::from_str::<Value>(&frame.text) else {
            continue;
        };
        let at = format!("recording line {}", frame.line);
        match value["type"].as_str() {
            Some("control_request") => {
                let id = value["request_id"].as_str().unwrap_or_default().to_owned();
                let entry = (frame.dir.clone(), Request::Open);
                if open.insert(id.clone(), entry).is_some() {
                    return Err(format!("{at}: request id `{id}` used twice"));
                }
                let request = &value["request"];
                if request["subtype"] == "can_use_tool" {
                    let tool = request["tool_use_id"].as_str().unwrap_or_default();
                    if !announced.contains(tool) {
                        return Err(format!(
                            "{at}: can_use_tool for `{tool}` before any assistant frame used it"
                        ));
                    }
                }
            }
            Some("control_response") => {
                let id = value["response"]["request_id"].as_str().unwrap_or_default();
                match open.get_mut(id) {
                    None => return Err(format!("{at}: an answer to `{id}` before its request")),
                    Some((dir, _)) if *dir == frame.dir => {
                        return Err(format!("{at}: `{id}` answered by the side that asked"));
                    }
                    Some((_, Request::Answered)) => {
                        return Err(format!("{at}: `{id}` answered twice"));
                    }
                    Some((_, state)) => *state = Request::Answered,
                }
            }
            // A cancelled request needs no answer, but may still get one (a race).
            Some("control_cancel_request") => {
                let id = value["request_id"].as_str().unwrap_or_default();
                match open.get_mut(id) {
                    Some((dir, state)) if *dir == frame.dir && *state == Request::Open => {
                        *state = Request::Cancelled;
                    }
                    _ => return Err(format!("{at}: a cancel of `{id}`, which is not open")),
                }
            }
            Some("assistant") => {
                for block in value["message"]["content"].as_array().into_iter().flatten() {
                    if block["type"] == "tool_use" {
                        announced.insert(block["id"].as_str().unwrap_or_default().to_owned());
                    }
                }
            }
            _ => {}
        }
    }
    let mut unanswered: Vec<&String> = open
        .iter()
        .filter(|(_, (_, state))| *state == Request::Open)
        .map(|(id, _)| id)
        .collect();
    unanswered.sort();
    if !unanswered.is_empty() {
        return Err(format!("requests never answered: {unanswered:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#"{"dir":"meta","t":0,"cli":"c","argv":[],"env":{}}"#;

    fn recording(lines: &[&str]) -> String {
        std::iter::once(META)
            .chain(lines.iter().copied())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_true_recording_passes_and_a_changed_frame_fails() {
        let request =
            r#"{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}"#;
        let answer =
            r#"{"type":"control_response","response":{"subtype":"success","request_id":"r1"}}"#;
        let rec = recording(&[
            &format!(r#"{{"dir":"in","t":0.1,"msg":{request}}}"#),
            &format!(r#"{{"dir":"out","t":0.2,"msg":{answer}}}"#),
            r#"{"dir":"out","t":0.3,"raw":"[debug] not json"}"#,
        ]);
        let output = format!("{answer}\r\n\n[debug] not json\n");
        check(&rec, &format!("{request}\n"), &output, "").unwrap();
        let err = check(&rec, "{\"type\":\"user\"}\n", &output, "").unwrap_err();
        assert!(err.contains("differs"), "{err}");
        let err = check(&rec, &format!("{request}\n{request}\n"), &output, "").unwrap_err();
        assert!(err.contains("witness saw 2"), "{err}");
    }

    #[test]
    fn the_witness_is_redacted_like_the_recording() {
        let rec = recording(&[
            r#"{"dir":"in","t":0.1,"msg":{"type":"user","message":{"content":"key <redacted 16 chars>"}}}"#,
        ]);
        let input = r#"{"type":"user","message":{"content":"key hunter2hunter2xy"}}"#;
        check(&rec, input, "", "MY_TOKEN=hunter2hunter2xy\0HOME=/h\0").unwrap();
        assert!(check(&rec, input, "", "").is_err());
    }

    #[test]
    fn impossible_orders_fail() {
        let answer = r#"{"dir":"in","t":0.1,"msg":{"type":"control_response","response":{"subtype":"success","request_id":"c1"}}}"#;
        let request = r#"{"dir":"out","t":0.2,"msg":{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_use_id":"t1"}}}"#;
        let err = order_of(&[answer, request]);
        assert!(err.contains("before its request"), "{err}");
        let err = order_of(&[request]);
        assert!(err.contains("before any assistant frame"), "{err}");
        let cancel =
            r#"{"dir":"out","t":0.2,"msg":{"type":"control_cancel_request","request_id":"c1"}}"#;
        let err = order_of(&[cancel]);
        assert!(err.contains("not open"), "{err}");
        let late = r#"{"dir":"out","t":0.05,"msg":{"type":"keep_alive"}}"#;
        let err = order_of(&[answer.replace("0.1", "0.3").as_str(), late]);
        assert!(err.contains("time goes back"), "{err}");
    }

    #[test]
    fn a_cancelled_request_needs_no_answer() {
        let assistant = r#"{"dir":"out","t":0.1,"msg":{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1"}]}}}"#;
        let request = r#"{"dir":"out","t":0.2,"msg":{"type":"control_request","request_id":"c1","request":{"subtype":"can_use_tool","tool_use_id":"t1"}}}"#;
        let cancel =
            r#"{"dir":"out","t":0.3,"msg":{"type":"control_cancel_request","request_id":"c1"}}"#;
        let answer = r#"{"dir":"in","t":0.4,"msg":{"type":"control_response","response":{"subtype":"success","request_id":"c1"}}}"#;
        for lines in [
            &[assistant, request, cancel][..],
            &[assistant, request, cancel, answer],
        ] {
            let rec = recording(lines);
            order(&rec, &frames(&rec).unwrap()).unwrap();
        }
        let err = order_of(&[assistant, request]);
        assert!(err.contains("never answered"), "{err}");
    }

    fn order_of(lines: &[&str]) -> String {
        let rec = recording(lines);
        order(&rec, &frames(&rec).unwrap()).unwrap_err()
    }
}
