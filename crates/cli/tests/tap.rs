//! `twinwire tap` between the twinwire host API and `fake-claude`, as an SDK would use it (a
//! wrapper script given as the CLI path), and `twinwire replay` of what it recorded, driven by
//! the same host code. Also the relay at the byte level, exit codes, signals and orphans.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::host::callbacks::can_use_tool;
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire::{Client, Options};

mod common;
use common::{fake_claude, quoted, twinwire};

const API_KEY: &str = "sk-ant-api03-Zx9wVu8tSr7qPo6nMl5kJi4hGf3eDc2bA1";
const SERVICE_TOKEN: &str = "svc-tok-0123456789abcdef";
const POLICY_DENIAL: &str = "Denied by the twinwire tap policy policy.json: rule Bash(rm*)";

/// An executable `#!/bin/sh` script.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// A scratch directory with the fake's script, the policy and the wrapper scripts.
struct Session {
    dir: tempfile::TempDir,
}

impl Session {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let script = json!({"turns": [
            {"steps": [
                {"text": "echo: {{prompt}}"},
                {"tool": {"name": "Bash", "input": {"command": "ls -la"}, "ask": true,
                          "output": "listing"}},
                {"tool": {"name": "Bash", "input": {"command": "rm -rf build"}, "ask": true,
                          "output": "removed"}},
                {"tool": {"name": "Write", "input": {"file_path": "/tmp/x", "content": "y"},
                          "ask": true, "output": "written"}},
                {"garbage": "[debug] not a JSON line"},
                {"emit": {"type": "mystery_kind", "payload": 1}}
            ]},
            {"steps": [{"text": "echo: {{prompt}}"}]}
        ]});
        std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
        let policy = json!({"allow": ["Bash(ls*)"], "deny": ["Bash(rm*)"]});
        std::fs::write(dir.path().join("policy.json"), policy.to_string()).unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The wrapper an SDK gets as its CLI path: everything else comes from the environment.
    fn tap_wrapper(&self) -> PathBuf {
        script(
            self.dir.path(),
            "claude-tap",
            &format!("exec {} tap \"$@\"", quoted(twinwire())),
        )
    }

    fn replay_wrapper(&self) -> PathBuf {
        let body = format!(
            "exec {} replay {} \"$@\"",
            quoted(twinwire()),
            quoted(&self.path("record.jsonl"))
        );
        script(self.dir.path(), "claude-replay", &body)
    }

    /// The environment the host gives its CLI (the tap passes it on to the fake).
    fn env(&self) -> Vec<(&'static str, PathBuf)> {
        vec![
            ("TWINWIRE_TAP_CLI", fake_claude().to_path_buf()),
            ("TWINWIRE_TAP_RECORD", self.path("record.jsonl")),
            ("TWINWIRE_TAP_POLICY", self.path("policy.json")),
            ("TWINWIRE_FAKE_SCRIPT", self.path("script.json")),
            ("TWINWIRE_FAKE_RECORD", self.path("fake.jsonl")),
            ("ANTHROPIC_API_KEY", PathBuf::from(API_KEY)),
            ("MY_SERVICE_TOKEN", PathBuf::from(SERVICE_TOKEN)),
        ]
    }

    fn prompts(&self) -> [String; 2] {
        [
            format!("remember {API_KEY} and {SERVICE_TOKEN}"),
            "and now something else".to_owned(),
        ]
    }
}

/// What the host saw.
#[derive(Debug, Default)]
struct Outcome {
    /// Every message, as JSON (`Message::to_value`).
    messages: Vec<Value>,
    /// Lines that did not decode.
    undecodable: usize,
    /// Tool names the host's `can_use_tool` callback was asked about.
    asked: Vec<String>,
    /// The CLI's stderr.
    stderr: Vec<String>,
    /// How the CLI exited.
    status: Option<ExitStatus>,
    /// The first error that ended the session early.
    error: Option<String>,
}

