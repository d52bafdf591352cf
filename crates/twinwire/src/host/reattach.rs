//! Re-attaching a session after its host crashed.
//!
//! With [`OptionsBuilder::attach_records`](crate::options::OptionsBuilder::attach_records),
//! every [`Client`] writes a small record of its live session (see [`AttachRecord`]): the
//! session id, its working directory, the CLI's pid, process group and start time, the host's
//! pid, the permission requests waiting for an answer. A clean end removes it; a crash leaves
//! it. [`Client::reattach`] then reads it, fences what is left of the old session (its CLI and
//! every process it started, proven by start time and by a mark in their environment, never
//! by pid alone), resumes the session, and reports the tool uses that were in flight (no result
//! in the transcript: they are reported as interrupted, never run again) and the permission
//! requests that were waiting.

mod fence;
mod interrupted;
mod procfs;
mod reask;
mod record;

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use futures::future::BoxFuture;
use futures::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{
    ControlRequestBody, ElicitationRequest, RequestUserDialogRequest,
};
use twinwire_protocol::hooks::HookOutput;
use twinwire_protocol::permission::PermissionResult;

pub use fence::{Fenced, ATTACH_MARK_ENV};
pub use interrupted::InterruptedToolUse;
pub use reask::Reasked;
pub(crate) use record::{create_private_dir, LiveRecord};
pub use record::{AttachRecord, PendingPermission, RECORD_FORMAT};

use super::callbacks::{CallbackResult, PermissionRequest};
use super::handler::{HookCall, Host};
use super::launch::Launcher;
use super::options::Options;
use super::Client;
use crate::engine::{HandlerError, RequestContext};
use crate::error::{Error, Result};
use crate::sessions::{MessagesOptions, SavedSessions, SessionMessage, StoreSessions};

/// A re-attached session: the client of its new CLI, and what the crash left.
#[non_exhaustive]
pub struct Reattached {
    /// The session, resumed in a new CLI.
    pub client: Client,
    /// What was found and done.
    pub report: ReattachReport,
    /// The session's `Host`, which [`Reattached::reask`] asks.
    host: Arc<dyn Host>,
    /// How long [`Reattached::reask`] waits for an answer.
    permission_timeout: Option<std::time::Duration>,
    /// Where a request the `Host` parks when asked again waits (the options' `parking`).
    parking: Option<super::parking::Parking>,
}

impl std::fmt::Debug for Reattached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reattached")
            .field("client", &self.client)
            .field("report", &self.report)
            .finish_non_exhaustive()
    }
}

/// What [`Client::reattach`] found of a session whose host died, and what it did.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReattachReport {
    /// The session.
    pub session_id: String,
    /// The old session's processes that were stopped.
    pub fenced: Fenced,
    /// The tool uses of the last turn with no recorded result: in flight when the host died.
    /// They may have run, in part or whole; the resumed session does not run them again.
    pub interrupted: Vec<InterruptedToolUse>,
    /// The permission requests the dead host had not answered (their tool uses are among
    /// `interrupted`): ask again, or tell the user, before going on.
    pub pending_permissions: Vec<PendingPermission>,
    /// The record the dead host left.
    pub record: AttachRecord,
}

impl Client {
    /// Re-attaches the session `session_id` after its host died: reads its record from the
    /// options' [`attach_records`](crate::options::OptionsBuilder::attach_records) directory,
    /// fences the old CLI and every process of it still running (SIGTERM, then SIGKILL after
    /// the options' `shutdown.after_term`; a pid whose start time is not the recorded one is
    /// never signalled), then connects resuming the session (from the options' transcript
    /// store if one is set, else from the CLI's own files) in the recorded working directory
    /// unless the options set one. Reads the interrupted tool uses before the resume.
    ///
    /// Fails, resuming nothing, when there is no record (the session closed cleanly), when
    /// its host still runs, or when a process of it cannot be stopped.
    pub async fn reattach(options: Options, session_id: &str) -> Result<Reattached> {
        reattach(options, session_id).await
    }
}

