//! The session functions side by side: sessions written by the real Claude Code (the pinned
//! 2.1.330 and 2.0.77, for the older layout), offline, read by `twinwire sessions` and by the
//! official TypeScript SDK (`peers/node/sessions.mjs`): the same sessions, order, summaries,
//! messages, subagents; then each side renames, tags, archives, forks and deletes, and the
//! other must see it the same way.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{json, Value};
use twinwire_model_server::{ModelScript, ModelServer};

/// What the model answers: a tool call for TOUCH, a subagent for AGENT, an echo otherwise.
fn script() -> ModelScript {
    serde_json::from_value(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "Done with the tool."}},
        {"when": {"last_user_text_contains": "TOUCH"},
         "reply": {"tool_use": {"name": "Bash", "text": "Creating it.",
                                "input": {"command": "touch x", "description": "Create x"}}}},
        {"when": {"last_user_text_contains": "AGENT"}, "times": 1,
         "reply": {"tool_use": {"name": "Task", "text": "Delegating.",
                                "input": {"description": "look around", "prompt": "List files SUB",
                                          "subagent_type": "general-purpose"}}}}
    ], "default": {"echo": true}}))
    .expect("a model script")
}

/// A config directory with sessions of both CLI generations, made once; tests copy it.
fn recorded() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let root = tempfile::Builder::new()
            .prefix("twinwire-sessions-")
            .tempdir()
            .unwrap()
            .keep();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(ModelServer::start(script())).unwrap();
        let newest = twinwire_testkit::real_claude();
        let older = twinwire::host::process::pinned_cli_dir("2.0.77")
            .unwrap()
            .join("cli.js");
        assert!(
            older.is_file(),
            "Claude Code 2.0.77 is not installed at {}: `cargo xtask test` installs it",
            older.display()
        );
        for (cli, work) in [(newest, "work"), (older, "old-work")] {
            let work = root.join(work);
            std::fs::create_dir_all(&work).unwrap();
            let claude = |args: &[&str]| {
                let mut command = if cli.extension().is_some_and(|e| e == "js") {
                    let mut node = Command::new("node");
                    node.arg(&cli);
                    node
                } else {
                    Command::new(&cli)
                };
                let home = root.join("home");
                let output = command
                    .args(args)
                    .args(["--output-format", "json"])
                    .current_dir(&work)
                    .env_clear()
                    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                    .env("HOME", &home)
                    .env("TMPDIR", root.join("tmp"))
                    .env("CLAUDE_CODE_TMPDIR", root.join("tmp"))
                    .env("ANTHROPIC_BASE_URL", server.url())
                    .env("ANTHROPIC_API_KEY", "sessions-test-key")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .env("DISABLE_TELEMETRY", "1")
                    .env("DISABLE_AUTOUPDATER", "1")
                    .env("CLAUDE_CODE_MAX_RETRIES", "0")
                    .output()
                    .unwrap();
                assert!(
                    output.status.success(),
                    "{}",
                    String::from_utf8_lossy(&output.stderr)
                );
                let result: Value = serde_json::from_slice(&output.stdout).unwrap();
                result["session_id"].as_str().unwrap().to_owned()
            };
            std::fs::create_dir_all(root.join("tmp")).unwrap();
            let first = claude(&["-p", "Hello there"]);
            claude(&["-p", "A second turn", "--resume", &first]);
            claude(&["-p", "Please TOUCH x", "--allowedTools", "Bash"]);
            claude(&["-p", "Use an AGENT", "--allowedTools", "Task"]);
        }
        runtime.block_on(server.shutdown());
        root.join("home/.claude")
    })
}

/// A private copy of the recorded config directory.
fn copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(recorded())
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(status.success());
    let config = dir.path().join(".claude");
    (dir, config)
}

