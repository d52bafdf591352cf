//! A session that cannot start, or ends before it began, says why: the CLI's exit status and
//! the end of its stderr, the directory that does not exist, the path that cannot run, the
//! launcher's program that ended first. Each through real processes.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use serde_json::json;
use twinwire::host::launch::{CommandPrefix, Launcher};
use twinwire::{query, Client, EndReason, Error, Options};

use crate::{collect, within, Fake};

/// What the real CLI does with `--resume` of an unknown id (2.1.330): an error `result` on
/// stdout, the reason on stderr, exit 1, `initialize` never answered.
fn unknown_session() -> serde_json::Value {
    json!({"initialize": {"before_response": [
        {"emit": {"type": "result", "subtype": "error_during_execution", "is_error": true,
                  "num_turns": 0, "session_id": "0000", "total_cost_usd": 0,
                  "errors": ["No conversation found with session ID: 0000"]}},
        {"crash": {"code": 1, "stderr": "No conversation found with session ID: 0000"}}
    ]}})
}

#[tokio::test]
async fn an_exit_during_initialize_names_the_exit_and_the_stderr_even_after_an_error_result() {
    let fake = Fake::new(unknown_session());
    let err = within(30, Client::connect(fake.options()))
        .await
        .unwrap_err();
    match &err {
        Error::ProcessExited {
            code: Some(1),
            reason: EndReason::ExitedDuringInitialize,
            stderr_tail,
            ..
        } => assert!(stderr_tail.contains("No conversation found"), "{err}"),
        other => panic!("{other:?}"),
    }
    let text = err.to_string();
    assert!(
        text.starts_with("the CLI exited with code 1 before answering `initialize`"),
        "{text}"
    );
    // Through `query`, the same error is the only item.
    let items = collect(query("hi", fake.options())).await;
    assert_eq!(items.len(), 1, "{items:?}");
    assert!(
        matches!(
            &items[0],
            Err(Error::ProcessExited {
                reason: EndReason::ExitedDuringInitialize,
                ..
            })
        ),
        "{items:?}"
    );
}

#[tokio::test]
async fn a_program_that_exits_at_once_with_0_is_not_a_closed_session() {
    let options = Options::builder().cli_path("/bin/true").build().unwrap();
    let err = within(30, Client::connect(options)).await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::ProcessExited {
                code: Some(0),
                reason: EndReason::ExitedDuringInitialize,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the CLI exited with code 0 before answering `initialize`; nothing on stderr"
    );
}

#[tokio::test]
async fn an_exit_after_initialize_and_before_the_first_turn_is_reported_by_send() {
    let fake = Fake::new(json!({"initialize": {"before_response": [
        {"background": {"delay_ms": 200, "steps": [
            {"crash": {"code": 0, "stderr": "lost the lease on the session"}}
        ]}}
    ]}}));
    let client = within(30, Client::connect(fake.options())).await.unwrap();
    assert!(
        within(30, client.wait(Duration::from_secs(20)))
            .await
            .is_some(),
        "the fake did not exit"
    );
    let err = within(30, client.send("hi")).await.unwrap_err();
    match &err {
        Error::ProcessExited {
            code: Some(0),
            reason: EndReason::ExitedBeforeFirstTurn,
            stderr_tail,
            ..
        } => assert!(stderr_tail.contains("lost the lease"), "{err}"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_missing_working_directory_is_named_not_the_cli() {
    let fake = Fake::new(json!({}));
    let options = fake.builder().cwd("/nonexistent/dir").build().unwrap();
    let err = within(30, Client::connect(options)).await.unwrap_err();
    assert!(
        matches!(&err, Error::WorkingDirectory { problem, .. } if problem == "does not exist"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the working directory /nonexistent/dir does not exist"
    );
}

#[tokio::test]
async fn a_cli_path_without_the_execute_bit_is_not_executable_not_missing() {
    let dir = tempfile::tempdir().unwrap();
    let cli = dir.path().join("claude");
    std::fs::copy(Fake::binary(), &cli).unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o644)).unwrap();
    let options = Options::builder().cli_path(&cli).build().unwrap();
    let err = within(30, Client::connect(options)).await.unwrap_err();
    assert!(!err.is_cli_not_found(), "{err}");
    assert_eq!(
        err.to_string(),
        format!(
            "cannot run the Claude Code CLI at {}: it is not executable",
            cli.display()
        )
    );
}

/// `true` as the launcher: it ends before the wrapper ever runs, so the preamble meets a
/// closed pipe or the output ends without a byte; either way the program and its status are
/// named, not "Broken pipe".
#[tokio::test]
async fn a_launcher_program_that_ends_first_is_named_with_its_status_and_stderr() {
    let fake = Fake::new(json!({}));
    let options = fake
        .builder()
        .launcher(Launcher::Prefix(CommandPrefix::new(["true"]).unwrap()))
        .build()
        .unwrap();
    let err = within(30, Client::connect(options)).await.unwrap_err();
    assert!(
        matches!(&err, Error::LauncherExited { program, code: Some(0), .. } if program == "true"),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("the launcher's program `true` ended with exit code 0 before the CLI"),
        "{err}"
    );

    // One that complains first: its words are in the error.
    let prefix = CommandPrefix::new([
        "sh",
        "-c",
        "read -r line; echo 'ssh: connect to host h: Connection refused' >&2; exit 255",
    ])
    .unwrap();
    let options = fake
        .builder()
        .launcher(Launcher::Prefix(prefix))
        .build()
        .unwrap();
    let err = within(30, Client::connect(options)).await.unwrap_err();
    match &err {
        Error::LauncherExited {
            code: Some(255),
            stderr_tail,
            ..
        } => assert!(stderr_tail.contains("Connection refused"), "{err}"),
        other => panic!("{other:?}"),
    }
}
