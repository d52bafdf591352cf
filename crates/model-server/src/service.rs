//! The HTTP side: one handler that records each request and answers it from the script.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use axum::Router;
use serde_json::Value;

use super::conversation::Conversation;
use super::response::{self, Block, Message, Pacing};
use super::script::{ModelScript, Reply, UsageLimitReply};
use super::RecordedRequest;

/// The largest request body accepted (the CLI's are about 50–100 KB).
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Headers whose values are replaced by `<redacted>` in recordings.
const SECRET_HEADERS: [&str; 3] = ["x-api-key", "authorization", "proxy-authorization"];

/// State shared by all requests of one server.
pub(crate) struct ServerState {
    script: ModelScript,
    /// How many replies each rule gave, by index.
    used: Mutex<Vec<u32>>,
    records: Mutex<Vec<RecordedRequest>>,
    next_request: AtomicU64,
    /// Called with each message request's body before it is answered.
    observer: Mutex<Option<Observer>>,
    /// Message requests being answered now (until their response's body ends), and the most
    /// there ever were at once.
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

/// Counts one message request in flight until dropped (with its response's body).
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A function that sees each `POST /v1/messages` body before the reply is chosen.
pub type Observer = Arc<dyn Fn(&Value) + Send + Sync>;

impl std::fmt::Debug for ServerState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerState")
            .field("script", &self.script)
            .field("requests", &lock(&self.records).len())
            .finish_non_exhaustive()
    }
}

impl ServerState {
    pub fn new(script: ModelScript) -> Self {
        ServerState {
            used: Mutex::new(vec![0; script.rules.len()]),
            script,
            records: Mutex::new(Vec::new()),
            next_request: AtomicU64::new(1),
            observer: Mutex::new(None),
            in_flight: Arc::new(AtomicUsize::new(0)),
            max_in_flight: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The most message requests answered at once so far.
    pub fn max_in_flight(&self) -> usize {
        self.max_in_flight.load(Ordering::SeqCst)
    }

    /// Counts a message request in flight; the guard goes with its response's body.
    fn enter(&self) -> InFlight {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        InFlight(Arc::clone(&self.in_flight))
    }

    /// Sets the function that sees each message request before it is answered.
    pub fn observe(&self, observer: Observer) {
        *lock(&self.observer) = Some(observer);
    }

    fn notify(&self, body: &Value) {
        let observer = lock(&self.observer).clone();
        if let Some(observer) = observer {
            observer(body);
        }
    }

    /// A copy of every recorded request.
    pub fn records(&self) -> Vec<RecordedRequest> {
        lock(&self.records).clone()
    }

    /// The reply for a request (the first matching rule that is not used up, else the
    /// default) and the input tokens it reports, when the rule names them.
    fn choose(&self, conversation: &Conversation) -> (Reply, Option<u64>) {
        let mut used = lock(&self.used);
        for (index, rule) in self.script.rules.iter().enumerate() {
            let left = rule.times.is_none_or(|n| used[index] < n);
            if left && rule.when.matches(conversation) {
                used[index] += 1;
                tracing::debug!(rule = index, "model server: rule matched");
                return (rule.reply.clone(), rule.input_tokens);
            }
        }
        tracing::debug!("model server: no rule matched, default reply");
        (self.script.default.clone(), None)
    }
}

/// The router: everything goes to [`handle`].
pub(crate) fn router(shared: Arc<ServerState>) -> Router {
    Router::new()
        .fallback(handle)
        .with_state(shared)
        .layer(DefaultBodyLimit::max(MAX_BODY))
}

async fn handle(
    State(shared): State<Arc<ServerState>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned());
    let json: Option<Value> = serde_json::from_slice(&body).ok();
    tracing::debug!(%method, %path, bytes = body.len(), "model server: request");
    lock(&shared.records).push(RecordedRequest {
        method: method.to_string(),
        path: path.clone(),
        headers: recorded_headers(&headers),
        body: json.clone().unwrap_or(Value::Null),
    });

    let mut response = match (&method, uri.path()) {
        (&Method::POST, "/v1/messages") => {
            let counted = shared.enter();
            let response = messages(&shared, json.as_ref()).await;
            // Counted until the body is sent (a streamed reply takes its time).
            let (parts, body) = response.into_parts();
            let body = futures_util::StreamExt::map(body.into_data_stream(), move |chunk| {
                let _ = &counted;
                chunk
            });
            Response::from_parts(parts, Body::from_stream(body))
        }
        (&Method::POST, "/v1/messages/count_tokens") => {
            json_response(StatusCode::OK, &response::count_tokens_body(body.len()))
        }
        (&Method::GET, "/v1/models") => {
            let ids = response::model_ids(shared.script.model.as_deref());
            json_response(StatusCode::OK, &response::models_body(&ids))
        }
        (&Method::GET, other) if other.starts_with("/v1/models/") => {
            let id = &other["/v1/models/".len()..];
            json_response(StatusCode::OK, &response::model_object(id))
        }
        _ => not_found(&method, uri.path()),
    };
    let request_id = format!(
        "req_fake_{}",
        shared.next_request.fetch_add(1, Ordering::Relaxed)
    );
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", value);
    }
    response
}

