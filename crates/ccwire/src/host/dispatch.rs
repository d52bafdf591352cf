//! The host's answers to the CLI's requests: permissions, hooks, MCP messages, elicitation.
//!
//! Every user callback runs with a timeout and with panics caught. A callback that fails never
//! allows anything: a permission is denied with the reason; a blocking hook blocks.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use ccwire_protocol::control::{
    CanUseToolRequest, ControlRequestBody, ElicitationAction, ElicitationRequest,
    ElicitationResponse, HookCallbackRequest, McpMessageResponse, RequestUserDialogRequest,
    UserDialogCancelled, UserDialogResponse,
};
use ccwire_protocol::hooks::HookPermissionDecision;
use ccwire_protocol::hooks::{
    HookCallbackMatcher, HookEvent, HookMatchers, HookOutput, HookSpecificOutput, PreToolUseOutput,
};
use ccwire_protocol::permission::PermissionResult;
use futures::future::BoxFuture;
use futures::FutureExt;
use serde::Serialize;
use serde_json::Value;

use super::callbacks::{
    CallbackError, CanUseTool, HookCallback, HookContext, HookFailure, HookMatcher, OnElicitation,
    OnUserDialog, PermissionRequest,
};
use crate::engine::{ControlHandler, HandlerError, RequestContext};
use crate::mcp::McpRouter;

/// How long a hook callback may run when its matcher sets no timeout (the CLI's default).
const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

struct RegisteredHook {
    event: HookEvent,
    callback: Arc<dyn HookCallback>,
    failure: HookFailure,
    timeout: Duration,
}

/// Serves the CLI's requests with the host's callbacks.
pub(crate) struct HostControl {
    can_use_tool: Option<Arc<dyn CanUseTool>>,
    permission_timeout: Option<Duration>,
    hooks: HashMap<String, RegisteredHook>,
    elicitation: Option<Arc<dyn OnElicitation>>,
    dialog: Option<Arc<dyn OnUserDialog>>,
    mcp: Option<Arc<McpRouter>>,
}

impl HostControl {
    /// Builds the dispatcher and the wire form of the hooks for `initialize`, numbering the
    /// callbacks `hook_0`, `hook_1`, … as the official SDKs do.
    pub(crate) fn new(
        can_use_tool: Option<Arc<dyn CanUseTool>>,
        permission_timeout: Option<Duration>,
        hooks: &[(HookEvent, Vec<HookMatcher>)],
        elicitation: Option<Arc<dyn OnElicitation>>,
        dialog: Option<Arc<dyn OnUserDialog>>,
        mcp: Option<Arc<McpRouter>>,
    ) -> (Self, Option<HookMatchers>) {
        let mut registered = HashMap::new();
        let mut wire: HookMatchers = Default::default();
        for (event, matchers) in hooks {
            let entry = wire.entry(event.as_str().to_owned()).or_default();
            for matcher in matchers {
                let mut ids = Vec::new();
                for callback in &matcher.hooks {
                    let id = format!("hook_{}", registered.len());
                    registered.insert(
                        id.clone(),
                        RegisteredHook {
                            event: event.clone(),
                            callback: Arc::clone(callback),
                            failure: matcher.failure_mode(event),
                            timeout: matcher.timeout.unwrap_or(DEFAULT_HOOK_TIMEOUT),
                        },
                    );
                    ids.push(id);
                }
                entry.push(HookCallbackMatcher {
                    matcher: Some(matcher.matcher.clone()),
                    hook_callback_ids: ids,
                    timeout: matcher.timeout.map(|t| t.as_secs_f64().ceil() as u64),
                    ..HookCallbackMatcher::default()
                });
            }
        }
        let wire = (!wire.is_empty()).then_some(wire);
        let dispatch = Self {
            can_use_tool,
            permission_timeout,
            hooks: registered,
            elicitation,
            dialog,
            mcp,
        };
        (dispatch, wire)
    }
}

impl ControlHandler for HostControl {
    fn handle(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        match request {
            ControlRequestBody::CanUseTool(request) => self.permission(*request, cx),
            ControlRequestBody::HookCallback(request) => self.hook(*request, cx),
            ControlRequestBody::McpMessage(request) => match &self.mcp {
                Some(router) => {
                    let router = Arc::clone(router);
                    Box::pin(async move {
                        let response = router.handle(&request.server_name, request.message).await?;
                        to_payload(&McpMessageResponse {
                            mcp_response: response,
                            extra: Default::default(),
                        })
                    })
                }
                None => Box::pin(async move {
                    Err(HandlerError::new(format!(
                        "unknown SDK MCP server {}",
                        request.server_name
                    )))
                }),
            },
            ControlRequestBody::Elicitation(request) => self.elicit(request, cx),
            ControlRequestBody::RequestUserDialog(request) => self.dialog(request, cx),
            other => {
                let error = HandlerError::unsupported(other.tag());
                Box::pin(async move { Err(error) })
            }
        }
    }
}

