//! CLAUDE.md memory over real pipes: the files of every place reach the model after the system
//! prompt, `--setting-sources` leaves a source's files out, and a repository the host
//! registers adds its own from the next call on.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;

use serde_json::json;
use support::agent::{turn, World};
use twinwire::options::SettingSource;
use twinwire::protocol::control::RegisterRepoRootRequest;
use twinwire::Client;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The system prompt of the last model call, as one text.
fn last_system(world: &World) -> String {
    let requests = world.model_requests();
    let last = requests.last().expect("a model call");
    last["system"].to_string()
}

async fn world_with_memory() -> World {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    write(
        &world.home.join(".claude/CLAUDE.md"),
        "USER-MEMORY-11\n@~/notes/extra.md\n",
    );
    write(&world.home.join("notes/extra.md"), "IMPORTED-MEMORY-12\n");
    write(&world.work.join("CLAUDE.md"), "PROJECT-MEMORY-13\n");
    write(&world.work.join("CLAUDE.local.md"), "LOCAL-MEMORY-14\n");
    world
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_memory_file_reaches_the_model_in_order() {
    let world = world_with_memory().await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    let system = last_system(&world);
    let at = |needle: &str| {
        system
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} missing from {system}"))
    };
    assert!(at("USER-MEMORY-11") < at("IMPORTED-MEMORY-12"));
    assert!(at("IMPORTED-MEMORY-12") < at("PROJECT-MEMORY-13"));
    assert!(at("PROJECT-MEMORY-13") < at("LOCAL-MEMORY-14"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn setting_sources_leave_their_memory_out() {
    let world = world_with_memory().await;
    let options = world
        .options()
        .setting_sources([SettingSource::Project])
        .build()
        .unwrap();
    let client = Client::connect(options).await.unwrap();
    client.send("hello").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    let system = last_system(&world);
    assert!(system.contains("PROJECT-MEMORY-13"), "{system}");
    for absent in ["USER-MEMORY-11", "IMPORTED-MEMORY-12", "LOCAL-MEMORY-14"] {
        assert!(!system.contains(absent), "{absent} in {system}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registered_repository_adds_its_memory_and_a_missing_one_is_refused() {
    let world = World::new(json!({"rules": [], "default": {"text": "ok"}})).await;
    let client = Client::connect(world.options().build().unwrap())
        .await
        .unwrap();
    client.send("first").await.unwrap();
    turn(&client).await;
    assert!(!last_system(&world).contains("CLONE-MEMORY-15"));
    let clone = world.work.join("clone");
    write(&clone.join(".claude/CLAUDE.md"), "CLONE-MEMORY-15\n");
    let register = |directory: &str| RegisterRepoRootRequest {
        directory: directory.to_owned(),
        reload_claude_md: Some(true),
        ..RegisterRepoRootRequest::default()
    };
    client.register_repo_root(register("clone")).await.unwrap();
    let missing = client.register_repo_root(register("no-such-dir")).await;
    assert!(missing.is_err(), "{missing:?}");
    client.send("second").await.unwrap();
    turn(&client).await;
    client.close().await.unwrap();
    assert!(last_system(&world).contains("CLONE-MEMORY-15"));
}
