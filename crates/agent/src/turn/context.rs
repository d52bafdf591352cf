//! [`TurnContext`]: what a turn's model calls, tool calls and hooks read, taken from the
//! session once per step (each model call and the tool calls of its reply), so that a change
//! the host makes (`set_permission_mode`, `set_model`) applies from the next step on, and no
//! part of a step reaches into the session's state for it.

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use twinwire::agent::Peer;
use twinwire_protocol::permission::PermissionMode;

use crate::agent_hooks::Verifier;
use crate::hooks::Hooks;
use crate::permissions::Permissions;
use crate::session::Session;
use crate::thread::Thread;
use crate::tools::{Registry, Workspace};

/// One step's view of the session.
#[derive(Clone)]
pub(crate) struct TurnContext {
    /// The session, to record what happens.
    pub(crate) session: Arc<Session>,
    /// The host.
    pub(crate) peer: Peer,
    /// Cancelled when the host interrupts the turn.
    pub(crate) cancel: CancellationToken,
    pub(crate) session_id: String,
    pub(crate) model: String,
    pub(crate) mode: PermissionMode,
    pub(crate) tools: Registry,
    pub(crate) permissions: Permissions,
    pub(crate) hooks: Hooks,
    /// The fields every hook input carries.
    pub(crate) hook_common: Map<String, Value>,
    pub(crate) workspace: Arc<Workspace>,
    /// Whose conversation the step works on: the session's, or a subagent's.
    pub(crate) thread: Thread,
}

impl TurnContext {
    /// The session as it is now.
    pub(crate) fn read(session: &Arc<Session>, peer: &Peer) -> Self {
        Self::read_for(session, peer, Thread::Main)
    }

    /// The session as it is now, for a step of `thread` (a subagent runs with its own model
    /// and tools, and its hooks say whose they are).
    pub(crate) fn read_for(session: &Arc<Session>, peer: &Peer, thread: Thread) -> Self {
        let mut cx = Self::snapshot(session, peer);
        if let Thread::Side(side) = &thread {
            cx.model = side.model.clone();
            cx.tools = side.tools.clone();
            cx.hook_common
                .insert("agent_id".into(), Value::String(side.agent_id.clone()));
            cx.hook_common
                .insert("agent_type".into(), Value::String(side.agent_type.clone()));
        }
        cx.thread = thread;
        cx
    }

    fn snapshot(session: &Arc<Session>, peer: &Peer) -> Self {
        let state = session.state();
        Self {
            session: Arc::clone(session),
            peer: peer.clone(),
            cancel: peer.interrupted().clone(),
            session_id: state.session_id.clone(),
            model: state.model.clone(),
            mode: state.mode.clone(),
            tools: state.tools.clone(),
            permissions: state.permissions.clone(),
            hooks: state.hooks.clone(),
            hook_common: session.hook_common(&state),
            workspace: Arc::clone(&session.workspace),
            thread: Thread::Main,
        }
    }

    /// Fires the host's hooks for `event` (see [`Hooks::fire`]).
    pub(crate) async fn fire(
        &self,
        event: &str,
        subject: Option<&str>,
        fields: Map<String, Value>,
        tool_use_id: Option<&str>,
    ) -> crate::hooks::HookReport {
        let mut input = self.hook_common.clone();
        input.insert("hook_event_name".into(), Value::String(event.to_owned()));
        input.extend(fields.clone());
        let mut report = self
            .hooks
            .fire(
                &self.peer,
                &self.hook_common,
                event,
                subject,
                fields,
                tool_use_id,
            )
            .await;
        // Then the settings' command hooks; the host's answers come first.
        let verifier = Verifier {
            client: &self.session.client,
            model: &self.model,
            tools: &self.tools,
            permissions: &self.permissions,
            workspace: &self.workspace,
            peer: &self.peer,
            session_id: &self.session_id,
            cancel: &self.cancel,
        };
        let commands = self
            .session
            .command_hooks
            .fire_with(
                &self.session.config,
                event,
                subject,
                &Value::Object(input),
                None,
                Some(verifier),
            )
            .await;
        report.block = report.block.or(commands.block);
        report.stop = report.stop.or(commands.stop);
        report.permission = report.permission.or(commands.permission);
        report.updated_input = report.updated_input.or(commands.updated_input);
        report.context.extend(commands.context);
        report
    }

    /// Writes a frame (a subagent's marked as its); a host that left is not an error here.
    pub(crate) fn emit(&self, frame: &twinwire_protocol::Message) {
        let mut marked;
        let frame = match &self.thread {
            Thread::Main => frame,
            Thread::Side(_) => {
                marked = frame.clone();
                self.thread.mark(&mut marked);
                &marked
            }
        };
        if let Err(err) = self.peer.emit(frame) {
            tracing::debug!(%err, "a frame the host will not see");
        }
    }
}
