//! Typed outputs of the files tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `Read`: every field of its 5 forms, those not in all of them optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileReadOutput {
    /// `type`: text.
    #[serde(rename = "type")]
    pub kind: String,
    /// `file`: [`ReadFile`].
    pub file: ReadFile,
    /// `artifactRead`: optional JSON value.
    #[serde(
        rename = "artifactRead",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_read: Option<Value>,
    /// `firstPage`: optional number.
    #[serde(rename = "firstPage", default, skip_serializing_if = "Option::is_none")]
    pub first_page: Option<Number>,
    /// `pages`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Write`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileWriteOutput {
    /// `type`: text.
    #[serde(rename = "type")]
    pub kind: String,
    /// `filePath`: text.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// `content`: text.
    pub content: String,
    /// `structuredPatch`: list of [`PatchHunk`].
    #[serde(rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// `originalFile`: text or `null`.
    #[serde(
        rename = "originalFile",
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub original_file: Option<Option<String>>,
    /// `gitDiff`: optional [`GitDiff`].
    #[serde(rename = "gitDiff", default, skip_serializing_if = "Option::is_none")]
    pub git_diff: Option<GitDiff>,
    /// `userModified`: optional flag.
    #[serde(
        rename = "userModified",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub user_modified: Option<bool>,
    /// `staged`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Edit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileEditOutput {
    /// `filePath`: text.
    #[serde(rename = "filePath")]
    pub file_path: String,
    /// `oldString`: text.
    #[serde(rename = "oldString")]
    pub old_string: String,
    /// `newString`: text.
    #[serde(rename = "newString")]
    pub new_string: String,
    /// `originalFile`: text or `null`.
    #[serde(
        rename = "originalFile",
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub original_file: Option<Option<String>>,
    /// `structuredPatch`: list of [`PatchHunk`].
    #[serde(rename = "structuredPatch")]
    pub structured_patch: Vec<PatchHunk>,
    /// `userModified`: flag.
    #[serde(rename = "userModified")]
    pub user_modified: bool,
    /// `replaceAll`: flag.
    #[serde(rename = "replaceAll")]
    pub replace_all: bool,
    /// `gitDiff`: optional [`GitDiff`].
    #[serde(rename = "gitDiff", default, skip_serializing_if = "Option::is_none")]
    pub git_diff: Option<GitDiff>,
    /// `staged`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staged: Option<bool>,
    /// Whether the file's content was left out of the model's context (seen from CLI 2.1.330; not in the SDK types).
    #[serde(
        rename = "contentNotInModelContext",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub content_not_in_model_context: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Glob`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GlobOutput {
    /// `durationMs`: number.
    #[serde(rename = "durationMs")]
    pub duration_ms: Number,
    /// `numFiles`: number.
    #[serde(rename = "numFiles")]
    pub num_files: Number,
    /// `filenames`: list of text.
    pub filenames: Vec<String>,
    /// `truncated`: flag.
    pub truncated: bool,
    /// `totalMatches`: optional number.
    #[serde(
        rename = "totalMatches",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_matches: Option<Number>,
    /// `countIsComplete`: optional flag.
    #[serde(
        rename = "countIsComplete",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub count_is_complete: Option<bool>,
    /// `timedOut`: optional flag.
    #[serde(rename = "timedOut", default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `Grep`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GrepOutput {
    /// `mode`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// `numFiles`: number.
    #[serde(rename = "numFiles")]
    pub num_files: Number,
    /// `filenames`: list of text.
    pub filenames: Vec<String>,
    /// `content`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// `numLines`: optional number.
    #[serde(rename = "numLines", default, skip_serializing_if = "Option::is_none")]
    pub num_lines: Option<Number>,
    /// `numMatches`: optional number.
    #[serde(
        rename = "numMatches",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub num_matches: Option<Number>,
    /// `totalFiles`: optional number.
    #[serde(
        rename = "totalFiles",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_files: Option<Number>,
    /// `totalLines`: optional number.
    #[serde(
        rename = "totalLines",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_lines: Option<Number>,
    /// `appliedLimit`: optional number.
    #[serde(
        rename = "appliedLimit",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub applied_limit: Option<Number>,
    /// `appliedOffset`: optional number.
    #[serde(
        rename = "appliedOffset",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub applied_offset: Option<Number>,
    /// `timedOut`: optional flag.
    #[serde(rename = "timedOut", default, skip_serializing_if = "Option::is_none")]
    pub timed_out: Option<bool>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `NotebookEdit`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NotebookEditOutput {
    /// `new_source`: text.
    pub new_source: String,
    /// `old_source`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_source: Option<String>,
    /// `cell_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// `cell_type`: text.
    pub cell_type: String,
    /// `language`: text.
    pub language: String,
    /// `edit_mode`: text.
    pub edit_mode: String,
    /// `error`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `notebook_path`: text.
    pub notebook_path: String,
    /// `original_file`: text.
    pub original_file: String,
    /// `updated_file`: text.
    pub updated_file: String,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The `file` of a [`FileReadOutput`]: what was read, by the output's `type` (`text`, `image`,
