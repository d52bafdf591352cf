//! The tool calls of one reply: each through the host's `PreToolUse` hooks, the permission
//! decision, the tool, and the `PostToolUse` hooks; calls of read-only tools that follow each
//! other run side by side, the others one at a time in order. Every call gets a
//! `tool_result` (an error when it was denied or interrupted), so the conversation stays one
//! the API accepts.

use std::sync::Arc;

use futures::future::join_all;
use serde_json::{json, Map, Value};
use twinwire::agent::frames::{self, new_id};
use twinwire_protocol::content::{
    ContentBlock, ToolResultBlock, ToolResultContent, ToolUseBlock, UserContent,
};
use twinwire_protocol::permission::{PermissionDenial, PermissionMode, PermissionUpdate};
use twinwire_protocol::{Message, ToolResultDecision, ToolResultMeta};

use super::context::TurnContext;
use crate::permissions::{DecidedBy, Judgment, Verdict};
use crate::tools::{ToolContext, ToolOutput, STRUCTURED_OUTPUT};

/// What the calls of a reply gave the turn.
pub(crate) struct Calls {
    pub(crate) outcome: Outcome,
    /// The calls that were refused.
    pub(crate) denials: Vec<PermissionDenial>,
    /// The final answer, when the model gave it with the structured-output tool.
    pub(crate) structured: Option<Value>,
}

/// How the calls of a reply ended.
pub(crate) enum Outcome {
    /// Every call has its result: the next model call.
    Continue,
    /// The host interrupted (or a denial asked to stop).
    Interrupted,
    /// A hook stopped the turn, with its reason.
    Stopped(String),
}

/// One call's end.
struct Done {
    output: ToolOutput,
    denial: Option<PermissionDenial>,
    stop: Option<String>,
    interrupt: bool,
    structured: Option<Value>,
    /// The permission decision, when one was made: allowed, and by whom.
    decided: Option<(bool, DecidedBy)>,
}

impl Done {
    fn output(output: ToolOutput) -> Self {
        Self {
            output,
            denial: None,
            stop: None,
            interrupt: false,
            structured: None,
            decided: None,
        }
    }

    /// A call refused by `by` before it ran.
    fn refused(message: String, by: DecidedBy) -> Self {
        let mut done = Self::output(denied(message));
        done.decided = Some((false, by));
        done
    }

    /// `call` (with `input`) refused by `by` before it ran, counted among the turn's
    /// permission denials.
    fn denied(call: &ToolUseBlock, input: Value, message: String, by: DecidedBy) -> Self {
        let mut done = Self::refused(message, by);
        done.denial = Some(PermissionDenial {
            tool_name: call.name.clone(),
            tool_use_id: call.id.clone(),
            tool_input: input,
            extra: Map::new(),
        });
        done
    }
}

/// What Claude Code says beside a call's result of its permission decision
/// (`tool_result_meta`): accepted or rejected, by whom; a refused call did not run.
fn result_meta(id: &str, (allowed, by): (bool, DecidedBy)) -> ToolResultMeta {
    ToolResultMeta {
        id: id.to_owned(),
        non_execution_kind: (!allowed).then(|| "permission-rule".to_owned()),
        permission_decision: Some(ToolResultDecision {
            decision: if allowed { "accept" } else { "reject" }.to_owned(),
            source: Some(by.source.to_owned()),
            reason_type: by.reason_type.map(str::to_owned),
            extra: Map::new(),
        }),
        extra: Map::new(),
    }
}

