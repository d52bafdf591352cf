//! One turn: the prompt, then model calls and tool runs until the model ends the turn (or a
//! limit, an interrupt or an error does), then the `result` it returns for twinwire's agent
//! side to write.
//!
//! Before each model call the messages that arrived meanwhile are injected (twinwire's queue,
//! `system/injected`) and the turn's view of the session is read again ([`TurnContext`]). An
//! interrupt closes the HTTP stream (the call is dropped) or stops the running tools (Bash's
//! process group is killed); the turn then writes Claude Code's interrupted-turn marker and
//! ends with an aborted result.

mod context;
mod local;
pub(crate) mod model_call;
mod outcome;
pub(crate) mod tool_calls;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Map};
use twinwire::agent::frames::{self, new_id};
use twinwire::agent::Peer;
use twinwire_protocol::content::UserContent;
use twinwire_protocol::result::ResultMessage;
use twinwire_protocol::UserMessage;

pub(crate) use context::TurnContext;
use outcome::Totals;
pub(crate) use outcome::{End, Tally};
use tool_calls::Outcome;

use crate::commands::{self, Command};
use crate::compaction::{self, Trigger};
use crate::refusal;
use crate::session::Session;
use crate::tools::STRUCTURED_OUTPUT;

/// How often the model is reminded to give structured output before the turn fails.
const STRUCTURED_RETRIES: u32 = 3;

/// Runs a turn to its `result`.
pub(crate) async fn run(session: Arc<Session>, message: UserMessage, peer: Peer) -> ResultMessage {
    let mut tally = Tally::new();
    let end = match begin(&session, &peer, message).await {
        Ok(()) => drive(&session, &peer, &mut tally).await,
        Err(end) => end,
    };
    if let End::Api(error) | End::TooLong(error) = &end {
        stop_failure(&session, &peer, error).await;
    }
    finish(&session, &peer, end, tally)
}

/// The prompt echoed when asked, the hooks on the prompt, the prompt into the conversation.
async fn begin(session: &Arc<Session>, peer: &Peer, message: UserMessage) -> Result<(), End> {
    let cx = TurnContext::read(session, peer);
    let uuid = message.uuid.clone().unwrap_or_else(new_id);
    if session.config.replay_user_messages {
        let content = message.message.content.clone();
        cx.emit(&frames::replay(&cx.session_id, &uuid, content));
    }
    let first = {
        let mut state = session.state();
        let first = state.started.is_none();
        state.started = Some(state.source);
        first.then_some(state.source)
    };
    if let Some(source) = first {
        let mut fields = Map::new();
        fields.insert("source".into(), json!(source));
        let report = cx.fire("SessionStart", None, fields, None).await;
        if !report.context.is_empty() {
            session
                .state()
                .push_user(UserContent::Text(report.context.join("\n\n")));
        }
        instructions_loaded(&cx, session).await;
    }
    let prompt = message.message.content.joined_text();
    let roots = commands::roots(session.store.config_dir(), &session.config.cwd);
    let command = commands::parse(&prompt, &roots);
    if let Some(own @ (Command::Compact(_) | Command::Clear)) = command {
        return Err(local::run(session, peer, own).await);
    }
    let mut fields = Map::new();
    fields.insert("prompt".into(), json!(prompt));
    let report = cx.fire("UserPromptSubmit", None, fields, None).await;
    if let Some(reason) = report.stop.clone() {
        return Err(End::Stopped(reason));
    }
    if let Some(reason) = report.block {
        return Err(End::Stopped(format!(
            "The prompt was blocked by a hook: {reason}"
        )));
    }
    let mut content = message.message.content;
    if let Some(Command::Expanded { name, args, text }) = command {
        let mut fields = Map::new();
        fields.insert("expansion_type".into(), json!("slash_command"));
        fields.insert("command_name".into(), json!(name));
        fields.insert("command_args".into(), json!(args));
        fields.insert("prompt".into(), json!(prompt));
        let report = cx
            .fire("UserPromptExpansion", Some(&name), fields, None)
            .await;
        if let Some(reason) = report.stop.or(report.block) {
            return Err(End::Stopped(reason));
        }
        content = UserContent::Text(text);
    }
    for context in report.context {
        crate::transcript::append(&mut content, UserContent::Text(context));
    }
    session.checkpoints.prompt(&uuid);
    session.record_user(&uuid, content, Map::new());
    crate::prompt::note_environment(session);
    crate::plan_mode::remind(session);
    Ok(())
}

