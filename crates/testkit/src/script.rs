//! The script a `fake-claude` process plays.
//!
//! `fake-claude` reads its script from the JSON file named by the environment variable
//! `TWINWIRE_FAKE_SCRIPT`. Without one it plays [`Script::echo`]: every user message is answered
//! with the assistant text `echo: <user text>` and a success `result`.
//!
//! # Format
//!
//! ```json
//! {
//!   "turns": [
//!     {"steps": [
//!       {"hook": {"event": "UserPromptSubmit", "input": {"prompt": "{{prompt}}"}}},
//!       {"text": "I will run a command."},
//!       {"tool": {"name": "Bash", "input": {"command": "touch x"}, "ask": true, "output": "done"}},
//!       {"stream": {"text": "all done", "deltas": 3, "delay_ms": 5}},
//!       {"result": {"subtype": "success"}}
//!     ]},
//!     {"steps": [{"text": "echo: {{prompt}}"}]}
//!   ],
//!   "requests": {"get_context_usage": {"respond": "never"}},
//!   "initialize": {"delay_ms": 0, "before_response": [{"mcp_initialize": {"server": "calc"}}]},
//!   "exit_at_initialize": null,
//!   "auto_hooks": false
//! }
//! ```
//!
//! * `turns[i]` answers the i-th user message; once they run out the last turn repeats. An empty
//!   list means "echo". A turn without a `result` step gets a success result appended, whose
//!   text is the last assistant text. Steps after a `result` step still run (late frames).
//! * `{{prompt}}` inside `text` and `stream.text` is replaced by the user message's text.
//! * `requests` overrides the answer to host → CLI control requests, keyed by subtype (see
//!   [`RequestOverride`]). A subtype listed here is accepted even if the fake does not know it.
//! * `initialize` delays the `initialize` response and runs steps before writing it (the real
//!   2.1.330 sends `mcp_message` requests before it answers `initialize`).
//! * `exit_at_initialize` makes the process crash when `initialize` arrives.
//! * `auto_hooks`: run registered `UserPromptSubmit` hooks at the start of every turn and `Stop`
//!   hooks before the automatic result, as the real CLI does.
//!
//! Every step is a JSON object with exactly one key; see [`Step`] for all of them.
//!
//! # What a turn looks like
//!
//! `system/session_state_changed` `running` (only with `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`),
//! `UserPromptSubmit` hooks (with `auto_hooks`), `system/init`, the steps' frames, the result,
//! then `session_state_changed` `idle` — held back until `background` steps finish.
//! Consecutive `text` / `tool` / `stream` / `mcp_call` frames share one `message.id` until a
//! tool result, as in the real CLI; `num_turns` counts those messages.
//!
//! * `tool`: assistant `tool_use` frame → PreToolUse hooks whose matcher accepts the tool name
//!   (`null`, `""`, `*` all; `A|B`; a trailing `*`/`.*` is a prefix) → if a hook answered
//!   `hookSpecificOutput.permissionDecision` `deny` (or `decision: "block"`) the tool is denied
//!   with that reason, `allow` skips the prompt, `ask` forces it; `updatedInput` replaces the
//!   input → with `ask`, `can_use_tool` (`requires_action` state while waiting; in permission
//!   mode `bypassPermissions` it is allowed and in `dontAsk` denied without asking) → allowed:
//!   PostToolUse hooks, then the `tool_result` (`output`, or `ran with input: <json>` when the
//!   allowed input differs from the scripted one) → denied: an `is_error` tool result with the
//!   message and an entry in the result's `permission_denials`; `interrupt: true` also ends the
//!   turn (`error_during_execution`, `terminal_reason` `aborted_tools`). A permission request
//!   that times out (`TWINWIRE_FAKE_PERMISSION_TIMEOUT_MS`) is cancelled with
//!   `control_cancel_request` and counts as a deny; after stdin closed it is denied with
//!   `Stream closed`.
//! * `hook`: one `hook_callback` per registered callback; each answer is reported as
//!   `{"type":"system","subtype":"fake_hook_answer","hook_id":…,"hook_event":…,"outcome":
//!   "success"|"error"|"timeout"|"closed","output":<the answer payload>,"response":<the whole
//!   response object>}`.
//! * `request` and `cancel_after_ms` report as `{"type":"system","subtype":"fake_observed",
//!   "request":…,"request_id":…,"outcome":"answered"|"timeout"|"closed","response":<the whole
//!   response object or null>,"cancelled":bool}`.
//! * Interrupts: an `interrupt` request during a `stream` ends it like 2.1.330 (partial
//!   assistant frame with `aborted: true`, user `[Request interrupted by user]`, the closing
//!   stream events, result `error_during_execution` / `aborted_streaming`). During
//!   `sleep_ms`, between steps or while waiting for `can_use_tool` the turn ends the same way
//!   with `terminal_reason` `aborted_tools` (a pending permission request is cancelled).
//!   Background steps and `initialize` steps are never interrupted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A whole script: what each turn does and how host requests are answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Script {
    /// `turns[i]` answers the i-th user message; the last turn repeats after that.
    pub turns: Vec<Turn>,
    /// Overrides for host → CLI control requests, keyed by request subtype.
    pub requests: BTreeMap<String, RequestOverride>,
    /// How the `initialize` request is answered.
    pub initialize: InitializeBehaviour,
    /// Crash (write `stderr`, exit with `code`) as soon as `initialize` arrives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_at_initialize: Option<Exit>,
    /// Run `UserPromptSubmit` hooks at turn start and `Stop` hooks before the automatic result.
    pub auto_hooks: bool,
}

