//! [`PermissionPolicy`]: the allow and deny rules of a session, and the decision they make
//! for one tool call.

use serde_json::Value;

use crate::paths::{rule_globs, Base, Reading, Unmatchable};
use crate::rule::{is_tool_char, Content, Rule, RuleError, EDIT_TOOLS, READ_TOOLS};
use crate::shell::known::{self, Operands};
use crate::shell::{self, base_name, Analysis, Command, Role, Scan};

pub use crate::decision::{Decision, Reason};

/// The allow and deny rules of a session, decided on what can be proven (deny wins; nothing
/// is allowed because something failed).
///
/// ```
/// use twinwire_policy::{Decision, PermissionPolicy};
/// use serde_json::json;
///
/// let policy = PermissionPolicy::parse(&["Bash"], &["Bash(rm:*)"]).unwrap();
/// let decide = |command: &str| policy.decide("Bash", &json!({ "command": command }));
/// assert!(decide("ls -la").is_allowed());
/// assert!(matches!(decide("timeout 5 rm -rf ~"), Decision::Deny(_)));
/// // The program is computed when it runs: not allowed, whatever it is.
/// assert!(matches!(decide("x=rm; $x -rf ~"), Decision::Ask(_)));
/// ```
#[derive(Debug, Clone)]
pub struct PermissionPolicy {
    allow: Vec<Rule>,
    deny: Vec<Rule>,
    /// A Bash command with any redirection is never allowed by a content rule.
    strict_redirects: bool,
    base: Base,
}

impl Default for PermissionPolicy {
    fn default() -> Self {
        Self::new(Vec::new(), Vec::new())
    }
}

impl PermissionPolicy {
    /// Rules for a session in this process's directory.
    pub fn new(allow: Vec<Rule>, deny: Vec<Rule>) -> Self {
        Self {
            allow,
            deny,
            strict_redirects: false,
            base: Base::current(),
        }
    }

    /// Rules read from text (`Bash(git log:*)`, `Edit(./src/**)`, `mcp__server`, …).
    pub fn parse(allow: &[&str], deny: &[&str]) -> Result<Self, RuleError> {
        let read = |rules: &[&str]| rules.iter().map(|r| r.parse()).collect::<Result<_, _>>();
        Ok(Self::new(read(allow)?, read(deny)?))
    }

    /// The session's directory and home, for relative paths and `~`.
    pub fn with_base(mut self, base: Base) -> Self {
        self.base = base;
        self
    }

    /// A content rule does not allow a Bash command with any redirection, reads included
    /// (`Bash(ls*)` does not allow `ls < x`); for rules nobody is asked to confirm.
    pub fn strict_redirects(mut self) -> Self {
        self.strict_redirects = true;
        self
    }

    /// The session's directory and home the rules read paths from.
    pub fn base(&self) -> &Base {
        &self.base
    }

    /// Adds an allow rule (an "always" answer).
    pub fn allow(&mut self, rule: Rule) {
        if !self.allow.contains(&rule) {
            self.allow.push(rule);
        }
    }

    /// The allow rules.
    pub fn allow_rules(&self) -> &[Rule] {
        &self.allow
    }

    /// The deny rules.
    pub fn deny_rules(&self) -> &[Rule] {
        &self.deny
    }

    /// Decides a call of `tool` with `input`.
    pub fn decide(&self, tool: &str, input: &Value) -> Decision {
        if tool == "Bash" {
            return self.decide_command(input);
        }
        let call = Call::new(tool, input);
        if let Some(rule) = self.deny.iter().find(|r| self.denies(r, &call)) {
            return Decision::Deny(rule.clone());
        }
        if tool.is_empty() || !tool.chars().all(is_tool_char) {
            return Decision::Ask(Reason::BadToolName);
        }
        for path in call.paths() {
            match self.base.match_forms(path) {
                Err(Unmatchable::Loop) => {
                    return Decision::Ask(Reason::Unresolvable((*path).to_owned()));
                }
                Ok(forms) => {
                    if let Some(why) = forms.refused {
                        return Decision::Ask(Reason::UnprovenPath {
                            path: (*path).to_owned(),
                            why,
                        });
                    }
                }
            }
        }
        match self.allow.iter().find(|r| self.allows(r, &call)) {
            Some(rule) => Decision::Allow(rule.clone()),
            None => Decision::Ask(Reason::NotCovered(vec![call.label()])),
        }
    }