/// `notebook`, `pdf`, `parts`). One struct for every form: the fields a form does not use are
/// absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ReadFile {
    /// The file's path (every form but `image`).
    #[serde(rename = "filePath", default, skip_serializing_if = "Option::is_none")]
    pub file_path: Option<String>,
    /// The text read (`text`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Lines in `content` (`text`).
    #[serde(rename = "numLines", default, skip_serializing_if = "Option::is_none")]
    pub num_lines: Option<Number>,
    /// The first line's number (`text`).
    #[serde(rename = "startLine", default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<Number>,
    /// Lines in the whole file (`text`).
    #[serde(
        rename = "totalLines",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub total_lines: Option<Number>,
    /// Whether a whole-file read was cut to its first page by the token cap (`text`).
    #[serde(
        rename = "truncatedByTokenCap",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub truncated_by_token_cap: Option<bool>,
    /// The bytes, base64 (`image`, `pdf`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base64: Option<String>,
    /// The image's MIME type (`image`).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// The file's size in bytes (`image`, `pdf`, `parts`).
    #[serde(
        rename = "originalSize",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub original_size: Option<Number>,
    /// The image's sizes before and after resizing (`image`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dimensions: Option<Value>,
    /// The notebook's cells (`notebook`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<Vec<Value>>,
    /// Pages extracted (`parts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<Number>,
    /// The directory of the extracted page images (`parts`).
    #[serde(rename = "outputDir", default, skip_serializing_if = "Option::is_none")]
    pub output_dir: Option<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One hunk of the `structuredPatch` of a [`FileEditOutput`] or [`FileWriteOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatchHunk {
    /// The hunk's first line in the old file.
    #[serde(rename = "oldStart")]
    pub old_start: Number,
    /// Its length in the old file.
    #[serde(rename = "oldLines")]
    pub old_lines: Number,
    /// Its first line in the new file.
    #[serde(rename = "newStart")]
    pub new_start: Number,
    /// Its length in the new file.
    #[serde(rename = "newLines")]
    pub new_lines: Number,
    /// The lines, each with its ` `, `-` or `+` prefix.
    pub lines: Vec<String>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The git view of a file change (`gitDiff` of a [`FileEditOutput`] or [`FileWriteOutput`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GitDiff {
    /// The file.
    pub filename: String,
    /// `modified` or `added`.
    pub status: String,
    /// Lines added.
    pub additions: Number,
    /// Lines removed.
    pub deletions: Number,
    /// Lines changed.
    pub changes: Number,
    /// The unified diff.
    pub patch: String,
    /// The repository: absent, `null` or its name.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "crate::serde_util::nullable"
    )]
    pub repository: Option<Option<String>>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
