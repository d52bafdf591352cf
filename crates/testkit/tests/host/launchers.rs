//! Launchers: the CLI through a command prefix (the `sh` wrapper, the environment on stdin)
//! and through your own code (any pair of byte streams), with the whole host side working.

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use twinwire::host::callbacks::can_use_tool;
use twinwire::host::launch::{CommandPrefix, LaunchRequest, Launched, Launcher};
use twinwire::protocol::permission::PermissionResult;
use twinwire::query;

use super::*;

fn tool_script() -> serde_json::Value {
    serde_json::json!({"turns": [{"steps": [
        {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": true, "output": "created x"}},
        {"text": "done"}
    ]}]})
}

/// `env -i` as the prefix: the far side starts with an empty environment, so what the fake
/// sees is exactly what the launcher sent.
#[tokio::test]
async fn a_prefix_launcher_sends_only_the_forwarded_environment() {
    let fake = Fake::new(tool_script());
    let asked = Arc::new(AtomicBool::new(false));
    let seen = asked.clone();
    let options = fake
        .builder()
        .launcher(Launcher::Prefix(CommandPrefix::new(["env", "-i"]).unwrap()))
        .env("CLAUDE_CODE_SECRET_FOR_TEST", "s3cret value")
        .can_use_tool(can_use_tool(move |request| {
            seen.store(true, Ordering::SeqCst);
            async move { Ok(PermissionResult::allow(request.input().clone())) }
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(
        asked.load(Ordering::SeqCst),
        "the permission callback was not called"
    );
    assert_eq!(of_kind(&items, "result/success").len(), 1, "{items:?}");
    let start = &fake.record()[0];
    let env = start["env"].as_object().unwrap();
    assert_eq!(env["CLAUDE_CODE_SECRET_FOR_TEST"], "s3cret value");
    assert_eq!(env["CLAUDE_CODE_ENTRYPOINT"], "sdk-rust");
    assert!(env.contains_key("TWINWIRE_FAKE_SCRIPT"));
    // Nothing of the local environment beyond what Claude Code reads.
    assert!(!env.contains_key("HOME"), "{env:?}");
    assert!(!env.contains_key("CARGO_MANIFEST_DIR"), "{env:?}");
    // The value never was on a command line.
    let argv = start["argv"].to_string();
    assert!(!argv.contains("s3cret"), "{argv}");
}

/// Your code starts the CLI and hands back its pipes: options, callbacks and the result all
/// work as with the default launcher; the stop function runs when the session is dropped
/// early.
#[tokio::test]
async fn a_custom_launcher_carries_the_whole_host_side() {
    let fake = Fake::new(tool_script());
    let stopped = Arc::new(AtomicBool::new(false));
    let stop_flag = stopped.clone();
    let launcher = Launcher::custom(move |request: LaunchRequest| {
        let stop_flag = stop_flag.clone();
        async move {
            let mut command = tokio::process::Command::new(&request.argv[0]);
            command
                .args(&request.argv[1..])
                .env_clear()
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .kill_on_drop(true);
            for (key, value) in &request.env {
                if let Some(value) = value {
                    command.env(key, value);
                }
            }
            let mut child = command.spawn()?;
            let stdin = child.stdin.take().expect("stdin");
            let stdout = child.stdout.take().expect("stdout");
            Ok(Launched::new(stdout, stdin).on_stop(move || {
                stop_flag.store(true, Ordering::SeqCst);
                drop(child);
            }))
        }
    });
    let options = fake
        .builder()
        .launcher(launcher.clone())
        .can_use_tool(can_use_tool(|request| async move {
            Ok(PermissionResult::allow(request.input().clone()))
        }))
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    assert!(
        tool_result_text_of(&items).contains("created x"),
        "{items:?}"
    );
    assert_eq!(of_kind(&items, "result/success").len(), 1, "{items:?}");

    // A client dropped mid-session: the stop function runs.
    let fake = Fake::new(serde_json::json!({"turns": [{"steps": [{"sleep_ms": 30000}]}]}));
    let options = fake.builder().launcher(launcher).build().unwrap();
    let client = within(10, twinwire::Client::connect(options))
        .await
        .unwrap();
    client.send("wait").await.unwrap();
    drop(client);
    assert!(
        stopped.load(Ordering::SeqCst),
        "the stop function did not run"
    );
}

fn tool_result_text_of(items: &[twinwire::Result<Message>]) -> String {
    of_kind(items, "user")
        .into_iter()
        .map(|m| m.to_value()["message"]["content"][0].to_string())
        .collect()
}

/// A prefix that runs here (`nice`): dropping the client mid-turn, and the runtime with it,
/// stops the CLI and what it started, though the CLI runs in a session of its own under the
/// wrapper. The launcher's program gets SIGTERM, which the wrapper takes as its input's end,
/// and is not killed with the runtime: the CLI goes through the ladder rather than being
/// orphaned by a SIGKILL of the wrapper alone.
#[test]
fn dropping_a_client_and_its_runtime_through_a_local_prefix_leaves_nothing_running() {
    let fake = Fake::new(serde_json::json!({"turns": [{"steps": [
        {"text": "working"}, {"hang": true}
    ]}]}));
    let mark = format!("twinwire-local-prefix-{}", std::process::id());
    // The CLI starts a process of its own, as a tool would.
    let cli = fake.dir.path().join("claude-with-a-tool.sh");
    std::fs::write(
        &cli,
        format!(
            "#!/bin/sh\nsleep 1000 &\nexec '{}' \"$@\"\n",
            Fake::binary().display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = fake
        .builder()
        .cli_path(&cli)
        .launcher(Launcher::via("nice -n 5").unwrap())
        .env("CLAUDE_TWINWIRE_TEST_MARK", &mark)
        .shutdown(twinwire::host::process::ShutdownTimeouts {
            after_close: std::time::Duration::from_millis(300),
            after_term: std::time::Duration::from_millis(300),
        })
        .build()
        .unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let client = runtime.block_on(async {
        let client = within(30, twinwire::Client::connect(options))
            .await
            .unwrap();
        client.send("go").await.unwrap();
        // Mid-turn: the assistant has spoken, the fake hangs.
        loop {
            match within(30, client.receive()).await {
                Some(Ok(Message::Assistant(_))) => break,
                Some(Ok(_)) => {}
                other => panic!("{other:?}"),
            }
        }
        client
    });
    assert!(
        processes_marked(&mark).len() >= 2,
        "the CLI and its tool: {:#?}",
        processes_marked(&mark)
    );
    drop(client);
    runtime.shutdown_background();
    let waiting = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let left = waiting.block_on(left_running(&mark, 30));
    assert!(left.is_empty(), "left running: {left:#?}");
}
