//! A tool call as the page shows it, by kind of tool (typed through
//! [`ToolInput`](twinwire_protocol::tools::ToolInput)): the command of a `Bash` call, the file
//! and the diff of an `Edit`, `MultiEdit` or `Write`, the pattern of a `Grep` or `Glob`, the
//! URL of a `WebFetch`, …; any other input as its JSON. Everything is cut to a bounded size:
//! the page shows a call, the row's JSON holds all of it.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use similar::{ChangeTag, TextDiff};
use twinwire_protocol::tools::ToolInput;

use super::text::{block, cut, one_line};

/// Most lines of a diff, a file or an input shown.
const MAX_LINES: usize = 400;
/// Widest line shown.
const MAX_WIDTH: usize = 400;
/// Longer texts are shown as removed and added without a line diff (a diff of megabytes
/// would take long and show nothing readable).
const MAX_DIFFED: usize = 256 * 1024;
/// A line diff gives up after this long and shows what it has.
const DIFF_TIME: Duration = Duration::from_millis(200);

/// How a call is shown.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolView {
    /// The tool's name.
    pub name: String,
    /// `command`, `diff` (lines starting with `+`, `-` or a space), `search`, `url`, `file`,
    /// `agent`, or `input` (JSON).
    pub shape: &'static str,
    /// What the call is about: the command, the file, the pattern, the URL.
    pub head: String,
    /// A second line: a description, a search's directory, a fetch's prompt.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// The body: diff lines, the input's JSON lines, a prompt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// Lines left out of `lines`.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl ToolView {
    fn new(name: &str, shape: &'static str, head: &str) -> Self {
        Self {
            name: name.to_owned(),
            shape,
            head: cut(head, MAX_WIDTH),
            note: String::new(),
            lines: Vec::new(),
            more: 0,
        }
    }

    fn note(mut self, note: Option<&str>) -> Self {
        self.note = note.map(|n| one_line(n, MAX_WIDTH)).unwrap_or_default();
        self
    }

    fn body(mut self, text: &str) -> Self {
        let (lines, more) = block(text, MAX_LINES, MAX_WIDTH);
        self.lines = lines;
        self.more = more;
        self
    }

    /// The call `name(input)`, shown by its kind.
    pub fn of(name: &str, input: &Value) -> Self {
        match ToolInput::parse(name, input) {
            ToolInput::Bash(bash) => {
                Self::new(name, "command", &bash.command).note(bash.description.as_deref())
            }
            ToolInput::Edit(edit) => {
                let mut view = Self::new(name, "diff", &edit.file_path);
                diff(&mut view, &edit.old_string, &edit.new_string);
                view.note(
                    edit.replace_all
                        .filter(|all| *all)
                        .map(|_| "every occurrence"),
                )
            }
            ToolInput::MultiEdit(multi) => {
                let mut view = Self::new(name, "diff", &multi.file_path);
                for edit in multi.edits.as_array().into_iter().flatten() {
                    let old = edit["old_string"].as_str().unwrap_or_default();
                    let new = edit["new_string"].as_str().unwrap_or_default();
                    if view.lines.len() >= MAX_LINES {
                        view.more += old.lines().count() + new.lines().count();
                        continue;
                    }
                    if !view.lines.is_empty() {
                        view.lines.push("…".to_owned());
                    }
                    diff(&mut view, old, new);
                }
                view
            }
            ToolInput::Write(write) => {
                let mut view = Self::new(name, "diff", &write.file_path);
                let (lines, more) = block(&write.content, MAX_LINES, MAX_WIDTH);
                view.lines = lines.into_iter().map(|l| format!("+{l}")).collect();
                view.more = more;
                view.note(Some("new content"))
            }
            ToolInput::Grep(grep) => Self::new(name, "search", &grep.pattern).note(
                grep.path
                    .as_deref()
                    .or(grep.glob.as_deref())
                    .map(|p| format!("in {p}"))
                    .as_deref(),
            ),
            ToolInput::Glob(glob) => Self::new(name, "search", &glob.pattern)
                .note(glob.path.as_deref().map(|p| format!("in {p}")).as_deref()),
            ToolInput::WebFetch(fetch) => {
                Self::new(name, "url", &fetch.url).note(Some(&fetch.prompt))
            }
            ToolInput::WebSearch(search) => Self::new(name, "search", &search.query),
            ToolInput::Read(read) => Self::new(name, "file", &read.file_path),
            ToolInput::NotebookEdit(edit) => {
                Self::new(name, "file", &edit.notebook_path).body(&edit.new_source)
            }
            ToolInput::Ls(ls) => Self::new(name, "file", &ls.path),
            ToolInput::Agent(agent) => Self::new(name, "agent", &agent.description)
                .note(agent.subagent_type.as_deref())
                .body(&agent.prompt),
            other => {
                let input = other.to_value();
                let json = serde_json::to_string_pretty(&input).unwrap_or_default();
                Self::new(name, "input", &one_line(&input.to_string(), 160)).body(&json)
            }
        }
    }

    /// One line for the row: `Bash $ touch x`, `Edit notes.md (+1 −1)`, `Grep "x" in src`.
    pub fn summary(&self) -> String {
        let head = one_line(&self.head, 120);
        match self.shape {
            "command" => format!("{} $ {head}", self.name),
            "diff" => {
                let added = self.lines.iter().filter(|l| l.starts_with('+')).count();
                let removed = self.lines.iter().filter(|l| l.starts_with('-')).count();
                format!("{} {head} (+{added} −{removed})", self.name)
            }
            "search" if !self.note.is_empty() => {
                format!("{} “{head}” {}", self.name, one_line(&self.note, 60))
            }
            "search" => format!("{} “{head}”", self.name),
            _ => format!("{} {head}", self.name),
        }
    }
}

