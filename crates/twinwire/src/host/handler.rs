//! [`Host`]: the host's answers to the CLI's requests, one method per request with a default
//! and a catch-all for subtypes twinwire does not know. The host-side twin of
//! [`Agent`](crate::agent::Agent).
//!
//! Most hosts never implement it: the options builder takes closures
//! ([`can_use_tool`](crate::host::options::OptionsBuilder::can_use_tool),
//! [`hook`](crate::host::options::OptionsBuilder::hook), …) and makes a `Host` of them. Implement it
//! when one object answers everything, or to answer a request subtype twinwire does not type:
//!
//! ```
//! use twinwire::host::{Host, PermissionRequest};
//! use twinwire::host::callbacks::CallbackResult;
//! use twinwire::protocol::permission::PermissionResult;
//! use futures::future::BoxFuture;
//!
//! struct ReadOnly;
//!
//! impl Host for ReadOnly {
//!     fn can_use_tool(
//!         &self,
//!         request: PermissionRequest,
//!     ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
//!         let read = matches!(request.tool_name(), "Read" | "Grep" | "Glob");
//!         let input = request.input().clone();
//!         Box::pin(async move {
//!             Ok(if read { PermissionResult::allow(input) } else { PermissionResult::deny("read only") })
//!         })
//!     }
//! }
//!
//! let options = twinwire::Options::builder().host(std::sync::Arc::new(ReadOnly)).build();
//! # let _ = options;
//! ```
//!
//! Whatever a `Host` returns, the dispatcher keeps the promises of the callbacks: an error, a
//! panic or a time-out never allows a tool, and a failing blocking hook blocks.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use twinwire_protocol::control::{
    ControlRequestBody, ElicitationAction, ElicitationRequest, ElicitationResponse,
    RequestUserDialogRequest, UserDialogCancelled, UserDialogResponse,
};
use twinwire_protocol::hooks::{HookEvent, HookInput, HookOutput};
use twinwire_protocol::permission::PermissionResult;

use super::callbacks::{
    CallbackResult, CanUseTool, HookCallback, HookContext, OnElicitation, OnUserDialog,
    PermissionRequest,
};
use crate::engine::{HandlerError, RequestContext};

/// One firing of a hook registered in `initialize`.
#[derive(Clone)]
pub struct HookCall {
    /// The id the hook was registered under (`hook_0`, `hook_1`, … in registration order).
    pub callback_id: String,
    /// The event it was registered for.
    pub event: HookEvent,
    /// What the CLI sent.
    pub input: HookInput,
    /// The tool use it is about, and the cancellation of the request.
    pub cx: HookContext,
    /// The callback registered under this id with the options builder, if any.
    pub registered: Option<Arc<dyn HookCallback>>,
}

impl std::fmt::Debug for HookCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookCall")
            .field("callback_id", &self.callback_id)
            .field("event", &self.event)
            .field("input", &self.input)
            .field("registered", &self.registered.is_some())
            .finish_non_exhaustive()
    }
}

/// The host's answers to the CLI's requests. Every method has a default; a host overrides
/// what it answers.
pub trait Host: Send + Sync + 'static {
    /// `can_use_tool`: may this tool run? Default: denied (no one decides).
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        let _ = request;
        Box::pin(async {
            Ok(PermissionResult::deny(
                "no can_use_tool callback is configured",
            ))
        })
    }

    /// `hook_callback`: one hook firing. Default: the callback registered under the id with
    /// the options builder, else an error (the CLI carries on, or blocks for a blocking hook).
    fn hook(&self, call: HookCall) -> BoxFuture<'static, CallbackResult<HookOutput>> {
        match call.registered {
            Some(callback) => callback.call(call.input, call.cx),
            None => {
                let message = format!("no hook callback `{}`", call.callback_id);
                Box::pin(async move { Err(message.into()) })
            }
        }
    }

    /// `elicitation`: an MCP server asks the user for input. Default: declined.
    fn elicitation(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<ElicitationResponse>> {
        let _ = (request, cancel);
        Box::pin(async { Ok(decline()) })
    }

    /// `request_user_dialog`: a dialog to show. Default: cancelled (the CLI applies its own
    /// default).
    fn user_dialog(
        &self,
        request: RequestUserDialogRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<UserDialogResponse>> {
        let _ = (request, cancel);
        Box::pin(async { Ok(cancelled()) })
    }

    /// `mcp_message` for a server that is not one of the options' in-process servers (those
    /// are answered by twinwire). Default: an error naming the server.
    fn mcp_message(
        &self,
        server_name: String,
        message: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let _ = (message, cancel);
        Box::pin(async move {
            Err(HandlerError::new(format!(
                "unknown SDK MCP server {server_name}"
            )))
        })
    }

    /// Any other request from the CLI, a subtype twinwire does not know included (the raw
    /// frame is in [`ControlRequestBody::Unknown`]). Default: unsupported.
    fn request(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let _ = cx;
        let error = HandlerError::unsupported(request.tag());
        Box::pin(async move { Err(error) })
    }
}

/// The closures given to the options builder, as a [`Host`].
#[derive(Clone, Default)]
pub(crate) struct Callbacks {
    pub(crate) can_use_tool: Option<Arc<dyn CanUseTool>>,
    pub(crate) elicitation: Option<Arc<dyn OnElicitation>>,
    pub(crate) user_dialog: Option<Arc<dyn OnUserDialog>>,
}

impl Host for Callbacks {
    fn can_use_tool(
        &self,
        request: PermissionRequest,
    ) -> BoxFuture<'static, CallbackResult<PermissionResult>> {
        match &self.can_use_tool {
            Some(callback) => callback.can_use_tool(request),
            None => Box::pin(async {
                Ok(PermissionResult::deny(
                    "no can_use_tool callback is configured",
                ))
            }),
        }
    }

    fn elicitation(
        &self,
        request: ElicitationRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<ElicitationResponse>> {
        match &self.elicitation {
            Some(callback) => callback.elicit(request, cancel),
            None => Box::pin(async { Ok(decline()) }),
        }
    }

    fn user_dialog(
        &self,
        request: RequestUserDialogRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, CallbackResult<UserDialogResponse>> {
        match &self.user_dialog {
            Some(callback) => callback.dialog(request, cancel),
            None => Box::pin(async { Ok(cancelled()) }),
        }
    }
}

/// A declined elicitation.
pub(crate) fn decline() -> ElicitationResponse {
    ElicitationResponse {
        action: ElicitationAction::Decline,
        ..ElicitationResponse::default()
    }
}

/// A cancelled dialog.
pub(crate) fn cancelled() -> UserDialogResponse {
    UserDialogResponse::Cancelled(UserDialogCancelled::default())
}
