//! How a session ends when the CLI misbehaves at the process level: every abnormal end names
//! its cause with the stderr tail, nothing waits past its timeout, nothing is left running.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;
use twinwire::host::process::ShutdownTimeouts;
use twinwire::protocol::Message;
use twinwire::{query, Client, EndReason, Error, Options};

#[cfg(target_os = "linux")]
use crate::left_running;
use crate::{alive, collect, within, Fake};

fn short_shutdown() -> ShutdownTimeouts {
    ShutdownTimeouts {
        after_close: Duration::from_millis(300),
        after_term: Duration::from_millis(300),
    }
}

/// The last item of a session that ended abnormally.
fn end_error(items: &[twinwire::Result<Message>]) -> &Error {
    match items.last() {
        Some(Err(err)) => err,
        other => panic!("the session ended without an error: {other:?}"),
    }
}

/// Waits up to five seconds for `pid` to be gone.
async fn gone(pid: u32) -> bool {
    let started = Instant::now();
    while alive(pid) {
        if started.elapsed() > Duration::from_secs(5) {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    true
}

#[tokio::test]
async fn a_cli_that_closes_its_output_but_keeps_running_is_stopped() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"text": "about to go quiet"},
        {"sleep_ms": 200},
        {"stderr": "closing stdout now"},
        {"close_stdout": true},
        {"hang": true},
    ]}], "requests": {"get_context_usage": {"respond": "never"}}}));
    let options = fake.builder().shutdown(short_shutdown()).build().unwrap();
    let client = within(10, Client::connect(options)).await.unwrap();
    let pid = client.pid().unwrap();
    client.send("go").await.unwrap();
    let started = Instant::now();
    // A request in flight when the output ends fails at once with the cause.
    let request = tokio::spawn({
        let client = client.clone();
        async move { client.get_context_usage().await }
    });
    let items: Vec<_> = within(10, client.receive_all().collect::<Vec<_>>()).await;
    match end_error(&items) {
        Error::ProcessExited {
            reason: EndReason::OutputClosed,
            stderr_tail,
            ..
        } => assert!(stderr_tail.contains("closing stdout now"), "{stderr_tail}"),
        other => panic!("{other}"),
    }
    let pending = within(10, request).await.unwrap();
    assert!(pending.is_err(), "{pending:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The stop ladder runs without a `close()`: SIGTERM after 300 ms, then SIGKILL.
    assert!(gone(pid).await, "the CLI was left running");
}

#[tokio::test]
async fn an_exit_0_in_the_middle_of_a_turn_is_an_error_with_the_stderr_tail() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"text": "half way"},
        {"crash": {"code": 0, "stderr": "worker lost its lease"}},
    ]}]}));
    let items = collect(query("go", fake.options())).await;
    match end_error(&items) {
        Error::ProcessExited {
            code: Some(0),
            reason: EndReason::ExitedMidTurn,
            stderr_tail,
            ..
        } => assert!(
            stderr_tail.contains("worker lost its lease"),
            "{stderr_tail}"
        ),
        other => panic!("{other}"),
    }
    assert!(end_error(&items)
        .to_string()
        .contains("before the turn ended"));
}

#[tokio::test]
async fn a_partial_last_line_is_an_error_with_the_stderr_tail() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"text": "half way"},
        {"result": {"subtype": "success"}},
        {"partial": "{\"type\":\"assistant\",\"mess"},
        {"crash": {"code": 0, "stderr": "cut off"}},
    ]}]}));
    let items = collect(query("go", fake.options())).await;
    // The cut line is reported where it stood, then the end says why.
    assert!(
        items.iter().rev().nth(1).is_some_and(Result::is_err),
        "{items:?}"
    );
    match end_error(&items) {
        Error::ProcessExited {
            code: Some(0),
            reason: EndReason::PartialLastLine,
            stderr_tail,
            ..
        } => assert!(stderr_tail.contains("cut off"), "{stderr_tail}"),
        other => panic!("{other}"),
    }
}

