//! Every permission decision explained: for each tool call, whether it ran and who decided
//! ([`PermissionDecision`]), from what the session shows of it. Claude Code 2.1.330 and newer
//! report each decision with the tool's result (`tool_result_meta`: accepted or rejected, by
//! its configuration, the user or a hook, for a rule, the mode or a hook); the host knows what
//! its own callback and hooks answered, and why the CLI asked (`can_use_tool`'s reason and the
//! ask rule it matched); the session's rules name the rule and its source
//! ([`explain`](crate::explain), with the feature `policy`). Older CLIs report nothing: a call
//! the host was not asked about is told as the session's rules explain it (`reported: false`).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

/// How many decisions a session keeps for [`Client::permission_decisions`](crate::Client::permission_decisions).
pub(crate) const DECISIONS_KEPT: usize = 1024;
/// How many tool calls wait for their decision at once, at most.
const MAX_PENDING: usize = 1024;

/// Whether the call ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Verdict {
    /// It ran.
    Allowed,
    /// It was refused.
    Denied,
}

/// Who decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum DecidedBy {
    /// A permission rule of the session.
    Rule {
        /// The rule, when the session's rules name one.
        rule: Option<String>,
        /// Where it came from (`cliArg`, `userSettings`, `projectSettings`, …).
        source: Option<String>,
        /// The settings file, for one.
        path: Option<String>,
    },
    /// The permission mode by itself.
    Mode {
        /// The mode.
        mode: String,
    },
    /// A `PreToolUse` hook.
    Hook {
        /// The host's callback, when the host's hook decided (else a hook of the settings).
        callback_id: Option<String>,
    },
    /// The host's `can_use_tool` callback (or the person it asked).
    Callback {
        /// Whether the callback failed (an error, a panic, a time-out), which denies.
        failed: bool,
    },
    /// The CLI's own configuration, with no rule or mode named: reading inside the working
    /// directories, tools that need no permission.
    Settings {
        /// The CLI's word for the source (`config`).
        source: String,
        /// The CLI's word for the reason, if any.
        reason_type: Option<String>,
    },
    /// Nothing tells.
    Unknown,
}

/// Why the CLI asked the host about a call (the `can_use_tool` request).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct AskedHost {
    /// The CLI's reason, as text.
    pub reason: Option<String>,
    /// Its kind (`rule`, `mode`, `hook`, `safetyCheck`, `workingDir`, …).
    pub reason_type: Option<String>,
    /// The ask rule that matched, if one did.
    pub matched_rule: Option<String>,
    /// Where that rule came from.
    pub matched_rule_source: Option<String>,
    /// The path outside the working directories that made it ask, if any.
    pub blocked_path: Option<String>,
}

/// One tool call's permission decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PermissionDecision {
    /// The `tool_use` block's id.
    pub tool_use_id: String,
    /// The tool.
    pub tool_name: String,
    /// The agent that called it (`parent_tool_use_id`); `None`: the main thread.
    pub agent: Option<String>,
    /// Whether it ran.
    pub verdict: Verdict,
    /// Who decided.
    pub decided_by: DecidedBy,
    /// Why the CLI asked the host, when it did.
    pub asked: Option<AskedHost>,
    /// The denial's message, for a denied call the host's callback or hook refused.
    pub message: Option<String>,
    /// Whether the CLI reported the decision (`tool_result_meta`); `false`: told from what the
    /// host answered and the session's rules.
    pub reported: bool,
}

/// What the CLI reported of a decision (`tool_result_meta`'s `permission_decision`).
pub(crate) struct Reported<'a> {
    pub decision: &'a str,
    pub source: Option<&'a str>,
    pub reason_type: Option<&'a str>,
}

/// What the host's own side did for a call.
#[derive(Debug, Clone, Default)]
struct HostPart {
    asked: Option<AskedHost>,
    /// The callback's answer: allowed, and the denial's message.
    answered: Option<(bool, Option<String>)>,
    failed: bool,
    /// The host's hook that decided: its callback id, allowed, message.
    hook: Option<(String, bool, Option<String>)>,
}

/// A call waiting for its decision.
#[derive(Debug, Clone)]
struct Pending {
    name: String,
    agent: Option<String>,
    input: Value,
}

/// Told each decision as it is made (the options' `on_permission_decision`).
pub type OnDecision = Arc<dyn Fn(&PermissionDecision) + Send + Sync>;

/// Explains a call from the session's rules (`explain::Permissions` with the feature
/// `policy`): the rule and its source, or the mode.
pub(crate) type Explainer = Arc<dyn Fn(&str, &Value) -> DecidedBy + Send + Sync>;

