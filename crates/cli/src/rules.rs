//! Permission rules and the decision they make for one tool call: `ccwire run`'s `--allow` /
//! `--deny`, and the policy file of `ccwire tap`.
//!
//! The syntax is Claude Code's own, so rules from settings files can be reused:
//!
//! | Rule | Matches |
//! |---|---|
//! | `Write`, `WebSearch` | every call of that tool (exactly that name) |
//! | `mcp__server`, `mcp__server__*` | every tool of one MCP server |
//! | `mcp__*`, `*` | a glob over tool names (`*` any run of characters, `?` one) |
//! | `Bash(npm run test:*)` | a command that is `npm run test` or starts with it and a space |
//! | `Bash(git log*)` | a glob over the command (`*` matches anything, `/` included) |
//! | `Read(./src/**)`, `Edit(src/*.rs)` | a path relative to the session's directory |
//! | `Read(~/notes/*)`, `Edit(//etc/hosts)` | a path under `HOME`; an absolute path |
//! | `Write(/tmp/*)` | an absolute path (see below) |
//! | `Read(*.env)` | a file name in any directory (no `/` in the pattern) |
//! | `WebFetch(domain:example.com)` | a fetch of that host |
//!
//! Path patterns are globs with `*` inside one directory and `**` across them (`globset`).
//! `Edit(…)` covers every tool that edits files (Edit, Write, MultiEdit, NotebookEdit) and
//! `Read(…)` every tool that reads them (Read, NotebookRead, Glob, Grep, LS), as in Claude Code.
//!
//! How the decision is made (deny wins over allow; nothing allows because something failed):
//! - **Paths** are made absolute from the session's directory, `..` is taken out, and the
//!   symbolic links of the part that exists are followed: an allow needs both the written
//!   path (normalized) and the real one to match; a deny needs either.
//! - **Bash commands** are parsed by a real shell parser ([`shell`]); every simple command
//!   anywhere in it (lists, pipelines, subshells, groups, substitutions, here-documents,
//!   `bash -c` strings) must be allowed, as written. Deny rules also see each command with its
//!   assignments, quotes, backslashes, directory and wrappers (`sudo`, `env`, `command`,
//!   `timeout`, `xargs`, …) taken off. A command that writes a file through a redirection is
//!   not allowed by a content rule. A command the parser cannot read, or whose command word
//!   is computed while deny rules exist, is never allowed: it is asked about (or denied when
//!   nobody can be asked).
//! - **Tool names** match exactly; a name with characters no tool has (spaces, control
//!   characters) is never allowed.
//!
//! Where ccwire differs from Claude Code: `Write(/tmp/*)` (one leading slash) is absolute
//! here, while Claude Code reads it relative to the settings file's directory; a deny rule of
//! that form matches both readings, so reusing one can only deny more.

pub mod paths;
pub mod shell;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;

pub use paths::Base;

/// Tools a `Read(…)` rule covers, and the input field holding their path.
const READ_TOOLS: &[&str] = &["Read", "NotebookRead", "Glob", "Grep", "LS"];
/// Tools an `Edit(…)` rule covers.
const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];
/// Input fields that hold a path, for any tool.
const PATH_KEYS: &[&str] = &["file_path", "notebook_path", "path"];

/// One `--allow` or `--deny` rule.
#[derive(Debug, Clone)]
pub struct Pattern {
    /// As written.
    text: String,
    tool: ToolMatch,
    /// What the parentheses hold; `None` matches every call of the tool.
    content: Option<Content>,
}

