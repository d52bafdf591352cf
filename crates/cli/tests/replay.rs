//! `twinwire replay` over the real recordings of the pinned CLI, driven by a scripted host that
//! sends exactly the recorded host frames (with its own request ids), and over small
//! recordings that exercise divergence, strictness, timeouts and out-of-order answers.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn transcripts() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/transcripts"
    ))
}

/// A running `twinwire replay`, its stdout read on a thread.
struct Replay {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Replay {
    fn start(transcript: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_twinwire"))
            .arg("replay")
            .arg(transcript)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    fn send(&mut self, frame: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{frame}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(15))
            .expect("a frame from the replay");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// Closes stdin and waits; returns the exit status and stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the replay did not exit");
            std::thread::sleep(Duration::from_millis(10));
        };
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status, stderr)
    }
}

/// The `in` / `out` frames of a recording, in order (the meta line skipped).
fn frames(path: &Path) -> Vec<(String, Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|line| line["dir"] == "in" || line["dir"] == "out")
        .map(|line| {
            (
                line["dir"].as_str().unwrap().to_owned(),
                line["msg"].clone(),
            )
        })
        .collect()
}

/// Plays the host's side of `path` against a replay of it: each recorded host frame is sent
/// once every recorded CLI frame before it has arrived, with the host's request ids changed;
/// every CLI frame must arrive as recorded, answers to the host carrying its new ids.
/// Returns how many answers came back under a new id.
fn drive_as_recorded(path: &Path) -> usize {
    let mut replay = Replay::start(path, &["--output-format", "stream-json", "--verbose"]);
    let mut live_ids = HashMap::new();
    let mut mapped_answers = 0;
    for (dir, recorded) in frames(path) {
        if dir == "in" {
            let mut frame = recorded.clone();
            if frame["type"] == "control_request" {
                let id = frame["request_id"].as_str().unwrap().to_owned();
                let live = format!("live-{id}");
                frame["request_id"] = json!(live);
                live_ids.insert(id, live);
            }
            replay.send(&frame);
            continue;
        }
        let mut expected = recorded.clone();
        if expected["type"] == "control_response" {
            let id = expected["response"]["request_id"].as_str().unwrap();
            if let Some(live) = live_ids.get(id) {
                expected["response"]["request_id"] = json!(live);
                mapped_answers += 1;
            }
        }
        let got = replay.next();
        assert_eq!(got, expected, "{}", path.display());
    }
    let (status, stderr) = replay.finish();
    assert!(status.success(), "{}: {stderr}", path.display());
    mapped_answers
}

#[test]
fn real_recordings_replay_to_a_host_that_sends_what_was_recorded() {
    let dir = transcripts().join("claude-2.1.330");
    for name in [
        "basics.a_text_turn",
        "permissions.bash_allowed_by_can_use_tool_creates_the_file",
        "control.interrupt_mid_stream_then_a_normal_turn",
        "mcp.an_in_process_tool_is_called_and_its_result_reaches_the_model",
        "peers.python.mcp",
        "peers.node.hooks",
    ] {
        let mapped = drive_as_recorded(&dir.join(format!("{name}.jsonl")));
        // Every recording starts with the host's initialize; its answer took the new id.
        assert!(mapped >= 1, "{name}");
    }
}

#[test]
fn every_recording_of_every_version_replays() {
    let mut count = 0;
    for version in std::fs::read_dir(transcripts()).unwrap() {
        let version = version.unwrap().path();
        if !version.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&version).unwrap() {
            let path = file.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.ends_with(".jsonl") && !name.ends_with(".api.jsonl") {
                drive_as_recorded(&path);
                count += 1;
            }
        }
    }
    assert!(count >= 50, "{count} recordings");
}

/// A recording made of these lines.
fn recording(dir: &Path, lines: &[Value]) -> PathBuf {
    let path = dir.join("recording.jsonl");
    let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn user(text: &str) -> Value {
    json!({"type": "user", "session_id": "", "message": {"role": "user",
        "content": [{"type": "text", "text": text}]}, "parent_tool_use_id": null})
}

fn ask(id: &str, tool: &str) -> Value {
    json!({"type": "control_request", "request_id": id, "request": {
        "subtype": "can_use_tool", "tool_name": tool, "input": {}}})
}

fn answer(id: &str, behavior: &str) -> Value {
    json!({"type": "control_response", "response": {"subtype": "success", "request_id": id,
        "response": {"behavior": behavior, "updatedInput": {}}}})
}

#[test]
fn a_different_permission_answer_is_a_divergence_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = recording(
        dir.path(),
        &[
            json!({"dir": "out", "t": 0.1, "msg": ask("a", "Write")}),
            json!({"dir": "in", "t": 0.2, "msg": answer("a", "allow")}),
        ],
    );
    let mut replay = Replay::start(&path, &[]);
    assert_eq!(replay.next(), ask("a", "Write"));
    replay.send(&answer("a", "deny"));
    let (status, stderr) = replay.finish();
    assert_eq!(status.code(), Some(1));
    assert!(
        stderr.contains("recording line 2")
            && stderr.contains(
                "field response.response.behavior: recorded \"allow\", received \"deny\""
            ),
        "{stderr}"
    );
}

