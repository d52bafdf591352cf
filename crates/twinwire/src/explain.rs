//! "Would this call be allowed here, and why": a session's permission rules gathered from
//! where Claude Code reads them (its settings files, the command line's allowed and
//! disallowed tools, inline settings), each with its source, and a tool call judged the way
//! the CLI orders them: deny rules, then ask rules, then the mode (`bypassPermissions`), then
//! allow rules, then what the mode allows by itself (edits in the working directories with
//! `acceptEdits`, reading them in any mode but `dontAsk`), else ask (deny with `dontAsk`).
//!
//! Whether a rule covers a call is decided by `twinwire-policy`, which reads a Bash command as
//! bash runs it and allows only what it proves: where Claude Code would allow a command whose
//! effect depends on evaluation at run time, this says "ask" and why. `twinwire explain`
//! prints what this answers.
//!
//! ```
//! use twinwire::explain::{ExplainOptions, Permissions, Verdict};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join(".claude"))?;
//! std::fs::write(
//!     dir.path().join(".claude/settings.json"),
//!     r#"{"permissions": {"allow": ["Bash(git log:*)"], "deny": ["Bash(git push:*)"]}}"#,
//! )?;
//! let here = Permissions::resolve(&ExplainOptions::in_dir(dir.path()).only_project_settings());
//! let push = here.explain_command("git push --force origin main");
//! assert_eq!(push.verdict, Verdict::Deny);
//! assert_eq!(push.rule.as_ref().map(|r| r.rule.as_str()), Some("Bash(git push:*)"));
//! assert_eq!(here.explain_command("git log -3").verdict, Verdict::Allow);
//! assert_eq!(here.explain_command("rm -rf build").verdict, Verdict::Ask);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Value};
use twinwire_policy::{Base, Decision, PermissionPolicy, Rule};
use twinwire_protocol::permission::PermissionMode;

use crate::host::options::SettingSource;
use crate::settings::{resolve_settings, ResolveOptions};

/// Tools that only read (Claude Code lets them read the working directories without asking).
const READ_ONLY_TOOLS: &[&str] = &["Read", "Glob", "Grep", "LS", "NotebookRead"];
/// Tools that edit files (`acceptEdits` lets them edit the working directories).
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// What a rule does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum RuleKind {
    /// Allows the call without asking.
    Allow,
    /// Denies it.
    Deny,
    /// Asks first, even where something else would allow it.
    Ask,
}

/// One permission rule and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SourcedRule {
    /// The rule as written (`Bash(git log:*)`).
    pub rule: String,
    /// What it does.
    pub kind: RuleKind,
    /// Where it came from: `cliArg` (`--allowedTools`, `--disallowedTools`), `flagSettings`
    /// (`--settings`), `userSettings`, `projectSettings`, `localSettings`, `policySettings`, as
    /// the CLI names its sources.
    pub source: String,
    /// The settings file, for one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Verdict {
    /// The call runs without asking.
    Allow,
    /// It is refused.
    Deny,
    /// Someone is asked (the host's `can_use_tool`, a person).
    Ask,
}

/// Why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Because {
    /// A rule ([`Explanation::rule`]).
    Rule,
    /// The permission mode, by itself.
    Mode {
        /// The mode.
        mode: String,
    },
    /// Reading inside the working directories, which no mode but `dontAsk` asks about.
    ReadsWorkingDirectory,
    /// No rule allows it: the mode asks (or, with `dontAsk`, denies).
    NotCovered {
        /// Why the rules do not allow it, as `twinwire-policy` reads the call.
        why: String,
    },
}

/// What [`Permissions::explain`] answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Explanation {
    /// Allowed, denied or asked.
    pub verdict: Verdict,
    /// Why.
    pub because: Because,
    /// The rule that decided, with its source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<SourcedRule>,
    /// The mode in force.
    pub mode: String,
}

impl std::fmt::Display for Explanation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let verdict = match self.verdict {
            Verdict::Allow => "allowed",
            Verdict::Deny => "denied",
            Verdict::Ask => "asked",
        };
        match (&self.because, &self.rule) {
            (Because::Rule, Some(rule)) => {
                write!(f, "{verdict} by the rule {} ({}", rule.rule, rule.source)?;
                if let Some(path) = &rule.path {
                    write!(f, ", {path}")?;
                }
                f.write_str(")")
            }
            (Because::Mode { mode }, _) => write!(f, "{verdict} by the permission mode {mode}"),
            (Because::ReadsWorkingDirectory, _) => {
                write!(f, "{verdict}: it reads inside the working directories")
            }
            (Because::NotCovered { why }, _) => {
                write!(f, "{verdict} in mode {}: {why}", self.mode)
            }
            (Because::Rule, None) => f.write_str(verdict),
        }
    }
}

