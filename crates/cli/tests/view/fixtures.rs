//! Inputs for the page tests, made here: a session and a `claude -p` recording written by the
//! real pinned CLI offline (against the scripted model server, in a private home), a big
//! generated recording, and pages written by the built `twinwire view`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::{json, Value};
use twinwire_model_server::{ModelScript, ModelServer};

use crate::common::twinwire;

/// A private home for the real CLI, with the model server of one script running.
pub struct Offline {
    pub root: PathBuf,
    runtime: tokio::runtime::Runtime,
    server: ModelServer,
}

impl Offline {
    /// A home under `root` (with `work` and `tmp` in it) and a server for `script`.
    pub fn start(root: &Path, script: Value) -> Self {
        for dir in ["home", "work", "tmp"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let script = ModelScript::from_json(&script.to_string()).unwrap();
        let server = runtime.block_on(ModelServer::start(script)).unwrap();
        Self {
            root: root.to_owned(),
            runtime,
            server,
        }
    }

    pub fn work(&self) -> PathBuf {
        self.root.join("work")
    }

    /// The CLI's config directory, where its sessions are.
    pub fn config_dir(&self) -> PathBuf {
        self.root.join("home/.claude")
    }

    /// `program` in the work directory with the private home and the server as the API.
    pub fn command(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(self.work())
            .env("HOME", self.root.join("home"))
            .env("TMPDIR", self.root.join("tmp"))
            .env("CLAUDE_CODE_TMPDIR", self.root.join("tmp"))
            .env("ANTHROPIC_BASE_URL", self.server.url())
            .env("ANTHROPIC_API_KEY", "view-test-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .env("NO_COLOR", "1")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("CLAUDE_CODE_OAUTH_TOKEN")
            .stdin(Stdio::null());
        command
    }

    pub fn stop(self) {
        self.runtime.block_on(self.server.shutdown());
    }
}

/// Runs a command to its end, failing with its output if it failed.
pub fn succeed(command: &mut Command) -> Output {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?}: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A saved session of the real CLI: a prompt, a Write, an Edit, a Bash call `twinwire run`
/// denies, a Grep, a WebFetch, a Markdown answer; then `/rename` by the CLI.
pub struct Session {
    pub config_dir: PathBuf,
    pub id: String,
}

pub const TITLE: &str = "Tidy the notes";

/// The session, recorded once per test run.
pub fn session() -> &'static Session {
    static SESSION: OnceLock<Session> = OnceLock::new();
    // Its own thread: the recording has its own runtime, and callers may be async.
    SESSION.get_or_init(|| std::thread::spawn(record_session).join().unwrap())
}

fn record_session() -> Session {
    // Kept for the whole run (several tests read it), outside any git repository (the CLI
    // reads one it is in), under a name of this build so that the next run starts it afresh.
    let build = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        env!("CARGO_TARGET_TMPDIR").hash(&mut hasher);
        hasher.finish()
    };
    let root = std::env::temp_dir().join(format!("twinwire-view-session-{build:x}"));
    if root.exists() {
        std::fs::remove_dir_all(&root).unwrap();
    }
    let notes = root.join("work/notes.md");
    let notes = notes.to_str().unwrap();
    let after = |text: &str| json!({"all": [{"last_is_tool_result": true}, {"tool_result_contains": text}]});
    let tool = |name: &str, input: Value| json!({"tool_use": {"name": name, "input": input}});
    let script = json!({"rules": [
        {"when": after("created successfully"), "reply": {"tool_use": {"name": "Edit",
            "text": "Now I make it final.",
            "input": {"file_path": notes, "old_string": "a draft", "new_string": "the final"}}}},
        {"when": after("has been updated"),
         "reply": tool("Bash", json!({"command": "rm -rf old-notes", "description": "Remove the old notes"}))},
        {"when": after("Bash(rm:*)"), "reply": tool("Grep", json!({"pattern": "final", "path": "."}))},
        {"when": after("No such tool available: Grep"),
         "reply": tool("WebFetch", json!({"url": "https://example.com/style", "prompt": "The style guide"}))},
        {"when": {"last_is_tool_result": true},
         "reply": {"text": "All **done**: the notes are final.\n\n| file | state |\n|---|---|\n| notes.md | final |"}},
        {"when": {"last_user_text_contains": "NOTES"}, "reply": {"tool_use": {"name": "Write",
            "text": "I will write the notes.",
            "input": {"file_path": notes, "content": "# Notes\n\nThis is a draft.\n"}}}}
    ], "default": {"echo": true}});
    let offline = Offline::start(&root, script);
    let cli = twinwire_testkit::real_claude();
    succeed(
        offline
            .command(twinwire())
            .arg("run")
            .arg("--cli-path")
            .arg(&cli)
            .args([
                "--allow",
                "Write(./notes.md)",
                "--allow",
                "Edit(./notes.md)",
            ])
            .args(["--max-turns", "10"])
            .arg("Please write the NOTES file"),
    );
    let id = session_ids(&offline.config_dir()).pop().unwrap();
    succeed(
        offline
            .command(&cli)
            .args(["-p", &format!("/rename {TITLE}"), "--resume", &id])
            .args(["--output-format", "json"]),
    );
    let config_dir = offline.config_dir();
    offline.stop();
    Session { config_dir, id }
}

