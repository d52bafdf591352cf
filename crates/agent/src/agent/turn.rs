//! One turn: the prompt, then model calls and tool runs until the model ends the turn (or a
//! limit, an interrupt or an error does), then the `result`.
//!
//! Before each model call the messages that arrived meanwhile are injected (twinwire's queue,
//! `system/injected`). Each reply streams: with `--include-partial-messages` every event is
//! written as a `stream_event`; each content block is written as its own `assistant` frame
//! when it completes. An interrupt closes the HTTP stream (the call is dropped) or stops the
//! running tools (Bash's process group is killed).

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;
use twinwire::agent::Peer;
use twinwire_protocol::content::{ApiMessage, ContentBlock, UserContent};
use twinwire_protocol::usage::Usage;
use twinwire_protocol::UserMessage;

use super::frames::{self, new_id};
use super::{ready, tool_calls, Shared};
use crate::model::assemble::Assembler;
use crate::model::{MessagesRequest, ModelError};
use crate::prompt;
use crate::tools::STRUCTURED_OUTPUT;

/// Output tokens asked for per call (plus the thinking budget, when on).
const MAX_OUTPUT_TOKENS: u32 = 32_000;
/// How long a turn waits for an `initialize` written before it (its SDK MCP handshake
/// included).
const INITIALIZE_WAIT: std::time::Duration = std::time::Duration::from_secs(120);
/// How often the model is reminded to give structured output before the turn fails.
const STRUCTURED_RETRIES: u32 = 3;

/// How a turn ended.
enum End {
    Done,
    Interrupted { tools: bool },
    MaxTurns,
    Budget,
    Api(ModelError),
    StructuredRetries,
    Stopped(String),
}

/// A running turn.
pub(crate) struct TurnRun {
    pub(crate) shared: Arc<Shared>,
    pub(crate) session: Peer,
    pub(crate) session_id: String,
    pub(crate) cancel: CancellationToken,
    started: Instant,
    usage: Usage,
    api_ms: u64,
    num_turns: u32,
    pub(crate) denials: Vec<Value>,
    last_text: String,
    pub(crate) structured: Option<Value>,
    stop_reason: Option<String>,
    ttft_ms: Option<u64>,
}

/// Runs a turn to its `result`.
pub(crate) async fn run(shared: Arc<Shared>, message: UserMessage, session: Peer) {
    let session_id = {
        let mut state = super::lock(&shared.state);
        state
            .session_id
            .get_or_insert_with(|| session.session_id().to_owned())
            .clone()
    };
    let mut turn = TurnRun {
        cancel: session.interrupted().clone(),
        shared,
        session,
        session_id,
        started: Instant::now(),
        usage: Usage::default(),
        api_ms: 0,
        num_turns: 0,
        denials: Vec::new(),
        last_text: String::new(),
        structured: None,
        stop_reason: None,
        ttft_ms: None,
    };
    super::inbox::turn_started(&turn.shared, &turn.session);
    // As Claude Code: only for a host that says it reads them (the Python SDK and twinwire do;
    // the TypeScript SDK passes unknown frames on to its caller).
    let states = turn
        .shared
        .config
        .var("CLAUDE_CODE_SDK_READS_SESSION_STATE")
        .as_deref()
        == Some("1");
    if states {
        turn.emit(&frames::state_changed(&turn.session_id, "running"));
    }
    let end = match turn.begin(message).await {
        Ok(()) => turn.drive().await,
        Err(end) => end,
    };
    turn.finish(end);
    super::inbox::turn_ended(&turn.shared);
    if states {
        turn.emit(&frames::state_changed(&turn.session_id, "idle"));
    }
}

impl TurnRun {
    pub(crate) fn emit(&self, frame: &Value) {
        if let Err(err) = self.session.emit(frame) {
            tracing::debug!(%err, "a frame the host will not see");
        }
    }

