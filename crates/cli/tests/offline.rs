//! `twinwire run --offline` with the real pinned CLI (`cargo xtask test` installs it; without it
//! the tests fail): the demo, offline sessions kept, listed, shown, viewed and resumed, the
//! model script format of the help, and Ctrl-C in a real terminal (tmux); and the same with
//! `twinwire-agent` in the CLI's place.

use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;
mod runs;
mod tmux;
use common::{quoted, twinwire};
use runs::{is_summary, Run};

/// The real pinned CLI, offline (`cargo xtask test` installs it; without it the test fails).
#[test]
fn offline_demo_with_the_real_cli() {
    let cli = twinwire_testkit::real_claude();
    let dir = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("tempdir");
    let run = |extra: &[&str]| {
        let output = Command::new(twinwire())
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
            .expect("running twinwire");
        Run::from(output)
    };
    let denied = run(&[]);
    assert_eq!(denied.code, Some(0), "{denied:?}");
    assert!(
        denied.stdout.contains("⏺ Bash(echo 'hello from twinwire'"),
        "{denied:?}"
    );
    assert!(
        denied.stderr.contains("--allow 'Bash(echo:*)'"),
        "{denied:?}"
    );
    assert!(!dir.path().join("twinwire-demo.txt").exists());
    assert!(
        denied
            .stderr
            .contains("--allow 'Bash(echo:*)' --allow 'Edit(./twinwire-demo.txt)'"),
        "{denied:?}"
    );
    // The command alone is not enough: it writes a file through a redirection.
    let command_only = run(&["--allow", "Bash(echo:*)"]);
    assert!(
        command_only.stdout.contains("was not allowed"),
        "{command_only:?}"
    );
    assert!(!dir.path().join("twinwire-demo.txt").exists());
    let allowed = run(&[
        "--allow",
        "Bash(echo:*)",
        "--allow",
        "Edit(./twinwire-demo.txt)",
    ]);
    assert_eq!(allowed.code, Some(0), "{allowed:?}");
    assert!(
        allowed.stdout.contains("I wrote twinwire-demo.txt"),
        "{allowed:?}"
    );
    let written = std::fs::read_to_string(dir.path().join("twinwire-demo.txt")).expect("demo file");
    assert_eq!(written.trim(), "hello from twinwire");
}

/// A scratch place for `twinwire run --offline` with the real CLI: `project/` to work in,
/// `home/` as HOME, `state/` as XDG_STATE_HOME (where twinwire keeps offline sessions), and a
/// model script that tells whether the model was sent an earlier turn.
struct OfflinePlace {
    dir: tempfile::TempDir,
    /// The CLI `run` starts: the real pinned one, or twinwire-agent in its place.
    cli: std::path::PathBuf,
}

impl OfflinePlace {
    fn new() -> Self {
        Self::with_cli(twinwire_testkit::real_claude())
    }

    fn with_cli(cli: std::path::PathBuf) -> Self {
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
        Self { dir, cli }
    }

    fn path(&self, sub: &str) -> std::path::PathBuf {
        self.dir.path().join(sub)
    }

    /// `twinwire ARGS` in the project with this place's HOME and state.
    fn twinwire(&self, args: &[&str]) -> Run {
        let output = Command::new(twinwire())
            .args(args)
            .current_dir(self.path("project"))
            .env("HOME", self.path("home"))
            .env("XDG_STATE_HOME", self.path("state"))
            .env_remove("CLAUDE_CONFIG_DIR")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("running twinwire");
        Run::from(output)
    }

    /// `twinwire run --offline` with the script and the real CLI, output as JSON lines; returns
    /// the run and its result frame.
    fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let cli = &self.cli;
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
        let run = self.twinwire(&args);
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

