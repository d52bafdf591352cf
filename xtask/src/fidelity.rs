//! `cargo xtask fidelity`: twinwire-agent's tools against Claude Code's, every case of the
//! fidelity suite (`crates/agent/tests/fidelity`), with a report.
//!
//! The suite plays the same scripted tool calls to the judge (Claude Code
//! [`JUDGE_VERSION`], installed here if needed) and to twinwire-agent, and fails on any
//! difference that `differences.json` does not list (or a listed one that is gone). The
//! report (figures per tool, every difference with its reason) goes to
//! `target/fidelity/report.md`. `cargo xtask test` runs the bounded subset of the suite
//! (about 10 to 15 s) as part of the agent crate's tests.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result};

use crate::{cargo, install_claude, run};

/// The Claude Code version the agent is held to.
pub const JUDGE_VERSION: &str = "2.1.332";

/// Runs every case (or those whose names contain one of `cases`) and writes the report.
pub fn fidelity(root: &Path, cases: &[String]) -> Result<()> {
    let judge = install_claude(JUDGE_VERSION)?;
    let report = crate::sdks::target_dir(root)
        .join("fidelity")
        .join("report.md");
    let mut command = Command::new(cargo());
    command
        .current_dir(root)
        .env("TWINWIRE_FIDELITY", "all")
        .env("TWINWIRE_FIDELITY_CLAUDE", &judge)
        .env("TWINWIRE_FIDELITY_REPORT", &report)
        .args([
            "test",
            "--locked",
            "-p",
            "twinwire-agent",
            "--test",
            "fidelity",
            "--",
            "--nocapture",
        ]);
    if !cases.is_empty() {
        command.env("TWINWIRE_FIDELITY_CASES", cases.join(","));
    }
    let outcome = run(&mut command);
    if report.is_file() {
        eprintln!("fidelity: the report is {}", report.display());
    }
    outcome
        .context("fidelity: twinwire-agent differs from Claude Code where no difference is listed")
}
