//! [`ResultError`]: a `result` that reports a failed turn, as an error value.

use super::{ResultMessage, ResultSubtype, TerminalReason};
use crate::limits::LimitNotice;

/// A failed turn as an error (the Python SDK's `ResultError`): what its `result` says went
/// wrong. From [`ResultMessage::error`]; its text is the SDKs' (`Claude Code returned an error
/// result: …`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("Claude Code returned an error result: {}", self.detail())]
#[non_exhaustive]
pub struct ResultError {
    /// How the turn ended (`success` with `is_error` after an API error, or an error subtype).
    pub subtype: ResultSubtype,
    /// The CLI's error texts, if it gave any.
    pub errors: Vec<String>,
    /// The result's text (on a failed `success`, the error as the user would read it).
    pub result: Option<String>,
    /// The HTTP status of the API error that ended the turn, if one did.
    pub api_error_status: Option<u64>,
    /// Why the loop stopped, where the CLI says.
    pub terminal_reason: Option<TerminalReason>,
    /// The session.
    pub session_id: String,
}

impl ResultError {
    /// The most specific text there is: the errors, else the result's text, else the subtype.
    pub fn detail(&self) -> String {
        if !self.errors.is_empty() {
            return self.errors.join("; ");
        }
        match self.result.as_deref().filter(|text| !text.is_empty()) {
            Some(text) => text.to_owned(),
            None => self.subtype.as_str().to_owned(),
        }
    }

    /// What the error says about usage limits: [`LimitNotice::Reached`] when the turn failed
    /// because a usage limit was reached, [`LimitNotice::OrgPolicy`] when an org policy refused
    /// it.
    pub fn limit(&self) -> Option<LimitNotice> {
        self.result
            .iter()
            .chain(&self.errors)
            .find_map(|text| LimitNotice::of(text))
    }

    /// Whether the turn failed because a usage limit was reached.
    pub fn is_usage_limit(&self) -> bool {
        self.limit() == Some(LimitNotice::Reached)
    }

    /// Whether the turn failed for want of credentials: the CLI is not logged in, its login
    /// expired or was revoked, or its API key was refused (`Not logged in · Please run
    /// /login`, `Invalid API key · Please run /login`, …). `/login` is a command of Claude
    /// Code's own terminal; a host gives credentials through the CLI's environment instead
    /// (`ANTHROPIC_API_KEY`).
    pub fn needs_login(&self) -> bool {
        self.result
            .iter()
            .chain(&self.errors)
            .any(|text| LOGIN_WORDS.iter().any(|words| text.contains(words)))
    }
}

/// What Claude Code says when it has no usable credentials (its texts end with `Please run
/// /login`; `Not logged in` is the one without a key at all).
const LOGIN_WORDS: [&str; 2] = ["Please run /login", "Not logged in"];

impl ResultMessage {
    /// The answer of a turn that succeeded (its final text; empty when it has none), or the
    /// failure it reports: `println!("{}", result.answer()?)`. The failure is boxed, as
    /// `twinwire::Error` holds it.
    pub fn answer(&self) -> Result<&str, Box<ResultError>> {
        match self.error() {
            Some(error) => Err(Box::new(error)),
            None => Ok(self.text().unwrap_or_default()),
        }
    }

