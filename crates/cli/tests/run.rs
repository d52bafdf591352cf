//! `ccwire run` and `ccwire model-server` as a user runs them: the built binary, driving the
//! scripted `fake-claude` of ccwire-testkit (or, when it is installed, the real pinned CLI
//! against the offline model server).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod common;
mod tmux;
use common::{ccwire, fake_claude, quoted};

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
        let mut command = Command::new(ccwire());
        command
            .arg("run")
            .arg("--cli-path")
            .arg(fake_claude())
            .args(args)
            .env("CCWIRE_FAKE_SCRIPT", self.dir.path().join("script.json"))
            .env("NO_COLOR", "1")
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn run(&self, args: &[&str]) -> Run {
        let output = self.command(args).output().expect("running ccwire");
        Run::from(output)
    }
}

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl From<Output> for Run {
    fn from(output: Output) -> Self {
        Self {
            code: output.status.code(),
            stdout: String::from_utf8(output.stdout).expect("utf-8 stdout"),
            stderr: String::from_utf8(output.stderr).expect("utf-8 stderr"),
        }
    }
}

/// `✓ 3 steps · $0.0012 · 1.4 s` (or `✗ <subtype> · …`).
fn is_summary(line: &str, mark: &str) -> bool {
    let Some(rest) = line.strip_prefix(mark) else {
        return false;
    };
    let parts: Vec<&str> = rest.split(" · ").collect();
    let stats = &parts[parts.len().saturating_sub(3)..];
    stats.len() == 3
        && (stats[0].ends_with(" step") || stats[0].ends_with(" steps"))
        && stats[1].starts_with('$')
        && stats[1][1..].parse::<f64>().is_ok()
        && stats[2].ends_with(" s")
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
        .env_remove("CCWIRE_FAKE_SCRIPT")
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
            .contains("  ⎿  ✗ not allowed (no --allow pattern matches)"),
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
    assert!(run.stderr.contains("ccwire: "), "{run:?}");
    assert!(run.stderr.contains("something broke"), "{run:?}");
}

#[test]
fn a_missing_cli_exits_1_with_install_hints() {
    let output = Command::new(ccwire())
        .args(["run", "--cli-path", "/nonexistent/claude", "hi"])
        .stdin(Stdio::null())
        .output()
        .expect("running ccwire");
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
    assert!(run.stderr.contains("cargo xtask install-claude"), "{run:?}");
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
        .env("CCWIRE_FAKE_RECORD", &record)
        .output()
        .expect("running ccwire");
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
            panic!("ccwire did not exit within {limit:?}");
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
        .env("CCWIRE_FAKE_RECORD", &record)
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
    let mut child = Command::new(ccwire())
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
    let output = Command::new(ccwire())
        .args(["model-server", "--script"])
        .arg(&script)
        .output()
        .expect("running ccwire");
    let run = Run::from(output);
    assert_ne!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("model.json"), "{run:?}");
}

