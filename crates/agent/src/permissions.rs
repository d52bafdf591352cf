//! Whether a tool call may run: the session's permission mode, its allow and deny rules
//! (`--allowedTools`, `--disallowedTools`, and rules the host adds while answering) decided by
//! the same [`PermissionPolicy`] the `twinwire` command uses, then the host's `can_use_tool`.
//!
//! The rules come from the command line and from every settings source (`permissions.allow`,
//! `deny`, `ask`: see [`crate::settings`]). The order, first answer wins:
//! 1. a deny rule matches → denied; an ask rule matches → straight to 6 (no allow rule, mode
//!    or bypass lets it run unasked);
//! 2. `bypassPermissions` → allowed;
//! 3. an allow rule covers the call → allowed;
//! 4. a tool that only reads, inside the session's directories (or with no path) →
//!    allowed; a Bash command the policy proves only reads, and only inside the session's
//!    directories from where its shell is (`PermissionPolicy::read_only`: `sort -o`, `rg
//!    --pre`, `env`, `cat /etc/hostname` are not) → allowed;
//! 5. `acceptEdits`: an edit inside the session's directories, or a Bash command of reads and
//!    `mkdir`, `touch`, `cp`, `mv`, `> file` whose every path lies inside them
//!    (`PermissionPolicy::edits_inside`) → allowed;
//! 6. `plan` → denied, but for an edit, which goes to 7 as Claude Code asks about it; `dontAsk` → denied;
//! 7. with `--permission-prompt-tool stdio`: the host's `can_use_tool`, with the rules that
//!    would allow the call as suggestions; its answer (the input it rewrote, the rules it
//!    adds) is applied. Without it → denied: nobody can be asked.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use twinwire::agent::Peer;
use twinwire_policy::{Decision, Directories, PermissionPolicy, Rule};
use twinwire_protocol::control::CanUseToolRequest;
use twinwire_protocol::permission::{
    PermissionBehavior, PermissionMode, PermissionResult, PermissionRuleValue, PermissionUpdate,
    PermissionUpdateDestination,
};

/// The verdict on one call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// It may run, with this input (the host may have rewritten it).
    Allow(Value),
    /// It may not; the model is told why.
    Deny {
        /// Why, for the model and the host.
        message: String,
        /// Whether the host asked to stop the turn too.
        interrupt: bool,
    },
}

/// Who settled a call, as Claude Code reports it beside the call's result
/// (`tool_result_meta`'s `permission_decision`: `source` and `reason_type`), so that a host
/// tells who decided without guessing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecidedBy {
    /// `config`, `user_temporary`, `user_reject`, `hook`.
    pub source: &'static str,
    /// `rule`, `mode`, `hook`; none for the host's own answer.
    pub reason_type: Option<&'static str>,
}

impl DecidedBy {
    /// An allow or deny rule of the settings or the command line.
    pub const RULE: Self = Self::config(Some("rule"));
    /// The permission mode, with no rule (what it allows, plan, dontAsk, bypass).
    pub const MODE: Self = Self::config(Some("mode"));
    /// Nobody could be asked, or the host's answer could not be had.
    pub const UNASKED: Self = Self::config(None);
    /// The host's `can_use_tool` allowed it (once).
    pub const HOST_ALLOWED: Self = Self {
        source: "user_temporary",
        reason_type: None,
    };
    /// The host's `can_use_tool` refused it.
    pub const HOST_REFUSED: Self = Self {
        source: "user_reject",
        reason_type: None,
    };
    /// A `PreToolUse` hook's permission decision.
    pub const HOOK: Self = Self {
        source: "hook",
        reason_type: Some("hook"),
    };

    const fn config(reason_type: Option<&'static str>) -> Self {
        Self {
            source: "config",
            reason_type,
        }
    }
}

/// A call's verdict, the rules the host added while answering, and who decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgment {
    /// Whether it runs, and with what input.
    pub verdict: Verdict,
    /// The rules and mode the host's answer adds.
    pub updates: Vec<PermissionUpdate>,
    /// Who decided.
    pub by: DecidedBy,
}

