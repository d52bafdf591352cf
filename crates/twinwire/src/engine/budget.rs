//! The byte budget of the data plane: how much the peer may have written that the user has
//! not taken yet.
//!
//! The reader adds the bytes of every batch it hands to the user and the user's side gives
//! them back as it takes each batch. A batch is charged what it really holds: the text of the
//! lines the user will decode, and for each frame the reader decoded, what its decoded value
//! may cost ([`decoded_cost`]), which for a small object is many times its text. Past the budget the reader stops reading, so the peer's
//! writes block in the pipe (backpressure), and goes on once the user has taken half of what
//! is held. Two things keep it reading past the budget, because stopping then would stall the
//! session for good: a request of ours waiting for its answer (the answer may be behind the
//! data in the pipe: the deadlock of SDKs with a fixed buffer), and a user who has dropped the
//! stream (nobody will ever take what is held; it is not kept).

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

/// The default budget: 8 MiB of frames not yet taken by the user.
///
/// Measured on a multi-thread runtime, a host's peak RSS under a flood it cannot keep up with
/// is about 9 MiB (the process) plus twice the budget (the batches are allocated by the reader
/// and freed by the user, on different threads and so in different allocator arenas): 24 MiB
/// with this default, 32 MiB with 12 MiB, 39 MiB with 16 MiB (docs/benchmarks.md).
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

#[derive(Debug)]
pub(crate) struct ByteBudget {
    held: AtomicUsize,
    limit: usize,
    /// Wakes the reader: room was made, a request started waiting, or the user left.
    wake: Notify,
}

impl ByteBudget {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            held: AtomicUsize::new(0),
            limit: limit.max(1),
            wake: Notify::new(),
        }
    }

    /// The reader hands `bytes` to the user.
    pub(crate) fn hold(&self, bytes: usize) {
        self.held.fetch_add(bytes, Ordering::Relaxed);
    }

    /// The user took a batch of `bytes`.
    pub(crate) fn release(&self, bytes: usize) {
        let before = self.held.fetch_sub(bytes, Ordering::Relaxed);
        let after = before.saturating_sub(bytes);
        let resume = self.limit / 2;
        if before > resume && after <= resume {
            self.wake.notify_one();
        }
    }

    /// Something other than room (a request waiting, the user gone) may let the reader go on.
    pub(crate) fn nudge(&self) {
        self.wake.notify_one();
    }

    /// Bytes held now.
    pub(crate) fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Whether the reader must wait before reading more.
    pub(crate) fn is_full(&self) -> bool {
        self.held() > self.limit
    }

    /// Waits until the reader may read on: below half the budget once it was over, or
    /// `go_on()` says so (checked after every wake-up).
    pub(crate) async fn wait_for_room(&self, go_on: impl Fn() -> bool) {
        while self.held() > self.limit / 2 && !go_on() {
            self.wake.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    #[tokio::test]
    async fn the_reader_waits_past_the_budget_until_half_is_taken() {
        let budget = Arc::new(ByteBudget::new(100));
        budget.hold(150);
        assert!(budget.is_full());
        let waiting = {
            let budget = Arc::clone(&budget);
            tokio::spawn(async move { budget.wait_for_room(|| false).await })
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        budget.release(60);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "90 held: still above half the budget"
        );
        budget.release(40);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken at half the budget")
            .unwrap();
    }

    #[tokio::test]
    async fn a_waiting_request_lets_the_reader_go_on() {
        let budget = Arc::new(ByteBudget::new(10));
        budget.hold(100);
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
