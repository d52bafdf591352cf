//! The host's side of the control plane: each request the CLI sends, answered by the
//! session's [`Host`] (the closures of the options builder, or a `Host` of the user's), and
//! the in-process MCP servers' messages by their router.
//!
//! Whatever the `Host` does, nothing is allowed because something failed: every call runs
//! with a timeout and with panics caught; a permission that errors is denied with the reason;
//! a failing blocking hook blocks.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use serde::Serialize;
use serde_json::Value;
use twinwire_protocol::control::{
    CanUseToolRequest, ControlRequestBody, ElicitationRequest, HookCallbackRequest,
    McpMessageResponse, RequestUserDialogRequest,
};
use twinwire_protocol::hooks::HookPermissionDecision;
use twinwire_protocol::hooks::{
    HookCallbackMatcher, HookEvent, HookMatchers, HookOutput, HookSpecificOutput, PreToolUseOutput,
};
use twinwire_protocol::permission::PermissionResult;

use super::callbacks::{
    CallbackError, HookCallback, HookContext, HookFailure, HookMatcher, PermissionRequest,
};
use super::handler::{cancelled, decline, HookCall, Host};
use super::parking::{is_park, Park, Parking};
use crate::engine::{Answer, ControlHandler, HandlerError, RequestContext};
use crate::mcp::McpRouter;
use crate::trace;
use tracing::Instrument;

use super::decisions::AskedHost;
use super::watch::SessionWatch;

/// How long a hook callback may run when its matcher sets no timeout (the CLI's default).
const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

struct RegisteredHook {
    event: HookEvent,
    callback: Arc<dyn HookCallback>,
    failure: HookFailure,
    timeout: Duration,
}

/// Serves the CLI's requests with the session's [`Host`].
pub(crate) struct HostControl {
    host: Arc<dyn Host>,
    permission_timeout: Option<Duration>,
    hooks: HashMap<String, RegisteredHook>,
    mcp: Option<Arc<McpRouter>>,
    /// Where the permission and hook spans go (under their tool use's), and what the host
    /// answered goes for the session's permission decisions.
    watch: Arc<SessionWatch>,
    /// The `SessionStart` and `SessionEnd` callbacks, which the host calls itself
    /// ([`HostControl::call_lifecycle`]): their event, matcher and id, in order.
    lifecycle: Vec<(HookEvent, Option<String>, String)>,
    /// Where requests a callback parks wait, and the session's own id and directory until
    /// the CLI names them.
    parking: Option<(Parking, Option<String>, PathBuf)>,
    /// The live-session record, which keeps a parked permission request until it is answered
    /// (the `Host`'s part ended when it parked it).
    record: Option<std::sync::Weak<super::reattach::LiveRecord>>,
}

