//! `claude -v` answered by a replay: hosts ask the CLI's version before they start a session
//! (claude-agent-sdk 0.1.x runs `CLI -v` and waits up to 2 s for it), so a replay standing in for
//! the CLI prints the version the recording was made with, as Claude Code prints its own.

use std::ffi::OsString;

use serde_json::Value;

use crate::transcript::{Direction, Entry};

/// What is printed when the recording names no version (Claude Code 1.0 did not report it).
pub const UNKNOWN: &str =
    "unknown (Claude Code; replayed by twinwire from a recording that names no version)";

/// Whether the CLI arguments ask for the version, as Claude Code reads them: `-v` or
/// `--version` anywhere before a `--`.
pub fn asks_version(cli_args: &[OsString]) -> bool {
    cli_args
        .iter()
        .take_while(|arg| *arg != "--")
        .any(|arg| arg == "-v" || arg == "--version")
}

/// The line Claude Code prints for `-v` (`2.1.330 (Claude Code)`), with the version the
/// recording's CLI reported in its `initialize` answer or its `system/init`.
pub fn version_line(entries: &[Entry]) -> String {
    match recorded_version(entries) {
        Some(version) => format!("{version} (Claude Code)"),
        None => UNKNOWN.to_owned(),
    }
}

fn recorded_version(entries: &[Entry]) -> Option<&str> {
    entries
        .iter()
        .filter(|entry| entry.dir == Direction::Out)
        .filter_map(|entry| entry.value.as_ref())
        .find_map(|frame| {
            let reported = match frame.get("type").and_then(Value::as_str) {
                Some("system") => frame.get("claude_code_version"),
                Some("control_response") => frame.pointer("/response/response/claude_code_version"),
                _ => None,
            };
            reported.and_then(Value::as_str).filter(|v| !v.is_empty())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_version_flags_count_before_a_double_dash() {
        assert!(asks_version(&args(&["-v"])));
        assert!(asks_version(&args(&[
            "--output-format",
            "stream-json",
            "--version"
        ])));
        assert!(!asks_version(&args(&["--verbose", "-p"])));
        assert!(!asks_version(&args(&["-p", "--", "-v"])));
    }
}