    /// The init frame, the hooks on the prompt, the prompt into the conversation.
    async fn begin(&mut self, message: UserMessage) -> Result<(), End> {
        // An initialize the host wrote before this message applies to it.
        let mut initializing = self.shared.initializing.subscribe();
        let waited = tokio::time::timeout(INITIALIZE_WAIT, initializing.wait_for(|busy| !busy));
        if waited.await.is_err() {
            tracing::warn!("initialize was not done in time; the turn goes on without it");
        }
        ready::prepare(&self.shared, &self.session).await;
        self.emit(&self.init_frame());
        let config = &self.shared.config;
        if config.replay_user_messages {
            let content = serde_json::to_value(&message.message.content).unwrap_or(Value::Null);
            let uuid = message.uuid.clone().unwrap_or_else(new_id);
            self.emit(&frames::user_text(&self.session_id, &uuid, content, true));
        }
        let (hooks, common, first) = {
            let mut state = super::lock(&self.shared.state);
            let first = state.started.is_none();
            state.started = Some(state.source);
            (
                state.hooks.clone(),
                self.hook_common(&state),
                first.then_some(state.source),
            )
        };
        if let Some(source) = first {
            let mut fields = Map::new();
            fields.insert("source".into(), json!(source));
            let report = hooks
                .fire(&self.session, &common, "SessionStart", None, fields, None)
                .await;
            self.add_context(report.context);
        }
        let prompt = message.message.content.joined_text();
        let mut fields = Map::new();
        fields.insert("prompt".into(), json!(prompt));
        let report = hooks
            .fire(
                &self.session,
                &common,
                "UserPromptSubmit",
                None,
                fields,
                None,
            )
            .await;
        if let Some(reason) = report.stop.clone() {
            return Err(End::Stopped(reason));
        }
        if let Some(reason) = report.block {
            return Err(End::Stopped(format!(
                "The prompt was blocked by a hook: {reason}"
            )));
        }
        let mut content = message.message.content.clone();
        for context in report.context {
            crate::transcript::append(&mut content, UserContent::Text(context));
        }
        let uuid = message.uuid.clone().unwrap_or_else(new_id);
        self.record_user(&uuid, content, Map::new());
        Ok(())
    }

    /// Adds a user message to the conversation and the session file.
    pub(crate) fn record_user(&self, uuid: &str, content: UserContent, fields: Map<String, Value>) {
        let mut state = super::lock(&self.shared.state);
        let message = twinwire_protocol::content::MessageParam::user(content.clone());
        if let Some(file) = state.transcript(&self.shared.config, &self.shared.store) {
            file.user(uuid, &message, fields);
        }
        state.push_user(content);
    }

    fn add_context(&self, context: Vec<String>) {
        if context.is_empty() {
            return;
        }
        let mut state = super::lock(&self.shared.state);
        state.push_user(UserContent::Text(context.join("\n\n")));
    }

    /// The fields every hook input carries.
    pub(crate) fn hook_common(&self, state: &super::State) -> Map<String, Value> {
        let transcript = crate::transcript::file_of(
            &self.shared.store,
            &self.shared.config.cwd,
            &self.session_id,
        );
        let mut common = Map::new();
        common.insert("session_id".into(), json!(self.session_id));
        common.insert(
            "transcript_path".into(),
            json!(transcript.display().to_string()),
        );
        common.insert(
            "cwd".into(),
            json!(self.shared.config.cwd.display().to_string()),
        );
        common.insert("permission_mode".into(), json!(state.mode));
        common
    }

    fn init_frame(&self) -> Value {
        let state = super::lock(&self.shared.state);
        let cwd = self.shared.config.cwd.display().to_string();
        let mode = serde_json::to_value(&state.mode).unwrap_or(Value::Null);
        let key_source = if self.shared.config.var("ANTHROPIC_API_KEY").is_some() {
            "ANTHROPIC_API_KEY"
        } else {
            "none"
        };
        frames::init(frames::InitFacts {
            session_id: &self.session_id,
            cwd: &cwd,
            model: &state.model,
            tools: state.tools.names(),
            mcp_servers: state.mcp_status.clone(),
            permission_mode: mode.as_str().unwrap_or("default"),
            api_key_source: key_source,
        })
    }

