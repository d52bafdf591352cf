//! The fake's stdio, as handed to twinwire's agent server: taps on both pipes that let the fake
//! see its control traffic the way the old hand-written loop did, without a loop of its own.
//!
//! * [`Input`] passes stdin through to the engine and records every line it carries
//!   (`TWINWIRE_FAKE_RECORD`), including the control frames the engine consumes; it keeps the
//!   whole answer to each request the fake waits on, and records answers nobody waits for.
//! * [`Output`] writes to stdout synchronously (so that a frame is out the moment the engine's
//!   writer hands it over, even if the next step hangs the process or exits) and learns the
//!   `request_id` the engine gave each request the fake sends: the fake needs it to withdraw a
//!   request itself and to report it, and the engine's API does not return it.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::oneshot;

use super::io::{stderr_line, Recorder};

/// The fake's own control requests: written but not yet seen on stdout, and waiting for an
/// answer.
#[derive(Default)]
pub(crate) struct Requests {
    inner: Mutex<RequestsInner>,
    /// How many requests wait for their id; while none do, [`Output`] inspects nothing.
    unseen_count: AtomicUsize,
}

#[derive(Default)]
struct RequestsInner {
    /// Serialized request bodies about to be written, and who waits for their ids.
    unseen: Vec<(Vec<u8>, oneshot::Sender<String>)>,
    /// Ids whose answer the fake still waits for.
    waiting: HashSet<String>,
    /// Whole `response` objects of answers to waited-for ids, as the host wrote them.
    answers: HashMap<String, Value>,
}

impl Requests {
    fn lock(&self) -> MutexGuard<'_, RequestsInner> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A request with this serialized body is about to be written: its id arrives on the
    /// returned channel when [`Output`] sees it go out.
    pub(crate) fn expect(&self, body: Vec<u8>) -> oneshot::Receiver<String> {
        let (tx, rx) = oneshot::channel();
        self.lock().unseen.push((body, tx));
        self.unseen_count.fetch_add(1, Ordering::SeqCst);
        rx
    }

    /// The request with this body was never written (the connection had ended).
    pub(crate) fn never_written(&self, body: &[u8]) {
        let mut inner = self.lock();
        if let Some(at) = inner.unseen.iter().position(|(b, _)| b == body) {
            inner.unseen.remove(at);
            self.unseen_count.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Stop waiting for `id`: a later answer counts as one nobody waits for.
    pub(crate) fn forget(&self, id: &str) {
        let mut inner = self.lock();
        inner.waiting.remove(id);
        inner.answers.remove(id);
    }

    /// The whole answer to `id`, if the host sent one.
    pub(crate) fn take_answer(&self, id: &str) -> Option<Value> {
        self.lock().answers.remove(id)
    }

    /// A `control_request` line went out: hand its id to whoever sent that body.
    fn written(&self, line: &[u8]) {
        #[derive(Deserialize)]
        struct Envelope<'a> {
            request_id: String,
            #[serde(borrow)]
            request: &'a RawValue,
        }
        let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(line) else {
            return;
        };
        let body = envelope.request.get().as_bytes();
        let mut inner = self.lock();
        let Some(at) = inner.unseen.iter().position(|(b, _)| b == body) else {
            return;
        };
        let (_, tx) = inner.unseen.remove(at);
        self.unseen_count.fetch_sub(1, Ordering::SeqCst);
        // Registered here, before the host can possibly answer, not when the sender wakes up.
        inner.waiting.insert(envelope.request_id.clone());
        let _ = tx.send(envelope.request_id);
    }

    /// A `control_response` came in: keep it for its waiter; false if nobody waits for it.
    fn answered(&self, response: &Value) -> bool {
        let Some(id) = response.get("request_id").and_then(Value::as_str) else {
            return false;
        };
        let mut inner = self.lock();
        if !inner.waiting.remove(id) {
            return false;
        }
        inner.answers.insert(id.to_owned(), response.clone());
        true
    }
}

/// Stdin, recorded line by line on its way to the engine.
pub(crate) struct Input<R> {
    inner: R,
    requests: Arc<Requests>,
    rec: Arc<Recorder>,
    /// The start of a line whose end has not been read yet.
    partial: Vec<u8>,
}

impl<R> Input<R> {
    pub(crate) fn new(inner: R, requests: Arc<Requests>, rec: Arc<Recorder>) -> Self {
        Self {
            inner,
            requests,
            rec,
            partial: Vec::new(),
        }
    }

    fn inspect(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&bytes[..end]);
            let line = std::mem::take(&mut self.partial);
            self.line(&line);
            bytes = &bytes[end + 1..];
        }
        self.partial.extend_from_slice(bytes);
    }

    fn line(&self, line: &[u8]) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        // Without a record file only answers are needed whole; other lines are only checked.
        let recording = self.rec.enabled();
        if !recording && !contains(line, b"\"control_response\"") {
            if let Err(err) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
                stderr_line(&format!(
                    "fake-claude: ignoring a line that is not JSON: {err}"
                ));
            }
            return;
        }
        let frame: Value = match serde_json::from_str(text) {
            Ok(frame) => frame,
            Err(err) => {
                self.rec.line(&json!({"in_raw": text}));
                stderr_line(&format!(
                    "fake-claude: ignoring a line that is not JSON: {err}"
                ));
                return;
            }
        };
        if frame.get("type").and_then(Value::as_str) == Some("control_response") {
            let response = frame.get("response").unwrap_or(&Value::Null);
            let waited_for = self.requests.answered(response);
            if recording {
                self.rec.line(&json!({"in": &frame}));
                if !waited_for {
                    self.rec.line(&json!({"ignored_response": frame}));
                }
            }
        } else if recording {
            self.rec.line(&json!({"in": frame}));
        }
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

