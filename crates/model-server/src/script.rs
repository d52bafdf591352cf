//! The script a [`ModelServer`](super::ModelServer) follows: rules, their conditions, replies.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// What the fake model answers: the first [`Rule`] whose condition matches a request, else
/// [`default`](Self::default).
///
/// See the [module docs](super) for the JSON format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelScript {
    /// Rules tried in order; the first that matches (and is not used up) answers.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// The reply when no rule matches, and for a body that is not a JSON object.
    #[serde(default)]
    pub default: Reply,
    /// The model name put in replies instead of the request's `model`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// One rule of a [`ModelScript`]: a condition and the reply it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rule {
    /// The condition on the request's content.
    pub when: When,
    /// The reply given when the condition holds.
    pub reply: Reply,
    /// How many requests the rule may answer; `None` means no limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
    /// The `input_tokens` the reply reports instead of the usual 100: a conversation that
    /// looks nearly as large as the context window, so that a client compacts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
}

/// A condition on a request's content (never on the order of requests).
///
/// In JSON each condition is an object with exactly one key, e.g.
/// `{"last_user_text_contains": "hello"}`; combine several with `all` / `any`. Text tests are
/// case-sensitive substring tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum When {
    /// The last `user` message's text blocks, joined with newlines, with every
    /// `<system-reminder>…</system-reminder>` removed and trimmed, contain this string.
    LastUserTextContains(String),
    /// The last `user` message's last text block that is not only system reminders (stripped
    /// and trimmed) contains this string. After an API error the CLI merges the failed prompt
    /// into the next user message, so prefer this over `LastUserTextContains` to trigger errors.
    LastPromptContains(String),
    /// Whether the last `user` message ends with a `tool_result` block (trailing text blocks
    /// holding only system reminders are skipped).
    LastIsToolResult(bool),
    /// Some message of the conversation contains this string: its text blocks with their system
    /// reminders (where the CLI tells the model of a finished background task), its tool
    /// results' text, or its tool calls' input as JSON. For a rule that depends on an earlier
    /// turn, or on a subagent's report.
    ConversationContains(String),
    /// The last `user` message ends with a `tool_result` whose text contains this string.
    ToolResultContains(String),
    /// Whether that final `tool_result` has `is_error: true` (a failure or a permission denial).
    ToolResultIsError(bool),
    /// The system prompt (top-level `system`, string or text blocks, plus the text of any
    /// `role: "system"` message) contains this string.
    SystemContains(String),
    /// The request's `model` is exactly this.
    ModelIs(String),
    /// Whether the request offers a tool with this name in `tools`.
    HasTool(String),
    /// Whether the conversation has no `assistant` message yet (the first request of a turn
    /// that starts a session, or a side request).
    FirstTurn(bool),
    /// The request's `max_tokens` is present and at most this (side requests ask for little).
    MaxTokensAtMost(u64),
    /// Every condition holds (true for an empty list).
    All(Vec<When>),
    /// At least one condition holds (false for an empty list).
    Any(Vec<When>),
    /// The condition does not hold.
    Not(Box<When>),
    /// `true` matches every request, `false` none.
    Always(bool),
}

