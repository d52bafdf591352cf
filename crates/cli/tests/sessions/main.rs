//! `twinwire sessions` on real trees of files: transcripts and directories that are links (in
//! and out of the config directory), damaged lines, loops among parents, transcripts large
//! in entries and in bytes. Each run is a real process with a time limit.
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;
mod damaged;
#[cfg(unix)]
mod links;
mod scale;
mod scrub;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// The session most tests use.
const ID: &str = "11111111-2222-4333-8444-555555555555";

/// A config directory with one project (`/work`), and a directory outside it.
struct Tree {
    _dir: tempfile::TempDir,
    config: PathBuf,
    project: PathBuf,
    outside: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        let project = config
            .join("projects")
            .join(twinwire::sessions::sanitize_path("/work"));
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        Self {
            _dir: dir,
            config,
            project,
            outside,
        }
    }

    /// `<project>/<id>.jsonl`.
    fn transcript(&self, id: &str) -> PathBuf {
        self.project.join(format!("{id}.jsonl"))
    }

    /// Runs `twinwire sessions --config-dir <config> ARGS`.
    fn run(&self, args: &[&str]) -> Output {
        let mut all = vec!["sessions", "--config-dir", self.config.to_str().unwrap()];
        all.extend_from_slice(args);
        run(&all, Duration::from_secs(120))
    }

    /// `show ID --json`, which must succeed.
    fn show(&self, id: &str) -> Value {
        let output = self.run(&["show", id, "--json"]);
        assert!(
            output.status.success(),
            "show {id}: {}",
            text(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

/// Runs `twinwire ARGS` and waits at most `limit` for it (killed then, and the test fails).
fn run(args: &[&str], limit: Duration) -> Output {
    let mut command = Command::new(common::twinwire());
    command.args(args);
    run_command(&mut command, limit, |mut stdout| {
        let mut bytes = Vec::new();
        let _ = stdout.read_to_end(&mut bytes);
        bytes
    })
}

/// Runs `command`, its stdout read by `read_stdout` (what it returns is the output's
/// `stdout`), and waits at most `limit` for it (killed then, and the test fails).
fn run_command(
    command: &mut Command,
    limit: Duration,
    read_stdout: impl FnOnce(ChildStdout) -> Vec<u8> + Send + 'static,
) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdout = std::thread::spawn(move || read_stdout(stdout));
    let mut stderr = child.stderr.take().unwrap();
    let stderr = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr.read_to_end(&mut bytes);
        bytes
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{command:?} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// An entry as the CLI writes it.
fn entry(kind: &str, uuid: &str, parent: Option<&str>, content: Value) -> Value {
    json!({
        "parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/work",
        "sessionId": ID, "version": "2.1.330", "gitBranch": "main", "type": kind,
        "message": {"role": kind, "content": content}, "uuid": uuid,
        "timestamp": "2026-01-01T00:00:00.000Z"
    })
}

fn user(uuid: &str, parent: Option<&str>, text: &str) -> Value {
    entry("user", uuid, parent, json!(text))
}

fn assistant(uuid: &str, parent: &str, text: &str) -> Value {
    entry(
        "assistant",
        uuid,
        Some(parent),
        json!([{"type": "text", "text": text}]),
    )
}

/// A uuid-shaped id for entry `i`.
fn id(i: usize) -> String {
    format!("00000000-0000-4000-8000-{i:012}")
}

/// Lines of JSON.
fn lines(entries: &[Value]) -> String {
    entries.iter().map(|e| format!("{e}\n")).collect()
}

/// A two-turn conversation.
fn conversation() -> String {
    lines(&[
        user(&id(1), None, "Hello"),
        assistant(&id(2), &id(1), "Hi"),
        user(&id(3), Some(&id(2)), "Bye"),
        assistant(&id(4), &id(3), "Goodbye"),
    ])
}

/// The uuids of `show --json`'s messages.
fn uuids(shown: &Value) -> Vec<String> {
    shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uuid"].as_str().unwrap().to_owned())
        .collect()
}

/// Every file under `dir` with its bytes (links read through), to compare before and after.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}