impl HostControl {
    fn permission(
        &self,
        request: CanUseToolRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let callback = self.can_use_tool.clone();
        let timeout = self.permission_timeout;
        Box::pin(async move {
            let Some(callback) = callback else {
                return to_payload(&PermissionResult::deny(
                    "no can_use_tool callback is configured",
                ));
            };
            let input = request.input.clone();
            let tool = request.tool_name.clone();
            let call = callback.can_use_tool(PermissionRequest {
                request,
                cancel: cx.cancel.clone(),
            });
            let result = match guarded(call, timeout).await {
                Ok(PermissionResult::Allow(mut allow)) => {
                    // The CLI requires the input on every allow; echo it when unchanged.
                    if allow.updated_input.is_none() {
                        allow.updated_input = Some(input);
                    }
                    PermissionResult::Allow(allow)
                }
                Ok(PermissionResult::Unknown(unknown)) => PermissionResult::deny(format!(
                    "can_use_tool returned an unknown behavior `{}`",
                    unknown.tag
                )),
                Ok(result) => result,
                Err(reason) => {
                    tracing::warn!(%tool, %reason, "permission callback failed: denying");
                    PermissionResult::deny(format!("permission callback failed: {reason}"))
                }
            };
            to_payload(&result)
        })
    }

    fn hook(
        &self,
        request: HookCallbackRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let Some(hook) = self.hooks.get(&request.callback_id) else {
            let error = HandlerError::new(format!("no hook callback `{}`", request.callback_id));
            return Box::pin(async move { Err(error) });
        };
        let event = hook.event.clone();
        let failure = hook.failure;
        let call = hook.callback.call(
            request.input,
            HookContext {
                tool_use_id: request.tool_use_id,
                cancel: cx.cancel,
            },
        );
        let timeout = hook.timeout;
        Box::pin(async move {
            match guarded(call, Some(timeout)).await {
                Ok(output) => to_payload(&output),
                Err(reason) => {
                    tracing::warn!(event = %event, %reason, "hook callback failed");
                    match failure {
                        HookFailure::Block => to_payload(&blocking_output(&event, &reason)),
                        HookFailure::Continue => {
                            Err(HandlerError::new(format!("hook callback failed: {reason}")))
                        }
                    }
                }
            }
        })
    }

    fn elicit(
        &self,
        request: ElicitationRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let callback = self.elicitation.clone();
        Box::pin(async move {
            let response = match callback {
                Some(callback) => match guarded(callback.elicit(request, cx.cancel), None).await {
                    Ok(response) => response,
                    Err(reason) => {
                        tracing::warn!(%reason, "elicitation callback failed: declining");
                        decline()
                    }
                },
                None => decline(),
            };
            to_payload(&response)
        })
    }
}

impl HostControl {
    /// A dialog: the callback's answer, or cancelled (the CLI then applies its default) when
    /// there is no callback or it fails.
    fn dialog(
        &self,
        request: RequestUserDialogRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let callback = self.dialog.clone();
        Box::pin(async move {
            let kind = request.dialog_kind.clone();
            let response = match callback {
                Some(callback) => match guarded(callback.dialog(request, cx.cancel), None).await {
                    Ok(response) => response,
                    Err(reason) => {
                        tracing::warn!(%reason, kind, "user dialog callback failed: cancelling");
                        cancelled()
                    }
                },
                None => cancelled(),
            };
            to_payload(&response)
        })
    }
}

fn cancelled() -> UserDialogResponse {
    UserDialogResponse::Cancelled(UserDialogCancelled::default())
}

fn decline() -> ElicitationResponse {
    ElicitationResponse {
        action: ElicitationAction::Decline,
        ..ElicitationResponse::default()
    }
}

/// The answer of a blocking hook that failed: for `PreToolUse`, a deny decision too.
fn blocking_output(event: &HookEvent, reason: &str) -> HookOutput {
    let mut output = HookOutput::block(format!("hook callback failed: {reason}"));
    if *event == HookEvent::PreToolUse {
        output.hook_specific_output = Some(HookSpecificOutput::PreToolUse(PreToolUseOutput {
            permission_decision: Some(HookPermissionDecision::Deny),
            permission_decision_reason: Some(format!("hook callback failed: {reason}")),
            ..PreToolUseOutput::default()
        }));
    }
    output
}

/// Runs a callback with an optional timeout, turning errors, panics and timeouts into a reason.
async fn guarded<T>(
    call: BoxFuture<'static, Result<T, CallbackError>>,
    timeout: Option<Duration>,
) -> Result<T, String> {
    let call = AssertUnwindSafe(call).catch_unwind();
    let outcome = match timeout {
        Some(limit) => match tokio::time::timeout(limit, call).await {
            Ok(outcome) => outcome,
            Err(_) => return Err(format!("timed out after {limit:?}")),
        },
        None => call.await,
    };
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(err)) => Err(err.to_string()),
        Err(panic) => Err(format!(
            "panicked: {}",
            crate::engine::panic_message(&*panic)
        )),
    }
}

fn to_payload<T: Serialize>(value: &T) -> Result<Value, HandlerError> {
    serde_json::to_value(value).map_err(|err| HandlerError::new(err.to_string()))
}