/// The decisions of one session.
#[derive(Default)]
pub(crate) struct DecisionLog {
    pending: HashMap<String, Pending>,
    host: HashMap<String, HostPart>,
    /// Calls that failed with no reported decision: denied or not is known at the result.
    unsure: Vec<String>,
    done: VecDeque<PermissionDecision>,
    pub(crate) mode: Option<String>,
    explainer: Option<Explainer>,
}

impl DecisionLog {
    pub(crate) fn new(explainer: Option<Explainer>) -> Self {
        Self {
            explainer,
            ..Self::default()
        }
    }

    /// A `tool_use` block.
    pub(crate) fn tool_used(&mut self, id: &str, name: &str, agent: Option<&str>, input: Value) {
        if self.pending.len() < MAX_PENDING {
            self.pending.insert(
                id.to_owned(),
                Pending {
                    name: name.to_owned(),
                    agent: agent.map(str::to_owned),
                    input,
                },
            );
        }
    }

    /// The CLI asked the host about a call.
    pub(crate) fn asked(&mut self, id: &str, asked: AskedHost) {
        if self.host.len() < MAX_PENDING {
            self.host.entry(id.to_owned()).or_default().asked = Some(asked);
        }
    }

    /// The host's callback answered (or failed, which denies).
    pub(crate) fn answered(
        &mut self,
        id: &str,
        allowed: bool,
        message: Option<String>,
        failed: bool,
    ) {
        if self.host.len() < MAX_PENDING || self.host.contains_key(id) {
            let part = self.host.entry(id.to_owned()).or_default();
            part.answered = Some((allowed, message));
            part.failed = failed;
        }
    }

    /// The host's `PreToolUse` hook gave a permission decision.
    pub(crate) fn hooked(
        &mut self,
        id: &str,
        callback_id: &str,
        allowed: bool,
        message: Option<String>,
    ) {
        if self.host.len() < MAX_PENDING || self.host.contains_key(id) {
            self.host.entry(id.to_owned()).or_default().hook =
                Some((callback_id.to_owned(), allowed, message));
        }
    }

    /// A tool's result: the decision is known (reported, or told from the host's part), or,
    /// for a failed call with nothing reported, at the turn's result.
    pub(crate) fn tool_result(
        &mut self,
        id: &str,
        is_error: bool,
        reported: Option<Reported<'_>>,
    ) -> Option<PermissionDecision> {
        let pending = self.pending.remove(id)?;
        let host = self.host.remove(id).unwrap_or_default();
        let decision = match reported {
            Some(reported) => self.told_by_report(id, &pending, &host, &reported),
            None => match self.told_by_host(id, &pending, &host) {
                Some(decision) => decision,
                None if is_error => {
                    self.pending.insert(id.to_owned(), pending);
                    self.unsure.push(id.to_owned());
                    return None;
                }
                None => self.told_by_rules(id, &pending, Verdict::Allowed),
            },
        };
        Some(self.keep(decision))
    }

    /// The turn's result: calls that failed with nothing reported are denied when the result
    /// lists them among its denials, else they ran (and failed).
    pub(crate) fn result(&mut self, denied: &[String]) -> Vec<PermissionDecision> {
        let unsure = std::mem::take(&mut self.unsure);
        let mut out = Vec::new();
        for id in unsure {
            let Some(pending) = self.pending.remove(&id) else {
                continue;
            };
            let verdict = if denied.contains(&id) {
                Verdict::Denied
            } else {
                Verdict::Allowed
            };
            let decision = self.told_by_rules(&id, &pending, verdict);
            out.push(self.keep(decision));
        }
        // Calls never answered (an interrupted turn) are forgotten with it.
        if self.pending.len() >= MAX_PENDING {
            self.pending.clear();
            self.host.clear();
        }
        out
    }

    /// The decisions kept, oldest first.
    pub(crate) fn decisions(&self) -> Vec<PermissionDecision> {
        self.done.iter().cloned().collect()
    }

    fn keep(&mut self, decision: PermissionDecision) -> PermissionDecision {
        if self.done.len() >= DECISIONS_KEPT {
            self.done.pop_front();
        }
        self.done.push_back(decision.clone());
        decision
    }

    fn base(
        &self,
        id: &str,
        pending: &Pending,
        verdict: Verdict,
        by: DecidedBy,
    ) -> PermissionDecision {
        PermissionDecision {
            tool_use_id: id.to_owned(),
            tool_name: pending.name.clone(),
            agent: pending.agent.clone(),
            verdict,
            decided_by: by,
            asked: None,
            message: None,
            reported: false,
        }
    }