/// Where to look for a session's rules.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ExplainOptions {
    /// The session's working directory (its project and local settings files).
    pub cwd: PathBuf,
    /// The settings files read, as [`ResolveOptions::setting_sources`].
    pub setting_sources: Option<Vec<SettingSource>>,
    /// The user's configuration directory (default: as the CLI finds it).
    pub config_dir: Option<PathBuf>,
    /// `--allowedTools`.
    pub allowed_tools: Vec<String>,
    /// `--disallowedTools`.
    pub disallowed_tools: Vec<String>,
    /// `--permission-mode` (default: the settings' `defaultMode`, else `default`).
    pub mode: Option<PermissionMode>,
    /// `--settings` given inline.
    pub flag_settings: Option<Value>,
    /// Policy settings given by the host.
    pub managed_settings: Option<Value>,
    /// `--add-dir`.
    pub additional_directories: Vec<PathBuf>,
}

impl ExplainOptions {
    /// Every settings file, for a session in `cwd`.
    pub fn in_dir(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            ..Self::default()
        }
    }

    /// Only the project's settings file (and its local one), not the user's.
    pub fn only_project_settings(mut self) -> Self {
        self.setting_sources = Some(vec![SettingSource::Project, SettingSource::Local]);
        self
    }
}

/// A session's permission rules, mode and working directories.
#[derive(Debug, Clone)]
pub struct Permissions {
    /// Every rule read, with its source.
    pub rules: Vec<SourcedRule>,
    /// Rules that could not be read (an unknown tool name, bad syntax) and why; the CLI
    /// ignores or refuses them too.
    pub unreadable: Vec<(SourcedRule, String)>,
    /// The mode in force, and where it was set (`cliArg`, a settings source, `default`).
    pub mode: (PermissionMode, String),
    /// The working directories: the session's and the additional ones.
    pub directories: Vec<PathBuf>,
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    ask: Vec<Rule>,
    base: Base,
}

impl Permissions {
    /// The rules a session with `options` would have: the settings files as
    /// [`resolve_settings`] reads them, then the command line's.
    pub fn resolve(options: &ExplainOptions) -> Self {
        let mut resolve = ResolveOptions::in_dir(&options.cwd);
        resolve.setting_sources = options.setting_sources.clone();
        resolve.config_dir = options.config_dir.clone();
        resolve.managed_settings = options.managed_settings.clone();
        let resolved = resolve_settings(&resolve);
        let mut rules = Vec::new();
        let mut mode = None;
        let mut directories = vec![options.cwd.clone()];
        for source in &resolved.sources {
            let name = match source.origin.source.as_str() {
                "user" => "userSettings",
                "project" => "projectSettings",
                "local" => "localSettings",
                _ => "policySettings",
            };
            let permissions = source.settings.get("permissions");
            collect(permissions, name, source.origin.path.as_deref(), &mut rules);
            if let Some(set) = permissions
                .and_then(|p| p.get("defaultMode"))
                .and_then(Value::as_str)
            {
                // The project's file may not escalate the mode (the CLI's trust filter).
                let escalating = matches!(set, "bypassPermissions" | "auto" | "acceptEdits");
                if !(escalating && name == "projectSettings") {
                    mode = Some((PermissionMode::from(set), name.to_owned()));
                }
            }
            directories.extend(dirs(permissions, &options.cwd));
        }
        if let Some(flag) = &options.flag_settings {
            let permissions = flag.get("permissions");
            collect(permissions, "flagSettings", None, &mut rules);
            directories.extend(dirs(permissions, &options.cwd));
        }
        for (list, kind) in [
            (&options.allowed_tools, RuleKind::Allow),
            (&options.disallowed_tools, RuleKind::Deny),
        ] {
            for rule in list.iter().flat_map(|r| split_rules(r)) {
                rules.push(SourcedRule {
                    rule,
                    kind,
                    source: "cliArg".to_owned(),
                    path: None,
                });
            }
        }
        if let Some(given) = &options.mode {
            mode = Some((given.clone(), "cliArg".to_owned()));
        }
        directories.extend(
            options
                .additional_directories
                .iter()
                .map(|d| options.cwd.join(d)),
        );
        let mode = mode.unwrap_or((PermissionMode::Default, "default".to_owned()));
        Self::from_rules(rules, mode, directories)
    }

    fn from_rules(
        rules: Vec<SourcedRule>,
        mode: (PermissionMode, String),
        directories: Vec<PathBuf>,
    ) -> Self {
        let mut unreadable = Vec::new();
        let (mut allow, mut deny, mut ask) = (Vec::new(), Vec::new(), Vec::new());
        let mut kept = Vec::new();
        for sourced in rules {
            match sourced.rule.parse::<Rule>() {
                Ok(rule) => {
                    match sourced.kind {
                        RuleKind::Allow => allow.push(rule),
                        RuleKind::Deny => deny.push(rule),
                        RuleKind::Ask => ask.push(rule),
                    }
                    kept.push(sourced);
                }
                Err(err) => unreadable.push((sourced, err.to_string())),
            }
        }
        let cwd = directories.first().cloned().unwrap_or_default();
        let home = std::env::var_os("HOME").map(PathBuf::from);
        Self {
            rules: kept,
            unreadable,
            mode,
            directories,
            allow,
            deny,
            ask,
            base: Base::new(cwd, home),
        }
    }