#[test]
fn answers_within_one_run_may_come_in_any_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = recording(
        dir.path(),
        &[
            json!({"dir": "out", "t": 0.1, "msg": ask("a", "Write")}),
            json!({"dir": "out", "t": 0.1, "msg": ask("b", "Edit")}),
            json!({"dir": "in", "t": 0.2, "msg": answer("a", "allow")}),
            json!({"dir": "in", "t": 0.2, "msg": answer("b", "deny")}),
            json!({"dir": "out", "t": 0.3, "msg": {"type": "result", "subtype": "success"}}),
        ],
    );
    let mut replay = Replay::start(&path, &[]);
    replay.next();
    replay.next();
    replay.send(&answer("b", "deny"));
    replay.send(&answer("a", "allow"));
    assert_eq!(replay.next()["type"], "result");
    let (status, stderr) = replay.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn spontaneous_frames_are_tolerated_unless_strict() {
    let dir = tempfile::tempdir().unwrap();
    let path = recording(
        dir.path(),
        &[
            json!({"dir": "in", "t": 0.1, "msg": user("hi")}),
            json!({"dir": "in", "t": 0.2, "msg": {"type": "keep_alive"}}),
            json!({"dir": "out", "t": 0.3, "msg": {"type": "result", "subtype": "success"}}),
        ],
    );
    let cancel = json!({"type": "control_cancel_request", "request_id": "x"});
    // Default: the recorded keep_alive is not waited for; a stray cancel is ignored.
    let mut replay = Replay::start(&path, &[]);
    replay.send(&cancel);
    replay.send(&user("hi"));
    assert_eq!(replay.next()["type"], "result");
    replay.send(&json!({"type": "keep_alive"}));
    let (status, stderr) = replay.finish();
    assert!(status.success(), "{stderr}");

    // Strict: the cancel is a divergence.
    let mut replay = Replay::start(&path, &["--strict"]);
    replay.send(&cancel);
    let (status, stderr) = replay.finish();
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("control_cancel_request"), "{stderr}");

    // Strict: the recorded keep_alive must come.
    let mut replay = Replay::start(&path, &["--strict"]);
    replay.send(&user("hi"));
    replay.send(&json!({"type": "keep_alive"}));
    assert_eq!(replay.next()["type"], "result");
    let (status, stderr) = replay.finish();
    assert!(status.success(), "{stderr}");
}

#[test]
fn silence_early_close_and_extra_frames_are_divergences() {
    let dir = tempfile::tempdir().unwrap();
    let path = recording(
        dir.path(),
        &[
            json!({"dir": "in", "t": 0.1, "msg": user("hi")}),
            json!({"dir": "out", "t": 0.3, "msg": {"type": "result", "subtype": "success"}}),
        ],
    );
    // Nothing within the timeout.
    let replay = Replay::start(&path, &["--timeout", "0.3"]);
    let started = Instant::now();
    let deadline = started + Duration::from_secs(10);
    let mut child = replay.child;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(1));
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        stderr.contains("no frame from the host within 0.3 s"),
        "{stderr}"
    );

    // Input closed before the recording's frame.
    let (status, stderr) = Replay::start(&path, &[]).finish();
    assert_eq!(status.code(), Some(1));
    assert!(stderr.contains("closed its input"), "{stderr}");

    // A frame after the end.
    let mut replay = Replay::start(&path, &[]);
    replay.send(&user("hi"));
    replay.next();
    replay.send(&user("more"));
    let (status, stderr) = replay.finish();
    assert_eq!(status.code(), Some(1));
    assert!(
        stderr.contains("after the end of the recording"),
        "{stderr}"
    );
}

#[test]
fn frames_the_tap_handled_and_secrets_it_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let path = recording(
        dir.path(),
        &[
            json!({"dir": "meta", "t": 0, "argv": [], "env": {}}),
            json!({"dir": "in", "t": 0.1, "msg": user("key <redacted 6 chars>")}),
            json!({"dir": "out", "t": 0.2, "msg": ask("p", "Read"), "tap": "policy"}),
            json!({"dir": "in", "t": 0.2, "msg": answer("p", "allow"), "tap": "policy",
                   "rule": "Read"}),
            json!({"dir": "in", "t": 0.25, "dropped": "line 3 is 70000000 bytes long"}),
            json!({"dir": "out", "t": 0.3, "raw": "[debug] not JSON"}),
            json!({"dir": "out", "t": 0.4, "msg": {"type": "result", "subtype": "success"}}),
        ],
    );
    let mut replay = Replay::start(&path, &[]);
    replay.send(&user("key abc123"));
    let raw = replay.lines.recv_timeout(Duration::from_secs(15)).unwrap();
    assert_eq!(raw, "[debug] not JSON");
    assert_eq!(replay.next()["type"], "result");
    let (status, stderr) = replay.finish();
    assert!(status.success(), "{stderr}");

    // The redacted span stands for exactly that many characters.
    let mut replay = Replay::start(&path, &[]);
    replay.send(&user("key abc1234"));
    let (status, _) = replay.finish();
    assert_eq!(status.code(), Some(1));
}