    /// The rules that would allow this call, for a message or an "always" answer: a
    /// `Bash(<program>:*)` rule for each command no rule covers and an `Edit` rule for each
    /// file it writes, or the tool's name. Empty when no rule narrower than every call of the
    /// tool fits (a command that cannot be proven).
    pub fn suggest(&self, tool: &str, input: &Value) -> Vec<Rule> {
        if tool != "Bash" {
            return if tool.chars().all(is_tool_char) && !tool.is_empty() {
                vec![Rule::tool(tool)]
            } else {
                Vec::new()
            };
        }
        let Some(command) = input.get("command").and_then(Value::as_str) else {
            return Vec::new();
        };
        let analysis = shell::analyze(command);
        if !analysis.is_proven() {
            return Vec::new();
        }
        let mut rules: Vec<Rule> = Vec::new();
        for command in &analysis.commands {
            if let Some(name) = command.name() {
                let covered = self
                    .allow
                    .iter()
                    .any(|r| r.is_bash_content() && r.matches_command(&command.written()));
                if !covered {
                    push_new(&mut rules, Rule::bash_prefix(name));
                }
            }
            for (file, computed) in &command.written_files {
                if !computed && !self.allows_write(file) {
                    push_new(&mut rules, edit_rule(file));
                }
            }
        }
        rules
    }

    /// Whether the rules allow one program bash executes, given its arguments as it got them
    /// (`argv[0]` first, a path or a name): an allow rule covers it and no deny rule names
    /// it. This judges the program alone, not what it may run in turn (each program it runs
    /// is judged on its own): the check the differential test applies to every `execve`.
    pub fn allows_exec(&self, argv: &[String]) -> bool {
        let Some(first) = argv.first() else {
            return false;
        };
        let words: Vec<&str> = argv.iter().map(String::as_str).collect();
        let written = words.join(" ");
        let program_form = std::iter::once(base_name(first))
            .chain(words[1..].iter().copied())
            .collect::<Vec<_>>()
            .join(" ");
        let denied = self
            .deny
            .iter()
            .any(|r| r.is_bare_bash() || (r.is_bash_content() && r.matches_command(&program_form)));
        let allowed = self.allow.iter().any(|r| {
            r.is_bare_bash()
                || (r.is_bash_content()
                    && (r.matches_command(&written) || r.matches_command(&program_form)))
        });
        allowed && !denied
    }

    fn decide_command(&self, input: &Value) -> Decision {
        let Some(text) = input.get("command").and_then(Value::as_str) else {
            return match self.deny.iter().find(|r| r.is_bare_bash()) {
                Some(rule) => Decision::Deny(rule.clone()),
                None => Decision::Ask(Reason::Empty),
            };
        };
        let scan = shell::scan(text);
        if let Some(rule) = self.denied_command(text, &scan.analysis) {
            return Decision::Deny(rule.clone());
        }
        if let Some(rule) = self.denied_paths(&scan) {
            return Decision::Deny(rule.clone());
        }
        self.allow_command(&scan)
    }

    /// The deny rule a file a known program reads or changes hits: `Read(…)` rules for what
    /// `cat`, `grep`, `cp`'s sources read, `Edit(…)` rules for what `cp`, `mv`, `touch`,
    /// `rm` change (and `mv`'s sources, which it removes).
    fn denied_paths(&self, scan: &Scan) -> Option<&Rule> {
        for (command, info) in scan.analysis.commands.iter().zip(&scan.info) {
            for (file, _) in &info.reads {
                if let Some(rule) = self.denies_read(file) {
                    return Some(rule);
                }
            }
            if info.role != Role::Known {
                continue;
            }
            let Some(name) = command.name().map(base_name) else {
                continue;
            };
            let Some(entry) = known::known(name) else {
                continue;
            };
            let judged = entry.judge(&command.words[1..]);
            let moves = name == "mv";
            for word in &judged.reads {
                if let Some(rule) = self.denies_read(&word.text) {
                    return Some(rule);
                }
            }
            for word in &judged.edits {
                let rule = self.denies_write(&word.text).or_else(|| {
                    (entry.operands == Operands::Copy && !moves)
                        .then(|| self.denies_read(&word.text))
                        .flatten()
                });
                if rule.is_some() {
                    return rule;
                }
            }
        }
        None
    }