impl PartialEq for Pattern {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Pattern {}

#[derive(Debug, Clone)]
enum ToolMatch {
    /// One tool (`Read` and `Edit` stand for their families).
    Exact(String),
    /// `mcp__server`: the server's tools.
    McpServer(String),
    /// A glob over tool names.
    Glob(GlobMatcher),
}

#[derive(Debug, Clone)]
enum Content {
    /// `prefix:*`: the command is `prefix`, or starts with `prefix` and a space.
    Word(String),
    /// A glob over a command, a URL or any other text (`*` matches anything), and the glob
    /// as written (matched as a path glob when the argument is a path).
    Text(GlobMatcher, String),
    /// A path glob, as written; made absolute per decision.
    Path(String),
    /// `domain:host`.
    Domain(String),
}

/// Why a rule could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternError(String);

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PatternError {}

impl FromStr for Pattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        let (tool, inner) = match text.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(PatternError(format!(
                        "`{text}`: a rule with `(` must end with `)`, e.g. `Bash(git log:*)`"
                    )));
                };
                if inner.is_empty() {
                    return Err(PatternError(format!(
                        "`{text}`: empty parentheses; write `{tool}` to match every call"
                    )));
                }
                (tool.trim(), Some(inner))
            }
            None => (text, None),
        };
        if tool.is_empty() {
            return Err(PatternError(format!("`{text}`: no tool name")));
        }
        if !tool
            .chars()
            .all(|c| is_tool_char(c) || c == '*' || c == '?')
        {
            return Err(PatternError(format!(
                "`{text}`: a tool name holds letters, digits, `_`, `-`, `.` and `:` (and `*`, `?` \
                 as wildcards)"
            )));
        }
        let bad = |e: globset::Error| PatternError(format!("`{text}`: {e}"));
        let tool_match = if tool.contains(['*', '?']) {
            ToolMatch::Glob(text_glob(tool).map_err(bad)?)
        } else if tool.starts_with("mcp__") && !tool["mcp__".len()..].contains("__") {
            ToolMatch::McpServer(tool.to_owned())
        } else {
            ToolMatch::Exact(tool.to_owned())
        };
        let content = match inner {
            None => None,
            Some(inner) => Some(if tool == "Bash" {
                match inner.strip_suffix(":*") {
                    Some(word) => Content::Word(word.to_owned()),
                    None => Content::Text(text_glob(inner).map_err(bad)?, inner.to_owned()),
                }
            } else if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
                path_glob(inner).map_err(bad)?;
                Content::Path(inner.to_owned())
            } else if let Some(domain) = inner.strip_prefix("domain:") {
                Content::Domain(domain.to_ascii_lowercase())
            } else {
                path_glob(inner).map_err(bad)?;
                Content::Text(text_glob(inner).map_err(bad)?, inner.to_owned())
            }),
        };
        Ok(Self {
            text: text.to_owned(),
            tool: tool_match,
            content,
        })
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// A glob where only `*` and `?` are special (commands hold `[`, `{` and `\` as text).
fn text_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    let mut escaped = String::new();
    for c in pattern.chars() {
        match c {
            '*' | '?' => escaped.push(c),
            other => escaped.push_str(&globset::escape(&other.to_string())),
        }
    }
    Ok(GlobBuilder::new(&escaped)
        .literal_separator(false)
        .build()?
        .compile_matcher())
}

/// A path glob: `*` within one directory, `**` across them.
fn path_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}

/// Characters of real tool names (`mcp__my-server__do.it`).
fn is_tool_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

impl Pattern {
    /// A rule for every call of one tool.
    pub fn tool(name: &str) -> Self {
        Self {
            text: name.to_owned(),
            tool: ToolMatch::Exact(name.to_owned()),
            content: None,
        }
    }

    /// A rule for Bash commands that are `word` or start with `word` and a space.
    pub fn bash_word(word: &str) -> Self {
        Self {
            text: format!("Bash({word}:*)"),
            tool: ToolMatch::Exact("Bash".to_owned()),
            content: Some(Content::Word(word.to_owned())),
        }
    }

    /// Whether the rule names the tool, whatever the input.
    fn matches_tool(&self, tool: &str) -> bool {
        match &self.tool {
            ToolMatch::Exact(name) if name == "Read" && self.content.is_some() => {
                READ_TOOLS.contains(&tool)
            }
            ToolMatch::Exact(name) if name == "Edit" => EDIT_TOOLS.contains(&tool),
            ToolMatch::Exact(name) => name == tool,
            ToolMatch::McpServer(server) => {
                tool == server
                    || tool
                        .strip_prefix(server.as_str())
                        .is_some_and(|rest| rest.starts_with("__"))
            }
            ToolMatch::Glob(glob) => glob.is_match(tool),
        }
    }

