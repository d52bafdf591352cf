//! Typed outputs of the web tools (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `WebFetch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebFetchOutput {
    /// `bytes`: number.
    pub bytes: Number,
    /// `code`: number.
    pub code: Number,
    /// `codeText`: text.
    #[serde(rename = "codeText")]
    pub code_text: String,
    /// `result`: text.
    pub result: String,
    /// `durationMs`: number.
    #[serde(rename = "durationMs")]
    pub duration_ms: Number,
    /// `url`: text.
    pub url: String,
    /// `artifactRead`: optional JSON value.
    #[serde(
        rename = "artifactRead",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_read: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The output of `WebSearch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchOutput {
    /// `query`: text.
    pub query: String,
    /// `results`: JSON value.
    pub results: Value,
    /// `durationSeconds`: number.
    #[serde(rename = "durationSeconds")]
    pub duration_seconds: Number,
    /// `searchCount`: optional number.
    #[serde(
        rename = "searchCount",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub search_count: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