fn ts(config: &Path, args: &[&str]) -> Value {
    let program = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../peers/node/sessions.mjs");
    crate::installed("TWINWIRE_PEERS_TS_SDK");
    let output = Command::new("node")
        .arg(program)
        .args(args)
        .env("CLAUDE_CONFIG_DIR", config)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "node {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn twinwire(config: &Path, args: &[&str]) -> String {
    let output = Command::new(crate::common::twinwire())
        .arg("sessions")
        .arg("--config-dir")
        .arg(config)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "twinwire sessions {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

fn twinwire_json(config: &Path, args: &[&str]) -> Value {
    serde_json::from_str(&twinwire(config, args)).unwrap()
}

/// Everything both sides read, compared: the lists (all projects, and each project
/// directory), and per session its summary, messages (with system messages, and a page),
/// subagents and their messages. Returns the session ids.
fn same_reads(config: &Path, when: &str) -> Vec<String> {
    let listed = ts(config, &["list"]);
    assert_eq!(
        twinwire_json(config, &["list", "--all", "--json"]),
        listed,
        "{when}: list of all"
    );
    let ids: Vec<String> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["sessionId"].as_str().unwrap().to_owned())
        .collect();
    for cwd in listed
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["cwd"].as_str())
    {
        assert_eq!(
            twinwire_json(config, &["list", "--dir", cwd, "--json"]),
            ts(config, &["list", cwd]),
            "{when}: list of {cwd}"
        );
    }
    for id in &ids {
        let theirs = ts(config, &["show", id]);
        let ours = twinwire_json(config, &["show", id, "--json"]);
        for key in ["info", "messages", "subagents"] {
            assert_eq!(ours[key], theirs[key], "{when}: {key} of {id}");
        }
        assert_eq!(
            twinwire_json(config, &["show", id, "--json", "--system"])["messages"],
            theirs["system"],
            "{when}: {id} with system messages"
        );
        let paged = twinwire_json(
            config,
            &["show", id, "--json", "--offset", "1", "--limit", "2"],
        );
        assert_eq!(paged["messages"], theirs["paged"], "{when}: a page of {id}");
        for agent in theirs["subagents"].as_array().unwrap() {
            let agent = agent.as_str().unwrap();
            let ours = twinwire_json(config, &["show", id, "--json", "--agent", agent]);
            assert_eq!(
                ours["messages"], theirs["agents"][agent],
                "{when}: subagent {agent} of {id}"
            );
            assert!(
                !ours["messages"].as_array().unwrap().is_empty(),
                "{when}: subagent {agent} has messages"
            );
        }
    }
    ids
}

#[test]
fn twinwire_reads_sessions_as_the_typescript_sdk_does() {
    let (_dir, config) = copy();
    let ids = same_reads(&config, "as recorded");
    // Two generations, four prompts each; the resumed session counts once.
    assert_eq!(ids.len(), 6, "{ids:?}");
    let with_subagents = ids
        .iter()
        .filter(|id| {
            !ts(&config, &["show", id])["subagents"]
                .as_array()
                .unwrap()
                .is_empty()
        })
        .count();
    assert!(with_subagents >= 1);
}

#[test]
fn each_side_sees_what_the_other_changed() {
    let (_dir, config) = copy();
    let ids = same_reads(&config, "before");
    let (a, b, c) = (&ids[0], &ids[1], &ids[2]);
    twinwire(&config, &["rename", a, "Renamed by twinwire"]);
    twinwire(&config, &["tag", a, "twinwire-tag"]);
    twinwire(&config, &["archive", b]);
    same_reads(&config, "after twinwire renamed, tagged and archived");
    let info = &ts(&config, &["show", a])["info"];
    assert_eq!(
        (info["summary"].as_str(), info["tag"].as_str()),
        (Some("Renamed by twinwire"), Some("twinwire-tag"))
    );
    assert_eq!(ts(&config, &["show", b])["info"]["archived"], true);
    twinwire(&config, &["unarchive", b]);
    twinwire(&config, &["tag", a, "--clear"]);
    let fork = twinwire(&config, &["fork", c]).trim().to_owned();
    same_reads(
        &config,
        "after twinwire unarchived, cleared a tag and forked",
    );
    let forked = ts(&config, &["show", &fork]);
    assert!(forked["info"]["summary"]
        .as_str()
        .unwrap()
        .ends_with(" (fork)"));
    assert_eq!(
        forked["messages"].as_array().unwrap().len(),
        ts(&config, &["show", c])["messages"]
            .as_array()
            .unwrap()
            .len()
    );

    ts(&config, &["rename", b, "Renamed by TS"]);
    ts(&config, &["tag", c, "ts-tag"]);
    ts(&config, &["archive", a]);
    let ts_fork = ts(&config, &["fork", b])["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    same_reads(
        &config,
        "after the TypeScript SDK renamed, tagged, archived and forked",
    );
    let ours = twinwire_json(&config, &["show", &ts_fork, "--json"]);
    assert_eq!(ours["info"]["summary"], "Renamed by TS (fork)");

    twinwire(&config, &["delete", &ts_fork, "--yes"]);
    ts(&config, &["delete", &fork]);
    let left = same_reads(&config, "after each deleted the other's fork");
    assert_eq!(left.len(), ids.len());
}

