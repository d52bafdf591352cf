//! The data plane on its way from the reader to the user.
//!
//! The reader hands over everything it found in one read as one [`Batch`], so a fast stream
//! costs one wake-up per read rather than one per frame. Lines of the bulk kinds (see
//! [`super::Side::deferrable`]) travel as text and are decoded by [`Inbound`] when the user
//! takes them: the frames are then built and dropped on the same thread, where the allocator is
//! fastest, and the reader only frames lines while the user decodes, so the two overlap.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::sync::mpsc;
use twinwire_protocol::DecodeError;

use super::budget::Charge;
use super::ConnectionState;
use crate::error::{Error, Result};

/// What one read of the peer's output produced for the user.
pub(crate) struct Batch<T> {
    /// The text of the deferred lines, back to back.
    text: String,
    items: std::vec::IntoIter<Item<T>>,
    /// What it holds, counted against the budget until it is taken.
    charge: Charge,
}

enum Item<T> {
    /// Decoded by the reader (or an error found there).
    Ready(Result<T>),
    /// `text[start..end]`, still to be decoded; `line` is its number in the peer's output.
    Deferred { start: usize, end: usize, line: u64 },
}

/// Collects one read's items in the reader.
pub(crate) struct BatchBuilder<T> {
    text: String,
    items: Vec<Item<T>>,
    /// What the frames decoded by the reader cost (deferred lines count as their text).
    ready_bytes: usize,
}

impl<T> Default for BatchBuilder<T> {
    fn default() -> Self {
        Self {
            text: String::new(),
            items: Vec::new(),
            ready_bytes: 0,
        }
    }
}

impl<T> BatchBuilder<T> {
    /// Adds an item the reader decoded (or failed to), charged `bytes`: what the decoded
    /// frame may cost (see [`super::budget::decoded_cost`]).
    pub(crate) fn ready(&mut self, item: Result<T>, bytes: usize) {
        self.ready_bytes += bytes;
        self.items.push(Item::Ready(item));
    }

    /// Makes room for the deferred text of a read of `bytes` bytes, so that the batch's text
    /// is allocated once, at about its size (growing it line by line could leave up to twice
    /// its size allocated).
    pub(crate) fn reserve(&mut self, bytes: usize) {
        if self.text.capacity() == 0 {
            self.text.reserve_exact(bytes);
        }
    }

    /// Adds a line to be decoded by the user.
    pub(crate) fn deferred(&mut self, line: &str, number: u64) {
        let start = self.text.len();
        self.text.push_str(line);
        self.items.push(Item::Deferred {
            start,
            end: self.text.len(),
            line: number,
        });
    }

    /// The batch so far, leaving the builder empty; `None` when there is nothing.
    pub(crate) fn take(&mut self) -> Option<Batch<T>> {
        if self.items.is_empty() {
            return None;
        }
        // What the batch really holds: its buffers' capacity, and the lines decoded already.
        let charge = Charge {
            bytes: self.text.capacity()
                + self.items.capacity() * std::mem::size_of::<Item<T>>()
                + std::mem::take(&mut self.ready_bytes),
            text: self.text.capacity(),
        };
        let batch = Batch {
            text: std::mem::take(&mut self.text),
            items: std::mem::take(&mut self.items).into_iter(),
            charge,
        };
        Some(batch)
    }
}

impl<T> Batch<T> {
    /// A batch of one item, read from a line of `bytes` bytes.
    pub(crate) fn single(item: Result<T>, bytes: usize) -> Self {
        Self {
            text: String::new(),
            items: vec![Item::Ready(item)].into_iter(),
            charge: Charge { bytes, text: 0 },
        }
    }

    /// What it holds against the budget.
    pub(crate) fn charge(&self) -> Charge {
        self.charge
    }
}

/// The data-plane frames of the peer, in order, with recoverable errors (a line that is not a
/// frame, an oversized line) in between. Ends when the peer's output ends; if that was not a
/// clean exit, the last item is the error saying why.
///
/// What is not taken yet counts against the connection's byte budget
/// ([`super::EngineConfig::max_buffered_bytes`]): a user who stops taking frames makes the
/// reader stop reading the peer, until they are taken (or until one of our requests waits
/// for an answer). Dropping it lets the reader go on, discarding the data plane.
pub struct Inbound<T> {
    rx: mpsc::UnboundedReceiver<Batch<T>>,
    /// Items the host itself adds to the stream (see [`Inbound::with_side_channel`]).
    side: Option<mpsc::UnboundedReceiver<T>>,
    current: Option<Batch<T>>,
    decode: fn(&str) -> std::result::Result<T, DecodeError>,
    shared: Arc<ConnectionState>,
}

impl<T> std::fmt::Debug for Inbound<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inbound")
            .field("held_bytes", &self.shared.budget.held())
            .finish_non_exhaustive()
    }
}

impl<T> Drop for Inbound<T> {
    fn drop(&mut self) {
        if let Some(batch) = self.current.take() {
            self.shared.budget.release(batch.charge);
        }
        self.rx.close();
        // A reader paused by the budget goes on: nobody will take what it holds.
        self.shared.budget.nudge();
    }
}

impl<T> std::fmt::Debug for Batch<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Batch")
            .field("items", &self.items.len())
            .finish_non_exhaustive()
    }
}

impl<T> Inbound<T> {
    pub(crate) fn new(
        rx: mpsc::UnboundedReceiver<Batch<T>>,
        decode: fn(&str) -> std::result::Result<T, DecodeError>,
        shared: Arc<ConnectionState>,
    ) -> Self {
        Self {
            rx,
            side: None,
            current: None,
            decode,
            shared,
        }
    }

    /// Adds to the stream what the host itself reports (e.g. a transcript store's failure):
    /// each item comes between two reads of the peer, and once the peer's output has ended,
    /// the stream ends only when every sender of `side` is gone.
    pub(crate) fn with_side_channel(mut self, side: mpsc::UnboundedReceiver<T>) -> Self {
        self.side = Some(side);
        self
    }

    /// The next item, or `None` at the end.
    pub async fn recv(&mut self) -> Option<Result<T>> {
        std::future::poll_fn(|cx| self.poll_item(cx)).await
    }

    fn poll_item(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T>>> {
        loop {
            if let Some(batch) = &mut self.current {
                match batch.items.next() {
                    Some(Item::Ready(item)) => return Poll::Ready(Some(item)),
                    Some(Item::Deferred { start, end, line }) => {
                        let text = batch.text.get(start..end).unwrap_or_default();
                        let item = (self.decode)(text).map_err(|source| {
                            tracing::warn!(line, %source, "a line that is not a frame");
                            Error::Decode { line, source }
                        });
                        return Poll::Ready(Some(item));
                    }
                    None => {
                        if let Some(done) = self.current.take() {
                            self.shared.budget.release(done.charge);
                        }
                    }
                }
            }
            if let Some(Poll::Ready(Some(item))) = self.side.as_mut().map(|s| s.poll_recv(cx)) {
                return Poll::Ready(Some(Ok(item)));
            }
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(batch)) => self.current = Some(batch),
                Poll::Ready(None) => {
                    return match self.side.as_mut().map(|s| s.poll_recv(cx)) {
                        Some(Poll::Ready(Some(item))) => Poll::Ready(Some(Ok(item))),
                        Some(Poll::Pending) => Poll::Pending,
                        Some(Poll::Ready(None)) | None => Poll::Ready(None),
                    }
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<T: Unpin> futures::Stream for Inbound<T> {
    type Item = Result<T>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.poll_item(cx)
    }
}
