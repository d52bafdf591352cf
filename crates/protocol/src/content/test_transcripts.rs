//! Test helper: every frame of the recorded transcripts.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{
    ContentBlock, McpToolResultBlock, SearchResultBlock, ToolResultBlock, ToolResultContent,
};

/// Where the project's recordings live (`cargo xtask record` writes them), relative to this
/// crate.
const TRANSCRIPTS: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/transcripts"
);

/// One recorded frame and where it came from.
pub(crate) struct Frame {
    /// `file:line`, for failure messages.
    pub origin: String,
    /// The frame itself (the `msg` of the recorded line).
    pub msg: Value,
}

/// The `*.jsonl` transcripts (not the `*.api.jsonl` HTTP logs) of every `claude-*` folder.
fn transcript_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let root = fs::read_dir(Path::new(TRANSCRIPTS))
        .unwrap_or_else(|e| panic!("cannot read {TRANSCRIPTS}: {e}"));
    for dir in root {
        let dir = dir.unwrap().path();
        let is_cli = dir
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with("claude-"));
        if !is_cli || !dir.is_dir() {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            let file = file.unwrap().path();
            let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.ends_with(".jsonl") && !name.ends_with(".api.jsonl") {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}

/// Every recorded frame (lines without `msg` skipped).
pub(crate) fn frames() -> Vec<Frame> {
    let mut frames = Vec::new();
    for file in transcript_files() {
        let text = fs::read_to_string(&file).unwrap();
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let mut record: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", file.display(), number + 1));
            if let Some(msg) = record.get_mut("msg").map(Value::take) {
                frames.push(Frame {
                    origin: format!("{}:{}", file.display(), number + 1),
                    msg,
                });
            }
        }
    }
    assert!(!frames.is_empty(), "no frames found under {TRANSCRIPTS}");
    frames
}

/// Every recorded frame whose `type` is `kind`.
pub(crate) fn frames_of_type(kind: &str) -> Vec<Frame> {
    frames()
        .into_iter()
        .filter(|frame| frame.msg.get("type").and_then(Value::as_str) == Some(kind))
        .collect()
}

/// Tags of unknown content blocks anywhere inside `blocks` (including tool result content).
pub(crate) fn unknown_tags(blocks: &[ContentBlock]) -> Vec<String> {
    let mut tags = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Unknown(unknown) => tags.push(unknown.tag.clone()),
            ContentBlock::ToolResult(ToolResultBlock {
                content: Some(ToolResultContent::Blocks(inner)),
                ..
            })
            | ContentBlock::McpToolResult(McpToolResultBlock {
                content: Some(ToolResultContent::Blocks(inner)),
                ..
            })
            | ContentBlock::SearchResult(SearchResultBlock { content: inner, .. }) => {
                tags.extend(unknown_tags(inner))
            }
            _ => {}
        }
    }
    tags
}
