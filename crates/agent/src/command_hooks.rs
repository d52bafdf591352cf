//! The command hooks of the settings (`hooks.<Event>[].hooks[]` of `type: "command"`), and
//! their prompt hooks (`type: "prompt"`, judged by the model: `prompt_hooks`), agent hooks
//! (`type: "agent"`, a verifier with tools: `agent_hooks`) and http hooks (`type: "http"`, the
//! event posted to a service: `http_hooks`), for every event the agent fires (SessionEnd's, taken from here, are run by
//! [`crate::session_end`] with its own budget). They are read
//! once, when the session starts, as Claude Code snapshots them: a settings file the model
//! writes during the session adds no command that runs. `disableAllHooks` in any source turns
//! them all off.
//!
//! A hook runs through `/bin/sh -c` in the session's directory, in a process group of its own,
//! with the event's input as JSON on stdin and the session's environment without its
//! credentials (see [`crate::child_env`]) plus `CLAUDE_PROJECT_DIR`, for its `timeout` (60 s
//! by default); then its group is killed. As in Claude Code: exit 0 with JSON on stdout is read
//! as a callback's answer (`decision`, `continue`, `hookSpecificOutput`); exit 2 blocks what
//! the event guards (a tool call is refused), its stderr the reason; any other exit is
//! reported and ignored.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::agent_hooks::{AgentHook, Verifier};
use crate::config::Config;
use crate::hooks::HookReport;
use crate::http_hooks::{HttpHook, HttpLimits};
use crate::model::ModelClient;
use crate::prompt_hooks::PromptHook;
use crate::session_end::CommandHook;

/// How long a hook may run unless it says.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The most of a hook's stdout and stderr kept.
const MAX_OUTPUT: u64 = 64 * 1024;

/// The settings' command hooks of a session, by event, with their matchers.
#[derive(Debug, Clone, Default)]
pub struct CommandHooks {
    by_event: BTreeMap<String, Vec<(String, CommandHook)>>,
    /// The prompt hooks, by event, with their matchers.
    prompts: BTreeMap<String, Vec<(String, PromptHook)>>,
    /// The agent hooks, by event, with their matchers.
    agents: BTreeMap<String, Vec<(String, AgentHook)>>,
    /// The http hooks, by event, with their matchers, and what the settings allow them.
    https: BTreeMap<String, Vec<(String, HttpHook)>>,
    http_limits: HttpLimits,
}

impl CommandHooks {
    /// The hooks of the session's settings (every source, as [`crate::settings`] reads them).
    pub fn read(config: &Config) -> Self {
        let settings = crate::settings::effective(&config.settings_sources());
        if settings.get("disableAllHooks") == Some(&Value::Bool(true)) {
            return Self::default();
        }
        let mut hooks = Self {
            http_limits: HttpLimits::of(&settings),
            ..Self::default()
        };
        for (event, pattern, hook) in crate::settings::hook_entries(&settings) {
            if let Some(prompt) = PromptHook::from_entry(hook) {
                add(&mut hooks.prompts, event, pattern, prompt);
                continue;
            }
            if let Some(agent) = AgentHook::from_entry(hook) {
                add(&mut hooks.agents, event, pattern, agent);
                continue;
            }
            if let Some(http) = HttpHook::from_entry(hook) {
                add(&mut hooks.https, event, pattern, http);
                continue;
            }
            if let (Some("command"), Some(command)) = (
                hook.get("type").and_then(Value::as_str),
                hook.get("command").and_then(Value::as_str),
            ) {
                let timeout = hook.get("timeout").and_then(Value::as_u64);
                let command = CommandHook {
                    command: command.to_owned(),
                    timeout,
                };
                add(&mut hooks.by_event, event, pattern, command);
            }
        }
        hooks
    }

    /// The hooks of `event` whose matcher takes `subject`.
    pub fn matching(&self, event: &str, subject: Option<&str>) -> Vec<CommandHook> {
        self.by_event
            .get(event)
            .into_iter()
            .flatten()
            .filter(|(pattern, _)| crate::hooks::matches(pattern, subject))
            .map(|(_, hook)| hook.clone())
            .collect()
    }

    /// Runs the hooks of `event` whose matcher takes `subject`, one after the other, with
    /// `input` on their stdin, and gathers what they decided. Prompt hooks have no model to
    /// judge with here: see [`CommandHooks::fire_judged`].
    pub async fn fire(
        &self,
        config: &Config,
        event: &str,
        subject: Option<&str>,
        input: &Value,
    ) -> HookReport {
        self.fire_judged(config, event, subject, input, None).await
    }

    /// [`CommandHooks::fire`], the prompt hooks judged by `judge` (the model client and the
    /// session's model); without one, a prompt hook that guards a tool call refuses it.
    pub async fn fire_judged(
        &self,
        config: &Config,
        event: &str,
        subject: Option<&str>,
        input: &Value,
        judge: Option<(&ModelClient, &str)>,
    ) -> HookReport {
        self.fire_with(config, event, subject, input, judge, None)
            .await
    }

