//! Finding the `claude` executable.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The environment variable that names the CLI to run.
pub const CLI_PATH_ENV: &str = "CCWIRE_CLI_PATH";

/// The Claude Code version ccwire is tested against.
pub const PINNED_CLI_VERSION: &str = "2.1.330";

/// A program to run, with any arguments that must come first (`node cli.js` for the older
/// JavaScript builds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliCommand {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before ccwire's own.
    pub leading_args: Vec<OsString>,
}

impl CliCommand {
    /// Runs `path`: a native executable directly, a `.js` bundle with `node`.
    pub fn for_path(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        if path
            .extension()
            .is_some_and(|ext| ext == "js" || ext == "mjs")
        {
            Self {
                program: PathBuf::from("node"),
                leading_args: vec![path.into_os_string()],
            }
        } else {
            Self {
                program: path,
                leading_args: Vec::new(),
            }
        }
    }
}

/// Where `cargo xtask install-claude` keeps the pinned CLI of `version`:
/// `$CCWIRE_CACHE_DIR`, else `$XDG_CACHE_HOME/ccwire`, else `~/.cache/ccwire`, then
/// `claude-code/<version>`.
pub fn pinned_cli_dir(version: &str) -> Option<PathBuf> {
    let base = std::env::var_os("CCWIRE_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("ccwire")))
        .or_else(|| home().map(|h| h.join(".cache/ccwire")))?;
    Some(base.join("claude-code").join(version))
}

/// Finds the CLI: `explicit` if given, then `$CCWIRE_CLI_PATH`, then `claude` on `PATH`, then
/// the usual install locations, then the pinned CLI cached by `cargo xtask install-claude`.
pub fn discover(explicit: Option<&Path>) -> Result<CliCommand> {
    let mut searched = Vec::new();
    if let Some(path) = explicit {
        if is_executable(path) {
            return Ok(CliCommand::for_path(path));
        }
        return Err(Error::CliNotFound {
            searched: path.display().to_string(),
        });
    }
    if let Some(path) = std::env::var_os(CLI_PATH_ENV) {
        let path = PathBuf::from(path);
        if is_executable(&path) {
            return Ok(CliCommand::for_path(path));
        }
        searched.push(format!("${CLI_PATH_ENV}={}", path.display()));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("claude");
            if is_executable(&candidate) {
                return Ok(CliCommand::for_path(candidate));
            }
        }
        searched.push("PATH".to_owned());
    }
    let mut candidates = Vec::new();
    if let Some(home) = home() {
        for rel in [
            ".npm-global/bin/claude",
            ".local/bin/claude",
            "node_modules/.bin/claude",
            ".yarn/bin/claude",
            ".claude/local/claude",
        ] {
            candidates.push(home.join(rel));
        }
    }
    candidates.push(PathBuf::from("/usr/local/bin/claude"));
    if let Some(dir) = pinned_cli_dir(PINNED_CLI_VERSION) {
        candidates.push(dir.join("claude"));
    }
    for candidate in candidates {
        if is_executable(&candidate) {
            return Ok(CliCommand::for_path(candidate));
        }
        searched.push(candidate.display().to_string());
    }
    Err(Error::CliNotFound {
        searched: searched.join(", "),
    })
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME").map(PathBuf::from)
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // A `.js` bundle runs through node and needs no execute bit.
        path.extension().is_some_and(|e| e == "js" || e == "mjs")
            || meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_explicit_path_is_not_found_and_names_it() {
        let err = discover(Some(Path::new("/nonexistent/claude"))).unwrap_err();
        assert!(err.is_cli_not_found());
        assert!(err.to_string().contains("/nonexistent/claude"));
        assert!(err.to_string().contains("npm install"));
    }

    #[test]
    fn js_bundles_run_with_node() {
        let command = CliCommand::for_path("/x/cli.js");
        assert_eq!(command.program, PathBuf::from("node"));
        assert_eq!(command.leading_args, vec![OsString::from("/x/cli.js")]);
    }
}
