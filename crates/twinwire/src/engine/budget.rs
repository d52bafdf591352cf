//! The byte budget of the data plane: how much the peer may have written that the user has
//! not taken yet.
//!
//! The reader adds the bytes of every batch it hands to the user and the user's side gives
//! them back as it takes each batch. A batch is charged what it really holds: the text of the
//! lines the user will decode, and for each frame the reader decoded, what its decoded value
//! may cost ([`decoded_cost`]), which for a small object is many times its text. Past the
//! budget, or past [`READ_AHEAD`] of text still to be decoded, the reader stops reading, so the
//! peer's writes block in the pipe (backpressure), and goes on once the user has taken half of
//! what is held. Two things keep it reading past the budget, because stopping then would stall the
//! session for good: a request of ours waiting for its answer (the answer may be behind the
//! data in the pipe: the deadlock of SDKs with a fixed buffer), and a user who has dropped the
//! stream (nobody will ever take what is held; it is not kept).

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The default budget: 8 MiB of frames not yet taken by the user.
///
/// The lines the user decodes (stream events, assistant and user messages: the bulk of a
/// session) are read at most 512 KiB ahead of the user within it, so a flood of them holds far
/// less; the rest of the budget is for frames the reader decodes itself (kinds it routes, kinds
/// this version does not know), charged at what their decoded value may cost. Measured on a
/// multi-thread runtime, a host's peak RSS under a flood it cannot keep up with is the process
/// plus about twice what is held (the batches are allocated by the reader and freed by the
/// user, on different threads and so in different allocator arenas) (docs/benchmarks.md).
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 8 * 1024 * 1024;

