//! The line that ends a turn: `✓ 2 steps · $0.0016 · 5.1 s`, `✗ error_max_turns · …`, or
//! `⏹ interrupted · …`, with the turn's own cost.
//!
//! Words: a *step* is one round of the agent loop (a model call and the tools it asked for;
//! the result's `num_turns`), a *prompt* is what the user sent (chat's `/cost` counts them).
//! The CLI's `total_cost_usd` is the session's running total, also across a `--resume` (the
//! CLI restores it), so a turn's own cost is the difference from the session's previous
//! result; for the first result a process sees, the CLI's `model_usage_since_last_result`
//! (2.1.330 and newer) when present, else the total.

use twinwire_protocol::result::{ResultMessage, ResultSubtype, TerminalReason};

use super::label::plural;
use crate::terminal::{sanitize, Style};

/// The session total of the last result seen, to tell each turn's own cost.
#[derive(Debug, Default, Clone)]
pub struct TurnCosts {
    /// The session id and `total_cost_usd` of the last result.
    last: Option<(String, f64)>,
}

impl TurnCosts {
    /// The cost of the turn `result` ends; remembers its session's total for the next.
    pub fn turn(&mut self, result: &ResultMessage) -> f64 {
        let previous = self
            .last
            .as_ref()
            .filter(|(session, _)| *session == result.session_id)
            .map(|(_, total)| *total);
        self.last = Some((result.session_id.clone(), result.total_cost_usd));
        turn_cost(result, previous)
    }
}

/// The cost of the turn `result` ends, given the session's total at the previous result.
pub fn turn_cost(result: &ResultMessage, previous_total: Option<f64>) -> f64 {
    match (previous_total, &result.model_usage_since_last_result) {
        (Some(previous), _) => (result.total_cost_usd - previous).max(0.0),
        // Folded from +0.0: `sum` of no models is -0.0, which prints as `$-0.0000`.
        (None, Some(usage)) => usage.values().fold(0.0, |sum, model| sum + model.cost_usd),
        (None, None) => result.total_cost_usd,
    }
}

/// Whether `result` ends a turn that was interrupted: the CLI says it aborted, or it is the
/// `error_during_execution` that follows an interrupt twinwire sent.
pub fn was_interrupted(result: &ResultMessage, interrupt_sent: bool) -> bool {
    let aborted = matches!(
        result.terminal_reason,
        Some(TerminalReason::AbortedStreaming | TerminalReason::AbortedTools)
    );
    aborted || (interrupt_sent && result.subtype == ResultSubtype::ErrorDuringExecution)
}

/// `✓ 2 steps · $0.0012 · 1.4 s`, `✗ error_max_turns · …` for an error result, or
/// `⏹ interrupted · …`; `cost` is the turn's own.
pub fn summary_line(result: &ResultMessage, cost: f64, interrupted: bool, style: Style) -> String {
    let steps = result.num_turns;
    let stats = format!(
        "{steps} step{} · ${cost:.4} · {}",
        plural(steps),
        duration(result.duration_ms)
    );
    if interrupted {
        format!("⏹ interrupted · {stats}")
    } else if result.is_error {
        let what = match &result.subtype {
            ResultSubtype::Success => "error".to_owned(),
            other => sanitize(other.as_str()).into_owned(),
        };
        format!("{} {what} · {stats}", style.red("✗"))
    } else {
        format!("{} {stats}", style.green("✓"))
    }
}

/// What an error result says: its `errors`, else its text.
pub fn error_details(result: &ResultMessage) -> Vec<String> {
    let mut details: Vec<String> = result.errors.clone().unwrap_or_default();
    if details.is_empty() {
        if let Some(text) = result.result.as_deref().filter(|t| !t.trim().is_empty()) {
            details.push(text.trim().to_owned());
        }
    }
    details
}

/// `1.4 s`, or `1m 15s` from a minute on.
pub fn duration(ms: u64) -> String {
    if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        let secs = ms / 1000;
        format!("{}m {:02}s", secs / 60, secs % 60)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn result(session: &str, total: f64, since: Option<f64>) -> ResultMessage {
        let mut frame = json!({"type": "result", "subtype": "success", "is_error": false,
            "duration_ms": 1400, "duration_api_ms": 1000, "num_turns": 1, "result": "ok",
            "session_id": session, "total_cost_usd": total,
            "usage": {"input_tokens": 1, "output_tokens": 1}, "modelUsage": {},
            "permission_denials": [], "uuid": "r"});
        if let Some(cost) = since {
            frame["model_usage_since_last_result"] =
                json!({"claude-x": {"inputTokens": 1, "outputTokens": 1, "costUSD": cost}});
        }
        serde_json::from_value(frame).unwrap()
    }

    #[test]
    fn each_turn_shows_its_own_cost() {
        let mut costs = TurnCosts::default();
        // A fresh session: the first total is the first turn's cost.
        assert!((costs.turn(&result("a", 0.0016, None)) - 0.0016).abs() < 1e-12);
        // Then the difference from the previous total, not the running total.
        assert!((costs.turn(&result("a", 0.0024, Some(0.0008))) - 0.0008).abs() < 1e-12);
        // A resumed session starts from its earlier runs' total: the CLI's own figure.
        assert!((costs.turn(&result("b", 0.0040, Some(0.0008))) - 0.0008).abs() < 1e-12);
        assert!((costs.turn(&result("b", 0.0048, None)) - 0.0008).abs() < 1e-12);
    }

    #[test]
    fn a_turn_that_used_no_model_costs_zero_not_minus_zero() {
        let mut failed = result("a", 0.0, None);
        failed.model_usage_since_last_result = Some(Default::default());
        let cost = TurnCosts::default().turn(&failed);
        assert_eq!(
            summary_line(&failed, cost, false, Style::default()),
            "✓ 1 step · $0.0000 · 1.4 s"
        );
    }

    #[test]
    fn lines() {
        let ok = result("a", 0.0016, None);
        assert_eq!(
            summary_line(&ok, 0.0008, false, Style::default()),
            "✓ 1 step · $0.0008 · 1.4 s"
        );
        let mut aborted = ok.clone();
        aborted.subtype = ResultSubtype::ErrorDuringExecution;
        aborted.is_error = true;
        aborted.num_turns = 2;
        assert!(!was_interrupted(&aborted, false));
        assert!(was_interrupted(&aborted, true));
        assert_eq!(
            summary_line(&aborted, 0.0001, false, Style::default()),
            "✗ error_during_execution · 2 steps · $0.0001 · 1.4 s"
        );
        assert_eq!(
            summary_line(&aborted, 0.0001, true, Style::default()),
            "⏹ interrupted · 2 steps · $0.0001 · 1.4 s"
        );
        aborted.terminal_reason = Some(TerminalReason::AbortedTools);
        assert!(was_interrupted(&aborted, false));
        assert_eq!(duration(75_500), "1m 15s");
    }
}
