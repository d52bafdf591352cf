//! [`OptionsBuilder`]: one method per option, one fallible [`OptionsBuilder::build`].
//!
//! This file holds the process, engine, callback and pass-through options; the others are in
//! `builder/` by domain. Methods named after a list or map option replace it; methods in the
//! singular add one entry. `#[must_use]` is on the type, so it covers every method.

mod model;
mod session;
mod tools;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use twinwire_protocol::hooks::HookEvent;

use super::Options;
use crate::error::Result;
use crate::host::callbacks::{CanUseTool, HookMatcher, OnElicitation, OnUserDialog};
use crate::host::process::ShutdownTimeouts;

/// Builds [`Options`]; see the [module docs](super) and `docs/options.md`.
#[derive(Debug, Clone, Default)]
#[must_use = "a builder does nothing until build() is called"]
pub struct OptionsBuilder {
    options: Options,
}

impl OptionsBuilder {
    /// A builder starting from `options`.
    pub(crate) fn from_options(options: Options) -> Self {
        Self { options }
    }

    /// Checks the options and returns them.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidOptions`](crate::error::Error::InvalidOptions) when options contradict each
    /// other or hold a value the CLI would refuse at start, e.g. `can_use_tool` together with
    /// `permission_prompt_tool_name` (as in the official SDKs), `continue_conversation`
    /// together with `resume`, `session_id` with `resume` but without `fork_session`,
    /// `resume_session_at` without `resume`, `fallback_model` equal to `model`, a settings
    /// file together with `sandbox`, a JSON schema that is not an object, or a malformed
    /// `extra_args` key.
    pub fn build(self) -> Result<Options> {
        self.options.validate()?;
        Ok(self.options)
    }

    // --- Process ---------------------------------------------------------------------------