impl<R: AsyncRead + Unpin> AsyncRead for Input<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let after = buf.filled().len();
            if after == before {
                // End of input: a last line without a newline still counts.
                let rest = std::mem::take(&mut self.partial);
                self.line(&rest);
            } else {
                let fresh = buf.filled()[before..after].to_vec();
                self.inspect(&fresh);
            }
        }
        polled
    }
}

/// Where [`Output`] is in the line being written.
enum LineState {
    /// At the start of a line.
    Start,
    /// Inside a line that is not one of the fake's requests.
    Skip,
    /// Inside a line that may be a `control_request`: its bytes so far.
    Capture(Vec<u8>),
}

/// How a line the fake's requests are written in begins (the engine writes the tag first).
const REQUEST_PREFIX: &[u8] = br#"{"type":"control_request","#;

/// Stdout, written synchronously.
pub(crate) struct Output {
    out: Box<dyn Write + Send>,
    requests: Arc<Requests>,
    line: LineState,
}

impl Output {
    pub(crate) fn new(requests: Arc<Requests>) -> Self {
        Self {
            out: stdout(),
            requests,
            line: LineState::Start,
        }
    }

    /// Follows the lines in `bytes`, looking for the fake's requests only while one of them
    /// waits for its id; otherwise just remembers whether a line ended.
    fn inspect(&mut self, mut bytes: &[u8]) {
        let watching = self.requests.unseen_count.load(Ordering::SeqCst) > 0;
        if !watching && !matches!(self.line, LineState::Capture(_)) {
            if let Some(&last) = bytes.last() {
                self.line = if last == b'\n' {
                    LineState::Start
                } else {
                    LineState::Skip
                };
            }
            return;
        }
        while !bytes.is_empty() {
            let end = bytes.iter().position(|&b| b == b'\n');
            match &mut self.line {
                LineState::Skip => match end {
                    Some(end) => {
                        bytes = &bytes[end + 1..];
                        self.line = LineState::Start;
                    }
                    None => return,
                },
                LineState::Start => self.line = LineState::Capture(Vec::new()),
                LineState::Capture(line) => {
                    let part = &bytes[..end.unwrap_or(bytes.len())];
                    // Copy no more than the prefix of a line that is not a request.
                    let head = REQUEST_PREFIX
                        .len()
                        .saturating_sub(line.len())
                        .min(part.len());
                    line.extend_from_slice(&part[..head]);
                    if !REQUEST_PREFIX.starts_with(line) && !line.starts_with(REQUEST_PREFIX) {
                        self.line = LineState::Skip;
                        continue;
                    }
                    line.extend_from_slice(&part[head..]);
                    let Some(end) = end else { return };
                    let line = std::mem::take(line);
                    if line.starts_with(REQUEST_PREFIX) {
                        self.requests.written(&line);
                    }
                    self.line = LineState::Start;
                    bytes = &bytes[end + 1..];
                }
            }
        }
    }

    fn failed(err: &std::io::Error) -> ! {
        // The host stopped reading: the real CLI dies then too.
        stderr_line(&format!("fake-claude: stdout write failed: {err}"));
        std::process::exit(1)
    }
}

impl AsyncWrite for Output {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let written = loop {
            match self.out.write(buf) {
                Ok(n) => break n,
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => Self::failed(&err),
            }
        };
        self.inspect(&buf[..written]);
        Poll::Ready(Ok(written))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if let Err(err) = self.out.flush() {
            Self::failed(&err);
        }
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

/// Stdin for the engine's reader: when it is a pipe, read without a helper thread (readiness
/// from the runtime's poller, no hand-off to tokio's blocking pool for every read, which costs
/// more than the rest of a round trip); otherwise through tokio's stdin.
pub(crate) fn stdin() -> Box<dyn AsyncRead + Send + Unpin> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let pipe = std::io::stdin()
            .as_fd()
            .try_clone_to_owned()
            .map(std::fs::File::from)
            .and_then(tokio::net::unix::pipe::Receiver::from_file);
        if let Ok(pipe) = pipe {
            return Box::new(pipe);
        }
    }
    Box::new(tokio::io::stdin())
}

/// Stdout without std's line buffer: each write is one `write(2)` of the engine's batch.
#[cfg(unix)]
fn stdout() -> Box<dyn Write + Send> {
    use std::os::fd::AsFd;
    match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(std::io::stdout()),
    }
}

#[cfg(not(unix))]
fn stdout() -> Box<dyn Write + Send> {
    Box::new(std::io::stdout())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_learns_ids_across_split_writes_and_skips_other_lines() {
        let requests = Arc::new(Requests::default());
        let mut output = Output {
            out: Box::new(std::io::sink()),
            requests: Arc::clone(&requests),
            line: LineState::Skip,
        };
        let body = br#"{"subtype":"can_use_tool","tool_name":"Bash"}"#.to_vec();
        let mut rx = requests.expect(body.clone());
        let line = format!(
            "tail of an earlier line\n{{\"type\":\"assistant\",\"x\":1}}\n{{\"type\":\"control_request\",\"request_id\":\"req_7\",\"request\":{}}}\n",
            String::from_utf8_lossy(&body)
        );
        for chunk in line.as_bytes().chunks(7) {
            output.inspect(chunk);
        }
        assert_eq!(rx.try_recv().unwrap(), "req_7");
        assert_eq!(requests.unseen_count.load(Ordering::SeqCst), 0);
        let answer = json!({"subtype": "success", "request_id": "req_7"});
        assert!(requests.answered(&answer));
        assert!(!requests.answered(&answer), "a second answer is nobody's");
        assert_eq!(requests.take_answer("req_7"), Some(answer));
    }
}