    /// Whether a Bash command line would run here, and why.
    pub fn explain_command(&self, command: &str) -> Explanation {
        self.explain("Bash", &json!({ "command": command }))
    }

    /// Whether a call of `tool` with `input` would run here, and why.
    pub fn explain(&self, tool: &str, input: &Value) -> Explanation {
        let mode = self.mode.0.as_str().to_owned();
        let answer = |verdict, because, rule| Explanation {
            verdict,
            because,
            rule,
            mode: mode.clone(),
        };
        if let Decision::Deny(rule) = self.policy(&[], &self.deny).decide(tool, input) {
            return answer(
                Verdict::Deny,
                Because::Rule,
                self.sourced(&rule, RuleKind::Deny),
            );
        }
        if let Decision::Deny(rule) = self.policy(&[], &self.ask).decide(tool, input) {
            return answer(
                Verdict::Ask,
                Because::Rule,
                self.sourced(&rule, RuleKind::Ask),
            );
        }
        let by_mode = |verdict| answer(verdict, Because::Mode { mode: mode.clone() }, None);
        if self.mode.0 == PermissionMode::BypassPermissions {
            return by_mode(Verdict::Allow);
        }
        let why = match self.policy(&self.allow, &[]).decide(tool, input) {
            Decision::Allow(rule) => {
                return answer(
                    Verdict::Allow,
                    Because::Rule,
                    self.sourced(&rule, RuleKind::Allow),
                )
            }
            Decision::Ask(reason) => reason.to_string(),
            Decision::Deny(_) => String::new(),
        };
        if self.mode.0 == PermissionMode::AcceptEdits
            && EDIT_TOOLS.contains(&tool)
            && self.inside("Edit", tool, input)
        {
            return by_mode(Verdict::Allow);
        }
        if self.mode.0 != PermissionMode::DontAsk
            && READ_ONLY_TOOLS.contains(&tool)
            && self.inside("Read", tool, input)
        {
            return answer(Verdict::Allow, Because::ReadsWorkingDirectory, None);
        }
        let verdict = if self.mode.0 == PermissionMode::DontAsk {
            Verdict::Deny
        } else {
            Verdict::Ask
        };
        answer(verdict, Because::NotCovered { why }, None)
    }

    /// The rule of `kind` written as `rule`, with its source (the first source that has it).
    pub fn sourced(&self, rule: &Rule, kind: RuleKind) -> Option<SourcedRule> {
        self.rules
            .iter()
            .find(|r| r.kind == kind && r.rule.trim() == rule.as_str())
            .cloned()
    }

    fn policy(&self, allow: &[Rule], deny: &[Rule]) -> PermissionPolicy {
        PermissionPolicy::new(allow.to_vec(), deny.to_vec()).with_base(self.base.clone())
    }

    /// Whether the call's paths are all inside the working directories, judged by a `family`
    /// rule (`Read`, `Edit`) for each directory.
    fn inside(&self, family: &str, tool: &str, input: &Value) -> bool {
        let rules: Vec<Rule> = self
            .directories
            .iter()
            .filter_map(|dir| {
                let dir = dir.to_string_lossy();
                let dir = dir.trim_end_matches('/');
                format!("{family}(/{dir}/**)").parse().ok()
            })
            .collect();
        self.policy(&rules, &[]).decide(tool, input).is_allowed()
    }
}

/// The rules of a `permissions` object.
fn collect(
    permissions: Option<&Value>,
    source: &str,
    path: Option<&str>,
    rules: &mut Vec<SourcedRule>,
) {
    let Some(permissions) = permissions else {
        return;
    };
    for (key, kind) in [
        ("allow", RuleKind::Allow),
        ("deny", RuleKind::Deny),
        ("ask", RuleKind::Ask),
    ] {
        let Some(list) = permissions.get(key).and_then(Value::as_array) else {
            continue;
        };
        for rule in list.iter().filter_map(Value::as_str) {
            rules.push(SourcedRule {
                rule: rule.to_owned(),
                kind,
                source: source.to_owned(),
                path: path.map(str::to_owned),
            });
        }
    }
}

/// A `permissions.additionalDirectories` list, relative ones against `cwd`.
fn dirs(permissions: Option<&Value>, cwd: &Path) -> Vec<PathBuf> {
    permissions
        .and_then(|p| p.get("additionalDirectories"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(Value::as_str)
                .map(|d| cwd.join(d))
                .collect()
        })
        .unwrap_or_default()
}

/// `--allowedTools` values as the CLI splits them: on commas and spaces outside parentheses.
pub fn split_rules(value: &str) -> Vec<String> {
    let mut rules = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' | ' ' if depth == 0 => {
                if !current.trim().is_empty() {
                    rules.push(current.trim().to_owned());
                }
                current.clear();
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    if !current.trim().is_empty() {
        rules.push(current.trim().to_owned());
    }
    rules
}

#[cfg(test)]
mod tests;
