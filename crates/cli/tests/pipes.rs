//! A reader that leaves (`twinwire check … | head`): every subcommand that prints a report stops
//! quietly when its stdout or stderr is a pipe nobody reads, ending as `cat` and `grep` end,
//! killed by SIGPIPE: no message, no panic, nothing left running.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, PipeWriter, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::twinwire;

const SIGPIPE: i32 = 13;

/// A pipe whose reading end is already closed: every write to it fails with `EPIPE`.
fn abandoned_pipe() -> PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

/// Waits for `child` (killing it after two minutes, which fails the test).
fn wait(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("still running after two minutes");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `twinwire ARGS` with stdout on an abandoned pipe, and stderr on another one too when
/// `stderr_too` (as `2>&1 | head` does); returns how it ended and what reached stderr
/// otherwise.
fn with_reader_gone(args: &[&str], stderr_too: bool) -> (ExitStatus, String) {
    let stdout = abandoned_pipe();
    let mut command = Command::new(twinwire());
    command.args(args).stdin(Stdio::null()).stdout(stdout);
    if stderr_too {
        command.stderr(abandoned_pipe());
    } else {
        command.stderr(Stdio::piped());
    }
    let mut child = command.spawn().unwrap();
    // Our copies of the writing ends are gone with `command`.
    drop(command);
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        pipe.read_to_string(&mut stderr).unwrap();
    }
    (wait(&mut child), stderr)
}

/// Asserts that the process ended as a tool whose reader left: killed by SIGPIPE, silent.
fn assert_left_quietly(what: &str, (status, stderr): (ExitStatus, String)) {
    assert_eq!(
        status.signal(),
        Some(SIGPIPE),
        "{what}: {status:?}, stderr: {stderr}"
    );
    assert_eq!(stderr, "", "{what}");
}

fn transcript(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts/claude-2.1.330"
    ))
    .join(name)
}

fn text_turn() -> String {
    transcript("basics.a_text_turn.jsonl").display().to_string()
}

#[test]
fn check_stops_quietly_when_its_reader_leaves() {
    assert_left_quietly(
        "check | head",
        with_reader_gone(&["check", &text_turn()], false),
    );
    // `2>&1 | head`: nowhere to say anything, not even that the pipe broke.
    assert_left_quietly(
        "check 2>&1 | head",
        with_reader_gone(&["check", &text_turn()], true),
    );
    assert_left_quietly(
        "check --json | head",
        with_reader_gone(&["check", "--json", &text_turn()], false),
    );
}

#[test]
fn check_stops_when_head_has_read_its_first_line() {
    // Enough findings to fill the pipe many times over.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.jsonl");
    let broken = "{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":\"no\"}\n";
    std::fs::write(&file, broken.repeat(20_000)).unwrap();
    let mut child = Command::new(twinwire())
        .args(["check", "--all"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    stdout.read_line(&mut first).unwrap();
    assert!(first.starts_with("kind"), "{first}");
    drop(stdout);
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_left_quietly("check --all | head -1", (wait(&mut child), stderr));
}

#[test]
fn sessions_and_view_stop_quietly_when_their_reader_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().to_str().unwrap();
    assert_left_quietly(
        "sessions list",
        with_reader_gone(
            &["sessions", "--config-dir", config, "list", "--all"],
            false,
        ),
    );
    assert_left_quietly(
        "sessions list 2>&1",
        with_reader_gone(&["sessions", "--config-dir", config, "list", "--all"], true),
    );

    // The page is written before its path is printed: it is there all the same.
    let page = dir.path().join("page.html");
    let page_arg = page.to_str().unwrap();
    assert_left_quietly(
        "view",
        with_reader_gone(&["view", &text_turn(), "-o", page_arg], false),
    );
    assert!(std::fs::metadata(&page).unwrap().len() > 0);
}

/// A recording whose first frame the replay writes before it reads anything.
fn cli_speaks_first(dir: &Path) -> PathBuf {
    let path = dir.join("recording.jsonl");
    let lines = [
        r#"{"dir":"out","t":0.1,"msg":{"type":"system","subtype":"status"}}"#,
        r#"{"dir":"in","t":0.2,"msg":{"type":"keep_alive"}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn replay_stops_quietly_when_its_reader_leaves() {
    let dir = tempfile::tempdir().unwrap();
    let recording = cli_speaks_first(dir.path());
    let recording = recording.to_str().unwrap();
    assert_left_quietly(
        "replay 2>&1 | head",
        with_reader_gone(&["replay", recording, "--strict"], true),
    );
    assert_left_quietly(
        "replay -v | head",
        with_reader_gone(&["replay", &text_turn(), "-v"], false),
    );

    // The host reads the frames but nobody reads the divergence report.
    let mut child = Command::new(twinwire())
        .args(["replay", recording, "--strict"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(abandoned_pipe())
        .spawn()
        .unwrap();
    let mut frames = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut frames)
        .unwrap();
    assert!(frames.contains("\"status\""), "{frames}");
    let status = wait(&mut child);
    assert_eq!(status.signal(), Some(SIGPIPE), "{status:?}");
}

#[test]
fn errors_go_to_a_closed_stderr_without_a_panic() {
    // stdout is open: only the error message has nowhere to go.
    let mut child = Command::new(twinwire())
        .args(["check", "/nonexistent/recording.jsonl"])
        .stdout(Stdio::null())
        .stderr(abandoned_pipe())
        .spawn()
        .unwrap();
    let status = wait(&mut child);
    assert_eq!(status.signal(), Some(SIGPIPE), "{status:?}");
}