    /// The deny rule a command hits: the tool, a program it runs (read every way it could
    /// be: as analysed, after any word of an executor, and split crudely at every operator in
    /// case the parser reads it otherwise than bash), or a file it writes.
    fn denied_command(&self, text: &str, analysis: &Analysis) -> Option<&Rule> {
        if let Some(rule) = self.deny.iter().find(|r| r.is_bare_bash()) {
            return Some(rule);
        }
        let mut forms: Vec<String> = Vec::new();
        for command in &analysis.commands {
            forms.push(command.program_form());
            if shell::programs::executor(command.name().map(base_name).unwrap_or("")).is_some()
                || !analysis.is_proven()
            {
                for start in 1..command.words.len() {
                    forms.push(suffix_form(command, start));
                }
            }
        }
        forms.extend(crude_forms(text));
        let content = self.deny.iter().filter(|r| r.is_bash_content());
        for rule in content {
            if forms.iter().any(|form| rule.matches_command(form)) {
                return Some(rule);
            }
            if analysis.commands.iter().any(|c| options_reach(rule, c)) {
                return Some(rule);
            }
        }
        analysis
            .commands
            .iter()
            .flat_map(|c| &c.written_files)
            .find_map(|(file, _)| self.denies_write(file))
    }

    /// Every program bash runs for the command must be named by an allow rule (builtins that
    /// only print or test need none; a wrapper that only wraps is covered by its own rule or
    /// by its command's); what a named program runs in turn is covered by the rule that names
    /// it. Under a Bash deny rule, a program not known to run nothing else may reach what the
    /// rule denies, so it is asked about. A bare `Bash` allows all but what it cannot read,
    /// and, while a deny rule could apply, only what is proven.
    fn allow_command(&self, scan: &Scan) -> Decision {
        let analysis = &scan.analysis;
        if analysis.unreadable {
            return Decision::Ask(Reason::Unreadable);
        }
        let guarded = self
            .deny
            .iter()
            .any(|r| r.matches_tool("Bash") || r.matches_tool("Edit"));
        let bare = self.allow.iter().find(|r| r.is_bare_bash());
        if let (Some(bare), false) = (bare, guarded) {
            return Decision::Allow(bare.clone());
        }
        if let Some(unproven) = scan.hard.first() {
            return Decision::Ask(Reason::Unproven(unproven.clone()));
        }
        if let Some(near) = self.near_deny(analysis) {
            return Decision::Ask(near);
        }
        if analysis.commands.is_empty() {
            // Nothing runs (`[[ -f x ]]`, a comment): what a bare `Bash` covers, no content
            // rule.
            return match bare {
                Some(bare) => Decision::Allow(bare.clone()),
                None => Decision::Ask(Reason::Empty),
            };
        }
        let reachable = self.deny.iter().find(|r| r.is_bash_content());
        let changes_directory = analysis
            .commands
            .iter()
            .any(|c| matches!(c.name(), Some("cd" | "pushd" | "popd")));
        let denies_edits = self.deny.iter().any(|r| r.matches_tool("Edit"));
        let covering: Vec<Option<&Rule>> = analysis
            .commands
            .iter()
            .map(|c| self.allow_rule_for(c))
            .collect();
        let mut first = None;
        let mut missing = Vec::new();
        for (at, command) in analysis.commands.iter().enumerate() {
            if bare.is_none() && self.strict_redirects && command.redirects {
                missing.push(format!("{} (a redirection)", command.written()));
                continue;
            }
            // A file written through a redirection is an edit of that file: an Edit or Write
            // rule must allow it, where the name and the directory it is relative to are known.
            for (file, computed) in &command.written_files {
                let relative = !file.starts_with('/') && !file.starts_with('~');
                let unknown = *computed || (relative && changes_directory);
                let refused = match bare {
                    Some(_) => unknown && denies_edits,
                    None => unknown || !self.allows_write(file),
                };
                if refused {
                    missing.push(format!("writing {file}"));
                }
            }
            if command.words.is_empty() {
                continue;
            }
            if let Some(rule) = reachable {
                if let Some(why) = self.may_run_others(scan, at) {
                    return Decision::Ask(Reason::MayReach {
                        rule: rule.to_string(),
                        command: command.written(),
                        why,
                    });
                }
            }
            if bare.is_some() || covered_above(scan, &covering, at) {
                continue;
            }
            match covering[at] {
                Some(rule) => {
                    first.get_or_insert_with(|| rule.clone());
                }
                None if harmless_builtin(scan, at) => {}
                None if wraps_covered(scan, &covering, at) => {}
                None => missing.push(command.written()),
            }
        }
        if !missing.is_empty() {
            missing.dedup();
            return Decision::Ask(Reason::NotCovered(missing));
        }
        match bare.cloned().or(first) {
            Some(rule) => Decision::Allow(rule),
            // Only harmless builtins: what any Bash content rule would allow.
            None => match self.allow.iter().find(|r| r.is_bash_content()) {
                Some(rule) => Decision::Allow(rule.clone()),
                None => Decision::Ask(Reason::Empty),
            },
        }
    }