/// The session's rules.
#[derive(Debug, Clone)]
pub struct Permissions {
    /// The user's rules and those the host added.
    rules: PermissionPolicy,
    /// The ask rules, as the deny rules of a policy of their own: a call a deny rule would
    /// stop is one an ask rule covers (matched as strictly as a deny rule).
    ask: PermissionPolicy,
    /// The directories calls may read in and edit under without asking.
    dirs: Vec<PathBuf>,
    /// Where the Bash tool's shell is, when told ([`Permissions::set_shell_dir`]); the
    /// session's directory until then. Shared by every copy, so that the judgment of the next
    /// call sees where the last one left the shell.
    shell_dir: Arc<Mutex<Option<PathBuf>>>,
    ask_host: bool,
    base: twinwire_policy::Base,
    /// Folders of the agent's own that its reading tools read without asking (the output
    /// of background jobs, saved tool results), as Claude Code reads its own.
    own_dirs: Vec<PathBuf>,
    /// The session's plan file (see [`Permissions::with_plan_file`]).
    plan_file: Option<PathBuf>,
}

/// Rules that cannot be read are refused when the session starts.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RuleError(pub String);

impl Permissions {
    /// The rules of a session in `dirs` (its directory first).
    pub fn new(
        allow: &[String],
        deny: &[String],
        dirs: Vec<PathBuf>,
        ask_host: bool,
    ) -> Result<Self, RuleError> {
        let read = |rules: &[String]| -> Result<Vec<Rule>, RuleError> {
            rules
                .iter()
                .map(|r| Rule::parse_any_tool(r).map_err(|e| RuleError(format!("{r}: {e}"))))
                .collect()
        };
        let base = twinwire_policy::Base::session(dirs.first().map(PathBuf::as_path));
        Ok(Self {
            rules: PermissionPolicy::new(read(allow)?, read(deny)?).with_base(base.clone()),
            ask: PermissionPolicy::new(Vec::new(), Vec::new()).with_base(base.clone()),
            dirs,
            shell_dir: Arc::default(),
            ask_host,
            base,
            own_dirs: Vec::new(),
            plan_file: None,
        })
    }

    /// Adds ask rules: calls they cover are always asked (denied when nobody can be asked).
    pub fn with_ask_rules(mut self, ask: &[String]) -> Result<Self, RuleError> {
        let rules = ask
            .iter()
            .map(|r| Rule::parse_any_tool(r).map_err(|e| RuleError(format!("{r}: {e}"))))
            .collect::<Result<Vec<_>, _>>()?;
        self.ask = PermissionPolicy::new(Vec::new(), rules).with_base(self.base.clone());
        Ok(self)
    }

    /// The rules (allow and deny) as they are now, for the searches' filter.
    pub fn policy(&self) -> PermissionPolicy {
        self.rules.clone()
    }

    /// The session's plan file: in plan mode, the one file edited without asking.
    #[must_use]
    pub fn with_plan_file(mut self, file: PathBuf) -> Self {
        self.plan_file = Some(file);
        self
    }

    /// Lets the reading tools read these folders of the agent's own without asking.
    #[must_use]
    pub fn with_own_dirs(mut self, dirs: Vec<PathBuf>) -> Self {
        self.own_dirs = dirs;
        self
    }

    /// The ask rules, as written.
    pub fn ask_rules(&self) -> Vec<String> {
        self.ask
            .deny_rules()
            .iter()
            .map(|rule| rule.as_str().to_owned())
            .collect()
    }

    /// The directories the session may read in without asking, its own first.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Adds a directory the session may read in (and, in `acceptEdits`, edit under) without
    /// asking: a repository the host registered.
    pub fn add_dir(&mut self, dir: PathBuf) {
        if !self.dirs.contains(&dir) {
            self.dirs.push(dir);
        }
    }

    /// Tells where the Bash tool's shell is now (after a `cd`): relative paths of later
    /// commands are judged from there.
    pub fn set_shell_dir(&self, dir: PathBuf) {
        *self
            .shell_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(dir);
    }

    /// The allowed directories, and the shell's.
    fn directories(&self) -> Directories {
        let shell = self
            .shell_dir
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .or_else(|| self.dirs.first().cloned())
            .unwrap_or_else(|| self.base.cwd.clone());
        Directories::new(self.dirs.clone(), shell)
    }

    /// Whether the Bash `command` is proven to only read (in the session's directories, from
    /// the shell's): what a check that may only look is allowed to run.
    pub fn command_only_reads(&self, command: &str) -> bool {
        self.rules.read_only(command, &self.directories()).is_ok()
    }

