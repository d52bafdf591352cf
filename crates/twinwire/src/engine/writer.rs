//! The peer's input: frames written in the order they were sent.
//!
//! Whoever sends a frame while nothing is waiting to be written writes it at once, without
//! waiting: an answer to a permission request leaves from the reader that decoded the request,
//! with no hand-off to another task (on a multi-thread runtime, to another thread). When the
//! pipe is full, or frames are already queued, the frame is queued and the writer task writes
//! it as soon as the peer reads. Nobody ever waits on the peer while holding the lock.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

use super::lock;

type Sink = Box<dyn AsyncWrite + Send + Unpin>;

/// The frames on their way to the peer.
pub(crate) struct Outbox {
    state: Mutex<State>,
    /// Wakes the writer task when frames are queued or the input is to be closed.
    work: Notify,
}

struct State {
    /// The peer's input, while the writer task is not writing to it.
    sink: Option<Sink>,
    /// Frames (or what is left of one) that could not be written at once.
    queue: VecDeque<Vec<u8>>,
    /// Close once the queue is written.
    closing: bool,
    /// The peer stopped reading (or the input is closed): nothing more can be sent.
    broken: bool,
}

/// The input is closed or broken.
#[derive(Debug)]
pub(crate) struct Closed;

impl Outbox {
    /// The outbox for `sink`, and the writer task to spawn.
    pub(crate) fn new<W: AsyncWrite + Send + Unpin + 'static>(
        sink: W,
    ) -> (Arc<Self>, impl std::future::Future<Output = ()> + Send) {
        let outbox = Arc::new(Self {
            state: Mutex::new(State {
                sink: Some(Box::new(sink)),
                queue: VecDeque::new(),
                closing: false,
                broken: false,
            }),
            work: Notify::new(),
        });
        let task = run(Arc::clone(&outbox));
        (outbox, task)
    }

    /// Sends one serialized frame (ending in `\n`), after every frame sent before it.
    pub(crate) fn line(&self, line: Vec<u8>) -> Result<(), Closed> {
        let mut state = lock(&self.state);
        if state.broken || state.closing {
            return Err(Closed);
        }
        let rest = match (state.queue.is_empty(), state.sink.as_mut()) {
            (true, Some(sink)) => match write_now(sink, &line) {
                Ok(Attempt::Written) => return Ok(()),
                Ok(Attempt::Partial(written)) => line[written..].to_vec(),
                // An empty frame makes the writer task flush.
                Ok(Attempt::Unflushed) => Vec::new(),
                Err(err) => {
                    tracing::debug!(%err, "peer stopped reading its input");
                    state.broken = true;
                    state.sink = None;
                    return Err(Closed);
                }
            },
            _ => line,
        };
        state.queue.push_back(rest);
        drop(state);
        self.work.notify_one();
        Ok(())
    }

    /// Writes what is queued, then closes the peer's input.
    pub(crate) fn close(&self) {
        lock(&self.state).closing = true;
        self.work.notify_one();
    }
}

enum Attempt {
    /// All of it, flushed.
    Written,
    /// This many bytes; the sink is full.
    Partial(usize),
    /// All of it, but the sink could not flush yet.
    Unflushed,
}

/// Writes as much of `line` as the sink takes without waiting, and flushes it if it was all
/// taken. The waker is a no-op: if the sink is not ready, the writer task polls it again with
/// its own waker, which is what the sink then wakes.
fn write_now(sink: &mut Sink, line: &[u8]) -> std::io::Result<Attempt> {
    let mut cx = Context::from_waker(Waker::noop());
    let mut written = 0;
    while written < line.len() {
        match Pin::new(&mut *sink).poll_write(&mut cx, &line[written..]) {
            Poll::Ready(Ok(0)) => return Err(std::io::ErrorKind::WriteZero.into()),
            Poll::Ready(Ok(n)) => written += n,
            Poll::Ready(Err(err)) => return Err(err),
            Poll::Pending => return Ok(Attempt::Partial(written)),
        }
    }
    match Pin::new(&mut *sink).poll_flush(&mut cx) {
        Poll::Ready(Ok(())) => Ok(Attempt::Written),
        Poll::Ready(Err(err)) => Err(err),
        Poll::Pending => Ok(Attempt::Unflushed),
    }
}

/// Writes queued frames whenever there are some; ends once the input is closed or broken.
/// Dropping the sink closes the peer's input.
async fn run(outbox: Arc<Outbox>) {
    loop {
        // Take the sink and everything queued, or wait for work.
        let taken = {
            let mut state = lock(&outbox.state);
            if state.broken {
                return;
            }
            if state.queue.is_empty() && !state.closing {
                None
            } else {
                let Some(sink) = state.sink.take() else {
                    return;
                };
                Some((sink, std::mem::take(&mut state.queue), state.closing))
            }
        };
        let Some((mut sink, frames, closing)) = taken else {
            outbox.work.notified().await;
            continue;
        };
        let mut outcome = Ok(());
        for frame in &frames {
            outcome = sink.write_all(frame).await;
            if outcome.is_err() {
                break;
            }
        }
        if outcome.is_ok() {
            outcome = sink.flush().await;
        }
        {
            let mut state = lock(&outbox.state);
            if let Err(err) = outcome {
                tracing::debug!(%err, "peer stopped reading its input");
                state.broken = true;
                return;
            }
            if !(closing && state.queue.is_empty()) {
                state.sink = Some(sink);
                continue;
            }
            state.broken = true;
        }
        let _ = sink.shutdown().await;
        tracing::debug!("closed the peer's input");
        return;
    }
}
