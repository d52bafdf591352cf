//! Permission patterns and the decision they make for one tool call: `ccwire run`'s `--allow` /
//! `--deny`, and the policy file of `ccwire tap`.
//!
//! A pattern is a tool name (`Write`), a glob over tool names (`mcp__*`, `mcp__calc__*`, `*`),
//! or a tool with a pattern over its main argument: `Bash(git log*)` (the command starts with
//! `git log`), `Bash(npm test:*)` (the command is `npm test` or starts with `npm test `, Claude
//! Code's own rule syntax), `Write(/tmp/*)` (the file path). `*` matches any run of
//! characters, `?` one character.
//!
//! Deny wins over allow. A Bash command is split at `&&`, `||`, `;`, `|`, `&` and newlines: it
//! is denied when any part matches a deny pattern, and allowed by content patterns only when
//! every part matches one of them and it holds no command substitution (`$(`, backquotes,
//! `<(`, `>(`), nor, with [`Rules::strict_redirects`], a redirection (`>`, `<`). A bare `Bash`
//! allows every command.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

/// One `--allow` or `--deny` pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// Matched against the tool name.
    tool: Glob,
    /// Matched against the tool's main argument; `None` matches every call of the tool.
    content: Option<Content>,
}

/// What the parentheses of a pattern hold.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    /// A glob over the whole argument (`echo*` is a prefix).
    Glob(Glob),
    /// `prefix:*`: the argument is `prefix`, or starts with `prefix` and a space.
    Word(String),
}

/// A glob where `*` matches any run of characters and `?` one character.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Glob(String);

impl Glob {
    fn matches(&self, text: &str) -> bool {
        glob_match(&self.0.chars().collect::<Vec<_>>(), text)
    }
}

fn glob_match(pattern: &[char], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    // Iterative matching with backtracking to the last `*`: linear in practice, no recursion.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                star = Some((p, t));
                p += 1;
            }
            Some('?') => {
                p += 1;
                t += 1;
            }
            Some(&c) if c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

/// Why a pattern could not be read.
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
        let (tool, content) = match text.split_once('(') {
            Some((tool, rest)) => {
                let Some(inner) = rest.strip_suffix(')') else {
                    return Err(PatternError(format!(
                        "`{text}`: a pattern with `(` must end with `)`, e.g. `Bash(git log*)`"
                    )));
                };
                if inner.is_empty() {
                    return Err(PatternError(format!(
                        "`{text}`: empty parentheses; write `{tool}` to match every call"
                    )));
                }
                let content = match inner.strip_suffix(":*") {
                    Some(word) => Content::Word(word.to_owned()),
                    None => Content::Glob(Glob(inner.to_owned())),
                };
                (tool.trim(), Some(content))
            }
            None => (text, None),
        };
        if tool.is_empty() {
            return Err(PatternError(format!("`{text}`: no tool name")));
        }
        Ok(Self {
            tool: Glob(tool.to_owned()),
            content,
        })
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.tool.0)?;
        match &self.content {
            None => Ok(()),
            Some(Content::Glob(glob)) => write!(f, "({})", glob.0),
            Some(Content::Word(word)) => write!(f, "({word}:*)"),
        }
    }
}

impl Pattern {
    /// A pattern for every call of one tool.
    pub fn tool(name: &str) -> Self {
        Self {
            tool: Glob(escape_glob(name)),
            content: None,
        }
    }

    /// A pattern for Bash commands that are `word` or start with `word` and a space.
    pub fn bash_word(word: &str) -> Self {
        Self {
            tool: Glob("Bash".to_owned()),
            content: Some(Content::Word(word.to_owned())),
        }
    }

    /// Whether the pattern names the tool, whatever the input.
    fn matches_tool(&self, tool: &str) -> bool {
        self.tool.matches(tool)
    }

    /// Whether the pattern matches a call of `tool` whose main argument is `argument`.
    fn matches_argument(&self, tool: &str, argument: Option<&str>) -> bool {
        if !self.matches_tool(tool) {
            return false;
        }
        match (&self.content, argument) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(Content::Glob(glob)), Some(argument)) => glob.matches(argument),
            (Some(Content::Word(word)), Some(argument)) => {
                argument == word
                    || argument
                        .strip_prefix(word.as_str())
                        .is_some_and(|rest| rest.starts_with(char::is_whitespace))
            }
        }
    }
}