/// Runs the calls of a reply and adds their results to the conversation.
pub(crate) async fn run_all(cx: &TurnContext, calls: Vec<ToolUseBlock>) -> Calls {
    let read_only: Vec<bool> = calls
        .iter()
        .map(|c| cx.tools.get(&c.name).is_some_and(|t| t.read_only()))
        .collect();
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for (i, ro) in read_only.iter().enumerate() {
        match batches.last_mut() {
            Some(batch) if *ro && read_only[batch[0]] => batch.push(i),
            _ => batches.push(vec![i]),
        }
    }
    let mut done: Vec<Option<Done>> = (0..calls.len()).map(|_| None).collect();
    let mut interrupted = false;
    for batch in batches {
        let runs = batch.iter().map(|&i| run_one(cx, &calls[i]));
        let finished = tokio::select! {
            biased;
            () = cx.cancel.cancelled() => None,
            finished = join_all(runs) => Some(finished),
        };
        let Some(finished) = finished else {
            interrupted = true;
            break;
        };
        let mut stop_here = false;
        for (&i, result) in batch.iter().zip(finished) {
            stop_here |= result.interrupt || result.stop.is_some();
            done[i] = Some(result);
        }
        if stop_here || cx.cancel.is_cancelled() {
            interrupted |= cx.cancel.is_cancelled();
            break;
        }
    }
    let mut blocks = Vec::new();
    let mut outcome = Outcome::Continue;
    let mut denials = Vec::new();
    let mut structured = None;
    let mut follow_ups = Vec::new();
    let mut notes = Vec::new();
    for (call, result) in calls.iter().zip(done) {
        let result = result.unwrap_or_else(|| {
            Done::output(ToolOutput::error(
                "Interrupted: the tool was not run (the user interrupted the turn).",
            ))
        });
        denials.extend(result.denial);
        if result.structured.is_some() {
            structured = result.structured;
        }
        if result.interrupt {
            interrupted = true;
        }
        if let Some(reason) = result.stop {
            outcome = Outcome::Stopped(reason);
        }
        let block = ToolResultBlock {
            tool_use_id: call.id.clone(),
            content: Some(result.output.content.clone()),
            is_error: Some(result.output.is_error),
            ..ToolResultBlock::default()
        };
        let uuid = new_id();
        let mut frame = frames::tool_result(
            &cx.session_id,
            &uuid,
            block.clone(),
            result.output.result.clone(),
        );
        if let (Message::User(user), Some(decided)) = (&mut frame, result.decided) {
            user.tool_result_meta = Some(vec![result_meta(&call.id, decided)]);
        }
        cx.emit(&frame);
        let mut fields = Map::new();
        if let Some(result) = &result.output.result {
            fields.insert("toolUseResult".into(), result.clone());
        }
        let block = ContentBlock::ToolResult(block);
        cx.thread
            .record_tool_result(&cx.session, &uuid, block.clone(), fields);
        blocks.push(block);
        follow_ups.extend(result.output.follow_up);
        notes.extend(result.output.notes);
    }
    // What a tool has the model read after the results (a skill's instructions).
    for text in follow_ups {
        blocks.push(ContentBlock::Text(twinwire_protocol::content::TextBlock {
            text,
            ..Default::default()
        }));
    }
    cx.thread
        .push_user(&cx.session, UserContent::Blocks(blocks.clone()));
    for note in notes {
        cx.thread.push_system(&cx.session, note);
    }
    if interrupted {
        outcome = Outcome::Interrupted;
    } else if cx.hooks.has("PostToolBatch") {
        let report = cx
            .fire("PostToolBatch", None, batch_fields(&calls, &blocks), None)
            .await;
        if let (Outcome::Continue, Some(reason)) = (&outcome, report.stop) {
            outcome = Outcome::Stopped(reason);
        }
    }
    Calls {
        outcome,
        denials,
        structured,
    }
}

/// `PostToolBatch`'s input: each call with its result's text.
fn batch_fields(calls: &[ToolUseBlock], results: &[ContentBlock]) -> Map<String, Value> {
    let calls: Vec<Value> = calls
        .iter()
        .zip(results)
        .map(|(call, result)| {
            let response = match result {
                ContentBlock::ToolResult(block) => block
                    .content
                    .as_ref()
                    .map(ToolResultContent::joined_text)
                    .unwrap_or_default(),
                _ => String::new(),
            };
            json!({"tool_name": call.name, "tool_input": call.input,
                   "tool_use_id": call.id, "tool_response": response})
        })
        .collect();
    let mut fields = Map::new();
    fields.insert("tool_calls".into(), Value::Array(calls));
    fields
}