/// The most a frame decoded from `text` may hold in memory: an upper bound, read off the text
/// in one pass, of what a `serde_json::Value` of it costs (typed frames cost less: a test
/// checks both, over every recorded frame, against an allocator that counts).
///
/// The model is a 64-bit allocator that rounds a block up to 16 bytes with an 8-byte header,
/// 32 at least: the text itself (a string's bytes are never more than its text), and 32 bytes
/// more per string; an object of up to 11 members is one `BTreeMap` leaf node (a 640-byte
/// block), a bigger one has leaves of 5 members at least and internal nodes above them; an
/// array is a vector of 32-byte slots grown by doubling from 4; an empty object or array
/// allocates nothing; and each frame has its boxes and its maps of unknown fields.
pub(crate) fn decoded_cost(text: &str) -> usize {
    /// Containers nested deeper than this are charged as if each member needed a node of its
    /// own.
    const DEPTH: usize = 32;
    let bytes = text.as_bytes();
    // Per open container: whether it is an object, and its members so far.
    let mut open = [(false, 0usize); DEPTH];
    let mut depth = 0usize;
    let mut cost = FRAME_COST + text.len();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                cost += STRING_COST;
                i += 1;
                // To the closing quote, over escapes.
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            opener @ (b'{' | b'[') => {
                let empty = matches!(bytes.get(i + 1), Some(b'}' | b']'));
                if depth < DEPTH {
                    open[depth] = (opener == b'{', usize::from(!empty));
                } else if !empty {
                    cost += container_cost(opener == b'{', 1);
                }
                depth += 1;
            }
            b',' => match open.get_mut(depth.wrapping_sub(1)) {
                Some((_, members)) if depth <= DEPTH => *members += 1,
                // Deeper than tracked: a member charged as a container of its own.
                _ => cost += container_cost(true, 1),
            },
            b'}' | b']' => {
                if let Some(&(object, members)) = open.get(depth.wrapping_sub(1)) {
                    cost += container_cost(object, members);
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    // Containers left open (not JSON, so never decoded; counted all the same).
    for &(object, members) in &open[..depth.min(DEPTH)] {
        cost += container_cost(object, members);
    }
    cost
}

/// Per frame: the boxes of the typed value and its maps of unknown fields (an empty `result`,
/// the largest typed frame, holds about 2,150 bytes).
const FRAME_COST: usize = 2048;
/// Per string, beyond its bytes: its block.
const STRING_COST: usize = 32;

/// The blocks of an object or array of `members` members (their strings aside).
fn container_cost(object: bool, members: usize) -> usize {
    const LEAF: usize = 640;
    const INTERNAL: usize = 736;
    const LEAF_CAPACITY: usize = 11;
    match (object, members) {
        (_, 0) => 0,
        (true, 1..=LEAF_CAPACITY) => LEAF,
        (true, members) => LEAF * (members / 5 + 1) + INTERNAL * (members / 30 + 2),
        (false, members) => 32 * members.next_power_of_two().max(4) + 16,
    }
}

/// The most text of lines still to be decoded (the bulk kinds, which the user decodes) that the
/// reader reads ahead of the user, within the budget.
///
/// The user decodes slower than a peer can write, so under a flood the reader stays this far
/// ahead: more would only hold memory (about twice over, the batches being allocated on the
/// reader's thread and freed on the user's), not speed anything up. Half of it is still about
/// 900 stream events (a few hundred microseconds of decoding) when the reader is woken to read
/// on. Measured on the flood bench: 512 KiB, 1, 2 MiB and no limit ran in the same time, with
/// a peak RSS of 14.3, 15.2, 16.1 and 16.3 MiB (docs/benchmarks.md).
pub(crate) const READ_AHEAD: usize = 512 * 1024;

#[derive(Debug)]
pub(crate) struct ByteBudget {
    held: AtomicUsize,
    limit: usize,
    /// Of `held`, the text of the lines the user has still to decode.
    held_text: AtomicUsize,
    text_limit: usize,
    /// Wakes the reader: room was made, a request started waiting, or the user left.
    wake: Notify,
}

/// What a batch holds against the budget.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Charge {
    /// All it holds.
    pub(crate) bytes: usize,
    /// Of `bytes`, the text still to be decoded.
    pub(crate) text: usize,
}

impl ByteBudget {
    pub(crate) fn new(limit: usize) -> Self {
        Self::with_read_ahead(limit, READ_AHEAD)
    }

    pub(crate) fn with_read_ahead(limit: usize, text_limit: usize) -> Self {
        Self {
            held: AtomicUsize::new(0),
            limit: limit.max(1),
            held_text: AtomicUsize::new(0),
            text_limit: text_limit.max(1),
            wake: Notify::new(),
        }
    }

    /// The reader hands `charge` to the user.
    pub(crate) fn hold(&self, charge: Charge) {
        self.held_text.fetch_add(charge.text, Ordering::Relaxed);
        self.held.fetch_add(charge.bytes, Ordering::Relaxed);
    }

    /// The user took a batch of `charge`.
    pub(crate) fn release(&self, charge: Charge) {
        let text_before = self.held_text.fetch_sub(charge.text, Ordering::Relaxed);
        let before = self.held.fetch_sub(charge.bytes, Ordering::Relaxed);
        let was_waiting = before > self.limit / 2 || text_before > self.text_limit / 2;
        if was_waiting && self.has_room() {
            self.wake.notify_one();
        }
    }

    /// Below half of both limits: where a waiting reader goes on.
    fn has_room(&self) -> bool {
        self.held() <= self.limit / 2
            && self.held_text.load(Ordering::Relaxed) <= self.text_limit / 2
    }

    /// Something other than room (a request waiting, the user gone) may let the reader go on.
    pub(crate) fn nudge(&self) {
        self.wake.notify_one();
    }

    /// Bytes held now.
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Of what is held now, the text still to be decoded.
    #[cfg(test)]
    pub(crate) fn held_text(&self) -> usize {
        self.held_text.load(Ordering::Relaxed)
    }

    /// Whether the reader must wait before reading more: over the budget, or over the
    /// read-ahead ([`READ_AHEAD`]).
    pub(crate) fn is_full(&self) -> bool {
        self.held() > self.limit || self.held_text.load(Ordering::Relaxed) > self.text_limit
    }

    /// Waits until the reader may read on: below half of both limits once one was over, or
    /// `go_on()` says so (checked after every wake-up).
    pub(crate) async fn wait_for_room(&self, go_on: impl Fn() -> bool) {
        while !self.has_room() && !go_on() {
            self.wake.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn bytes(bytes: usize) -> Charge {
        Charge { bytes, text: 0 }
    }

    #[tokio::test]
    async fn the_reader_waits_past_the_budget_until_half_is_taken() {
        let budget = Arc::new(ByteBudget::new(100));
        budget.hold(bytes(150));
        assert!(budget.is_full());
        let waiting = {
            let budget = Arc::clone(&budget);
            tokio::spawn(async move { budget.wait_for_room(|| false).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        budget.release(bytes(60));
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "90 held: still above half the budget"
        );
        budget.release(bytes(40));
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken at half the budget")
            .unwrap();
    }

    #[tokio::test]
    async fn text_to_decode_past_the_read_ahead_stops_the_reader_within_the_budget() {
        let budget = Arc::new(ByteBudget::with_read_ahead(1000, 100));
        budget.hold(bytes(400));
        assert!(!budget.is_full());
        budget.hold(Charge {
            bytes: 150,
            text: 150,
        });
        assert!(
            budget.is_full(),
            "550 of 1000 held, but 150 of 100 to decode"
        );
        let waiting = {
            let budget = Arc::clone(&budget);
            tokio::spawn(async move { budget.wait_for_room(|| false).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        budget.release(Charge {
            bytes: 100,
            text: 100,
        });
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken at half the read-ahead")
            .unwrap();
    }

    #[tokio::test]
    async fn a_waiting_request_lets_the_reader_go_on() {
        let budget = Arc::new(ByteBudget::new(10));
        budget.hold(bytes(100));
        let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let waiting = {
            let (budget, flag) = (Arc::clone(&budget), Arc::clone(&flag));
            tokio::spawn(async move {
                budget
                    .wait_for_room(|| flag.load(std::sync::atomic::Ordering::SeqCst))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        budget.nudge();
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken by the nudge")
            .unwrap();
    }
}
