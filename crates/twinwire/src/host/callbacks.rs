//! What the host answers when the CLI asks: tool permissions, hooks, elicitation.
//!
//! Each callback is a trait with an adapter for async closures, so both of these work:
//!
//! ```
//! use twinwire::host::callbacks::{can_use_tool, PermissionRequest};
//! use twinwire::protocol::permission::PermissionResult;
//!
//! let callback = can_use_tool(|request: PermissionRequest| async move {
//!     if request.tool_name() == "Bash" {
//!         Ok(PermissionResult::deny("no shell today"))
//!     } else {
//!         Ok(PermissionResult::allow(request.input().clone()))
//!     }
//! });
//! # let _ = callback;
//! ```
//!
//! A callback that returns an error, panics or runs past its timeout never allows anything:
//! a permission is denied with the reason, a `PreToolUse` or `PermissionRequest` hook blocks,
//! and the session goes on.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{
    CanUseToolRequest, ElicitationRequest, ElicitationResponse, RequestUserDialogRequest,
    UserDialogResponse,
};
use twinwire_protocol::hooks::{HookEvent, HookInput, HookOutput};
use twinwire_protocol::permission::PermissionResult;
use twinwire_protocol::tools::ToolInput;

/// The error a callback may return. It is reported to the CLI, never turned into an allow.
pub type CallbackError = Box<dyn std::error::Error + Send + Sync>;

/// The result of a callback.
pub type CallbackResult<T> = Result<T, CallbackError>;

/// A request to use a tool.
#[derive(Debug, Clone)]
pub struct PermissionRequest {
    /// The request as the CLI sent it (tool name, input, suggestions, tool use id, …).
    pub request: CanUseToolRequest,
    /// Cancelled when the CLI withdraws the request or the session ends.
    pub cancel: CancellationToken,
}

impl PermissionRequest {
    /// The tool's name, e.g. `Bash` or `mcp__calc__add`.
    pub fn tool_name(&self) -> &str {
        &self.request.tool_name
    }

    /// The tool's input.
    pub fn input(&self) -> &Value {
        &self.request.input
    }

    /// The tool's input, typed when its schema is known: match on
    /// `ToolInput::Bash(bash) => bash.command`.
    pub fn tool_input(&self) -> ToolInput {
        ToolInput::parse(self.tool_name(), &self.request.input)
    }
}

/// Decides whether a tool may run.
pub trait CanUseTool: Send + Sync + 'static {
    /// Answers one request.
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>>;

    /// The deny rules this callback enforces, as written (`Bash(rm:*)`), when it is made of
    /// rules: a session warns of those the CLI's own allow rules shadow (the CLI never asks
    /// about a call it allows). None by default.
    fn deny_rules(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Any async closure of the right shape is a [`CanUseTool`].
impl<F, Fut> CanUseTool for F
where
    F: Fn(PermissionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<PermissionResult>> + Send + 'static,
{
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        Box::pin(self(request))
    }
}

/// An async closure as a shared [`CanUseTool`], for the options builder.
pub fn can_use_tool<F, Fut>(f: F) -> Arc<dyn CanUseTool>
where
    F: Fn(PermissionRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<PermissionResult>> + Send + 'static,
{
    Arc::new(f)
}

/// One hook firing.
#[derive(Debug, Clone)]
pub struct HookContext {
    /// The tool use the hook is about, for tool events.
    pub tool_use_id: Option<String>,
    /// Cancelled when the CLI withdraws the request or the session ends.
    pub cancel: CancellationToken,
}

/// A hook callback.
pub trait HookCallback: Send + Sync + 'static {
    /// Handles one firing of the hook.
    fn call(
        &self,
        input: HookInput,
        cx: HookContext,
    ) -> BoxFuture<'static, CallbackResult<HookOutput>>;
}

/// Any async closure of the right shape is a [`HookCallback`].
impl<F, Fut> HookCallback for F
where
    F: Fn(HookInput, HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<HookOutput>> + Send + 'static,
{
    fn call(
        &self,
        input: HookInput,
        cx: HookContext,
    ) -> BoxFuture<'static, CallbackResult<HookOutput>> {
        Box::pin(self(input, cx))
    }
}

/// An async closure as a shared [`HookCallback`], for the options builder.
pub fn hook<F, Fut>(f: F) -> Arc<dyn HookCallback>
where
    F: Fn(HookInput, HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<HookOutput>> + Send + 'static,
{
    Arc::new(f)
}

/// What a failing hook callback answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HookFailure {
    /// Block: for `PreToolUse` the tool is denied. The default for `PreToolUse` and
    /// `PermissionRequest`, so a broken hook never lets a tool through.
    Block,
    /// Report the error to the CLI and carry on. The default for every other event.
    Continue,
}

/// Callbacks for one event, for the tools (or other targets) a matcher selects.
#[derive(Clone)]
pub struct HookMatcher {
    /// A tool name, `A|B`, a regular expression, or `None` for everything.
    pub matcher: Option<String>,
    /// The callbacks, run in order by the CLI.
    pub hooks: Vec<Arc<dyn HookCallback>>,
    /// How long the CLI (and twinwire) give each callback.
    pub timeout: Option<Duration>,
    /// What a failing callback answers; `None` chooses by event (see [`HookFailure`]).
    pub on_failure: Option<HookFailure>,
}

impl std::fmt::Debug for HookMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookMatcher")
            .field("matcher", &self.matcher)
            .field("hooks", &self.hooks.len())
            .field("timeout", &self.timeout)
            .field("on_failure", &self.on_failure)
            .finish()
    }
}