/// See [`Client::reattach`].
pub async fn reattach(mut options: Options, session_id: &str) -> Result<Reattached> {
    let failed = |why: String| Error::Reattach {
        session_id: session_id.to_owned(),
        why,
    };
    let Some(dir) = options.attach_records.clone() else {
        return Err(failed(
            "the options name no directory of live-session records (`attach_records`)".into(),
        ));
    };
    let record = AttachRecord::read(&dir, session_id)
        .map_err(|err| failed(err.to_string()))?
        .ok_or_else(|| {
            failed(format!(
                "{} has no record of it: it ended cleanly, or was never recorded there",
                dir.display()
            ))
        })?;
    let fenced = fence::fence(&record, options.shutdown.after_term)
        .await
        .map_err(failed)?;
    if options.cwd.is_none() {
        options.cwd = Some(record.cwd.clone());
    }
    options.resume = Some(session_id.to_owned());
    options.session_id = None;
    options.continue_conversation = false;
    options.fork_session = false;
    let interrupted = interrupted_tool_uses(&options, session_id)
        .await
        .map_err(failed)?;
    let host = options.host();
    let permission_timeout = options.permission_timeout;
    let parking = options.parking.clone();
    let client = Client::connect(options).await?;
    Ok(Reattached {
        host,
        permission_timeout,
        parking,
        client,
        report: ReattachReport {
            session_id: session_id.to_owned(),
            fenced,
            interrupted,
            pending_permissions: record.pending_permissions.clone(),
            record,
        },
    })
}

/// The last turn's tool uses with no result, read where the resume reads the session (the
/// transcript store) and in the CLI's own files, which a store's mirror follows by a moment:
/// a tool use either of them holds open is reported.
async fn interrupted_tool_uses(
    options: &Options,
    session_id: &str,
) -> std::result::Result<Vec<InterruptedToolUse>, String> {
    let cwd = options.cwd.clone().unwrap_or_default();
    let mut stored: Vec<SessionMessage> = Vec::new();
    if let Some(store) = &options.transcript_store {
        stored = StoreSessions::new(Arc::clone(store))
            .load_timeout(options.transcript_store_load_timeout)
            .messages(session_id, &cwd, &MessagesOptions::default())
            .await
            .map_err(|err| format!("reading it from the transcript store: {err}"))?;
    }
    let projects = options.cli_projects_dir();
    let config = projects.parent().unwrap_or(&projects).to_owned();
    let id = session_id.to_owned();
    let own = tokio::task::spawn_blocking(move || {
        SavedSessions::at(config).messages(
            &id,
            &MessagesOptions {
                dir: Some(cwd),
                ..MessagesOptions::default()
            },
        )
    })
    .await
    .map_err(|err| format!("reading its transcript: {err}"))?;
    if stored.is_empty() && own.is_empty() {
        return Err(
            "no transcript of it was found (in the store or the CLI's files): the CLI had not \
             saved its first turn yet, or saves elsewhere"
                .into(),
        );
    }
    let mut interrupted = interrupted::unanswered(&stored);
    for open in interrupted::unanswered(&own) {
        if !interrupted
            .iter()
            .any(|u| u.tool_use_id == open.tool_use_id)
        {
            interrupted.push(open);
        }
    }
    Ok(interrupted)
}