    /// The allow rule that names this command: its words as written, or, for `git`, without
    /// the global options that change neither what runs nor which command it is
    /// (`git -C dir --no-pager log`).
    fn allow_rule_for(&self, command: &Command) -> Option<&Rule> {
        let written = command.written();
        let plain = match command.name().map(base_name) {
            Some("git") => shell::git::plain_form(&command.words[1..]),
            _ => None,
        };
        self.allow.iter().find(|r| {
            r.is_bash_content()
                && (r.matches_command(&written)
                    || plain.as_deref().is_some_and(|p| r.matches_command(p)))
        })
    }

    /// Why the command at `at` may run programs besides itself: an executor, a program no
    /// table knows, a known one with an option that runs something, `git` configured to run
    /// programs. Wrappers are judged by their command, builtins run nothing.
    fn may_run_others(&self, scan: &Scan, at: usize) -> Option<String> {
        let info = &scan.info[at];
        let command = &scan.analysis.commands[at];
        match info.role {
            Role::Builtin | Role::Wrapper => None,
            Role::Executor => Some(info.runs.as_ref().map_or_else(
                || "it runs programs".to_owned(),
                |u| u.construct.to_string(),
            )),
            Role::Unknown => Some(format!(
                "`{}` is not known to run nothing else",
                command.name().map(base_name).unwrap_or("")
            )),
            Role::Known => match command.name().map(base_name) {
                Some("git") => {
                    let dir = git_dir(&self.base.cwd, &command.words[1..]);
                    shell::git::configured_to_run(&dir, self.base.home.as_deref())
                }
                _ => None,
            },
        }
    }
    /// A deny rule about a subcommand (`Bash(git push:*)`) and a command of its program with
    /// options before the first operand (`git -C . push` is caught by [`options_reach`];
    /// `git -c x=y status` is not proven to stay away from `push`).
    fn near_deny(&self, analysis: &Analysis) -> Option<Reason> {
        for rule in self.deny.iter().filter(|r| r.is_bash_content()) {
            let words = rule.command_words();
            if words.len() < 2 {
                continue;
            }
            for command in &analysis.commands {
                if command.name().map(base_name) != Some(words[0]) {
                    continue;
                }
                let option_first = command
                    .words
                    .get(1)
                    .is_some_and(|w| w.text.starts_with('-'));
                if option_first {
                    return Some(Reason::NearDeny {
                        rule: rule.to_string(),
                        command: command.written(),
                    });
                }
            }
        }
        None
    }

    fn denies(&self, rule: &Rule, call: &Call<'_>) -> bool {
        if !rule.matches_tool(call.tool) {
            return false;
        }
        let Some(content) = &rule.content else {
            return true;
        };
        match &call.argument {
            Argument::Paths(paths) => paths
                .iter()
                .any(|path| self.path_matches(content, path, Reading::Deny)),
            Argument::Text(text) => self.text_matches(content, text, Reading::Deny),
            Argument::None => false,
        }
    }

    fn allows(&self, rule: &Rule, call: &Call<'_>) -> bool {
        if !rule.matches_tool(call.tool) {
            return false;
        }
        let Some(content) = &rule.content else {
            return true;
        };
        match &call.argument {
            Argument::Paths(paths) => {
                !paths.is_empty()
                    && paths
                        .iter()
                        .all(|path| self.path_matches(content, path, Reading::Allow))
            }
            Argument::Text(text) => self.text_matches(content, text, Reading::Allow),
            Argument::None => false,
        }
    }

    fn text_matches(&self, content: &Content, text: &str, reading: Reading) -> bool {
        match content {
            Content::Text(glob, _) => glob.is_match(text),
            Content::Domain(domain) => {
                let Some(host) = host_of(text) else {
                    return false;
                };
                host == *domain
                    || (reading == Reading::Deny && host.ends_with(&format!(".{domain}")))
            }
            _ => false,
        }
    }

