//! One model call of a turn: the request built from the session, the reply streamed to the
//! host (each event a `stream_event` with `--include-partial-messages`, each completed block
//! its own `assistant` frame and session entry), the usage counted. An interrupt closes the
//! stream; what arrived stays in the conversation.

use std::time::Instant;

use serde_json::{json, Map};
use twinwire::agent::frames;
use twinwire_protocol::content::{ApiMessage, ContentBlock, MessageParam, UserContent};
use twinwire_protocol::system::ApiRetry;
use twinwire_protocol::{AssistantMessageError, Message};

use super::context::TurnContext;
use super::outcome::{End, Tally};
use crate::mcp::search;
use crate::model::assemble::Assembler;
use crate::model::{MessagesRequest, ModelError, RetryNotice, SystemBlock};
use crate::prompt;

/// Makes one call; the reply joins the conversation.
pub(crate) async fn call(cx: &TurnContext, tally: &mut Tally) -> Result<ApiMessage, End> {
    let request = request(cx);
    cx.emit(&frames::requesting(&cx.session_id));
    let called = Instant::now();
    let retry_peer = cx.peer.clone();
    let retry_id = cx.session_id.clone();
    let start = cx.session.client.stream(&request, move |notice| {
        let _ = retry_peer.emit(&api_retry(&retry_id, &notice));
    });
    let mut stream = tokio::select! {
        biased;
        () = cx.cancel.cancelled() => return Err(End::Interrupted { tools: false }),
        started = start => match started {
            Ok(stream) => stream,
            Err(err) => return Err(failed(cx, err)),
        },
    };
    let request_id = stream.request_id().map(str::to_owned);
    let mut assembler = Assembler::new();
    let partial = cx.session.config.include_partial_messages;
    let mut first = true;
    let outcome = loop {
        let event = tokio::select! {
            biased;
            () = cx.cancel.cancelled() => break Err(End::Interrupted { tools: false }),
            event = stream.next() => event,
        };
        let event = match event {
            None => break Ok(()),
            Some(Err(err)) => break Err(failed(cx, err)),
            Some(Ok(event)) => event,
        };
        let ttft = first.then(|| u64::try_from(called.elapsed().as_millis()).unwrap_or(0));
        if first {
            tally.ttft_ms.get_or_insert(ttft.unwrap_or(0));
            first = false;
        }
        match assembler.apply(&event) {
            Ok(completed) => {
                if partial {
                    let id = assembler.message_id().to_owned();
                    cx.emit(&frames::stream_event(
                        &cx.session_id,
                        event,
                        Some(&id),
                        ttft,
                    ));
                }
                if let Some(block) = completed {
                    assistant_block(cx, &assembler, block, request_id.as_deref(), false);
                }
            }
            Err(why) => break Err(failed(cx, ModelError::Stream(why))),
        }
    };
    tally.api_ms += u64::try_from(called.elapsed().as_millis()).unwrap_or(0);
    tally.request_id = request_id.clone();
    let usage = assembler.usage();
    tally.add_usage(&usage);
    {
        let mut state = cx.session.state();
        state.charge(&cx.model, &usage);
        if matches!(cx.thread, crate::thread::Thread::Main) {
            state.context_tokens = Some(crate::compaction::context_tokens(&usage));
        }
    }
    let mut reply = assembler.message();
    match outcome {
        Err(End::Interrupted { tools }) => {
            // What arrived stays in the conversation (the text cut off midway too, written as
            // an aborted frame, as Claude Code does), less calls that will not run.
            for block in assembler.open_text() {
                assistant_block(cx, &assembler, block.clone(), request_id.as_deref(), true);
                reply.content.push(block);
            }
            reply
                .content
                .retain(|b| !matches!(b, ContentBlock::ToolUse(_)));
            keep(cx, &reply);
            Err(End::Interrupted { tools })
        }
        Err(end) => Err(end),
        Ok(()) if !assembler.is_complete() => Err(failed(
            cx,
            ModelError::Stream("the reply ended before message_stop".into()),
        )),
        Ok(()) => {
            for (id, why) in assembler.invalid_inputs() {
                tracing::warn!(%id, %why, "a tool call whose input could not be read");
            }
            keep(cx, &reply);
            Ok(reply)
        }
    }
}

/// Writes one completed block as its own assistant frame (the reply's fields with this one
/// block) and saves it; an `aborted` block was cut off by an interrupt.
fn assistant_block(
    cx: &TurnContext,
    assembler: &Assembler,
    block: ContentBlock,
    request_id: Option<&str>,
    aborted: bool,
) {
    let mut message = assembler.message_meta();
    message.content = vec![block];
    let mut frame = frames::assistant(&cx.session_id, message.clone());
    frame.request_id = request_id.map(str::to_owned);
    frame.aborted = aborted.then_some(true);
    let uuid = frame.uuid.clone();
    cx.emit(&Message::Assistant(Box::new(frame)));
    if !aborted {
        let message = serde_json::to_value(message).unwrap_or_default();
        cx.thread
            .record_assistant(&cx.session, &uuid, message, request_id);
    }
}

