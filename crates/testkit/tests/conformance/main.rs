//! Conformance: twinwire's host API driving the REAL pinned Claude Code CLI, offline, against the
//! scripted model server (`twinwire_model_server`).
//!
//! The CLI comes from `$TWINWIRE_CLAUDE_PATH`, else from the cache `cargo xtask install-claude`
//! fills (`pinned_cli_dir("2.1.330")/claude`); when it is missing every scenario fails and says
//! how to install it. `$TWINWIRE_CLI_VERSION` names the version it is (default: the pinned one);
//! `cargo xtask test` runs the suite once per CLI generation and checks each older one against
//! its list of expected differences (`differences.json`). Each scenario gets its own model
//! server, `HOME`, `TMPDIR`, `CLAUDE_CODE_TMPDIR` and working directory, so scenarios run
//! concurrently. Every await has a time limit.
//!
//! When `$TWINWIRE_RECORD_DIR` is set, every CLI a scenario starts runs behind `twinwire tap`
//! (through `$TWINWIRE_TAP_WRAPPER`), which records the session into `$TWINWIRE_RECORD_DIR/<scenario>/`:
//! this is how `cargo xtask record` makes the recordings under `tests/fixtures/transcripts`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod basics;
mod claims;
mod compaction;
mod control;
mod decisions;
mod dialogs;
mod hook_kinds;
mod hooks;
mod limits;
mod mcp;
mod mcp_servers;
mod mode_matrix;
mod modes;
mod output;
mod permissions;
mod requests;
mod sessions;
mod settings;
mod tasks;
mod usage;
mod warnings;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};
use twinwire::options::OptionsBuilder;
use twinwire::protocol::result::ResultMessage;
use twinwire::protocol::system::{SystemInit, SystemMessage};
use twinwire::protocol::Message;
use twinwire::{Client, MessageStream, Options, Result};
pub use twinwire_model_server::request_tool_results;
use twinwire_model_server::{ModelScript, ModelServer};

/// The Claude Code version this suite is written against.
pub const PINNED_VERSION: &str = "2.1.330";

/// The version of the CLI under test: `$TWINWIRE_CLI_VERSION`, else [`PINNED_VERSION`].
pub fn cli_version() -> String {
    std::env::var("TWINWIRE_CLI_VERSION")
        .ok()
        .filter(|version| !version.is_empty())
        .unwrap_or_else(|| PINNED_VERSION.to_owned())
}

/// How long one scenario step (a connect, a turn, a control request) may take.
pub const STEP: Duration = Duration::from_secs(60);

/// How long a control request may wait for its answer. Older CLIs never answer a subtype they
/// do not know; on them a shorter wait keeps the matrix quick (those scenarios are listed in
/// `differences.json` and fail either way).
pub fn control_timeout() -> Duration {
    if !older_than_pinned(&cli_version()) {
        STEP
    } else {
        Duration::from_secs(10)
    }
}

/// Whether `version` (`major.minor.patch`) is older than [`PINNED_VERSION`]; a version that
/// does not parse counts as older.
pub fn older_than_pinned(version: &str) -> bool {
    let parse = |v: &str| -> Option<(u64, u64, u64)> {
        let mut parts = v.split(['.', '-']).map(|p| p.parse::<u64>().ok());
        Some((parts.next()??, parts.next()??, parts.next()??))
    };
    match (parse(version), parse(PINNED_VERSION)) {
        (Some(version), Some(pinned)) => version < pinned,
        _ => true,
    }
}

/// A model script from rules and a default reply (JSON forms of `Rule` and `Reply`).
pub fn script(rules: Value, default: Value) -> ModelScript {
    serde_json::from_value(json!({"rules": rules, "default": default, "model": null}))
        .expect("a valid model script")
}

