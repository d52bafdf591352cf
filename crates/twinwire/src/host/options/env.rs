//! The CLI's environment.

use std::ffi::OsString;

use super::Options;

/// `CLAUDE_CODE_ENTRYPOINT`: tells the CLI (and its User-Agent) which SDK drives it.
pub(crate) const ENTRYPOINT: &str = "sdk-rust";

/// Variables removed from the inherited environment: `CLAUDECODE` (set inside a Claude Code
/// session, it would make the child believe it is nested) and `NODE_OPTIONS` (a host's Node
/// flags must not reach a JavaScript build of the CLI).
pub(crate) const REMOVED: [&str; 2] = ["CLAUDECODE", "NODE_OPTIONS"];

impl Options {
    /// Changes to the parent's environment for the child, in order: `Some` sets, `None`
    /// removes. The user's [`env`](super::OptionsBuilder::env) comes last, so it overrides
    /// everything twinwire sets.
    pub(crate) fn env(&self) -> Vec<(OsString, Option<OsString>)> {
        let mut env: Vec<(OsString, Option<OsString>)> = Vec::new();
        let mut set = |key: &str, value: &str| env.push((key.into(), Some(value.into())));
        set("CLAUDE_CODE_ENTRYPOINT", ENTRYPOINT);
        set("CLAUDE_AGENT_SDK_VERSION", env!("CARGO_PKG_VERSION"));
        set("CLAUDE_CODE_SDK_READS_SESSION_STATE", "1");
        if self.enable_file_checkpointing {
            set("CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING", "true");
        }
        if let Some(app) = &self.client_app {
            set("CLAUDE_AGENT_SDK_CLIENT_APP", app);
        }
        if let Some(format) = &self.question_preview_format {
            set("CLAUDE_CODE_QUESTION_PREVIEW_FORMAT", format.as_str());
        }
        for key in REMOVED {
            env.push((key.into(), None));
        }
        if let Some(cwd) = self.cwd.as_ref().filter(|cwd| cwd.is_absolute()) {
            env.push(("PWD".into(), Some(cwd.clone().into_os_string())));
        }
        env.extend(self.env.iter().cloned());
        env
    }
}