impl Outcome {
    fn of_type(&self, kind: &str) -> Vec<&Value> {
        self.messages.iter().filter(|m| m["type"] == kind).collect()
    }

    fn assistant_texts(&self) -> Vec<String> {
        self.of_type("assistant")
            .into_iter()
            .flat_map(|m| {
                m["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|block| block["text"].as_str().map(str::to_owned))
            .collect()
    }

    fn tool_results(&self) -> Vec<String> {
        self.of_type("user")
            .into_iter()
            .flat_map(|m| {
                m["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|block| block["type"] == "tool_result")
            .map(|block| match &block["content"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            })
            .collect()
    }
}

/// The host: two turns and a model switch through the twinwire host API, with a permission
/// callback that allows everything it is asked.
async fn host_session(cli: &Path, env: &[(&str, PathBuf)], prompts: &[String]) -> Outcome {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let (asked_in, stderr_in) = (Arc::clone(&asked), Arc::clone(&stderr));
    let options = Options::builder()
        .cli_path(cli)
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .request_timeout(Duration::from_secs(10))
        .can_use_tool(can_use_tool(move |request| {
            asked_in
                .lock()
                .unwrap()
                .push(request.tool_name().to_owned());
            async move { Ok(PermissionResult::allow(request.input().clone())) }
        }))
        .stderr(move |line| stderr_in.lock().unwrap().push(line.to_owned()))
        .build()
        .unwrap();
    let mut outcome = Outcome::default();
    let client = match Client::connect(options).await {
        Ok(client) => client,
        Err(err) => {
            outcome.error = Some(err.to_string());
            outcome.stderr = stderr.lock().unwrap().clone();
            return outcome;
        }
    };
    let take = |item: twinwire::Result<Message>, outcome: &mut Outcome| match item {
        Ok(message) => outcome.messages.push(message.to_value()),
        Err(err) if err.is_recoverable() => outcome.undecodable += 1,
        Err(err) => {
            outcome.error.get_or_insert(err.to_string());
        }
    };
    for (turn, prompt) in prompts.iter().enumerate() {
        if turn == 1 {
            if let Err(err) = client.set_model(Some("claude-haiku-4-5")).await {
                outcome.error.get_or_insert(err.to_string());
            }
        }
        if let Err(err) = client.send(prompt.as_str()).await {
            outcome.error.get_or_insert(err.to_string());
            break;
        }
        let items: Vec<_> = client.receive_response().collect().await;
        for item in items {
            take(item, &mut outcome);
        }
        if outcome.error.is_some() {
            break;
        }
    }
    outcome.status = client.close().await.unwrap();
    while let Some(item) = client.receive().await {
        take(item, &mut outcome);
    }
    outcome.asked = asked.lock().unwrap().clone();
    outcome.stderr = stderr.lock().unwrap().clone();
    outcome
}

async fn within<T>(future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("the test hung")
}

/// What every run of the host must see, through the tap or from a replay.
fn assert_session_passed(outcome: &Outcome) {
    assert_eq!(outcome.error, None, "{outcome:#?}");
    assert!(outcome.status.unwrap().success(), "{outcome:#?}");
    // ls was allowed and rm denied by the tap's policy; only Write reached the host.
    assert_eq!(outcome.asked, ["Write"]);
    assert_eq!(
        outcome.tool_results(),
        ["listing", POLICY_DENIAL, "written"]
    );
    let texts = outcome.assistant_texts();
    assert!(texts[0].starts_with("echo: remember "), "{texts:?}");
    assert_eq!(texts.last().unwrap(), "echo: and now something else");
    assert_eq!(outcome.of_type("result").len(), 2);
    assert_eq!(outcome.of_type("mystery_kind").len(), 1);
    assert_eq!(outcome.undecodable, 1);
}

/// How the recording shows `secret`.
fn marker(secret: &str) -> String {
    format!("<redacted {} chars>", secret.len())
}

/// The first prompt as the recording shows it.
fn redacted_prompt() -> String {
    format!("remember {} and {}", marker(API_KEY), marker(SERVICE_TOKEN))
}

/// `value` with each secret replaced as the recording shows it.
fn redacted(value: &Value) -> Value {
    match value {
        Value::String(text) => {
            let mut text = text.clone();
            for secret in [API_KEY, SERVICE_TOKEN] {
                text = text.replace(secret, &marker(secret));
            }
            Value::String(text)
        }
        Value::Array(items) => Value::Array(items.iter().map(redacted).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), redacted(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs the host through the tap; returns the session with its recording.
async fn record_session() -> (Session, Outcome) {
    let session = Session::new();
    let outcome = within(host_session(
        &session.tap_wrapper(),
        &session.env(),
        &session.prompts(),
    ))
    .await;
    (session, outcome)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tap_relays_everything_records_it_redacted_and_applies_the_policy() {
    let (session, outcome) = record_session().await;
    assert_session_passed(&outcome);
    // Relayed intact: the fake echoed the secrets and the host got them back.
    let texts = outcome.assistant_texts();
    assert_eq!(texts[0], format!("echo: {}", session.prompts()[0]));

    let raw = std::fs::read_to_string(session.path("record.jsonl")).unwrap();
    assert!(!raw.contains(API_KEY) && !raw.contains(SERVICE_TOKEN));
    let record = read_lines(&session.path("record.jsonl"));
    let meta = &record[0];
    assert_eq!(meta["dir"], "meta");
    assert_eq!(meta["t"], 0);
    assert_eq!(meta["cli"], fake_claude().display().to_string());
    assert!(meta["argv"]
        .as_array()
        .unwrap()
        .contains(&json!("--verbose")));
    assert_eq!(meta["env"]["ANTHROPIC_API_KEY"], marker(API_KEY));
    assert_eq!(meta["env"]["MY_SERVICE_TOKEN"], marker(SERVICE_TOKEN));
    assert_eq!(
        meta["env"]["TWINWIRE_FAKE_SCRIPT"],
        session.path("script.json").display().to_string()
    );
    let mut last_t = 0.0;
    for line in &record[1..] {
        let t = line["t"].as_f64().unwrap();
        assert!(t >= last_t, "time goes forward: {line}");
        last_t = t;
    }

    // In: exactly what reached the fake's stdin (the host's frames and the tap's answers),
    // in order, with the secrets redacted.
    let received: Vec<Value> = read_lines(&session.path("fake.jsonl"))
        .into_iter()
        .filter_map(|line| line.get("in").cloned())
        .collect();
    let recorded_in: Vec<&Value> = record.iter().filter(|l| l["dir"] == "in").collect();
    assert_eq!(recorded_in.len(), received.len());
    for (recorded, sent) in recorded_in.iter().zip(&received) {
        assert_eq!(recorded["msg"], redacted(sent));
    }
    let user = recorded_in
        .iter()
        .find(|l| l["msg"]["type"] == "user")
        .unwrap();
    assert_eq!(user["msg"]["message"]["content"], redacted_prompt());

    // The tap's own answers: marked, with the rule, and never shown to the host.
    let policy: Vec<&Value> = record.iter().filter(|l| l["tap"] == "policy").collect();
    assert_eq!(policy.len(), 4, "{policy:#?}");
    let answers: Vec<&Value> = policy
        .iter()
        .copied()
        .filter(|l| l["dir"] == "in")
        .collect();
    assert_eq!(answers[0]["rule"], "Bash(ls*)");
    assert_eq!(
        answers[0]["msg"]["response"]["response"]["behavior"],
        "allow"
    );
    assert_eq!(
        answers[0]["msg"]["response"]["response"]["updatedInput"],
        json!({"command": "ls -la"})
    );
    assert_eq!(answers[1]["rule"], "Bash(rm*)");
    assert_eq!(
        answers[1]["msg"]["response"]["response"]["message"],
        POLICY_DENIAL
    );
    for ask in policy.iter().filter(|l| l["dir"] == "out") {
        let id = &ask["msg"]["request_id"];
        assert!(received.iter().any(|f| &f["response"]["request_id"] == id));
    }

    // Out: every data-plane frame the host got, in order, is the recorded frame; the line
    // that is not JSON is recorded raw.
    let recorded_out: Vec<Value> = record
        .iter()
        .filter(|l| l["dir"] == "out" && l.get("msg").is_some() && l.get("tap").is_none())
        .map(|l| l["msg"].clone())
        .filter(|m| !m["type"].as_str().unwrap().starts_with("control_"))
        .collect();
    let host_saw: Vec<Value> = outcome.messages.iter().map(redacted).collect();
    assert_eq!(recorded_out, host_saw);
    let raw_lines: Vec<&Value> = record.iter().filter(|l| l.get("raw").is_some()).collect();
    assert_eq!(raw_lines.len(), 1);
    assert_eq!(raw_lines[0]["raw"], "[debug] not a JSON line");
    // The host's permission answer and the CLI's requests are in the recording too.
    let asks_in_record = record
        .iter()
        .filter(|l| l["msg"]["request"]["subtype"] == "can_use_tool")
        .count();
    assert_eq!(asks_in_record, 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_of_the_recording_passes_the_same_host() {
    let (session, outcome) = record_session().await;
    assert_session_passed(&outcome);
    let replayed = within(host_session(
        &session.replay_wrapper(),
        &session.env(),
        &session.prompts(),
    ))
    .await;
    assert_session_passed(&replayed);
    // The replay shows the host what the recording holds: secrets stay redacted.
    assert_eq!(
        replayed.assistant_texts()[0],
        format!("echo: {}", redacted_prompt())
    );
    let through_tap: Vec<Value> = outcome.messages.iter().map(redacted).collect();
    assert_eq!(replayed.messages, through_tap);
    // The replay did not start the fake.
    let fake_runs = std::fs::read_to_string(session.path("fake.jsonl"))
        .unwrap()
        .lines()
        .filter(|line| line.contains("\"argv\""))
        .count();
    assert_eq!(fake_runs, 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_replay_reports_a_host_that_sends_different_text() {
    let (session, outcome) = record_session().await;
    assert_session_passed(&outcome);
    let prompts = ["something different".to_owned(), "x".to_owned()];
    let replayed = within(host_session(
        &session.replay_wrapper(),
        &session.env(),
        &prompts,
    ))
    .await;
    assert_eq!(
        replayed.status.and_then(|s| s.code()),
        Some(1),
        "{replayed:#?}"
    );
    let stderr = replayed.stderr.join("\n");
    let field = format!(
        "field message.content text: recorded \"{}\", received \"something different\"",
        redacted_prompt()
    );
    assert!(
        stderr.contains("the host diverged from")
            && stderr.contains(&field)
            && stderr.contains("--- recorded (")
            && stderr.contains("+++ received (host line"),
        "{stderr}"
    );
}

/// A tap started by hand, with raw pipes.
struct RawTap {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl RawTap {
    fn start(args: &[&str], fake_script: Option<&Path>, dir: &Path) -> Self {
        let mut command = Command::new(twinwire());
        command
            .arg("tap")
            .args(args)
            .env_remove("TWINWIRE_TAP_CLI")
            .env_remove("TWINWIRE_TAP_RECORD")
            .env_remove("TWINWIRE_TAP_POLICY")
            .env("TWINWIRE_FAKE_RECORD", dir.join("fake.jsonl"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        match fake_script {
            Some(script) => command.env("TWINWIRE_FAKE_SCRIPT", script),
            None => command.env_remove("TWINWIRE_FAKE_SCRIPT"),
        };
        let mut child = command.spawn().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    break;
                }
            }
        });
        Self { child, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn line(&self) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(15))
            .expect("a line from the tap")
    }

    /// Lines up to and including the first `pred` accepts.
    fn until(&self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.line();
            let done = pred(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Closes stdin; returns the exit status and stderr.
    fn finish(mut self) -> (ExitStatus, String) {
        drop(self.child.stdin.take());
        let output = wait_output(self.child);
        (output.0, output.1)
    }
}

fn wait_output(mut child: Child) -> (ExitStatus, String) {
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the tap did not exit");
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status, stderr)
}

const INITIALIZE: &str =
    r#"{"type":"control_request","request_id":"req_1","request":{"subtype":"initialize"}}"#;

#[test]
fn lines_pass_unchanged_in_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    // The fake writes this line verbatim: odd spacing a re-serializer would lose.
    let spaced = r#"{ "type" : "mystery",   "n": 1.50, "s":"é\u00e9" }"#;
    let script = json!({"turns": [{"steps": [
        {"garbage": spaced},
        {"garbage": "plain text from the CLI"},
        {"stderr": "a line on stderr"},
        {"text": "done"}
    ]}]});
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let record = dir.path().join("tap.jsonl");
    let fake = fake_claude();
    let mut tap = RawTap::start(
        &[
            "--record",
            record.to_str().unwrap(),
            "--",
            fake.to_str().unwrap(),
            "--verbose",
        ],
        Some(&script_path),
        dir.path(),
    );
    tap.send(INITIALIZE);
    let response = tap.line();
    assert!(response.contains("\"request_id\":\"req_1\""), "{response}");
    tap.send("this is not JSON {");
    tap.send(r#"{"type":"user","message":{"role":"user","content":"go"}}"#);
    let lines = tap.until(|l| l.contains("\"type\":\"result\""));
    assert!(lines.iter().any(|l| l == spaced), "{lines:#?}");
    assert!(lines.iter().any(|l| l == "plain text from the CLI"));
    let (status, stderr) = tap.finish();
    assert!(status.success());
    assert!(stderr.lines().any(|l| l == "a line on stderr"), "{stderr}");

    // The fake got the host's lines as sent.
    let fake_saw = read_lines(&dir.path().join("fake.jsonl"));
    assert!(fake_saw.iter().any(|l| l["in_raw"] == "this is not JSON {"));
    // The recording holds the CLI's line as written (its JSON text, not re-serialized).
    let recorded = std::fs::read_to_string(&record).unwrap();
    assert!(
        recorded.contains(&format!("\"msg\":{spaced}}}")),
        "{recorded}"
    );
    assert!(recorded.contains(r#""raw":"this is not JSON {""#));
    assert!(
        recorded.contains(r#""dir":"out","#)
            && recorded.contains(r#""raw":"plain text from the CLI""#)
    );
}

#[test]
fn a_record_directory_gets_one_file_per_session_and_an_empty_path_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir(&sessions).unwrap();
    let fake = fake_claude();
    for record in [sessions.to_str().unwrap(), sessions.to_str().unwrap(), ""] {
        let mut tap = RawTap::start(
            &["--record", record, "--", fake.to_str().unwrap()],
            None,
            dir.path(),
        );
        tap.send(INITIALIZE);
        let _ = tap.line();
        let (status, stderr) = tap.finish();
        assert!(status.success(), "{stderr}");
    }
    let files: Vec<_> = std::fs::read_dir(&sessions).unwrap().collect();
    assert_eq!(files.len(), 2);
    for file in files {
        let lines = read_lines(&file.unwrap().path());
        assert_eq!(lines[0]["dir"], "meta");
        assert_eq!(lines[1]["msg"]["request"]["subtype"], "initialize");
    }
}

#[test]
fn a_line_over_the_limit_is_dropped_reported_and_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("tap.jsonl");
    let fake = fake_claude();
    let mut tap = RawTap::start(
        &[
            "--max-line-length",
            "1000",
            "--record",
            record.to_str().unwrap(),
            "--",
            fake.to_str().unwrap(),
        ],
        None,
        dir.path(),
    );
    tap.send(&format!(
        "{{\"type\":\"user\",\"pad\":\"{}\"}}",
        "x".repeat(1100)
    ));
    tap.send(INITIALIZE);
    // The CLI's answer (about 1.8 KB) is dropped as well.
    tap.send(r#"{"type":"user","message":{"role":"user","content":"go"}}"#);
    let lines = tap.until(|l| l.contains("\"type\":\"result\""));
    assert!(lines
        .iter()
        .all(|l| !l.contains("\"request_id\":\"req_1\"")));
    let (status, stderr) = tap.finish();
    assert!(status.success());
    assert!(
        stderr.contains("twinwire tap: dropped a line from the host: line 1 is 1124 bytes long"),
        "{stderr}"
    );
    assert!(
        stderr.contains("twinwire tap: dropped a line from the CLI"),
        "{stderr}"
    );
    let fake_saw = read_lines(&dir.path().join("fake.jsonl"));
    let frames: Vec<&Value> = fake_saw.iter().filter_map(|l| l.get("in")).collect();
    assert_eq!(frames[0]["request"]["subtype"], "initialize");
    let recorded = read_lines(&record);
    let dropped: Vec<&Value> = recorded
        .iter()
        .filter(|l| l.get("dropped").is_some())
        .collect();
    assert_eq!(dropped[0]["dir"], "in");
    assert!(dropped.iter().any(|l| l["dir"] == "out"));
}

#[test]
fn the_exit_code_is_the_clis() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_claude();
    for (step, expected) in [
        (json!({"crash": {"code": 3, "stderr": "boom"}}), 3),
        (json!({"kill_self": "SIGKILL"}), 128 + 9),
    ] {
        let script_path = dir.path().join("script.json");
        let script = json!({"turns": [{"steps": [step]}]});
        std::fs::write(&script_path, script.to_string()).unwrap();
        let mut tap = RawTap::start(
            &["--", fake.to_str().unwrap()],
            Some(&script_path),
            dir.path(),
        );
        tap.send(r#"{"type":"user","message":{"role":"user","content":"go"}}"#);
        // The host keeps its end open: the CLI's exit alone ends the tap.
        let (status, stderr) = wait_output(tap.child);
        assert_eq!(status.code(), Some(expected), "{stderr}");
    }
}

#[test]
fn no_cli_is_left_behind_when_the_tap_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_claude();
    let mut tap = RawTap::start(&["--", fake.to_str().unwrap()], None, dir.path());
    tap.send(INITIALIZE);
    let response: Value = serde_json::from_str(&tap.line()).unwrap();
    let pid = response["response"]["response"]["pid"].as_u64().unwrap();
    assert!(alive(pid));
    tap.child.kill().unwrap();
    tap.child.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the CLI outlived the tap");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_ends_the_cli_gracefully_and_reports_its_signal() {
    let dir = tempfile::tempdir().unwrap();
    let fake = fake_claude();
    let mut tap = RawTap::start(&["--", fake.to_str().unwrap()], None, dir.path());
    tap.send(INITIALIZE);
    let _ = tap.line();
    let status = Command::new("kill")
        .args(["-TERM", &tap.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let (status, stderr) = wait_output(tap.child);
    assert_eq!(status.code(), Some(128 + 15), "{stderr}");
}

#[test]
fn without_a_cli_the_tap_says_what_is_missing() {
    let output = Command::new(twinwire())
        .args(["tap", "--verbose"])
        .env_remove("TWINWIRE_TAP_CLI")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("TWINWIRE_TAP_CLI"), "{stderr}");
}

fn alive(pid: u64) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}
