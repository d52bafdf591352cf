//! Typed outputs of the `Artifact` tool (see [`super::ToolOutput`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

/// The output of `Artifact`: every field of its 12 forms, those not in all of them optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ArtifactOutput {
    /// `url`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// `path`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `artifact_id`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_id: Option<String>,
    /// `title`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// `version`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `capabilities`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
    /// `stored`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<Value>,
    /// `warnings`: optional list of text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    /// `publishesRemaining`: optional number.
    #[serde(
        rename = "publishesRemaining",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub publishes_remaining: Option<Number>,
    /// `publishesResetAt`: optional number.
    #[serde(
        rename = "publishesResetAt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub publishes_reset_at: Option<Number>,
    /// `contract`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<String>,
    /// `updated`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated: Option<bool>,
    /// `owned`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owned: Option<bool>,
    /// `icon`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// `faviconSent`: optional flag.
    #[serde(
        rename = "faviconSent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub favicon_sent: Option<bool>,
    /// `iconDropped`: optional flag.
    #[serde(
        rename = "iconDropped",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub icon_dropped: Option<bool>,
    /// `audience`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// `folder_audience`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_audience: Option<String>,
    /// `seq`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<Number>,
    /// `unchanged`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unchanged: Option<bool>,
    /// `liveSubscription`: optional text.
    #[serde(
        rename = "liveSubscription",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub live_subscription: Option<String>,
    /// `pinned`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    /// `artifacts`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Value>,
    /// `truncated`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// `total`: optional number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Number>,
    /// `total_at_least`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_at_least: Option<bool>,
    /// `next_page_token`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_page_token: Option<String>,
    /// `pins_enabled`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins_enabled: Option<bool>,
    /// `scope`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `external_listed`: optional flag.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_listed: Option<bool>,
    /// `read`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<Value>,
    /// `artifactRead`: optional JSON value.
    #[serde(
        rename = "artifactRead",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub artifact_read: Option<Value>,
    /// `watch`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watch: Option<Value>,
    /// `unwatch`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwatch: Option<Value>,
    /// `watches`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub watches: Option<Value>,
    /// `filter_url`: optional text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_url: Option<String>,
    /// `arms`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arms: Option<Value>,
    /// `written`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub written: Option<Value>,
    /// `asset_upload`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_upload: Option<Value>,
    /// `asset_uploads`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_uploads: Option<Value>,
    /// `asset_list`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_list: Option<Value>,
    /// `asset_read`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_read: Option<Value>,
    /// `asset_delete`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_delete: Option<Value>,
    /// `pin`: optional JSON value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<Value>,
    /// Fields this version does not type, kept as read.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
