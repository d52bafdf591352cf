//! One rule in Claude Code's syntax: `Tool`, `Tool(content)`, `mcp__server`, a glob over tool
//! names.

use std::fmt;
use std::str::FromStr;

use globset::{GlobBuilder, GlobMatcher};

use crate::paths::path_glob;

/// Tools a `Read(…)` rule covers.
pub(crate) const READ_TOOLS: &[&str] = &["Read", "NotebookRead", "Glob", "Grep", "LS"];
/// Tools an `Edit(…)` rule covers.
pub(crate) const EDIT_TOOLS: &[&str] = &["Edit", "Write", "MultiEdit", "NotebookEdit"];

/// One allow or deny rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// As written.
    text: String,
    pub(crate) tool: ToolMatch,
    /// What the parentheses hold; `None` matches every call of the tool.
    pub(crate) content: Option<Content>,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Rule {}

#[derive(Debug, Clone)]
pub(crate) enum ToolMatch {
    /// One tool (`Read` and `Edit` stand for their families).
    Exact(String),
    /// `mcp__server`: the server's tools.
    McpServer(String),
    /// A glob over tool names.
    Glob(GlobMatcher),
}

#[derive(Debug, Clone)]
pub(crate) enum Content {
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
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RuleError(String);

impl FromStr for Rule {
    type Err = RuleError;

    /// Reads a rule whose tool is one Claude Code has, an MCP tool or server, or a glob.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let rule = Self::parse_any_tool(text)?;
        if let ToolMatch::Exact(tool) = &rule.tool {
            check_tool_name(tool, text)?;
        }
        Ok(rule)
    }
}

impl Rule {
    /// Reads a rule for any tool name, one Claude Code does not have yet included.
    pub fn parse_any_tool(text: &str) -> Result<Self, RuleError> {
        let text = text.trim();
        let (tool, inner) = match text.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(RuleError(format!(
                        "`{text}`: a rule with `(` must end with `)`, e.g. `Bash(git log:*)`"
                    )));
                };
                if inner.is_empty() {
                    return Err(RuleError(format!(
                        "`{text}`: empty parentheses; write `{tool}` to match every call"
                    )));
                }
                (tool.trim(), Some(inner))
            }
            None => (text, None),
        };
        if tool.is_empty() {
            return Err(RuleError(format!("`{text}`: no tool name")));
        }
        if !tool
            .chars()
            .all(|c| is_tool_char(c) || c == '*' || c == '?')
        {
            return Err(RuleError(format!(
                "`{text}`: a tool name holds letters, digits, `_`, `-`, `.` and `:` (and `*`, `?` \
                 as wildcards)"
            )));
        }
        let bad = |e: globset::Error| RuleError(format!("`{text}`: {e}"));
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

    /// A rule for every call of one tool.
    pub fn tool(name: &str) -> Self {
        Self {
            text: name.to_owned(),
            tool: ToolMatch::Exact(name.to_owned()),
            content: None,
        }
    }

    /// A rule for Bash commands that are `word` or start with `word` and a space.
    pub fn bash_prefix(word: &str) -> Self {
        Self {
            text: format!("Bash({word}:*)"),
            tool: ToolMatch::Exact("Bash".to_owned()),
            content: Some(Content::Word(word.to_owned())),
        }
    }

    /// The rule as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether the rule names the tool, whatever the input.
    pub(crate) fn matches_tool(&self, tool: &str) -> bool {
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
    pub(crate) fn is_bash_content(&self) -> bool {
        matches!(&self.tool, ToolMatch::Exact(name) if name == "Bash") && self.content.is_some()
    }

    /// Whether the rule covers every Bash command.
    pub(crate) fn is_bare_bash(&self) -> bool {
        self.content.is_none() && self.matches_tool("Bash")
    }

    /// Whether a command matches `Word` or `Text` content.
    pub(crate) fn matches_command(&self, command: &str) -> bool {
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

    /// The words of a Bash content rule before any wildcard (`git push:*` → `git`, `push`).
    pub(crate) fn command_words(&self) -> Vec<&str> {
        let text = match &self.content {
            Some(Content::Word(word)) => word.as_str(),
            Some(Content::Text(_, text)) => text.split(['*', '?']).next().unwrap_or(""),
            _ => "",
        };
        text.split_whitespace().collect()
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Characters of real tool names (`mcp__my-server__do.it`).
pub(crate) fn is_tool_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// The tools Claude Code has (every typed tool of `twinwire-protocol`, the untyped built-ins,
/// and the older names rules still use).
pub fn known_tools() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = twinwire_protocol::tools::TYPED_TOOLS
        .iter()
        .flat_map(|(names, _, _)| names.iter().copied())
        .chain(
            twinwire_protocol::tools::UNTYPED_TOOLS
                .iter()
                .map(|(name, _)| *name)
                .filter(|name| !name.contains(' ')),
        )
        .chain(["NotebookRead", "Task", "KillBash", "WebSearch", "WebFetch"])
        .collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn check_tool_name(tool: &str, text: &str) -> Result<(), RuleError> {
    if tool.starts_with("mcp__") {
        return Ok(());
    }
    let known = known_tools();
    if known.contains(&tool) {
        return Ok(());
    }
    match known.iter().find(|k| k.eq_ignore_ascii_case(tool)) {
        Some(right) => Err(RuleError(format!(
            "`{text}`: no tool is called `{tool}`; tool names have their case: `{right}`"
        ))),
        None => Err(RuleError(format!(
            "`{text}`: no tool is called `{tool}` (Claude Code's tools: {}; MCP tools are \
             `mcp__server__tool`)",
            known.join(", ")
        ))),
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