impl HookMatcher {
    /// Callbacks for every target of the event.
    pub fn all(hook: Arc<dyn HookCallback>) -> Self {
        Self {
            matcher: None,
            hooks: vec![hook],
            timeout: None,
            on_failure: None,
        }
    }

    /// Callbacks for targets matching `matcher` (e.g. `Bash` or `Write|Edit`).
    pub fn matching(matcher: impl Into<String>, hook: Arc<dyn HookCallback>) -> Self {
        Self {
            matcher: Some(matcher.into()),
            ..Self::all(hook)
        }
    }

    /// Adds another callback.
    #[must_use]
    pub fn with(mut self, hook: Arc<dyn HookCallback>) -> Self {
        self.hooks.push(hook);
        self
    }

    /// Sets the timeout.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets what a failing callback answers.
    #[must_use]
    pub fn on_failure(mut self, on_failure: HookFailure) -> Self {
        self.on_failure = Some(on_failure);
        self
    }

    /// The answer for a failing callback of `event`.
    pub(crate) fn failure_mode(&self, event: &HookEvent) -> HookFailure {
        self.on_failure.unwrap_or(match event {
            HookEvent::PreToolUse | HookEvent::PermissionRequest => HookFailure::Block,
            _ => HookFailure::Continue,
        })
    }
}

/// Answers MCP elicitation requests (a server asking the user for input).
pub trait OnElicitation: Send + Sync + 'static {
    /// Answers one request.
    fn elicit(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<ElicitationResponse>>;
}

/// Any async closure of the right shape is a [`OnElicitation`].
impl<F, Fut> OnElicitation for F
where
    F: Fn(ElicitationRequest, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<ElicitationResponse>> + Send + 'static,
{
    fn elicit(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<ElicitationResponse>> {
        Box::pin(self(request, cancel))
    }
}

/// An async closure as a shared [`OnElicitation`], for the options builder.
pub fn on_elicitation<F, Fut>(f: F) -> Arc<dyn OnElicitation>
where
    F: Fn(ElicitationRequest, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<ElicitationResponse>> + Send + 'static,
{
    Arc::new(f)
}

/// Answers `request_user_dialog` requests: a dialog the CLI wants shown (only of the kinds
/// declared with `supported_dialog_kinds`). An error or a panic cancels the dialog, and the
/// CLI applies its own default.
pub trait OnUserDialog: Send + Sync + 'static {
    /// Answers one dialog.
    fn dialog(
        &self,
        request: RequestUserDialogRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<UserDialogResponse>>;
}

/// Any async closure of the right shape is an [`OnUserDialog`].
impl<F, Fut> OnUserDialog for F
where
    F: Fn(RequestUserDialogRequest, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<UserDialogResponse>> + Send + 'static,
{
    fn dialog(
        &self,
        request: RequestUserDialogRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<UserDialogResponse>> {
        Box::pin(self(request, cancel))
    }
}

/// An async closure as a shared [`OnUserDialog`], for the options builder.
pub fn on_user_dialog<F, Fut>(f: F) -> Arc<dyn OnUserDialog>
where
    F: Fn(RequestUserDialogRequest, CancellationToken) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallbackResult<UserDialogResponse>> + Send + 'static,
{
    Arc::new(f)
}