/// `InstructionsLoaded`, once for each memory file the session started with (in the order
/// the model reads them), its matcher taking the load reason.
async fn instructions_loaded(cx: &TurnContext, session: &Session) {
    let files = session.state().memory.clone();
    for file in files {
        let reason = if file.imported_by.is_some() {
            "include"
        } else {
            "session_start"
        };
        let mut fields = Map::new();
        fields.insert("file_path".into(), json!(file.path.display().to_string()));
        fields.insert("memory_type".into(), json!(file.kind.name()));
        fields.insert("load_reason".into(), json!(reason));
        if let Some(parent) = &file.imported_by {
            fields.insert(
                "parent_file_path".into(),
                json!(parent.display().to_string()),
            );
        }
        cx.fire("InstructionsLoaded", Some(reason), fields, None)
            .await;
    }
}

/// `StopFailure`: the turn ends on an API error; the matcher takes the error's kind.
async fn stop_failure(session: &Arc<Session>, peer: &Peer, error: &crate::model::ModelError) {
    let cx = TurnContext::read(session, peer);
    let kind = model_call::error_kind(error);
    let mut fields = Map::new();
    fields.insert("error".into(), json!(kind));
    fields.insert("error_details".into(), json!(error.to_string()));
    let kind = serde_json::to_value(&kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned));
    cx.fire("StopFailure", kind.as_deref(), fields, None).await;
}

