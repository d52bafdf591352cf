//! What the page is made of: rows, their outputs and costs, the totals above them, and the
//! state a [`Reader`] keeps between lines (the reading itself is in `rows`, `frames` and
//! `entries`, each an `impl Reader` of its own).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, VecDeque};

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::tools::ToolView;

/// One row of the page.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Row<'a> {
    /// The input line it comes from, from 1.
    pub line: u64,
    /// `in` (host → CLI), `out` (CLI → host), `entry` (a saved session's entry), `meta` (a
    /// recording's first line), or `?` (not a frame, or a direction not known).
    pub dir: &'static str,
    /// Seconds from the start, when the input has times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// `type` or `type/subtype`; for a line that is no frame, what it is.
    pub kind: String,
    /// What it is in the conversation: `prompt`, `answer`, `thinking`, `tool`, `result`,
    /// `note`, `control`, `frame`, `bookkeeping`, `meta`, or `odd`.
    pub role: &'static str,
    /// The turn it belongs to, from 1.
    pub turn: usize,
    /// One line of text.
    pub summary: String,
    /// A prompt's or an answer's text rendered from Markdown, safely (see [`markdown`]).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub html: String,
    /// Tool calls, shown by kind.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolView>,
    /// A tool result's output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    /// The line as read (its frame, for a recording line).
    pub raw: Cow<'a, str>,
    /// Marks: `allow`, `deny`, `error`, `malformed`, `unknown`, `tool`, `control`, `odd`,
    /// `blank`, `argv`, `estimated`.
    pub marks: Vec<&'static str>,
    /// For a control response: the round trip since its request, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_ms: Option<f64>,
    /// What it cost: a result's turn, or a session's model response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// A tool result's output, cut to what the page shows.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Output {
    /// Its first lines.
    pub lines: Vec<String>,
    /// Lines left out.
    pub more: usize,
    /// Whether the tool failed (or was not allowed).
    pub error: bool,
    /// The permission decision, as the session recorded it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub decision: String,
}

/// What a turn or a response cost.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Cost {
    /// US dollars; `None` when the model has no list price.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Milliseconds.
    pub duration_ms: u64,
}

/// What the page says above the rows, known once every line is read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Totals {
    /// Rows written.
    pub rows: u64,
    /// Turns.
    pub turns: usize,
    /// Frames (recording lines and captured frames) and session entries among the rows.
    pub frames: u64,
    /// Session entries.
    pub entries: u64,
    /// US dollars, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usd: Option<f64>,
    /// Where `usd` comes from.
    pub cost_basis: String,
    /// Model responses without a list price (not in `usd`).
    pub unpriced: u64,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Milliseconds.
    pub duration_ms: u64,
    /// Permission decisions.
    pub allowed: u64,
    /// Permission decisions.
    pub denied: u64,
    /// Frames the schema could not type.
    pub malformed: u64,
    /// Frames of a kind the schema does not know.
    pub unknown: u64,
    /// Lines that are no frame or entry (blank, not JSON, over the limit, …).
    pub odd: u64,
}

/// Reads lines into rows, keeping only what later rows need.
#[derive(Default)]
pub struct Reader {
    /// The current turn, from 1.
    pub(super) turn: usize,
    /// Whether the current turn has its prompt.
    pub(super) prompted: bool,
    /// Whether the input holds the host's prompts at all.
    pub(super) prompted_ever: bool,
    /// Whether the current turn has its result.
    pub(super) ended: bool,
    /// The session's cost at the latest result.
    pub(super) session_cost: f64,
    /// Control requests not yet answered: id → (time, subtype).
    pub(super) open: HashMap<String, (Option<f64>, String)>,
    /// What a saved session's entries say about it.
    pub(super) session: SessionState,
    pub(super) totals: Totals,
}

/// What the entries say about the session as a whole.
#[derive(Debug, Default)]
pub struct SessionState {
    pub(super) id: Option<String>,
    /// The first entry's time: rows are timed from it.
    pub(super) started: Option<OffsetDateTime>,
    pub(super) last_t: f64,
    pub(super) custom_title: Option<String>,
    pub(super) ai_title: Option<String>,
    pub(super) summary: Option<String>,
    pub(super) first_prompt: Option<String>,
    pub(super) tag: Option<String>,
    pub(super) version: Option<String>,
    pub(super) cwd: Option<String>,
    pub(super) branch: Option<String>,
    pub(super) models: BTreeSet<String>,
    pub(super) recent_messages: VecDeque<String>,
    pub(super) input_tokens: u64,
    pub(super) output_tokens: u64,
    pub(super) estimated_usd: Option<f64>,
    pub(super) unpriced: u64,
    /// The session's own count: its latest `cost-state` entry.
    pub(super) own_cost: Option<Value>,
}

/// The page's header for a session.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SessionHeader {
    /// The session id.
    pub id: String,
    /// Its title: the custom title (`/rename`), else the AI title, else its id.
    pub title: String,
    /// Its summary, when it has one, else its last or first prompt.
    pub summary: String,
    /// The working directory.
    pub cwd: String,
    /// The git branch.
    pub branch: String,
    /// The Claude Code version that wrote it.
    pub version: String,
    /// Models that answered.
    pub models: Vec<String>,
    /// Its tag.
    pub tag: String,
}
