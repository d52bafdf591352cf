//! The host's own questions about the session's files, over real pipes: `read_file` reads what
//! the model's `Read` could read without asking, and refuses the rest; `file_suggestions` lists
//! what git would (ignored files left out).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::json;
use support::agent::World;
use twinwire::Client;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_file_refuses_what_the_model_could_not_read_unasked() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    std::fs::write(world.path("notes.txt"), "inside\n").unwrap();
    std::fs::write(world.path("secret.txt"), "a deny rule covers this\n").unwrap();
    std::fs::write(world.home.join("outside.txt"), "outside the directories\n").unwrap();
    let options = world
        .options()
        .disallowed_tool("Read(./secret.txt)")
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    let read = client.read_file("notes.txt", None, None).await.unwrap();
    assert_eq!(read.contents, "inside\n");
    let outside = world.home.join("outside.txt").display().to_string();
    for refused in [outside.as_str(), "secret.txt", "missing.txt"] {
        let error = client.read_file(refused, None, None).await.unwrap_err();
        assert!(
            error.to_string().contains("read denied"),
            "{refused}: {error}"
        );
    }
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_suggestions_leave_out_ignored_files() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    std::fs::create_dir_all(world.path(".git")).unwrap();
    std::fs::write(world.path(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir_all(world.path("build")).unwrap();
    std::fs::create_dir_all(world.path("src")).unwrap();
    std::fs::write(world.path("build/helper.o"), "").unwrap();
    std::fs::write(world.path("src/helper.rs"), "").unwrap();
    std::fs::write(world.path("other.rs"), "").unwrap();
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    let answer = client.file_suggestions("HELP").await.unwrap();
    let paths: Vec<&str> = answer
        .suggestions
        .iter()
        .filter_map(|s| s["path"].as_str())
        .collect();
    assert_eq!(paths, ["src/helper.rs"]);
    client.close().await.unwrap();
}