    /// The failure this result reports, or `None` for a turn that succeeded.
    pub fn error(&self) -> Option<ResultError> {
        if self.is_success() {
            return None;
        }
        Some(ResultError {
            subtype: self.subtype.clone(),
            errors: self.errors.clone().unwrap_or_default(),
            result: self.result.clone(),
            api_error_status: self.api_error_status.flatten(),
            terminal_reason: self.terminal_reason.clone(),
            session_id: self.session_id.clone(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn result(value: serde_json::Value) -> ResultMessage {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_success_has_no_error() {
        let ok = result(json!({"subtype": "success", "is_error": false, "result": "hi"}));
        assert_eq!(ok.error(), None);
    }

    #[test]
    fn an_api_error_reads_as_the_sdks_say_it() {
        let failed = result(json!({
            "subtype": "success", "is_error": true, "result": "API Error: 500 boom",
            "api_error_status": 500, "terminal_reason": "api_error", "session_id": "s1"
        }));
        let error = failed.error().unwrap();
        assert_eq!(error.api_error_status, Some(500));
        assert_eq!(error.terminal_reason, Some(TerminalReason::ApiError));
        assert_eq!(error.session_id, "s1");
        assert_eq!(
            error.to_string(),
            "Claude Code returned an error result: API Error: 500 boom"
        );
        assert_eq!(error.limit(), None);
    }

    #[test]
    fn the_answer_is_the_text_of_a_success_or_the_failure() {
        let ok = result(json!({"subtype": "success", "is_error": false, "result": "4"}));
        assert_eq!(ok.answer(), Ok("4"));
        let silent = result(json!({"subtype": "success", "is_error": false}));
        assert_eq!(silent.answer(), Ok(""));
        let failed = result(json!({
            "subtype": "success", "is_error": true,
            "result": "Not logged in · Please run /login"
        }));
        let error = failed.answer().unwrap_err();
        assert!(error.needs_login(), "{error}");
        assert!(!error.is_usage_limit());
    }

    #[test]
    fn a_refused_key_or_an_expired_login_needs_a_login_and_an_api_error_does_not() {
        let failed = |text: &str| {
            result(json!({"subtype": "success", "is_error": true, "result": text}))
                .error()
                .unwrap()
        };
        assert!(failed("API Error: 401 Invalid API key · Please run /login").needs_login());
        assert!(failed("OAuth token revoked · Please run /login").needs_login());
        assert!(!failed("API Error: 500 boom").needs_login());
    }

    #[test]
    fn errors_come_first_then_the_subtype() {
        let failed = result(json!({
            "subtype": "error_during_execution", "is_error": true,
            "errors": ["first", "second"]
        }));
        assert_eq!(failed.error().unwrap().detail(), "first; second");
        let bare = result(json!({"subtype": "error_max_turns", "is_error": true}));
        assert_eq!(bare.error().unwrap().detail(), "error_max_turns");
    }

    #[test]
    fn a_message_gives_its_result_error_even_when_malformed() {
        let typed = crate::Message::from_json(
            r#"{"type":"result","subtype":"error_max_turns","is_error":true,"session_id":"s"}"#,
        )
        .unwrap();
        let error = typed.result_error().unwrap();
        assert_eq!(error.subtype, ResultSubtype::ErrorMaxTurns);
        // A `result` the reader could not type: what can be read of it is still given.
        let malformed = crate::Message::Malformed(Box::new(crate::union::Malformed {
            tag: "result".to_owned(),
            raw: serde_json::json!({"type": "result", "subtype": "success", "is_error": true,
                "result": "You're out of usage credits", "api_error_status": 429}),
            path: "usage".to_owned(),
            message: "a test".to_owned(),
        }));
        let error = malformed.result_error().unwrap();
        assert!(error.is_usage_limit(), "{error:?}");
        assert_eq!(error.api_error_status, Some(429));
        let ok =
            crate::Message::from_json(r#"{"type":"result","subtype":"success","is_error":false}"#)
                .unwrap();
        assert_eq!(ok.result_error(), None);
        let other =
            crate::Message::from_json(r#"{"type":"assistant","message":{"content":[]}}"#).unwrap();
        assert_eq!(other.result_error(), None);
    }

    #[test]
    fn a_reached_limit_is_told_from_an_org_policy() {
        let limit = result(json!({
            "subtype": "success", "is_error": true,
            "result": "You've hit your limit · resets 5pm", "api_error_status": 429
        }));
        assert!(limit.error().unwrap().is_usage_limit());
        let policy = result(json!({
            "subtype": "error_during_execution", "is_error": true,
            "errors": ["This service is disabled for your org"]
        }));
        let policy = policy.error().unwrap();
        assert_eq!(policy.limit(), Some(LimitNotice::OrgPolicy));
        assert!(!policy.is_usage_limit());
    }
}