    /// The `claude` executable. A `.js` bundle (CLI 2.1.112 and older) runs with `node`.
    /// Default: `$TWINWIRE_CLI_PATH`, then `claude` on `PATH`, then the usual install
    /// locations.
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.options.cli_path = Some(path.into());
        self
    }

    /// The CLI's working directory (also exported as `PWD` when absolute). Default: the
    /// host's.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.options.cwd = Some(dir.into());
        self
    }

    /// Sets an environment variable for the CLI. The child inherits the host's environment;
    /// these variables are applied over it, after twinwire's own, so they override them.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.set_env(key.into(), Some(value.into()));
        self
    }

    /// Sets several environment variables (see [`OptionsBuilder::env`]).
    pub fn envs<I, K, V>(mut self, vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<OsString>,
        V: Into<OsString>,
    {
        for (key, value) in vars {
            self.set_env(key.into(), Some(value.into()));
        }
        self
    }

    /// Removes a variable from the environment the CLI inherits.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.set_env(key.into(), None);
        self
    }

    fn set_env(&mut self, key: OsString, value: Option<OsString>) {
        self.options.env.retain(|(existing, _)| *existing != key);
        self.options.env.push((key, value));
    }

    /// Passes a flag the options do not cover: `--key` when `value` is `None`, else
    /// `--key=value`. `key` is the flag's name without the dashes. Added after every other
    /// flag, in the order given.
    pub fn extra_arg(mut self, key: impl Into<String>, value: Option<impl Into<String>>) -> Self {
        self.options
            .extra_args
            .push((key.into(), value.map(Into::into)));
        self
    }

    /// Replaces the pass-through flags (see [`OptionsBuilder::extra_arg`]).
    pub fn extra_args<I, K, V>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = (K, Option<V>)>,
        K: Into<String>,
        V: Into<String>,
    {
        self.options.extra_args = args
            .into_iter()
            .map(|(key, value)| (key.into(), value.map(Into::into)))
            .collect();
        self
    }

    /// Called with each line the CLI writes to stderr. stderr is always drained, and its last
    /// lines go into [`Error::ProcessExited`](crate::error::Error::ProcessExited), whether or not this
    /// is set.
    pub fn stderr<F>(mut self, callback: F) -> Self
    where
        F: Fn(&str) + Send + Sync + 'static,
    {
        self.options.stderr = Some(Arc::new(callback));
        self
    }

    /// The OS user to run the CLI as (POSIX; Python's `user`).
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.options.user = Some(user.into());
        self
    }

    /// Where the CLI runs and what carries its stdio (default: a local child process). See
    /// [`crate::host::launch`].
    pub fn launcher(mut self, launcher: crate::host::launch::Launcher) -> Self {
        self.options.launcher = launcher;
        self
    }

    /// Runs the CLI through a program that carries stdio, e.g. `ssh build@host` or
    /// `docker exec -i ctr` (split like a shell); `cli_path` is then the path on the far side.
    pub fn via(mut self, command_line: &str) -> crate::error::Result<Self> {
        self.options.launcher = crate::host::launch::Launcher::via(command_line)?;
        Ok(self)
    }

    /// Identifies the host application in the CLI's User-Agent, e.g. `my-app/1.0.0`
    /// (`CLAUDE_AGENT_SDK_CLIENT_APP`).
    pub fn client_app(mut self, app: impl Into<String>) -> Self {
        self.options.client_app = Some(app.into());
        self
    }

    // --- Engine ----------------------------------------------------------------------------

    /// How long a control request (interrupt, set_model, mcp_status, …) waits for its answer.
    /// Default: 60 s.
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.options.request_timeout = timeout;
        self
    }

    /// How long `initialize` may take, from spawn to answer. Default: 60 s.
    pub fn initialize_timeout(mut self, timeout: Duration) -> Self {
        self.options.initialize_timeout = timeout;
        self
    }

    /// How long the `can_use_tool` callback may take before the tool is denied. Default: no
    /// limit, since a person may be answering.
    pub fn permission_timeout(mut self, timeout: Duration) -> Self {
        self.options.permission_timeout = Some(timeout);
        self
    }

    /// The longest stdout line accepted from the CLI; a longer line is skipped and reported,
    /// and the session goes on. Default:
    /// [`DEFAULT_MAX_LINE_LENGTH`](twinwire_protocol::framing::DEFAULT_MAX_LINE_LENGTH).
    pub fn max_line_length(mut self, bytes: usize) -> Self {
        self.options.max_line_length = bytes;
        self
    }

    /// How many bytes of messages may wait for the caller to take them before twinwire stops
    /// reading the CLI's stdout, so that the CLI's writes block (backpressure) and memory stays
    /// bounded whatever the CLI writes. Control requests already read are still served, and
    /// while one of the caller's requests (interrupt, set_model, …) waits for its answer the
    /// reader reads on past the budget, so it never deadlocks. A caller that never reads
    /// messages therefore stalls the CLI once the budget is full. Default:
    /// [`DEFAULT_MAX_BUFFERED_BYTES`](crate::engine::DEFAULT_MAX_BUFFERED_BYTES) (8 MiB).
    /// (The Python SDK's `max_buffer_size` limits one line instead: see
    /// [`max_line_length`](Self::max_line_length).)
    pub fn max_buffered_bytes(mut self, bytes: usize) -> Self {
        self.options.max_buffered_bytes = bytes;
        self
    }

    /// When the CLI may call back into the host (callbacks, hooks, in-process MCP servers),
    /// how long stdin stays open after a result, waiting for the CLI to report
    /// `session_state_changed: idle`, so that background tasks can still reach the host.
    /// Default: 600 s.
    pub fn stdin_idle_ceiling(mut self, ceiling: Duration) -> Self {
        self.options.stdin_idle_ceiling = ceiling;
        self
    }

    /// How long each step of closing the CLI may take (stdin closed → SIGTERM → SIGKILL).
    /// Default: 5 s each.
    pub fn shutdown(mut self, timeouts: ShutdownTimeouts) -> Self {
        self.options.shutdown = timeouts;
        self
    }

    // --- Callbacks -------------------------------------------------------------------------

    /// Decides whether each tool may run. Makes the CLI ask over the control channel
    /// (`--permission-prompt-tool=stdio`). Tools already allowed by `allowed_tools`, the
    /// permission mode or settings never reach it.
    pub fn can_use_tool(mut self, callback: Arc<dyn CanUseTool>) -> Self {
        self.options.callbacks.can_use_tool = Some(callback);
        self
    }

    /// A [`Host`](crate::host::Host) of yours answers the CLI's requests (permissions, hooks,
    /// elicitation, dialogs, MCP messages for servers not in-process, unknown subtypes)
    /// instead of the closures given to [`can_use_tool`](Self::can_use_tool),
    /// [`on_elicitation`](Self::on_elicitation) and [`on_user_dialog`](Self::on_user_dialog).
    /// Hooks are still registered with [`hook`](Self::hook); the host's
    /// [`hook`](crate::host::Host::hook) is called for each, with the callback registered.
    pub fn host(mut self, host: Arc<dyn crate::host::Host>) -> Self {
        self.options.host = Some(host);
        self
    }

    /// Adds a hook matcher for `event`; matchers of one event run in the order added.
    pub fn hook(mut self, event: HookEvent, matcher: HookMatcher) -> Self {
        match self.options.hooks.iter_mut().find(|(e, _)| *e == event) {
            Some((_, matchers)) => matchers.push(matcher),
            None => self.options.hooks.push((event, vec![matcher])),
        }
        self
    }

    /// Replaces every hook.
    pub fn hooks(mut self, hooks: Vec<(HookEvent, Vec<HookMatcher>)>) -> Self {
        self.options.hooks = hooks;
        self
    }

    /// Answers MCP elicitation requests (a server asking the user for input). Without it,
    /// they are declined.
    pub fn on_elicitation(mut self, callback: Arc<dyn OnElicitation>) -> Self {
        self.options.callbacks.elicitation = Some(callback);
        self
    }

    /// Answers `request_user_dialog` requests (dialogs the CLI wants shown, such as
    /// `refusal_fallback_prompt`). The CLI sends only the kinds declared with
    /// [`supported_dialog_kinds`](Self::supported_dialog_kinds); without a callback, a dialog
    /// is cancelled.
    pub fn on_user_dialog(mut self, callback: Arc<dyn OnUserDialog>) -> Self {
        self.options.callbacks.user_dialog = Some(callback);
        self
    }

    /// The dialog kinds the `on_user_dialog` callback renders (sent in `initialize`). Requires
    /// [`on_user_dialog`](Self::on_user_dialog).
    pub fn supported_dialog_kinds<S: Into<String>>(
        mut self,
        kinds: impl IntoIterator<Item = S>,
    ) -> Self {
        self.options.supported_dialog_kinds = kinds.into_iter().map(Into::into).collect();
        self
    }

    /// The oldest CLI version to accept (default [`MINIMUM_CLI_VERSION`](super::MINIMUM_CLI_VERSION),
    /// `None` for no check): an older CLI fails `connect` with
    /// [`Error::CliTooOld`](crate::error::Error::CliTooOld) when its `initialize` answer names its
    /// version, and is warned about (through `tracing`) when only `system/init` does.
    pub fn minimum_cli_version(mut self, version: Option<&str>) -> Self {
        self.options.minimum_cli_version = version.map(str::to_owned);
        self
    }

    /// Mirrors the session's transcript into `store` (TS `sessionStore`): the CLI runs with
    /// `--session-mirror`, and its entries are appended to the store per turn (see
    /// [`crate::sessions::mirror`]). A failing store never fails the session.
    pub fn transcript_store(
        mut self,
        store: Arc<dyn crate::sessions::mirror::TranscriptStore>,
    ) -> Self {
        self.options.transcript_store = Some(store);
        self
    }

    /// When the transcript mirror appends to the store (TS `sessionStoreFlush`): per turn
    /// (the default) or as each frame arrives ([`StoreFlush::Eager`](crate::sessions::mirror::StoreFlush)).
    pub fn transcript_store_flush(mut self, flush: crate::sessions::mirror::StoreFlush) -> Self {
        self.options.transcript_store_flush = flush;
        self
    }

    /// How long each store call of a store-backed resume may take (TS `loadTimeoutMs`,
    /// default 60 s): a store that hangs fails `connect` with a timeout error.
    pub fn transcript_store_load_timeout(mut self, limit: std::time::Duration) -> Self {
        self.options.transcript_store_load_timeout = limit;
        self
    }

    /// Calls `callback` with each tool call's permission decision as soon as it is known (the
    /// tool's result): whether it ran and who decided. It runs on the task that reads the
    /// CLI's output, so it must return quickly (send the decision on a channel for anything
    /// slow). [`Client::permission_decisions`](crate::Client::permission_decisions) keeps them
    /// too.
    pub fn on_permission_decision(
        mut self,
        callback: impl Fn(&crate::host::decisions::PermissionDecision) + Send + Sync + 'static,
    ) -> Self {
        self.options.on_permission_decision = Some(Arc::new(callback));
        self
    }

    /// How the transcript mirror redacts entries before the store gets them. By default it is
    /// on, with the values of the session's secret-named environment variables (the host's and
    /// [`env`](Self::env)'s) besides the rules every redactor has, whatever the store does
    /// itself; [`StoreRedaction::off`](crate::sessions::stores::StoreRedaction::off) hands the
    /// store the entries as the CLI wrote them.
    pub fn transcript_redaction(
        mut self,
        redaction: crate::sessions::stores::StoreRedaction,
    ) -> Self {
        self.options.transcript_redaction = Some(redaction);
        self
    }

    // --- Pass-through ----------------------------------------------------------------------

    /// Adds a field to the `initialize` request as given, e.g. `supportedDialogKinds` or a
    /// field newer than this version. It replaces a field of the same name that twinwire sets;
    /// `build()` refuses a value that does not fit a field twinwire knows.
    pub fn initialize_field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.options.initialize_extra.insert(key.into(), value);
        self
    }

    /// Waits out a reached usage limit and continues the turn (see [`crate::host::limits`]).
    pub fn usage_limits(mut self, policy: crate::host::limits::LimitPolicy) -> Self {
        self.options.usage_limits = Some(policy);
        self
    }
}
