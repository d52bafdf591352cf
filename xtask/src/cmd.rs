//! Running the programs xtask drives: one place to start them and to say how they failed.

use std::process::{Command, Stdio};

use anyhow::{bail, Context, Result};

/// Runs `command` with this process's stdin, stdout and stderr; an error if it fails.
pub fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .with_context(|| format!("starting {command:?}"))?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(())
}

/// Runs `command` (called `what` in messages) with no input and its output kept; an error
/// with its stderr if it fails.
pub fn run_quiet(command: &mut Command, what: &str) -> Result<()> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("starting {what}"))?;
    if !output.status.success() {
        bail!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}