    /// Whether `path` (as the tool got it) is inside a path rule: for an allow every form it
    /// takes on the way to the file, for a deny any.
    fn path_matches(&self, content: &Content, path: &str, reading: Reading) -> bool {
        let pattern = match content {
            Content::Path(pattern) | Content::Text(_, pattern) => pattern,
            _ => return false,
        };
        let globs = rule_globs(pattern, &self.base, reading);
        let inside = |p: &std::path::Path| globs.iter().any(|glob| glob.is_match(p));
        let Ok(forms) = self.base.match_forms(path) else {
            // Links that never end: a write through them fails; allow nothing, deny.
            return reading == Reading::Deny;
        };
        match reading {
            // Every form, and none that cannot be named.
            Reading::Allow => forms.refused.is_none() && forms.forms.iter().all(|f| inside(f)),
            // As written too: a deny of `/etc/**` covers `/etc/../x` whatever it leads to.
            Reading::Deny => forms
                .forms
                .iter()
                .chain(&forms.written)
                .any(|form| inside(form)),
        }
    }

    /// Whether the allow rules let `Write` write `file`.
    fn allows_write(&self, file: &str) -> bool {
        let call = Call::write(file);
        self.allow.iter().any(|r| self.allows(r, &call))
    }

    /// The deny rule that forbids reading `file`, if any.
    fn denies_read(&self, file: &str) -> Option<&Rule> {
        let call = Call {
            tool: "Read",
            argument: Argument::Paths(vec![file]),
        };
        self.deny
            .iter()
            .find(|r| r.content.is_some() && self.denies(r, &call))
    }

    /// The deny rule that forbids writing `file`, if any.
    fn denies_write(&self, file: &str) -> Option<&Rule> {
        let call = Call::write(file);
        self.deny
            .iter()
            .find(|r| r.content.is_some() && self.denies(r, &call))
    }
}

/// Whether `command` runs a deny rule's program with the rule's other words among its
/// operands after options (`git -C . push` for `Bash(git push:*)`).
fn options_reach(rule: &Rule, command: &Command) -> bool {
    let words = rule.command_words();
    if words.len() < 2 || command.name().map(base_name) != Some(words[0]) {
        return false;
    }
    let operands: Vec<&str> = command.words[1..].iter().map(|w| w.text.as_str()).collect();
    if !operands.first().is_some_and(|w| w.starts_with('-')) {
        return false;
    }
    let mut wanted = words[1..].iter().peekable();
    for operand in operands {
        if wanted.peek().is_some_and(|w| **w == operand) {
            wanted.next();
        }
    }
    wanted.peek().is_none()
}

/// Whether an ancestor of the command at `at` (a wrapper, a shell) is named by an allow
/// rule: what it runs is then its own business.
fn covered_above(scan: &Scan, covering: &[Option<&Rule>], at: usize) -> bool {
    let mut parent = scan.info[at].parent;
    while let Some(up) = parent {
        if covering[up].is_some() {
            return true;
        }
        parent = scan.info[up].parent;
    }
    false
}

/// Whether the command at `at` is a wrapper that only wraps (`timeout 5 ls`) and the command
/// it wraps is covered.
fn wraps_covered(scan: &Scan, covering: &[Option<&Rule>], at: usize) -> bool {
    if scan.info[at].role != Role::Wrapper {
        return false;
    }
    match scan.info.iter().position(|i| i.parent == Some(at)) {
        Some(inner) => {
            covering[inner].is_some()
                || harmless_builtin(scan, inner)
                || wraps_covered(scan, covering, inner)
        }
        None => false,
    }
}

/// Builtins that only print or test, which need no rule (`echo`, `test -f x`, `true`); not
/// under a program that wraps (`timeout 5 echo` runs the program `echo`), only under the
/// builtins that do (`command echo`).
fn harmless_builtin(scan: &Scan, at: usize) -> bool {
    if let Some(parent) = scan.info[at].parent {
        let builtin_wrapper = matches!(
            scan.analysis.commands[parent].name(),
            Some("command" | "builtin")
        );
        if !builtin_wrapper
            || !harmless_builtin(scan, parent) && scan.info[parent].role != Role::Wrapper
        {
            return false;
        }
    }
    const PRINT_OR_TEST: &[&str] = &[
        "echo", "printf", "test", "[", "true", "false", ":", "pwd", "type", "help", "dirs",
        "times", "jobs",
    ];
    scan.info[at].role == Role::Builtin
        && scan.analysis.commands[at]
            .name()
            .is_some_and(|name| PRINT_OR_TEST.contains(&name))
}