impl Default for Script {
    fn default() -> Self {
        Self::echo()
    }
}

impl Script {
    /// The default script: answer every user message with `echo: <user text>`.
    pub fn echo() -> Self {
        Self::with_turns(vec![Turn::new(vec![Step::Text("echo: {{prompt}}".into())])])
    }

    /// A script with these turns and every other option at its default.
    pub fn with_turns(turns: Vec<Turn>) -> Self {
        Self {
            turns,
            requests: BTreeMap::new(),
            initialize: InitializeBehaviour::default(),
            exit_at_initialize: None,
            auto_hooks: false,
        }
    }

    /// The steps answering the user message with this zero-based index, if any.
    pub fn turn(&self, index: usize) -> Option<&Turn> {
        self.turns.get(index).or_else(|| self.turns.last())
    }
}

/// The steps that answer one user message.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Turn {
    /// The steps, run in order.
    pub steps: Vec<Step>,
}

impl Turn {
    /// A turn made of these steps.
    pub fn new(steps: Vec<Step>) -> Self {
        Self { steps }
    }
}

/// How one host → CLI control request subtype is answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RequestOverride {
    /// What kind of answer to give.
    pub respond: Respond,
    /// For `success`: the response payload. When both it and the built-in answer are objects,
    /// its keys are laid over the built-in answer; otherwise it replaces it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
    /// For `error`: the error message (default `"scripted error"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Wait this long before answering (the reader keeps serving other frames meanwhile).
    pub delay_ms: u64,
}

/// The kind of answer a host request gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Respond {
    /// A `success` response (the built-in payload, or the scripted one).
    #[default]
    Success,
    /// An `error` response.
    Error,
    /// No response at all (the request's effect still happens).
    Never,
    /// The success response, written twice.
    Duplicate,
    /// The success response, with a `request_id` that matches nothing (`<id>-wrong`).
    WrongId,
}

/// How `initialize` is answered.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InitializeBehaviour {
    /// Wait this long (after `before_response`) before writing the response.
    pub delay_ms: u64,
    /// Steps run before the response is written (e.g. `mcp_initialize`, `request`).
    pub before_response: Vec<Step>,
}

/// Make the process exit: write `stderr` to stderr, then exit with `code`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exit {
    /// The exit code.
    pub code: i32,
    /// Text written to stderr first (a newline is added if missing).
    #[serde(default)]
    pub stderr: String,
}

