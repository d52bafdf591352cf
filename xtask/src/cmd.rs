//! Running the programs xtask drives: one place to start them and to say how they failed.

use std::io::{BufRead, BufReader};
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

/// Runs `command` as [`run`] does, its stderr shown line by line but for the lines `expected`
/// picks out; returns how many it left out (an error if the command fails).
pub fn run_leaving_out(command: &mut Command, expected: impl Fn(&str) -> bool) -> Result<usize> {
    let mut child = command
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    let mut left_out = 0;
    if let Some(stderr) = child.stderr.take() {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if expected(&line) {
                left_out += 1;
            } else {
                eprintln!("{line}");
            }
        }
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("{command:?} failed: {status}");
    }
    Ok(left_out)
}