/// The reply joins the conversation.
fn keep(cx: &TurnContext, reply: &ApiMessage) {
    if reply.content.is_empty() {
        return;
    }
    cx.thread.push_assistant(
        &cx.session,
        MessageParam {
            role: "assistant".into(),
            content: UserContent::Blocks(reply.content.clone()),
            extra: Map::new(),
        },
    );
}

/// A failed call: the error frame Claude Code writes, and the turn's end. A request too
/// long for the window is left to the turn (it compacts and tries again) without a frame.
fn failed(cx: &TurnContext, error: ModelError) -> End {
    if crate::compaction::is_prompt_too_long(&error) {
        return End::TooLong(error);
    }
    error_frame(cx, &error);
    End::Api(error)
}

/// The assistant frame Claude Code writes for a failed call.
pub(crate) fn error_frame(cx: &TurnContext, error: &ModelError) {
    let mut text = error.to_string();
    if error.status().is_some_and(|s| s >= 500) {
        text.push_str(". This is a server-side issue, usually temporary; try again in a moment.");
    }
    cx.emit(&frames::api_error(
        &cx.session_id,
        &text,
        error_kind(error),
        error.status(),
    ));
}

/// The kind of a failed call, as Claude Code names it on the assistant frame and in
/// `StopFailure`.
pub(crate) fn error_kind(error: &ModelError) -> AssistantMessageError {
    match error.status() {
        Some(401) | Some(403) => AssistantMessageError::AuthenticationFailed,
        Some(429) => AssistantMessageError::RateLimit,
        Some(500..=599) => AssistantMessageError::ServerError,
        _ => AssistantMessageError::Unknown,
    }
}

/// `system/api_retry` for a call that will be made again.
fn api_retry(session_id: &str, notice: &RetryNotice) -> Message {
    let error = match notice.status {
        Some(429) => AssistantMessageError::RateLimit,
        Some(401) | Some(403) => AssistantMessageError::AuthenticationFailed,
        Some(_) => AssistantMessageError::ServerError,
        None => AssistantMessageError::Unknown,
    };
    frames::api_retry(
        session_id,
        ApiRetry {
            attempt: u64::from(notice.attempt),
            max_retries: u64::from(notice.max_retries),
            retry_delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
            error_status: notice.status.map(u64::from),
            error,
            no_response: None,
            uuid: String::new(),
            session_id: String::new(),
            extra: Map::new(),
        },
    )
}

/// The request for the next call, with the options Claude Code gives the model: the
/// thread's conversation and system prompt, the tools (MCP tools behind tool search named in
/// the system prompt), thinking as the session asked for it.
pub(crate) fn request(cx: &TurnContext) -> MessagesRequest {
    let messages = cx.thread.conversation(&cx.session);
    let state = cx.session.state();
    let mut system = cx.thread.system().unwrap_or_else(|| {
        prompt::styled(
            state.system_prompt.as_deref(),
            state.append_system_prompt.as_deref(),
            &state.memory,
            state.style.as_ref().map(|s| s.instructions.as_str()),
            state.json_schema.is_some(),
        )
    });
    let mut options = crate::model::options::for_model(&cx.model, state.thinking_tokens);
    if let (Some(thinking), Some(display)) = (&mut options.thinking, &state.thinking_display) {
        thinking["display"] = json!(display);
    }
    let always_loaded = state.always_loaded.clone();
    // A tool's description may read the state (the Task tool lists the agents): the lock is
    // let go first.
    drop(state);
    let searching = search::enabled(cx.session.config.var("ENABLE_TOOL_SEARCH").as_deref());
    let (tools, named) = cx
        .session
        .search
        .split(&cx.tools, &always_loaded, searching);
    if !named.is_empty() {
        system.push(SystemBlock::text(search::listing(&named)));
    }
    MessagesRequest {
        model: cx.model.clone(),
        max_tokens: options.max_tokens,
        system,
        messages,
        tools,
        thinking: options.thinking,
        context_management: Some(options.context_management),
        output_config: options.output_config,
        stream: true,
        metadata: Some(json!({"user_id": prompt::user_id(&cx.session_id)})),
    }
    .with_cache_breakpoints()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_retry_notice_reads_back_as_api_retry() {
        let notice = RetryNotice {
            attempt: 1,
            max_retries: 3,
            delay: Duration::from_millis(500),
            status: Some(529),
            error: "overloaded".into(),
        };
        let frame = api_retry("s", &notice);
        let line = serde_json::to_string(&frame).unwrap();
        let read = Message::decode(&line).unwrap();
        assert_eq!(read.value.kind(), "system/api_retry");
        assert!(read.repairs.is_empty(), "{:?}", read.repairs);
        assert!(line.contains("\"retry_delay_ms\":500"), "{line}");
    }
}
