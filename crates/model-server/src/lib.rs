//! A scripted fake of the Anthropic Messages API, so the real Claude Code CLI runs offline and
//! deterministically.
//!
//! Start a [`ModelServer`] with a [`ModelScript`], point the CLI at it with
//! `ANTHROPIC_BASE_URL=<server.url()>` and any `ANTHROPIC_API_KEY`, and every model call gets
//! the reply the script picks from the request's content. The server records every request
//! ([`ModelServer::requests`]) so a test can check what the CLI asked.
//!
//! ```
//! use twinwire_model_server::{ModelScript, ModelServer, Reply, Rule, When};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let script = ModelScript::new(Reply::text("Hello from the fake model."))
//!     .rule(Rule::new(
//!         When::LastUserTextContains("list files".into()),
//!         Reply::tool_use("Bash", serde_json::json!({"command": "ls"})),
//!     ));
//! let server = ModelServer::start(script).await?;
//! // spawn `claude` with ANTHROPIC_BASE_URL = server.url() …
//! assert!(server.message_requests().is_empty());
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```
//!
//! # Endpoints
//!
//! * `POST /v1/messages` (any query string, e.g. `?beta=true`): with `"stream": true`,
//!   server-sent events `message_start`, `ping`, then per block `content_block_start`,
//!   `content_block_delta` (`text_delta`, or `input_json_delta` pieces that concatenate to the
//!   tool input), `content_block_stop`, then `message_delta` (`stop_reason`, usage) and
//!   `message_stop`; otherwise one JSON message. Ids are `msg_fake_<hex>` and
//!   `toolu_fake_<hex>`; `model` is the script's override or the request's; usage is
//!   `input_tokens: 100`, `output_tokens: 20` (1 in `message_start`), cache fields 0.
//! * `POST /v1/messages/count_tokens`: `{"input_tokens": N}`, N ≈ body bytes / 4.
//! * `GET /v1/models` (a short list) and `GET /v1/models/{id}`.
//! * Anything else: 404 `{"type":"error","error":{"type":"not_found_error","message":…}}`.
//!
//! Every response carries a `request-id: req_fake_<n>` header (the CLI shows it as
//! `request_id`). Bodies are read leniently: unknown fields, `system` as a string or blocks,
//! `role: "system"` messages, `thinking`, `context_management`, tools with `defer_loading` are
//! all fine; a body that is not a JSON object gets the script's `default` reply.
//!
//! # Script format
//!
//! A script is JSON (see [`ModelScript::from_file`]):
//!
//! ```json
//! {
//!   "model": null,
//!   "rules": [
//!     {"when": {"last_prompt_contains": "API_500"},
//!      "reply": {"error": {"status": 500, "type": "api_error", "message": "boom"}}},
//!     {"when": {"last_user_text_contains": "SLOW"},
//!      "reply": {"slow_text": {"text": "one two three", "deltas": 20, "delay_ms": 50}}},
//!     {"when": {"all": [{"last_is_tool_result": true}, {"tool_result_contains": "touched"}]},
//!      "reply": {"text": "The file is there."}},
//!     {"when": {"last_user_text_contains": "TOUCH"}, "times": 1,
//!      "reply": {"tool_use": {"name": "Bash", "text": "Creating it.",
//!                             "input": {"command": "touch x", "description": "Create x"}}}},
//!     {"when": {"model_is": "claude-haiku-4-5"}, "reply": {"json": {"title": "Fake"}}}
//!   ],
//!   "default": {"echo": true}
//! }
//! ```
//!
//! Rules are tried in order; the first whose `when` holds and that has not yet given `times`
//! replies answers; otherwise `default` (itself `{"echo": true}` when absent) does. Conditions
//! ([`When`]) look only at the request's content, never at the order of requests — the CLI
//! repeats a request on a 400 (with fewer betas) and sends side requests (warm-ups, titles,
//! quota checks with `max_tokens: 1`), which then get a sane reply too. Note that a side
//! request matching a rule with `times` uses one of its replies. After an API error the CLI
//! sends the failed prompt again, as an earlier text block of the next user message: trigger
//! errors with `last_prompt_contains`, which looks only at the newest prompt, or the error
//! repeats on every later turn.
//!
//! Conditions, each an object with one key:
//!
//! | condition | holds when |
//! | --- | --- |
//! | `{"last_user_text_contains": S}` | the last `user` message's text blocks, joined, with `<system-reminder>…</system-reminder>` removed, contain S |
//! | `{"last_prompt_contains": S}` | the last such text block that is not only reminders contains S |
//! | `{"last_is_tool_result": B}` | (the last user message ends with a `tool_result`) == B |
//! | `{"conversation_contains": S}` | some message contains S: text blocks with their reminders (a finished background task is reported in one), tool results, tool calls' input as JSON |
//! | `{"tool_result_contains": S}` | it ends with a `tool_result` whose text contains S |
//! | `{"tool_result_is_error": B}` | (it ends with a `tool_result` with `is_error: true`) == B |
//! | `{"system_contains": S}` | the system prompt contains S |
//! | `{"model_is": S}` | the request's `model` is S |
//! | `{"has_tool": S}` | a tool named S is offered |
//! | `{"first_turn": B}` | (no `assistant` message in the conversation) == B |
//! | `{"max_tokens_at_most": N}` | `max_tokens` ≤ N |
//! | `{"all": [..]}`, `{"any": [..]}`, `{"not": C}`, `{"always": B}` | combinators |
//!
//! Replies ([`Reply`]), each an object with one key: `{"text": S}` (`end_turn`);
//! `{"tool_use": {"name", "input", "text"?}}` (`stop_reason: "tool_use"`, a fresh
//! `toolu_fake_…` id); `{"tool_uses": {"calls": [{"name", "input", "fill"?}, …], "text"?}}` (several
//! calls in one reply, as a model makes parallel calls; `fill` maps an input field to a regular
//! expression whose first group, at its last match in the conversation, becomes its value);
//! `{"web_search": {"results": [{"title", "url"}], "text"?, "query"?}}` (a reply that used the
//! API's web search tool: `server_tool_use`, `web_search_tool_result`, then the text); `{"error": {"status", "type"?, "message"?}}` (that HTTP status with
//! Anthropic's error body; the type defaults from the status, e.g. 529 →
//! `overloaded_error`); `{"slow_text": {"text", "deltas"?: 20, "delay_ms"?: 50}}` (exactly
//! `deltas` text deltas with `delay_ms` between them); `{"json": V}` (text that is V
//! serialized); `{"echo": true}` (`You said: <last prompt>`, see `last_prompt_contains`);
//! `{"refusal": {"text", "category"?, "explanation"?}}` (the text, then `stop_reason:
//! "refusal"` with `stop_details: {"type": "refusal", "category", "explanation"}`, in
//! `message_delta` when streamed, beside `stop_reason` otherwise).

