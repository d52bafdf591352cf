//! In-process sessions whose conversations wait on disk between turns once they are past a
//! size, and come back whole. A file of its own: the size and the directory are the whole
//! process's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::{result, turn, World};
use twinwire::Client;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_conversation_waits_on_disk_and_comes_back_whole() {
    let spill = tempfile::tempdir().unwrap();
    assert!(twinwire_agent::in_process::spill_history_in(spill.path()));
    assert!(twinwire_agent::in_process::spill_history_past(4096));
    assert!(
        !twinwire_agent::in_process::spill_history_past(1),
        "set once"
    );
    let files = || -> Vec<String> {
        std::fs::read_dir(spill.path())
            .map(|dir| {
                dir.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
                    .collect()
            })
            .unwrap_or_default()
    };
    let world = World::new(json!({"rules": [], "default": {"echo": true}})).await;
    let options = world
        .options()
        .launcher(twinwire_agent::in_process::launcher())
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();

    client.send("short").await.unwrap();
    assert!(!result(&turn(&client).await).is_error);
    assert!(files().is_empty(), "a short conversation stays in memory");

    let long = format!("remember PELICAN {}", "lorem ipsum ".repeat(1000));
    client.send(long.as_str()).await.unwrap();
    assert!(!result(&turn(&client).await).is_error);
    let kept = files();
    assert_eq!(kept.len(), 1, "the conversation waits on disk");
    assert!(kept[0].contains("PELICAN") && kept[0].contains("short"));

    // The next turn sends the whole conversation, read back.
    client.send("What did I say first?").await.unwrap();
    assert!(!result(&turn(&client).await).is_error);
    let last = world.model_requests().last().unwrap().to_string();
    assert!(
        last.contains("PELICAN") && last.contains("short"),
        "{last:.200}"
    );
    assert!(last.contains("What did I say first?"));
    assert_eq!(files().len(), 1, "on disk again between turns");

    client.close().await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !files().is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the file outlived its session"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