impl HostControl {
    /// Builds the dispatcher and the wire form of the hooks for `initialize`, numbering the
    /// callbacks `hook_0`, `hook_1`, … as the official SDKs do.
    pub(crate) fn new(
        host: Arc<dyn Host>,
        permission_timeout: Option<Duration>,
        hooks: &[(HookEvent, Vec<HookMatcher>)],
        mcp: Option<Arc<McpRouter>>,
        watch: Arc<SessionWatch>,
    ) -> (Self, Option<HookMatchers>) {
        let mut registered = HashMap::new();
        let mut wire: HookMatchers = Default::default();
        let mut lifecycle = Vec::new();
        for (event, matchers) in hooks {
            // No Claude Code calls these from `initialize`; the host calls them, and a program
            // that would (twinwire-agent) is not told of them, so that each runs once.
            let own = matches!(event, HookEvent::SessionStart | HookEvent::SessionEnd);
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
                    if own {
                        lifecycle.push((event.clone(), matcher.matcher.clone(), id.clone()));
                    }
                    ids.push(id);
                }
                if own {
                    continue;
                }
                wire.entry(event.as_str().to_owned())
                    .or_default()
                    .push(HookCallbackMatcher {
                        matcher: Some(matcher.matcher.clone()),
                        hook_callback_ids: ids,
                        timeout: matcher.timeout.map(|t| t.as_secs_f64().ceil() as u64),
                        ..HookCallbackMatcher::default()
                    });
            }
        }
        let wire = (!wire.is_empty()).then_some(wire);
        let control = Self {
            host,
            permission_timeout,
            hooks: registered,
            mcp,
            watch,
            lifecycle,
            parking: None,
            record: None,
        };
        (control, wire)
    }

    /// Parks the requests callbacks park in `parking`, for the session `session_id` (when
    /// known before the CLI says it) in `cwd`.
    pub(crate) fn with_parking(
        mut self,
        parking: Option<Parking>,
        session_id: Option<String>,
        cwd: PathBuf,
        record: Option<std::sync::Weak<super::reattach::LiveRecord>>,
    ) -> Self {
        self.parking = parking.map(|parking| (parking, session_id, cwd));
        self.record = record;
        self
    }

    /// The parking, with the session's id and directory as the CLI named them.
    fn parked_where(&self) -> Option<(Parking, Option<String>, PathBuf)> {
        let (parking, id, cwd) = self.parking.clone()?;
        Some(match self.watch.session() {
            Some((id, cwd)) => (parking, Some(id), PathBuf::from(cwd)),
            None => (parking, id, cwd),
        })
    }

    /// Whether options gave callbacks for `event` that the host calls itself.
    pub(crate) fn has_lifecycle(&self, event: &HookEvent) -> bool {
        self.lifecycle.iter().any(|(e, ..)| e == event)
    }

    /// Calls the `SessionStart` or `SessionEnd` callbacks whose matcher takes `subject` (the
    /// start's source, the end's reason), one after the other, each within its timeout: the
    /// outputs of those that answered. One that fails is logged and passed over: these events
    /// guard nothing.
    pub(crate) async fn call_lifecycle(
        &self,
        event: HookEvent,
        subject: &str,
        input: twinwire_protocol::hooks::HookInput,
    ) -> Vec<HookOutput> {
        let mut outputs = Vec::new();
        for (_, matcher, id) in self.lifecycle.iter().filter(|(e, ..)| *e == event) {
            if !lifecycle_matches(matcher.as_deref(), subject) {
                continue;
            }
            let Some(hook) = self.hooks.get(id) else {
                continue;
            };
            let call = HookCall {
                callback_id: id.clone(),
                event: event.clone(),
                input: input.clone(),
                cx: HookContext {
                    tool_use_id: None,
                    cancel: tokio_util::sync::CancellationToken::new(),
                },
                registered: Some(Arc::clone(&hook.callback)),
            };
            let call = std::panic::catch_unwind(AssertUnwindSafe(|| self.host.hook(call)));
            let outcome = match call {
                Ok(call) => guarded(call, Some(hook.timeout)).await,
                Err(panic) => Err(format!(
                    "panicked: {}",
                    crate::engine::panic_message(&*panic)
                )),
            };
            match outcome {
                Ok(output) => outputs.push(output),
                Err(reason) => tracing::warn!(event = %event, %reason, "hook callback failed"),
            }
        }
        outputs
    }
}

/// Whether a lifecycle matcher takes `subject`: none, empty or `*` takes everything, else one
/// of its names joined by `|`.
fn lifecycle_matches(matcher: Option<&str>, subject: &str) -> bool {
    match matcher.map(str::trim) {
        None | Some("" | "*") => true,
        Some(names) => names.split('|').any(|name| name.trim() == subject),
    }
}

impl ControlHandler for HostControl {
    fn handle(
        &self,
        request: ControlRequestBody,
        cx: RequestContext,
    ) -> BoxFuture<'static, Answer> {
        let answer = match request {
            ControlRequestBody::CanUseTool(request) => self.permission(*request, cx),
            ControlRequestBody::HookCallback(request) => self.hook(*request, cx),
            ControlRequestBody::McpMessage(request) => match &self.mcp {
                Some(router) if router.serves(&request.server_name) => {
                    let router = Arc::clone(router);
                    Box::pin(async move {
                        let response = router.handle(&request.server_name, request.message).await?;
                        to_payload(&McpMessageResponse {
                            mcp_response: response,
                            extra: Default::default(),
                        })
                    })
                }
                _ => self
                    .host
                    .mcp_message(request.server_name, request.message, cx.cancel),
            },
            ControlRequestBody::Elicitation(request) => self.elicit(request, cx),
            ControlRequestBody::RequestUserDialog(request) => self.dialog(request, cx),
            other => self.host.request(other, cx),
        };
        Box::pin(answer.map(Answer::Respond))
    }
}

