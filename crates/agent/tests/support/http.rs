//! A scripted HTTP server on a real socket, for what `twinwire model-server` does not say: a
//! `retry-after`, thinking blocks, parallel tool calls. Each request gets the next answer of
//! the script (the last one repeats); every request is recorded with when it came.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use twinwire_testkit::mcp_http::read_request;

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    /// A streamed reply: server-sent events, one per value.
    pub fn events(events: &[Value]) -> Self {
        let body = events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("")))
            .collect();
        Self {
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            body,
        }
    }

    /// An error answer in Anthropic's shape.
    pub fn error(status: u16, kind: &str, headers: &[(&str, &str)]) -> Self {
        Self {
            status,
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            body: serde_json::json!({"type": "error", "error": {"type": kind, "message": format!("scripted {kind}")}}).to_string(),
        }
    }
}

/// A request as it came.
#[derive(Debug, Clone)]
pub struct Seen {
    pub at: Instant,
    pub head: String,
    pub body: Value,
}

pub struct ScriptedServer {
    pub url: String,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl ScriptedServer {
    pub async fn start(answers: Vec<Answer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = Arc::clone(&seen);
        tokio::spawn(async move {
            let answers = Arc::new(answers);
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let (answers, log) = (Arc::clone(&answers), Arc::clone(&log));
                tokio::spawn(async move {
                    loop {
                        let Some((head, body)) = read_request(&mut socket).await else {
                            return;
                        };
                        let index = {
                            let mut log = log.lock().unwrap();
                            log.push(Seen {
                                at: Instant::now(),
                                head,
                                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                            });
                            log.len() - 1
                        };
                        let answer = &answers[index.min(answers.len() - 1)];
                        let mut out = format!(
                            "HTTP/1.1 {} X\r\ncontent-length: {}\r\n",
                            answer.status,
                            answer.body.len()
                        );
                        for (name, value) in &answer.headers {
                            out.push_str(&format!("{name}: {value}\r\n"));
                        }
                        out.push_str("\r\n");
                        out.push_str(&answer.body);
                        if socket.write_all(out.as_bytes()).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
        Self { url, seen }
    }

    pub fn requests(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// A server on a real socket that reads each request's head and then does `act` with the
/// socket: for answers no script gives (one that never ends, never comes, or redirects).
pub async fn raw_server<F, Fut>(act: F) -> String
where
    F: Fn(TcpStream) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let act = std::sync::Arc::new(act);
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let act = std::sync::Arc::clone(&act);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    if socket.read(&mut byte).await.unwrap_or(0) == 0 {
                        return;
                    }
                    head.push(byte[0]);
                }
                act(socket).await;
            });
        }
    });
    url
}
