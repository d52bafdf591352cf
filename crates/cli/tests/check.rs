//! `ccwire check` as a user runs it: over the recorded transcripts, and over broken input.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

fn ccwire() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ccwire"))
}

fn transcripts() -> PathBuf {
    let shared = std::env::var_os("CCWIRE_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared")));
    shared.join("reference/transcripts")
}

#[test]
fn every_recorded_transcript_checks_clean() {
    let output = ccwire()
        .arg("check")
        .arg("--json")
        .arg(transcripts())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["files"], 53);
    assert_eq!(report["frames"], 845);
    assert_eq!(report["errors"], serde_json::json!([]));
    assert_eq!(report["unknown_listed"], serde_json::json!([]));
    assert_eq!(report["unknown_unlisted"].as_array().unwrap().len(), 4);
    assert!(report["responses_checked"].as_u64().unwrap() >= 150);
}

#[test]
fn broken_frames_fail_with_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.jsonl");
    std::fs::write(
        &file,
        concat!(
            "{\"type\":\"keep_alive\"}\n",
            "[SandboxDebug] hello\n",
            "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":\"no\"}\n",
            "{\"type\":\"hologram\"}\n",
        ),
    )
    .unwrap();
    let output = ccwire().arg("check").arg(&file).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("errors: 2"), "{text}");
    assert!(text.contains("out.jsonl:2"), "{text}");
    assert!(text.contains("out.jsonl:3: result/success"), "{text}");
    assert!(text.contains("is_error"), "{text}");
    assert!(text.contains("out.jsonl:4: hologram"), "{text}");
}

#[test]
fn a_missing_file_is_an_error_exit() {
    let output = ccwire()
        .args(["check", "/nonexistent.jsonl"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
