//! Our requests that wait for an answer, and the ids recently answered.

use std::collections::{HashMap, HashSet, VecDeque};

use tokio::sync::oneshot;
use twinwire_protocol::control::{ControlSuccess, RequestId};

use crate::error::{Error, Result};

/// What happened to a response.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// It reached the request waiting for it.
    Delivered,
    /// Its request was already answered, timed out or withdrawn: a late or repeated answer.
    Duplicate,
    /// Nobody ever asked with this id.
    Unknown,
}

/// Gets the whole success envelope: beside the payload it may list the requests the peer is
/// still waiting on (`pending_permission_requests`, …).
type Waiter = oneshot::Sender<Result<ControlSuccess>>;

pub(crate) struct Pending {
    waiting: HashMap<RequestId, Waiter>,
    /// Ids answered or abandoned lately, oldest first, bounded by `capacity`.
    recent: VecDeque<RequestId>,
    recent_set: HashSet<RequestId>,
    capacity: usize,
}

impl Pending {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            waiting: HashMap::new(),
            recent: VecDeque::new(),
            recent_set: HashSet::new(),
            capacity: capacity.max(1),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.waiting.len()
    }

    pub(crate) fn insert(&mut self, id: RequestId, waiter: Waiter) {
        self.waiting.insert(id, waiter);
    }

    /// Hands `outcome` to the request with this id, if one waits.
    pub(crate) fn resolve(
        &mut self,
        id: &RequestId,
        outcome: Result<ControlSuccess>,
    ) -> Resolution {
        match self.waiting.remove(id) {
            Some(waiter) => {
                self.remember(id);
                // The caller may have stopped waiting at this very moment; nothing to do then.
                let _ = waiter.send(outcome);
                Resolution::Delivered
            }
            None if self.recent_set.contains(id) => Resolution::Duplicate,
            None => Resolution::Unknown,
        }
    }

    /// Forgets a request whose caller stopped waiting. True if it was still waiting.
    pub(crate) fn abandon(&mut self, id: &RequestId) -> bool {
        let was_waiting = self.waiting.remove(id).is_some();
        if was_waiting {
            self.remember(id);
        }
        was_waiting
    }

    /// Fails every waiting request with `cause`.
    pub(crate) fn fail_all(&mut self, cause: &Error) {
        for (_, waiter) in self.waiting.drain() {
            let _ = waiter.send(Err(cause.clone()));
        }
    }

    fn remember(&mut self, id: &RequestId) {
        if self.recent_set.insert(id.clone()) {
            self.recent.push_back(id.clone());
        }
        while self.recent.len() > self.capacity {
            if let Some(old) = self.recent.pop_front() {
                self.recent_set.remove(&old);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_and_strays_are_told_apart_within_the_bound() {
        let mut pending = Pending::new(2);
        let id = RequestId::from;
        for name in ["a", "b", "c"] {
            let (tx, _rx) = oneshot::channel();
            pending.insert(id(name), tx);
            assert_eq!(
                pending.resolve(&id(name), Ok(ControlSuccess::default())),
                Resolution::Delivered
            );
        }
        assert_eq!(
            pending.resolve(&id("c"), Ok(ControlSuccess::default())),
            Resolution::Duplicate
        );
        assert_eq!(
            pending.resolve(&id("b"), Ok(ControlSuccess::default())),
            Resolution::Duplicate
        );
        // "a" fell out of the bounded memory: now indistinguishable from a stray id.
        assert_eq!(
            pending.resolve(&id("a"), Ok(ControlSuccess::default())),
            Resolution::Unknown
        );
        assert_eq!(
            pending.resolve(&id("zzz"), Ok(ControlSuccess::default())),
            Resolution::Unknown
        );
        // A numeric id is another id than the same digits as a string.
        let (tx, _rx) = oneshot::channel();
        pending.insert(RequestId::from(1), tx);
        assert_eq!(
            pending.resolve(&id("1"), Ok(ControlSuccess::default())),
            Resolution::Unknown
        );
        assert_eq!(
            pending.resolve(&RequestId::from(1), Ok(ControlSuccess::default())),
            Resolution::Delivered
        );
        assert_eq!(pending.len(), 0);
    }

    #[tokio::test]
    async fn fail_all_reaches_every_waiter() {
        let mut pending = Pending::new(8);
        let (tx1, rx1) = oneshot::channel();
        let (tx2, rx2) = oneshot::channel();
        pending.insert("1".into(), tx1);
        pending.insert("2".into(), tx2);
        pending.fail_all(&Error::Closed);
        assert!(matches!(rx1.await, Ok(Err(Error::Closed))));
        assert!(matches!(rx2.await, Ok(Err(Error::Closed))));
        assert!(!pending.abandon(&"1".into()));
    }
}
