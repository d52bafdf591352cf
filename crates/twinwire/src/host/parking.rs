//! Durable approvals: a permission (or `AskUserQuestion`) or hook request *parked* until
//! someone answers it, minutes or days later, from another process.
//!
//! With [`OptionsBuilder::parking`](crate::options::OptionsBuilder::parking), a callback that
//! returns [`PermissionRequest::park`] (or [`HookContext::park`]) hands its request to the
//! host, which writes it to a [`PendingStore`] and waits: the CLI waits too, its control
//! request unanswered. Whoever answers (a web page's handler, a chat bot, a ticket's hook)
//! lists the store and writes an answer into it; the host reads it, removes the request and
//! gives the CLI the answer, and the turn goes on.
//!
//! ```no_run
//! # async fn demo() -> twinwire::Result<()> {
//! use std::sync::Arc;
//! use twinwire::host::callbacks::can_use_tool;
//! use twinwire::host::parking::{DirectoryPendingStore, Parking};
//! use twinwire::protocol::permission::PermissionResult;
//!
//! let options = twinwire::Options::builder()
//!     .parking(Parking::new(Arc::new(DirectoryPendingStore::new("/var/lib/approvals"))))
//!     .can_use_tool(can_use_tool(|request| async move {
//!         match request.tool_name() {
//!             "Read" | "Grep" => Ok(PermissionResult::allow(request.input().clone())),
//!             // A person decides, whenever they can.
//!             _ => request.park(),
//!         }
//!     }))
//!     .build()?;
//! # Ok(()) }
//! ```
//!
//! A wait longer than a process should live: stop the session (close the client, or let the
//! host go); the request stays in the store. Once it is answered,
//! [`Client::resume_parked`](crate::Client::resume_parked) resumes the session, and when the
//! model asks for the same call again (same tool, same input), the stored answer is given
//! without asking anyone. Nothing is allowed because something failed: a request the options
//! cannot park, a store that fails to take it, a malformed answer, or a wait past
//! [`Parking::max_wait`] all deny (or, for a hook, fail as the hook's matcher says).
//!
//! Claude Code sets no time limit on a permission request; a hook waits as long as its
//! matcher's timeout (60 seconds unless set): give hooks that park a long one.

pub mod conformance;
mod directory;
mod pending;
mod resume;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::CanUseToolRequest;
use twinwire_protocol::hooks::HookOutput;
use twinwire_protocol::permission::PermissionResult;

pub use directory::DirectoryPendingStore;
pub use pending::{
    check_answer, is_valid_id, permission_answer, Asked, PendingRequest, PendingStore, MAX_ID_LEN,
};
pub use resume::ResumedParked;

use super::callbacks::{CallbackResult, HookContext, PermissionRequest};

/// How often the host looks for an answer unless set.
pub const DEFAULT_POLL: Duration = Duration::from_millis(250);

/// Where and how the host parks requests: the options' [`parking`](crate::options::OptionsBuilder::parking).
#[derive(Clone)]
pub struct Parking {
    store: Arc<dyn PendingStore>,
    poll: Duration,
    max_wait: Option<Duration>,
}

impl std::fmt::Debug for Parking {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parking")
            .field("poll", &self.poll)
            .field("max_wait", &self.max_wait)
            .finish_non_exhaustive()
    }
}

impl Parking {
    /// Parks requests in `store`, looking for answers every [`DEFAULT_POLL`], with no limit on
    /// the wait.
    pub fn new(store: Arc<dyn PendingStore>) -> Self {
        Self {
            store,
            poll: DEFAULT_POLL,
            max_wait: None,
        }
    }

    /// Looks for an answer this often (at least every 10 ms).
    #[must_use]
    pub fn poll(mut self, every: Duration) -> Self {
        self.poll = every.max(Duration::from_millis(10));
        self
    }