/// `POST /v1/messages`.
async fn messages(shared: &ServerState, body: Option<&Value>) -> Response {
    let (conversation, (reply, input_tokens)) = match body.filter(|b| b.is_object()) {
        Some(body) => {
            shared.notify(body);
            let conversation = Conversation::from_body(body);
            let reply = shared.choose(&conversation);
            (conversation, reply)
        }
        None => {
            tracing::debug!("model server: body is not a JSON object, default reply");
            (
                Conversation::default(),
                (shared.script.default.clone(), None),
            )
        }
    };
    let model = shared
        .script
        .model
        .clone()
        .or_else(|| conversation.model.clone())
        .unwrap_or_else(|| "claude-fake".to_owned());

    let mut pacing = Pacing {
        deltas: None,
        delay: Duration::ZERO,
    };
    let mut stop_details = None;
    let blocks = match reply {
        Reply::Text(text) => vec![Block::Text(text)],
        Reply::Json(value) => vec![Block::Text(value.to_string())],
        Reply::Echo(_) => vec![Block::Text(format!(
            "You said: {}",
            conversation.last_prompt
        ))],
        Reply::ToolUse(tool) => {
            let mut blocks: Vec<Block> = tool.text.into_iter().map(Block::Text).collect();
            blocks.push(Block::tool_use(tool.name, tool.input));
            blocks
        }
        Reply::ToolUses(tools) => {
            let mut blocks: Vec<Block> = tools.text.into_iter().map(Block::Text).collect();
            blocks.extend(tools.calls.into_iter().map(|call| {
                let input = conversation.fill(call.input, &call.fill);
                Block::tool_use(call.name, input)
            }));
            blocks
        }
        Reply::WebSearch(search) => {
            let id = response::new_id("srvtoolu_fake_", 16);
            let query = search
                .query
                .clone()
                .unwrap_or_else(|| conversation.last_prompt.clone());
            let mut blocks = vec![
                Block::ServerToolUse {
                    id: id.clone(),
                    name: "web_search".to_owned(),
                    input: serde_json::json!({"query": query}),
                },
                Block::WebSearchResult {
                    tool_use_id: id,
                    hits: search
                        .results
                        .iter()
                        .map(|hit| (hit.title.clone(), hit.url.clone()))
                        .collect(),
                },
            ];
            blocks.extend(search.text.into_iter().map(Block::Text));
            blocks
        }
        Reply::SlowText(slow) => {
            pacing = Pacing {
                deltas: Some(slow.deltas.max(1) as usize),
                delay: Duration::from_millis(slow.delay_ms),
            };
            vec![Block::Text(slow.text)]
        }
        Reply::Refusal(refusal) => {
            stop_details = Some(refusal.stop_details());
            vec![Block::Text(refusal.text)]
        }
        Reply::Error(error) => {
            let status = StatusCode::from_u16(error.status).unwrap_or_else(|_| {
                tracing::warn!(
                    status = error.status,
                    "model server: bad status, sending 500"
                );
                StatusCode::INTERNAL_SERVER_ERROR
            });
            let body = response::error_body(error.error_type(), &error.message());
            return json_response(status, &body);
        }
        Reply::UsageLimit(limit) => return usage_limit_response(&limit),
    };
    let mut message = Message::new(model, blocks);
    if let Some(tokens) = input_tokens {
        message.input_tokens = tokens;
    }
    if let Some(details) = stop_details {
        message = message.refused(details);
    }

    if conversation.stream {
        return sse_response(message.to_events(pacing));
    }
    if let Some(deltas) = pacing.deltas {
        let pauses = u32::try_from(deltas.saturating_sub(1)).unwrap_or(u32::MAX);
        tokio::time::sleep(pacing.delay.saturating_mul(pauses)).await;
    }
    json_response(StatusCode::OK, &message.to_json())
}

/// A streamed `text/event-stream` response sending each event after its pause.
fn sse_response(events: Vec<(Duration, String)>) -> Response {
    let stream = futures_util::stream::unfold(events.into_iter(), |mut events| async move {
        let (pause, event) = events.next()?;
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
        Some((Ok::<_, Infallible>(event), events))
    });
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A 429 whose headers say that a usage limit was reached and when it resets.
fn usage_limit_response(limit: &UsageLimitReply) -> Response {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let reset = now.saturating_add(limit.reset_in_seconds);
    let body = response::error_body("rate_limit_error", &limit.message(reset));
    let mut response = json_response(StatusCode::TOO_MANY_REQUESTS, &body);
    for (name, value) in limit.headers(now) {
        if let Ok(value) = HeaderValue::from_str(&value) {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

fn not_found(method: &Method, path: &str) -> Response {
    let message = format!("Not found: {method} {path}");
    json_response(
        StatusCode::NOT_FOUND,
        &response::error_body("not_found_error", &message),
    )
}

fn recorded_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let name = name.as_str().to_owned();
            let value = if SECRET_HEADERS.contains(&name.as_str()) {
                "<redacted>".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name, value)
        })
        .collect()
}

/// Locks a mutex, going on after a panic elsewhere (the data stays usable).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
