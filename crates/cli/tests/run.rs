//! `twinwire run` and `twinwire model-server` as a user runs them: the built binary, driving the
//! scripted `fake-claude` of twinwire-testkit. With the real CLI offline: `tests/offline.rs`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
mod runs;
use common::{fake_claude, twinwire};
use runs::{is_summary, Run};

/// A scratch directory with a script for the fake CLI.
struct Scene {
    dir: tempfile::TempDir,
}

impl Scene {
    fn new(script: Value) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("script.json"), script.to_string()).expect("script");
        Self { dir }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(twinwire());
        command
            .arg("run")
            .arg("--cli-path")
            .arg(fake_claude())
            .args(args)
            .env("TWINWIRE_FAKE_SCRIPT", self.dir.path().join("script.json"))
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn run(&self, args: &[&str]) -> Run {
        let output = self.command(args).output().expect("running twinwire");
        Run::from(output)
    }
}

fn ask_touch() -> Value {
    json!({"turns": [{"steps": [
        {"text": "I will create x."},
        {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": true,
                  "output": "touched x"}},
        {"text": "All done."}
    ]}]})
}

#[test]
fn text_output_shows_the_assistant_text_and_a_summary() {
    let scene = Scene::new(json!({"turns": [{"steps": [{"text": "Hello from the script."}]}]}));
    let run = scene.run(&["Say hello"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{run:?}");
    assert_eq!(lines[0], "Hello from the script.");
    assert!(is_summary(lines[1], "✓ "), "{run:?}");
}

#[test]
fn the_prompt_reaches_the_cli_and_can_come_from_stdin() {
    // The fake's default script echoes the prompt.
    let scene = Scene::new(json!({"turns": []}));
    let mut child = scene
        .command(&["-"])
        .env_remove("TWINWIRE_FAKE_SCRIPT")
        .stdin(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(b"from a pipe").expect("write prompt");
    drop(stdin);
    let run = Run::from(child.wait_with_output().expect("wait"));
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.starts_with("echo: from a pipe\n"), "{run:?}");
}

#[test]
fn an_asked_tool_is_denied_without_allow_with_a_hint() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["Create x"]);
    // The session itself succeeds: the model is told the tool was denied.
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stdout.contains("⏺ Bash(touch x)\n"), "{run:?}");
    assert!(
        run.stdout
            .contains("  ⎿  ✗ not allowed without --allow 'Bash(touch:*)' ("),
        "{run:?}"
    );
    assert!(!run.stdout.contains("touched x"), "{run:?}");
    assert!(
        run.stderr
            .contains("hint: Bash(touch x) was denied; re-run with --allow 'Bash(touch:*)'"),
        "{run:?}"
    );
}

#[test]
fn an_asked_tool_runs_with_a_matching_allow() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--allow", "Bash(touch*)", "Create x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout.lines().take(4).collect::<Vec<_>>(),
        [
            "I will create x.",
            "⏺ Bash(touch x)",
            "  ⎿  touched x",
            "All done."
        ],
        "{run:?}"
    );
    assert!(!run.stderr.contains("hint:"), "{run:?}");
}

#[test]
fn an_allow_for_another_command_does_not_match() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--allow", "Bash(echo*)", "--allow", "Write", "Create x"]);
    assert!(run.stdout.contains("✗ not allowed"), "{run:?}");
}

#[test]
fn a_rule_for_a_tool_that_does_not_exist_is_refused() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--allow", "bash(touch:*)", "Create x"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("`Bash`"), "{run:?}");
    let run = scene.run(&["--deny", "NotATool", "Create x"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(
        run.stderr.contains("no tool is called `NotATool`"),
        "{run:?}"
    );
}

#[test]
fn deny_wins_over_allow() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--allow", "Bash(touch*)", "--deny", "Bash", "Create x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stdout.contains("  ⎿  ✗ denied by --deny 'Bash'"),
        "{run:?}"
    );
    assert!(!run.stdout.contains("touched x"), "{run:?}");
}

#[test]
fn jsonl_output_is_only_json_lines() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--output", "jsonl", "--allow", "Bash", "Create x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let frames: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    let kinds: Vec<&str> = frames
        .iter()
        .map(|frame| frame["type"].as_str().expect("a type"))
        .collect();
    assert!(kinds.contains(&"assistant"), "{kinds:?}");
    assert!(kinds.contains(&"user"), "{kinds:?}");
    assert_eq!(
        kinds.iter().filter(|kind| **kind == "result").count(),
        1,
        "{kinds:?}"
    );
    // Control traffic is the engine's business, not a message.
    assert!(!kinds.contains(&"control_request"), "{kinds:?}");
    // The summary goes to stderr.
    assert!(
        run.stderr.lines().any(|line| is_summary(line, "✓ ")),
        "{run:?}"
    );
}