    /// Model calls and tool runs until the turn ends.
    async fn drive(&mut self) -> End {
        let mut reminders = 0u32;
        loop {
            if self.cancel.is_cancelled() {
                return End::Interrupted { tools: false };
            }
            if let Some(queued) = self.session.take_queued() {
                super::inbox::taken(&self.shared);
                let uuid = queued.uuid.clone().unwrap_or_else(new_id);
                self.record_user(&uuid, queued.message.content, Map::new());
            }
            let config = &self.shared.config;
            if config.max_turns.is_some_and(|max| self.num_turns >= max) {
                return End::MaxTurns;
            }
            let spent = super::lock(&self.shared.state).cost_usd;
            if config.max_budget_usd.is_some_and(|max| spent >= max) {
                return End::Budget;
            }
            let reply = match self.call_model().await {
                Ok(reply) => reply,
                Err(end) => return end,
            };
            self.num_turns += 1;
            let calls: Vec<_> = reply.tool_uses().cloned().collect();
            let text = reply.text();
            if !text.is_empty() {
                self.last_text = text;
            }
            self.stop_reason = reply.stop_reason.as_ref().map(|r| {
                serde_json::to_value(r)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            });
            if calls.is_empty() {
                if super::lock(&self.shared.state).json_schema.is_some()
                    && self.structured.is_none()
                {
                    reminders += 1;
                    if reminders > STRUCTURED_RETRIES {
                        return End::StructuredRetries;
                    }
                    self.record_user(
                        &new_id(),
                        UserContent::Text(format!(
                            "Give the final answer now by calling the {STRUCTURED_OUTPUT} tool."
                        )),
                        Map::new(),
                    );
                    continue;
                }
                match self.stop_hooks().await {
                    Some(reason) => {
                        self.record_user(&new_id(), UserContent::Text(reason), Map::new());
                        continue;
                    }
                    None => return End::Done,
                }
            }
            match tool_calls::run_all(self, &reply, calls).await {
                tool_calls::Outcome::Continue => {}
                tool_calls::Outcome::Interrupted => return End::Interrupted { tools: true },
                tool_calls::Outcome::Stopped(reason) => return End::Stopped(reason),
            }
            if self.structured.is_some() {
                return End::Done;
            }
        }
    }

    /// `Stop` hooks: a reason to go on, when one blocks the stop.
    async fn stop_hooks(&self) -> Option<String> {
        let (hooks, common) = {
            let state = super::lock(&self.shared.state);
            if !state.hooks.has("Stop") {
                return None;
            }
            (state.hooks.clone(), self.hook_common(&state))
        };
        let mut fields = Map::new();
        fields.insert("stop_hook_active".into(), json!(false));
        let report = hooks
            .fire(&self.session, &common, "Stop", None, fields, None)
            .await;
        report.block
    }

