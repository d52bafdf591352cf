//! The harness: spawn `fake-claude`, read its stdout on a thread, fail on timeouts.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const TIMEOUT: Duration = Duration::from_secs(15);

/// A running `fake-claude` with its stdout read on a thread.
pub struct Fake {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Receiver<String>,
    pub stderr: Option<JoinHandle<String>>,
    pub dir: PathBuf,
}

pub struct Setup<'a> {
    name: &'a str,
    script: Option<Value>,
    env: Vec<(&'a str, String)>,
    args: Vec<&'a str>,
}

impl<'a> Setup<'a> {
    pub fn new(name: &'a str) -> Self {
        Self {
            name,
            script: None,
            env: Vec::new(),
            args: vec![
                "--output-format",
                "stream-json",
                "--input-format",
                "stream-json",
                "--verbose",
            ],
        }
    }

    pub fn script(mut self, script: Value) -> Self {
        self.script = Some(script);
        self
    }

    pub fn env(mut self, key: &'a str, value: impl Into<String>) -> Self {
        self.env.push((key, value.into()));
        self
    }

    pub fn start(self) -> Fake {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!(
            "fake-claude-{}-{}",
            self.name,
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fake-claude"));
        cmd.args(&self.args)
            .current_dir(&dir)
            .env_remove("TWINWIRE_FAKE_SCRIPT")
            .env_remove("TWINWIRE_FAKE_RECORD")
            .env_remove("CLAUDE_CODE_SDK_READS_SESSION_STATE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(script) = &self.script {
            let path = dir.join("script.json");
            std::fs::write(&path, script.to_string()).unwrap();
            cmd.env("TWINWIRE_FAKE_SCRIPT", &path);
        }
        for (key, value) in &self.env {
            cmd.env(key, value);
        }
        let mut child = cmd.spawn().expect("spawn fake-claude");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                if tx.send(std::mem::take(&mut line)).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Fake {
            stdin: child.stdin.take(),
            child,
            stdout: rx,
            stderr: Some(stderr),
            dir,
        }
    }
}

impl Fake {
    pub fn send(&mut self, frame: Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{frame}").expect("write to fake-claude");
        stdin.flush().unwrap();
    }

    pub fn user(&mut self, text: &str) {
        self.send(json!({
            "type": "user",
            "session_id": "",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
            "parent_tool_use_id": null
        }));
    }

    pub fn request(&mut self, id: &str, request: Value) {
        self.send(json!({"type": "control_request", "request_id": id, "request": request}));
    }

    pub fn respond(&mut self, request_id: &str, payload: Value) {
        self.send(json!({"type": "control_response", "response": {
            "subtype": "success", "request_id": request_id, "response": payload}}));
    }

    /// The next stdout line, raw (without its newline).
    pub fn line(&self) -> String {
        let mut line = self
            .stdout
            .recv_timeout(TIMEOUT)
            .expect("a stdout line before the timeout");
        line.truncate(line.trim_end_matches('\n').len());
        line
    }

    pub fn next(&self) -> Value {
        let line = self.line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Frames up to and including the first one `pred` accepts.
    pub fn until(&self, pred: impl Fn(&Value) -> bool) -> Vec<Value> {
        let mut frames = Vec::new();
        loop {
            let frame = self.next();
            let done = pred(&frame);
            frames.push(frame);
            if done {
                return frames;
            }
        }
    }

    /// Skip frames up to the next control request of this subtype; returns it.
    pub fn expect_request(&self, subtype: &str) -> Value {
        self.until(|f| is_request(f, subtype)).pop().unwrap()
    }

    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Close stdin, wait for the exit; (exit code, stderr).
    pub fn finish(mut self) -> (Option<i32>, String) {
        self.close_stdin();
        let deadline = Instant::now() + TIMEOUT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "fake-claude did not exit");
            std::thread::sleep(Duration::from_millis(10));
        };
        let stderr = self.stderr.take().unwrap().join().unwrap();
        (status.code(), stderr)
    }
}

impl Drop for Fake {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn kind(frame: &Value) -> (&str, &str) {
    let field = |k: &str| frame.get(k).and_then(Value::as_str).unwrap_or("");
    (field("type"), field("subtype"))
}

pub fn is_request(frame: &Value, subtype: &str) -> bool {
    frame["type"] == "control_request" && frame["request"]["subtype"] == subtype
}

pub fn is_result(frame: &Value) -> bool {
    frame["type"] == "result"
}

pub fn id_of(frame: &Value) -> String {
    frame["request_id"].as_str().unwrap().to_string()
}

pub fn initialize(fake: &mut Fake, request: Value) -> Value {
    fake.request("req_1", request);
    let frames = fake.until(|f| f["type"] == "control_response");
    frames.last().unwrap()["response"].clone()
}
