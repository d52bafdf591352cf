//! Durable approvals over HTTP, end to end: the real CLI offline (`TWINWIRE_CLAUDE_PATH`, else
//! the pinned Claude Code) parks a Bash call in a SQLite file through a twinwire host; the
//! HTTP example (`examples/approvals_http.rs`, its own process, on the same file) lists it and
//! takes the answer a client POSTs; the host delivers it and the command runs once.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use twinwire::host::callbacks::can_use_tool;
use twinwire::host::parking::{Parking, PendingStore};
use twinwire::protocol::permission::PermissionResult;
use twinwire::protocol::Message;
use twinwire_model_server::{ModelScript, ModelServer};
use twinwire_store_sqlite::SqlitePendingStore;

const LIMIT: Duration = Duration::from_secs(120);
const COMMAND: &str = "echo ran >> ran.txt";

/// The example, built so that it is current (as `cargo xtask test` built it, under it).
fn example() -> PathBuf {
    let deps = std::env::current_exe().unwrap();
    let profile = deps.parent().unwrap().parent().unwrap();
    let name = format!("approvals_http{}", std::env::consts::EXE_SUFFIX);
    twinwire_testkit::built(
        profile.join("examples").join(name),
        &["-p", "twinwire-store-sqlite", "--example", "approvals_http"],
    )
}

/// The example serving `db`, killed when dropped; and its address.
struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(db: &Path) -> Server {
    let (child, address) = twinwire_testkit::spawn_and_read(
        Command::new(example()).arg(db).arg("127.0.0.1:0"),
        "listening on http://",
    );
    Server(child, address)
}

/// One HTTP/1.1 request: the status and the body as JSON.
async fn http(address: &str, method: &str, path: &str, body: &str) -> (u16, Value) {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

fn script() -> ModelScript {
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "The tool is done."}},
        {"when": {"last_user_text_contains": "RUN"}, "times": 1,
         "reply": {"tool_use": {"name": "Bash", "text": "Running it.",
                   "input": {"command": COMMAND, "description": "append a line"}}}}
    ], "default": {"echo": true}}))
    .unwrap()
}

#[tokio::test]
async fn a_call_parked_in_sqlite_is_answered_over_http() {
    let root = tempfile::tempdir().unwrap();
    let (home, work, tmp) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("tmp"),
    );
    for dir in [&home, &work, &tmp] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let db = root.path().join("approvals.db");
    let store = Arc::new(SqlitePendingStore::open(&db).unwrap());
    let model = ModelServer::start(script()).await.unwrap();
    let http_server = serve(&db);
    let address = http_server.1.clone();

    let options = twinwire::Options::builder()
        .cli_path(twinwire_testkit::real_claude())
        .cwd(&work)
        .env("HOME", &home)
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .env("TMPDIR", &tmp)
        .env("CLAUDE_CODE_TMPDIR", &tmp)
        .env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "approvals-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
        .parking(Parking::new(store.clone()).poll(Duration::from_millis(50)))
        .can_use_tool(can_use_tool(|request| async move {
            match request.tool_name() {
                "Bash" => request.park(),
                _ => Ok(PermissionResult::allow(request.input().clone())),
            }
        }))
        .build()
        .unwrap();
    let client = twinwire::Client::connect(options).await.unwrap();
    client.send("RUN the tool please").await.unwrap();
    let turn = async {
        let mut turn = std::pin::pin!(client.receive_response());
        let mut result = None;
        while let Some(message) = turn.next().await {
            if let Message::Result(r) = message.unwrap() {
                result = Some(r);
            }
        }
        result.unwrap()
    };
    let answering = async {
        // The parked call, as the web page would list it.
        let deadline = Instant::now() + LIMIT;
        let pending = loop {
            let (status, listed) = http(&address, "GET", "/pending", "").await;
            assert_eq!(status, 200, "{listed}");
            if let Some(first) = listed.as_array().unwrap().first() {
                break first.clone();
            }
            assert!(Instant::now() < deadline, "nothing was parked");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert_eq!(pending["asked"]["kind"], "permission");
        assert_eq!(pending["asked"]["tool_name"], "Bash");
        assert_eq!(pending["asked"]["input"]["command"], COMMAND);
        let id = pending["id"].as_str().unwrap().to_owned();
        let at = format!("/pending/{id}");
        // What does not answer it is refused, and changes nothing.
        assert_eq!(http(&address, "POST", &at, "{nope").await.0, 400);
        assert_eq!(
            http(&address, "POST", &at, r#"{"behavior":"maybe"}"#)
                .await
                .0,
            400
        );
        assert_eq!(
            http(
                &address,
                "POST",
                "/pending/no-such-id",
                r#"{"behavior":"allow"}"#
            )
            .await
            .0,
            404
        );
        assert_eq!(
            http(
                &address,
                "POST",
                "/pending/..%2Fx",
                r#"{"behavior":"allow"}"#
            )
            .await
            .0,
            404
        );
        // The answer; a second one is refused.
        let (status, body) = http(&address, "POST", &at, r#"{"behavior":"allow"}"#).await;
        assert_eq!(
            (status, body["answered"].as_str()),
            (200, Some(id.as_str()))
        );
        let late = http(
            &address,
            "POST",
            &at,
            r#"{"behavior":"deny","message":"late"}"#,
        )
        .await
        .0;
        // Taken already (409), or delivered and removed by the host already (404).
        assert!(late == 409 || late == 404, "{late}");
    };
    let (result, ()) = tokio::time::timeout(LIMIT, futures::future::join(turn, answering))
        .await
        .expect("the turn ended");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        std::fs::read_to_string(work.join("ran.txt")).unwrap(),
        "ran\n"
    );
    assert!(
        store.list().await.unwrap().is_empty(),
        "the answer was delivered and removed"
    );
    assert_eq!(
        http(&address, "GET", "/pending", "").await,
        (200, json!([]))
    );
    client.close().await.unwrap();
    model.shutdown().await;
}
