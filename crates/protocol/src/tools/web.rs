//! Typed inputs of the web tools (see [`super::ToolInput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The input of `WebFetch`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WebFetchInput {
    /// `url`: text.
    pub url: String,
    /// `prompt`: text.
    pub prompt: String,
    /// `offset`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<Number>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The input of `WebSearch`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct WebSearchInput {
    /// `query`: text.
    pub query: String,
    /// `allowed_domains`: optional list of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_domains: Option<Vec<String>>,
    /// `blocked_domains`: optional list of strings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_domains: Option<Vec<String>>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
