//! `subagent_stats`: what became of the subagents a turn asked for (seen from CLI 2.1.330; not
//! in the SDK types).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The subagents of a turn: how many were asked for, started, finished, killed, refused.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubagentStats {
    /// Subagents started.
    #[serde(default)]
    pub spawned: u64,
    /// Subagent calls by the run mode they asked for.
    #[serde(default)]
    pub requested: SubagentRequests,
    /// Subagents that started in the background.
    #[serde(default)]
    pub started_in_background: u64,
    /// The deepest nesting of subagents.
    #[serde(default)]
    pub max_depth: u64,
    /// Subagents started by other subagents.
    #[serde(default)]
    pub spawned_by_subagents: u64,
    /// Subagents that completed.
    #[serde(default)]
    pub completed: u64,
    /// Subagents that failed.
    #[serde(default)]
    pub failed: u64,
    /// Subagents killed, by who killed them.
    #[serde(default)]
    pub killed: SubagentKills,
    /// Subagent calls refused, by reason.
    #[serde(default)]
    pub refused: SubagentRefusals,
    /// Subagents started, by agent type.
    #[serde(default)]
    pub by_type: BTreeMap<String, u64>,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Subagent calls by the run mode they asked for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubagentRequests {
    /// Asked to run in the background.
    #[serde(default)]
    pub background: u64,
    /// Asked to run in the foreground.
    #[serde(default)]
    pub foreground: u64,
    /// Asked for neither.
    #[serde(default)]
    pub unset: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Subagents killed, by who killed them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubagentKills {
    /// By the agent that started them.
    #[serde(default)]
    pub parent: u64,
    /// By the user.
    #[serde(default)]
    pub user: u64,
    /// By the CLI itself.
    #[serde(default)]
    pub system: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Subagent calls refused, by reason.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SubagentRefusals {
    /// Nested too deep.
    #[serde(default)]
    pub depth_limit: u64,
    /// Too many at once.
    #[serde(default)]
    pub concurrency_limit: u64,
    /// Over the task budget.
    #[serde(default)]
    pub budget: u64,
    /// Fields this version does not know.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