    /// Whether reading `path` goes through without asking anybody (the host's own
    /// `read_file`): no deny rule covers it, and a rule or the mode allows it.
    pub fn read_allowed(&self, mode: &PermissionMode, path: &Path) -> bool {
        let input = serde_json::json!({"file_path": path.display().to_string()});
        let decision = self.rules.decide("Read", &input);
        if matches!(decision, Decision::Deny(_)) {
            return false;
        }
        decision.is_allowed()
            || *mode == PermissionMode::BypassPermissions
            || self.mode_allows(mode, "Read", &input, true)
    }

    /// Decides a call, asking the host when the rules leave it open.
    pub async fn decide(
        &self,
        mode: &PermissionMode,
        tool: &str,
        input: &Value,
        read_only: bool,
        tool_use_id: &str,
        peer: &Peer,
    ) -> Judgment {
        let allow = |by: DecidedBy| Judgment {
            verdict: Verdict::Allow(input.clone()),
            updates: Vec::new(),
            by,
        };
        let deny = |message: String, by: DecidedBy| Judgment {
            verdict: Verdict::Deny {
                message,
                interrupt: false,
            },
            updates: Vec::new(),
            by,
        };
        // Relative paths are judged where they will be opened: from the shell's directory.
        let judged = self.judged(input);
        let decision = self.read_from_shell(&self.rules).decide(tool, &judged);
        if let Decision::Deny(rule) = &decision {
            return deny(
                format!(
                    "Permission to use {tool} has been denied by the rule {}.",
                    rule.as_str()
                ),
                DecidedBy::RULE,
            );
        }
        let ask_rule = match self.read_from_shell(&self.ask).decide(tool, &judged) {
            Decision::Deny(rule) => Some(rule.as_str().to_owned()),
            _ => None,
        };
        if ask_rule.is_none() {
            if decision.is_allowed() {
                return allow(DecidedBy::RULE);
            }
            if *mode == PermissionMode::BypassPermissions
                || self.mode_allows(mode, tool, &judged, read_only)
            {
                return allow(DecidedBy::MODE);
            }
        }
        match mode {
            // In plan mode an edit is the host's to allow (Claude Code asks about it there
            // too); anything else that changes something is refused unasked.
            PermissionMode::Plan if !is_edit(tool) => {
                return deny(
                    format!(
                        "{tool} was not run: the session is in plan mode, where nothing that \
                         changes anything runs."
                    ),
                    DecidedBy::MODE,
                )
            }
            PermissionMode::DontAsk => {
                return deny(
                    format!(
                        "Permission to use {tool} was not granted (dontAsk mode: only what the \
                         rules allow runs)."
                    ),
                    DecidedBy::MODE,
                )
            }
            _ => {}
        }
        if !self.ask_host {
            let message = match &ask_rule {
                Some(rule) => format!(
                    "Permission to use {tool} was not granted: the rule {rule} asks for it and \
                     nobody can be asked (start with --permission-prompt-tool stdio)."
                ),
                None => format!(
                    "Permission to use {tool} was not granted: no rule allows it and nobody can \
                     be asked (start with --permission-prompt-tool stdio)."
                ),
            };
            return deny(message, DecidedBy::UNASKED);
        }
        let suggestions: Vec<PermissionRuleValue> = self
            .rules
            .suggest(tool, input)
            .iter()
            .map(|rule| rule_value(rule.as_str()))
            .collect();
        let request = CanUseToolRequest {
            tool_name: tool.to_owned(),
            input: input.clone(),
            permission_suggestions: (!suggestions.is_empty()).then(|| {
                vec![PermissionUpdate::add_rules(
                    suggestions,
                    PermissionBehavior::Allow,
                    PermissionUpdateDestination::Session,
                )]
            }),
            decision_reason: Some(match (&ask_rule, &decision) {
                (Some(rule), _) => format!("the ask rule {rule} covers it"),
                (None, Decision::Ask(reason)) => reason.to_string(),
                _ => "no rule allows it".to_owned(),
            }),
            tool_use_id: Some(tool_use_id.to_owned()),
            ..CanUseToolRequest::default()
        };
        match peer.can_use_tool(request).await {
            Ok(PermissionResult::Allow(allow)) => Judgment {
                verdict: Verdict::Allow(allow.updated_input.unwrap_or_else(|| input.clone())),
                updates: allow.updated_permissions.unwrap_or_default(),
                by: DecidedBy::HOST_ALLOWED,
            },
            Ok(PermissionResult::Deny(no)) => Judgment {
                verdict: Verdict::Deny {
                    message: if no.message.is_empty() {
                        format!("Permission to use {tool} was denied.")
                    } else {
                        no.message
                    },
                    interrupt: no.interrupt.unwrap_or(false),
                },
                updates: Vec::new(),
                by: DecidedBy::HOST_REFUSED,
            },
            // An answer that cannot be read, or none: the tool does not run.
            Ok(other) => deny(
                format!("The host's answer could not be read: {other:?}"),
                DecidedBy::UNASKED,
            ),
            Err(err) => deny(
                format!("The host could not be asked: {err}"),
                DecidedBy::UNASKED,
            ),
        }
    }

