//! Typed inputs of the files tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The input of `Read`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileReadInput {
    /// `file_path`: text.
    pub file_path: String,
    /// `offset`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Number>,
    /// `limit`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<Number>,
    /// `pages`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
    /// `allow_large`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_large: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Write`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileWriteInput {
    /// `file_path`: text.
    pub file_path: String,
    /// `content`: text.
    pub content: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Edit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileEditInput {
    /// `file_path`: text.
    pub file_path: String,
    /// `old_string`: text.
    pub old_string: String,
    /// `new_string`: text.
    pub new_string: String,
    /// `replace_all`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_all: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `MultiEdit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MultiEditInput {
    /// `file_path`: text.
    pub file_path: String,
    /// `edits`: JSON value.
    pub edits: Value,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Glob`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GlobInput {
    /// `pattern`: text.
    pub pattern: String,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `Grep`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GrepInput {
    /// `pattern`: text.
    pub pattern: String,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `glob`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// `output_mode`: optional text (`content`, `files_with_matches`, `count`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<String>,
    /// `-B`: optional number.
    #[serde(rename = "-B", default, skip_serializing_if = "Option::is_none")]
    pub lines_before: Option<Number>,
    /// `-A`: optional number.
    #[serde(rename = "-A", default, skip_serializing_if = "Option::is_none")]
    pub lines_after: Option<Number>,
    /// `-C`: optional number.
    #[serde(rename = "-C", default, skip_serializing_if = "Option::is_none")]
    pub context_short: Option<Number>,
    /// `context`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Number>,
    /// `-n`: optional flag.
    #[serde(rename = "-n", default, skip_serializing_if = "Option::is_none")]
    pub line_numbers: Option<bool>,
    /// `-i`: optional flag.
    #[serde(rename = "-i", default, skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    /// `-o`: optional flag.
    #[serde(rename = "-o", default, skip_serializing_if = "Option::is_none")]
    pub only_matching: Option<bool>,
    /// `type`: optional text.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `head_limit`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_limit: Option<Number>,
    /// `offset`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Number>,
    /// `multiline`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `NotebookEdit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotebookEditInput {
    /// `notebook_path`: text.
    pub notebook_path: String,
    /// `cell_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// `new_source`: text.
    pub new_source: String,
    /// `cell_type`: optional text (`code`, `markdown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_type: Option<String>,
    /// `edit_mode`: optional text (`replace`, `insert`, `delete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_mode: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `LS`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LsInput {
    /// `path`: text.
    pub path: String,
    /// `ignore`: optional list of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