/// What the fake model answers.
///
/// In JSON each reply is an object with exactly one key, e.g. `{"text": "Hi"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reply {
    /// A text reply, `stop_reason: "end_turn"`.
    Text(String),
    /// A tool call, optionally after some text; `stop_reason: "tool_use"`.
    ToolUse(ToolUseReply),
    /// Several tool calls in one reply (the model's parallel calls), optionally after some
    /// text; `stop_reason: "tool_use"`.
    ToolUses(ToolUsesReply),
    /// A reply that used the API's web search tool: a `server_tool_use` block, its
    /// `web_search_tool_result` with these hits, then the text; `stop_reason: "end_turn"`.
    WebSearch(WebSearchReply),
    /// An HTTP error with Anthropic's error body.
    Error(ErrorReply),
    /// A usage limit reached: a 429 `rate_limit_error` with the unified rate-limit headers
    /// (`anthropic-ratelimit-unified-status: rejected`, `…-reset: <epoch seconds>`) and
    /// `x-should-retry: false`, which Claude Code reports as "You've hit your limit · resets …".
    UsageLimit(UsageLimitReply),
    /// A text reply streamed slowly (to interrupt it mid-stream).
    SlowText(SlowTextReply),
    /// A text reply whose text is this JSON value serialized.
    Json(Value),
    /// A text reply `You said: <last prompt>`, the prompt being the last user message's last
    /// text block besides system reminders (the value is ignored; write `true`).
    Echo(bool),
    /// A text reply the API's safeguards stopped: `stop_reason: "refusal"` with `stop_details`
    /// (the CLI may retry, fall back to another model, or ask the host first).
    Refusal(RefusalReply),
}

/// The payload of [`Reply::ToolUse`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseReply {
    /// The tool's name, e.g. `Bash` or `mcp__server__tool`.
    pub name: String,
    /// The tool's input; `{}` when absent.
    #[serde(default = "empty_object")]
    pub input: Value,
    /// Text sent in a block before the tool call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The payload of [`Reply::ToolUses`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUsesReply {
    /// The calls, in order; each gets a fresh id.
    pub calls: Vec<ToolCall>,
    /// Text sent in a block before the calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The payload of [`Reply::WebSearch`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WebSearchReply {
    /// The query searched; when absent, the last prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// The hits.
    #[serde(default)]
    pub results: Vec<SearchHit>,
    /// The text after the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One hit of a [`WebSearchReply`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    /// The page's title.
    pub title: String,
    /// The page's address.
    pub url: String,
}

/// One call of a [`ToolUsesReply`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool's name.
    pub name: String,
    /// Its input; `{}` when absent.
    #[serde(default = "empty_object")]
    pub input: Value,
    /// Input fields taken from the conversation: field → a regular expression whose first
    /// group, at its last match in the conversation's text, becomes the field's value (an id
    /// the client made up, such as a background job's). A field whose expression matches
    /// nothing is left as `input` has it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub fill: std::collections::BTreeMap<String, String>,
}

/// The payload of [`Reply::Error`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorReply {
    /// The HTTP status, e.g. 400, 500 or 529 (anything outside 100–999 is sent as 500).
    pub status: u16,
    /// The error's `type`; when absent, derived from the status (`invalid_request_error`,
    /// `api_error`, `overloaded_error`, …).
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    /// The error's `message`; when absent, `fake <status> <type>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The payload of [`Reply::UsageLimit`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsageLimitReply {
    /// Seconds from the reply to the reset the headers name.
    pub reset_in_seconds: u64,
    /// The limit that was reached (`anthropic-ratelimit-unified-representative-claim`);
    /// `five_hour` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<String>,
}

impl UsageLimitReply {
    /// The claim sent: the given one, else `five_hour`.
    pub fn claim(&self) -> &str {
        self.claim.as_deref().unwrap_or("five_hour")
    }