/// The directory a git command reads its repository from: the session's, or its `-C`s.
pub(crate) fn git_dir(cwd: &std::path::Path, args: &[shell::Word]) -> std::path::PathBuf {
    let mut dir = cwd.to_path_buf();
    if let Some(line) = shell::git::read(args) {
        for step in line.dirs {
            dir = dir.join(step);
        }
    }
    dir
}

fn push_new(rules: &mut Vec<Rule>, rule: Rule) {
    if !rules.contains(&rule) {
        rules.push(rule);
    }
}

/// The `Edit` rule for one written file, as a glob that matches only that file.
fn edit_rule(file: &str) -> Rule {
    let escaped = globset::escape(file);
    let text = if escaped.starts_with('/') {
        format!("Edit(/{escaped})")
    } else if escaped.starts_with("~/") {
        format!("Edit({escaped})")
    } else {
        format!("Edit(./{escaped})")
    };
    Rule::parse_any_tool(&text).unwrap_or_else(|_| Rule::tool("Edit"))
}

/// A command's words from `start`, the first without its directory.
fn suffix_form(command: &Command, start: usize) -> String {
    let words = &command.words[start..];
    let mut form = vec![base_name(&words[0].text)];
    form.extend(words[1..].iter().map(|w| w.text.as_str()));
    form.join(" ")
}

/// A second, cruder reading of a command for deny rules, in case the parser reads it otherwise
/// than the shell: split at every operator and bracket, quotes, backslashes and `$` dropped.
fn crude_forms(command: &str) -> Vec<String> {
    command
        .split(['\n', ';', '|', '&', '(', ')', '`', '{', '}', '<', '>'])
        .filter_map(|part| {
            let cleaned: String = part
                .chars()
                .filter(|c| !matches!(c, '\\' | '"' | '\'' | '$'))
                .collect();
            let mut words = cleaned.split_whitespace();
            let first = base_name(words.next()?);
            Some(
                std::iter::once(first)
                    .chain(words)
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        })
        .collect()
}

/// The host of a URL, lower-cased.
fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    parsed
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

/// One call of a tool other than Bash, read once for every rule.
struct Call<'a> {
    tool: &'a str,
    argument: Argument<'a>,
}

enum Argument<'a> {
    /// Every path the input holds (a tool may read any of its path fields).
    Paths(Vec<&'a str>),
    Text(&'a str),
    None,
}

impl<'a> Call<'a> {
    fn new(tool: &'a str, input: &'a Value) -> Self {
        let field = |key: &str| input.get(key).and_then(Value::as_str);
        let paths = path_fields(input);
        let argument = if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
            if !paths.is_empty() {
                Argument::Paths(paths)
            } else if matches!(tool, "Glob" | "Grep" | "LS") {
                // A search with no path searches the session's directory.
                Argument::Paths(vec!["."])
            } else {
                Argument::None
            }
        } else if let Some(url) = field("url") {
            Argument::Text(url)
        } else if !paths.is_empty() {
            Argument::Paths(paths)
        } else {
            ["command", "pattern", "query"]
                .iter()
                .find_map(|k| field(k))
                .map_or(Argument::None, Argument::Text)
        };
        Self { tool, argument }
    }

    fn write(file: &'a str) -> Self {
        Self {
            tool: "Write",
            argument: Argument::Paths(vec![file]),
        }
    }

    fn paths(&self) -> &[&'a str] {
        match &self.argument {
            Argument::Paths(paths) => paths,
            _ => &[],
        }
    }

    /// The call in a message: the tool and its main argument.
    fn label(&self) -> String {
        match &self.argument {
            Argument::Paths(paths) => format!("{}({})", self.tool, paths.join(", ")),
            Argument::Text(text) => format!("{}({text})", self.tool),
            Argument::None => self.tool.to_owned(),
        }
    }
}

/// Every path an input holds: the string (or strings of an array) under each key that names
/// a path (`file_path`, `notebook_path`, `path`, `local_path`, `paths`, …) or a directory
/// (`cwd`, `dir`, `directory`), in any case. A tool given two is judged by both.
fn path_fields(input: &Value) -> Vec<&str> {
    let Some(object) = input.as_object() else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    for (key, value) in object {
        let key = key.to_ascii_lowercase();
        if !(key.contains("path") || matches!(key.as_str(), "cwd" | "dir" | "directory")) {
            continue;
        }
        match value {
            Value::String(path) => paths.push(path.as_str()),
            Value::Array(items) => paths.extend(items.iter().filter_map(Value::as_str)),
            _ => {}
        }
    }
    paths
}
