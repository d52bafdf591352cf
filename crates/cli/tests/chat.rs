//! `ccwire chat` in a real terminal: tmux runs it in a pseudo-terminal, the test types keys
//! with `send-keys` and reads the screen with `capture-pane`, the way a person would. The CLI
//! is the real pinned one, offline against a model script. `cargo xtask test` installs tmux
//! (Debian's package) and names it in `CCWIRE_TMUX`; without tmux the tests fail.

use std::ops::Deref;
use std::path::Path;

use serde_json::json;

mod common;
mod tmux;
use common::{ccwire, quoted};
use tmux::Pane;

/// A chat in tmux: `ccwire chat --offline` with the test's model script and the real CLI.
struct Chat {
    pane: Pane,
}

impl Deref for Chat {
    type Target = Pane;

    fn deref(&self) -> &Pane {
        &self.pane
    }
}

impl Chat {
    /// Starts a chat in a new scratch directory.
    fn start(extra: &[&str]) -> (tempfile::TempDir, Self) {
        let dir = tempfile::tempdir().expect("tempdir");
        let chat = Self::start_in(dir.path(), extra);
        (dir, chat)
    }

    /// Starts a chat in `dir` (its HOME is `dir/home`, so a second chat there finds the
    /// first one's sessions).
    fn start_in(dir: &Path, extra: &[&str]) -> Self {
        write_script(dir);
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
        let chat = Self {
            pane: Pane::start(dir, &command),
        };
        chat.wait_for("Ctrl-D to quit");
        chat
    }

    /// Waits for the prompt to come back after `count` prompts were shown in all.
    fn wait_prompts(&self, count: usize) -> String {
        self.wait_count("\n› ", count)
    }
}

/// The test's model script, `dir/script.json`.
fn write_script(dir: &Path) {
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
                                              "description": "Create a file"}}}},
            // Whether the model was sent an earlier turn of the session.
            {"when": {"all": [{"last_prompt_contains": "REMEMBER"}, {"first_turn": false}]},
             "reply": {"text": "I see an earlier turn."}},
            {"when": {"last_prompt_contains": "REMEMBER"},
             "reply": {"text": "Nothing came before."}}
        ],
        "default": {"echo": true}
    });
    std::fs::write(dir.join("script.json"), script.to_string()).expect("script");
}

fn file(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

#[test]
fn a_conversation_with_a_permission_an_interrupt_and_ctrl_d() {
    let (_dir, chat) = Chat::start(&[]);
    let dir = chat.dir().to_owned();

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
    let (code, screen) = chat.wait_exit();
    assert_eq!(code, 0, "{screen}");
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
    let (_dir, chat) = Chat::start(&["--no-history"]);
    let dir = chat.dir().to_owned();

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
    let (code, screen) = chat.wait_exit();
    assert!(code == 130 || code == 0, "{screen}");
    chat.assert_nothing_left();
    assert!(!chat
        .home()
        .join(".local/state/ccwire/chat-history")
        .exists());
}
