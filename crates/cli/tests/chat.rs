//! `twinwire chat` in a real terminal: tmux runs it in a pseudo-terminal, the test types keys
//! with `send-keys` and reads the screen with `capture-pane`, the way a person would. The CLI
//! is the real pinned one (and, for one conversation, twinwire-agent in its place), offline
//! against a model script. `cargo xtask test` installs tmux
//! (Debian's package) and names it in `TWINWIRE_TMUX`; without tmux the tests fail.

use std::ops::Deref;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

mod common;
mod tmux;
use common::{quoted, twinwire};
use tmux::Pane;

/// A chat in tmux: `twinwire chat --offline` with the test's model script and the real CLI.
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
        Self::start_with(dir, &twinwire_testkit::real_claude(), extra)
    }

    /// Like [`Chat::start_in`], with `cli` as the CLI.
    fn start_with(dir: &Path, cli: &Path, extra: &[&str]) -> Self {
        write_script(dir);
        let mut command = format!(
            "{} chat --offline --model-script script.json --cli-path {}",
            quoted(twinwire()),
            quoted(cli)
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

/// `twinwire run --offline` with the test's script in `dir`, as a chat there would run (HOME
/// `dir/home`); returns the session's id, from the line `run` ends with.
fn run_offline(dir: &Path, cli: &Path, prompt: &str) -> String {
    write_script(dir);
    let output = Command::new(twinwire())
        .args([
            "run",
            "--offline",
            "--model-script",
            "script.json",
            "--cli-path",
        ])
        .arg(cli)
        .arg(prompt)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("NO_COLOR", "1")
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(Stdio::null())
        .output()
        .expect("running twinwire run");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with("session ") && line.contains(" · continue it with: "))
        .unwrap_or_else(|| panic!("no session line:\n{stderr}"));
    line["session ".len()..]
        .split(' ')
        .next()
        .expect("an id")
        .to_owned()
}

fn file(dir: &Path, name: &str) -> bool {
    dir.join(name).exists()
}

/// The dollars of each summary line (`✓ 1 step · $0.0008 · 0.6 s`) on the screen.
fn turn_costs(screen: &str) -> Vec<f64> {
    screen
        .lines()
        .filter(|line| line.starts_with("✓ ") || line.starts_with("⏹ "))
        .filter_map(|line| line.split(" · $").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .map(|cost| cost.parse().expect("a cost"))
        .collect()
}

/// The dollars of the last `/cost` line (`2 prompts · $0.0016 · …`).
fn cost_total(screen: &str) -> f64 {
    let line = screen
        .lines()
        .rev()
        .find(|line| line.contains(" prompts · $") || line.contains(" prompt · $"))
        .unwrap_or_else(|| panic!("no /cost line:\n{screen}"));
    let dollars = line.split(" · $").nth(1).expect("dollars");
    dollars
        .split(' ')
        .next()
        .and_then(|d| d.parse().ok())
        .expect("a total")
}

/// The session id of `session ID · resume with: …` at the end of a chat.
fn quit_session(screen: &str) -> String {
    let line = screen
        .lines()
        .find(|line| line.starts_with("session ") && line.contains(" · resume with: "))
        .unwrap_or_else(|| panic!("no session line at quit:\n{screen}"));
    line["session ".len()..]
        .split(' ')
        .next()
        .expect("an id")
        .to_owned()
}

#[test]
fn a_conversation_with_a_permission_an_interrupt_and_ctrl_d() {
    conversation(&twinwire_testkit::real_claude(), Cli::Claude);
}

/// The same conversation with `twinwire-agent` in the CLI's place.
#[test]
fn a_conversation_with_twinwire_agent_in_the_clis_place() {
    conversation(common::twinwire_agent(), Cli::TwinwireAgent);
}

/// Which CLI a conversation has, for the two things that tell them apart on screen.
#[derive(PartialEq)]
enum Cli {
    Claude,
    TwinwireAgent,
}

/// A conversation through every part of the chat: a turn, a permission asked and always
/// allowed, slash commands, /resume of an earlier run's session, Ctrl-C, Ctrl-D, the history.
fn conversation(cli: &Path, which: Cli) {
    let scratch = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(scratch.path().join("home")).expect("home");
    // A session an earlier `run --offline` left, to resume later.
    let earlier = run_offline(scratch.path(), cli, "REMEMBER this");
    let chat = Chat::start_with(scratch.path(), cli, &[]);
    let banner = match which {
        Cli::Claude => "Claude Code 2.1.",
        Cli::TwinwireAgent => "\ntwinwire-agent 0.",
    };
    assert!(chat.screen().contains(banner), "{}", chat.screen());
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
    assert!(screen.contains(&earlier), "{screen}");
    chat.wait_prompts(7);

    // /resume continues a saved session in a new CLI: the model is sent its conversation.
    chat.line(&format!("/resume {earlier}"));
    chat.wait_for(&format!("resumed {earlier}"));
    chat.line("REMEMBER after the resume");
    chat.wait_for("I see an earlier turn.");
    chat.wait_prompts(9);
    chat.line(&format!("/resume {earlier}"));
    chat.wait_for(&format!("already in session {earlier}"));
    // /cost counts this session's prompts in this chat, its total names the earlier run's.
    chat.line("/cost");
    let screen = chat.wait_for("1 prompt · $");
    // Claude Code carries a resumed session's cost on from its earlier runs; twinwire-agent
    // counts from the resume (docs/agent.md), so there is no earlier total to name.
    assert_eq!(
        screen.contains("earlier runs included"),
        which == Cli::Claude,
        "{screen}"
    );
    chat.wait_prompts(11);

    // Ctrl-C during a slow turn interrupts it, and the chat goes on.
    chat.line("go SLOW please");
    chat.wait_for("one two");
    chat.keys(&["C-c"]);
    chat.wait_for("interrupting");
    let screen = chat.wait_prompts(12);
    assert!(!screen.contains("nine ten"), "the turn ran on:\n{screen}");
    // Said as an interrupt, without the CLI's diagnostics of it.
    assert!(screen.contains("⏹ interrupted · "), "{screen}");
    assert!(!screen.contains("error_during_execution"), "{screen}");
    assert!(!screen.contains("ede_diagnostic"), "{screen}");
    chat.line("after the interrupt");
    chat.wait_for("You said: after the interrupt");
    chat.wait_prompts(13);

    // Ctrl-D quits cleanly: exit 0, the session id shown, nothing left running.
    chat.keys(&["C-d"]);
    let (code, screen) = chat.wait_exit();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(quit_session(&screen), earlier, "{screen}");
    chat.assert_nothing_left();

    // The prompts went to the history file, readable by the user only.
    let history = chat.home().join(".local/state/twinwire/chat-history");
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
        .join(".local/state/twinwire/chat-history")
        .exists());
}

#[test]
fn an_offline_chat_says_how_to_resume_it_and_that_works() {
    let (dir, chat) = Chat::start(&["--no-history"]);
    chat.line("REMEMBER this");
    chat.wait_for("Nothing came before.");
    chat.wait_prompts(2);
    chat.keys(&["C-d"]);
    let (code, screen) = chat.wait_exit();
    assert_eq!(code, 0, "{screen}");
    let id = quit_session(&screen);
    let command = format!("twinwire chat --offline --model-script script.json --resume {id}");
    assert!(screen.contains(&command), "{screen}");
    chat.assert_nothing_left();
    drop(chat);

    // The session outlived the chat: `twinwire sessions list` finds it, as an offline one.
    let listed = Command::new(twinwire())
        .args(["sessions", "list"])
        .current_dir(dir.path())
        .env("HOME", dir.path().join("home"))
        .env_remove("XDG_STATE_HOME")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .expect("twinwire sessions list");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let heading = listed
        .find("offline sessions (twinwire run/chat --offline)")
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(listed[heading..].contains(&id), "{listed}");

    // The command it printed continues the conversation.
    let again = Chat::start_in(dir.path(), &["--no-history", "--resume", &id]);
    again.line("REMEMBER it?");
    again.wait_for("I see an earlier turn.");
    again.wait_prompts(2);
    again.keys(&["C-d"]);
    let (code, screen) = again.wait_exit();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(quit_session(&screen), id, "{screen}");
    again.assert_nothing_left();
}

#[test]
fn a_resume_that_cannot_work_is_an_error_and_the_session_goes_on() {
    let (_dir, chat) = Chat::start(&["--no-history"]);
    chat.line("REMEMBER this");
    chat.wait_for("Nothing came before.");
    chat.wait_prompts(2);

    // An id no session has: said at once, nothing else changes.
    chat.line("/resume 11111111-2222-3333-4444-555555555555");
    chat.wait_for("no saved session 11111111-2222-3333-4444-555555555555 in ");
    let screen = chat.wait_for("(still in session ");
    let (_, rest) = screen.split_once("(still in session ").expect("the line");
    let current = rest.split(')').next().expect("an id").to_owned();
    chat.wait_prompts(3);
    // A title no session has: the CLI refuses it, and this session goes on.
    chat.line("/resume no-such-title");
    chat.wait_count("(still in session ", 2);
    let screen = chat.wait_prompts(4);
    assert!(!screen.contains("resumed "), "{screen}");

    // The same conversation goes on: the model is sent the first turn.
    chat.line("REMEMBER it?");
    chat.wait_for("I see an earlier turn.");
    chat.wait_prompts(5);

    // /cost counts this one session; each summary line has its turn's own cost, /cost the
    // session's total: their sum.
    chat.line("/cost");
    let screen = chat.wait_for("2 prompts · $");
    let costs = turn_costs(&screen);
    assert_eq!(costs.len(), 2, "{screen}");
    let total = cost_total(&screen);
    assert!(
        costs[1] > 0.0 && costs[1] < total,
        "{costs:?} {total}\n{screen}"
    );
    assert!(
        (costs.iter().sum::<f64>() - total).abs() < 0.00015,
        "{costs:?} {total}\n{screen}"
    );
    assert!(!screen.contains("earlier runs included"), "{screen}");
    chat.wait_prompts(6);

    chat.keys(&["C-d"]);
    let (code, screen) = chat.wait_exit();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(quit_session(&screen), current, "{screen}");
    chat.assert_nothing_left();
}

/// Without credentials (an empty HOME, no key), `/login` says what to do instead of the CLI's
/// own `/login`, which needs its terminal; a prompt that the CLI refuses for want of a login
/// ends the chat with the same words and exit 1.
#[test]
fn without_credentials_the_chat_says_what_to_do_and_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let command = format!(
        "env -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN -u CLAUDE_CODE_OAUTH_TOKEN {} chat \
         --no-history --cli-path {}",
        quoted(twinwire()),
        quoted(&twinwire_testkit::real_claude())
    );
    let chat = Chat {
        pane: tmux::Pane::start(dir.path(), &command),
    };
    chat.wait_for("Ctrl-D to quit");
    chat.line("/login");
    chat.wait_for("ANTHROPIC_API_KEY=sk-ant-");
    chat.line("hello");
    let (code, screen) = chat.wait_exit();
    assert_eq!(code, 1, "{screen}");
    assert!(screen.contains("Not logged in"), "{screen}");
    assert!(screen.contains("twinwire chat --offline"), "{screen}");
    assert_eq!(
        screen.matches("ANTHROPIC_API_KEY=sk-ant-").count(),
        2,
        "{screen}"
    );
    chat.assert_nothing_left();
}
