//! The host SDK (`twinwire::query`, `twinwire::Client`) against `fake-claude` over real pipes:
//! every feature, and the faults a real CLI shows (crash, hang, garbage, huge lines, unknown
//! kinds, stray responses, cancellations, panicking callbacks, a host that walks away).
#![allow(clippy::unwrap_used)]

// These drive Unix signals, modes and shells.
#[cfg(unix)]
mod causes;
mod faults;
mod features;
#[cfg(unix)]
mod fleet;
#[cfg(unix)]
mod launchers;
mod liberal;
#[cfg(unix)]
mod lifecycle;
mod mutated;
#[cfg(unix)]
mod pool;
#[cfg(windows)]
mod windows;

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::StreamExt;
use serde_json::Value;
use twinwire::options::OptionsBuilder;
use twinwire::protocol::Message;
use twinwire::{Options, Result};

/// A scratch directory with a script and a record file for one fake session.
pub struct Fake {
    /// Holds `script.json` and `record.jsonl`.
    pub dir: tempfile::TempDir,
}

impl Fake {
    /// A fake that plays `script`.
    pub fn new(script: Value) -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
        Self { dir }
    }

    /// The `fake-claude` executable Cargo built for these tests.
    pub fn binary() -> PathBuf {
        PathBuf::from(env!("CARGO_BIN_EXE_fake-claude"))
    }

    /// Options that run this fake, for further building.
    pub fn builder(&self) -> OptionsBuilder {
        Options::builder()
            .cli_path(Self::binary())
            .env("TWINWIRE_FAKE_SCRIPT", self.path("script.json"))
            .env("TWINWIRE_FAKE_RECORD", self.path("record.jsonl"))
            .env("TWINWIRE_FAKE_PERMISSION_TIMEOUT_MS", "20000")
            .request_timeout(Duration::from_secs(10))
    }

    /// Options that run this fake.
    pub fn options(&self) -> Options {
        self.builder().build().unwrap()
    }

    /// Options that run this fake with `verbatim_prompts`.
    pub fn verbatim_options(&self) -> Options {
        self.builder().verbatim_prompts(true).build().unwrap()
    }

    /// A file in the scratch directory.
    pub fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    /// Every line the fake recorded: argv/env first, then `{"in": frame}` per frame received.
    pub fn record(&self) -> Vec<Value> {
        std::fs::read_to_string(self.path("record.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    /// The frames the host sent.
    pub fn received(&self) -> Vec<Value> {
        self.record()
            .into_iter()
            .filter_map(|line| line.get("in").cloned())
            .collect()
    }
}

/// Runs `future` with a limit, so that a hang fails the test instead of blocking it.
pub async fn within<T>(seconds: u64, future: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(seconds), future)
        .await
        .expect("the test hung")
}

/// Collects a whole query.
pub async fn collect(stream: twinwire::MessageStream) -> Vec<Result<Message>> {
    within(30, stream.collect::<Vec<_>>()).await
}

/// The messages of `kind` (`Message::kind()`), parsed ones only.
pub fn of_kind<'a>(items: &'a [Result<Message>], kind: &str) -> Vec<&'a Message> {
    items
        .iter()
        .filter_map(|item| item.as_ref().ok())
        .filter(|message| message.kind() == kind)
        .collect()
}

/// Whether a process with this pid still exists (and is not a zombie).
pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(Path::new("/proc").join(pid.to_string()).join("stat")) {
        Ok(stat) => {
            // The state is the field after the parenthesised command name.
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// The system frames of one subtype, as JSON.
pub fn system_frames(items: &[Result<Message>], subtype: &str) -> Vec<Value> {
    of_kind(items, &format!("system/{subtype}"))
        .into_iter()
        .map(|m| m.to_value())
        .collect()
}

/// Processes (other than this one) whose environment holds `needle`, as `pid command line`.
pub fn processes_marked(needle: &str) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.chars().all(|c| c.is_ascii_digit())
            || name == me
            || !alive(name.parse().unwrap_or(0))
        {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
        {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{name} {}",
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

/// Waits up to `seconds` for no process to carry `needle`; returns those left.
pub async fn left_running(needle: &str, seconds: u64) -> Vec<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(seconds);
    loop {
        let left = processes_marked(needle);
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
