//! The reader task: frames the peer's output and routes every frame.

use std::sync::Arc;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;
use twinwire_protocol::control::{ControlResponse, ControlResponseBody, RequestId};
use twinwire_protocol::framing::{Line, LineDecoder, LineError};

use super::budget::decoded_cost;
use super::inbound::{Batch, BatchBuilder};
use super::pending::Resolution;
use super::{
    lock, peer_requests, ConnectionState, ControlHandler, EndCause, LineTap, Observer, OutputEnd,
    Routed, Side, Watchers,
};
use crate::error::Error;

const READ_CHUNK: usize = 64 * 1024;

pub(crate) async fn run<S: Side, R: AsyncRead + Unpin>(
    mut reader: R,
    shared: Arc<ConnectionState>,
    handler: Arc<dyn ControlHandler>,
    data: mpsc::UnboundedSender<Batch<S::Inbound>>,
    end_cause: EndCause,
    watchers: Watchers<S::Inbound>,
) {
    let mut decoder = LineDecoder::with_max_line_length(shared.config.max_line_length);
    let mut router = Router::<S> {
        shared: &shared,
        handler: &handler,
        data: &data,
        batch: BatchBuilder::default(),
        observer: watchers.observer,
        deferred_tap: watchers.deferred,
        line_tap: watchers.lines,
    };
    let mut bytes_read: u64 = 0;
    loop {
        if shared.budget.is_full() {
            // Backpressure: the peer's writes block until the user takes what is held, but a
            // request of ours that waits for its answer, or a user who left, lets us go on.
            shared
                .budget
                .wait_for_room(|| data.is_closed() || lock(&shared.pending).len() > 0)
                .await;
        }
        let buffer = decoder.append_buffer();
        buffer.reserve(READ_CHUNK);
        match reader.read_buf(buffer).await {
            Ok(0) => break,
            Ok(read) => {
                bytes_read += read as u64;
                router.batch.reserve(decoder.buffered_len());
                while let Some(item) = decoder.next_line() {
                    router.route(item);
                }
                router.flush();
            }
            Err(err) => {
                tracing::debug!(%err, "reading the peer's output failed");
                break;
            }
        }
    }
    let end = OutputEnd {
        partial_last_line: decoder.buffered_len() > 0,
        bytes: bytes_read,
        input_closed: shared
            .input_closed
            .load(std::sync::atomic::Ordering::SeqCst),
    };
    while let Some(item) = decoder.finish() {
        router.route(item);
    }
    router.flush();
    if S::CLOSES_INPUT_AT_END {
        shared.outbox.close();
    }
    let cause = end_cause(end).await;
    tracing::debug!(%cause, "the peer's output ended");
    shared.shutdown.cancel();
    lock(&shared.pending).fail_all(&cause);
    let normal = matches!(cause, Error::Closed);
    shared.closed.send_replace(Some(cause.clone()));
    if !normal {
        let _ = data.send(Batch::single(Err(cause), 0));
    }
}

struct Router<'a, S: Side> {
    shared: &'a Arc<ConnectionState>,
    handler: &'a Arc<dyn ControlHandler>,
    data: &'a mpsc::UnboundedSender<Batch<S::Inbound>>,
    /// Data-plane items of the current read, sent together by `flush`.
    batch: BatchBuilder<S::Inbound>,
    observer: Option<Observer<S::Inbound>>,
    deferred_tap: Option<LineTap>,
    line_tap: Option<LineTap>,
}

