//! [`FleetSession`]: one session of a [`Fleet`](super::Fleet), moved to another host when its
//! own is lost.

use std::sync::Arc;

use futures::StreamExt;
use twinwire_protocol::Message;

use super::{FleetEvent, Inner, ResumeAt};
use crate::error::{Error, Result};
use crate::host::Client;

/// A session that was lost on one host and resumed on another.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Move {
    /// The session.
    pub session_id: String,
    /// Its tenant.
    pub tenant: String,
    /// The host it was lost on.
    pub from: String,
    /// The host it runs on now.
    pub to: String,
    /// What was lost: the error or the end the session's stream gave.
    pub reason: String,
}

/// A finished turn.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Turn {
    /// The turn's messages, up to and including its result, from the attempt that finished
    /// (what came from a lost host before it was lost is not here).
    pub messages: Vec<Message>,
    /// The moves the turn took, in order; empty when its host kept it.
    pub moved: Vec<Move>,
}

impl Turn {
    /// The turn's result.
    pub fn result(&self) -> Option<&twinwire_protocol::result::ResultMessage> {
        self.messages
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::Result(result) => Some(result.as_ref()),
                _ => None,
            })
    }
}

/// A session of a fleet. Its turns are whole: [`turn`](Self::turn) sends a prompt and returns
/// once the turn has a result, on whichever host finished it. Dropping it ends the CLI at once
/// and frees its place; [`close`](Self::close) ends it gracefully first.
pub struct FleetSession {
    inner: Arc<Inner>,
    tenant: String,
    session_id: String,
    host: usize,
    client: Option<Client>,
    /// The last message of the last finished turn: where a move resumes.
    last_message: Option<String>,
}

impl std::fmt::Debug for FleetSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FleetSession")
            .field("tenant", &self.tenant)
            .field("session_id", &self.session_id)
            .field("host", &self.host())
            .finish_non_exhaustive()
    }
}

impl FleetSession {
    pub(super) fn new(
        inner: Arc<Inner>,
        tenant: String,
        session_id: String,
        host: usize,
        client: Client,
    ) -> Self {
        Self {
            inner,
            tenant,
            session_id,
            host,
            client: Some(client),
            last_message: None,
        }
    }

    /// The session's id (the same on every host it runs on).
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The name of the host it runs on; empty after a move that found no host (the next turn
    /// tries again).
    pub fn host(&self) -> &str {
        self.inner
            .hosts
            .get(self.host)
            .map_or("", |member| member.host.name.as_str())
    }

    /// The session's client on its current host (it changes when the session moves).
    pub fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    /// Sends `prompt` and waits for the turn's result. When the CLI is lost before the result
    /// (it ended, or its output did), its host is probed, and the session resumes on the host
    /// placement picks next, at the last turn it finished, where `prompt` is sent again; up to
    /// the fleet's `max_moves` times, then the turn fails with the last loss. An error while
    /// the CLI still runs is the turn's, returned as it is.
    pub async fn turn(&mut self, prompt: &str) -> Result<Turn> {
        let mut moved = Vec::new();
        loop {
            let lost = match &self.client {
                Some(client) => match run_turn(client, prompt).await {
                    Ok(messages) => {
                        self.last_message = last_assistant(&messages).or(self.last_message.take());
                        return Ok(Turn { messages, moved });
                    }
                    Err(Attempt::Lost(lost)) => lost,
                    Err(Attempt::Failed(err)) => return Err(err),
                },
                None => "the session's earlier move failed".to_owned(),
            };
            if moved.len() >= self.inner.max_moves as usize {
                return Err(Error::from(std::io::Error::other(format!(
                    "session {} lost {} times in one turn; last: {lost}",
                    self.session_id,
                    moved.len() + 1
                ))));
            }
            moved.push(self.move_after(lost).await?);
        }
    }

    /// Ends the lost CLI, probes its host, and starts the session on the next placement.
    async fn move_after(&mut self, lost: String) -> Result<super::Move> {
        tracing::warn!(session_id = %self.session_id, host = %self.host(), %lost,
            "fleet session lost; moving it");
        if let Some(client) = self.client.take() {
            // What is left of it here (the launcher's program) ends; the far side's wrapper
            // ends the CLI when its stdin does.
            let _ = client.close().await;
        }
        let from_name = self.host().to_owned();
        // Unplaced from here on: neither a failed start nor a drop frees the place twice.
        let from = std::mem::replace(&mut self.host, usize::MAX);
        let from = (from < self.inner.hosts.len()).then_some(from);
        if let Some(from) = from {
            self.inner.release(from, &self.tenant);
            self.inner.check(from, true).await;
        }
        let resume = ResumeAt {
            last_message: self.last_message.as_deref(),
        };
        let (to, client) = self
            .inner
            .start(&self.tenant, &self.session_id, from, Some(resume))
            .await?;
        self.host = to;
        self.client = Some(client);
        let moved = Move {
            session_id: self.session_id.clone(),
            tenant: self.tenant.clone(),
            from: from_name,
            to: self.host().to_owned(),
            reason: lost,
        };
        let _ = self.inner.events.send(FleetEvent::Moved(moved.clone()));
        Ok(moved)
    }

    /// Ends the CLI gracefully and frees the session's place.
    pub async fn close(mut self) -> Result<()> {
        match self.client.take() {
            Some(client) => client.close().await.map(|_| ()),
            None => Ok(()),
        }
    }
}

impl Drop for FleetSession {
    fn drop(&mut self) {
        if self.host < self.inner.hosts.len() {
            self.inner.release(self.host, &self.tenant);
        }
    }
}

/// Why an attempt at a turn has no result.
enum Attempt {
    /// The CLI is gone (its host, its connection, or itself): the session moves.
    Lost(String),
    /// The CLI is there but the turn failed (a budget, a callback's error): the caller's.
    Failed(Error),
}

impl Attempt {
    fn of(err: Error, client: &Client) -> Self {
        let gone = client.exit_status().is_some()
            || matches!(
                err,
                Error::ProcessExited { .. } | Error::LauncherExited { .. } | Error::Closed
            );
        if gone {
            Self::Lost(err.to_string())
        } else {
            Self::Failed(err)
        }
    }
}

/// One attempt at a turn: its messages through the result, or what ended it first.
async fn run_turn(client: &Client, prompt: &str) -> std::result::Result<Vec<Message>, Attempt> {
    client
        .send(prompt.to_owned())
        .await
        .map_err(|err| Attempt::of(err, client))?;
    let mut messages = Vec::new();
    let mut stream = std::pin::pin!(client.receive_response());
    while let Some(message) = stream.next().await {
        let message = message.map_err(|err| Attempt::of(err, client))?;
        let done = matches!(message, Message::Result(_));
        messages.push(message);
        if done {
            return Ok(messages);
        }
    }
    Err(Attempt::Lost(client.exit_status().map_or_else(
        || "the session's output ended before the turn's result".to_owned(),
        |status| format!("the CLI ended ({status}) before the turn's result"),
    )))
}

fn last_assistant(messages: &[Message]) -> Option<String> {
    messages.iter().rev().find_map(|message| match message {
        Message::Assistant(assistant) if !assistant.uuid.is_empty() => Some(assistant.uuid.clone()),
        _ => None,
    })
}
