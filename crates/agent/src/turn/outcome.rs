//! How a turn ended, what it counted on the way, and the `result` Claude Code writes for it.

use std::time::Instant;

use serde_json::Value;
use twinwire_protocol::permission::PermissionDenial;
use twinwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};
use twinwire_protocol::usage::{ModelUsage, Usage};

use crate::model::ModelError;

/// How a turn ended.
pub(crate) enum End {
    Done,
    Interrupted {
        tools: bool,
    },
    MaxTurns(u32),
    Budget(f64),
    Api(ModelError),
    StructuredRetries,
    Stopped(String),
    /// A command the agent ran itself (`/compact`, `/clear`): a success with this text, and
    /// no model call.
    Local(String),
    /// The API's safeguards refused the reply, and no other model answered.
    Refused(String),
    /// The API said the request is larger than the context window.
    TooLong(ModelError),
}

/// What a turn counts as it goes.
pub(crate) struct Tally {
    pub(crate) started: Instant,
    pub(crate) usage: Usage,
    pub(crate) api_ms: u64,
    pub(crate) num_turns: u32,
    pub(crate) denials: Vec<PermissionDenial>,
    /// The text of the last reply that had any.
    pub(crate) last_text: String,
    pub(crate) structured: Option<Value>,
    pub(crate) stop_reason: Option<String>,
    pub(crate) ttft_ms: Option<u64>,
    /// How many tool calls were made.
    pub(crate) tool_uses: u64,
    /// The API's id of the last request.
    pub(crate) request_id: Option<String>,
}

impl Tally {
    pub(crate) fn new() -> Self {
        Self {
            started: Instant::now(),
            usage: Usage::default(),
            api_ms: 0,
            num_turns: 0,
            denials: Vec::new(),
            last_text: String::new(),
            structured: None,
            stop_reason: None,
            ttft_ms: None,
            tool_uses: 0,
            request_id: None,
        }
    }

    /// Adds one model call's usage.
    pub(crate) fn add_usage(&mut self, usage: &Usage) {
        self.usage.input_tokens += usage.input_tokens;
        self.usage.output_tokens += usage.output_tokens;
        let add = |a: Option<u64>, b: Option<u64>| Some(a.unwrap_or(0) + b.unwrap_or(0));
        self.usage.cache_read_input_tokens = add(
            self.usage.cache_read_input_tokens,
            usage.cache_read_input_tokens,
        );
        self.usage.cache_creation_input_tokens = add(
            self.usage.cache_creation_input_tokens,
            usage.cache_creation_input_tokens,
        );
    }
}

/// The session's totals the result reports beside the turn's own.
pub(crate) struct Totals {
    pub(crate) session_id: String,
    pub(crate) cost_usd: f64,
    pub(crate) model_usage: std::collections::BTreeMap<String, ModelUsage>,
}

/// The `result` of a turn that ended with `end`.
pub(crate) fn result(end: &End, tally: Tally, totals: Totals) -> ResultMessage {
    let mut text = Some(tally.last_text);
    let (subtype, is_error, terminal, errors, api_status) = match end {
        End::Done => (ResultSubtype::Success, false, "completed", None, None),
        End::Interrupted { tools } => (
            ResultSubtype::ErrorDuringExecution,
            true,
            if *tools {
                "aborted_tools"
            } else {
                "aborted_streaming"
            },
            Some(Vec::new()),
            None,
        ),
        End::MaxTurns(max) => (
            ResultSubtype::ErrorMaxTurns,
            true,
            "max_turns",
            Some(vec![format!("Reached the maximum number of turns ({max})")]),
            None,
        ),
        End::Budget(max) => (
            ResultSubtype::ErrorMaxBudgetUsd,
            true,
            "completed",
            Some(vec![format!("Reached the maximum budget (${max})")]),
            None,
        ),
        End::Local(said) => {
            text = Some(said.clone());
            (ResultSubtype::Success, false, "", None, None)
        }
        End::Refused(said) => {
            text = Some(said.clone());
            (ResultSubtype::Success, true, "api_error", None, None)
        }
        End::Api(error) | End::TooLong(error) => {
            text = Some(match error.status() {
                Some(s) if s >= 500 => format!(
                    "{error}. This is a server-side issue, usually temporary; try again in a moment."
                ),
                _ => error.to_string(),
            });
            (
                ResultSubtype::Success,
                true,
                "api_error",
                None,
                error.status(),
            )
        }
        End::StructuredRetries => (
            ResultSubtype::ErrorMaxStructuredOutputRetries,
            true,
            "completed",
            Some(vec!["The model did not give structured output.".into()]),
            None,
        ),
        End::Stopped(reason) => {
            text = Some(reason.clone());
            (ResultSubtype::Success, false, "hook_stopped", None, None)
        }
    };
    let mut usage = tally.usage;
    usage.cache_creation_input_tokens = Some(usage.cache_creation_input_tokens.unwrap_or(0));
    usage.cache_read_input_tokens = Some(usage.cache_read_input_tokens.unwrap_or(0));
    ResultMessage {
        subtype: subtype.clone(),
        is_error,
        duration_ms: u64::try_from(tally.started.elapsed().as_millis()).unwrap_or(0),
        duration_api_ms: tally.api_ms,
        num_turns: u64::from(if matches!(end, End::Local(_)) {
            0
        } else {
            tally.num_turns.max(1)
        }),
        result: if subtype == ResultSubtype::Success {
            text
        } else {
            None
        },
        stop_reason: Some(tally.stop_reason),
        session_id: totals.session_id,
        total_cost_usd: totals.cost_usd,
        usage,
        model_usage: totals.model_usage,
        permission_denials: tally.denials,
        errors,
        api_error_status: api_status.map(|s| Some(u64::from(s))),
        terminal_reason: (!terminal.is_empty()).then(|| TerminalReason::from(terminal)),
        structured_output: tally.structured,
        ttft_ms: tally.ttft_ms,
        uuid: twinwire::agent::frames::new_id(),
        ..ResultMessage::default()
    }
}