/// One call, from hooks to result.
async fn run_one(cx: &TurnContext, call: &ToolUseBlock) -> Done {
    let Some(tool) = cx.tools.get(&call.name) else {
        return Done::output(ToolOutput::error(crate::tools::unavailable(&call.name)));
    };
    // Checked as Claude Code checks it, before hooks and permissions see it.
    let mut input = match tool.check_input(&call.input) {
        Ok(input) => input,
        Err(why) => return Done::output(ToolOutput::error(why)),
    };
    let tool_cx = ToolContext {
        workspace: Arc::clone(&cx.workspace),
        cancel: cx.cancel.clone(),
        peer: Some(cx.peer.clone()),
        tool_use_id: call.id.clone(),
        session_id: cx.session_id.clone(),
        model: Some((cx.session.client.clone(), cx.model.clone())),
    };
    if let Some(refused) = tool.validate(&input, &tool_cx) {
        return Done::output(refused);
    }
    input = tool.prepare(input, &tool_cx);
    let mut fields = Map::new();
    fields.insert("tool_name".into(), json!(call.name));
    fields.insert("tool_input".into(), input.clone());
    fields.insert("tool_use_id".into(), json!(call.id));
    let pre = cx
        .fire("PreToolUse", Some(&call.name), fields, Some(&call.id))
        .await;
    if let Some(reason) = pre.stop {
        let mut done = match pre.block {
            // Blocked and stopped at once (a prompt hook that said no): refused in its words.
            Some(block) => Done::denied(call, input, block, DecidedBy::HOOK),
            None => Done::output(ToolOutput::error(format!("Stopped by a hook: {reason}"))),
        };
        done.stop = Some(reason);
        return done;
    }
    if let Some(updated) = pre.updated_input {
        input = updated;
    }
    let hook_decision = pre.permission.as_ref().map(|(d, _)| d.as_str());
    let hook_reason = pre.permission.as_ref().and_then(|(_, r)| r.clone());
    if hook_decision == Some("deny") || pre.block.is_some() {
        let reason = hook_reason
            .or(pre.block)
            .unwrap_or_else(|| "Denied by a PreToolUse hook.".into());
        return Done::denied(call, input, reason, DecidedBy::HOOK);
    }
    let mut decided = Some((true, DecidedBy::HOOK));
    if hook_decision != Some("allow") {
        // Relative paths of a command are judged where its shell is (after a `cd`).
        cx.permissions.set_shell_dir(cx.workspace.shell_cwd());
        let mode = match cx.session.state().mode_for(&cx.mode, &call.name) {
            // The user's to answer: asked as in the default mode (but where nobody is asked).
            mode if tool.asks_the_user() && mode != PermissionMode::DontAsk => {
                PermissionMode::Default
            }
            mode => mode,
        };
        let Judgment {
            verdict,
            updates,
            by,
        } = cx
            .permissions
            .decide(
                &mode,
                &call.name,
                &input,
                tool.read_only(),
                &call.id,
                &cx.peer,
            )
            .await;
        if !updates.is_empty() {
            let mut state = cx.session.state();
            state.permissions.apply(&updates);
            cx.workspace.set_read_rules(state.permissions.policy());
            for update in &updates {
                if let PermissionUpdate::SetMode(set) = update {
                    state.mode = set.mode.clone();
                }
            }
        }
        match verdict {
            Verdict::Allow(updated) => {
                input = updated;
                decided = Some((true, by));
            }
            Verdict::Deny { message, interrupt } => {
                let mut done = Done::denied(call, input, message, by);
                done.interrupt = interrupt;
                return done;
            }
        }
    }
    cx.session
        .checkpoints
        .before_tool(&call.name, &input, |path| cx.workspace.resolve(path));
    let mut output = tool.call(input.clone(), tool_cx).await;
    if !output.is_error && matches!(cx.thread, crate::thread::Thread::Main) {
        // A file below the working directory brings its directories' memory into view.
        let memory = crate::nested_memory::touched(&cx.session, &call.name, &input);
        output.follow_up.extend(memory);
    }
    let structured = (call.name == STRUCTURED_OUTPUT && !output.is_error)
        .then(|| {
            output
                .result
                .as_ref()
                .map(|r| r["structured_output"].clone())
        })
        .flatten();
    let event = if output.is_error {
        "PostToolUseFailure"
    } else {
        "PostToolUse"
    };
    let mut fields = Map::new();
    fields.insert("tool_name".into(), json!(call.name));
    fields.insert("tool_input".into(), input);
    fields.insert("tool_use_id".into(), json!(call.id));
    if output.is_error {
        fields.insert("error".into(), json!(output.content.joined_text()));
    } else {
        let response = output
            .result
            .clone()
            .unwrap_or_else(|| json!(output.content.joined_text()));
        fields.insert("tool_response".into(), response);
    }
    let post = cx
        .fire(event, Some(&call.name), fields, Some(&call.id))
        .await;
    if !post.context.is_empty() {
        let mut text = output.content.joined_text();
        for context in &post.context {
            text.push_str("\n\n");
            text.push_str(context);
        }
        output.content = ToolResultContent::Text(text);
    }
    let mut done = Done::output(output);
    done.decided = decided;
    done.structured = structured;
    done.stop = post.stop;
    if let (None, Some(reason)) = (&done.stop, post.block) {
        // A PostToolUse block tells the model; the turn goes on.
        let mut text = done.output.content.joined_text();
        text.push_str(&format!("\n\n{reason}"));
        done.output.content = ToolResultContent::Text(text);
    }
    done
}

/// The result of a call that did not run.
fn denied(message: String) -> ToolOutput {
    ToolOutput {
        follow_up: Vec::new(),
        notes: Vec::new(),
        result: Some(Value::String(format!("Error: {message}"))),
        content: ToolResultContent::Text(message),
        is_error: true,
    }
}