#[test]
fn an_unreadable_recording_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, "not a recording\n").unwrap();
    let (status, stderr) = Replay::start(&path, &[]).finish();
    assert_eq!(status.code(), Some(2));
    assert!(stderr.contains("bad.jsonl:1"), "{stderr}");
}

/// What `CLI -v` prints, run as claude-agent-sdk 0.1.x runs it before a session: the CLI path
/// (here a wrapper script, as the docs suggest), `-v`, stdout and stderr piped, stdin left open
/// and never written. Returns the first chunk of stdout (all the SDK reads) and the exit code.
fn version_probe(cli: &Path) -> (String, Option<i32>) {
    let mut child = Command::new(cli)
        .arg("-v")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, chunk) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let read = stdout.read(&mut buf).unwrap();
        let _ = tx.send(String::from_utf8_lossy(&buf[..read]).into_owned());
    });
    // A guard against a hang only: the SDK gives up after 2 s, this test does not time it.
    let Ok(chunk) = chunk.recv_timeout(Duration::from_secs(60)) else {
        child.kill().unwrap();
        panic!("{} -v printed nothing", cli.display());
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "{} -v did not exit",
            cli.display()
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    (chunk, status.code())
}

/// The SDK's reading of the version: `^([0-9]+\.[0-9]+\.[0-9]+)`.
fn sdk_version(output: &str) -> Option<&str> {
    let output = output.trim();
    let end = output
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(output.len());
    let version = &output[..end];
    let parts: Vec<&str> = version.split('.').collect();
    (parts.len() >= 3 && parts[..3].iter().all(|p| !p.is_empty())).then_some(version)
}

/// `exec twinwire replay RECORDING "$@"`, the wrapper an SDK gets as its CLI path.
fn replay_wrapper(dir: &Path, recording: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(format!(
        "claude-{}",
        recording.file_stem().unwrap().to_string_lossy()
    ));
    let quote = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    let body = format!(
        "#!/bin/sh\nexec {} replay {} \"$@\"\n",
        quote(Path::new(env!("CARGO_BIN_EXE_twinwire"))),
        quote(recording)
    );
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_version_probe_gets_the_recorded_version_as_the_cli_prints_it() {
    let dir = tempfile::tempdir().unwrap();
    let recording = |version: &str| {
        transcripts()
            .join(format!("claude-{version}"))
            .join("basics.a_text_turn.jsonl")
    };
    // The pinned CLI and a replay of its recording answer alike, byte for byte.
    let (real, code) = version_probe(&twinwire_testkit::real_claude());
    assert_eq!(code, Some(0));
    let (replayed, code) = version_probe(&replay_wrapper(dir.path(), &recording("2.1.330")));
    assert_eq!(code, Some(0));
    assert_eq!(replayed, real);
    assert_eq!(sdk_version(&replayed), Some("2.1.330"), "{replayed}");

    for version in ["2.1.112", "2.0.77"] {
        let (replayed, code) = version_probe(&replay_wrapper(dir.path(), &recording(version)));
        assert_eq!(code, Some(0));
        assert_eq!(replayed, format!("{version} (Claude Code)\n"));
    }

    // Claude Code 1.0 did not report its version: a fallback that says so, and that no SDK
    // reads as a version.
    let (replayed, code) = version_probe(&replay_wrapper(dir.path(), &recording("1.0.128")));
    assert_eq!(code, Some(0));
    assert!(
        replayed.starts_with("unknown (Claude Code; ") && replayed.contains("names no version"),
        "{replayed}"
    );
    assert_eq!(sdk_version(&replayed), None);

    // `--version`, and among the SDK's other arguments, as Claude Code reads them.
    let replay = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_twinwire"))
            .arg("replay")
            .arg(recording("2.1.330"))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    for args in [
        &["--version"][..],
        &["--output-format", "stream-json", "--verbose", "-v"][..],
    ] {
        let output = replay(args);
        assert!(output.status.success(), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), real, "{args:?}");
    }
}

#[test]
fn a_recording_that_cannot_be_read_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let (status, stderr) = Replay::start(dir.path(), &[]).finish();
    assert_eq!(status.code(), Some(2));
    assert_eq!(
        stderr.trim_end(),
        format!(
            "twinwire replay: reading {}: Is a directory (os error 21)",
            dir.path().display()
        )
    );
}