    fn told_by_report(
        &self,
        id: &str,
        pending: &Pending,
        host: &HostPart,
        reported: &Reported<'_>,
    ) -> PermissionDecision {
        let verdict = if reported.decision == "accept" {
            Verdict::Allowed
        } else {
            Verdict::Denied
        };
        let source = reported.source.unwrap_or_default();
        let by = match (source, reported.reason_type) {
            ("hook", _) | (_, Some("hook")) => DecidedBy::Hook {
                callback_id: host.hook.as_ref().map(|(callback, ..)| callback.clone()),
            },
            (user, _) if user.starts_with("user") => DecidedBy::Callback {
                failed: host.failed,
            },
            (_, Some("rule" | "subcommandResults")) => match self.explained(pending) {
                rule @ DecidedBy::Rule { .. } => rule,
                _ => DecidedBy::Rule {
                    rule: None,
                    source: None,
                    path: None,
                },
            },
            (_, Some("mode")) => DecidedBy::Mode {
                mode: self.mode.clone().unwrap_or_else(|| "default".to_owned()),
            },
            (source, reason_type) => match self.explained(pending) {
                rule @ DecidedBy::Rule { .. } => rule,
                _ => DecidedBy::Settings {
                    source: source.to_owned(),
                    reason_type: reason_type.map(str::to_owned),
                },
            },
        };
        let mut decision = self.base(id, pending, verdict, by);
        decision.asked = host.asked.clone();
        decision.message = denial_message(host);
        decision.reported = true;
        decision
    }

    /// The host's own part, when it decided: its hook, else its callback.
    fn told_by_host(
        &self,
        id: &str,
        pending: &Pending,
        host: &HostPart,
    ) -> Option<PermissionDecision> {
        let (by, allowed) = match (&host.hook, &host.answered) {
            (Some((callback, allowed, _)), _) if !*allowed => (
                DecidedBy::Hook {
                    callback_id: Some(callback.clone()),
                },
                false,
            ),
            (_, Some((allowed, _))) => (
                DecidedBy::Callback {
                    failed: host.failed,
                },
                *allowed,
            ),
            (Some((callback, allowed, _)), None) => (
                DecidedBy::Hook {
                    callback_id: Some(callback.clone()),
                },
                *allowed,
            ),
            (None, None) => return None,
        };
        let verdict = if allowed {
            Verdict::Allowed
        } else {
            Verdict::Denied
        };
        let mut decision = self.base(id, pending, verdict, by);
        decision.asked = host.asked.clone();
        decision.message = denial_message(host);
        Some(decision)
    }

    fn told_by_rules(&self, id: &str, pending: &Pending, verdict: Verdict) -> PermissionDecision {
        self.base(id, pending, verdict, self.explained(pending))
    }

    fn explained(&self, pending: &Pending) -> DecidedBy {
        match &self.explainer {
            Some(explain) => explain(&pending.name, &pending.input),
            None => DecidedBy::Unknown,
        }
    }
}

fn denial_message(host: &HostPart) -> Option<String> {
    match (&host.hook, &host.answered) {
        (Some((_, false, message)), _) => message.clone(),
        (_, Some((false, message))) => message.clone(),
        _ => None,
    }
}

impl std::fmt::Display for PermissionDecision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = match self.verdict {
            Verdict::Allowed => "allowed",
            Verdict::Denied => "denied",
        };
        write!(f, "{} ({}) {verdict} by ", self.tool_name, self.tool_use_id)?;
        match &self.decided_by {
            DecidedBy::Rule { rule, source, .. } => match (rule, source) {
                (Some(rule), Some(source)) => write!(f, "the rule {rule} ({source})"),
                (Some(rule), None) => write!(f, "the rule {rule}"),
                _ => f.write_str("a rule"),
            },
            DecidedBy::Mode { mode } => write!(f, "the permission mode {mode}"),
            DecidedBy::Hook {
                callback_id: Some(id),
            } => write!(f, "the host's hook {id}"),
            DecidedBy::Hook { callback_id: None } => f.write_str("a hook of the settings"),
            DecidedBy::Callback { failed: true } => {
                f.write_str("the host's callback, which failed")
            }
            DecidedBy::Callback { failed: false } => f.write_str("the host's callback"),
            DecidedBy::Settings {
                source,
                reason_type,
            } => match reason_type {
                Some(reason) => write!(f, "the CLI's settings ({source}, {reason})"),
                None => write!(f, "the CLI's settings ({source})"),
            },
            DecidedBy::Unknown => f.write_str("nothing that tells"),
        }
    }
}

#[cfg(test)]
mod tests;