    /// The error message of the reply: Claude Code's own wording of a reached limit, the reset
    /// at `reset` (Unix seconds) in RFC 3339, so that the CLI, which passes an API key's 429
    /// message on as it is, reports the limit and its reset in words a host can read.
    pub fn message(&self, reset: u64) -> String {
        let at = i64::try_from(reset)
            .ok()
            .and_then(|secs| time::OffsetDateTime::from_unix_timestamp(secs).ok())
            .and_then(|at| {
                at.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .unwrap_or_else(|| reset.to_string());
        format!("You've hit your limit · resets {at}")
    }

    /// The headers of the reply, the reset being `now` (Unix seconds) plus `reset_in_seconds`.
    pub fn headers(&self, now: u64) -> Vec<(&'static str, String)> {
        let reset = now.saturating_add(self.reset_in_seconds);
        vec![
            ("anthropic-ratelimit-unified-status", "rejected".to_owned()),
            ("anthropic-ratelimit-unified-reset", reset.to_string()),
            (
                "anthropic-ratelimit-unified-representative-claim",
                self.claim().to_owned(),
            ),
            ("x-should-retry", "false".to_owned()),
        ]
    }
}

/// The payload of [`Reply::Refusal`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RefusalReply {
    /// The text streamed before the stop.
    pub text: String,
    /// `stop_details.category`, e.g. `cyber` or `bio`; `null` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// `stop_details.explanation`; `null` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
}

/// The payload of [`Reply::SlowText`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SlowTextReply {
    /// The whole text.
    pub text: String,
    /// How many `text_delta` events carry it (at least 1; default 20).
    #[serde(default = "default_deltas")]
    pub deltas: u32,
    /// The pause between two deltas, in milliseconds (default 50).
    #[serde(default = "default_delay_ms")]
    pub delay_ms: u64,
}

impl Default for Reply {
    /// [`Reply::Echo`].
    fn default() -> Self {
        Reply::Echo(true)
    }
}

impl Default for ModelScript {
    /// No rules; every request is echoed.
    fn default() -> Self {
        ModelScript::new(Reply::default())
    }
}

impl ModelScript {
    /// A script with no rules that answers everything with `default`.
    pub fn new(default: Reply) -> Self {
        ModelScript {
            rules: Vec::new(),
            default,
            model: None,
        }
    }

    /// Adds a rule after the existing ones.
    #[must_use]
    pub fn rule(mut self, rule: Rule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Reads a JSON script from a file; a malformed script is an `InvalidData` error naming the
    /// file and the problem.
    pub fn from_file(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)?;
        Self::from_json(&text).map_err(|err| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("model script {}: {err}", path.display()),
            )
        })
    }

    /// Parses a JSON script.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The built-in script of `twinwire run --offline`.
    ///
    /// * A first turn that offers the `Bash` tool gets a short text and a `Bash` call writing
    ///   `hello from twinwire` to `twinwire-demo.txt`.
    /// * A request whose last block is that call's `tool_result` gets a summary: "I wrote
    ///   twinwire-demo.txt…", or "The command was not allowed…" when the result is an error or
    ///   reads like a denial.
    /// * Anything else (later prompts, side requests) is echoed.
    pub fn demo() -> Self {
        let denied = When::Any(vec![
            When::ToolResultIsError(true),
            When::ToolResultContains("not allowed".into()),
            When::ToolResultContains("denied".into()),
            When::ToolResultContains("rejected".into()),
            When::ToolResultContains("needs approval".into()),
        ]);
        ModelScript::new(Reply::Echo(true))
            .rule(Rule::new(
                When::All(vec![When::LastIsToolResult(true), denied]),
                Reply::Text(
                    "The command was not allowed, so twinwire-demo.txt was not written. \
                     Allow the Bash tool (or use a permission mode that permits it) and try again."
                        .into(),
                ),
            ))
            .rule(Rule::new(
                When::LastIsToolResult(true),
                Reply::Text(
                    "I wrote twinwire-demo.txt: it now contains \"hello from twinwire\".".into(),
                ),
            ))
            .rule(Rule::new(
                When::All(vec![When::FirstTurn(true), When::HasTool("Bash".into())]),
                Reply::ToolUse(ToolUseReply {
                    name: "Bash".into(),
                    input: json!({
                        "command": "echo 'hello from twinwire' > twinwire-demo.txt",
                        "description": "Write a greeting to twinwire-demo.txt",
                    }),
                    text: Some("I'll write a greeting to twinwire-demo.txt with Bash.".into()),
                }),
            ))
    }
}

impl Rule {
    /// A rule without a use limit.
    pub fn new(when: When, reply: Reply) -> Self {
        Rule {
            when,
            reply,
            times: None,
            input_tokens: None,
        }
    }