impl<S: Side> Router<'_, S> {
    fn route(&mut self, item: std::result::Result<Line<'_>, LineError>) {
        let line = match item {
            Ok(line) => line,
            Err(err) => {
                tracing::warn!(%err, "skipped a line of the peer's output");
                self.batch.ready(Err(Error::Line(err)), 0);
                return;
            }
        };
        if let Some(tap) = &mut self.line_tap {
            tap(line.text);
        }
        let bytes = line.text.len();
        if twinwire_protocol::leading_type(line.text).is_some_and(S::deferrable) {
            if let Some(tap) = &mut self.deferred_tap {
                tap(line.text);
            }
            self.batch.deferred(line.text, line.number);
            return;
        }
        let frame = match S::decode(line.text) {
            Ok(frame) => frame,
            Err(source) => {
                // Not a JSON object: not a frame at all (a stray log line, a truncated write).
                tracing::warn!(line = line.number, %source, "a line that is not a frame");
                self.batch.ready(
                    Err(Error::Decode {
                        line: line.number,
                        source,
                    }),
                    bytes,
                );
                return;
            }
        };
        if let Some(malformed) = S::as_malformed(&frame) {
            tracing::warn!(line = line.number, %malformed, "a frame that could not be typed");
            // Rare: the frame's JSON is rebuilt to read its control envelope.
            let raw = serde_json::to_value(&frame).unwrap_or_default();
            self.malformed_control(&raw, &malformed.to_string());
            self.deliver(frame, decoded_cost(line.text));
            return;
        }
        match S::route(frame) {
            Routed::Data(frame) => self.deliver(frame, decoded_cost(line.text)),
            Routed::Request(request) => peer_requests::spawn(request, self.shared, self.handler),
            Routed::Response(response) => self.resolve(response),
            Routed::Cancel(cancel) => peer_requests::cancel(self.shared, &cancel.request_id),
            Routed::KeepAlive => {}
        }
    }

    /// Hands a decoded frame to the user, charged `cost` (see [`decoded_cost`]).
    fn deliver(&mut self, frame: S::Inbound, cost: usize) {
        let frame = match &mut self.observer {
            Some(observer) => {
                let settings = super::Settings {
                    shared: self.shared,
                };
                match observer(frame, &settings) {
                    Some(frame) => frame,
                    None => return,
                }
            }
            None => frame,
        };
        self.batch.ready(Ok(frame), cost);
    }

    /// A control frame that could not be typed still does its part when its id can be read:
    /// a request is answered with an error (so the peer does not wait for an answer), a
    /// response fails the request waiting for it (so it does not wait for its timeout).
    fn malformed_control(&self, raw: &serde_json::Value, why: &str) {
        let id = |value: Option<&serde_json::Value>| value.and_then(RequestId::from_value);
        match raw.get("type").and_then(serde_json::Value::as_str) {
            Some("control_request") => {
                if let Some(id) = id(raw.get("request_id")) {
                    let message = format!("malformed control request: {why}");
                    peer_requests::refuse(self.shared, id, &message);
                }
            }
            Some("control_response") => {
                let response = raw.get("response");
                if let Some(id) = id(response.and_then(|r| r.get("request_id"))) {
                    self.fail_pending(&id, format!("malformed control response: {why}"));
                }
            }
            _ => {}
        }
    }

    /// Hands the items of this read to the user in one send. The user may have dropped the
    /// stream; control traffic goes on regardless.
    fn flush(&mut self) {
        if let Some(batch) = self.batch.take() {
            let charge = batch.charge();
            if self.data.send(batch).is_ok() {
                self.shared.budget.hold(charge);
            }
        }
    }

    fn resolve(&self, response: ControlResponse) {
        let (id, outcome) = match response.response {
            ControlResponseBody::Success(success) => (success.request_id.clone(), Ok(success)),
            ControlResponseBody::Error(error) => (
                error.request_id,
                Err(Error::Control {
                    subtype: String::new(),
                    message: error.error,
                    code: error.error_code.map(|code| code.to_string()),
                }),
            ),
            ControlResponseBody::Malformed(malformed) => {
                if let Some(id) = malformed
                    .raw
                    .get("request_id")
                    .and_then(RequestId::from_value)
                {
                    self.fail_pending(&id, format!("malformed control response: {malformed}"));
                }
                return;
            }
            other => {
                tracing::warn!(
                    subtype = other.tag(),
                    "control response of an unknown subtype"
                );
                return;
            }
        };
        self.settle(&id, outcome);
    }

    fn fail_pending(&self, id: &RequestId, message: String) {
        let error = Error::Control {
            subtype: String::new(),
            message,
            code: None,
        };
        self.settle(id, Err(error));
    }

    fn settle(
        &self,
        id: &RequestId,
        outcome: crate::error::Result<twinwire_protocol::control::ControlSuccess>,
    ) {
        match lock(&self.shared.pending).resolve(id, outcome) {
            Resolution::Delivered => {}
            Resolution::Duplicate => tracing::debug!(%id, "ignored a late or repeated response"),
            Resolution::Unknown => tracing::warn!(%id, "ignored a response to no request"),
        }
    }
}
