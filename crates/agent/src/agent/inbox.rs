//! The host's input, watched on its way to twinwire's engine, for what the agent must know in
//! the order the host wrote it: a user message that arrives while a turn runs is announced
//! with its place in the queue (`system/queued`; twinwire's raw framing queues the message and
//! leaves the notices to the agent), and an `initialize` written before a user message is
//! applied before that message's turn starts (the engine serves the two concurrently).

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::Deserialize;
use tokio::io::{AsyncRead, ReadBuf};
use twinwire::agent::Peer;

use super::{frames, Shared};

/// How much of a line is kept to read its `type` (a user line may carry megabytes of
/// images; its `type` comes first in every host's frames).
const MAX_SCAN: usize = 64 * 1024;

/// The turn running now and how many messages wait behind it.
#[derive(Default)]
pub(crate) struct Live {
    turn: Option<Peer>,
    queued: usize,
}

/// A turn began: messages from now on are queued behind it.
pub(crate) fn turn_started(shared: &Shared, session: &Peer) {
    let mut live = super::lock(&shared.live);
    live.turn = Some(session.clone());
    live.queued = 0;
}

/// The queue was taken into the turn.
pub(crate) fn taken(shared: &Shared) {
    super::lock(&shared.live).queued = 0;
}

/// The turn ended.
pub(crate) fn turn_ended(shared: &Shared) {
    super::lock(&shared.live).turn = None;
}

/// The host's input, watched.
pub(crate) struct Watched<R> {
    inner: R,
    shared: Arc<Shared>,
    line: Vec<u8>,
    overflow: bool,
}

impl<R> Watched<R> {
    pub(crate) fn new(inner: R, shared: Arc<Shared>) -> Self {
        Self {
            inner,
            shared,
            line: Vec::new(),
            overflow: false,
        }
    }

    fn scan(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            if byte != b'\n' {
                if self.line.len() < MAX_SCAN {
                    self.line.push(byte);
                } else {
                    self.overflow = true;
                }
                continue;
            }
            match kind(&self.line, self.overflow) {
                Kind::User => self.user_arrived(),
                Kind::Initialize => {
                    self.shared.initializing.send_replace(true);
                }
                Kind::Other => {}
            }
            self.line.clear();
            self.overflow = false;
        }
    }

    fn user_arrived(&self) {
        let mut live = super::lock(&self.shared.live);
        let Some(turn) = live.turn.clone() else {
            return;
        };
        live.queued += 1;
        let position = live.queued;
        drop(live);
        let session_id = super::lock(&self.shared.state)
            .session_id
            .clone()
            .unwrap_or_default();
        let _ = turn.emit(&frames::queued(&session_id, position));
    }
}

/// What a line is, as far as the watch cares.
#[derive(Debug, PartialEq, Eq)]
enum Kind {
    User,
    Initialize,
    Other,
}

#[derive(Deserialize)]
struct Frame<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<&'a str>,
    #[serde(default)]
    request: Option<Request<'a>>,
}

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    subtype: Option<&'a str>,
}

/// What a line (or its first `MAX_SCAN` bytes) is.
fn kind(line: &[u8], cut: bool) -> Kind {
    if cut {
        let text = String::from_utf8_lossy(line);
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        return if compact.starts_with("{\"type\":\"user\"") {
            Kind::User
        } else {
            Kind::Other
        };
    }
    match serde_json::from_slice::<Frame<'_>>(line) {
        Ok(Frame {
            kind: Some("user"), ..
        }) => Kind::User,
        Ok(Frame {
            kind: Some("control_request"),
            request: Some(Request {
                subtype: Some("initialize"),
            }),
        }) => Kind::Initialize,
        _ => Kind::Other,
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for Watched<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let fresh = buf.filled()[before..].to_vec();
            self.scan(&fresh);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_lines_and_initialize_are_told_from_others() {
        let user = br#"{"type":"user","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(kind(user, false), Kind::User);
        let init = br#"{"request_id":"1","request":{"subtype":"initialize","hooks":{}},"type":"control_request"}"#;
        assert_eq!(kind(init, false), Kind::Initialize);
        let other =
            br#"{"type":"control_request","request_id":"1","request":{"subtype":"interrupt"}}"#;
        assert_eq!(kind(other, false), Kind::Other);
        assert_eq!(kind(b"not json", false), Kind::Other);
        assert_eq!(kind(br#"{ "type": "user", "message": {"#, true), Kind::User);
    }
}
