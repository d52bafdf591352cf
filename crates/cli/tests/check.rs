//! `ccwire check` as a user runs it: over the recorded transcripts, and over broken input.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn ccwire() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ccwire"))
}

fn transcripts() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts"
    ))
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
    let files = walkdir_jsonl(&transcripts());
    assert_eq!(report["files"], files);
    assert!(
        report["frames"].as_u64().unwrap() > 1000,
        "{}",
        report["frames"]
    );
    assert_eq!(report["errors"], serde_json::json!([]));
    assert_eq!(report["unknown_listed"], serde_json::json!([]));
    // The only unknown kind recorded is the deliberate probe: a host request the CLI refuses.
    let unknown = report["unknown_unlisted"].as_array().unwrap();
    assert!(
        unknown
            .iter()
            .all(|u| u["kind"] == "control_request/definitely_not_a_subtype"),
        "{unknown:?}"
    );
    assert!(report["responses_checked"].as_u64().unwrap() >= 150);
}

/// How many recordings (`*.jsonl`) are under `dir`.
fn walkdir_jsonl(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            if path.is_dir() {
                walkdir_jsonl(&path)
            } else {
                usize::from(path.extension().is_some_and(|e| e == "jsonl"))
            }
        })
        .sum()
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