/// Tool names hold no glob characters in practice; a `*` or `?` in one would only widen the
/// remembered rule, so they are dropped to keep it exact.
fn escape_glob(name: &str) -> String {
    name.replace(['*', '?'], "")
}

/// What the rules decide for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// An allow pattern matched (the first one that did).
    Allow(Pattern),
    /// A deny pattern matched.
    Deny(Pattern),
    /// No pattern decides.
    Unmatched,
}

/// The allow and deny patterns of a session.
#[derive(Debug, Clone, Default)]
pub struct Rules {
    allow: Vec<Pattern>,
    deny: Vec<Pattern>,
    /// A Bash command with a redirection is never allowed by a content pattern.
    strict_redirects: bool,
}

impl Rules {
    /// Rules from `--allow` and `--deny`.
    pub fn new(allow: Vec<Pattern>, deny: Vec<Pattern>) -> Self {
        Self {
            allow,
            deny,
            strict_redirects: false,
        }
    }

    /// A content pattern does not allow a Bash command that redirects input or output
    /// (`Bash(ls*)` does not allow `ls > /etc/passwd`); such calls stay undecided. For rules
    /// nobody is asked to confirm, like a tap's policy.
    pub fn strict_redirects(mut self) -> Self {
        self.strict_redirects = true;
        self
    }

    /// Adds an allow pattern (an "always" answer).
    pub fn allow(&mut self, pattern: Pattern) {
        if !self.allow.contains(&pattern) {
            self.allow.push(pattern);
        }
    }