impl HostControl {
    fn permission(
        &self,
        request: CanUseToolRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let input = request.input.clone();
        let tool = request.tool_name.clone();
        let host = Arc::clone(&self.host);
        let timeout = self.permission_timeout;
        let call_id = request.tool_use_id.as_deref();
        let span = trace::permission(&self.watch.parent_for(call_id), &tool, call_id);
        if let Some(id) = call_id {
            self.watch.asked(id, asked(&request));
        }
        let watch = Arc::clone(&self.watch);
        let answered_id = request.tool_use_id.clone();
        let parking = self
            .parked_where()
            .map(|p| (p, request.clone(), cx.cancel.clone()));
        let record = self.record.clone();
        // A Host may panic before it returns its future, as well as while it runs.
        let call = span.in_scope(|| {
            std::panic::catch_unwind(AssertUnwindSafe(|| {
                host.can_use_tool(PermissionRequest {
                    request,
                    cancel: cx.cancel.clone(),
                })
            }))
        });
        let traced = span.clone();
        let answer = async move {
            let outcome = match call {
                Ok(call) => match called(call, timeout).await {
                    Called::Answer(answer) => Ok(answer),
                    Called::Park => match parking {
                        Some(((parking, session, cwd), request, cancel)) => {
                            // In the record while parked, for a re-attach after a crash.
                            let _waiting = record.as_ref().and_then(|record| {
                                super::reattach::Waiting::start(
                                    record,
                                    request.tool_use_id.clone(),
                                    request.tool_name.clone(),
                                )
                            });
                            parking.permission(session, cwd, &request, cancel).await
                        }
                        None => Err(Park.to_string()),
                    },
                    Called::Failed(reason) => Err(reason),
                },
                Err(panic) => Err(format!(
                    "panicked: {}",
                    crate::engine::panic_message(&*panic)
                )),
            };
            let failed = outcome.is_err();
            let result = match outcome {
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
                    trace::record_error(&traced, "callback_failed");
                    PermissionResult::deny(format!("permission callback failed: {reason}"))
                }
            };
            traced.record("twinwire.permission.behavior", behavior(&result));
            if let Some(id) = &answered_id {
                let (allowed, message) = match &result {
                    PermissionResult::Allow(_) => (true, None),
                    PermissionResult::Deny(deny) => (false, Some(deny.message.clone())),
                    _ => (false, None),
                };
                watch.answered(id, allowed, message, failed);
            }
            to_payload(&result)
        };
        Box::pin(answer.instrument(span))
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
        let timeout = hook.timeout;
        let call_id = request.tool_use_id.as_deref();
        let span = trace::hook(
            &self.watch.parent_for(call_id),
            event.as_str(),
            &request.callback_id,
            call_id,
        );
        let watch = Arc::clone(&self.watch);
        let decided = (request.tool_use_id.clone(), request.callback_id.clone());
        let parking = self.parked_where().map(|p| {
            let parked = (
                event.as_str().to_owned(),
                serde_json::to_value(&request.input),
            );
            (p, parked, request.tool_use_id.clone(), cx.cancel.clone())
        });
        let call = HookCall {
            callback_id: request.callback_id,
            event: event.clone(),
            input: request.input,
            cx: HookContext {
                tool_use_id: request.tool_use_id,
                cancel: cx.cancel,
            },
            registered: Some(Arc::clone(&hook.callback)),
        };
        let call =
            span.in_scope(|| std::panic::catch_unwind(AssertUnwindSafe(|| self.host.hook(call))));
        let traced = span.clone();
        let answer = async move {
            let outcome = match call {
                Ok(call) => match called(call, Some(timeout)).await {
                    Called::Answer(output) => Ok(output),
                    Called::Park => match parking {
                        Some((
                            (parking, session, cwd),
                            (event, Ok(input)),
                            tool_use_id,
                            cancel,
                        )) => {
                            parking
                                .hook(session, cwd, event, input, tool_use_id, cancel)
                                .await
                        }
                        Some((_, (_, Err(err)), ..)) => Err(format!("the hook's input: {err}")),
                        None => Err(Park.to_string()),
                    },
                    Called::Failed(reason) => Err(reason),
                },
                Err(panic) => Err(format!(
                    "panicked: {}",
                    crate::engine::panic_message(&*panic)
                )),
            };
            let output = match outcome {
                Ok(output) => output,
                Err(reason) => {
                    tracing::warn!(event = %event, %reason, "hook callback failed");
                    trace::record_error(&traced, "callback_failed");
                    match failure {
                        HookFailure::Block => blocking_output(&event, &reason),
                        HookFailure::Continue => {
                            return Err(HandlerError::new(format!(
                                "hook callback failed: {reason}"
                            )))
                        }
                    }
                }
            };
            if let (Some(id), Some((allowed, message))) = (&decided.0, permission_of(&output)) {
                watch.hooked(id, &decided.1, allowed, message);
            }
            to_payload(&output)
        };
        Box::pin(answer.instrument(span))
    }

    /// An elicitation: the host's answer, or declined when it fails.
    fn elicit(
        &self,
        request: ElicitationRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.host.elicitation(request, cx.cancel)
        }));
        Box::pin(async move {
            let outcome = match call {
                Ok(call) => guarded(call, None).await,
                Err(panic) => Err(crate::engine::panic_message(&*panic)),
            };
            let response = outcome.unwrap_or_else(|reason| {
                tracing::warn!(%reason, "elicitation callback failed: declining");
                decline()
            });
            to_payload(&response)
        })
    }

    /// A dialog: the host's answer, or cancelled (the CLI then applies its default) when it
    /// fails.
    fn dialog(
        &self,
        request: RequestUserDialogRequest,
        cx: RequestContext,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let kind = request.dialog_kind.clone();
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.host.user_dialog(request, cx.cancel)
        }));
        Box::pin(async move {
            let outcome = match call {
                Ok(call) => guarded(call, None).await,
                Err(panic) => Err(crate::engine::panic_message(&*panic)),
            };
            let response = outcome.unwrap_or_else(|reason| {
                tracing::warn!(%reason, kind, "user dialog callback failed: cancelling");
                cancelled()
            });
            to_payload(&response)
        })
    }
}