mod conversation;
mod response;
mod script;
mod service;

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use script::{
    ErrorReply, ModelScript, RefusalReply, Reply, Rule, SearchHit, SlowTextReply, ToolCall,
    ToolUseReply, ToolUsesReply, UsageLimitReply, WebSearchReply, When,
};

pub use service::Observer;
use service::ServerState;

/// Every `tool_result` block of a recorded request body, as JSON text, one per line: what the
/// model was told about the tools, for assertions on what reached it.
pub fn request_tool_results(body: &serde_json::Value) -> String {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|block| block["type"] == "tool_result")
        .map(|block| block.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// How long [`ModelServer::shutdown`] waits for open responses before cutting them off.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// A running fake Messages API on `127.0.0.1`; it stops when dropped or shut down.
///
/// It runs on the Tokio runtime that started it: on a current-thread runtime (plain
/// `#[tokio::test]`), do not block that thread (e.g. `std::process::Command::output`) while
/// the CLI talks to the server, or neither makes progress.
#[derive(Debug)]
pub struct ModelServer {
    addr: SocketAddr,
    shared: Arc<ServerState>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// One HTTP request the server received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// The method, e.g. `POST`.
    pub method: String,
    /// The path with its query string, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// The headers in arrival order, names lowercase; the values of `x-api-key`,
    /// `authorization` and `proxy-authorization` are replaced by `<redacted>`.
    pub headers: Vec<(String, String)>,
    /// The body as JSON, or `Null` when it is empty or not JSON.
    pub body: serde_json::Value,
}

impl ModelServer {
    /// Starts a server on `127.0.0.1` on a free port.
    pub async fn start(script: ModelScript) -> io::Result<ModelServer> {
        Self::start_on(script, 0).await
    }

    /// Starts a server on `127.0.0.1:port` (0 picks a free port).
    pub async fn start_on(script: ModelScript, port: u16) -> io::Result<ModelServer> {
        Self::start_at(script, SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await
    }

    /// Starts a server on `addr` (port 0 picks a free one): an address other machines (or
    /// network namespaces) reach, for CLIs that do not run on this one's loopback.
    pub async fn start_at(script: ModelScript, addr: SocketAddr) -> io::Result<ModelServer> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(ServerState::new(script));
        let app = service::router(Arc::clone(&shared));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let shutdown = async move {
                // A dropped sender stops the server too.
                let _ = stopped.await;
            };
            if let Err(err) = axum::serve(listener, app)
                .with_graceful_shutdown(shutdown)
                .await
            {
                tracing::warn!(%err, "model server stopped with an error");
            }
        });
        tracing::debug!(%addr, "model server started");
        Ok(ModelServer {
            addr,
            shared,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// The base URL, `http://ADDRESS:PORT` (`127.0.0.1` unless started elsewhere), for
    /// `ANTHROPIC_BASE_URL`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Calls `observer` with the body of each `POST /v1/messages` as it arrives, before the
    /// reply is chosen: while the client waits for its answer, so a test can look at the world
    /// as the client left it (e.g. the files a tool call changed). Replaces an earlier one.
    pub fn observe(&self, observer: Observer) {
        self.shared.observe(observer);
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.records()
    }

    /// The most `POST /v1/messages` answered at once so far (each counted until its response's
    /// body is sent): what a client's cap on concurrent calls is checked against.
    pub fn max_in_flight(&self) -> usize {
        self.shared.max_in_flight()
    }

    /// The JSON bodies of every `POST /v1/messages` so far (not `count_tokens`), in order.
    pub fn message_requests(&self) -> Vec<serde_json::Value> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == "POST" && r.path.split('?').next() == Some("/v1/messages"))
            .map(|r| r.body)
            .collect()
    }

    /// Stops accepting connections and waits (up to a few seconds) for open responses.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(SHUTDOWN_GRACE, &mut task)
                .await
                .is_err()
            {
                tracing::debug!("model server: open responses cut off at shutdown");
                task.abort();
            }
        }
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        // Graceful: idle connections close at once, a response being streamed finishes.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// Serves `script` on `127.0.0.1:port` (0 picks a free port) until the process ends.
///
/// The URL is logged with `tracing` at `info` level; nothing is printed.
pub async fn serve_forever(script: ModelScript, port: u16) -> io::Result<()> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port)).await?;
    let addr = listener.local_addr()?;
    tracing::info!(url = %format!("http://{addr}"), "model server listening");
    let app = service::router(Arc::new(ServerState::new(script)));
    axum::serve(listener, app).await
}
