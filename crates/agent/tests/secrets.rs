//! The credentials stay out of the model's reach: `twinwire-agent` over real pipes runs
//! Bash (in the foreground and as a job) and a SessionEnd hook that print their whole
//! environment, and nothing the session wrote (frames, stderr, the transcript and the other
//! files under its config and temporary folders) nor anything the model was sent holds the key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::json;
use support::agent::{json, turn, World};
use twinwire::Client;

/// The key and the cloud credentials, each a value found nowhere else.
const KEY: &str = "sk-ant-api03-keepmeout-5c1d9e";
const CREDENTIALS: [(&str, &str); 4] = [
    ("ANTHROPIC_AUTH_TOKEN", "bearer-keepmeout-8a2f"),
    ("CLAUDE_CODE_OAUTH_TOKEN", "oauth-keepmeout-31b7"),
    ("AWS_SECRET_ACCESS_KEY", "aws-keepmeout-e04c"),
    ("AWS_BEARER_TOKEN_BEDROCK", "bedrock-keepmeout-77d0"),
];
/// A variable that is no credential and must still reach the commands.
const PLAIN: (&str, &str) = ("SECRETS_TEST_PLAIN", "plain-value-passes");

fn bash(command: &str, background: bool) -> serde_json::Value {
    json!({"name": "Bash", "input": {"command": command, "description": "print the environment",
                                     "run_in_background": background}})
}

/// Everything the session wrote or was sent, as text.
struct Written {
    frames: String,
    stderr: String,
    requests: String,
    files: Vec<(PathBuf, String)>,
}

impl Written {
    fn holds(&self, needle: &str) -> Vec<String> {
        let mut places = Vec::new();
        for (name, text) in [
            ("frames", &self.frames),
            ("stderr", &self.stderr),
            ("model requests", &self.requests),
        ] {
            if text.contains(needle) {
                places.push(name.to_owned());
            }
        }
        for (path, text) in &self.files {
            if text.contains(needle) {
                places.push(path.display().to_string());
            }
        }
        places
    }
}

fn files_under(dir: &Path, into: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, into);
        } else if let Ok(bytes) = std::fs::read(&path) {
            into.push((path, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
}

/// One session: the model asks for `env`, `printenv`, `/proc/self/environ` and a job that
/// writes `env` to a file; a SessionEnd hook writes its environment too. `extra` adds
/// variables to the agent's environment.
async fn session(extra: &[(&str, &str)]) -> (World, Written) {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "show"}, "reply": {"tool_uses": {"calls": [
            bash("env", false),
            bash("printenv ANTHROPIC_API_KEY; printenv AWS_SECRET_ACCESS_KEY; echo end", false),
            bash("tr '\\0' '\\n' < /proc/self/environ", false),
            bash("env > job-env.txt", true),
        ]}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let settings = world.work.join(".claude");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.json"),
        json!({"hooks": {"SessionEnd": [{"hooks": [
            {"type": "command", "command": "env > \"$CLAUDE_PROJECT_DIR/hook-env.txt\""}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    let temp = world.home.join("tmp");
    std::fs::create_dir_all(&temp).unwrap();
    let stderr = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&stderr);
    let mut options = world
        .options()
        .env("ANTHROPIC_API_KEY", KEY)
        .env("CLAUDE_CODE_TMPDIR", temp.display().to_string())
        .env(PLAIN.0, PLAIN.1)
        .allowed_tool("Bash")
        .stderr(move |line| {
            let mut text = sink.lock().unwrap();
            text.push_str(line);
            text.push('\n');
        });
    for (name, value) in CREDENTIALS.iter().chain(extra) {
        options = options.env(*name, *value);
    }
    let client = Client::connect(options.build().unwrap()).await.unwrap();
    client.send("show me the environment").await.unwrap();
    let frames = turn(&client).await;
    // The job runs beside the turn; closing the session stops it. On a busy machine it may
    // not have written its file when the turn ends: wait for it (bounded) before closing.
    let job = world.path("job-env.txt");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(&job).is_ok_and(|text| text.contains(PLAIN.1)) {
        assert!(
            std::time::Instant::now() < deadline,
            "the background job never wrote its file"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    client.close().await.unwrap();
    let mut files = Vec::new();
    files_under(&world.home, &mut files);
    files_under(&world.work, &mut files);
    let written = Written {
        frames: serde_json::to_string(&json(&frames)).unwrap(),
        stderr: stderr.lock().unwrap().clone(),
        requests: serde_json::to_string(&world.model_requests()).unwrap(),
        files,
    };
    (world, written)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_tool_and_no_output_of_the_session_holds_a_credential() {
    let (world, written) = session(&[]).await;
    // The commands ran and their output came back: the test looks where the key would be.
    assert!(
        written.frames.contains(PLAIN.1),
        "env's output is in the frames"
    );
    assert!(written.frames.contains("end"), "printenv ran");
    for file in ["job-env.txt", "hook-env.txt"] {
        let text = std::fs::read_to_string(world.path(file)).expect(file);
        assert!(text.contains(PLAIN.1), "{file} holds the environment");
    }
    assert!(
        written
            .files
            .iter()
            .any(|(p, _)| p.extension().is_some_and(|e| e == "jsonl")),
        "the transcript is among the files searched"
    );
    for needle in std::iter::once(KEY).chain(CREDENTIALS.iter().map(|(_, v)| *v)) {
        assert_eq!(written.holds(needle), Vec::<String>::new(), "{needle}");
    }
    // Only the variables' names are gone, not their neighbours'.
    assert!(!written.frames.contains("ANTHROPIC_API_KEY="));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opt_out_leaves_the_environment_whole() {
    let (world, written) = session(&[("CLAUDE_CODE_SUBPROCESS_ENV_SCRUB", "0")]).await;
    assert!(!written.holds(KEY).is_empty(), "printenv prints the key");
    let job = std::fs::read_to_string(world.path("job-env.txt")).unwrap();
    assert!(job.contains(KEY), "the job sees the key");
}

/// A repository's settings cannot turn the removal off: the opt-out is read from the
/// environment the agent was started in only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settings_file_cannot_opt_out() {
    let world = World::new(json!({"rules": [
        {"when": {"last_is_tool_result": true}, "reply": {"text": "done"}},
        {"when": {"last_user_text_contains": "show"},
         "reply": {"tool_use": {"name": "Bash", "input": {"command": "env",
                                                          "description": "environment"}}}}
    ], "default": {"text": "unexpected"}}))
    .await;
    let settings = world.work.join(".claude");
    std::fs::create_dir_all(&settings).unwrap();
    std::fs::write(
        settings.join("settings.json"),
        json!({"env": {"CLAUDE_CODE_SUBPROCESS_ENV_SCRUB": "0", PLAIN.0: PLAIN.1}}).to_string(),
    )
    .unwrap();
    let options = world
        .options()
        .env("ANTHROPIC_API_KEY", KEY)
        .allowed_tool("Bash");
    let client = Client::connect(options.build().unwrap()).await.unwrap();
    client.send("show me").await.unwrap();
    let frames = turn(&client).await;
    client.close().await.unwrap();
    let frames = serde_json::to_string(&json(&frames)).unwrap();
    assert!(
        frames.contains(PLAIN.1),
        "the settings' env reached the command"
    );
    assert!(
        !frames.contains(KEY),
        "a settings file turned the removal off"
    );
}