    /// Gives up a wait after `limit`: the request is removed from the store and denied.
    #[must_use]
    pub fn max_wait(mut self, limit: Duration) -> Self {
        self.max_wait = Some(limit);
        self
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn PendingStore> {
        &self.store
    }

    /// Parks a permission request and waits for its answer (see the module's docs).
    pub(crate) async fn permission(
        &self,
        session_id: Option<String>,
        cwd: PathBuf,
        request: &CanUseToolRequest,
        cancel: CancellationToken,
    ) -> Result<PermissionResult, String> {
        let asked = Asked::Permission {
            tool_name: request.tool_name.clone(),
            input: request.input.clone(),
            tool_use_id: request.tool_use_id.clone(),
            reason: request.decision_reason.clone(),
        };
        let answer = self.wait(session_id, cwd, asked, cancel).await?;
        Ok(permission_answer(&answer))
    }

    /// Parks a hook callback's request and waits for its output.
    pub(crate) async fn hook(
        &self,
        session_id: Option<String>,
        cwd: PathBuf,
        event: String,
        input: Value,
        tool_use_id: Option<String>,
        cancel: CancellationToken,
    ) -> Result<HookOutput, String> {
        let asked = Asked::Hook {
            event,
            input,
            tool_use_id,
        };
        let answer = self.wait(session_id, cwd, asked, cancel).await?;
        serde_json::from_value(answer)
            .map_err(|err| format!("the parked hook's answer is not a hook output: {err}"))
    }

    /// Finds this call parked before in the session (asked again after a resume or a
    /// re-attach) or parks it, then waits for the answer; removes the request once answered.
    async fn wait(
        &self,
        session_id: Option<String>,
        cwd: PathBuf,
        asked: Asked,
        cancel: CancellationToken,
    ) -> Result<Value, String> {
        let earlier = match &session_id {
            Some(session) => self
                .store
                .list()
                .await
                .map_err(|err| format!("the pending store failed: {err}"))?
                .into_iter()
                .find(|r| r.session_id.as_ref() == Some(session) && same_call(&r.asked, &asked)),
            None => None,
        };
        let id = match earlier {
            Some(PendingRequest {
                id,
                answer: Some(answer),
                ..
            }) => {
                tracing::info!(%id, "a parked request was answered while its session was away");
                self.forget(&id).await;
                return Ok(answer);
            }
            Some(waiting) => waiting.id,
            None => {
                let request = PendingRequest::new(session_id, cwd, asked);
                let id = request.id.clone();
                self.store
                    .park(request)
                    .await
                    .map_err(|err| format!("the pending store did not take the request: {err}"))?;
                id
            }
        };
        tracing::info!(%id, "parked a request until it is answered");
        let started = Instant::now();
        loop {
            tokio::select! {
                () = cancel.cancelled() => {
                    // Kept: the session may be resumed once it is answered.
                    return Err("the request was withdrawn while parked".into());
                }
                () = tokio::time::sleep(self.poll) => {}
            }
            match self.store.get(id.clone()).await {
                Ok(Some(PendingRequest {
                    answer: Some(answer),
                    ..
                })) => {
                    self.forget(&id).await;
                    return Ok(answer);
                }
                Ok(Some(_)) => {}
                Ok(None) => return Err("the parked request was removed unanswered".into()),
                Err(err) => {
                    tracing::warn!(%id, %err, "could not read the parked request: trying again")
                }
            }
            if let Some(limit) = self.max_wait {
                if started.elapsed() >= limit {
                    self.forget(&id).await;
                    return Err(format!("no answer within {limit:?}"));
                }
            }
        }
    }

    async fn forget(&self, id: &str) {
        if let Err(err) = self.store.remove(id.to_owned()).await {
            tracing::warn!(%id, %err, "could not remove a parked request");
        }
    }
}

/// Whether two parkings ask the same thing: the same tool with the same input, or the same
/// hook event about the same call (its input but for what names the session or the tool use).
fn same_call(a: &Asked, b: &Asked) -> bool {
    match (a, b) {
        (
            Asked::Permission {
                tool_name: tool_a,
                input: input_a,
                ..
            },
            Asked::Permission {
                tool_name: tool_b,
                input: input_b,
                ..
            },
        ) => tool_a == tool_b && input_a == input_b,
        (
            Asked::Hook {
                event: event_a,
                input: input_a,
                ..
            },
            Asked::Hook {
                event: event_b,
                input: input_b,
                ..
            },
        ) => event_a == event_b && hook_call(input_a) == hook_call(input_b),
        _ => false,
    }
}

/// A hook's input without what differs from one asking of the same call to the next.
fn hook_call(input: &Value) -> Value {
    let mut input = input.clone();
    if let Some(fields) = input.as_object_mut() {
        for volatile in [
            "session_id",
            "transcript_path",
            "cwd",
            "tool_use_id",
            "permission_mode",
        ] {
            fields.remove(volatile);
        }
    }
    input
}

/// The error a callback returns to park its request (see [`PermissionRequest::park`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Park;

impl std::fmt::Display for Park {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the callback parked the request, but the options set no parking")
    }
}

impl std::error::Error for Park {}

/// Whether a callback's error parks its request.
pub(crate) fn is_park(err: &super::callbacks::CallbackError) -> bool {
    err.downcast_ref::<Park>().is_some()
}

impl PermissionRequest {
    /// Parks this request: `return request.park();` from a `can_use_tool` callback. The host
    /// keeps it in the options' [`parking`](crate::options::OptionsBuilder::parking) store
    /// until it is answered there; without parking in the options it is denied.
    pub fn park(&self) -> CallbackResult<PermissionResult> {
        Err(Box::new(Park))
    }
}

impl HookContext {
    /// Parks this hook's request until it is answered in the options'
    /// [`parking`](crate::options::OptionsBuilder::parking) store (an answer is a hook output);
    /// without parking it fails as the matcher's `on_failure` says.
    pub fn park(&self) -> CallbackResult<HookOutput> {
        Err(Box::new(Park))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_call_is_the_same_tool_and_input() {
        let bash = |command: &str| Asked::Permission {
            tool_name: "Bash".into(),
            input: json!({"command": command}),
            tool_use_id: Some(command.into()),
            reason: None,
        };
        assert!(same_call(&bash("ls"), &bash("ls")));
        assert!(!same_call(&bash("ls"), &bash("rm")));
        let hook = |session: &str, command: &str| Asked::Hook {
            event: "PreToolUse".into(),
            input: json!({"session_id": session, "tool_name": "Bash",
                          "tool_input": {"command": command}, "tool_use_id": session}),
            tool_use_id: None,
        };
        assert!(same_call(&hook("a", "ls"), &hook("b", "ls")));
        assert!(!same_call(&hook("a", "ls"), &hook("a", "rm")));
        assert!(!same_call(&hook("a", "ls"), &bash("ls")));
    }

    #[test]
    fn park_is_an_error_that_says_so() {
        let err = HookContext {
            tool_use_id: None,
            cancel: CancellationToken::new(),
        }
        .park()
        .unwrap_err();
        assert!(is_park(&err));
        let other: super::super::callbacks::CallbackError = "nope".into();
        assert!(!is_park(&other));
    }
}
