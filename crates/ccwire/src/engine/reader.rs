//! The reader task: frames the peer's output and routes every frame.

use std::sync::Arc;

use ccwire_protocol::control::{ControlResponse, ControlResponseBody};
use ccwire_protocol::framing::{Line, LineDecoder, LineError};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

use super::inbound::{Batch, BatchBuilder};
use super::pending::Resolution;
use super::{incoming, lock, ControlHandler, EndCause, Observer, Peer, Routed, Shared};
use crate::Error;

const READ_CHUNK: usize = 64 * 1024;

pub(crate) async fn run<P: Peer, R: AsyncRead + Unpin>(
    mut reader: R,
    shared: Arc<Shared>,
    handler: Arc<dyn ControlHandler>,
    data: mpsc::UnboundedSender<Batch<P::Inbound>>,
    end_cause: EndCause,
    observer: Option<Observer<P::Inbound>>,
) {
    let mut decoder = LineDecoder::with_max_line_length(shared.config.max_line_length);
    let mut router = Router::<P> {
        shared: &shared,
        handler: &handler,
        data: &data,
        batch: BatchBuilder::default(),
        observer,
    };
    loop {
        let buffer = decoder.append_buffer();
        buffer.reserve(READ_CHUNK);
        match reader.read_buf(buffer).await {
            Ok(0) => break,
            Ok(_) => {
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
    while let Some(item) = decoder.finish() {
        router.route(item);
    }
    router.flush();
    let cause = end_cause().await;
    tracing::debug!(%cause, "the peer's output ended");
    shared.shutdown.cancel();
    lock(&shared.pending).fail_all(&cause);
    let clean = matches!(
        cause,
        Error::Closed | Error::ProcessExited { code: Some(0), .. }
    );
    shared.closed.send_replace(Some(cause.clone()));
    if !clean {
        let _ = data.send(Batch::single(Err(cause)));
    }
}

/// The id of a `control_request` frame, if the line is one.
fn malformed_request_id(line: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Envelope {
        #[serde(rename = "type")]
        kind: String,
        request_id: String,
    }
    let envelope: Envelope = serde_json::from_str(line).ok()?;
    (envelope.kind == "control_request").then_some(envelope.request_id)
}

struct Router<'a, P: Peer> {
    shared: &'a Arc<Shared>,
    handler: &'a Arc<dyn ControlHandler>,
    data: &'a mpsc::UnboundedSender<Batch<P::Inbound>>,
    /// Data-plane items of the current read, sent together by `flush`.
    batch: BatchBuilder<P::Inbound>,
    observer: Option<Observer<P::Inbound>>,
}

impl<P: Peer> Router<'_, P> {
    fn route(&mut self, item: std::result::Result<Line<'_>, LineError>) {
        let line = match item {
            Ok(line) => line,
            Err(err) => {
                tracing::warn!(%err, "skipped a line of the peer's output");
                self.batch.ready(Err(Error::Line(err)));
                return;
            }
        };
        if ccwire_protocol::leading_type(line.text).is_some_and(P::deferrable) {
            self.batch.deferred(line.text, line.number);
            return;
        }
        let frame = match P::decode(line.text) {
            Ok(frame) => frame,
            Err(source) => {
                tracing::warn!(line = line.number, %source, "undecodable frame");
                // A request we cannot read still gets an answer, so the peer does not wait.
                if let Some(id) = malformed_request_id(line.text) {
                    incoming::refuse(
                        self.shared,
                        &id,
                        &format!("malformed control request: {source}"),
                    );
                }
                self.batch.ready(Err(Error::Decode {
                    line: line.number,
                    source,
                }));
                return;
            }
        };
        match P::route(frame) {
            Routed::Data(frame) => {
                if let Some(observer) = &mut self.observer {
                    observer(&frame);
                }
                self.batch.ready(Ok(frame));
            }
            Routed::Request(request) => incoming::spawn(request, self.shared, self.handler),
            Routed::Response(response) => self.resolve(response),
            Routed::Cancel(cancel) => incoming::cancel(self.shared, &cancel.request_id),
            Routed::KeepAlive => {}
        }
    }

    /// Hands the items of this read to the user in one send. The user may have dropped the
    /// stream; control traffic goes on regardless.
    fn flush(&mut self) {
        if let Some(batch) = self.batch.take() {
            let _ = self.data.send(batch);
        }
    }

    fn resolve(&self, response: ControlResponse) {
        let (id, outcome) = match response.response {
            ControlResponseBody::Success(success) => (success.request_id, Ok(success.response)),
            ControlResponseBody::Error(error) => (
                error.request_id,
                Err(Error::Control {
                    subtype: String::new(),
                    message: error.error,
                    code: error.error_code.map(|code| code.to_string()),
                }),
            ),
            other => {
                tracing::warn!(
                    subtype = other.tag(),
                    "control response of an unknown subtype"
                );
                return;
            }
        };
        match lock(&self.shared.pending).resolve(&id, outcome) {
            Resolution::Delivered => {}
            Resolution::Duplicate => tracing::debug!(%id, "ignored a late or repeated response"),
            Resolution::Unknown => tracing::warn!(%id, "ignored a response to no request"),
        }
    }
}