    /// Limits the rule to `n` replies; after that it is skipped.
    #[must_use]
    pub fn times(mut self, n: u32) -> Self {
        self.times = Some(n);
        self
    }
}

impl Reply {
    /// A text reply.
    pub fn text(text: impl Into<String>) -> Self {
        Reply::Text(text.into())
    }

    /// A tool call without preceding text.
    pub fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Reply::ToolUse(ToolUseReply {
            name: name.into(),
            input,
            text: None,
        })
    }

    /// An HTTP error with the type derived from the status and a default message.
    pub fn error(status: u16) -> Self {
        Reply::Error(ErrorReply {
            status,
            error_type: None,
            message: None,
        })
    }
}

impl Reply {
    /// A usage limit that resets `seconds` after the reply.
    pub fn usage_limit(seconds: u64) -> Self {
        Reply::UsageLimit(UsageLimitReply {
            reset_in_seconds: seconds,
            claim: None,
        })
    }
}

impl RefusalReply {
    /// The `stop_details` object the API sends with `stop_reason: "refusal"`.
    pub fn stop_details(&self) -> Value {
        json!({
            "type": "refusal",
            "category": self.category,
            "explanation": self.explanation,
        })
    }
}

impl ErrorReply {
    /// The error `type` sent: the given one, else the one Anthropic uses for the status.
    pub fn error_type(&self) -> &str {
        match &self.error_type {
            Some(kind) => kind,
            None => match self.status {
                400 => "invalid_request_error",
                401 => "authentication_error",
                403 => "permission_error",
                404 => "not_found_error",
                413 => "request_too_large",
                429 => "rate_limit_error",
                529 => "overloaded_error",
                _ => "api_error",
            },
        }
    }

