//! `SessionEnd`: what twinwire-agent does once the host's input has ended and the last turn is
//! done, as Claude Code does before it exits. The command hooks of the settings files (the
//! user's, the project's, the local one, `--settings`) run with the event's input as JSON on
//! their stdin, and the callbacks the host registered for the event are called, all at once,
//! with `reason: "other"` (what Claude Code 2.1.330 sends when its stdin closes).
//!
//! They share one time budget, Claude Code's: `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` when
//! set (at most an hour), else the longest `timeout` a SessionEnd command hook names (at most
//! 60 s), and never less than 1.5 s. A command still running then is killed with its process
//! group, so that a hook that hangs cannot keep the session alive.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::process::Command;
use twinwire::agent::Peer;
use twinwire::options::SettingSource;
use twinwire::settings::{resolve_settings, ResolveOptions};
use twinwire_protocol::hooks::HookInput;

use crate::config::Config;
use crate::hooks::Hooks;

/// The reason Claude Code gives when its input closes.
pub const REASON: &str = "other";
/// The budget when no hook asks for more (Claude Code's).
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(1500);
/// The most a hook's own `timeout` can make the budget.
const MAX_HOOK_BUDGET: Duration = Duration::from_secs(60);
/// The most `CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS` can make it.
const MAX_ENV_BUDGET: Duration = Duration::from_secs(3600);
/// The variable that sets the budget.
pub const BUDGET_VAR: &str = "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS";

/// A command hook of a settings file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The shell command.
    pub command: String,
    /// Its own time limit, in seconds.
    pub timeout: Option<u64>,
}

/// The command hooks the settings give for `event`, whose matcher takes `subject` (for
/// `SessionEnd`, the reason). `config_dir` holds the user's settings file.
pub fn command_hooks(
    config: &Config,
    config_dir: &Path,
    event: &str,
    subject: &str,
) -> Vec<CommandHook> {
    let mut options = ResolveOptions::in_dir(&config.cwd).config_dir(config_dir);
    if let Some(sources) = &config.setting_sources {
        options = options.setting_sources(sources.iter().map(|s| SettingSource::from(s.as_str())));
    }
    let resolved = resolve_settings(&options);
    let mut settings = vec![Value::Object(resolved.effective)];
    settings.extend(config.settings.clone());
    if settings.iter().any(|s| s["disableAllHooks"] == true) {
        return Vec::new();
    }
    let mut hooks = Vec::new();
    for matcher in settings
        .iter()
        .filter_map(|s| s["hooks"][event].as_array())
        .flatten()
    {
        let pattern = matcher["matcher"].as_str().unwrap_or_default();
        if !crate::hooks::matches(pattern, Some(subject)) {
            continue;
        }
        for hook in matcher["hooks"].as_array().into_iter().flatten() {
            match (hook["type"].as_str(), hook["command"].as_str()) {
                (Some("command"), Some(command)) => hooks.push(CommandHook {
                    command: command.to_owned(),
                    timeout: hook["timeout"].as_u64(),
                }),
                _ => tracing::debug!(%hook, event, "a hook of a kind this agent does not run"),
            }
        }
    }
    hooks
}

/// The time the SessionEnd hooks have together (see the module's docs).
pub fn budget(config: &Config, hooks: &[CommandHook]) -> Duration {
    if let Some(ms) = config
        .var(BUDGET_VAR)
        .and_then(|v| v.trim().parse::<u64>().ok())
    {
        return Duration::from_millis(ms).min(MAX_ENV_BUDGET);
    }
    let longest = hooks
        .iter()
        .filter_map(|h| h.timeout)
        .map(Duration::from_secs)
        .max()
        .unwrap_or_default();
    longest.min(MAX_HOOK_BUDGET).max(DEFAULT_BUDGET)
}

/// What `SessionEnd` needs of the session.
pub(crate) struct Ending {
    pub(crate) session_id: String,
    /// The session's file.
    pub(crate) transcript: PathBuf,
    /// The host's callbacks.
    pub(crate) callbacks: Hooks,
    /// The settings' SessionEnd command hooks, as they were when the session started (a
    /// settings file written during the session adds none).
    pub(crate) commands: Vec<CommandHook>,
}

/// Fires `SessionEnd`: the settings' command hooks and the host's callbacks, within the budget.
pub(crate) async fn fire(config: &Config, ending: Ending, peer: Peer) {
    let Ending {
        session_id,
        transcript,
        callbacks,
        commands: hooks,
    } = ending;
    let input = json!({
        "session_id": session_id,
        "transcript_path": transcript.display().to_string(),
        "cwd": config.cwd.display().to_string(),
        "hook_event_name": "SessionEnd",
        "reason": REASON,
    });
    // The host can no longer answer (its input ended): its callbacks are called, not awaited.
    let ids = callbacks.callback_ids("SessionEnd", Some(REASON));
    if !ids.is_empty() {
        match serde_json::from_value::<HookInput>(input.clone()) {
            Ok(hook_input) => {
                for id in ids {
                    if let Err(err) = peer.hook_without_answer(&id, hook_input.clone(), None) {
                        tracing::debug!(%err, callback = %id, "a SessionEnd callback not sent");
                    }
                }
            }
            Err(err) => tracing::warn!(%err, "a SessionEnd input that does not read"),
        }
    }
    if hooks.is_empty() {
        return;
    }
    let limit = budget(config, &hooks);
    let stdin = input.to_string();
    let runs = hooks
        .iter()
        .map(|hook| run_command(hook, &stdin, config, limit));
    futures::future::join_all(runs).await;
}