    /// The input with a file tool's relative path made absolute from the shell's directory,
    /// where the tool opens it.
    fn judged(&self, input: &Value) -> Value {
        let shell = self.directories().shell;
        let mut input = input.clone();
        for key in ["file_path", "notebook_path", "path"] {
            if let Some(Value::String(path)) = input.get_mut(key) {
                if !path.is_empty() && Path::new(path.as_str()).is_relative() {
                    *path = shell.join(path.as_str()).display().to_string();
                }
            }
        }
        input
    }

    /// The rules to judge a call by: the session's; once the shell has moved from the
    /// session's directory, the same rules read from the shell's directory (where a Bash
    /// command's relative paths lead), their path patterns still anchored where they were
    /// written (`./secret/**` stays the session's `secret`).
    fn read_from_shell(&self, policy: &PermissionPolicy) -> PermissionPolicy {
        let shell = self.directories().shell;
        let root = self.base.cwd.clone();
        if shell == root {
            return policy.clone();
        }
        let anchored = |rules: &[Rule]| -> Vec<Rule> {
            rules
                .iter()
                .flat_map(|rule| anchor(rule.as_str(), &root))
                .filter_map(|text| Rule::parse_any_tool(&text).ok())
                .collect()
        };
        let base =
            twinwire_policy::Base::new(shell, self.base.home.clone()).with_case(self.base.case);
        PermissionPolicy::new(
            anchored(policy.allow_rules()),
            anchored(policy.deny_rules()),
        )
        .with_base(base)
    }

    /// What the mode allows without a rule: reads inside the session's directories (a read-only
    /// tool, or a Bash command proven to only read there), and in `acceptEdits` edits there.
    fn mode_allows(
        &self,
        mode: &PermissionMode,
        tool: &str,
        input: &Value,
        read_only: bool,
    ) -> bool {
        let inside = self.paths_inside(tool, input);
        if read_only && (inside || self.own_file(tool, input)) {
            return true;
        }
        let command = input.get("command").and_then(Value::as_str);
        if let (true, Some(command)) = (tool == "Bash", command) {
            if self.rules.read_only(command, &self.directories()).is_ok() {
                return true;
            }
        }
        if *mode == PermissionMode::Plan && is_edit(tool) {
            let path = input.get("file_path").and_then(Value::as_str);
            return path.is_some_and(|path| self.plan_file.as_deref() == Some(Path::new(path)));
        }
        if *mode == PermissionMode::AcceptEdits {
            let edits_inside = is_edit(tool) && inside;
            let bash_edits = tool == "Bash"
                && command.is_some_and(|c| self.rules.edits_inside(c, &self.directories()).is_ok());
            return edits_inside || bash_edits;
        }
        false
    }

    /// Applies rules the host added (`updatedPermissions` of type `addRules`).
    pub fn apply(&mut self, updates: &[PermissionUpdate]) {
        for update in updates {
            if let PermissionUpdate::AddRules(add) = update {
                for value in &add.rules {
                    let text = match &value.rule_content {
                        Some(content) => format!("{}({content})", value.tool_name),
                        None => value.tool_name.clone(),
                    };
                    match (Rule::parse_any_tool(&text), &add.behavior) {
                        (Ok(rule), PermissionBehavior::Allow) => self.rules.allow(rule),
                        (Ok(rule), PermissionBehavior::Deny) => {
                            let mut deny = self.rules.deny_rules().to_vec();
                            deny.push(rule);
                            let allow = self.rules.allow_rules().to_vec();
                            self.rules =
                                PermissionPolicy::new(allow, deny).with_base(self.base.clone());
                        }
                        (Ok(_), _) => {}
                        (Err(err), _) => tracing::warn!(%text, %err, "a rule from the host"),
                    }
                }
            }
        }
    }

