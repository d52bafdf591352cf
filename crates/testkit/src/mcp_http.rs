//! An MCP server on a real socket speaking both HTTP transports, written from the protocol
//! rather than from an SDK so that the agent's client is checked against the wire itself:
//! streamable HTTP at `/mcp` (each `POST` answered with one JSON body, `GET` refused with 405
//! as the protocol allows) and the older SSE transport at `/sse` (an event stream that names
//! `/messages` as its endpoint, then carries the answers to what is posted there).
//!
//! One tool, `note`, answers `"<label>: <text>"`. Every request's head is kept, so a test can
//! see the headers the client sent. Bounded as a test server needs: a request's head and body
//! are cut at [`MAX_REQUEST`].

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The largest request read.
pub const MAX_REQUEST: usize = 4 * 1024 * 1024;

/// The session id the streamable transport hands out.
pub const SESSION: &str = "web-memo-session-1";

/// A running server; it stops with the runtime that started it.
#[derive(Debug)]
pub struct McpHttpServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    heads: Arc<Mutex<Vec<String>>>,
}

impl McpHttpServer {
    /// Starts the server on a free port of 127.0.0.1; `label` begins every answer of its tool.
    pub async fn start(label: &str) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let base = format!("http://{}", listener.local_addr()?);
        let heads = Arc::new(Mutex::new(Vec::new()));
        let state = Arc::new(State {
            label: label.to_owned(),
            heads: Arc::clone(&heads),
            stream: Mutex::new(None),
        });
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, Arc::clone(&state)));
            }
        });
        Ok(Self { base, heads })
    }

    /// The heads of the requests seen so far (request line and headers).
    pub fn heads(&self) -> Vec<String> {
        lock(&self.heads).clone()
    }

    /// The streamable HTTP transport's URL.
    pub fn http_url(&self) -> String {
        format!("{}/mcp", self.base)
    }

    /// The SSE transport's URL.
    pub fn sse_url(&self) -> String {
        format!("{}/sse", self.base)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

struct State {
    label: String,
    heads: Arc<Mutex<Vec<String>>>,
    /// Where the answers to posted messages go on the SSE transport.
    stream: Mutex<Option<mpsc::UnboundedSender<Value>>>,
}

async fn serve(mut socket: TcpStream, state: Arc<State>) {
    while let Some((head, body)) = read_request(&mut socket).await {
        lock(&state.heads).push(head.clone());
        let request_line = head.lines().next().unwrap_or_default().to_owned();
        let mut parts = request_line.split(' ');
        let method = parts.next().unwrap_or("");
        let path = parts.next().unwrap_or("").split('?').next().unwrap_or("");
        let message: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let written = match (method, path) {
            ("POST", "/mcp") => match answer(&message, &state.label) {
                Some(reply) => {
                    let extra = if message["method"] == "initialize" {
                        format!("mcp-session-id: {SESSION}\r\n")
                    } else {
                        String::new()
                    };
                    respond(
                        &mut socket,
                        200,
                        "application/json",
                        &extra,
                        &reply.to_string(),
                    )
                    .await
                }
                None => respond(&mut socket, 202, "text/plain", "", "").await,
            },
            ("GET", "/mcp") => respond(&mut socket, 405, "text/plain", "", "").await,
            ("DELETE", "/mcp") => respond(&mut socket, 200, "text/plain", "", "").await,
            ("GET", "/sse") => return event_stream(socket, &state).await,
            ("POST", "/messages") => {
                if let Some(reply) = answer(&message, &state.label) {
                    if let Some(stream) = lock(&state.stream).as_ref() {
                        let _ = stream.send(reply);
                    }
                }
                respond(&mut socket, 202, "text/plain", "", "").await
            }
            _ => respond(&mut socket, 404, "text/plain", "", "").await,
        };
        if !written {
            return;
        }
    }
}

/// The SSE transport's stream: the endpoint first, then each answer as a `message` event,
/// until the client goes.
async fn event_stream(mut socket: TcpStream, state: &State) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    *lock(&state.stream) = Some(tx);
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err()
        || socket
            .write_all(b"event: endpoint\ndata: /messages?session=1\n\n")
            .await
            .is_err()
    {
        return;
    }
    while let Some(reply) = rx.recv().await {
        let event = format!("event: message\ndata: {reply}\n\n");
        if socket.write_all(event.as_bytes()).await.is_err() {
            return;
        }
    }
}

async fn respond(
    socket: &mut TcpStream,
    status: u16,
    content_type: &str,
    extra: &str,
    body: &str,
) -> bool {
    let out = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{extra}\r\n{body}",
        body.len()
    );
    socket.write_all(out.as_bytes()).await.is_ok()
}

/// The answer to one JSON-RPC message; none for a notification.
fn answer(message: &Value, label: &str) -> Option<Value> {
    let id = message.get("id")?.clone();
    let result = match message["method"].as_str().unwrap_or_default() {
        "initialize" => json!({
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "web-memo", "version": "1.0.0"}
        }),
        "tools/list" => json!({"tools": [{
            "name": "note",
            "description": "Keeps a note",
            "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
        }]}),
        "tools/call" => json!({"content": [{
            "type": "text",
            "text": format!("{label}: {}", message["params"]["arguments"]["text"].as_str().unwrap_or_default())
        }]}),
        "ping" => json!({}),
        other => {
            return Some(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("no method {other}")}}))
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// One HTTP/1.1 request from `socket`: its head and its body (`content-length` bytes); `None`
/// at the connection's end or past [`MAX_REQUEST`]. For test servers of other kinds too.
pub async fn read_request(socket: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buffer.len() > MAX_REQUEST {
            return None;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    if length > MAX_REQUEST {
        return None;
    }
    while buffer.len() < head_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    Some((head, buffer[head_end..head_end + length].to_vec()))
}