    /// Whether the rule is about Bash commands' content.
    fn is_bash_content(&self) -> bool {
        matches!(&self.tool, ToolMatch::Exact(name) if name == "Bash") && self.content.is_some()
    }

    /// Whether a command matches `Word` or `Text` content.
    fn matches_command(&self, command: &str) -> bool {
        match &self.content {
            Some(Content::Word(word)) => {
                command == word
                    || command
                        .strip_prefix(word.as_str())
                        .is_some_and(|rest| rest.starts_with(char::is_whitespace))
            }
            Some(Content::Text(glob, _)) => glob.is_match(command),
            _ => false,
        }
    }
}

/// What the rules decide for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// An allow rule matched (the first one that did).
    Allow(Pattern),
    /// A deny rule matched.
    Deny(Pattern),
    /// No rule decides: ask, or deny when nobody can be asked.
    Unmatched,
}

/// The allow and deny rules of a session.
#[derive(Debug, Clone)]
pub struct Rules {
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
    /// A Bash command with any redirection is never allowed by a content rule.
    strict_redirects: bool,
    base: Base,
}

impl Default for Rules {
    fn default() -> Self {
        Self::new(Vec::new(), Vec::new())
    }
}

impl Rules {
    /// Rules from `--allow` and `--deny`, for a session in this process's directory.
    pub fn new(allow: Vec<Pattern>, deny: Vec<Pattern>) -> Self {
        Self {
            allow,
            deny,
            strict_redirects: false,
            base: Base::current(),
        }
    }

    /// The session's directory and home, for relative paths and `~`.
    pub fn with_base(mut self, base: Base) -> Self {
        self.base = base;
        self
    }

    /// A content rule does not allow a Bash command with any redirection, reads included
    /// (`Bash(ls*)` does not allow `ls < x`); for rules nobody is asked to confirm, like a
    /// tap's policy.
    pub fn strict_redirects(mut self) -> Self {
        self.strict_redirects = true;
        self
    }

    /// Adds an allow rule (an "always" answer).
    pub fn allow(&mut self, pattern: Pattern) {
        if !self.allow.contains(&pattern) {
            self.allow.push(pattern);
        }
    }

    /// Decides a call of `tool` with `input`. Deny wins over allow.
    pub fn decide(&self, tool: &str, input: &Value) -> Decision {
        let call = Call::new(tool, input);
        if let Some(pattern) = self.deny.iter().find(|p| self.denies(p, &call)) {
            return Decision::Deny(pattern.clone());
        }
        let redirected = call
            .shell
            .iter()
            .flat_map(|a| &a.commands)
            .flat_map(|c| &c.written_files);
        for (file, _) in redirected {
            if let Some(pattern) = self.denies_write(file) {
                return Decision::Deny(pattern.clone());
            }
        }
        if tool.is_empty() || !tool.chars().all(is_tool_char) {
            return Decision::Unmatched;
        }
        if let Some(analysis) = &call.shell {
            return self.allow_command(tool, analysis);
        }
        self.allow
            .iter()
            .find(|p| self.allows(p, &call))
            .map_or(Decision::Unmatched, |p| Decision::Allow(p.clone()))
    }