    /// One model call, streamed to the host; the reply joins the conversation.
    async fn call_model(&mut self) -> Result<ApiMessage, End> {
        let request = self.request();
        self.emit(&frames::requesting(&self.session_id));
        let called = Instant::now();
        let retry_session = self.session.clone();
        let retry_id = self.session_id.clone();
        let start = self.shared.client.stream(&request, move |notice| {
            let _ = retry_session.emit(&frames::api_retry(&retry_id, &notice));
        });
        let mut stream = tokio::select! {
            biased;
            () = self.cancel.cancelled() => return Err(End::Interrupted { tools: false }),
            started = start => match started {
                Ok(stream) => stream,
                Err(err) => return Err(self.api_failed(err)),
            },
        };
        let request_id = stream.request_id().map(str::to_owned);
        let mut assembler = Assembler::new();
        let partial = self.shared.config.include_partial_messages;
        let mut first = true;
        let outcome = loop {
            let event = tokio::select! {
                biased;
                () = self.cancel.cancelled() => break Err(End::Interrupted { tools: false }),
                event = stream.next() => event,
            };
            let event = match event {
                None => break Ok(()),
                Some(Err(err)) => break Err(self.api_failed(err)),
                Some(Ok(event)) => event,
            };
            let ttft = first.then(|| u64::try_from(called.elapsed().as_millis()).unwrap_or(0));
            if first {
                self.ttft_ms.get_or_insert(ttft.unwrap_or(0));
                first = false;
            }
            match assembler.apply(&event) {
                Ok(completed) => {
                    if partial {
                        let frame = frames::stream_event(
                            &self.session_id,
                            &event,
                            assembler.message_id(),
                            ttft,
                        );
                        self.emit(&frame);
                    }
                    if let Some(block) = completed {
                        self.assistant_block(&assembler, &block, request_id.as_deref());
                    }
                }
                Err(why) => break Err(self.api_failed(ModelError::Stream(why))),
            }
        };
        self.api_ms += u64::try_from(called.elapsed().as_millis()).unwrap_or(0);
        let model = super::lock(&self.shared.state).model.clone();
        let usage = assembler.usage();
        self.add_usage(&model, &usage);
        let mut reply = assembler.message();
        match outcome {
            Err(End::Interrupted { tools }) => {
                // What arrived stays in the conversation (the text cut off midway too, written
                // as an aborted frame, as Claude Code does), less calls that will not run.
                for block in assembler.open_text() {
                    let message = frames::block_message(&assembler.message_meta(), &block);
                    let frame = frames::assistant(
                        &self.session_id,
                        &new_id(),
                        message,
                        request_id.as_deref(),
                        true,
                    );
                    self.emit(&frame);
                    reply.content.push(block);
                }
                reply
                    .content
                    .retain(|b| !matches!(b, ContentBlock::ToolUse(_)));
                self.keep_reply(&reply);
                Err(End::Interrupted { tools })
            }
            Err(end) => Err(end),
            Ok(()) if !assembler.is_complete() => Err(self.api_failed(ModelError::Stream(
                "the reply ended before message_stop".into(),
            ))),
            Ok(()) => {
                for (id, why) in assembler.invalid_inputs() {
                    tracing::warn!(%id, %why, "a tool call whose input could not be read");
                }
                self.keep_reply(&reply);
                Ok(reply)
            }
        }
    }

    /// Writes one completed block as its own assistant frame and saves it.
    fn assistant_block(
        &self,
        assembler: &Assembler,
        block: &ContentBlock,
        request_id: Option<&str>,
    ) {
        let uuid = new_id();
        let message = frames::block_message(&assembler.message_meta(), block);
        self.emit(&frames::assistant(
            &self.session_id,
            &uuid,
            message.clone(),
            request_id,
            false,
        ));
        let mut state = super::lock(&self.shared.state);
        if let Some(file) = state.transcript(&self.shared.config, &self.shared.store) {
            file.assistant(&uuid, message, request_id);
        }
    }

    fn keep_reply(&self, reply: &ApiMessage) {
        if reply.content.is_empty() {
            return;
        }
        let mut state = super::lock(&self.shared.state);
        state
            .conversation
            .push(twinwire_protocol::content::MessageParam {
                role: "assistant".into(),
                content: UserContent::Blocks(reply.content.clone()),
                extra: Map::new(),
            });
    }

    fn add_usage(&mut self, model: &str, usage: &Usage) {
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
        super::lock(&self.shared.state).charge(model, usage);
    }

    /// A failed call: the error frame Claude Code writes, and the turn's end.
    fn api_failed(&self, error: ModelError) -> End {
        let mut text = error.to_string();
        if error.status().is_some_and(|s| s >= 500) {
            text.push_str(
                ". This is a server-side issue, usually temporary; try again in a moment.",
            );
        }
        self.emit(&frames::api_error(&self.session_id, &text, error.status()));
        End::Api(error)
    }