/// The ids of the sessions under a config directory.
pub fn session_ids(config_dir: &Path) -> Vec<String> {
    transcripts(config_dir)
        .iter()
        .filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
        .collect()
}

/// The session transcripts under a config directory.
pub fn transcripts(config_dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for project in std::fs::read_dir(config_dir.join("projects")).unwrap() {
        for file in std::fs::read_dir(project.unwrap().path()).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                found.push(path);
            }
        }
    }
    found
}

/// A `twinwire tap` recording of the real CLI run as `claude -p PROMPT`.
pub fn print_mode_recording(dir: &Path, prompt: &str) -> PathBuf {
    let offline = Offline::start(dir, json!({"rules": [], "default": {"echo": true}}));
    let record = dir.join("print.jsonl");
    succeed(
        offline
            .command(twinwire())
            .arg("tap")
            .arg("--record")
            .arg(&record)
            .arg("--")
            .arg(twinwire_testkit::real_claude())
            .args(["-p", prompt, "--output-format", "stream-json", "--verbose"]),
    );
    offline.stop();
    record
}

/// `twinwire view INPUT -o DIR/NAME.html ARGS…`; the page's path.
pub fn page(input: &Path, dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let out = dir.join(format!("{name}.html"));
    succeed(
        Command::new(twinwire())
            .arg("view")
            .arg(input)
            .arg("-o")
            .arg(&out)
            .args(args),
    );
    out
}

/// The rows of a page, read back from its JSON chunks.
pub fn rows_of(html: &str) -> Vec<Value> {
    let open = "<script type=\"application/json\" class=\"rows\">";
    let mut rows = Vec::new();
    for chunk in html.split(open).skip(1) {
        let end = chunk.find("</script>").unwrap();
        let part: Vec<Value> = serde_json::from_str(&chunk[..end]).unwrap();
        rows.extend(part);
    }
    rows
}

/// A recording of `turns` turns of a tool-using session (a prompt, the CLI's init, text, a
/// Bash call asked and allowed, its result, an answer and the turn's result): 9 lines a
/// turn, about 2.6 KB.
pub fn generated_recording(path: &Path, turns: usize) {
    use std::io::Write;
    let file = std::fs::File::create(path).unwrap();
    let mut out = std::io::BufWriter::new(file);
    let meta = json!({"dir": "meta", "t": 0, "cli": "/bin/claude", "env": {},
        "argv": ["--output-format", "stream-json", "--verbose", "--input-format", "stream-json"]});
    writeln!(out, "{meta}").unwrap();
    let mut t = 0.0;
    for n in 1..=turns {
        let frames = [
            (
                "in",
                json!({"type": "user", "message": {"role": "user",
                "content": format!("Turn {n}: please run the command and say what **happened**")},
                "parent_tool_use_id": null, "session_id": "s"}),
            ),
            (
                "out",
                json!({"type": "system", "subtype": "init", "session_id": "s",
                "model": "claude-opus-5-5", "tools": ["Bash", "Edit", "Read"], "cwd": "/work",
                "claude_code_version": "2.1.330"}),
            ),
            (
                "out",
                json!({"type": "assistant", "message": {"id": format!("m{n}"), "role": "assistant",
                "model": "claude-opus-5-5", "content": [{"type": "text",
                "text": format!("I will run it ({n}). {}", "Some *Markdown* with `code`. ".repeat(8))}]},
                "session_id": "s", "parent_tool_use_id": null}),
            ),
            (
                "out",
                json!({"type": "assistant", "message": {"id": format!("m{n}"), "role": "assistant",
                "model": "claude-opus-5-5", "content": [{"type": "tool_use", "id": format!("t{n}"),
                "name": "Bash", "input": {"command": format!("touch file{n}"), "description": "Create a file"}}]},
                "session_id": "s", "parent_tool_use_id": null}),
            ),
            (
                "out",
                json!({"type": "control_request", "request_id": format!("r{n}"), "request": {
                "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": format!("touch file{n}")},
                "tool_use_id": format!("t{n}")}}),
            ),
            (
                "in",
                json!({"type": "control_response", "response": {"subtype": "success",
                "request_id": format!("r{n}"), "response": {"behavior": "allow",
                "updatedInput": {"command": format!("touch file{n}")}}}}),
            ),
            (
                "out",
                json!({"type": "user", "message": {"role": "user", "content": [{"type": "tool_result",
                "tool_use_id": format!("t{n}"), "content": "created\n".repeat(20)}]},
                "session_id": "s", "parent_tool_use_id": null, "uuid": format!("u{n}")}),
            ),
            (
                "out",
                json!({"type": "assistant", "message": {"id": format!("m{n}b"), "role": "assistant",
                "model": "claude-opus-5-5", "content": [{"type": "text", "text": "All done. ".repeat(20)}]},
                "session_id": "s", "parent_tool_use_id": null}),
            ),
            (
                "out",
                json!({"type": "result", "subtype": "success", "is_error": false,
                "total_cost_usd": 0.0008 * n as f64, "duration_ms": 1200,
                "usage": {"input_tokens": 100, "output_tokens": 20}, "result": "All done.",
                "session_id": "s"}),
            ),
        ];
        for (dir, frame) in frames {
            t += 0.01;
            writeln!(
                out,
                "{}",
                json!({"dir": dir, "t": (t * 1000.0_f64).round() / 1000.0, "msg": frame})
            )
            .unwrap();
        }
    }
    out.flush().unwrap();
}
