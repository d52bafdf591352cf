//! `twinwire run` when the session cannot start or ends before it began: the message says why
//! (the CLI's exit status and the end of its stderr, without `--verbose`; the directory; the
//! path; the launcher's program), with this tool's flags, each hint once.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;

mod common;
use common::{fake_claude, twinwire};

#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stderr: String,
}

fn run(args: &[&str], setup: impl FnOnce(&mut Command)) -> Run {
    let mut command = Command::new(twinwire());
    command
        .arg("run")
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    setup(&mut command);
    let output = command.output().expect("running twinwire");
    Run {
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn path(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn a_cli_that_exits_at_once_is_named_with_its_status() {
    let run = run(&["--cli-path", "/bin/true", "hi"], |_| {});
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(
        run.stderr.trim_end(),
        "twinwire: the CLI exited with code 0 before answering `initialize`; nothing on stderr",
        "{run:?}"
    );
}

/// The fake does what the real CLI does with an unknown `--resume` id: an error result, the
/// reason on stderr, exit 1, no answer to `initialize`.
#[test]
fn a_cli_that_refuses_the_session_shows_its_stderr_without_verbose() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("script.json");
    let refusal = json!({"initialize": {"before_response": [
        {"emit": {"type": "result", "subtype": "error_during_execution", "is_error": true,
                  "session_id": "0000", "errors": ["No conversation found with session ID: 0000"]}},
        {"crash": {"code": 1, "stderr": "No conversation found with session ID: 0000"}}
    ]}});
    std::fs::write(&script, refusal.to_string()).expect("script");
    let run = run(&["--cli-path", path(fake_claude()), "hi"], |command| {
        command.env("TWINWIRE_FAKE_SCRIPT", &script);
    });
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.contains(
            "twinwire: the CLI exited with code 1 before answering `initialize`; stderr ends \
             with:\nNo conversation found with session ID: 0000"
        ),
        "{run:?}"
    );
    assert!(!run.stderr.contains("session is closed"), "{run:?}");
}

/// The same with the real CLI (2.1.330), offline: a title that names no session reaches the
/// CLI (a UUID is checked against the saved sessions before the CLI starts), and its refusal
/// is the error.
#[test]
fn resuming_an_unknown_session_with_the_real_cli_says_so() {
    let title = "no-such-session-title";
    let cli = twinwire_testkit::real_claude();
    let run = run(
        &[
            "--offline",
            "--cli-path",
            path(&cli),
            "--resume",
            title,
            "hi",
        ],
        |_| {},
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr
            .contains("the CLI exited with code 1 before answering `initialize`"),
        "{run:?}"
    );
    assert!(
        run.stderr
            .contains(&format!("Provided value \"{title}\" is not a UUID")),
        "{run:?}"
    );
    assert!(!run.stderr.contains("session is closed"), "{run:?}");
}

#[test]
fn a_missing_working_directory_is_named() {
    let run = run(
        &[
            "--cli-path",
            path(fake_claude()),
            "--cwd",
            "/nonexistent/dir",
            "hi",
        ],
        |_| {},
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(
        run.stderr.trim_end(),
        "twinwire: the working directory /nonexistent/dir does not exist",
        "{run:?}"
    );
}

#[test]
fn a_launcher_that_ends_first_is_named_not_a_broken_pipe() {
    let run = run(
        &["--cli-path", path(fake_claude()), "--via", "true", "hi"],
        |_| {},
    );
    assert_eq!(run.code, Some(1), "{run:?}");
    assert!(
        run.stderr.starts_with(
            "twinwire: the launcher's program `true` ended with exit code 0 before the CLI \
             started"
        ),
        "{run:?}"
    );
    assert!(!run.stderr.contains("Broken pipe"), "{run:?}");
}

#[test]
fn a_cli_path_that_cannot_run_is_not_executable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let cli = dir.path().join("claude");
    std::fs::write(&cli, "#!/bin/sh\n").expect("write");
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let run = run(&["--cli-path", path(&cli), "hi"], |_| {});
    assert_eq!(run.code, Some(1), "{run:?}");
    assert_eq!(
        run.stderr.trim_end(),
        format!(
            "twinwire: cannot run the Claude Code CLI at {}: it is not executable",
            cli.display()
        ),
        "{run:?}"
    );
}

/// Not found: where it looked, once; this tool's flag and the variable, once each; never the
/// library's option name.
#[test]
fn a_cli_not_found_is_said_once_with_this_tools_flag() {
    let empty = tempfile::tempdir().expect("tempdir");
    let searched = run(&["hi"], |command| {
        command
            .env("PATH", empty.path())
            .env("HOME", empty.path())
            .env("TWINWIRE_CACHE_DIR", empty.path())
            .env_remove("TWINWIRE_CLI_PATH")
            .env_remove("XDG_CACHE_HOME");
    });
    let given = run(&["--cli-path", "/nonexistent/claude", "hi"], |_| {});
    for run in [&searched, &given] {
        assert_eq!(run.code, Some(1), "{run:?}");
        let text = &run.stderr;
        assert_eq!(text.matches("not found").count(), 1, "{text}");
        assert_eq!(text.matches("--cli-path").count(), 1, "{text}");
        assert_eq!(text.matches("npm install").count(), 1, "{text}");
        assert!(!text.contains("Options::"), "{text}");
        assert!(!text.contains("`cli_path`"), "{text}");
    }
    let text = &searched.stderr;
    assert!(
        text.contains("looked in: PATH, the usual install locations"),
        "{text}"
    );
    assert_eq!(text.matches("TWINWIRE_CLI_PATH").count(), 1, "{text}");
    let text = &given.stderr;
    assert!(
        text.starts_with("twinwire: Claude Code CLI not found at /nonexistent/claude (--cli-path)"),
        "{text}"
    );
    assert!(!text.contains("TWINWIRE_CLI_PATH"), "{text}");
}
