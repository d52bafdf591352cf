//! `ccwire chat` in a real terminal: tmux runs it in a pseudo-terminal, the test types keys
//! with `send-keys` and reads the screen with `capture-pane`, the way a person would. The CLI
//! is the real pinned one, offline against a model script. `cargo xtask test` installs tmux
//! (Debian's package) and names it in `CCWIRE_TMUX`; without tmux the tests fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;

mod common;
use common::{ccwire, quoted};

/// How long a screen may take to show what a step waits for.
const PATIENCE: Duration = Duration::from_secs(60);

fn tmux_program() -> PathBuf {
    match std::env::var_os("CCWIRE_TMUX").filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from("tmux"),
    }
}

/// A chat running in its own tmux server; the server is killed when this is dropped.
struct Chat {
    dir: tempfile::TempDir,
    socket: PathBuf,
    /// A value in the chat's environment, inherited by the CLI and its tools: how the test
    /// finds every process the chat started.
    marker: String,
}

impl Chat {
    /// Starts `ccwire chat --offline` with the test's model script in a 160×50 terminal.
    fn start(extra: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = json!({
            "rules": [
                {"when": {"last_prompt_contains": "SLOW"},
                 "reply": {"slow_text": {"text": "one two three four five six seven eight nine ten",
                                          "deltas": 200, "delay_ms": 100}}},
                {"when": {"last_is_tool_result": true},
                 "reply": {"text": "Done: the file is there."}},
                {"when": {"last_prompt_contains": "TOUCH"},
                 "reply": {"tool_use": {"name": "Bash", "text": "Creating it.",
                                        "input": {"command": "touch chat-made.txt",
                                                  "description": "Create a file"}}}}
            ],
            "default": {"echo": true}
        });
        std::fs::write(dir.path().join("script.json"), script.to_string()).expect("script");
        std::fs::create_dir(dir.path().join("home")).expect("home");
        let marker = format!("chat-test-{}-{}", std::process::id(), unique());
        let cli = ccwire_testkit::real_claude();
        let mut command = format!(
            "{} chat --offline --model-script script.json --cli-path {}",
            quoted(ccwire()),
            quoted(&cli)
        );
        for arg in extra {
            command.push(' ');
            command.push_str(arg);
        }
        let shell = format!("{command}; echo CHAT-EXIT=$?; sleep 600");
        let chat = Self {
            socket: dir.path().join("tmux.sock"),
            dir,
            marker,
        };
        let started = chat
            .tmux()
            .args(["new-session", "-d", "-x", "160", "-y", "50", "-c"])
            .arg(chat.dir.path())
            .args(["-e", &format!("HOME={}", chat.home().display())])
            .args(["-e", &format!("CCWIRE_CHAT_TEST={}", chat.marker)])
            .args(["-e", "NO_COLOR=1"])
            .args(["-e", "XDG_STATE_HOME="])
            .arg(shell)
            .output()
            .expect("running tmux (install it, or set CCWIRE_TMUX)");
        assert!(started.status.success(), "tmux: {}", text(&started));
        chat.wait_for("Ctrl-D to quit");
        chat
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    fn tmux(&self) -> Command {
        let mut command = Command::new(tmux_program());
        command.arg("-S").arg(&self.socket);
        // No user configuration changes what the test sees.
        command.args(["-f", "/dev/null"]);
        command
    }

    /// Types `keys` (tmux key names: `Enter`, `C-c`, `C-d`, or literal text).
    fn keys(&self, keys: &[&str]) {
        let sent = self
            .tmux()
            .args(["send-keys", "-t", "0"])
            .args(keys)
            .output()
            .expect("tmux send-keys");
        assert!(sent.status.success(), "send-keys: {}", text(&sent));
    }

    /// Types a line and Enter.
    fn line(&self, line: &str) {
        let sent = self
            .tmux()
            .args(["send-keys", "-t", "0", "-l", line])
            .output()
            .expect("tmux send-keys");
        assert!(sent.status.success(), "send-keys: {}", text(&sent));
        self.keys(&["Enter"]);
    }

    /// The whole screen and its scrollback, wrapped lines joined.
    fn screen(&self) -> String {
        let captured = self
            .tmux()
            .args(["capture-pane", "-p", "-J", "-S", "-1000", "-t", "0"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&captured.stdout).into_owned()
    }

    /// Waits until the screen shows `needle` `times` times; returns the screen.
    fn wait_count(&self, needle: &str, times: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if screen.matches(needle).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {needle:?} {times}×:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for(&self, needle: &str) -> String {
        self.wait_count(needle, 1)
    }

    /// Waits for the prompt to come back after `count` prompts were shown in all.
    fn wait_prompts(&self, count: usize) -> String {
        self.wait_count("\n› ", count)
    }

    /// Processes (other than tmux's own shell) whose environment holds the marker.
    fn processes(&self) -> Vec<String> {
        let needle = format!("CCWIRE_CHAT_TEST={}", self.marker);
        let mut found = Vec::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return found;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(environ) = std::fs::read(path.join("environ")) else {
                continue;
            };
            let has = environ
                .split(|b| *b == 0)
                .any(|var| var == needle.as_bytes());
            if !has {
                continue;
            }
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            // The pane's shell waits (`sleep 600`) so the exit code stays on the screen.
            if cmdline.starts_with("sleep 600") || cmdline.contains("CHAT-EXIT") {
                continue;
            }
            found.push(format!("{} {cmdline}", entry.file_name().to_string_lossy()));
        }
        found
    }

    /// Waits (up to 10 s) until no process of the chat is left.
    fn assert_nothing_left(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = self.processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "processes left behind: {left:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Chat {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn file(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

#[test]
fn a_conversation_with_a_permission_an_interrupt_and_ctrl_d() {
    let chat = Chat::start(&[]);
    let dir = chat.dir.path().to_owned();

    // A first turn.
    chat.line("hello there");
    chat.wait_for("You said: hello there");
    chat.wait_prompts(2);

    // A tool call asks; "always" allows it and keeps a rule for the session.
    chat.line("please TOUCH it");
    chat.wait_for("Allow Bash(touch chat-made.txt)? [y]es once / [a]lways Bash(touch:*) / [n]o");
    assert!(!file(&dir, "chat-made.txt"), "ran before the answer");
    chat.line("a");
    chat.wait_for("allowing Bash(touch:*) for the rest of the session");
    chat.wait_for("Done: the file is there.");
    assert!(file(&dir, "chat-made.txt"));
    chat.wait_prompts(3);

    // The same call again is not asked: the rule allows it.
    std::fs::remove_file(dir.join("chat-made.txt")).expect("remove");
    chat.line("TOUCH it again");
    let screen = chat.wait_count("Done: the file is there.", 2);
    assert_eq!(screen.matches("Allow Bash(").count(), 1, "{screen}");
    assert!(file(&dir, "chat-made.txt"));
    chat.wait_prompts(4);

    // Slash commands.
    chat.line("/cost");
    chat.wait_for("3 prompts · $");
    chat.line("/model sonnet");
    chat.wait_for("model set to sonnet");
    chat.line("/sessions");
    let screen = chat.wait_for("(/resume ID to continue one)");
    chat.wait_prompts(7);

    // /resume continues a saved session in a new CLI (this one, from the table).
    let id = screen
        .lines()
        .skip_while(|line| !line.starts_with("ID "))
        .nth(1)
        .and_then(|row| row.split_whitespace().next())
        .expect("a session row")
        .to_owned();
    assert_eq!(id.len(), 36, "{screen}");
    chat.line(&format!("/resume {id}"));
    chat.wait_for(&format!("resumed {id}"));
    chat.line("after the resume");
    chat.wait_for("You said: after the resume");
    chat.wait_prompts(9);

    // Ctrl-C during a slow turn interrupts it, and the chat goes on.
    chat.line("go SLOW please");
    chat.wait_for("one two");
    chat.keys(&["C-c"]);
    chat.wait_for("interrupting");
    let screen = chat.wait_prompts(10);
    assert!(!screen.contains("nine ten"), "the turn ran on:\n{screen}");
    // Said as an interrupt, without the CLI's diagnostics of it.
    assert!(screen.contains("⏹ interrupted · "), "{screen}");
    assert!(!screen.contains("error_during_execution"), "{screen}");
    assert!(!screen.contains("ede_diagnostic"), "{screen}");
    chat.line("after the interrupt");
    chat.wait_for("You said: after the interrupt");
    chat.wait_prompts(11);

    // Ctrl-D quits cleanly: exit 0, the session id shown, nothing left running.
    chat.keys(&["C-d"]);
    let screen = chat.wait_for("CHAT-EXIT=");
    assert!(screen.contains("CHAT-EXIT=0"), "{screen}");
    chat.assert_nothing_left();

    // The prompts went to the history file, readable by the user only.
    let history = chat.home().join(".local/state/ccwire/chat-history");
    let saved = std::fs::read_to_string(&history).expect("history file");
    assert!(saved.contains("please TOUCH it"), "{saved}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&history)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn a_denied_tool_and_a_second_ctrl_c_quit_leaving_nothing() {
    let chat = Chat::start(&["--no-history"]);
    let dir = chat.dir.path().to_owned();

    chat.line("TOUCH it");
    chat.wait_for("Allow Bash(touch chat-made.txt)?");
    chat.line("n");
    chat.wait_for("⎿");
    chat.wait_prompts(2);
    assert!(!file(&dir, "chat-made.txt"), "ran although denied");

    // A slow turn, Ctrl-C twice: the chat quits at once with 130.
    chat.line("now SLOW");
    chat.wait_for("one two");
    chat.keys(&["C-c"]);
    chat.wait_for("interrupting");
    chat.keys(&["C-c"]);
    let screen = chat.wait_for("CHAT-EXIT=");
    assert!(
        screen.contains("CHAT-EXIT=130") || screen.contains("CHAT-EXIT=0"),
        "{screen}"
    );
    chat.assert_nothing_left();
    assert!(!chat.home().join(".local/state/ccwire").exists());
}