/// Before a client starts its CLI: when the options keep live-session records (and the CLI
/// runs here), the record to keep, with the session's id fixed now if nothing else fixes it
/// (`--session-id`) and the mark set in the CLI's environment.
pub(crate) fn prepare(options: &mut Options) -> Result<Option<Arc<LiveRecord>>> {
    let Some(dir) = options.attach_records.clone() else {
        return Ok(None);
    };
    if !matches!(options.launcher, Launcher::Local) {
        tracing::warn!(
            "live-session records need a local CLI (its pid is not ours through a launcher): none is kept"
        );
        return Ok(None);
    }
    if options.session_id.is_none() && options.resume.is_none() && !options.continue_conversation {
        options.session_id = Some(uuid::Uuid::new_v4().to_string());
    }
    let session_id = match (&options.session_id, &options.resume) {
        (Some(id), _) => Some(id.clone()),
        (None, Some(id)) if !options.fork_session => Some(id.clone()),
        // Known once the CLI says it (`system/init`).
        _ => None,
    };
    let cwd: PathBuf = match &options.cwd {
        Some(cwd) => cwd.clone(),
        None => std::env::current_dir()?,
    };
    let mark = fence::new_mark();
    options
        .env
        .push((ATTACH_MARK_ENV.into(), Some(mark.clone().into())));
    Ok(Some(Arc::new(LiveRecord::new(
        dir,
        session_id,
        cwd,
        options.transcript_store.is_some(),
        mark,
    ))))
}

/// The session's `Host`, with its permission requests kept in the live record while they
/// wait.
pub(crate) fn recording(host: Arc<dyn Host>, record: Option<&Arc<LiveRecord>>) -> Arc<dyn Host> {
    match record {
        Some(record) => Arc::new(RecordingHost {
            inner: host,
            record: Arc::downgrade(record),
        }),
        None => host,
    }
}

/// A [`Host`] that notes each permission request in the live record until it is answered
/// (or given up), and passes every request to the session's own `Host`.
struct RecordingHost {
    inner: Arc<dyn Host>,
    /// Weak: the client owns the record, and removes it when it goes.
    record: Weak<LiveRecord>,
}

/// Takes a permission request out of the record when its answer is given or given up.
pub(crate) struct Waiting {
    record: Weak<LiveRecord>,
    tool_use_id: Option<String>,
    tool_name: String,
}

impl Waiting {
    /// Notes the request in the record (if it is still there) until this is dropped.
    pub(crate) fn start(
        record: &Weak<LiveRecord>,
        tool_use_id: Option<String>,
        tool_name: String,
    ) -> Option<Self> {
        let live = record.upgrade()?;
        live.asked(tool_use_id.clone(), tool_name.clone());
        Some(Self {
            record: Weak::clone(record),
            tool_use_id,
            tool_name,
        })
    }
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(record) = self.record.upgrade() {
            record.answered(self.tool_use_id.as_deref(), &self.tool_name);
        }
    }
}

impl Host for RecordingHost {
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        let record = self.record.upgrade();
        let granted = record.as_ref().and_then(|record| {
            record
                .grants()
                .take(&request.request.tool_name, &request.request.input)
        });
        if let Some(answer) = granted {
            // Asked again on the re-attach: the user answered this call already.
            return Box::pin(std::future::ready(Ok(answer)));
        }
        let waiting = record.map(|record| {
            let tool_use_id = request.request.tool_use_id.clone();
            let tool_name = request.request.tool_name.clone();
            record.asked(tool_use_id.clone(), tool_name.clone());
            Waiting {
                record: Weak::clone(&self.record),
                tool_use_id,
                tool_name,
            }
        });
        let answer = self.inner.can_use_tool(request);
        Box::pin(answer.map(move |result| {
            drop(waiting);
            result
        }))
    }

    fn hook(&self, call: HookCall) -> BoxFuture<'static, CallbackResult<HookOutput>> {
        self.inner.hook(call)
    }

    fn elicitation(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<twinwire_protocol::control::ElicitationResponse>> {
        self.inner.elicitation(request, cancel)
    }

    fn user_dialog(
        &self,
        request: RequestUserDialogRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<twinwire_protocol::control::UserDialogResponse>> {
        self.inner.user_dialog(request, cancel)
    }

    fn mcp_message(
        &self,
        server_name: String,
        message: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, std::result::Result<Value, HandlerError>> {
        self.inner.mcp_message(server_name, message, cancel)
    }

    fn request(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, std::result::Result<Value, HandlerError>> {
        self.inner.request(request, cx)
    }
}
