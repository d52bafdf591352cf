//! Parked requests and the stores that keep them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use twinwire_protocol::hooks::HookOutput;
use twinwire_protocol::permission::PermissionResult;

use crate::sessions::stores::StoreFuture;

/// The longest id a store accepts: a UUID is 36 characters.
pub const MAX_ID_LEN: usize = 64;

/// A request the host parked: what the CLI asked, for whom, and (once given) the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingRequest {
    /// The request's id (a UUID): what an answer names.
    pub id: String,
    /// The session that asked, when known.
    pub session_id: Option<String>,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// What was asked.
    pub asked: Asked,
    /// When it was parked (milliseconds since the Unix epoch).
    pub parked_at_ms: u64,
    /// The answer, once given: a [`PermissionResult`] for a permission, a [`HookOutput`] for a
    /// hook, as JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Value>,
    /// When it was answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_at_ms: Option<u64>,
}

/// What a parked request asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Asked {
    /// May this tool run? (`AskUserQuestion` too: its answer is an allow whose
    /// `updatedInput` carries the user's answers.)
    Permission {
        /// The tool, e.g. `Bash`.
        tool_name: String,
        /// Its input.
        input: Value,
        /// The tool use, when the CLI named it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
        /// Why the CLI asked, when it said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A hook callback's answer.
    Hook {
        /// The hook's event, e.g. `PreToolUse`.
        event: String,
        /// The hook's input, as the CLI sent it.
        input: Value,
        /// The tool use it is about, for tool events.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_use_id: Option<String>,
    },
}

impl PendingRequest {
    /// A new waiting request with a fresh id.
    pub fn new(session_id: Option<String>, cwd: PathBuf, asked: Asked) -> Self {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            session_id,
            cwd,
            asked,
            parked_at_ms: now_ms(),
            answer: None,
            answered_at_ms: None,
        }
    }

    /// Whether an answer was given.
    pub fn is_answered(&self) -> bool {
        self.answer.is_some()
    }

    /// The answer to a permission: `None` while waiting; a denial when the answer is not a
    /// permission result (never an allow because an answer was malformed).
    pub fn permission_answer(&self) -> Option<PermissionResult> {
        self.answer.as_ref().map(permission_answer)
    }

    /// The answer to a hook: `None` while waiting; an error when it is not a hook output.
    pub fn hook_answer(&self) -> Option<Result<HookOutput, String>> {
        self.answer.as_ref().map(|answer| {
            serde_json::from_value(answer.clone())
                .map_err(|err| format!("not a hook output: {err}"))
        })
    }
}

/// Reads a permission answer: an allow or a deny, else a denial saying why.
pub fn permission_answer(answer: &Value) -> PermissionResult {
    match serde_json::from_value::<PermissionResult>(answer.clone()) {
        Ok(result @ (PermissionResult::Allow(_) | PermissionResult::Deny(_))) => result,
        Ok(_) => PermissionResult::deny("the parked request's answer has an unknown behavior"),
        Err(err) => {
            PermissionResult::deny(format!("the parked request's answer is malformed: {err}"))
        }
    }
}

/// Checks that `answer` answers `asked` (a permission result for a permission, a hook output
/// for a hook): what an adapter runs before it stores an answer, so that a caller learns of a
/// malformed one at once. (A malformed answer stored anyway denies, or blocks.)
pub fn check_answer(asked: &Asked, answer: &Value) -> Result<(), String> {
    match asked {
        Asked::Permission { .. } => {
            match serde_json::from_value::<PermissionResult>(answer.clone()) {
                Ok(PermissionResult::Allow(_) | PermissionResult::Deny(_)) => Ok(()),
                Ok(_) => Err("`behavior` must be `allow` or `deny`".into()),
                Err(err) => Err(format!("not a permission answer: {err}")),
            }
        }
        Asked::Hook { .. } => serde_json::from_value::<HookOutput>(answer.clone())
            .map(|_| ())
            .map_err(|err| format!("not a hook output: {err}")),
    }
}

/// Whether `id` can name a request in any store: 1 to [`MAX_ID_LEN`] ASCII letters, digits,
/// `-` and `_` (never a path).
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_ID_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Where parked requests wait for their answers, shared by the host that parks them and
/// whoever answers (another process, another machine: a web page's handler, a chat bot).
///
/// Every method is safe to call from several processes at once; [`answer`](Self::answer) is
/// atomic: of two answers to one request the first wins and the second is told so. An id that
/// is not [valid](is_valid_id) is never found.
/// [`conformance::run`](super::conformance::run) checks a store.
pub trait PendingStore: Send + Sync + 'static {
    /// Adds a waiting request.
    fn park(&self, request: PendingRequest) -> StoreFuture<()>;

    /// One request, waiting or answered; `None` when there is none by that id.
    fn get(&self, id: String) -> StoreFuture<Option<PendingRequest>>;

    /// Every request held, waiting and answered, oldest first.
    fn list(&self) -> StoreFuture<Vec<PendingRequest>>;

    /// Answers a waiting request: `true` when this answer was taken; `false` when there is no
    /// such request or it was answered already.
    fn answer(&self, id: String, answer: Value) -> StoreFuture<bool>;

    /// Removes a request (delivered, or given up); removing one that is gone is not an error.
    fn remove(&self, id: String) -> StoreFuture<()>;
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
