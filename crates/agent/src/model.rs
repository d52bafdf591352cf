//! The model client: Anthropic's Messages API over HTTP, streamed as server-sent events into
//! twinwire-protocol's [`StreamEvent`]s.
//!
//! Credentials and place come from the environment as for Claude Code: `ANTHROPIC_API_KEY`
//! (sent as `x-api-key`) or `ANTHROPIC_AUTH_TOKEN` (a bearer token), `ANTHROPIC_BASE_URL`
//! (so `twinwire model-server` serves it offline), `CLAUDE_CODE_MAX_RETRIES`, `API_TIMEOUT_MS`.
//! A call that fails with 408, 409, 429, 529 or a 5xx, or cannot connect, is tried again after
//! a backoff or the wait the API named ([`retry`]); each retry is reported to the caller so it
//! can tell the host (`system/api_retry`).

pub mod assemble;
pub mod options;
pub mod pricing;
pub mod request;
pub mod retry;
pub mod shared;
pub mod sse;

use std::collections::VecDeque;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use twinwire_protocol::stream::StreamEvent;

pub use request::{MessagesRequest, SystemBlock, ToolDefinition};
pub use retry::RetryPolicy;
use sse::{SseItem, SseParser};

/// The API version every call names.
const API_VERSION: &str = "2023-06-01";
/// Where the API is unless `ANTHROPIC_BASE_URL` says otherwise.
const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// How long a stream may stay silent before the call is given up (`API_TIMEOUT_MS`; the API
/// sends pings far more often).
const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(600);
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The most bytes of an error body kept for the message.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// The most bytes one streamed reply may take (a reply of 128,000 output tokens streamed as
/// events is a few megabytes): past it the stream is broken off, so a server cannot make the
/// agent hold an endless body.
pub const MAX_STREAM_BYTES: u64 = 64 * 1024 * 1024;

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// No `ANTHROPIC_API_KEY` or `ANTHROPIC_AUTH_TOKEN`: nothing was sent.
    #[error("Not logged in: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN")]
    NoCredentials,
    /// The API answered with an error status (a 429 worded as Claude Code words it, the API's
    /// message after `Request rejected (429) · `, so that a usage limit's own words lead).
    #[error("API Error: {}", status_text(*status, message))]
    Status {
        /// The HTTP status.
        status: u16,
        /// The error's `type` (`overloaded_error`, …), when the body said.
        kind: Option<String>,
        /// The error's message, or the body.
        message: String,
    },
    /// The API could not be reached, or the connection broke.
    #[error("API Error: Connection error ({0})")]
    Connection(String),
    /// The stream broke or said something that is not the Messages API.
    #[error("API Error: {0}")]
    Stream(String),
}

/// The words after `API Error: ` for an error status.
fn status_text(status: u16, message: &str) -> String {
    if status == 429 {
        format!("Request rejected (429) · {message}")
    } else {
        format!("{status} {message}")
    }
}

impl ModelError {
    /// The HTTP status, for an error answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// Who the calls are made as.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// `x-api-key`.
    ApiKey(String),
    /// `Authorization: Bearer`.
    Bearer(String),
    /// None: calls fail with [`ModelError::NoCredentials`].
    None,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ApiKey(_) => "ApiKey(<redacted>)",
            Self::Bearer(_) => "Bearer(<redacted>)",
            Self::None => "None",
        })
    }
}

/// A retry about to happen, for the host's `system/api_retry`.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    /// 1 for the first retry.
    pub attempt: u32,
    /// The most retries.
    pub max_retries: u32,
    /// The wait before it.
    pub delay: Duration,
    /// The status that failed, when there was an answer.
    pub status: Option<u16>,
    /// What failed.
    pub error: String,
}

/// The HTTP client of Messages API calls. `max_idle`: the idle connections kept per host
/// (`None`: as many as were used), so that a client shared by thousands of sessions keeps a
/// few sockets open, not one per session.
pub(crate) fn http_client(max_idle: Option<usize>) -> Result<reqwest::Client, ModelError> {
    let mut builder = reqwest::Client::builder()
        .connect_timeout(CONNECT_TIMEOUT)
        // A redirect to another origin would carry the key there (`x-api-key` is not a
        // header reqwest drops on the way): only same-origin redirects are followed.
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            let same = attempt
                .previous()
                .first()
                .is_some_and(|first| first.origin() == attempt.url().origin());
            if !same {
                attempt.stop()
            } else if attempt.previous().len() > 5 {
                attempt.error("too many redirects")
            } else {
                attempt.follow()
            }
        }))
        .user_agent(concat!("twinwire-agent/", env!("CARGO_PKG_VERSION")));
    if let Some(max_idle) = max_idle {
        builder = builder.pool_max_idle_per_host(max_idle);
    }
    builder
        .build()
        .map_err(|err| ModelError::Connection(err.to_string()))
}

