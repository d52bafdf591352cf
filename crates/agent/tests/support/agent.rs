//! `twinwire-agent` driven by twinwire's own host (`Client`, `query`) over real pipes, against
//! `twinwire model-server` (or a scripted socket), in a private HOME and working directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use twinwire::protocol::Message;
use twinwire::{Client, Options};
use twinwire_model_server::{ModelScript, ModelServer};

/// A private world for one test.
pub struct World {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub work: PathBuf,
    pub server: Option<ModelServer>,
    pub url: String,
}

impl World {
    /// A world whose model follows `script` (JSON, as `twinwire model-server` reads it).
    pub async fn new(script: Value) -> Self {
        let script: ModelScript = serde_json::from_value(script).expect("a valid script");
        let server = ModelServer::start(script).await.unwrap();
        let url = server.url();
        let mut world = Self::at(url);
        world.server = Some(server);
        world
    }

    /// A world whose model is at `url`.
    pub fn at(url: String) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, work) = (root.join("home"), root.join("work"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&work).unwrap();
        Self {
            _dir: dir,
            home,
            work,
            server: None,
            url,
        }
    }

    /// Options that start the agent here, offline.
    pub fn options(&self) -> twinwire::options::OptionsBuilder {
        Options::builder()
            .cli_path(env!("CARGO_BIN_EXE_twinwire-agent"))
            .cwd(&self.work)
            .env("HOME", &self.home)
            .env("ANTHROPIC_BASE_URL", &self.url)
            .env("ANTHROPIC_API_KEY", "sk-offline")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .request_timeout(Duration::from_secs(60))
    }

    /// Options that start Claude Code itself here ([`claude_code`]), offline, as the
    /// conformance suite starts it.
    pub fn claude_options(&self) -> twinwire::options::OptionsBuilder {
        self.options()
            .cli_path(claude_code())
            .env("TMPDIR", self.home.join("tmp"))
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("ANTHROPIC_MODEL")
    }

    /// The bodies of the model calls so far.
    pub fn model_requests(&self) -> Vec<Value> {
        self.server
            .as_ref()
            .map(ModelServer::message_requests)
            .unwrap_or_default()
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.work.join(name)
    }

    /// Every saved session of the working directory.
    pub fn sessions(&self) -> Vec<String> {
        let store = twinwire::sessions::SavedSessions::at(self.home.join(".claude"));
        store
            .list(&twinwire::sessions::ListOptions::for_dir(&self.work))
            .into_iter()
            .map(|s| s.session_id)
            .collect()
    }
}

/// The Claude Code build the agent is judged by: `$TWINWIRE_FIDELITY_CLAUDE`, else 2.1.332 from
/// the cache `cargo xtask install-claude` fills (`cargo xtask test` installs it).
pub fn claude_code() -> PathBuf {
    if let Some(path) = std::env::var_os("TWINWIRE_FIDELITY_CLAUDE").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    let path = twinwire::host::process::pinned_cli_dir("2.1.332")
        .expect("a cache directory (HOME or TWINWIRE_CACHE_DIR)")
        .join("claude");
    assert!(
        path.is_file(),
        "Claude Code 2.1.332 is not installed at {}: run `cargo xtask install-claude --version \
         2.1.332`, or set TWINWIRE_FIDELITY_CLAUDE",
        path.display()
    );
    path
}

/// The frames of one turn, up to its result (a minute at most).
pub async fn turn(client: &Client) -> Vec<Message> {
    let mut frames = Vec::new();
    let mut stream = std::pin::pin!(client.receive_response());
    let collect = async {
        while let Some(message) = stream.next().await {
            frames.push(message.expect("a frame"));
        }
    };
    tokio::time::timeout(Duration::from_secs(60), collect)
        .await
        .expect("the turn ended within a minute");
    frames
}

/// The result of a turn.
pub fn result(frames: &[Message]) -> &twinwire::protocol::result::ResultMessage {
    frames
        .iter()
        .find_map(|m| match m {
            Message::Result(result) => Some(&**result),
            _ => None,
        })
        .expect("a result")
}

/// The JSON of every frame, for searching.
pub fn json(frames: &[Message]) -> Vec<Value> {
    frames
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect()
}

/// Whether a JSON value's text holds `needle`.
pub fn mentions(value: &impl serde::Serialize, needle: &str) -> bool {
    serde_json::to_string(value).unwrap().contains(needle)
}

#[allow(dead_code)]
pub fn exists(path: &Path) -> bool {
    path.exists()
}
