//! Project tasks, run as `cargo xtask <task>`.
//!
//! - `test`: everything CI proves: the workspace's tests (unit, transcript, property, process
//!   tests) and a run of the `ccwire` binary over the recorded transcripts.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "xtask")]
struct Args {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Run every test: unit, transcript, property and process tests, then `ccwire check` over
    /// the recorded transcripts.
    Test,
}

fn main() -> Result<()> {
    match Args::parse().task {
        Task::Test => test(),
    }
}

fn test() -> Result<()> {
    let root = workspace_root();
    run(Command::new(cargo()).current_dir(&root).args([
        "test",
        "--workspace",
        "--all-targets",
        "--locked",
    ]))?;
    run(Command::new(cargo()).current_dir(&root).args([
        "test",
        "--workspace",
        "--doc",
        "--locked",
    ]))?;
    let transcripts = shared_dir(&root).join("reference/transcripts");
    if !transcripts.is_dir() {
        bail!(
            "the recorded transcripts are missing: expected {} (set CCWIRE_SHARED_DIR)",
            transcripts.display()
        );
    }
    run(Command::new(cargo())
        .current_dir(&root)
        .args([
            "run",
            "--quiet",
            "--locked",
            "-p",
            "ccwire-cli",
            "--",
            "check",
        ])
        .arg(&transcripts))?;
    Ok(())
}

/// `shared/` beside the repository, or `CCWIRE_SHARED_DIR`.
fn shared_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CCWIRE_SHARED_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => root.join("../shared"),
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("starting {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}