    /// Decides a call of `tool` with `input`. Deny wins over allow.
    pub fn decide(&self, tool: &str, input: &Value) -> Decision {
        let argument = main_argument(tool, input);
        let parts = match (tool, argument) {
            ("Bash", Some(command)) => split_command(command),
            (_, argument) => vec![argument.unwrap_or_default().to_owned()],
        };
        let argument_of = |part: &str| argument.map(|_| part.to_owned());
        // Deny: the whole argument or any part of it.
        for pattern in &self.deny {
            let whole = pattern.matches_argument(tool, argument);
            if whole
                || parts
                    .iter()
                    .any(|part| pattern.matches_argument(tool, argument_of(part).as_deref()))
            {
                return Decision::Deny(pattern.clone());
            }
        }
        // Allow: a pattern without content covers everything.
        if let Some(pattern) = self
            .allow
            .iter()
            .find(|p| p.content.is_none() && p.matches_tool(tool))
        {
            return Decision::Allow(pattern.clone());
        }
        if let ("Bash", Some(command)) = (tool, argument) {
            if has_substitution(command) || (self.strict_redirects && command.contains(['>', '<']))
            {
                return Decision::Unmatched;
            }
        }
        if argument.is_none() {
            return Decision::Unmatched;
        }
        // Every part must be allowed by some content pattern.
        let mut first = None;
        for part in &parts {
            match self
                .allow
                .iter()
                .find(|p| p.matches_argument(tool, Some(part)))
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

/// The argument content patterns are matched against: the command of `Bash`, the path of file
/// tools, the pattern of search tools, the URL or query of web tools; for any other tool (MCP
/// tools, say) the first of `command`, `file_path`, `path`, `url`, `pattern` it has.
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

/// Splits a shell command at `&&`, `||`, `;`, `|`, `&`, newlines, parentheses and backquotes,
/// so that subshells and substitutions are parts of their own. Quotes are not parsed: a quoted
/// separator splits too, which can only deny more.
fn split_command(command: &str) -> Vec<String> {
    command
        .split(['\n', ';', '|', '&', '(', ')', '`'])
        .map(|part| {
            part.trim_matches(|c: char| c.is_whitespace() || c == '{' || c == '}')
                .trim_end_matches('$')
                .trim_end()
        })
        .filter(|part| !part.is_empty())
        .map(str::to_owned)
        .collect()
}

fn has_substitution(command: &str) -> bool {
    command.contains("$(")
        || command.contains('`')
        || command.contains("<(")
        || command.contains(">(")
}

/// The `--allow` pattern to suggest for a denied call: `Bash(<first word>*)` for a command,
/// the tool's name otherwise.
pub fn suggest(tool: &str, input: &Value) -> String {
    if tool == "Bash" {
        if let Some(word) =
            main_argument(tool, input).and_then(|command| command.split_whitespace().next())
        {
            return format!("Bash({word}*)");
        }
    }
    tool.to_owned()
}

/// The pattern an "always" answer remembers: the command's first word for Bash, the tool
/// otherwise.
pub fn remember(tool: &str, input: &Value) -> Pattern {
    if tool == "Bash" {
        if let Some(word) =
            main_argument(tool, input).and_then(|command| command.split_whitespace().next())
        {
            return Pattern::bash_word(word);
        }
    }
    Pattern::tool(tool)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn p(text: &str) -> Pattern {
        text.parse().unwrap()
    }

    fn rules(allow: &[&str], deny: &[&str]) -> Rules {
        Rules::new(
            allow.iter().map(|s| p(s)).collect(),
            deny.iter().map(|s| p(s)).collect(),
        )
    }

    fn bash(command: &str) -> Value {
        json!({ "command": command })
    }

    #[test]
    fn globs() {
        let g = |pattern: &str, text: &str| Glob(pattern.to_owned()).matches(text);
        assert!(g("mcp__*", "mcp__calc__add"));
        assert!(!g("mcp__*", "Bash"));
        assert!(g("*", ""));
        assert!(g("a*b*c", "aXbYc"));
        assert!(!g("a*b*c", "aXbY"));
        assert!(g("W?ite", "Write"));
        assert!(!g("Write", "Writer"));
        assert!(g("*__add", "mcp__calc__add"));
        assert!(g("é*", "école"));
    }

    #[test]
    fn parses_and_prints() {
        for text in [
            "Write",
            "mcp__*",
            "Bash(git log*)",
            "Bash(npm test:*)",
            "Write(/tmp/*)",
        ] {
            assert_eq!(p(text).to_string(), text);
        }
        assert!("Bash(".parse::<Pattern>().is_err());
        assert!("Bash()".parse::<Pattern>().is_err());
        assert!("(x)".parse::<Pattern>().is_err());
        assert!("".parse::<Pattern>().is_err());
    }

    #[test]
    fn tool_names_and_globs() {
        let r = rules(&["Write", "mcp__calc__*"], &[]);
        assert!(matches!(r.decide("Write", &json!({})), Decision::Allow(_)));
        assert!(matches!(
            r.decide("mcp__calc__add", &json!({})),
            Decision::Allow(_)
        ));
        assert_eq!(r.decide("mcp__web__get", &json!({})), Decision::Unmatched);
        assert_eq!(r.decide("Bash", &bash("ls")), Decision::Unmatched);
    }

    #[test]
    fn bash_prefixes() {
        let r = rules(&["Bash(echo*)"], &[]);
        assert_eq!(
            r.decide("Bash", &bash("echo hi > ccwire-demo.txt")),
            Decision::Allow(p("Bash(echo*)"))
        );
        assert_eq!(r.decide("Bash", &bash("touch x")), Decision::Unmatched);
        assert_eq!(
            r.decide("Write", &json!({"file_path": "echo"})),
            Decision::Unmatched
        );
        // Without a command there is nothing to match.
        assert_eq!(r.decide("Bash", &json!({})), Decision::Unmatched);
    }

    #[test]
    fn word_prefixes_stop_at_a_word_boundary() {
        let r = rules(&["Bash(npm test:*)"], &[]);
        assert!(matches!(
            r.decide("Bash", &bash("npm test")),
            Decision::Allow(_)
        ));
        assert!(matches!(
            r.decide("Bash", &bash("npm test --watch")),
            Decision::Allow(_)
        ));
        assert_eq!(r.decide("Bash", &bash("npm tests")), Decision::Unmatched);
    }

    #[test]
    fn compound_commands_need_every_part_allowed() {
        let r = rules(&["Bash(echo*)"], &[]);
        assert_eq!(
            r.decide("Bash", &bash("echo hi && rm -rf /")),
            Decision::Unmatched
        );
        assert_eq!(
            r.decide("Bash", &bash("echo hi; rm x")),
            Decision::Unmatched
        );
        assert_eq!(r.decide("Bash", &bash("echo hi | sh")), Decision::Unmatched);
        assert_eq!(r.decide("Bash", &bash("echo $(rm x)")), Decision::Unmatched);
        assert_eq!(r.decide("Bash", &bash("echo `rm x`")), Decision::Unmatched);
        let both = rules(&["Bash(echo*)", "Bash(git status)"], &[]);
        assert!(matches!(
            both.decide("Bash", &bash("git status && echo done")),
            Decision::Allow(_)
        ));
        // A bare Bash allows everything, substitutions included.
        let all = rules(&["Bash"], &[]);
        assert!(matches!(
            all.decide("Bash", &bash("echo $(date)")),
            Decision::Allow(_)
        ));
    }

    #[test]
    fn deny_wins() {
        let r = rules(&["Bash"], &["Bash(rm*)"]);
        assert_eq!(
            r.decide("Bash", &bash("rm -rf x")),
            Decision::Deny(p("Bash(rm*)"))
        );
        assert_eq!(
            r.decide("Bash", &bash("ls && rm -rf x")),
            Decision::Deny(p("Bash(rm*)"))
        );
        assert!(matches!(r.decide("Bash", &bash("ls")), Decision::Allow(_)));
        for hidden in [
            "echo $(rm x)",
            "echo `rm x`",
            "(rm x)",
            "{ rm x; }",
            "ls\nrm x",
        ] {
            assert!(
                matches!(r.decide("Bash", &bash(hidden)), Decision::Deny(_)),
                "{hidden}"
            );
        }
        let r = rules(&["Bash(touch*)"], &["Bash"]);
        assert_eq!(
            r.decide("Bash", &bash("touch x")),
            Decision::Deny(p("Bash"))
        );
        let r = rules(&["mcp__*"], &["mcp__danger__*"]);
        assert!(matches!(
            r.decide("mcp__danger__wipe", &json!({})),
            Decision::Deny(_)
        ));
        assert!(matches!(
            r.decide("mcp__calc__add", &json!({})),
            Decision::Allow(_)
        ));
    }

    #[test]
    fn file_tools_match_their_path() {
        let r = rules(&["Write(/tmp/*)"], &["Read(*.env)"]);
        assert!(matches!(
            r.decide("Write", &json!({"file_path": "/tmp/a.txt"})),
            Decision::Allow(_)
        ));
        assert_eq!(
            r.decide("Write", &json!({"file_path": "/etc/passwd"})),
            Decision::Unmatched
        );
        assert!(matches!(
            r.decide("Read", &json!({"file_path": "/app/.env"})),
            Decision::Deny(_)
        ));
    }

    #[test]
    fn suggestions_and_remembered_rules() {
        assert_eq!(suggest("Bash", &bash("touch x")), "Bash(touch*)");
        assert_eq!(suggest("Write", &json!({"file_path": "a"})), "Write");
        let mut r = Rules::default();
        r.allow(remember("Bash", &bash("touch x")));
        assert!(matches!(
            r.decide("Bash", &bash("touch y")),
            Decision::Allow(_)
        ));
        assert_eq!(r.decide("Bash", &bash("touchy")), Decision::Unmatched);
        assert_eq!(r.decide("Bash", &bash("rm y")), Decision::Unmatched);
        r.allow(remember("mcp__calc__add", &json!({})));
        assert!(matches!(
            r.decide("mcp__calc__add", &json!({})),
            Decision::Allow(_)
        ));
        assert_eq!(r.decide("mcp__calc__sub", &json!({})), Decision::Unmatched);
    }

    #[test]
    fn redirects_are_allowed_unless_strict() {
        let lenient = rules(&["Bash(echo*)"], &[]);
        let strict = rules(&["Bash(echo*)"], &[]).strict_redirects();
        let call = bash("echo hi > greeting.txt");
        assert!(matches!(lenient.decide("Bash", &call), Decision::Allow(_)));
        assert_eq!(strict.decide("Bash", &call), Decision::Unmatched);
        assert!(matches!(
            strict.decide("Bash", &bash("echo hi")),
            Decision::Allow(_)
        ));
    }

    #[test]
    fn other_tools_use_the_first_usual_argument() {
        let rules = rules(&["mcp__files__read(/tmp/*)"], &[]);
        let call = json!({"path": "/tmp/a", "mode": "r"});
        assert!(matches!(
            rules.decide("mcp__files__read", &call),
            Decision::Allow(_)
        ));
        let elsewhere = json!({"path": "/etc/a"});
        assert_eq!(
            rules.decide("mcp__files__read", &elsewhere),
            Decision::Unmatched
        );
    }
}
