//! [`PooledClient`]: a session checked out of a pool, under its budget.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::OwnedSemaphorePermit;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::Message;

use super::claim::{Claimed, Start};
use super::{Budget, Shared};
use crate::error::{Error, Result};
use crate::host::Client;

/// A checked-out session's place in the pool, given back on drop.
pub(super) struct Slot {
    pub(super) shared: Arc<Shared>,
    pub(super) _permit: OwnedSemaphorePermit,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let counters = &self.shared.counters;
        counters.live.fetch_sub(1, Ordering::SeqCst);
        counters.completed.fetch_add(1, Ordering::SeqCst);
        self.shared.log("returned");
    }
}

/// A session from a [`Pool`](super::Pool), under its budget. Dropping it ends the CLI at once
/// and frees its slot; [`PooledClient::close`] ends it gracefully first.
pub struct PooledClient {
    client: Client,
    start: Start,
    budget: Budget,
    deadline: Option<tokio::time::Instant>,
    turns: u32,
    cost_usd: f64,
    checked_out: Instant,
    slot: Option<Slot>,
}

impl std::fmt::Debug for PooledClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PooledClient")
            .field("client", &self.client)
            .field("start", &self.start)
            .field("turns", &self.turns)
            .field("cost_usd", &self.cost_usd)
            .finish_non_exhaustive()
    }
}

impl PooledClient {
    pub(super) fn new(client: Client, start: Start, budget: Budget, slot: Slot) -> Self {
        Self {
            client,
            start,
            budget,
            deadline: budget
                .max_wall
                .map(|wall| tokio::time::Instant::now() + wall),
            turns: 0,
            cost_usd: 0.0,
            checked_out: Instant::now(),
            slot: Some(slot),
        }
    }

    /// The client, for the whole control plane. Prompts sent through it directly are not
    /// counted against the budget.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Whether this session took a spare (started ahead, or parked and claimed).
    pub fn prewarmed(&self) -> bool {
        !matches!(self.start, Start::Cold { .. })
    }

    /// How the session started: a spare, a claimed parked spare, or a CLI of its own (and why).
    pub fn start(&self) -> &Start {
        &self.start
    }

    /// What the CLI answered to the claim, when a parked spare took it.
    pub fn claimed(&self) -> Option<&Claimed> {
        match &self.start {
            Start::Claimed(claimed) => Some(claimed),
            _ => None,
        }
    }

    /// How long ago it was checked out.
    pub fn age(&self) -> Duration {
        self.checked_out.elapsed()
    }

    /// Sends a prompt, unless a budget is spent.
    pub async fn send(&mut self, prompt: impl Into<UserContent>) -> Result<()> {
        self.check_budget(true)?;
        self.client.send(prompt).await?;
        self.turns += 1;
        Ok(())
    }

    /// The next message; past the wall-time budget, interrupts the turn and returns
    /// [`Error::BudgetExceeded`].
    pub async fn receive(&mut self) -> Option<Result<Message>> {
        let next = match self.deadline {
            Some(deadline) => {
                match tokio::time::timeout_at(deadline, self.client.receive()).await {
                    Ok(next) => next,
                    Err(_) => {
                        let client = self.client.clone();
                        tokio::spawn(async move {
                            let _ =
                                tokio::time::timeout(Duration::from_secs(5), client.interrupt())
                                    .await;
                        });
                        return Some(Err(self.exceeded("wall time")));
                    }
                }
            }
            None => self.client.receive().await,
        };
        if let Some(Ok(Message::Result(result))) = &next {
            self.cost_usd = result.total_cost_usd;
        }
        next
    }

    /// The session's cost so far (the CLI's running total, from its last result).
    pub fn cost_usd(&self) -> f64 {
        self.cost_usd
    }

    /// Prompts sent through [`PooledClient::send`].
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Ends the session gracefully (stdin, then signals) and frees its slot.
    pub async fn close(mut self) -> Result<()> {
        let closed = self.client.close().await;
        self.slot.take();
        closed.map(drop)
    }

    fn check_budget(&self, sending: bool) -> Result<()> {
        if let Some(max) = self.budget.max_turns {
            if sending && self.turns >= max {
                return Err(self.exceeded("turns"));
            }
        }
        if let Some(max) = self.budget.max_cost_usd {
            if self.cost_usd >= max {
                return Err(self.exceeded("cost"));
            }
        }
        if let Some(deadline) = self.deadline {
            if tokio::time::Instant::now() >= deadline {
                return Err(self.exceeded("wall time"));
            }
        }
        Ok(())
    }

    fn exceeded(&self, what: &'static str) -> Error {
        Error::BudgetExceeded {
            what,
            turns: self.turns,
            cost_usd: self.cost_usd,
            elapsed: self.checked_out.elapsed(),
        }
    }
}