/// 50 MB of stderr on one line, then the line that explains the crash: the tail keeps the
/// end, bounded in size, and the session ends at once.
#[tokio::test]
async fn a_stderr_flood_without_newlines_keeps_a_bounded_tail_with_the_cause() {
    let fake = Fake::new(json!({"turns": [{"steps": [
        {"stderr_flood": {"bytes": 50_000_000, "one_line": true}},
        {"crash": {"code": 3, "stderr": "\nfatal: out of tokens"}},
    ]}]}));
    let pieces = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = std::sync::Arc::clone(&pieces);
    let options = fake
        .builder()
        .stderr(move |piece: &str| {
            assert!(piece.len() <= twinwire::host::process::MAX_LINE_PIECE);
            counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .build()
        .unwrap();
    let items = collect(query("go", options)).await;
    match end_error(&items) {
        Error::ProcessExited {
            code: Some(3),
            stderr_tail,
            ..
        } => {
            assert!(
                stderr_tail.ends_with("fatal: out of tokens\n"),
                "{stderr_tail:?}"
            );
            assert!(stderr_tail.len() <= twinwire::host::process::TAIL_BYTES + 4);
        }
        other => panic!("{other}"),
    }
    // 50 MB in pieces of at most 64 KiB: never a whole line held.
    assert!(pieces.load(std::sync::atomic::Ordering::Relaxed) >= 700);
}

/// A `Client` made on a thread that ends right after (here: the blocking pool's, which lets
/// its idle threads go after 100 ms) keeps its CLI: the parent-death signal follows the
/// process, not the thread that spawned it.
#[test]
fn a_client_made_in_spawn_blocking_outlives_its_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_keep_alive(Duration::from_millis(100))
        .enable_all()
        .build()
        .unwrap();
    let fake = Fake::new(json!({}));
    let options = fake.options();
    runtime.block_on(async move {
        let handle = tokio::runtime::Handle::current();
        let client = tokio::task::spawn_blocking(move || {
            let thread = std::thread::current().id();
            (handle.block_on(Client::connect(options)), thread)
        })
        .await
        .unwrap();
        let (client, _thread) = (client.0.unwrap(), client.1);
        let pid = client.pid().unwrap();
        // The blocking thread is idle now; wait until it has certainly gone.
        tokio::time::sleep(Duration::from_millis(1000)).await;
        assert!(alive(pid), "the CLI died with the thread that spawned it");
        client.send("still here?").await.unwrap();
        let turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
        assert!(
            matches!(turn.last(), Some(Ok(Message::Result(_)))),
            "{turn:?}"
        );
        within(10, client.close()).await.unwrap();
        assert!(!alive(pid));
    });
}

/// A wrapper script in front of the fake: `prelude` runs first, then the fake replaces the
/// shell (same pid, same process group).
fn wrapper(dir: &Path, prelude: &str) -> PathBuf {
    let path = dir.join("claude-wrapper.sh");
    let script = format!(
        "#!/bin/sh\n{prelude}\nexec '{}' \"$@\"\n",
        Fake::binary().display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn hanging_turn() -> serde_json::Value {
    json!({"turns": [{"steps": [{"text": "stuck"}, {"hang": true}]}]})
}

#[tokio::test]
async fn a_cli_that_ignores_sigterm_gets_sigkill() {
    let fake = Fake::new(hanging_turn());
    // An ignored signal stays ignored across exec.
    let cli = wrapper(fake.dir.path(), "trap '' TERM");
    let options = fake
        .builder()
        .cli_path(&cli)
        .shutdown(short_shutdown())
        .build()
        .unwrap();
    let client = within(10, Client::connect(options)).await.unwrap();
    let pid = client.pid().unwrap();
    client.send("hang").await.unwrap();
    let started = Instant::now();
    let status = within(10, client.close())
        .await
        .unwrap()
        .expect("an exit status");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(9), "{status:?}");
    assert!(
        started.elapsed() >= Duration::from_millis(600),
        "SIGTERM was not waited for"
    );
    assert!(!alive(pid));
}

#[tokio::test]
async fn the_clis_own_children_go_with_it() {
    let fake = Fake::new(json!({}));
    let pid_file = fake.dir.path().join("grandchild.pid");
    let cli = wrapper(
        fake.dir.path(),
        &format!("sleep 1000 &\necho $! > '{}'", pid_file.display()),
    );
    let options: Options = fake.builder().cli_path(&cli).build().unwrap();
    let client = within(10, Client::connect(options)).await.unwrap();
    let grandchild: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(alive(grandchild));
    client.send("hi").await.unwrap();
    let _turn: Vec<_> = within(10, client.receive_response().collect::<Vec<_>>()).await;
    within(10, client.close()).await.unwrap();
    assert!(gone(grandchild).await, "a grandchild was left running");

    // Dropped without closing: the group is killed at once.
    let fake = Fake::new(hanging_turn());
    let pid_file = fake.dir.path().join("grandchild.pid");
    let cli = wrapper(
        fake.dir.path(),
        &format!("sleep 1000 &\necho $! > '{}'", pid_file.display()),
    );
    let client = within(
        10,
        Client::connect(fake.builder().cli_path(&cli).build().unwrap()),
    )
    .await
    .unwrap();
    let grandchild: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    drop(client);
    assert!(
        gone(grandchild).await,
        "a grandchild was left running after drop"
    );
}

/// A CLI that closes its stdout while a child of its own still holds the pipe (here a `sleep`
/// started in the background), and goes on running: the pipe never reaches its end, but the
/// host sees that the CLI itself no longer holds it, ends the session with the cause, and
/// stops the CLI and what it started.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_cli_that_leaves_its_stdout_to_a_child_is_seen_to_have_closed_it() {
    let dir = tempfile::tempdir().unwrap();
    let cli = dir.path().join("claude");
    std::fs::write(
        &cli,
        r#"#!/bin/sh
IFS= read -r line
id=$(printf '%s\n' "$line" | sed -n 's/.*"request_id":"\([^"]*\)".*/\1/p')
printf '{"type":"control_response","response":{"subtype":"success","request_id":"%s","response":{}}}\n' "$id"
IFS= read -r user
printf '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"handing over"}]},"session_id":"s"}\n'
echo "leaving stdout to a child" >&2
sleep 1000 &
exec >&-
while :; do sleep 1; done
"#,
    )
    .unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mark = format!("TWINWIRE_TEST_STDOUT_HELD={}", std::process::id());
    let (key, value) = mark.split_once('=').unwrap();
    let options = Options::builder()
        .cli_path(&cli)
        .env(key, value)
        .shutdown(short_shutdown())
        .build()
        .unwrap();
    let client = within(30, Client::connect(options)).await.unwrap();
    client.send("go").await.unwrap();
    let request = tokio::spawn({
        let client = client.clone();
        async move { client.get_context_usage().await }
    });
    let items: Vec<_> = within(60, client.receive_all().collect::<Vec<_>>()).await;
    assert!(
        items
            .iter()
            .any(|item| matches!(item, Ok(Message::Assistant(_)))),
        "{items:?}"
    );
    match end_error(&items) {
        Error::ProcessExited {
            reason: EndReason::OutputClosed,
            stderr_tail,
            ..
        } => assert!(
            stderr_tail.contains("leaving stdout to a child"),
            "{stderr_tail}"
        ),
        other => panic!("{other}"),
    }
    let pending = within(30, request).await.unwrap();
    assert!(pending.is_err(), "{pending:?}");
    let left = left_running(&mark, 30).await;
    assert!(left.is_empty(), "left running: {left:#?}");
}