/// The same fork written by each side: the same entries, keys in the same order, the same
/// values but for new ids and the time of the last entry.
#[test]
fn forks_are_written_as_the_typescript_sdk_writes_them() {
    let (_dir, config) = copy();
    let ids = same_reads(&config, "before forking");
    for id in &ids {
        let ours = twinwire(&config, &["fork", id]).trim().to_owned();
        let theirs = ts(&config, &["fork", id])["sessionId"]
            .as_str()
            .unwrap()
            .to_owned();
        let read = |fork: &str| -> Vec<Value> {
            let info = twinwire_json(&config, &["show", fork, "--json"]);
            let cwd = info["info"]["cwd"].as_str().unwrap().to_owned();
            let project = config
                .join("projects")
                .join(twinwire::sessions::sanitize_path(&cwd));
            let text = std::fs::read_to_string(project.join(format!("{fork}.jsonl"))).unwrap();
            text.lines()
                .map(|line| normalized(serde_json::from_str(line).unwrap()))
                .collect()
        };
        let (ours, theirs) = (read(&ours), read(&theirs));
        assert_eq!(ours.len(), theirs.len(), "fork of {id}");
        for (line, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "fork of {id}, line {}", line + 1);
            let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
            assert_eq!(
                keys(a),
                keys(b),
                "key order, fork of {id}, line {}",
                line + 1
            );
        }
    }
}

/// A fork's entry with its new ids and times replaced by placeholders.
fn normalized(mut entry: Value) -> Value {
    if let Some(object) = entry.as_object_mut() {
        for key in [
            "uuid",
            "parentUuid",
            "logicalParentUuid",
            "sessionId",
            "timestamp",
        ] {
            if let Some(value) = object.get_mut(key) {
                if !value.is_null() {
                    *value = json!("…");
                }
            }
        }
    }
    entry
}

/// Options for the real CLI offline: `home` as HOME, the model server at `url`.
fn offline(work: &Path, home: &Path, tmp: &Path, url: &str) -> twinwire::options::OptionsBuilder {
    twinwire::Options::builder()
        .cli_path(twinwire_testkit::real_claude())
        .cwd(work)
        .env("HOME", home)
        .env("TMPDIR", tmp)
        .env("CLAUDE_CODE_TMPDIR", tmp)
        .env("ANTHROPIC_BASE_URL", url)
        .env("ANTHROPIC_API_KEY", "sessions-test-key")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_TELEMETRY", "1")
        .env("CLAUDE_CODE_MAX_RETRIES", "0")
}