    fn denies(&self, pattern: &Pattern, call: &Call<'_>) -> bool {
        if !pattern.matches_tool(call.tool) {
            return false;
        }
        match (&pattern.content, &call.argument) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(Content::Word(_) | Content::Text(..)), Some(_)) if call.shell.is_some() => call
                .deny_forms
                .iter()
                .any(|form| pattern.matches_command(form)),
            (Some(content), Some(argument)) => {
                self.matches_content(content, argument, Reading::Deny)
            }
        }
    }

    fn allows(&self, pattern: &Pattern, call: &Call<'_>) -> bool {
        if !pattern.matches_tool(call.tool) {
            return false;
        }
        match (&pattern.content, &call.argument) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(content), Some(argument)) => {
                self.matches_content(content, argument, Reading::Allow)
            }
        }
    }

    fn matches_content(
        &self,
        content: &Content,
        argument: &Argument<'_>,
        reading: Reading,
    ) -> bool {
        match (content, argument) {
            (Content::Path(pattern) | Content::Text(_, pattern), Argument::Path(path)) => {
                self.path_matches(pattern, path, reading)
            }
            (Content::Text(glob, _), Argument::Text(text)) => glob.is_match(text),
            (Content::Domain(domain), Argument::Text(url)) => {
                let Some(host) = host_of(url) else {
                    return false;
                };
                host == *domain
                    || (reading == Reading::Deny && host.ends_with(&format!(".{domain}")))
            }
            _ => false,
        }
    }

    /// Whether `path` (as the tool got it) is inside `pattern`: for an allow both its
    /// normalized and its real form must be, for a deny either.
    fn path_matches(&self, pattern: &str, path: &str, reading: Reading) -> bool {
        let globs = path_globs(pattern, &self.base, reading);
        let absolute = self.base.absolute(path);
        let written = paths::lexical(&absolute);
        let real = paths::resolved(&absolute);
        let inside = |p: &Path| globs.iter().any(|glob| glob.is_match(p));
        match reading {
            Reading::Allow => inside(&written) && inside(&real),
            Reading::Deny => inside(&written) || inside(&real) || inside(&absolute),
        }
    }

    /// Whether the allow rules let `Write` write `file`.
    fn allows_write(&self, file: &str) -> bool {
        let call = Call {
            tool: "Write",
            argument: Some(Argument::Path(file)),
            shell: None,
            deny_forms: Vec::new(),
        };
        self.allow.iter().any(|p| self.allows(p, &call))
    }

    /// The deny rule that forbids writing `file`, if any.
    fn denies_write(&self, file: &str) -> Option<&Pattern> {
        let call = Call {
            tool: "Write",
            argument: Some(Argument::Path(file)),
            shell: None,
            deny_forms: Vec::new(),
        };
        self.deny
            .iter()
            .find(|p| p.content.is_some() && self.denies(p, &call))
    }

    /// Every simple command must be allowed; a bare `Bash` allows all but what it cannot read
    /// (and, when deny rules exist, commands whose name is computed).
    fn allow_command(&self, tool: &str, analysis: &shell::Analysis) -> Decision {
        if analysis.unreadable || analysis.commands.is_empty() {
            return Decision::Unmatched;
        }
        if let Some(bare) = self
            .allow
            .iter()
            .find(|p| p.content.is_none() && p.matches_tool(tool))
        {
            let guarded = self.deny.iter().any(|p| p.is_bash_content());
            if guarded && analysis.commands.iter().any(|c| c.dynamic_name) {
                return Decision::Unmatched;
            }
            return Decision::Allow(bare.clone());
        }
        let mut first = None;
        let changes_directory = analysis.commands.iter().any(|c| {
            matches!(
                c.words.first().map(String::as_str),
                Some("cd" | "pushd" | "popd")
            )
        });
        for command in &analysis.commands {
            if self.strict_redirects && command.redirects {
                return Decision::Unmatched;
            }
            // A file written through a redirection is an edit of that file: an Edit or Write
            // rule must allow it, where the name and the directory it is relative to are known.
            for (file, computed) in &command.written_files {
                let relative = !file.starts_with('/') && !file.starts_with('~');
                if *computed || (relative && changes_directory) || !self.allows_write(file) {
                    return Decision::Unmatched;
                }
            }
            let written = command.written();
            match self
                .allow
                .iter()
                .find(|p| p.is_bash_content() && p.matches_command(&written))
            {
                Some(pattern) => {
                    first.get_or_insert_with(|| pattern.clone());
                }
                None => return Decision::Unmatched,
            }
        }
        first.map_or(Decision::Unmatched, Decision::Allow)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    Allow,
    Deny,
}

