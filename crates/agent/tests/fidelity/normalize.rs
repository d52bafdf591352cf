//! What differs between two runs by nature, taken out before they are compared: the case's
//! root directory (and the form Claude Code gives it in its project directory's name), the
//! web server's port, ids (sessions, tool calls, background jobs), times.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// The rewrites of one run.
pub struct Normalizer {
    literal: Vec<(String, String)>,
}

impl Normalizer {
    /// For a run rooted at `root` whose web server is at `web`.
    pub fn new(root: &Path, web: &str) -> Self {
        let root = root.display().to_string();
        let mut literal = Vec::new();
        for (sub, name) in [
            ("work", "<work>"),
            ("outside", "<outside>"),
            ("home", "<home>"),
            ("tmp", "<tmp>"),
        ] {
            literal.push((format!("{root}/{sub}"), name.to_owned()));
        }
        literal.push((root.clone(), "<root>".to_owned()));
        literal.push((munged(&root), "<root-munged>".to_owned()));
        literal.push((web.to_owned(), "<web>".to_owned()));
        literal.push((web.replace("http://", ""), "<web-host>".to_owned()));
        Self { literal }
    }

    /// `text` with this run's paths and the ids and times of any run replaced.
    pub fn text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for (from, to) in &self.literal {
            text = text.replace(from, to);
        }
        for (pattern, to) in PATTERNS.iter() {
            text = pattern.replace_all(&text, to.as_str()).into_owned();
        }
        text
    }

    /// A tool result's content as text: its text, and a line per image or document.
    pub fn content(&self, content: &Value) -> String {
        match content {
            Value::Null => String::new(),
            Value::String(text) => self.text(text),
            Value::Array(blocks) => blocks
                .iter()
                .map(|block| self.block(block))
                .collect::<Vec<_>>()
                // The blocks' boundaries are part of the result.
                .join("\n⟦next block⟧\n"),
            other => self.text(&other.to_string()),
        }
    }

    /// One content block as text.
    pub fn block(&self, block: &Value) -> String {
        match block["type"].as_str() {
            Some("text") => self.text(block["text"].as_str().unwrap_or_default()),
            Some(kind @ ("image" | "document")) => {
                let source = &block["source"];
                let data = source["data"].as_str().unwrap_or_default();
                format!(
                    "[{kind} {} {} base64 bytes, hash {:x}]",
                    source["media_type"].as_str().unwrap_or("?"),
                    data.len(),
                    fnv(data.as_bytes())
                )
            }
            Some("tool_result") => format!(
                "tool_result{}: {}",
                if block["is_error"] == true {
                    " (error)"
                } else {
                    ""
                },
                self.content(&block["content"])
            ),
            _ => {
                let mut block = block.clone();
                if let Some(map) = block.as_object_mut() {
                    map.remove("cache_control");
                }
                self.text(&block.to_string())
            }
        }
    }
}

/// Claude Code's name for a directory in its projects folder: every character that is not a
/// letter or a digit becomes `-`.
pub fn munged(path: &str) -> String {
    path.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

static PATTERNS: LazyLock<Vec<(Regex, String)>> = LazyLock::new(|| {
    [
        // Session and message ids.
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "<uuid>",
        ),
        (r"toolu_[A-Za-z0-9_]+", "<toolu>"),
        // Background jobs and saved outputs, named by short random ids.
        (r"(with ID: )[a-z0-9]{6,12}", "${1}<id>"),
        (r"(\(ID: )[a-z0-9]{6,12}(\))", "${1}<id>${2}"),
        (r"(<task-id>)[a-z0-9]{6,12}(</task-id>)", "${1}<id>${2}"),
        (r"(tasks/)[a-z0-9]{6,12}(\.output)", "${1}<id>${2}"),
        (r"(tool-results/)[a-z0-9]{6,12}(\.txt)", "${1}<id>${2}"),
        (r#"("task_id":\s*")[a-z0-9]{6,12}(")"#, "${1}<id>${2}"),
        (r"(task_id: )[a-z0-9]{6,12}", "${1}<id>"),
        // A new notebook cell's id.
        (r"(Inserted cell )[0-9a-f]{8}\b", "${1}<cell>"),
        (r#"(\\"id\\": \\")[0-9a-f]{8}(\\")"#, "${1}<cell>${2}"),
        (r"(stopped task: )[a-z0-9]{6,12}", "${1}<id>"),
        // A subagent's id, and the time it took.
        (r"(agentId: )[a-z0-9]{6,24}", "${1}<agent>"),
        (r"(duration_ms: )\d+", "${1}<ms>"),
        // A session's plan file, named by three random words.
        (
            r"(\.claude/plans/)[a-z]+-[a-z]+-[a-z]+(\.md)",
            "${1}<plan>${2}",
        ),
        // Times of day and durations the tools report.
        (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?", "<time>"),
        (r"\b\d+(\.\d+)?ms\b", "<ms>"),
    ]
    .into_iter()
    .map(|(pattern, to)| (Regex::new(pattern).expect("a pattern"), to.to_owned()))
    .collect()
});