    /// The error `message` sent: the given one, else `fake <status> <type>`.
    pub fn message(&self) -> String {
        match &self.message {
            Some(message) => message.clone(),
            None => format!("fake {} {}", self.status, self.error_type()),
        }
    }
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

fn default_deltas() -> u32 {
    20
}

fn default_delay_ms() -> u64 {
    50
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usage_limit_reads_from_json_and_names_its_reset() {
        let script = ModelScript::from_json(
            r#"{"rules": [{"when": {"always": true},
                "reply": {"usage_limit": {"reset_in_seconds": 2, "claim": "seven_day"}}}]}"#,
        )
        .unwrap();
        let Reply::UsageLimit(limit) = &script.rules[0].reply else {
            panic!("not a usage limit: {:?}", script.rules[0].reply);
        };
        let headers = limit.headers(1_000);
        assert!(headers.contains(&("anthropic-ratelimit-unified-reset", "1002".to_owned())));
        assert!(headers.contains(&("anthropic-ratelimit-unified-status", "rejected".to_owned())));
        assert_eq!(limit.claim(), "seven_day");
        assert_eq!(
            limit.message(1_002),
            "You've hit your limit · resets 1970-01-01T00:16:42Z"
        );
        assert_eq!(
            Reply::usage_limit(5),
            Reply::UsageLimit(UsageLimitReply {
                reset_in_seconds: 5,
                claim: None,
            })
        );
    }

    #[test]
    fn parses_every_condition_and_reply() {
        let script = ModelScript::from_json(
            r#"{
              "model": "claude-fake-1",
              "rules": [
                {"when": {"last_user_text_contains": "hi"}, "reply": {"text": "hello"}},
                {"when": {"all": [{"last_is_tool_result": true}, {"tool_result_contains": "ok"}]},
                 "reply": {"json": {"a": 1}}, "times": 2},
                {"when": {"any": [{"system_contains": "x"}, {"model_is": "m"}]},
                 "reply": {"tool_use": {"name": "Bash", "input": {"command": "ls"}}}},
                {"when": {"not": {"always": true}}, "reply": {"error": {"status": 529}}},
                {"when": {"has_tool": "Bash"}, "reply": {"slow_text": {"text": "abc"}}},
                {"when": {"first_turn": true}, "reply": {"echo": true}},
                {"when": {"max_tokens_at_most": 1}, "reply": {"text": "."}},
                {"when": {"tool_result_is_error": true}, "reply": {"text": "no"}},
                {"when": {"last_prompt_contains": "x"}, "reply": {"text": "x"}},
                {"when": {"conversation_contains": "42"}, "reply": {"text": "42"}},
                {"when": {"model_is": "claude-opus-5"},
                 "reply": {"refusal": {"text": "no", "category": "cyber"}}},
                {"when": {"has_tool": "web_search"},
                 "reply": {"web_search": {"results": [{"title": "T", "url": "https://t.example"}],
                                          "text": "found"}}},
                {"when": {"always": true},
                 "reply": {"tool_uses": {"calls": [{"name": "Read", "input": {"file_path": "/a"}},
                                                   {"name": "Glob", "fill": {"pattern": "ID: (\\w+)"}}],
                                         "text": "two"}}}
              ]
            }"#,
        )
        .unwrap();
        assert_eq!(script.rules.len(), 13);
        let Reply::WebSearch(search) = &script.rules[11].reply else {
            panic!("not a web search: {:?}", script.rules[11].reply);
        };
        assert_eq!(search.results[0].url, "https://t.example");
        let Reply::ToolUses(uses) = &script.rules[12].reply else {
            panic!("not tool uses: {:?}", script.rules[12].reply);
        };
        assert_eq!(uses.calls.len(), 2);
        assert_eq!(uses.calls[1].input, json!({}));
        assert_eq!(uses.calls[1].fill["pattern"], "ID: (\\w+)");
        let Reply::Refusal(refusal) = &script.rules[10].reply else {
            panic!("not a refusal: {:?}", script.rules[10].reply);
        };
        assert_eq!(
            refusal.stop_details(),
            json!({"type": "refusal", "category": "cyber", "explanation": null})
        );
        assert_eq!(
            script.rules[9].when,
            When::ConversationContains("42".into())
        );
        assert_eq!(script.default, Reply::Echo(true));
        assert_eq!(script.model.as_deref(), Some("claude-fake-1"));
        assert_eq!(script.rules[1].times, Some(2));
        assert_eq!(
            script.rules[2].reply,
            Reply::tool_use("Bash", json!({"command": "ls"}))
        );
        let Reply::Error(error) = &script.rules[3].reply else {
            panic!("not an error: {:?}", script.rules[3].reply);
        };
        assert_eq!(error.error_type(), "overloaded_error");
        assert_eq!(error.message(), "fake 529 overloaded_error");
        let Reply::SlowText(slow) = &script.rules[4].reply else {
            panic!("not slow text");
        };
        assert_eq!((slow.deltas, slow.delay_ms), (20, 50));
    }

    #[test]
    fn round_trips_through_json() {
        let script =
            ModelScript::demo().rule(Rule::new(When::Always(true), Reply::error(500)).times(1));
        let text = serde_json::to_string(&script).unwrap();
        assert_eq!(ModelScript::from_json(&text).unwrap(), script);
    }

    #[test]
    fn rejects_unknown_condition_with_a_useful_error() {
        let err =
            ModelScript::from_json(r#"{"rules":[{"when":{"nope":1},"reply":{"echo":true}}]}"#)
                .unwrap_err();
        assert!(err.to_string().contains("nope"), "{err}");
    }

    #[test]
    fn from_file_names_the_file() {
        let dir =
            std::env::temp_dir().join(format!("twinwire-model-script-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.json");
        std::fs::write(&path, "{\"rules\": 3}").unwrap();
        let err = ModelScript::from_file(&path).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("bad.json"), "{err}");
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(
            ModelScript::from_file(&path).unwrap(),
            ModelScript::default()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
