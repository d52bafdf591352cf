//! `twinwire run --output jsonl` against a CLI that writes odd frames: every frame reaches the
//! output (typed, or as it was written when it could not be typed), every run ends, with the
//! exit code of its result.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
use common::{fake_claude, twinwire};

fn run_jsonl(script: Value) -> (Option<i32>, Vec<Value>, String, Duration) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let started = Instant::now();
    let output = Command::new(twinwire())
        .args(["run", "--output", "jsonl", "--cli-path"])
        .arg(fake_claude())
        .arg("go")
        .env("TWINWIRE_FAKE_SCRIPT", dir.path().join("script.json"))
        .env("NO_COLOR", "1")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let lines = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), lines, stderr, started.elapsed())
}

#[test]
fn odd_frames_reach_the_output_and_the_run_ends() {
    let odd = [
        json!({"type": "assistant", "message": {"content": "plain"}, "session_id": "s", "uuid": "o1"}),
        json!({"type": "assistant", "session_id": "s", "uuid": "o2"}),
        json!({"type": "system", "subtype": "init", "tools": null, "permissionMode": "yolo", "uuid": "o3"}),
        json!({"type": "hologram", "uuid": "o4"}),
        json!({"type": "system", "uuid": "o5"}),
        json!({"type": "control_request", "request_id": 9, "request": {"subtype": "interrupt_me"}, "uuid": "o6"}),
    ];
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "total_cost_usd": "0.5", "num_turns": 2.0, "uuid": "o7"});
    let mut steps: Vec<Value> = odd.iter().map(|frame| json!({"emit": frame})).collect();
    steps.push(json!({"emit": result}));
    steps.push(json!({"crash": {"code": 0}}));
    let (code, lines, stderr, took) = run_jsonl(json!({"turns": [{"steps": steps}]}));
    assert_eq!(code, Some(0), "{stderr}");
    assert!(took < Duration::from_secs(20), "{took:?}");
    let ours: Vec<&Value> = lines
        .iter()
        .filter(|line| line["uuid"].as_str().is_some_and(|u| u.starts_with('o')))
        .collect();
    // Control requests are served, not shown; every other frame is in the output, in order.
    let uuids: Vec<&str> = ours
        .iter()
        .map(|line| line["uuid"].as_str().unwrap())
        .collect();
    assert_eq!(uuids, ["o1", "o2", "o3", "o4", "o5", "o7"], "{lines:?}");
    assert_eq!(ours[0]["message"]["content"][0]["text"], "plain");
    assert_eq!(ours[3], &odd[3], "an unknown kind is written as it came");
    assert_eq!(ours[4], &odd[4], "a frame kept raw is written as it came");
    assert_eq!(ours[5]["total_cost_usd"], json!(0.5));
}

#[test]
fn an_odd_error_result_ends_the_run_with_exit_1() {
    let result = json!({"type": "result", "subtype": "error_during_execution", "is_error": true,
        "usage": "n/a", "modelUsage": null});
    let (code, lines, stderr, _) = run_jsonl(json!({"turns": [{"steps": [
        {"text": "trying"}, {"emit": result}, {"crash": {"code": 1}}]}]}));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(lines.iter().any(|line| line["type"] == "result"));
}

#[test]
fn an_exit_0_mid_turn_is_reported_with_the_stderr_tail() {
    let (code, _lines, stderr, _) = run_jsonl(json!({"turns": [{"steps": [
        {"text": "half"}, {"crash": {"code": 0, "stderr": "lost the lease"}}]}]}));
    assert_eq!(code, Some(1));
    assert!(stderr.contains("before the turn ended"), "{stderr}");
    assert!(stderr.contains("lost the lease"), "{stderr}");
}