/// A Messages API client: cheap to clone (the connection pool is shared).
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    base_url: String,
    credentials: Credentials,
    retry: RetryPolicy,
    idle_timeout: Duration,
}

impl ModelClient {
    /// A client as the environment describes it (see the module docs).
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Result<Self, ModelError> {
        Self::from_env_on(get, None)
    }

    /// As [`ModelClient::from_env`], its calls made on `http` (an HTTP client made by
    /// [`http_client`] and shared by many sessions) when one is given.
    pub(crate) fn from_env_on(
        get: impl Fn(&str) -> Option<String>,
        http: Option<reqwest::Client>,
    ) -> Result<Self, ModelError> {
        let nonempty = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        let credentials = match (
            nonempty("ANTHROPIC_API_KEY"),
            nonempty("ANTHROPIC_AUTH_TOKEN"),
        ) {
            (Some(key), _) => Credentials::ApiKey(key),
            (None, Some(token)) => Credentials::Bearer(token),
            (None, None) => Credentials::None,
        };
        let base_url = nonempty("ANTHROPIC_BASE_URL").unwrap_or_else(|| DEFAULT_BASE_URL.into());
        let idle_timeout = nonempty("API_TIMEOUT_MS")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .unwrap_or(DEFAULT_IDLE_TIMEOUT);
        let http = match http {
            Some(http) => http,
            None => http_client(None)?,
        };
        Ok(Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
            credentials,
            retry: RetryPolicy::from_env(&get),
            idle_timeout,
        })
    }

    /// A client of the API at `base_url`.
    pub fn new(
        base_url: impl Into<String>,
        credentials: Credentials,
        retry: RetryPolicy,
        idle_timeout: Duration,
    ) -> Result<Self, ModelError> {
        let http = http_client(None)?;
        Ok(Self {
            http,
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            credentials,
            retry,
            idle_timeout,
        })
    }

    /// Whether calls can be made at all.
    pub fn has_credentials(&self) -> bool {
        self.credentials != Credentials::None
    }

    /// The host and port calls go to, for error messages.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Starts a streamed call, retrying as the policy says until the API accepts it; the
    /// events then come from [`ModelStream::next`]. Dropping the future or the stream closes
    /// the connection (that is how an interrupt stops a reply).
    pub async fn stream(
        &self,
        request: &MessagesRequest,
        mut on_retry: impl FnMut(RetryNotice),
    ) -> Result<ModelStream, ModelError> {
        let headers = self.headers()?;
        let body = bytes::Bytes::from(
            serde_json::to_vec(request).map_err(|err| ModelError::Stream(err.to_string()))?,
        );
        let url = format!("{}/v1/messages?beta=true", self.base_url);
        let mut attempt = 0u32;
        let budget = shared::retry_budget();
        loop {
            if let Some(budget) = budget {
                budget.wait_turn().await;
            }
            // Held until the reply's last event: the process's cap on calls in flight.
            let slot = shared::call_slot().await;
            // The answer's headers must come within the idle limit too (`API_TIMEOUT_MS`).
            let sent = tokio::time::timeout(
                self.idle_timeout,
                self.http
                    .post(&url)
                    .headers(headers.clone())
                    .body(body.clone())
                    .send(),
            )
            .await;
            let (error, response_headers) = match sent {
                Ok(Ok(response)) if response.status().is_success() => {
                    let mut stream = ModelStream::new(response, self.idle_timeout);
                    stream.slot = slot;
                    return Ok(stream);
                }
                Ok(Ok(response)) => {
                    let headers = response.headers().clone();
                    (error_of(response, self.idle_timeout).await, Some(headers))
                }
                Ok(Err(err)) => (ModelError::Connection(error_chain(&err)), None),
                Err(_) => (
                    ModelError::Connection(format!(
                        "no answer within {} s",
                        self.idle_timeout.as_secs()
                    )),
                    None,
                ),
            };
            let told = response_headers.as_ref().and_then(retry::server_says_retry);
            let retryable = match &error {
                ModelError::Status { status, .. } => {
                    told.unwrap_or_else(|| retry::is_retryable(*status))
                }
                ModelError::Connection(_) => true,
                _ => false,
            };
            drop(slot);
            attempt += 1;
            if !retryable || attempt > self.retry.max_retries {
                return Err(error);
            }
            if budget.is_some_and(|budget| !budget.take()) {
                tracing::warn!(%error, "the process's retry budget is spent: not retrying");
                return Err(error);
            }
            let delay = self.retry.delay(attempt, response_headers.as_ref());
            let named = response_headers.as_ref().and_then(retry::retry_after);
            if let (Some(budget), Some(wait), Some(429 | 529)) = (budget, named, error.status()) {
                // A rate limit or an overload with a named wait: every call of the process
                // waits it out, not only this one.
                budget.hold_for(wait);
            }
            on_retry(RetryNotice {
                attempt,
                max_retries: self.retry.max_retries,
                delay,
                status: error.status(),
                error: error.to_string(),
            });
            tracing::debug!(attempt, ?delay, %error, "retrying the model call");
            tokio::time::sleep(delay).await;
        }
    }

    /// One call answered whole, not streamed: a question of a tool's own (a web page read
    /// with a prompt, a web search). `body` is the request as the API takes it.
    pub async fn complete(
        &self,
        body: &serde_json::Value,
    ) -> Result<serde_json::Value, ModelError> {
        let headers = self.headers()?;
        let url = format!("{}/v1/messages?beta=true", self.base_url);
        let response = self
            .http
            .post(&url)
            .headers(headers)
            .body(serde_json::to_vec(body).map_err(|err| ModelError::Stream(err.to_string()))?)
            .send();
        let response = tokio::time::timeout(self.idle_timeout, response)
            .await
            .map_err(|_| ModelError::Connection("no answer in time".to_owned()))?
            .map_err(|err| ModelError::Connection(error_chain(&err)))?;
        if !response.status().is_success() {
            return Err(error_of(response, self.idle_timeout).await);
        }
        let bytes = whole_body(response, self.idle_timeout).await?;
        serde_json::from_slice(&bytes).map_err(|err| ModelError::Stream(err.to_string()))
    }

    /// The input tokens `request` holds, counted by the API ([`Self::count_tokens`]; the
    /// fields the endpoint does not take are left out).
    pub async fn count_request_tokens(&self, request: &MessagesRequest) -> Result<u64, ModelError> {
        let mut body =
            serde_json::to_value(request).map_err(|err| ModelError::Stream(err.to_string()))?;
        if let Some(object) = body.as_object_mut() {
            for field in ["max_tokens", "stream", "metadata"] {
                object.remove(field);
            }
        }
        self.count_tokens(&body).await
    }

    /// The API's count of a request's input tokens (`POST /v1/messages/count_tokens`).
    pub async fn count_tokens(&self, body: &serde_json::Value) -> Result<u64, ModelError> {
        let headers = self.headers()?;
        let url = format!("{}/v1/messages/count_tokens?beta=true", self.base_url);
        let response = self
            .http
            .post(&url)
            .headers(headers)
            .body(serde_json::to_vec(body).map_err(|err| ModelError::Stream(err.to_string()))?)
            .send();
        let response = tokio::time::timeout(self.idle_timeout, response)
            .await
            .map_err(|_| ModelError::Connection("no answer in time".to_owned()))?
            .map_err(|err| ModelError::Connection(error_chain(&err)))?;
        if !response.status().is_success() {
            return Err(error_of(response, self.idle_timeout).await);
        }
        let bytes = whole_body(response, self.idle_timeout).await?;
        let answer: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|err| ModelError::Stream(err.to_string()))?;
        answer["input_tokens"]
            .as_u64()
            .ok_or_else(|| ModelError::Stream("no input_tokens in the answer".into()))
    }

    fn headers(&self) -> Result<HeaderMap, ModelError> {
        let mut headers = HeaderMap::new();
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("anthropic-beta", HeaderValue::from_static(options::BETAS));
        let invalid = |_| ModelError::Connection("a credential that is not a header value".into());
        match &self.credentials {
            Credentials::ApiKey(key) => {
                headers.insert("x-api-key", HeaderValue::from_str(key).map_err(invalid)?);
            }
            Credentials::Bearer(token) => {
                let value = HeaderValue::from_str(&format!("Bearer {token}")).map_err(invalid)?;
                headers.insert("authorization", value);
            }
            Credentials::None => return Err(ModelError::NoCredentials),
        }
        Ok(headers)
    }
}