/// One thing the fake does during a turn. Each step is a JSON object with one key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// `{"text": "hi"}`: one `assistant` frame with one text block.
    Text(String),
    /// `{"stream": {...}}`: `stream_event` frames, then the `assistant` frame.
    Stream(StreamStep),
    /// `{"tool": {...}}`: a tool use with hooks and an optional permission prompt.
    Tool(ToolStep),
    /// `{"hook": {...}}`: call every registered hook callback of one event.
    Hook(HookStep),
    /// `{"mcp_initialize": {...}}`: the MCP handshake with one SDK server.
    McpInitialize(McpInitializeStep),
    /// `{"mcp_call": {...}}`: an SDK MCP tool call (handshake first if not done yet).
    McpCall(McpCallStep),
    /// `{"request": {"subtype": ..., ...}}`: send any control request and report the answer
    /// in a `system/fake_observed` frame.
    Request(Map<String, Value>),
    /// `{"cancel_after_ms": {...}}`: send a request, cancel it after a while.
    CancelAfterMs(CancelStep),
    /// `{"result": {...}}`: a `result` frame.
    Result(ResultStep),
    /// `{"emit": <object>}`: write the value verbatim as one line.
    Emit(Value),
    /// `{"garbage": "text"}`: write the raw text as one line.
    Garbage(String),
    /// `{"oversized": {"bytes": N}}`: one valid assistant frame of exactly N bytes.
    Oversized(OversizedStep),
    /// `{"flood": {...}}`: many frames as fast as possible.
    Flood(FloodStep),
    /// `{"sleep_ms": 100}`: pause (an `interrupt` ends the turn during the pause).
    SleepMs(u64),
    /// `{"crash": {"code": 3, "stderr": "boom"}}`: write stderr and exit at once.
    Crash(Exit),
    /// `{"kill_self": "SIGKILL"}`: die by a signal (`SIGABRT` aborts; others use `kill`).
    KillSelf(String),
    /// `{"hang": true}`: stop reading and writing forever.
    Hang(bool),
    /// `{"close_stdout": true}`: close stdout (the host reads its end) and go on living: the
    /// following steps run with their frames going nowhere (end with `hang` or `sleep_ms`).
    CloseStdout(bool),
    /// `{"partial": "text"}`: write the text with no newline (a frame cut short, before a
    /// `crash`).
    Partial(String),
    /// `{"stderr": "line"}`: write one line to stderr.
    Stderr(String),
    /// `{"stderr_flood": {"bytes": N}}`: write N bytes to stderr.
    StderrFlood(StderrFloodStep),
    /// `{"control_response": {...}}`: write a control response verbatim. The value is the
    /// `response` object (`{"subtype":"success","request_id":...}`) or a whole frame.
    ControlResponse(Value),
    /// `{"background": {...}}`: run steps on another thread after a delay.
    Background(BackgroundStep),
}

/// A streamed assistant text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StreamStep {
    /// The full text.
    pub text: String,
    /// How many `text_delta` pieces (default 3, never more than the characters).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deltas: Option<usize>,
    /// Pause before each delta.
    pub delay_ms: u64,
}

/// A built-in tool use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ToolStep {
    /// The tool name (`Bash`, `Write`, ...).
    pub name: String,
    /// The tool input.
    pub input: Value,
    /// The tool use id (default: a fresh `toolu_fake_…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Ask the host with `can_use_tool` (unless a PreToolUse hook decided already).
    pub ask: bool,
    /// The tool result text when the tool runs.
    pub output: String,
    /// Mark the tool result as an error even when allowed (a failing tool).
    pub is_error: bool,
    /// `permission_suggestions` sent with `can_use_tool` (default: an `addRules` suggestion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<Value>>,
}

/// Call the registered hook callbacks of one event.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HookStep {
    /// The hook event name (`UserPromptSubmit`, `Stop`, `Notification`, ...).
    pub event: String,
    /// Extra input fields; `tool_name`, if present, is what matchers are tested against.
    pub input: Map<String, Value>,
    /// The `tool_use_id` of the `hook_callback` request (default: a fresh UUID).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
}

/// The MCP handshake with one SDK server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpInitializeStep {
    /// The server name.
    pub server: String,
    /// Also send `notifications/initialized` (default true; else it goes before the next call).
    #[serde(default = "yes")]
    pub notify: bool,
    /// Also send `tools/list`.
    #[serde(default)]
    pub list_tools: bool,
}

/// A tool call to an SDK MCP server.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct McpCallStep {
    /// The server name.
    pub server: String,
    /// The tool name on that server (the model sees `mcp__<server>__<tool>`).
    pub tool: String,
    /// The tool arguments.
    pub arguments: Value,
    /// The tool use id (default: a fresh `toolu_fake_…`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Ask the host with `can_use_tool` first.
    pub ask: bool,
}

