//! What `check`, `replay` and `tap` do with hostile files: symbolic link loops, special files
//! in a directory, endless input without newlines, and the mode of a recording.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

mod common;
use common::{fake_claude, twinwire};

/// Runs `command`, killing it if it is still running after `limit` (a hang fails the test
/// instead of holding the suite).
fn run_bounded(mut command: Command, limit: Duration) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_bounded(child, limit)
}

/// Waits for `child`'s output, killing it if it is still running after `limit`.
fn wait_bounded(child: std::process::Child, limit: Duration) -> Output {
    let pid = child.id();
    let watchdog = std::thread::spawn(move || {
        std::thread::sleep(limit);
        // The process may have ended already; then this signals nothing of ours (the pid is
        // not reused this fast on a test machine).
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    });
    let output = child.wait_with_output().unwrap();
    drop(watchdog);
    assert!(
        output.status.code().is_some(),
        "killed after {limit:?}: it did not end on its own"
    );
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const FRAME: &str = r#"{"type":"keep_alive"}"#;

#[test]
fn check_skips_symlink_loops_and_special_files_in_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/one.jsonl"), format!("{FRAME}\n")).unwrap();
    // Loops: a link to an ancestor, and two links to each other.
    std::os::unix::fs::symlink(root.join("a"), root.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink(root.join("a/x"), root.join("a/y")).unwrap();
    std::os::unix::fs::symlink(root.join("a/y"), root.join("a/x")).unwrap();
    // A FIFO named like a recording: opening it would wait for a writer forever.
    let fifo = root.join("a/pipe.jsonl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let mut command = Command::new(twinwire());
    command.args(["check", "--json"]).arg(root);
    let output = run_bounded(command, Duration::from_secs(60));
    assert!(output.status.success(), "{}", text(&output.stderr));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["files"], 1, "{report}");
    assert_eq!(report["frames"], 1, "{report}");
    assert!(
        text(&output.stderr).contains("a symbolic link loop"),
        "{}",
        text(&output.stderr)
    );
}

#[test]
fn check_and_replay_end_on_endless_input() {
    // `/dev/zero` is not text: its first bytes say so, and nothing more is read.
    let mut check = Command::new(twinwire());
    check.args(["check", "/dev/zero"]);
    let output = run_bounded(check, Duration::from_secs(60));
    assert!(!output.status.success());
    let report = text(&output.stdout) + &text(&output.stderr);
    assert!(report.contains("not a text file"), "{report}");

    // Endless text without a newline ends at the line limit.
    let mut endless = Command::new("sh")
        .args(["-c", "yes y | tr -d '\\n'"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let check = Command::new(twinwire())
        .args(["check", "--max-line-length", "100000", "/dev/stdin"])
        .stdin(Stdio::from(endless.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = wait_bounded(check, Duration::from_secs(60));
    // Our end of the pipe is closed: the writers end with SIGPIPE.
    endless.wait().unwrap();
    assert!(!output.status.success());
    let report = text(&output.stdout) + &text(&output.stderr);
    assert!(report.contains("over the limit"), "{report}");

    // The default limit (64 MiB) bounds a replay too.
    let mut replay = Command::new(twinwire());
    replay.args(["replay", "/dev/zero"]);
    let output = run_bounded(replay, Duration::from_secs(120));
    assert!(!output.status.success());
    assert!(
        text(&output.stderr).contains("over the limit"),
        "{}",
        text(&output.stderr)
    );

    // A file whose last line never ends: the lines before it are checked, then it is reported.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.jsonl");
    std::fs::write(&file, format!("{FRAME}\n{}", "x".repeat(5000))).unwrap();
    let mut check = Command::new(twinwire());
    check
        .args(["check", "--json", "--max-line-length", "1000"])
        .arg(&file);
    let output = run_bounded(check, Duration::from_secs(60));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["frames"], 1, "{report}");
    assert_eq!(
        report["errors"].as_array().map(Vec::len),
        Some(1),
        "{report}"
    );
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn tap_recordings_are_private() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("record.jsonl");
    // An existing world-readable file is narrowed too.
    std::fs::write(&record, "old").unwrap();
    std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(
        dir.path().join("script.json"),
        r#"{"turns": [{"steps": [{"text": "hi"}]}]}"#,
    )
    .unwrap();
    let mut tap = Command::new(twinwire());
    tap.arg("tap")
        .arg("--record")
        .arg(&record)
        .arg("--")
        .arg(fake_claude())
        .args([
            "--output-format",
            "stream-json",
            "--input-format",
            "stream-json",
        ])
        .env("TWINWIRE_FAKE_SCRIPT", dir.path().join("script.json"));
    let output = run_bounded(tap, Duration::from_secs(60));
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(mode(&record), 0o600);
    assert!(std::fs::read_to_string(&record)
        .unwrap()
        .contains("\"meta\""));
}