/// A session mirrored through `transcript_store` into a directory store, from the real CLI
/// (`--session-mirror`): the store holds the same conversation as the CLI's own file, the
/// session resumes from the store alone (an empty HOME) with its history, and the TypeScript
/// SDK reads the store's directory as it reads the CLI's.
#[test]
fn a_mirrored_session_reads_the_same_as_the_clis_own() {
    use twinwire::sessions::mirror::DirectoryTranscriptStore;
    use twinwire::sessions::{MessagesOptions, SavedSessions};
    let root = tempfile::tempdir().unwrap();
    let (home, work, mirror) = (
        root.path().join("home"),
        root.path().join("work"),
        root.path().join("mirror"),
    );
    for dir in [&home, &work, &root.path().join("tmp")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let session_id = runtime.block_on(async {
        let server = ModelServer::start(script()).await.unwrap();
        let options = offline(&work, &home, &root.path().join("tmp"), &server.url())
            .allowed_tools(["Bash"])
            .transcript_store(std::sync::Arc::new(DirectoryTranscriptStore::new(&mirror)))
            .build()
            .unwrap();
        let client = twinwire::Client::connect(options).await.unwrap();
        let mut session_id = String::new();
        for prompt in ["Hello mirror", "Please TOUCH x"] {
            client.send(prompt).await.unwrap();
            let mut turn = std::pin::pin!(client.receive_response());
            while let Some(message) = futures::StreamExt::next(&mut turn).await {
                if let twinwire::protocol::Message::Result(result) = message.unwrap() {
                    session_id = result.session_id.clone();
                }
            }
        }
        client.close().await.unwrap();

        // Resumed from the store alone, on a "machine" that never had it: an empty HOME.
        let elsewhere = root.path().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let options = offline(&work, &elsewhere, &root.path().join("tmp"), &server.url())
            .resume(&session_id)
            .transcript_store(std::sync::Arc::new(DirectoryTranscriptStore::new(&mirror)))
            .build()
            .unwrap();
        let asked_before = server.message_requests().len();
        let client = twinwire::Client::connect(options).await.unwrap();
        client.send("What did I say first?").await.unwrap();
        let mut resumed_id = String::new();
        let mut turn = std::pin::pin!(client.receive_response());
        while let Some(message) = futures::StreamExt::next(&mut turn).await {
            if let twinwire::protocol::Message::Result(result) = message.unwrap() {
                assert!(!result.is_error, "{result:?}");
                resumed_id = result.session_id.clone();
            }
        }
        client.close().await.unwrap();
        assert_eq!(resumed_id, session_id, "the same session goes on");
        // The model saw the earlier conversation, which only the store had.
        let requests = server.message_requests();
        let resumed = requests[asked_before..]
            .iter()
            .map(Value::to_string)
            .find(|body| body.contains("What did I say first?"))
            .expect("the resumed turn's request");
        assert!(resumed.contains("Hello mirror"), "no history in {resumed}");
        assert!(
            !elsewhere.join(".claude/projects").exists()
                || std::fs::read_dir(elsewhere.join(".claude/projects"))
                    .unwrap()
                    .next()
                    .is_none(),
            "the CLI wrote into the empty HOME instead of the restored directory"
        );
        server.shutdown().await;
        session_id
    });
    let local = SavedSessions::at(home.join(".claude"));
    let mirrored = SavedSessions::at(&mirror);
    let all = MessagesOptions::default();
    let (ours, theirs) = (
        mirrored.messages(&session_id, &all),
        local.messages(&session_id, &all),
    );
    assert!(ours.len() >= 6, "{} mirrored messages", ours.len());
    // The store holds the CLI's own file and then the resumed turn, mirrored too.
    assert_eq!(
        ours[..theirs.len()],
        theirs[..],
        "the mirrored conversation"
    );
    let last_prompt = ours
        .iter()
        .rev()
        .find(|m| m.message.to_string().contains("What did I say first?"));
    assert!(last_prompt.is_some(), "the resumed turn was not mirrored");
    let info = mirrored.info(&session_id, None).unwrap();
    assert_eq!(info.first_prompt.as_deref(), Some("Hello mirror"));
    // The official SDK reads the mirror directory too.
    let listed = ts(&mirror, &["list"]);
    assert_eq!(listed[0]["sessionId"], session_id.as_str());
    assert_eq!(
        ts(&mirror, &["show", &session_id])["messages"],
        serde_json::to_value(&ours).unwrap()
    );
}