/// Runs one command hook with `input` on its stdin, for at most `limit`; then its process
/// group is killed.
/// A settings hook's command as `/bin/sh` runs it: in the session's directory, with the
/// tools' environment, its input on a pipe, in a process group of its own (killed whole).
pub(crate) fn shell_command(hook: &CommandHook, config: &Config) -> Command {
    let mut command = Command::new("/bin/sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .current_dir(&config.cwd);
    crate::child_env::apply(&mut command, &config.env);
    command
        .env("CLAUDE_PROJECT_DIR", &config.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    command
}

async fn run_command(hook: &CommandHook, input: &str, config: &Config, limit: Duration) {
    let mut command = shell_command(hook, config);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            tracing::warn!(%err, command = %hook.command, "a SessionEnd hook did not start");
            return;
        }
    };
    let group = child.id();
    let mut stdin = child.stdin.take();
    let run = async {
        if let Some(stdin) = stdin.as_mut() {
            // A hook that does not read its input is not an error.
            let _ = stdin.write_all(input.as_bytes()).await;
        }
        drop(stdin);
        child.wait().await
    };
    let ended = tokio::time::timeout(limit, run).await;
    // Whatever the hook left running goes too (its leader is not reaped yet if it timed out).
    kill_group(group);
    match ended {
        Ok(Ok(status)) if status.success() => {}
        Ok(Ok(status)) => {
            tracing::warn!(%status, command = %hook.command, "a SessionEnd hook failed")
        }
        Ok(Err(err)) => tracing::warn!(%err, command = %hook.command, "a SessionEnd hook failed"),
        Err(_) => {
            tracing::warn!(command = %hook.command, limit_ms = limit.as_millis() as u64,
                           "a SessionEnd hook ran out of time and was killed");
            let _ = child.kill().await;
        }
    }
}

/// SIGKILL to a hook's process group.
fn kill_group(group: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = group.and_then(|p| i32::try_from(p).ok()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    #[cfg(not(unix))]
    let _ = group;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config_in(dir: &Path) -> Config {
        Config {
            cwd: dir.to_owned(),
            ..Config::default()
        }
    }

    #[test]
    fn hooks_are_read_from_every_settings_source_and_filtered_by_reason() {
        let dir = tempfile::tempdir().unwrap();
        let (home, work) = (dir.path().join("home"), dir.path().join("work"));
        std::fs::create_dir_all(work.join(".claude")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let file = |hooks: Value| json!({"hooks": {"SessionEnd": hooks}}).to_string();
        std::fs::write(
            home.join("settings.json"),
            file(json!([{"hooks": [{"type": "command", "command": "user"}]}])),
        )
        .unwrap();
        std::fs::write(
            work.join(".claude/settings.json"),
            file(json!([
                {"matcher": "clear", "hooks": [{"type": "command", "command": "on clear"}]},
                {"matcher": "other", "hooks": [{"type": "command", "command": "project",
                                                 "timeout": 5}]}
            ])),
        )
        .unwrap();
        let mut config = config_in(&work);
        config.settings = Some(json!({"hooks": {"SessionEnd": [
            {"hooks": [{"type": "command", "command": "flag"}, {"type": "prompt"}]}]}}));
        let commands = |config: &Config| -> Vec<String> {
            command_hooks(config, &home, "SessionEnd", REASON)
                .into_iter()
                .map(|h| h.command)
                .collect()
        };
        assert_eq!(commands(&config), ["user", "project", "flag"]);
        let hooks = command_hooks(&config, &home, "SessionEnd", REASON);
        assert_eq!(budget(&config, &hooks), Duration::from_secs(5));
        config.setting_sources = Some(vec!["project".into()]);
        assert_eq!(commands(&config), ["project", "flag"]);
        config.settings = Some(json!({"disableAllHooks": true}));
        assert!(commands(&config).is_empty());
    }

    #[test]
    fn the_budget_is_claude_codes() {
        let config = Config::default();
        let hook = |timeout| CommandHook {
            command: String::new(),
            timeout,
        };
        assert_eq!(budget(&config, &[]), DEFAULT_BUDGET);
        assert_eq!(budget(&config, &[hook(Some(1))]), DEFAULT_BUDGET);
        assert_eq!(
            budget(&config, &[hook(None), hook(Some(600))]),
            MAX_HOOK_BUDGET
        );
        let mut config = Config::default();
        config.env.insert(BUDGET_VAR.into(), "250".into());
        assert_eq!(
            budget(&config, &[hook(Some(30))]),
            Duration::from_millis(250)
        );
    }
}