    /// Whether a Read names a file in one of the agent's own folders.
    fn own_file(&self, tool: &str, input: &Value) -> bool {
        let path = input.get("file_path").and_then(Value::as_str);
        tool == "Read"
            && path.is_some_and(|path| {
                Path::new(path).is_absolute()
                    && self
                        .own_dirs
                        .iter()
                        .any(|dir| is_under(Path::new(path), dir))
            })
    }

    /// Whether every path the call names is inside the session's directories (a call with no
    /// path searches its working directory, which is).
    fn paths_inside(&self, tool: &str, input: &Value) -> bool {
        let key = match tool {
            "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
            "NotebookEdit" => "notebook_path",
            "Glob" | "Grep" | "LS" => "path",
            _ => return true,
        };
        match input.get(key).and_then(Value::as_str) {
            None | Some("") => true,
            Some(path) => self.dirs.iter().any(|dir| is_under(Path::new(path), dir)),
        }
    }
}

/// A path rule of a file tool written relative to `root` (`Read(./x/**)`, `Edit(x/y)`,
/// `Read(/x)`, which a deny also reads under the session's directory) in absolute form
/// (`//root/x/**`), so that it means the same whatever directory it is read from; other rules
/// as they are.
fn anchor(rule: &str, root: &Path) -> Vec<String> {
    let Some((tool, rest)) = rule.split_once('(') else {
        return vec![rule.to_owned()];
    };
    let Some(content) = rest.strip_suffix(')') else {
        return vec![rule.to_owned()];
    };
    let path_tool = matches!(
        tool,
        "Read" | "Edit" | "Write" | "MultiEdit" | "NotebookEdit" | "Glob" | "Grep" | "LS"
    );
    if !path_tool || content.starts_with("//") || content.starts_with('~') {
        return vec![rule.to_owned()];
    }
    let root = root.display().to_string();
    let under = |relative: &str| format!("{tool}(/{}/{relative})", root.trim_end_matches('/'));
    if let Some(relative) = content.strip_prefix('/') {
        return vec![rule.to_owned(), under(relative)];
    }
    if !content.contains('/') {
        // A bare name matches in any directory.
        return vec![rule.to_owned()];
    }
    vec![under(content.strip_prefix("./").unwrap_or(content))]
}

/// A rule as the SDKs carry it: tool name and content.
/// The tools that edit files.
fn is_edit(tool: &str) -> bool {
    matches!(tool, "Edit" | "Write" | "MultiEdit" | "NotebookEdit")
}

fn rule_value(rule: &str) -> PermissionRuleValue {
    match rule.split_once('(') {
        Some((tool, rest)) if rest.ends_with(')') => {
            PermissionRuleValue::with_content(tool, &rest[..rest.len() - 1])
        }
        _ => PermissionRuleValue::tool(rule),
    }
}

/// Whether `path` (absolute, or relative to `dir`) is `dir` or beneath it, after `..` and
/// symbolic links (of the part that exists) are resolved.
fn is_under(path: &Path, dir: &Path) -> bool {
    let full = if path.is_absolute() {
        path.to_owned()
    } else {
        dir.join(path)
    };
    let resolved = resolve(&full);
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    resolved.starts_with(dir)
}

