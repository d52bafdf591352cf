//! The fake's stdio, as handed to twinwire's agent server.
//!
//! * [`InputRecord`] is the server's tap on the host's lines: it records every line
//!   (`TWINWIRE_FAKE_RECORD`), including the control frames the engine consumes; it keeps the
//!   whole answer to each request the fake waits on, and records answers nobody waits for.
//! * [`Output`] writes to stdout synchronously.
//! * [`stdin`] reads the host's input without a helper thread.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};

use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncWrite};

use super::io::{stderr_line, Recorder};

/// The fake's own control requests waiting for an answer, and the answers to them, whole.
#[derive(Default)]
pub(crate) struct Requests {
    inner: Mutex<RequestsInner>,
}

#[derive(Default)]
struct RequestsInner {
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

    /// A request went out with this id: keep its answer when it comes. Called as the request
    /// is queued, before the host can possibly answer it.
    pub(crate) fn wait_for(&self, id: &str) {
        self.lock().waiting.insert(id.to_owned());
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

/// What the fake notes of each line the host writes, in order, as twinwire's agent side
/// reads it (its tap): the record (`TWINWIRE_FAKE_RECORD`), control frames the engine consumes
/// included, and the whole answer to each request the fake waits on.
pub(crate) struct InputRecord {
    requests: Arc<Requests>,
    rec: Arc<Recorder>,
}

impl InputRecord {
    pub(crate) fn new(requests: Arc<Requests>, rec: Arc<Recorder>) -> Self {
        Self { requests, rec }
    }

    /// One line the host wrote.
    pub(crate) fn line(&self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        // Without a record file only answers are needed whole; other lines are only checked.
        let recording = self.rec.enabled();
        if !recording && !text.contains("\"control_response\"") {
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

/// Stdout, written synchronously, so that a frame is out the moment the engine's writer hands
/// it over, even if the next step hangs the process or exits.
pub(crate) struct Output {
    out: Box<dyn Write + Send>,
}

impl Output {
    pub(crate) fn new() -> Self {
        Self { out: stdout() }
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
        loop {
            match self.out.write(buf) {
                Ok(n) => return Poll::Ready(Ok(n)),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
                Err(err) => Self::failed(&err),
            }
        }
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
    fn answers_are_kept_whole_for_their_waiters_only() {
        let requests = Arc::new(Requests::default());
        let record = InputRecord::new(Arc::clone(&requests), Arc::new(Recorder::open(None)));
        requests.wait_for("req_7");
        let answer = json!({"subtype": "success", "request_id": "req_7", "response": {"a": 1}});
        let line = json!({"type": "control_response", "response": answer}).to_string();
        record.line(&line);
        record.line(&line);
        assert_eq!(requests.take_answer("req_7"), Some(answer));
        assert_eq!(
            requests.take_answer("req_7"),
            None,
            "a second answer is nobody's"
        );
        requests.wait_for("req_8");
        requests.forget("req_8");
        let late = json!({"type": "control_response", "response": {"subtype": "success", "request_id": "req_8"}});
        record.line(&late.to_string());
        assert_eq!(requests.take_answer("req_8"), None);
    }
}