/// The real pinned CLI, offline (`cargo xtask test` installs it; without it the test fails).
#[test]
fn offline_demo_with_the_real_cli() {
    let cli = ccwire_testkit::real_claude();
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("tempdir");
    let run = |extra: &[&str]| {
        let output = Command::new(ccwire())
            .arg("run")
            .arg("--cli-path")
            .arg(&cli)
            .args(["--offline", "--cwd"])
            .arg(dir.path())
            .args(extra)
            .arg("Show me the demo")
            .env("NO_COLOR", "1")
            .env("XDG_STATE_HOME", state.path())
            .stdin(Stdio::null())
            .output()
            .expect("running ccwire");
        Run::from(output)
    };
    let denied = run(&[]);
    assert_eq!(denied.code, Some(0), "{denied:?}");
    assert!(
        denied.stdout.contains("⏺ Bash(echo 'hello from ccwire'"),
        "{denied:?}"
    );
    assert!(
        denied.stderr.contains("--allow 'Bash(echo:*)'"),
        "{denied:?}"
    );
    assert!(!dir.path().join("ccwire-demo.txt").exists());
    assert!(
        denied
            .stderr
            .contains("--allow 'Bash(echo:*)' --allow 'Edit(./ccwire-demo.txt)'"),
        "{denied:?}"
    );
    // The command alone is not enough: it writes a file through a redirection.
    let command_only = run(&["--allow", "Bash(echo:*)"]);
    assert!(
        command_only.stdout.contains("was not allowed"),
        "{command_only:?}"
    );
    assert!(!dir.path().join("ccwire-demo.txt").exists());
    let allowed = run(&[
        "--allow",
        "Bash(echo:*)",
        "--allow",
        "Edit(./ccwire-demo.txt)",
    ]);
    assert_eq!(allowed.code, Some(0), "{allowed:?}");
    assert!(
        allowed.stdout.contains("I wrote ccwire-demo.txt"),
        "{allowed:?}"
    );
    let written = std::fs::read_to_string(dir.path().join("ccwire-demo.txt")).expect("demo file");
    assert_eq!(written.trim(), "hello from ccwire");
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

/// A scratch place for `ccwire run --offline` with the real CLI: `project/` to work in,
/// `home/` as HOME, `state/` as XDG_STATE_HOME (where ccwire keeps offline sessions), and a
/// model script that tells whether the model was sent an earlier turn.
struct OfflinePlace {
    dir: tempfile::TempDir,
}

impl OfflinePlace {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["project", "home", "state"] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        }
        let script = json!({
            "rules": [
                {"when": {"last_prompt_contains": "SLOW"},
                 "reply": {"slow_text": {"text": "one two three four five six seven eight nine ten",
                                          "deltas": 200, "delay_ms": 100}}},
                {"when": {"all": [{"last_prompt_contains": "REMEMBER"}, {"first_turn": false}]},
                 "reply": {"text": "I see an earlier turn."}},
                {"when": {"last_prompt_contains": "REMEMBER"},
                 "reply": {"text": "Nothing came before."}}
            ],
            "default": {"echo": true}
        });
        std::fs::write(dir.path().join("script.json"), script.to_string()).expect("script");
        Self { dir }
    }

    fn path(&self, sub: &str) -> std::path::PathBuf {
        self.dir.path().join(sub)
    }

    /// `ccwire ARGS` in the project with this place's HOME and state.
    fn ccwire(&self, args: &[&str]) -> Run {
        let output = Command::new(ccwire())
            .args(args)
            .current_dir(self.path("project"))
            .env("HOME", self.path("home"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("running ccwire");
        Run::from(output)
    }

    /// `ccwire run --offline` with the script and the real CLI, output as JSON lines; returns
    /// the run and its result frame.
    fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let cli = ccwire_testkit::real_claude();
        let script = self.path("script.json");
        let mut args = vec![
            "run",
            "--offline",
            "--output",
            "jsonl",
            "--cli-path",
            cli.to_str().expect("a UTF-8 path"),
            "--model-script",
            script.to_str().expect("a UTF-8 path"),
        ];
        args.extend_from_slice(extra);
        args.push(prompt);
        let run = self.ccwire(&args);
        assert_eq!(run.code, Some(0), "{run:?}");
        let result = run
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|frame| frame["type"] == "result")
            .unwrap_or_else(|| panic!("no result: {run:?}"));
        (run, result)
    }
}

/// The dollars of the summary line (`✓ 1 step · $0.0008 · 0.6 s`) in `text`.
fn summary_cost(text: &str) -> f64 {
    text.lines()
        .find(|line| is_summary(line, "✓ "))
        .and_then(|line| line.split(" · $").nth(1))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|cost| cost.parse().ok())
        .unwrap_or_else(|| panic!("no summary line in {text:?}"))
}