/// A path rule as globs over absolute paths: as written, and with its existing literal part's
/// symbolic links followed. A deny of `/x` also matches `x` under the session's directory
/// (Claude Code's reading).
fn path_globs(pattern: &str, base: &Base, reading: Reading) -> Vec<GlobMatcher> {
    let mut texts: Vec<String> = Vec::new();
    if let Some(absolute) = pattern.strip_prefix("//") {
        texts.push(format!("/{absolute}"));
    } else if pattern == "~" || pattern.starts_with("~/") {
        texts.push(base.absolute(pattern).display().to_string());
    } else if let Some(rest) = pattern.strip_prefix('/') {
        texts.push(pattern.to_owned());
        if reading == Reading::Deny {
            texts.push(base.cwd.join(rest).display().to_string());
        }
    } else if !pattern.contains('/') {
        // A bare name matches in any directory (gitignore's rule); an allow only below the
        // session's directory.
        match reading {
            Reading::Deny => texts.push(format!("**/{pattern}")),
            Reading::Allow => texts.push(base.cwd.join("**").join(pattern).display().to_string()),
        }
    } else {
        let relative = pattern.strip_prefix("./").unwrap_or(pattern);
        texts.push(base.cwd.join(relative).display().to_string());
    }
    let mut globs = Vec::new();
    for text in texts {
        let lexical = paths::lexical(Path::new(&text)).display().to_string();
        let lexical = if text.ends_with('/') && !lexical.ends_with('/') {
            format!("{lexical}/")
        } else {
            lexical
        };
        let prefix = paths::literal_prefix(&lexical);
        let real_prefix = paths::resolved(Path::new(prefix)).display().to_string();
        for form in [
            lexical.clone(),
            format!("{real_prefix}{}", &lexical[prefix.len()..]),
        ] {
            // `dir/**` stands for the directory itself too (a search rooted there).
            let itself = form.strip_suffix("/**").map(str::to_owned);
            for form in std::iter::once(form).chain(itself) {
                if let Ok(glob) = path_glob(&form) {
                    globs.push(glob);
                }
            }
        }
    }
    globs
}

/// The host of a URL, lower-cased.
fn host_of(url: &str) -> Option<String> {
    let parsed = url::Url::parse(url).ok()?;
    parsed
        .host_str()
        .map(|h| h.trim_end_matches('.').to_ascii_lowercase())
}

/// One call, read once for every rule.
struct Call<'a> {
    tool: &'a str,
    argument: Option<Argument<'a>>,
    /// The parsed command of a Bash call.
    shell: Option<shell::Analysis>,
    /// The forms deny rules match, for a Bash call.
    deny_forms: Vec<String>,
}