/// The line diff of `old` → `new` appended to the view's lines (past [`MAX_LINES`], counted).
fn diff(view: &mut ToolView, old: &str, new: &str) {
    let mut push = |mark: char, line: &str| {
        if view.lines.len() < MAX_LINES {
            let line = line.trim_end_matches(['\n', '\r']);
            view.lines.push(format!("{mark}{}", cut(line, MAX_WIDTH)));
        } else {
            view.more += 1;
        }
    };
    if old.len() + new.len() > MAX_DIFFED {
        old.lines().for_each(|l| push('-', l));
        new.lines().for_each(|l| push('+', l));
        return;
    }
    let diff = TextDiff::configure()
        .timeout(DIFF_TIME)
        .diff_lines(old, new);
    for change in diff.iter_all_changes() {
        let mark = match change.tag() {
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
            ChangeTag::Equal => ' ',
        };
        push(mark, change.value());
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn calls_are_shown_by_kind() {
        let bash = ToolView::of(
            "Bash",
            &json!({"command": "touch x", "description": "Make x"}),
        );
        assert_eq!((bash.shape, bash.head.as_str()), ("command", "touch x"));
        assert_eq!(bash.summary(), "Bash $ touch x");
        let edit = ToolView::of(
            "Edit",
            &json!({"file_path": "/a/notes.md", "old_string": "one\ntwo\nthree", "new_string": "one\n2\nthree"}),
        );
        assert_eq!(edit.lines, [" one", "-two", "+2", " three"]);
        assert_eq!(edit.summary(), "Edit /a/notes.md (+1 −1)");
        let write = ToolView::of("Write", &json!({"file_path": "/a/b", "content": "x\ny\n"}));
        assert_eq!(write.lines, ["+x", "+y"]);
        let grep = ToolView::of("Grep", &json!({"pattern": "fn main", "path": "src"}));
        assert_eq!(grep.summary(), "Grep “fn main” in src");
        let fetch = ToolView::of(
            "WebFetch",
            &json!({"url": "https://example.com", "prompt": "p"}),
        );
        assert_eq!(
            (fetch.shape, fetch.head.as_str()),
            ("url", "https://example.com")
        );
        let multi = ToolView::of(
            "MultiEdit",
            &json!({"file_path": "f", "edits": [{"old_string": "a", "new_string": "b"},
                                               {"old_string": "c", "new_string": "d"}]}),
        );
        assert_eq!(multi.lines, ["-a", "+b", "…", "-c", "+d"]);
        // An input that does not fit its tool is shown as JSON, not dropped.
        let odd = ToolView::of("Bash", &json!({"cmd": 1}));
        assert_eq!(odd.shape, "input");
        assert!(odd.lines.iter().any(|l| l.contains("\"cmd\": 1")));
        // Big edits stay bounded.
        let big = "line\n".repeat(100_000);
        let edit = ToolView::of(
            "Edit",
            &json!({"file_path": "f", "old_string": big, "new_string": "x"}),
        );
        assert_eq!(edit.lines.len(), MAX_LINES);
        assert_eq!(edit.more, 100_001 - MAX_LINES);
    }
}
