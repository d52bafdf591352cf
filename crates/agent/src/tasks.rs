//! Subagents as tasks, as Claude Code reports them: each has an id, is reported to the host
//! as it starts (`system/task_started`, `background_tasks_changed`) and as it ends
//! (`task_updated`, `task_notification` with `completed`, `failed` or `stopped`), and is
//! stopped by the host with `stop_task`; what still runs when the session ends is stopped
//! then. (Bash's background commands are jobs of their own: `tools::jobs`.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;
use twinwire::agent::frames::new_id;
use twinwire::agent::Peer;
use twinwire_protocol::system::{
    BackgroundTask, BackgroundTasksChanged, SystemMessage, TaskNotification,
    TaskNotificationStatus, TaskPatch, TaskStarted, TaskStatus, TaskUpdated, TaskUsage,
};
use twinwire_protocol::Message;

use crate::tools::Workspace;

/// What a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A subagent.
    Agent,
}

impl Kind {
    fn task_type(self) -> &'static str {
        match self {
            Self::Agent => "local_agent",
        }
    }
}

/// How a task ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum End {
    Completed,
    Failed(String),
    Stopped,
}

/// A task as it starts.
pub(crate) struct Start {
    pub(crate) kind: Kind,
    pub(crate) description: String,
    pub(crate) tool_use_id: String,
    pub(crate) subagent_type: Option<String>,
    pub(crate) prompt: Option<String>,
    pub(crate) backgrounded: bool,
    /// Cancelled to stop the task.
    pub(crate) stop: CancellationToken,
}

struct Running {
    kind: Kind,
    description: String,
    tool_use_id: String,
    subagent_type: Option<String>,
    stop: CancellationToken,
}

/// The tasks of a session.
#[derive(Default)]
pub(crate) struct Tasks {
    running: Mutex<BTreeMap<String, Running>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Tasks {
    /// Registers a task and tells the host; its id.
    pub(crate) fn start(&self, peer: &Peer, start: Start) -> String {
        let id = task_id(start.kind);
        let stop = start.stop.clone();
        lock(&self.running).insert(
            id.clone(),
            Running {
                kind: start.kind,
                description: start.description.clone(),
                tool_use_id: start.tool_use_id.clone(),
                subagent_type: start.subagent_type.clone(),
                stop: stop.clone(),
            },
        );
        self.changed(peer);
        emit(
            peer,
            SystemMessage::TaskStarted(TaskStarted {
                task_id: id.clone(),
                tool_use_id: Some(start.tool_use_id),
                description: start.description,
                subagent_type: start.subagent_type,
                is_backgrounded: Some(start.backgrounded),
                spawn_depth: (start.kind == Kind::Agent).then_some(1),
                task_type: Some(start.kind.task_type().to_owned()),
                prompt: start.prompt,
                session_id: peer.session_id().to_owned(),
                uuid: new_id(),
                ..TaskStarted::default()
            }),
        );
        id
    }

    /// Unregisters a task and tells the host how it ended.
    pub(crate) fn finish(
        &self,
        peer: &Peer,
        id: &str,
        end: &End,
        output_file: &Path,
        summary: &str,
        usage: Option<TaskUsage>,
    ) {
        let Some(task) = lock(&self.running).remove(id) else {
            return;
        };
        let (status, patch) = match end {
            End::Completed => (TaskNotificationStatus::Completed, TaskStatus::Completed),
            End::Failed(_) => (TaskNotificationStatus::Failed, TaskStatus::Failed),
            End::Stopped => (TaskNotificationStatus::Stopped, TaskStatus::Killed),
        };
        emit(
            peer,
            SystemMessage::TaskUpdated(TaskUpdated {
                task_id: id.to_owned(),
                patch: TaskPatch {
                    status: Some(patch),
                    end_time: Some(now_ms()),
                    error: match end {
                        End::Failed(why) => Some(why.clone()),
                        _ => None,
                    },
                    ..TaskPatch::default()
                },
                session_id: peer.session_id().to_owned(),
                uuid: new_id(),
                ..TaskUpdated::default()
            }),
        );
        emit(
            peer,
            SystemMessage::TaskNotification(TaskNotification {
                task_id: id.to_owned(),
                tool_use_id: Some(task.tool_use_id),
                status,
                output_file: output_file.display().to_string(),
                summary: summary.to_owned(),
                usage,
                session_id: peer.session_id().to_owned(),
                uuid: new_id(),
                ..TaskNotification::default()
            }),
        );
        self.changed(peer);
    }

    /// `stop_task`: stops a running task (its end is reported as it stops). An id no task
    /// has is no error, as for Claude Code.
    pub(crate) fn stop(&self, id: &str) {
        if let Some(task) = lock(&self.running).get(id) {
            task.stop.cancel();
        }
    }

    /// Stops every task (the session is ending).
    pub(crate) fn stop_all(&self) {
        for task in lock(&self.running).values() {
            task.stop.cancel();
        }
    }

    /// `system/background_tasks_changed` with the tasks running now.
    fn changed(&self, peer: &Peer) {
        let tasks = lock(&self.running)
            .iter()
            .map(|(id, task)| BackgroundTask {
                task_id: id.clone(),
                task_type: task.kind.task_type().to_owned(),
                subagent_type: task.subagent_type.clone(),
                description: task.description.clone(),
                ..BackgroundTask::default()
            })
            .collect();
        emit(
            peer,
            SystemMessage::BackgroundTasksChanged(BackgroundTasksChanged {
                tasks,
                session_id: peer.session_id().to_owned(),
                uuid: new_id(),
                ..BackgroundTasksChanged::default()
            }),
        );
    }
}

fn emit(peer: &Peer, message: SystemMessage) {
    if let Err(err) = peer.emit(&Message::System(Box::new(message))) {
        tracing::debug!(%err, "a task frame the host will not see");
    }
}

/// A task id as Claude Code's look: a letter for the kind, then random hex.
fn task_id(kind: Kind) -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    let letter = match kind {
        Kind::Agent => 'a',
    };
    format!("{letter}{}", &hex[..16])
}

use crate::tools::jobs::now_ms;

/// Where a task's output goes: `<tmp>/twinwire-agent-<uid>/<session>/tasks/<id>.output`
/// (`<tmp>` is `CLAUDE_CODE_TMPDIR`, else `TMPDIR`, else the system's).
pub(crate) fn output_file(workspace: &Workspace, session_id: &str, id: &str) -> PathBuf {
    let env = |name: &str| workspace.env.get(name).filter(|v| !v.is_empty()).cloned();
    let tmp = env("CLAUDE_CODE_TMPDIR")
        .or_else(|| env("TMPDIR"))
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    #[cfg(unix)]
    let owner = nix::unistd::getuid().as_raw().to_string();
    #[cfg(not(unix))]
    let owner = "user".to_owned();
    tmp.join(format!("twinwire-agent-{owner}"))
        .join(session_id)
        .join("tasks")
        .join(format!("{id}.output"))
}
