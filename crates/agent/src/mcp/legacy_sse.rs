//! MCP's older HTTP transport (`"type": "sse"`), which rmcp no longer ships: the client opens
//! a `GET` to the server's URL and reads server-sent events; the first, `endpoint`, names the
//! URL to `POST` the client's messages to; each `message` event carries one of the server's.
//! Written as an rmcp [`Transport`], so the rest of the client is rmcp's.
//!
//! Bounded: an event larger than [`MAX_EVENT`] ends the stream, and the server's messages wait
//! in a queue of [`QUEUE`] (the reader pauses when it is full).

use std::borrow::Cow;
use std::time::Duration;

use futures::StreamExt;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleClient;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

/// The largest event accepted.
const MAX_EVENT: usize = 16 * 1024 * 1024;
/// How many of the server's messages may wait to be read.
const QUEUE: usize = 64;
/// How long the server may take to name its endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(30);

/// Why the transport failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct SseError(String);

/// A connection over the SSE transport.
pub(crate) struct SseTransport {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: reqwest::header::HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl SseTransport {
    /// Opens the event stream of the server `config` names (`url`, `headers`) and waits for
    /// its endpoint.
    pub(crate) async fn connect(config: &Value) -> Result<Self, String> {
        let url: reqwest::Url = config["url"]
            .as_str()
            .ok_or_else(|| "no `url`".to_owned())?
            .parse()
            .map_err(|err| format!("url: {err}"))?;
        let mut headers = reqwest::header::HeaderMap::new();
        for (name, value) in config["headers"].as_object().into_iter().flatten() {
            let name = reqwest::header::HeaderName::from_bytes(name.as_bytes())
                .map_err(|err| format!("header {name}: {err}"))?;
            let value = reqwest::header::HeaderValue::from_str(value.as_str().unwrap_or_default())
                .map_err(|err| format!("header {name}: {err}"))?;
            headers.insert(name, value);
        }
        let http = reqwest::Client::new();
        let response = http
            .get(url.clone())
            .headers(headers.clone())
            .header("accept", "text/event-stream")
            .send()
            .await
            .map_err(|err| format!("GET {url}: {err}"))?;
        if !response.status().is_success() {
            return Err(format!("GET {url}: {}", response.status()));
        }
        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        let (tx, incoming) = mpsc::channel(QUEUE);
        let reader = tokio::spawn(read_events(response, endpoint_tx, tx));
        let endpoint = tokio::time::timeout(ENDPOINT_WAIT, endpoint_rx)
            .await
            .map_err(|_| "the server named no endpoint".to_owned())?
            .map_err(|_| "the event stream ended before the endpoint".to_owned())?;
        let endpoint = url
            .join(&endpoint)
            .map_err(|err| format!("endpoint {endpoint}: {err}"))?;
        Ok(Self {
            http,
            endpoint,
            headers,
            incoming,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> Cow<'static, str> {
        "sse".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .http
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&item).unwrap_or_default());
        async move {
            let response = request
                .send()
                .await
                .map_err(|err| SseError(err.to_string()))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SseError(format!("POST: {}", response.status())))
            }
        }
    }

    fn receive(
        &mut self,
    ) -> impl std::future::Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}

/// Reads the event stream: the endpoint to the one waiting for it, messages to the queue.
async fn read_events(
    response: reqwest::Response,
    endpoint: oneshot::Sender<String>,
    messages: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
) {
    let mut endpoint = Some(endpoint);
    let mut events = Events::default();
    let mut body = response.bytes_stream();
    while let Some(Ok(chunk)) = body.next().await {
        for (kind, data) in events.feed(&chunk) {
            match kind.as_str() {
                "endpoint" => {
                    if let Some(tx) = endpoint.take() {
                        let _ = tx.send(data);
                    }
                }
                "message" | "" => match serde_json::from_str(&data) {
                    Ok(message) => {
                        if messages.send(message).await.is_err() {
                            return;
                        }
                    }
                    Err(err) => tracing::debug!(%err, "an SSE message that is not JSON-RPC"),
                },
                _ => {}
            }
        }
        if events.too_large {
            tracing::warn!("an MCP server sent an event larger than {MAX_EVENT} bytes");
            return;
        }
    }
}

/// Server-sent events cut from the bytes as they come.
#[derive(Default)]
struct Events {
    line: Vec<u8>,
    kind: String,
    data: String,
    too_large: bool,
}

impl Events {
    /// The events `chunk` completes: `(event, data)`.
    fn feed(&mut self, chunk: &[u8]) -> Vec<(String, String)> {
        let mut done = Vec::new();
        for &byte in chunk {
            if byte != b'\n' {
                self.line.push(byte);
                if self.line.len() + self.data.len() > MAX_EVENT {
                    self.too_large = true;
                    return done;
                }
                continue;
            }
            let line = String::from_utf8_lossy(&self.line)
                .trim_end_matches('\r')
                .to_owned();
            self.line.clear();
            if line.is_empty() {
                if !self.data.is_empty() || !self.kind.is_empty() {
                    done.push((
                        std::mem::take(&mut self.kind),
                        std::mem::take(&mut self.data),
                    ));
                }
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line.as_str(), ""),
            };
            match field {
                "event" => self.kind = value.to_owned(),
                "data" => {
                    if !self.data.is_empty() {
                        self.data.push('\n');
                    }
                    self.data.push_str(value);
                }
                _ => {}
            }
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_cut_at_blank_lines_across_chunks() {
        let mut events = Events::default();
        assert!(events
            .feed(b"event: endpoint\ndata: /messages?s=1\n")
            .is_empty());
        let done = events.feed(b"\nevent: message\r\ndata: {\"a\":\ndata: 1}\r\n\r\n: ping\n\n");
        assert_eq!(
            done,
            [
                ("endpoint".to_owned(), "/messages?s=1".to_owned()),
                ("message".to_owned(), "{\"a\":\n1}".to_owned())
            ]
        );
    }
}