/// Send a request, then cancel it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CancelStep {
    /// Wait this long for an answer before sending `control_cancel_request`.
    pub ms: u64,
    /// The request (`{"subtype": ..., ...}`).
    pub request: Map<String, Value>,
    /// After cancelling, still accept an answer for this long (default 100).
    #[serde(default = "hundred")]
    pub grace_ms: u64,
}

/// A `result` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ResultStep {
    /// `success`, `error_during_execution`, `error_max_turns`, ...
    pub subtype: String,
    /// The `result` text (default: the last assistant text); only on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// `is_error` (default: true unless the subtype is `success`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `structured_output`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// `terminal_reason` (default `completed`, or `error` for error subtypes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// `errors` for error subtypes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<String>>,
}

impl Default for ResultStep {
    fn default() -> Self {
        Self {
            subtype: "success".into(),
            text: None,
            is_error: None,
            structured_output: None,
            terminal_reason: None,
            errors: None,
        }
    }
}

/// One huge but valid frame.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OversizedStep {
    /// The length of the line in bytes, without its newline.
    pub bytes: usize,
}

/// Many frames at full speed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FloodStep {
    /// How many `stream_event` (text delta) frames.
    pub stream_events: usize,
    /// How many `assistant` frames, spread evenly among the stream events.
    pub assistants: usize,
    /// Then this frame (any object, e.g. a kind no CLI writes yet), written `repeat` times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame: Option<Value>,
    /// How many times `frame` is written.
    pub repeat: usize,
}

/// A large write to stderr.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StderrFloodStep {
    /// How many bytes.
    pub bytes: usize,
    /// All on one line, with no newline at all (default: 100-byte lines).
    #[serde(default)]
    pub one_line: bool,
}

/// Steps run on another thread (a background subagent), possibly after the turn's result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BackgroundStep {
    /// Wait this long first.
    pub delay_ms: u64,
    /// The steps.
    pub steps: Vec<Step>,
}

fn yes() -> bool {
    true
}

fn hundred() -> u64 {
    100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_documented_example() {
        let json = r#"{
          "turns": [{"steps": [
            {"text": "hi"},
            {"stream": {"text": "a b c", "deltas": 3, "delay_ms": 5}},
            {"tool": {"name": "Bash", "input": {"command": "x"}, "ask": true, "output": "done"}},
            {"hook": {"event": "Stop"}},
            {"mcp_call": {"server": "calc", "tool": "add", "arguments": {"a": 1}}},
            {"request": {"subtype": "elicitation", "message": "?"}},
            {"cancel_after_ms": {"ms": 50, "request": {"subtype": "can_use_tool"}}},
            {"emit": {"type": "mystery"}},
            {"garbage": "[SandboxDebug] not json"},
            {"oversized": {"bytes": 100}},
            {"flood": {"stream_events": 10, "assistants": 1}},
            {"sleep_ms": 1},
            {"stderr": "line"},
            {"stderr_flood": {"bytes": 10}},
            {"control_response": {"subtype": "success", "request_id": "x"}},
            {"background": {"delay_ms": 300, "steps": [{"hang": false}]}},
            {"crash": {"code": 3, "stderr": "boom"}},
            {"kill_self": "SIGKILL"},
            {"result": {"subtype": "success", "text": "t", "structured_output": {"a": 1}}}
          ]}],
          "requests": {"interrupt": {"respond": "never", "delay_ms": 5}},
          "initialize": {"before_response": [{"mcp_initialize": {"server": "calc"}}]},
          "exit_at_initialize": {"code": 2, "stderr": "no"}
        }"#;
        let script: Script = serde_json::from_str(json).expect("example parses");
        assert_eq!(script.turns[0].steps.len(), 19);
        assert_eq!(script.requests["interrupt"].respond, Respond::Never);
        let back = serde_json::to_value(&script).expect("serializes");
        let again: Script = serde_json::from_value(back).expect("round trips");
        assert_eq!(again, script);
    }

    #[test]
    fn last_turn_repeats_and_empty_means_none() {
        let script = Script::with_turns(vec![
            Turn::new(vec![Step::Text("a".into())]),
            Turn::new(vec![Step::Text("b".into())]),
        ]);
        assert_eq!(script.turn(5), script.turn(1));
        assert!(Script::with_turns(vec![]).turn(0).is_none());
    }

    #[test]
    fn unknown_step_is_an_error() {
        let err = serde_json::from_str::<Step>(r#"{"dance": 1}"#);
        assert!(err.is_err());
    }
}