#[test]
fn none_output_is_only_the_summary() {
    let scene = Scene::new(ask_touch());
    let run = scene.run(&["--output", "none", "--allow", "Bash", "Create x"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{run:?}");
    assert!(is_summary(lines[0], "✓ "), "{run:?}");
}

#[test]
fn an_error_result_exits_1() {
    let scene = Scene::new(json!({"turns": [{"steps": [
        {"text": "working"},
        {"result": {"subtype": "error_max_turns", "errors": ["Reached maximum number of turns (1)"]}}
    ]}]}));
    let run = scene.run(&["--max-turns", "1", "Go"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let last = run.stdout.lines().last().unwrap_or_default();
    assert!(is_summary(last, "✗ error_max_turns · "), "{run:?}");
    assert!(
        run.stderr.contains("Reached maximum number of turns (1)"),
        "{run:?}"
    );
}

#[test]
fn a_crash_before_the_result_exits_1_with_the_cli_stderr() {
    let scene = Scene::new(json!({"turns": [{"steps": [
        {"crash": {"code": 3, "stderr": "fatal: something broke"}}
    ]}]}));
    let run = scene.run(&["Go"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(run.stderr.contains("twinwire: "), "{run:?}");
    assert!(run.stderr.contains("something broke"), "{run:?}");
}

#[test]
fn a_missing_cli_exits_1_with_install_hints() {
    let output = Command::new(twinwire())
        .args(["run", "--cli-path", "/nonexistent/claude", "hi"])
        .stdin(Stdio::null())
        .output()
        .expect("running twinwire");
    let run = Run::from(output);
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(run.stdout, "", "{run:?}");
    assert!(run.stderr.contains("Claude Code CLI not found"), "{run:?}");
    assert!(run.stderr.contains("/nonexistent/claude"), "{run:?}");
    assert!(
        run.stderr
            .contains("npm install -g @anthropic-ai/claude-code"),
        "{run:?}"
    );
    // The command a user has, not a task of this repository.
    assert!(run.stderr.contains("`twinwire install-claude`"), "{run:?}");
    assert!(!run.stderr.contains("cargo xtask"), "{run:?}");
}

#[test]
fn options_reach_the_cli() {
    let scene = Scene::new(json!({"turns": [{"steps": [{"text": "ok"}]}]}));
    let record = scene.dir.path().join("record.jsonl");
    let output = scene
        .command(&[
            "--model",
            "claude-test-model",
            "--permission-mode",
            "acceptEdits",
            "--max-turns",
            "7",
            "--include-partial-messages",
            "--append-system-prompt",
            "Be brief.",
            "Hi",
        ])
        .env("TWINWIRE_FAKE_RECORD", &record)
        .output()
        .expect("running twinwire");
    let run = Run::from(output);
    assert_eq!(run.code, Some(0), "{run:?}");
    let text = std::fs::read_to_string(&record).expect("record");
    let first: Value = serde_json::from_str(text.lines().next().expect("a line")).expect("json");
    let argv: Vec<&str> = first["argv"]
        .as_array()
        .expect("argv")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for expected in [
        "--model=claude-test-model",
        "--permission-mode=acceptEdits",
        "--max-turns=7",
        "--include-partial-messages",
        "--permission-prompt-tool=stdio",
    ] {
        assert!(argv.contains(&expected), "{expected} not in {argv:?}");
    }
    let initialize = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|line| line["in"]["request"]["subtype"] == "initialize")
        .expect("an initialize request");
    assert_eq!(
        initialize["in"]["request"]["appendSystemPrompt"], "Be brief.",
        "{initialize}"
    );
}

#[test]
fn streamed_text_is_shown_once() {
    let scene = Scene::new(json!({"turns": [{"steps": [
        {"stream": {"text": "one two three four", "deltas": 4}}
    ]}]}));
    let run = scene.run(&["--include-partial-messages", "Count"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(
        run.stdout.matches("one two three four").count(),
        1,
        "{run:?}"
    );
    assert!(run.stdout.starts_with("one two three four\n✓ "), "{run:?}");
}

/// Reads `child`'s stdout on a thread, so a test can wait for a line with a deadline.
fn lines_of(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    let stdout = child.stdout.take().expect("stdout");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

fn wait_with_deadline(child: &mut Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("twinwire did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(unix)]
fn sigint(child: &Child) {
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn ctrl_c_interrupts_the_turn_and_exits_130() {
    let scene = Scene::new(json!({"turns": [{"steps": [
        {"text": "Working on it."},
        {"sleep_ms": 30000},
        {"text": "never shown"}
    ]}]}));
    let record = scene.dir.path().join("record.jsonl");
    let mut child = scene
        .command(&["Go"])
        .env("TWINWIRE_FAKE_RECORD", &record)
        .spawn()
        .expect("spawn");
    let lines = lines_of(&mut child);
    let first = lines
        .recv_timeout(Duration::from_secs(20))
        .expect("the first text");
    assert_eq!(first, "Working on it.");
    sigint(&child);
    let code = wait_with_deadline(&mut child, Duration::from_secs(15));
    assert_eq!(code, Some(130));
    let rest: Vec<String> = lines.try_iter().collect();
    assert!(
        !rest.iter().any(|line| line.contains("never shown")),
        "{rest:?}"
    );
    // The turn's result is said as an interrupt, not as an error with the CLI's diagnostics.
    assert!(
        rest.iter().any(|line| line.starts_with("⏹ interrupted · ")),
        "{rest:?}"
    );
    assert!(
        !rest
            .iter()
            .any(|line| line.contains("error_during_execution")),
        "{rest:?}"
    );
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read stderr");
    assert!(stderr.contains("interrupting"), "{stderr}");
    assert!(!stderr.contains("error_during_execution"), "{stderr}");
    // The CLI got an `interrupt` request before it was closed.
    let text = std::fs::read_to_string(&record).expect("record");
    assert!(
        text.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .any(|line| line["in"]["request"]["subtype"] == "interrupt"),
        "{text}"
    );
}

#[cfg(unix)]
#[test]
fn model_server_prints_its_url_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("model.json");
    std::fs::write(&script, r#"{"default": {"text": "scripted"}}"#).expect("script");
    let mut child = Command::new(twinwire())
        .args(["model-server", "--script"])
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let lines = lines_of(&mut child);
    let url = lines
        .recv_timeout(Duration::from_secs(20))
        .expect("the URL");
    let address = url
        .strip_prefix("http://")
        .unwrap_or_else(|| panic!("not a URL: {url}"));
    let mut stream = std::net::TcpStream::connect(address).expect("connect");
    let body = r#"{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#;
    write!(
        stream,
        "POST /v1/messages HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("request");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response");
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains("scripted"), "{response}");
    sigint(&child);
    assert_eq!(
        wait_with_deadline(&mut child, Duration::from_secs(10)),
        Some(0)
    );
}

#[test]
fn model_server_with_a_bad_script_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("model.json");
    std::fs::write(&script, "{not json").expect("script");
    let output = Command::new(twinwire())
        .args(["model-server", "--script"])
        .arg(&script)
        .output()
        .expect("running twinwire");
    let run = Run::from(output);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("model.json"), "{run:?}");
}

#[test]
fn escape_sequences_from_the_model_and_tools_are_shown_not_obeyed() {
    let evil_text = "title\u{1b}]0;pwned\u{7}clear\u{1b}[2J\u{1b}[Hred\u{1b}[31m!\u{9b}2J";
    let scene = Scene::new(json!({"turns": [{"steps": [
        {"text": evil_text},
        {"stream": {"text": "streamed \u{1b}[5mblink", "deltas": 3, "delay_ms": 1}},
        {"tool": {"name": "Bash", "input": {"command": "printf '\u{1b}[2J'"},
                  "output": "out\u{1b}]8;;http://x\u{1b}\\link\rover"}}
    ]}]}));
    let run = scene.run(&["--allow", "Bash", "Go"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(!run.stdout.contains('\u{1b}'), "{run:?}");
    assert!(
        !run.stdout.contains('\u{9b}') && !run.stdout.contains('\u{7}'),
        "{run:?}"
    );
    assert!(!run.stdout.contains('\r'), "{run:?}");
    for shown in [
        "title^[]0;pwned^Gclear^[[2J^[[Hred^[[31m!<U+009B>2J",
        "streamed ^[[5mblink",
        "⏺ Bash(printf '^[[2J')",
        "out^[]8;;http://x^[\\link^Mover",
    ] {
        assert!(run.stdout.contains(shown), "{shown:?} not in {run:?}");
    }
    // `--raw` prints them as they are; JSON output is never changed.
    let raw = scene.run(&["--raw", "--allow", "Bash", "Go"]);
    assert!(raw.stdout.contains(evil_text), "{raw:?}");
    let jsonl = scene.run(&["--output", "jsonl", "--allow", "Bash", "Go"]);
    let texts: Vec<String> = jsonl
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|frame| frame["type"] == "assistant")
        .filter_map(|frame| {
            frame["message"]["content"][0]["text"]
                .as_str()
                .map(str::to_owned)
        })
        .collect();
    assert!(texts.iter().any(|t| t == evil_text), "{jsonl:?}");
}