/// One scenario's world: a model server and a private home, temp dir and working directory.
pub struct Scenario {
    /// The scripted Messages API.
    pub server: ModelServer,
    root: tempfile::TempDir,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl Scenario {
    /// Starts a model server playing `script` and makes the scenario's directories.
    pub async fn start(script: ModelScript) -> Self {
        Self::start_with(|_| script).await
    }

    /// Like [`Scenario::start`], with a script that names paths in the working directory.
    pub async fn start_with(script: impl FnOnce(&Path) -> ModelScript) -> Self {
        let root = tempfile::tempdir().expect("a scratch directory");
        for dir in ["home", "tmp", "work"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        let server = within(ModelServer::start(script(&root.path().join("work"))))
            .await
            .expect("the model server starts");
        Self {
            server,
            root,
            stderr: Arc::default(),
        }
    }

    /// The private `HOME`.
    pub fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// The working directory the CLI runs in.
    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// Options that run the real CLI offline against this scenario's model server.
    pub fn builder(&self) -> OptionsBuilder {
        let home = self.home();
        let tmp = self.root.path().join("tmp");
        let stderr = Arc::clone(&self.stderr);
        recording(Options::builder())
            .cwd(self.work())
            .env("HOME", &home)
            .env("TMPDIR", &tmp)
            .env("CLAUDE_CODE_TMPDIR", &tmp)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("ANTHROPIC_BASE_URL", self.server.url())
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            // Nothing from the developer's own setup may leak in.
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("ANTHROPIC_MODEL")
            .env_remove("ANTHROPIC_SMALL_FAST_MODEL")
            .env_remove("ANTHROPIC_CUSTOM_HEADERS")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("CLAUDE_CODE_USE_BEDROCK")
            .env_remove("CLAUDE_CODE_USE_VERTEX")
            .env_remove("IS_SANDBOX")
            .request_timeout(control_timeout())
            .initialize_timeout(STEP)
            .stderr(move |line: &str| stderr.lock().unwrap().push(line.to_owned()))
    }

    /// The default options of [`Scenario::builder`].
    pub fn options(&self) -> Options {
        self.builder().build().expect("valid options")
    }

    /// What the CLI wrote to stderr so far, for failure messages.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }

    /// The bodies of every `POST /v1/messages` the CLI made.
    pub fn message_requests(&self) -> Vec<Value> {
        self.server.message_requests()
    }

    /// The tool results each model request carried, as JSON text (empty for a request that
    /// carried none), in request order.
    pub fn tool_results_sent(&self) -> Vec<String> {
        self.message_requests()
            .iter()
            .map(request_tool_results)
            .collect()
    }

    /// The message requests whose last user text contains `needle` (the CLI sends side
    /// requests too; this finds the ones for one turn).
    pub fn requests_for(&self, needle: &str) -> Vec<Value> {
        self.message_requests()
            .into_iter()
            .filter(|body| last_user_text(body).contains(needle))
            .collect()
    }

    /// Connects a [`Client`] with `options`.
    pub async fn connect(&self, options: Options) -> Client {
        match within(Client::connect(options)).await {
            Ok(client) => client,
            Err(err) => panic!("connect failed: {err}\nstderr:\n{}", self.stderr()),
        }
    }
}

/// With `$TWINWIRE_RECORD_DIR` set: the CLI path is `$TWINWIRE_TAP_WRAPPER`, a script that runs
/// the real CLI behind `twinwire tap` (`cargo xtask` writes it once, before the suite starts: a
/// script written while other tests fork could not be run, "text file busy"), recording into
/// a directory named after the running test (its thread's name, e.g. `basics.a_text_turn`),
/// one file per CLI started. Without it, the real CLI itself.
fn recording(builder: OptionsBuilder) -> OptionsBuilder {
    let Some(dir) = std::env::var_os("TWINWIRE_RECORD_DIR").filter(|d| !d.is_empty()) else {
        return builder.cli_path(twinwire_testkit::real_claude());
    };
    let wrapper = std::env::var_os("TWINWIRE_TAP_WRAPPER").expect("$TWINWIRE_TAP_WRAPPER is set");
    let test = std::thread::current()
        .name()
        .expect("a test thread has the test's name")
        .replace("::", ".");
    let into = PathBuf::from(dir).join(test);
    std::fs::create_dir_all(&into).unwrap();
    builder
        .cli_path(wrapper)
        .env("TWINWIRE_TAP_RECORD", into)
        .env("TWINWIRE_TAP_CLI", twinwire_testkit::real_claude())
}

/// Runs `future` with the step limit, so that a hang fails the test instead of blocking it.
pub async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(STEP, future)
        .await
        .expect("the step hung past its time limit")
}

/// Every message of a [`twinwire::query`], until the CLI exits.
pub async fn collect(stream: MessageStream) -> Vec<Result<Message>> {
    within(stream.collect::<Vec<_>>()).await
}

/// The messages of one [`Client`] turn, up to and including its result.
pub async fn turn(client: &Client, prompt: &str) -> Vec<Result<Message>> {
    within(client.send(prompt)).await.expect("send a turn");
    within(client.receive_response().collect::<Vec<_>>()).await
}

/// The parsed messages; panics on the first error, naming it.
pub fn ok(items: &[Result<Message>]) -> Vec<&Message> {
    items
        .iter()
        .map(|item| match item {
            Ok(message) => message,
            Err(err) => panic!("an error in the stream: {err}; all: {}", kinds(items)),
        })
        .collect()
}

/// `kind()` of every item, for failure messages.
pub fn kinds(items: &[Result<Message>]) -> String {
    let kinds: Vec<String> = items
        .iter()
        .map(|item| match item {
            Ok(message) => message.kind(),
            Err(err) => format!("error: {err}"),
        })
        .collect();
    kinds.join(", ")
}

/// The results among `items`.
pub fn results(items: &[Result<Message>]) -> Vec<&ResultMessage> {
    ok(items)
        .into_iter()
        .filter_map(|message| match message {
            Message::Result(result) => Some(&**result),
            _ => None,
        })
        .collect()
}

/// The one result of a single-turn run.
pub fn the_result(items: &[Result<Message>]) -> &ResultMessage {
    let results = results(items);
    assert_eq!(results.len(), 1, "one result expected: {}", kinds(items));
    results[0]
}

/// The `system/init` messages among `items`.
pub fn inits(items: &[Result<Message>]) -> Vec<&SystemInit> {
    ok(items)
        .into_iter()
        .filter_map(|message| match message {
            Message::System(system) => match &**system {
                SystemMessage::Init(init) => Some(init),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The text of every assistant message, joined.
pub fn assistant_text(items: &[Result<Message>]) -> String {
    ok(items)
        .into_iter()
        .filter_map(|message| match message {
            Message::Assistant(reply) => Some(reply.message.text()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("")
}

/// The `tool_result` blocks the CLI reported back (in `user` messages), as JSON text.
pub fn tool_results(items: &[Result<Message>]) -> String {
    ok(items)
        .into_iter()
        .filter(|message| message.kind() == "user")
        .map(|message| message.to_value()["message"]["content"].to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The text of the last user message of a request body with its `<system-reminder>` blocks.
pub fn last_user_text(body: &Value) -> String {
    let Some(messages) = body["messages"].as_array() else {
        return String::new();
    };
    let Some(last) = messages.iter().rev().find(|m| m["role"] == "user") else {
        return String::new();
    };
    match &last["content"] {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|block| block["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The whole conversation of a request body as JSON text.
pub fn conversation(body: &Value) -> String {
    body["messages"].to_string()
}