    /// [`CommandHooks::fire_judged`], the agent hooks verified with `verifier` (its model
    /// judges the prompt hooks too); without one, an agent hook that guards a tool call
    /// refuses it.
    pub(crate) async fn fire_with(
        &self,
        config: &Config,
        event: &str,
        subject: Option<&str>,
        input: &Value,
        judge: Option<(&ModelClient, &str)>,
        verifier: Option<Verifier<'_>>,
    ) -> HookReport {
        let judge = judge.or(verifier.map(|v| (v.client, v.model)));
        let takes = |pattern: &String| crate::hooks::matches(pattern, subject);
        let mut report = HookReport::default();
        let prompts = self.prompts.get(event).into_iter().flatten();
        for (_, hook) in prompts.filter(|(pattern, _)| takes(pattern)) {
            if let Some(output) = hook.judge(event, subject, input, judge).await {
                crate::hooks::absorb(&mut report, &output);
            }
        }
        let agents = self.agents.get(event).into_iter().flatten();
        for (_, hook) in agents.filter(|(pattern, _)| takes(pattern)) {
            if let Some(output) = hook.verify(event, subject, input, verifier).await {
                crate::hooks::absorb(&mut report, &output);
            }
        }
        let https = self.https.get(event).into_iter().flatten();
        for (_, hook) in https.filter(|(pattern, _)| takes(pattern)) {
            let answer = hook
                .post(event, subject, input, &config.env, &self.http_limits)
                .await;
            if let Some(output) = answer {
                crate::hooks::absorb(&mut report, &output);
            }
        }
        for hook in &self.matching(event, subject) {
            let limit = hook.timeout.map_or(DEFAULT_TIMEOUT, Duration::from_secs);
            match run(hook, input, config, limit).await {
                Ran::Answered(stdout) => {
                    if let Ok(output @ Value::Object(_)) = serde_json::from_str(stdout.trim()) {
                        crate::hooks::absorb(&mut report, &output);
                    }
                }
                Ran::Blocked(stderr) => {
                    let why = stderr.trim();
                    report.block.get_or_insert(if why.is_empty() {
                        format!("Blocked by the {event} hook `{}`.", hook.command)
                    } else {
                        why.to_owned()
                    });
                }
                Ran::Failed(why) => {
                    tracing::warn!(event, command = %hook.command, %why, "a hook failed");
                }
            }
        }
        report
    }
}

/// Files `hook` under `event` with its matcher `pattern`.
fn add<H>(hooks: &mut BTreeMap<String, Vec<(String, H)>>, event: &str, pattern: &str, hook: H) {
    hooks
        .entry(event.to_owned())
        .or_default()
        .push((pattern.to_owned(), hook));
}

/// How a hook ended.
enum Ran {
    /// Exit 0, with its stdout.
    Answered(String),
    /// Exit 2, with its stderr.
    Blocked(String),
    /// Anything else.
    Failed(String),
}

async fn run(hook: &CommandHook, input: &Value, config: &Config, limit: Duration) -> Ran {
    let mut command = crate::session_end::shell_command(hook, config);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => return Ran::Failed(format!("did not start: {err}")),
    };
    let group = child.id();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let body = input.to_string();
    let work = async {
        let write = async {
            if let Some(mut stdin) = stdin {
                // A hook that does not read its input is not an error.
                let _ = stdin.write_all(body.as_bytes()).await;
            }
        };
        let (_, out, err, status) =
            tokio::join!(write, bounded(stdout), bounded(stderr), child.wait());
        (out, err, status)
    };
    let ended = tokio::time::timeout(limit, work).await;
    if let Some(group) = group.and_then(|g| i32::try_from(g).ok()) {
        crate::tools::jobs::signal_group(group, crate::tools::jobs::Stop::Kill);
    }
    match ended {
        Err(_) => Ran::Failed(format!("still running after {} s", limit.as_secs())),
        Ok((_, _, Err(err))) => Ran::Failed(err.to_string()),
        Ok((out, err, Ok(status))) => match status.code() {
            Some(0) => Ran::Answered(out),
            Some(2) => Ran::Blocked(err),
            code => Ran::Failed(format!("exit {code:?}: {}", err.trim())),
        },
    }
}

/// What a pipe gives, up to [`MAX_OUTPUT`] bytes (the rest is read and dropped).
async fn bounded<R: tokio::io::AsyncRead + Unpin>(pipe: Option<R>) -> String {
    let Some(pipe) = pipe else {
        return String::new();
    };
    let mut kept = Vec::new();
    let mut pipe = pipe;
    let _ = (&mut pipe).take(MAX_OUTPUT).read_to_end(&mut kept).await;
    let _ = tokio::io::copy(&mut pipe, &mut tokio::io::sink()).await;
    String::from_utf8_lossy(&kept).into_owned()
}