    // Kept where twinwire keeps state, readable by the user only.
    let kept = place.path("state").join("twinwire/offline");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept).expect("kept").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    // `sessions list`: the user's own, then the offline ones, said as such.
    let listed = place.twinwire(&["sessions", "list"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let heading = format!(
        "offline sessions (twinwire run/chat --offline), kept in {}:",
        kept.display()
    );
    let (own_part, offline_part) = listed
        .stdout
        .split_once(&heading)
        .unwrap_or_else(|| panic!("no offline heading: {listed:?}"));
    assert!(own_part.contains(&own_id), "{listed:?}");
    assert!(!own_part.contains(&offline_id), "{listed:?}");
    assert!(offline_part.contains(&offline_id), "{listed:?}");
    let json = place.twinwire(&["sessions", "list", "--json"]);
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
    let shown = place.twinwire(&["sessions", "show", &offline_id]);
    assert_eq!(shown.code, Some(0), "{shown:?}");
    assert!(shown.stdout.contains("REMEMBER this"), "{shown:?}");
    let page = place.path("page.html");
    let viewed = place.twinwire(&[
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
    let cli = twinwire_testkit::real_claude();
    let wrong = place.twinwire(&[
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
        let output = Command::new(twinwire())
            .args(args)
            .output()
            .expect("twinwire --help");
        Run::from(output).stdout
    };
    let run_help = help(&["run", "--help"]);
    assert!(
        run_help.contains("`twinwire model-server --help`"),
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
        "refusal {",
        "usage_limit {",
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
    twinwire_model_server::ModelScript::from_json(&example.to_string()).expect("a model script");
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
        .find(|line| line.trim_start().starts_with("twinwire run --offline"))
        .expect("the example's command");
    let mut words = shlex::split(command_line.trim()).expect("shell words");
    assert_eq!(words.remove(0), "twinwire");
    let script = words
        .iter()
        .position(|word| word == "script.json")
        .expect("the script's place");
    words[script] = place.path("example.json").display().to_string();
    let cli = twinwire_testkit::real_claude();
    words.splice(1..1, ["--cli-path".to_owned(), cli.display().to_string()]);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let ran = place.twinwire(&words);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout.contains("Done: x is there."), "{ran:?}");
    assert!(place.path("project/x").exists(), "{ran:?}");
}

/// `twinwire-agent` in the CLI's place: `run --offline` runs the demo with its tools, keeps the
/// session where offline sessions are kept, lists it and resumes it (the model is sent the
/// earlier turn); Ctrl-C in a terminal interrupts its turn.
#[test]
fn twinwire_agent_in_the_clis_place_runs_the_demo_and_resumes_its_session() {
    let place = OfflinePlace::with_cli(common::twinwire_agent().to_path_buf());
    let agent = place.cli.to_str().expect("a UTF-8 path").to_owned();
    let demo = place.twinwire(&[
        "run",
        "--offline",
        "--cli-path",
        &agent,
        "--allow",
        "Bash(echo:*)",
        "--allow",
        "Edit(./twinwire-demo.txt)",
        "Show me the demo",
    ]);
    assert_eq!(demo.code, Some(0), "{demo:?}");
    assert!(
        demo.stdout.contains("I wrote twinwire-demo.txt"),
        "{demo:?}"
    );
    let written =
        std::fs::read_to_string(place.path("project/twinwire-demo.txt")).expect("the demo file");
    assert_eq!(written.trim(), "hello from twinwire");

    let (_, first) = place.run(&[], "REMEMBER this");
    assert_eq!(first["result"], "Nothing came before.", "{first}");
    let id = first["session_id"].as_str().expect("an id").to_owned();
    let listed = place.twinwire(&["sessions", "list"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let (_, offline_part) = listed
        .stdout
        .split_once("offline sessions (twinwire run/chat --offline)")
        .unwrap_or_else(|| panic!("no offline heading: {listed:?}"));
    assert!(offline_part.contains(&id), "{listed:?}");
    let (_, second) = place.run(&["--resume", &id], "REMEMBER it?");
    assert_eq!(second["result"], "I see an earlier turn.", "{second}");
    assert_eq!(second["session_id"], id.as_str(), "{second}");
    // Listed by its first prompt, which stays, not by the latest (docs/view.md).
    let listed = place.twinwire(&["sessions", "list"]);
    let line = listed
        .stdout
        .lines()
        .find(|line| line.starts_with(&id))
        .unwrap_or_else(|| panic!("{id} not listed: {listed:?}"));
    assert!(line.contains("REMEMBER this"), "{listed:?}");
    assert!(!line.contains("REMEMBER it?"), "{listed:?}");
    // `view --session` takes a title as `run --resume` does.
    let renamed = place.twinwire(&["sessions", "rename", &id, "Memory check"]);
    assert_eq!(renamed.code, Some(0), "{renamed:?}");
    let page = place.path("by-title.html");
    let viewed = place.twinwire(&[
        "view",
        "--session",
        "Memory check",
        "--output",
        page.to_str().expect("a UTF-8 path"),
    ]);
    assert_eq!(viewed.code, Some(0), "{viewed:?}");
    let html = std::fs::read_to_string(&page).expect("the page");
    assert!(html.contains("<title>Memory check"), "{html}");
    assert!(html.contains(&id), "the session's id on the page");

    #[cfg(unix)]
    interrupted_in_a_terminal(&place);
}

/// `run` of a slow answer in a real terminal (tmux), stopped with Ctrl-C: exit 130, the turn
/// cut short and said to be interrupted, nothing left running.
#[cfg(unix)]
fn interrupted_in_a_terminal(place: &OfflinePlace) {
    let command = format!(
        "{} run --offline --include-partial-messages --cli-path {} --model-script {} 'go SLOW'",
        quoted(twinwire()),
        quoted(&place.cli),
        quoted(&place.path("script.json")),
    );
    let pane = tmux::Pane::start(&place.path("project"), &command);
    pane.wait_for("one two");
    pane.keys(&["C-c"]);
    let (code, screen) = pane.wait_exit();
    assert_eq!(code, 130, "{screen}");
    assert!(!screen.contains("nine ten"), "the turn ran on:\n{screen}");
    assert!(screen.contains("⏹ interrupted · "), "{screen}");
    assert!(!screen.contains("error_during_execution"), "{screen}");
    pane.assert_nothing_left();
}

#[cfg(unix)]
#[test]
fn ctrl_c_in_a_terminal_says_the_turn_was_interrupted() {
    let place = OfflinePlace::new();
    let cli = twinwire_testkit::real_claude();
    let command = |extra: &str| {
        format!(
            "{} run --offline --include-partial-messages --cli-path {} --model-script {} \
             {extra} 'go SLOW'",
            quoted(twinwire()),
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