/// The error an error answer carries: Anthropic's `{"type":"error","error":{type,message}}`,
/// or the body's text.
async fn error_of(response: reqwest::Response, idle: Duration) -> ModelError {
    let status = response.status().as_u16();
    let mut body = Vec::new();
    let mut response = response;
    // A body that never ends (or pauses forever) is taken as far as it came.
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout(idle, response.chunk()).await {
        body.extend_from_slice(&chunk[..chunk.len().min(MAX_ERROR_BODY - body.len())]);
        if body.len() >= MAX_ERROR_BODY {
            break;
        }
    }
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&body).ok();
    let field = |name: &str| {
        parsed
            .as_ref()
            .and_then(|v| v["error"][name].as_str())
            .map(str::to_owned)
    };
    ModelError::Status {
        status,
        kind: field("type"),
        message: field("message").unwrap_or_else(|| String::from_utf8_lossy(&body).into_owned()),
    }
}

/// A whole (non-streamed) answer's body, within [`MAX_STREAM_BYTES`] and with no pause
/// longer than `idle`.
async fn whole_body(
    mut response: reqwest::Response,
    idle: Duration,
) -> Result<Vec<u8>, ModelError> {
    let mut body = Vec::new();
    loop {
        match tokio::time::timeout(idle, response.chunk()).await {
            Err(_) => return Err(ModelError::Stream("the answer stopped coming".to_owned())),
            Ok(Err(err)) => return Err(ModelError::Stream(error_chain(&err))),
            Ok(Ok(None)) => return Ok(body),
            Ok(Ok(Some(chunk))) => {
                if (body.len() + chunk.len()) as u64 > MAX_STREAM_BYTES {
                    return Err(ModelError::Stream(format!(
                        "an answer over {MAX_STREAM_BYTES} bytes"
                    )));
                }
                body.extend_from_slice(&chunk);
            }
        }
    }
}