    /// The request for the next call.
    fn request(&self) -> MessagesRequest {
        let state = super::lock(&self.shared.state);
        let config = &self.shared.config;
        let system = prompt::system(
            state.system_prompt.as_deref(),
            state.append_system_prompt.as_deref(),
            &config.cwd,
            state.json_schema.is_some(),
        );
        let thinking = state.thinking_tokens.filter(|t| *t >= 1024);
        MessagesRequest {
            model: state.model.clone(),
            max_tokens: MAX_OUTPUT_TOKENS + thinking.unwrap_or(0),
            system,
            messages: state.conversation.clone(),
            tools: state.tools.definitions(),
            thinking: thinking.map(|budget| json!({"type": "enabled", "budget_tokens": budget})),
            stream: true,
            metadata: Some(json!({"user_id": format!("session_{}", self.session_id)})),
        }
        .with_cache_breakpoints()
    }

    /// Writes the `result` (and, for an interrupt, the marker Claude Code writes before it).
    fn finish(&mut self, end: End) {
        let (subtype, is_error, terminal, errors, api_status) = match &end {
            End::Done => ("success", false, "completed", None, None),
            End::Interrupted { tools } => {
                let marker = if *tools {
                    "[Request interrupted by user for tool use]"
                } else {
                    "[Request interrupted by user]"
                };
                let content = json!([{"type": "text", "text": marker}]);
                let uuid = new_id();
                self.emit(&frames::user_text(&self.session_id, &uuid, content, false));
                self.record_user(&uuid, UserContent::Text(marker.into()), Map::new());
                let terminal = if *tools {
                    "aborted_tools"
                } else {
                    "aborted_streaming"
                };
                (
                    "error_during_execution",
                    true,
                    terminal,
                    Some(Vec::new()),
                    None,
                )
            }
            End::MaxTurns => (
                "error_max_turns",
                true,
                "max_turns",
                Some(vec![format!(
                    "Reached the maximum number of turns ({})",
                    self.shared.config.max_turns.unwrap_or(0)
                )]),
                None,
            ),
            End::Budget => (
                "error_max_budget_usd",
                true,
                "completed",
                Some(vec![format!(
                    "Reached the maximum budget (${})",
                    self.shared.config.max_budget_usd.unwrap_or(0.0)
                )]),
                None,
            ),
            End::Api(error) => {
                self.last_text = match error.status() {
                    Some(s) if s >= 500 => format!(
                        "{error}. This is a server-side issue, usually temporary; try again in a moment."
                    ),
                    _ => error.to_string(),
                };
                ("success", true, "api_error", None, error.status())
            }
            End::StructuredRetries => (
                "error_max_structured_output_retries",
                true,
                "completed",
                Some(vec!["The model did not give structured output.".into()]),
                None,
            ),
            End::Stopped(reason) => {
                self.last_text = reason.clone();
                ("success", false, "hook_stopped", None, None)
            }
        };
        let state = super::lock(&self.shared.state);
        let mut usage = serde_json::to_value(&self.usage).unwrap_or(json!({}));
        usage["cache_creation_input_tokens"] =
            json!(self.usage.cache_creation_input_tokens.unwrap_or(0));
        usage["cache_read_input_tokens"] = json!(self.usage.cache_read_input_tokens.unwrap_or(0));
        let mut result = json!({
            "type": "result",
            "subtype": subtype,
            "is_error": is_error,
            "duration_ms": u64::try_from(self.started.elapsed().as_millis()).unwrap_or(0),
            "duration_api_ms": self.api_ms,
            "num_turns": self.num_turns.max(1),
            "session_id": self.session_id,
            "total_cost_usd": state.cost_usd,
            "usage": usage,
            "modelUsage": state.model_usage,
            "permission_denials": self.denials,
            "terminal_reason": terminal,
            "stop_reason": self.stop_reason,
            "uuid": new_id(),
        });
        if subtype == "success" {
            result["result"] = json!(self.last_text);
        }
        if let Some(errors) = errors {
            result["errors"] = json!(errors);
        }
        if let Some(status) = api_status {
            result["api_error_status"] = json!(status);
        }
        if let Some(structured) = &self.structured {
            result["structured_output"] = structured.clone();
        }
        if let Some(ttft) = self.ttft_ms {
            result["ttft_ms"] = json!(ttft);
        }
        drop(state);
        self.shared
            .last_failed
            .store(is_error, std::sync::atomic::Ordering::SeqCst);
        self.emit(&result);
    }
}