/// The path with its longest existing prefix canonicalized and the rest normalized.
fn resolve(path: &Path) -> PathBuf {
    let mut existing = path.to_owned();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_owned());
                existing = parent.to_owned();
            }
            _ => break,
        }
    }
    let mut resolved = std::fs::canonicalize(&existing).unwrap_or(existing);
    for part in rest.iter().rev() {
        if part == ".." {
            resolved.pop();
        } else if part != "." {
            resolved.push(part);
        }
    }
    resolved
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn paths_are_judged_after_links_and_dots() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("in")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("in/out")).unwrap();
        assert!(is_under(&root.join("in/new/file.txt"), &root));
        assert!(is_under(Path::new("in/x"), &root));
        assert!(!is_under(&root.join("in/../../x"), &root));
        assert!(!is_under(&root.join("in/out/passwd"), &root), "a link out");
        assert!(!is_under(Path::new("/etc/passwd"), &root));
    }

    /// The commands Claude Code 2.1.332 asks about or refuses in its default mode, which the
    /// agent used to run without asking: none is allowed by the mode alone.
    #[test]
    fn the_default_mode_does_not_run_what_claude_code_asks_about() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("project")).unwrap();
        std::fs::create_dir_all(root.join("elsewhere")).unwrap();
        std::fs::write(root.join("project/x"), "x").unwrap();
        let permissions = Permissions::new(&[], &[], vec![root.join("project")], false).unwrap();
        let bash = |command: &str| serde_json::json!({ "command": command });
        let default = PermissionMode::Default;
        for command in [
            "env | grep -i anthropic",
            "sort -o ../elsewhere/out x",
            "cat /etc/hostname",
            "rg --pre /bin/touch foo .",
            "cat /proc/self/environ",
            "printenv",
        ] {
            assert!(
                !permissions.mode_allows(&default, "Bash", &bash(command), false),
                "{command}"
            );
        }
        assert!(permissions.mode_allows(&default, "Bash", &bash("cat x | wc -l"), false));
        // After a `cd ..`, relative paths start from the shell's directory.
        permissions.set_shell_dir(root.clone());
        assert!(!permissions.mode_allows(&default, "Bash", &bash("ls"), false));
    }

    /// acceptEdits lets Bash change files only inside the session's directories.
    #[test]
    fn accept_edits_judges_the_paths_of_cp_mv_touch_and_mkdir() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("project/protected")).unwrap();
        std::fs::write(root.join("outside"), "x").unwrap();
        std::fs::write(root.join("project/a"), "x").unwrap();
        let permissions = Permissions::new(
            &[],
            &["Edit(./protected/**)".to_owned()],
            vec![root.join("project")],
            false,
        )
        .unwrap();
        let bash = |command: &str| serde_json::json!({ "command": command });
        let edits = PermissionMode::AcceptEdits;
        for command in ["cp a b", "mv a b", "touch c", "mkdir -p d/e", "echo x > f"] {
            assert!(
                permissions.mode_allows(&edits, "Bash", &bash(command), false),
                "{command}"
            );
        }
        for command in [
            "cp a ../x",
            "mv ../outside .",
            "touch /tmp/x",
            "mkdir ../d",
            "cp a /etc/",
            "echo x > ../f",
            "rm a",
        ] {
            assert!(
                !permissions.mode_allows(&edits, "Bash", &bash(command), false),
                "{command}"
            );
        }
        // A deny rule covering a target holds before any mode.
        assert!(matches!(
            permissions.rules.decide("Bash", &bash("cp a protected/")),
            Decision::Deny(_)
        ));
    }

    /// After the shell moved (`cd sub`), a relative path of a later call is judged where it
    /// will be opened: a Read deny on `./secret/**` holds against `../secret/key`, from Bash
    /// and from Read.
    #[test]
    fn relative_paths_are_judged_from_the_shell() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(root.join("secret")).unwrap();
        std::fs::write(root.join("secret/key"), "k").unwrap();
        let permissions = Permissions::new(
            &[],
            &["Read(./secret/**)".to_owned()],
            vec![root.clone()],
            false,
        )
        .unwrap();
        permissions.set_shell_dir(root.join("sub"));
        let denied = |tool: &str, input: Value| {
            let judged = permissions.judged(&input);
            let rules = permissions.read_from_shell(&permissions.rules);
            matches!(rules.decide(tool, &judged), Decision::Deny(_))
        };
        assert!(denied(
            "Bash",
            serde_json::json!({"command": "cat ../secret/key"})
        ));
        assert!(denied(
            "Read",
            serde_json::json!({"file_path": "../secret/key"})
        ));
        assert!(!denied(
            "Read",
            serde_json::json!({"file_path": "../sub/x"})
        ));
        assert!(denied(
            "Bash",
            serde_json::json!({"command": "cat ../secret/../secret/key"})
        ));
        assert!(!denied(
            "Bash",
            serde_json::json!({"command": "cat secret/key"})
        ));
        let judged = permissions.judged(&serde_json::json!({"file_path": "x"}));
        assert_eq!(
            judged["file_path"],
            root.join("sub/x").display().to_string()
        );
    }

    #[test]
    fn suggestions_carry_the_tool_and_its_content() {
        assert_eq!(
            rule_value("Bash(touch:*)"),
            PermissionRuleValue::with_content("Bash", "touch:*")
        );
        assert_eq!(rule_value("Write"), PermissionRuleValue::tool("Write"));
    }
}