/// Why the CLI asked, from its `can_use_tool` request.
fn asked(request: &CanUseToolRequest) -> AskedHost {
    let rule = request.matched_ask_rule.as_ref();
    AskedHost {
        reason: request.decision_reason.clone(),
        reason_type: request
            .decision_reason_type
            .as_ref()
            .map(|t| t.as_str().to_owned()),
        matched_rule: rule.map(|rule| match &rule.rule_content {
            Some(content) => format!("{}({content})", rule.tool_name),
            None => rule.tool_name.clone(),
        }),
        matched_rule_source: rule.map(|rule| rule.source.clone()),
        blocked_path: request.blocked_path.clone(),
    }
}

/// A `PreToolUse` hook's permission decision: allowed or not, and its reason; `None` when it
/// leaves the decision to the rest of the flow.
fn permission_of(output: &HookOutput) -> Option<(bool, Option<String>)> {
    let Some(HookSpecificOutput::PreToolUse(pre)) = &output.hook_specific_output else {
        return None;
    };
    let allowed = match pre.permission_decision.as_ref()? {
        HookPermissionDecision::Allow => true,
        HookPermissionDecision::Deny => false,
        _ => return None,
    };
    Some((allowed, pre.permission_decision_reason.clone()))
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

/// What a callback came to.
enum Called<T> {
    /// Its answer.
    Answer(T),
    /// It parked the request ([`Park`]).
    Park,
    /// It failed, panicked or timed out: why.
    Failed(String),
}

/// Runs a callback with an optional timeout, turning errors, panics and timeouts into a reason.
async fn called<T>(
    call: BoxFuture<'static, Result<T, CallbackError>>,
    timeout: Option<Duration>,
) -> Called<T> {
    let call = AssertUnwindSafe(call).catch_unwind();
    let outcome = match timeout {
        Some(limit) => match tokio::time::timeout(limit, call).await {
            Ok(outcome) => outcome,
            Err(_) => return Called::Failed(format!("timed out after {limit:?}")),
        },
        None => call.await,
    };
    match outcome {
        Ok(Ok(value)) => Called::Answer(value),
        Ok(Err(err)) if is_park(&err) => Called::Park,
        Ok(Err(err)) => Called::Failed(err.to_string()),
        Err(panic) => Called::Failed(format!(
            "panicked: {}",
            crate::engine::panic_message(&*panic)
        )),
    }
}

/// [`called`], where parking is not offered: a park is a failure that says so.
async fn guarded<T>(
    call: BoxFuture<'static, Result<T, CallbackError>>,
    timeout: Option<Duration>,
) -> Result<T, String> {
    match called(call, timeout).await {
        Called::Answer(value) => Ok(value),
        Called::Park => Err(Park.to_string()),
        Called::Failed(reason) => Err(reason),
    }
}

/// The permission's behavior for its span: `allow`, `deny`, or what else it said.
fn behavior(result: &PermissionResult) -> &str {
    match result {
        PermissionResult::Allow(_) => "allow",
        PermissionResult::Deny(_) => "deny",
        PermissionResult::Unknown(unknown) => &unknown.tag,
        _ => "other",
    }
}

fn to_payload<T: Serialize>(value: &T) -> Result<Value, HandlerError> {
    serde_json::to_value(value).map_err(|err| HandlerError::new(err.to_string()))
}