enum Argument<'a> {
    Path(&'a str),
    Text(&'a str),
}

impl<'a> Call<'a> {
    fn new(tool: &'a str, input: &'a Value) -> Self {
        let field = |key: &str| input.get(key).and_then(Value::as_str);
        if tool == "Bash" {
            let Some(command) = field("command") else {
                return Self {
                    tool,
                    argument: None,
                    shell: None,
                    deny_forms: Vec::new(),
                };
            };
            let analysis = shell::analyze(command);
            let mut deny_forms: Vec<String> = analysis
                .commands
                .iter()
                .flat_map(shell::SimpleCmd::deny_forms)
                .collect();
            deny_forms.extend(crude_forms(command));
            return Self {
                tool,
                argument: Some(Argument::Text(command)),
                shell: Some(analysis),
                deny_forms,
            };
        }
        let argument = if READ_TOOLS.contains(&tool) || EDIT_TOOLS.contains(&tool) {
            PATH_KEYS
                .iter()
                .find_map(|k| field(k))
                .map(Argument::Path)
                .or(
                    // Glob and Grep search the session's directory when given no path.
                    matches!(tool, "Glob" | "Grep").then_some(Argument::Path(".")),
                )
        } else if let Some(url) = field("url") {
            Some(Argument::Text(url))
        } else if let Some(path) = PATH_KEYS.iter().find_map(|k| field(k)) {
            Some(Argument::Path(path))
        } else {
            ["command", "pattern", "query"]
                .iter()
                .find_map(|k| field(k))
                .map(Argument::Text)
        };
        Self {
            tool,
            argument,
            shell: None,
            deny_forms: Vec::new(),
        }
    }
}

/// A second, cruder reading of a command for deny rules, in case the parser reads it otherwise
/// than the shell: split at every operator, bracket and quote, backslashes dropped.
fn crude_forms(command: &str) -> Vec<String> {
    command
        .split(['\n', ';', '|', '&', '(', ')', '`', '{', '}', '<', '>'])
        .flat_map(|part| {
            let cleaned: String = part
                .chars()
                .filter(|c| !matches!(c, '\\' | '"' | '\'' | '$'))
                .collect();
            let words: Vec<String> = cleaned.split_whitespace().map(str::to_owned).collect();
            let command = shell::SimpleCmd {
                words,
                ..shell::SimpleCmd::default()
            };
            command.deny_forms()
        })
        .collect()
}

/// The argument shown in messages: the command of `Bash`, the path of file tools, the
/// pattern of search tools, the URL or query of web tools; for any other tool (MCP tools, say)
/// the first of `command`, `file_path`, `path`, `url`, `pattern` it has.
pub fn main_argument<'a>(tool: &str, input: &'a Value) -> Option<&'a str> {
    let key = match tool {
        "Bash" | "BashOutput" | "PowerShell" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" | "NotebookRead" => "notebook_path",
        "Glob" | "Grep" => "pattern",
        "WebFetch" => "url",
        "WebSearch" => "query",
        _ => {
            return ["command", "file_path", "path", "url", "pattern"]
                .iter()
                .find_map(|key| input.get(key).and_then(Value::as_str))
        }
    };
    input.get(key).and_then(Value::as_str)
}

/// The first word of the first command of a Bash call, unquoted.
fn first_word(input: &Value) -> Option<String> {
    let command = input.get("command").and_then(Value::as_str)?;
    let analysis = shell::analyze(command);
    let first = analysis.commands.first()?;
    if analysis.unreadable || first.dynamic_name || !first.assignments.is_empty() {
        return None;
    }
    first.words.first().cloned().filter(|w| !w.is_empty())
}

/// The `--allow` flags to suggest for a denied call: `--allow 'Bash(<first word>:*)'` for a
/// command (and an `Edit` rule for each file it writes through a redirection), the tool's name
/// otherwise.
pub fn suggest(tool: &str, input: &Value) -> String {
    let mut rules = Vec::new();
    if tool == "Bash" {
        if let Some(word) = first_word(input) {
            rules.push(format!("Bash({word}:*)"));
        }
        let command = input.get("command").and_then(Value::as_str).unwrap_or("");
        for command in shell::analyze(command).commands {
            for (file, computed) in command.written_files {
                if computed {
                    continue;
                }
                let file = globset::escape(&file);
                rules.push(if file.starts_with('/') {
                    format!("Edit(/{file})")
                } else if file.starts_with("~/") {
                    format!("Edit({file})")
                } else {
                    format!("Edit(./{file})")
                });
            }
        }
    }
    if rules.is_empty() {
        rules.push(tool.to_owned());
    }
    rules
        .iter()
        .map(|rule| format!("--allow '{rule}'"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rule an "always" answer remembers: the command's first word for Bash, the tool
/// otherwise; `None` when no rule narrower than every Bash command fits.
pub fn remember(tool: &str, input: &Value) -> Option<Pattern> {
    if tool == "Bash" {
        return first_word(input).map(|word| Pattern::bash_word(&word));
    }
    tool.chars().all(is_tool_char).then(|| Pattern::tool(tool))
}

/// The session directory given on the command line, made absolute.
pub fn base_for(cwd: Option<&Path>) -> Base {
    let mut base = Base::current();
    if let Some(dir) = cwd {
        base.cwd = base.cwd.join(dir);
    }
    base.cwd = paths::lexical(&base.cwd);
    base
}