#[test]
fn offline_sessions_are_kept_listed_shown_viewed_and_resumed() {
    let place = OfflinePlace::new();
    // An offline session, and one saved in the user's own configuration directory.
    let (_, first) = place.run(&[], "REMEMBER this");
    assert_eq!(first["result"], "Nothing came before.", "{first}");
    let offline_id = first["session_id"].as_str().expect("an id").to_owned();
    let own_dir = place.path("home").join(".claude");
    let own_env = format!("CLAUDE_CONFIG_DIR={}", own_dir.display());
    let (_, own) = place.run(&["--env", &own_env], "mine");
    let own_id = own["session_id"].as_str().expect("an id").to_owned();

    // Kept where ccwire keeps state, readable by the user only.
    let kept = place.path("state").join("ccwire/offline");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).expect("kept").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    // `sessions list`: the user's own, then the offline ones, said as such.
    let listed = place.ccwire(&["sessions", "list"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let heading = format!(
        "offline sessions (ccwire run/chat --offline), kept in {}:",
        kept.display()
    );
    let (own_part, offline_part) = listed
        .stdout
        .split_once(&heading)
        .unwrap_or_else(|| panic!("no offline heading: {listed:?}"));
    assert!(own_part.contains(&own_id), "{listed:?}");
    assert!(!own_part.contains(&offline_id), "{listed:?}");
    assert!(offline_part.contains(&offline_id), "{listed:?}");
    let json = place.ccwire(&["sessions", "list", "--json"]);
    let json: Value = serde_json::from_str(&json.stdout).expect("JSON");
    let entry = |id: &str| {
        json.as_array()
            .expect("an array")
            .iter()
            .find(|entry| entry["sessionId"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not in {json}"))
    };
    assert_eq!(
        entry(&offline_id)["offlineConfigDir"],
        kept.display().to_string()
    );
    assert!(entry(&own_id).get("offlineConfigDir").is_none(), "{json}");

    // `sessions show` and `view --session` find it.
    let shown = place.ccwire(&["sessions", "show", &offline_id]);
    assert_eq!(shown.code, Some(0), "{shown:?}");
    assert!(shown.stdout.contains("REMEMBER this"), "{shown:?}");
    let page = place.path("page.html");
    let viewed = place.ccwire(&[
        "view",
        "--session",
        &offline_id,
        "--output",
        page.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(viewed.code, Some(0), "{viewed:?}");
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("REMEMBER this"), "{html}");

    // `run --offline --resume` continues it: the model is sent the earlier turn. The summary
    // line has this turn's cost; the CLI's total is the session's, earlier run included.
    let (resumed, second) = place.run(&["--resume", &offline_id], "REMEMBER it?");
    assert_eq!(second["result"], "I see an earlier turn.", "{second}");
    assert_eq!(second["session_id"], offline_id.as_str(), "{second}");
    let total_before = first["total_cost_usd"].as_f64().expect("a cost");
    let total = second["total_cost_usd"].as_f64().expect("a cost");
    let shown_cost = summary_cost(&resumed.stderr);
    assert!(total > total_before, "{first} {second}");
    assert!(
        (shown_cost - (total - total_before)).abs() < 0.00006,
        "{shown_cost} vs {total} - {total_before}: {resumed:?}"
    );

    // A session resumed from the wrong place is said to be there, before any CLI starts.
    let cli = ccwire_testkit::real_claude();
    let wrong = place.ccwire(&[
        "run",
        "--offline",
        "--cli-path",
        cli.to_str().expect("a UTF-8 path"),
        "--resume",
        &own_id,
        "hi",
    ]);
    assert_eq!(wrong.code, Some(1), "{wrong:?}");
    assert!(
        wrong
            .stderr
            .contains("it is one of your own sessions: resume it without --offline"),
        "{wrong:?}"
    );
}

#[test]
fn the_model_script_format_is_in_the_help_and_its_example_works() {
    let help = |args: &[&str]| {
        let output = Command::new(ccwire())
            .args(args)
            .output()
            .expect("ccwire --help");
        Run::from(output).stdout
    };
    let run_help = help(&["run", "--help"]);
    assert!(
        run_help.contains("`ccwire model-server --help`"),
        "{run_help}"
    );
    // Where `run --help` points, the format: every condition and every reply.
    let server_help = help(&["model-server", "--help"]);
    for word in [
        "MODEL SCRIPT (JSON)",
        "\"rules\"",
        "\"default\"",
        "\"when\"",
        "\"reply\"",
        "\"times\"",
        "last_prompt_contains",
        "last_user_text_contains",
        "last_is_tool_result",
        "tool_result_contains",
        "tool_result_is_error",
        "first_turn",
        "system_contains",
        "model_is",
        "has_tool",
        "max_tokens_at_most",
        "all [",
        "any [",
        "not CONDITION",
        "always BOOL",
        "text TEXT",
        "tool_use {",
        "error {",
        "slow_text {",
        "json VALUE",
        "echo true",
    ] {
        assert!(server_help.contains(word), "{word} not in:\n{server_help}");
    }

    // Its example is a valid script that does what it says with the real CLI, and the one in
    // docs/model-server.md is the same.
    let example: String = server_help
        .lines()
        .skip_while(|line| !line.starts_with("EXAMPLE"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    let example: Value = serde_json::from_str(&example).expect("the example is JSON");
    ccwire_model_server::ModelScript::from_json(&example.to_string()).expect("a model script");
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/model-server.md"),
    )
    .expect("docs/model-server.md");
    let documented = docs
        .split("```json\n")
        .filter_map(|block| block.split("```").next())
        .filter_map(|block| serde_json::from_str::<Value>(block).ok())
        .any(|block| block == example);
    assert!(documented, "docs/model-server.md lacks the example");

    let place = OfflinePlace::new();
    std::fs::write(place.path("example.json"), example.to_string()).expect("example");
    let command_line = server_help
        .lines()
        .find(|line| line.trim_start().starts_with("ccwire run --offline"))
        .expect("the example's command");
    let mut words = shlex::split(command_line.trim()).expect("shell words");
    assert_eq!(words.remove(0), "ccwire");
    let script = words
        .iter()
        .position(|word| word == "script.json")
        .expect("the script's place");
    words[script] = place.path("example.json").display().to_string();
    let cli = ccwire_testkit::real_claude();
    words.splice(1..1, ["--cli-path".to_owned(), cli.display().to_string()]);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let ran = place.ccwire(&words);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout.contains("Done: x is there."), "{ran:?}");
    assert!(place.path("project/x").exists(), "{ran:?}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_in_a_terminal_says_the_turn_was_interrupted() {
    let place = OfflinePlace::new();
    let cli = ccwire_testkit::real_claude();
    let command = |extra: &str| {
        format!(
            "{} run --offline --include-partial-messages --cli-path {} --model-script {} \
             {extra} 'go SLOW'",
            quoted(ccwire()),
            quoted(&cli),
            quoted(&place.path("script.json")),
        )
    };
    let pane = tmux::Pane::start(&place.path("project"), &command(""));
    pane.wait_for("one two");
    pane.keys(&["C-c"]);
    let (code, screen) = pane.wait_exit();
    assert_eq!(code, 130, "{screen}");
    assert!(!screen.contains("nine ten"), "the turn ran on:\n{screen}");
    assert!(screen.contains("⏹ interrupted · "), "{screen}");
    assert!(!screen.contains("error_during_execution"), "{screen}");
    assert!(!screen.contains("ede_diagnostic"), "{screen}");
    pane.assert_nothing_left();
    drop(pane);

    // --verbose keeps the CLI's diagnostics.
    let pane = tmux::Pane::start(&place.path("project"), &command("--verbose"));
    pane.wait_for("one two");
    pane.keys(&["C-c"]);
    let (code, screen) = pane.wait_exit();
    assert_eq!(code, 130, "{screen}");
    assert!(screen.contains("⏹ interrupted · "), "{screen}");
    assert!(screen.contains("[ede_diagnostic]"), "{screen}");
    pane.assert_nothing_left();
}