/// Model calls and tool runs until the turn ends.
async fn drive(session: &Arc<Session>, peer: &Peer, tally: &mut Tally) -> End {
    let config = &session.config;
    let mut reminders = 0u32;
    let (mut refusals, mut compacted) = (0u32, false);
    let mut first_step = true;
    let held = session.state().context_tokens;
    if let (Some(threshold), Some(held)) = (compaction::threshold(config), held) {
        if held >= threshold {
            compacted = true;
            if let Err(why) = compaction::compact(session, peer, Trigger::Auto, None, true).await {
                tracing::warn!(%why, "the context could not be compacted");
            }
        }
    }
    loop {
        if peer.interrupted().is_cancelled() {
            return End::Interrupted { tools: false };
        }
        // A message that came during the turn joins it between two steps, never before the
        // first call: until then the host may still withdraw it (`cancel_async_message`).
        if !first_step {
            if let Some(queued) = peer.take_queued() {
                let uuid = queued.uuid.clone().unwrap_or_else(new_id);
                session.record_user(&uuid, queued.message.content, Map::new());
            }
        }
        first_step = false;
        if let Some(max) = config.max_turns.filter(|max| tally.num_turns >= *max) {
            return End::MaxTurns(max);
        }
        let spent = session.state().cost_usd;
        if let Some(max) = config.max_budget_usd.filter(|max| spent >= *max) {
            return End::Budget(max);
        }
        {
            let mut state = session.state();
            let notes =
                crate::tools::between_steps(&session.workspace, &state.conversation, &state.tools);
            for note in notes {
                state.push_system(note);
            }
        }
        let cx = TurnContext::read(session, peer);
        let reply = match model_call::call(&cx, tally).await {
            Ok(reply) => reply,
            Err(End::TooLong(error)) if !compacted => {
                // Compacted, then asked again, once; the prompt being answered is kept.
                compacted = true;
                let keep = !session.state().conversation.last().is_some_and(has_results);
                match compaction::compact(session, peer, Trigger::Auto, None, keep).await {
                    Ok(_) => continue,
                    Err(why) => {
                        tracing::warn!(%why, "the context could not be compacted");
                        model_call::error_frame(&cx, &error);
                        return End::Api(error);
                    }
                }
            }
            Err(End::TooLong(error)) => {
                model_call::error_frame(&cx, &error);
                return End::Api(error);
            }
            Err(end) => return end,
        };
        tally.num_turns += 1;
        if refusal::refused(&reply) {
            refusals += 1;
            let model = cx.model.clone();
            let request_id = tally.request_id.clone();
            match refusal::after(
                session,
                peer,
                &reply,
                &model,
                refusals,
                request_id.as_deref(),
            )
            .await
            {
                refusal::Next::Again | refusal::Next::Fallback => continue,
                refusal::Next::Fail(text) => {
                    tally.stop_reason = Some("refusal".to_owned());
                    return End::Refused(text);
                }
            }
        }
        refusals = 0;
        let calls: Vec<_> = reply.tool_uses().cloned().collect();
        let text = reply.text();
        if !text.is_empty() {
            tally.last_text = text;
        }
        tally.stop_reason = reply.stop_reason.as_ref().map(|r| r.to_string());
        if calls.is_empty() {
            if session.state().json_schema.is_some() && tally.structured.is_none() {
                reminders += 1;
                if reminders > STRUCTURED_RETRIES {
                    return End::StructuredRetries;
                }
                let reminder =
                    format!("Give the final answer now by calling the {STRUCTURED_OUTPUT} tool.");
                session.record_user(&new_id(), UserContent::Text(reminder), Map::new());
                continue;
            }
            match stop_hooks(&cx).await {
                Some(reason) => {
                    session.record_user(&new_id(), UserContent::Text(reason), Map::new());
                    continue;
                }
                None => return End::Done,
            }
        }
        let done = tool_calls::run_all(&cx, calls).await;
        tally.denials.extend(done.denials);
        if done.structured.is_some() {
            tally.structured = done.structured;
        }
        match done.outcome {
            Outcome::Continue => {}
            Outcome::Interrupted => return End::Interrupted { tools: true },
            Outcome::Stopped(reason) => return End::Stopped(reason),
        }
        if tally.structured.is_some() {
            return End::Done;
        }
    }
}

/// Whether a message carries tool results (which cannot stand without their calls).
fn has_results(message: &twinwire_protocol::content::MessageParam) -> bool {
    matches!(&message.content, UserContent::Blocks(blocks)
        if blocks.iter().any(|b| matches!(b, twinwire_protocol::content::ContentBlock::ToolResult(_))))
}

/// `Stop` hooks: a reason to go on, when one blocks the stop.
async fn stop_hooks(cx: &TurnContext) -> Option<String> {
    if !cx.hooks.has("Stop") {
        return None;
    }
    let mut fields = Map::new();
    fields.insert("stop_hook_active".into(), json!(false));
    cx.fire("Stop", None, fields, None).await.block
}

/// The `result` (and, for an interrupt, the marker Claude Code writes before it).
fn finish(session: &Session, peer: &Peer, end: End, tally: Tally) -> ResultMessage {
    if let End::Interrupted { tools } = &end {
        let marker = if *tools {
            frames::INTERRUPTED_FOR_TOOL_USE
        } else {
            frames::INTERRUPTED
        };
        let uuid = new_id();
        let _ = peer.emit(&frames::interrupted_with(&session.id(), &uuid, marker));
        session.record_user(&uuid, UserContent::Text(marker.into()), Map::new());
    }
    let totals = {
        let state = session.state();
        Totals {
            session_id: state.session_id.clone(),
            cost_usd: state.cost_usd,
            model_usage: state.model_usage.clone(),
        }
    };
    let result = outcome::result(&end, tally, totals);
    session.last_failed.store(result.is_error, Ordering::SeqCst);
    result
}
