//! The spans twinwire opens, named and filled after OpenTelemetry's GenAI semantic conventions
//! (`gen_ai.*`), and, with the feature `opentelemetry`, the W3C trace context the CLI gets.
//!
//! Every span has the target `twinwire::trace` and the level `INFO`: a subscriber filters them
//! as one (`twinwire::trace=info`). With no subscriber listening, or one that filters them out,
//! a span macro costs a cached check and records nothing; none is opened per line of output
//! (see docs/tracing.md).

use tracing::field::Empty;
use tracing::Span;
use twinwire_protocol::control::RequestId;

pub(crate) use crate::error::error_type;

/// `gen_ai.provider.name` (and the older `gen_ai.system`): who serves the model.
pub(crate) const PROVIDER: &str = "anthropic";

/// Which way a control request went.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Direction {
    /// We asked the peer.
    Outgoing,
    /// The peer asked us.
    Incoming,
}

impl Direction {
    fn as_str(self) -> &'static str {
        match self {
            Self::Outgoing => "outgoing",
            Self::Incoming => "incoming",
        }
    }
}

/// The span of a whole session, from the spawn (or the start of serving) to its close.
/// `side` is `host` or `agent`.
pub(crate) fn session(side: &'static str, request_model: Option<&str>) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        "session",
        twinwire.side = side,
        gen_ai.provider.name = PROVIDER,
        gen_ai.system = PROVIDER,
        gen_ai.request.model = request_model,
        gen_ai.response.model = Empty,
        gen_ai.conversation.id = Empty,
        error.type = Empty,
    )
}

/// The span of one turn: a prompt sent to its `result`.
pub(crate) fn turn(parent: &Span, request_model: Option<&str>) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "invoke_agent",
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = PROVIDER,
        gen_ai.system = PROVIDER,
        gen_ai.request.model = request_model,
        gen_ai.response.model = Empty,
        gen_ai.conversation.id = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        twinwire.usage.cost_usd = Empty,
        twinwire.usage.subagents = Empty,
        twinwire.usage.subagent_input_tokens = Empty,
        twinwire.usage.subagent_output_tokens = Empty,
        error.type = Empty,
    )
}

/// The span of one tool use: its `tool_use` block seen to its `tool_result` (for a call that
/// runs a subagent in the background, to the task's end), with the subagent's usage.
pub(crate) fn tool(parent: &Span, name: &str, call_id: &str) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "execute_tool",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = call_id,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
    )
}

/// The span of the host's permission callback for one tool use.
pub(crate) fn permission(parent: &Span, tool: &str, call_id: Option<&str>) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "can_use_tool",
        gen_ai.tool.name = tool,
        gen_ai.tool.call.id = call_id,
        twinwire.permission.behavior = Empty,
        error.type = Empty,
    )
}

/// The span of one tool call's permission decision: who decided, and whether it ran. It opens
/// and ends when the decision is known (the tool's result), under the tool use's span.
pub(crate) fn decision(parent: &Span, tool: &str, call_id: &str) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "permission_decision",
        gen_ai.tool.name = tool,
        gen_ai.tool.call.id = call_id,
        twinwire.permission.verdict = Empty,
        twinwire.permission.decided_by = Empty,
        twinwire.permission.rule = Empty,
        twinwire.permission.rule_source = Empty,
        twinwire.permission.mode = Empty,
        twinwire.permission.hook = Empty,
        twinwire.permission.reported = Empty,
    )
}

/// The span of one hook callback.
pub(crate) fn hook(parent: &Span, event: &str, callback_id: &str, call_id: Option<&str>) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "hook",
        twinwire.hook.event = event,
        twinwire.hook.callback_id = callback_id,
        gen_ai.tool.call.id = call_id,
        error.type = Empty,
    )
}

/// The span of one control round trip: the request to its response, either way.
pub(crate) fn control(parent: &Span, direction: Direction, subtype: &str) -> Span {
    tracing::info_span!(
        target: "twinwire::trace",
        parent: parent,
        "control",
        twinwire.control.direction = direction.as_str(),
        twinwire.control.subtype = subtype,
        twinwire.control.request_id = Empty,
        error.type = Empty,
    )
}

/// Records the id of a control request on its span.
pub(crate) fn record_request_id(span: &Span, id: &RequestId) {
    if !span.is_disabled() {
        span.record("twinwire.control.request_id", tracing::field::display(id));
    }
}

/// Records `error.type` on `span`: a short, stable name of what went wrong.
pub(crate) fn record_error(span: &Span, error_type: &str) {
    span.record("error.type", error_type);
}

/// The W3C trace context of `span` as the CLI's `TRACEPARENT` and `TRACESTATE`, when the span
/// has a valid OpenTelemetry context (an OpenTelemetry layer records it). `TRACESTATE` is
/// removed when the context has none, so that an inherited one does not travel with a
/// different parent.
#[cfg(feature = "opentelemetry")]
pub(crate) fn context_env(span: &Span) -> Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> {
    use opentelemetry::trace::TraceContextExt;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    let context = span.context();
    let otel_span = context.span();
    let span_context = otel_span.span_context();
    if !span_context.is_valid() {
        return Vec::new();
    }
    let traceparent = format!(
        "00-{}-{}-{:02x}",
        span_context.trace_id(),
        span_context.span_id(),
        span_context.trace_flags().to_u8()
    );
    let tracestate = span_context.trace_state().header();
    vec![
        ("TRACEPARENT".into(), Some(traceparent.into())),
        (
            "TRACESTATE".into(),
            (!tracestate.is_empty()).then(|| tracestate.into()),
        ),
    ]
}

/// Without the feature `opentelemetry`, the CLI inherits whatever trace context the host's
/// environment has.
#[cfg(not(feature = "opentelemetry"))]
pub(crate) fn context_env(_span: &Span) -> Vec<(std::ffi::OsString, Option<std::ffi::OsString>)> {
    Vec::new()
}

#[cfg(test)]
pub(crate) mod tests;