/// An error with its causes, which is where reqwest says what went wrong.
fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// The events of one streamed reply.
#[derive(Debug)]
pub struct ModelStream {
    response: reqwest::Response,
    parser: SseParser,
    ready: VecDeque<SseItem>,
    idle_timeout: Duration,
    /// The API's id of the request (`request-id`), which the CLI shows as `request_id`.
    request_id: Option<String>,
    ended: bool,
    /// The bytes read so far ([`MAX_STREAM_BYTES`] at most).
    read: u64,
    /// The call's slot under the process's cap on calls in flight, released with the stream.
    slot: Option<tokio::sync::OwnedSemaphorePermit>,
}

impl ModelStream {
    fn new(response: reqwest::Response, idle_timeout: Duration) -> Self {
        let request_id = response
            .headers()
            .get("request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        Self {
            response,
            parser: SseParser::new(),
            ready: VecDeque::new(),
            idle_timeout,
            request_id,
            ended: false,
            read: 0,
            slot: None,
        }
    }

    /// The API's id of this request, when it sent one.
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The next event; `None` when the stream ended.
    pub async fn next(&mut self) -> Option<Result<StreamEvent, ModelError>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(match item {
                    SseItem::Event(event) => Ok(event),
                    SseItem::Invalid(why) => Err(ModelError::Stream(why)),
                });
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout(self.idle_timeout, self.response.chunk()).await {
                Err(_) => {
                    self.ended = true;
                    let secs = self.idle_timeout.as_secs();
                    return Some(Err(ModelError::Stream(format!(
                        "the stream was silent for {secs} s"
                    ))));
                }
                Ok(Err(err)) => {
                    self.ended = true;
                    return Some(Err(ModelError::Connection(error_chain(&err))));
                }
                Ok(Ok(None)) => self.ended = true,
                Ok(Ok(Some(chunk))) => {
                    self.read += chunk.len() as u64;
                    if self.read > MAX_STREAM_BYTES {
                        self.ended = true;
                        return Some(Err(ModelError::Stream(format!(
                            "a reply over {MAX_STREAM_BYTES} bytes"
                        ))));
                    }
                    self.ready.extend(self.parser.feed(&chunk));
                }
            }
        }
    }
}
