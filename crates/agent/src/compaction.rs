//! Compaction: the conversation replaced by a summary the model writes of it, as Claude Code
//! does, so that a session goes on past its context window.
//!
//! It happens on `/compact [instructions]` (trigger `manual`), before a model call once the
//! context holds as many tokens as the threshold ([`threshold`], trigger `auto`), and when the
//! API refuses a request as too long (a 400 saying "prompt is too long": the turn compacts and
//! tries again, once). The host's `PreCompact` hooks run first (a block stops it), then the
//! summary request (the conversation and a request to summarize it, no tools), then the
//! session file starts a new chain as Claude Code writes one (a `compact_boundary` entry and
//! the summary marked `isCompactSummary`, so that either program resumes it from there), the
//! host is told (`system/status` compacting, then its result, `system/compact_boundary` with
//! the trigger and the token counts, the summary as a synthetic user frame), and
//! `PostCompact` hooks run. Messages after the point summarized (the prompt being answered)
//! are kept after the summary.

use std::time::Instant;

use serde_json::{json, Map, Value};
use twinwire::agent::frames::{self, new_id};
use twinwire::agent::Peer;
use twinwire_protocol::content::{MessageParam, UserContent};
use twinwire_protocol::system::{
    CompactBoundary, CompactMetadata, CompactResult, StatusKind, StatusMessage, SystemMessage,
};
use twinwire_protocol::usage::Usage;
use twinwire_protocol::Message;

use crate::config::Config;
use crate::model::assemble::Assembler;
use crate::model::pricing::CONTEXT_WINDOW;
use crate::model::{MessagesRequest, ModelError, SystemBlock};
use crate::session::Session;

/// Output tokens asked for the summary.
const SUMMARY_TOKENS: u32 = 20_000;
/// The window kept free for a reply, at most.
const REPLY_RESERVE: u64 = 20_000;
/// How far below the usable window compaction starts.
const BUFFER: u64 = 13_000;

/// What the model is asked to do with the conversation.
const INSTRUCTIONS: &str = "Stop here and write a summary of the conversation so far, for \
the one who carries on the work without seeing it. Answer with text only: no tool calls. Say \
what the user asked for and why, what was done and found (files, commands, names, errors and \
how they were fixed, decisions taken), what is still open, and what was being worked on when \
this summary was asked for, with the exact details needed to continue. Be complete but \
plain; leave out what does not matter any more.";

/// What started a compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// `/compact`.
    Manual,
    /// The context filled up, or the API said the prompt was too long.
    Auto,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Self::Manual => "manual",
            Self::Auto => "auto",
        }
    }
}

/// Why no compaction happened.
#[derive(Debug)]
pub(crate) enum NotCompacted {
    /// Nothing to summarize.
    Empty,
    /// Compaction is off (`DISABLE_COMPACT`).
    Disabled,
    /// A `PreCompact` hook blocked it.
    Blocked(String),
    /// The summary request failed.
    Failed(ModelError),
    /// The host interrupted it.
    Interrupted,
}

impl std::fmt::Display for NotCompacted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Empty => f.write_str("Not enough messages to compact."),
            Self::Disabled => f.write_str("Compaction is disabled (DISABLE_COMPACT)."),
            Self::Blocked(why) => write!(f, "Compaction was blocked by a hook: {why}"),
            Self::Failed(err) => write!(f, "Error during compaction: {err}"),
            Self::Interrupted => f.write_str("Compaction was interrupted."),
        }
    }
}

/// Whether a failed model call is the API saying the request is larger than the window.
pub(crate) fn is_prompt_too_long(error: &ModelError) -> bool {
    matches!(error, ModelError::Status { status: 400 | 413, message, .. }
        if message.to_ascii_lowercase().contains("prompt is too long"))
}

/// The number of context tokens at which the session compacts before a model call, if it
/// compacts on its own at all: the window (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`, else the
/// model's) less what a reply needs (at most 20 000) and a buffer of 13 000, lowered to the
/// `CLAUDE_AUTOCOMPACT_PCT_OVERRIDE` per cent of that when it is set; none with
/// `DISABLE_AUTO_COMPACT` or `DISABLE_COMPACT`. This is Claude Code's threshold (Claude Code
/// 2.1.330 and newer in SDK sessions wait instead for the API to refuse the prompt, which
/// this agent handles too).
pub(crate) fn threshold(config: &Config) -> Option<u64> {
    let set = |name: &str| config.var(name).filter(|v| !v.trim().is_empty());
    if set("DISABLE_AUTO_COMPACT").is_some() || set("DISABLE_COMPACT").is_some() {
        return None;
    }
    let window = set("CLAUDE_CODE_AUTO_COMPACT_WINDOW")
        .and_then(|v| parse_tokens(&v))
        .unwrap_or(CONTEXT_WINDOW);
    let usable = window.saturating_sub(REPLY_RESERVE);
    let mut threshold = usable.saturating_sub(BUFFER);
    if let Some(pct) = set("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE")
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|p| *p > 0.0 && *p <= 100.0)
    {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let lowered = (usable as f64 * pct / 100.0) as u64;
        threshold = threshold.min(lowered);
    }
    Some(threshold)
}

/// `200000`, `200k`, `1m`.
fn parse_tokens(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let (number, scale) = match text.chars().last()? {
        'k' => (&text[..text.len() - 1], 1_000.0),
        'm' => (&text[..text.len() - 1], 1_000_000.0),
        _ => (text.as_str(), 1.0),
    };
    let value = number.trim().parse::<f64>().ok()? * scale;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    (value >= 1.0).then_some(value as u64)
}

/// The tokens a reply's usage says the context held: what was read and what was written.
pub(crate) fn context_tokens(usage: &Usage) -> u64 {
    usage.input_tokens
        + usage.cache_read_input_tokens.unwrap_or(0)
        + usage.cache_creation_input_tokens.unwrap_or(0)
        + usage.output_tokens
}

/// Compacts the session's conversation. With `keep_last`, the last user message (the prompt
/// being answered) is not summarized but kept after the summary.
pub(crate) async fn compact(
    session: &Session,
    peer: &Peer,
    trigger: Trigger,
    instructions: Option<&str>,
    keep_last: bool,
) -> Result<(), NotCompacted> {
    if session
        .config
        .var("DISABLE_COMPACT")
        .is_some_and(|v| !v.is_empty())
    {
        return Err(NotCompacted::Disabled);
    }
    let started = Instant::now();
    let (mut summarized, model, hooks, common, pre_tokens) = {
        let state = session.state();
        (
            state.conversation.clone(),
            state.model.clone(),
            state.hooks.clone(),
            session.hook_common(&state),
            state.context_tokens,
        )
    };
    let kept = if keep_last && summarized.last().is_some_and(|m| m.role == "user") {
        summarized.pop()
    } else {
        None
    };
    if summarized.is_empty() {
        return Err(NotCompacted::Empty);
    }
    let mut fields = Map::new();
    fields.insert("trigger".into(), json!(trigger.as_str()));
    fields.insert("custom_instructions".into(), json!(instructions));
    let report = hooks
        .fire(
            peer,
            &common,
            "PreCompact",
            Some(trigger.as_str()),
            fields,
            None,
        )
        .await;
    if let Some(why) = report.block.or(report.stop) {
        return Err(NotCompacted::Blocked(why));
    }
    emit(
        peer,
        SystemMessage::Status(StatusMessage {
            status: Some(StatusKind::Compacting),
            session_id: peer.session_id().to_owned(),
            uuid: new_id(),
            ..StatusMessage::default()
        }),
    );
    let (summary, usage) = match summarize(session, peer, &model, &summarized, instructions).await {
        Ok(done) => done,
        Err(failed) => {
            emit(
                peer,
                SystemMessage::Status(StatusMessage {
                    compact_result: Some(CompactResult::from("failed")),
                    compact_error: Some(failed.to_string()),
                    session_id: peer.session_id().to_owned(),
                    uuid: new_id(),
                    ..StatusMessage::default()
                }),
            );
            return Err(failed);
        }
    };
    let transcript =
        crate::transcript::file_of(&session.store, &session.config.cwd, &peer_id(session));
    let text = continuation(&summary, &transcript.display().to_string());
    let (boundary, summary_uuid) = (new_id(), new_id());
    let metadata = CompactMetadata {
        trigger: twinwire_protocol::hooks::CompactTrigger::from(trigger.as_str()),
        pre_tokens: pre_tokens.unwrap_or(0),
        post_tokens: Some(usage.output_tokens),
        duration_ms: Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(0)),
        ..CompactMetadata::default()
    };
    let logical = {
        let mut state = session.state();
        let logical = state
            .transcript(&session.config, &session.store)
            .and_then(|file| file.leaf().map(str::to_owned));
        let file_metadata = json!({
            "trigger": trigger.as_str(),
            "preTokens": metadata.pre_tokens,
            "postTokens": metadata.post_tokens,
            "durationMs": metadata.duration_ms,
        });
        if let Some(file) = state.transcript(&session.config, &session.store) {
            file.compaction(&boundary, file_metadata, &summary_uuid, &text);
        }
        state.conversation = vec![MessageParam::user(UserContent::Text(text.clone()))];
        state.context_tokens = Some(usage.output_tokens);
        logical
    };
    if let Some(kept) = kept {
        let content = kept.content.clone();
        session.record_user(&new_id(), content, Map::new());
    }
    emit(
        peer,
        SystemMessage::Status(StatusMessage {
            compact_result: Some(CompactResult::Success),
            session_id: peer.session_id().to_owned(),
            uuid: new_id(),
            ..StatusMessage::default()
        }),
    );
    let mut boundary_frame = CompactBoundary {
        compact_metadata: metadata,
        uuid: boundary,
        session_id: peer.session_id().to_owned(),
        extra: Map::new(),
    };
    if let Some(logical) = logical {
        boundary_frame
            .extra
            .insert("logical_parent_uuid".into(), Value::String(logical));
    }
    emit(peer, SystemMessage::CompactBoundary(boundary_frame));
    let mut frame = frames::user(peer.session_id(), &summary_uuid, UserContent::Text(text));
    frame.is_synthetic = Some(true);
    if let Err(err) = peer.emit(&Message::User(Box::new(frame))) {
        tracing::debug!(%err, "a frame the host will not see");
    }
    let mut fields = Map::new();
    fields.insert("trigger".into(), json!(trigger.as_str()));
    fields.insert("compact_summary".into(), json!(summary));
    hooks
        .fire(
            peer,
            &common,
            "PostCompact",
            Some(trigger.as_str()),
            fields,
            None,
        )
        .await;
    // The summary is paid for like any call: it counts in the session's cost and usage.
    session.state().charge(&model, &usage);
    Ok(())
}

fn peer_id(session: &Session) -> String {
    session.id()
}

/// The message that stands for the conversation after a compaction.
fn continuation(summary: &str, transcript: &str) -> String {
    format!(
        "This session continues an earlier conversation that was compacted to stay within \
         the context window; this summary of it is all that is left of it here:\n\n{summary}\n\n\
         The whole earlier conversation is in {transcript}, should an exact detail be needed. \
         Carry on with the work where it stopped."
    )
}

/// The summary request: the conversation, then the request to summarize it (with the
/// user's instructions); the summary's text and what it cost.
async fn summarize(
    session: &Session,
    peer: &Peer,
    model: &str,
    conversation: &[MessageParam],
    instructions: Option<&str>,
) -> Result<(String, Usage), NotCompacted> {
    let mut messages = conversation.to_vec();
    let mut ask = INSTRUCTIONS.to_owned();
    if let Some(extra) = instructions.filter(|i| !i.trim().is_empty()) {
        ask.push_str("\n\nThe user's instructions for this summary: ");
        ask.push_str(extra.trim());
    }
    let ask = UserContent::Text(ask);
    match messages.last_mut() {
        Some(last) if last.role == "user" => crate::transcript::append(&mut last.content, ask),
        _ => messages.push(MessageParam::user(ask)),
    }
    let request = MessagesRequest {
        model: model.to_owned(),
        max_tokens: SUMMARY_TOKENS,
        system: vec![SystemBlock::text(
            "You write summaries of coding sessions, so that the work can go on from them.",
        )],
        messages,
        tools: Vec::new(),
        thinking: None,
        context_management: None,
        output_config: None,
        stream: true,
        metadata: Some(json!({"user_id": crate::prompt::user_id(&session.id())})),
    }
    .with_cache_breakpoints();
    let cancel = peer.interrupted().clone();
    let call = async {
        let mut stream = session.client.stream(&request, |_| {}).await?;
        let mut assembler = Assembler::new();
        while let Some(event) = stream.next().await {
            assembler.apply(&event?).map_err(ModelError::Stream)?;
        }
        if !assembler.is_complete() {
            return Err(ModelError::Stream(
                "the summary ended before message_stop".into(),
            ));
        }
        Ok(assembler)
    };
    let assembler = tokio::select! {
        biased;
        () = cancel.cancelled() => return Err(NotCompacted::Interrupted),
        done = call => done.map_err(NotCompacted::Failed)?,
    };
    let usage = assembler.usage();
    session.state().charge(model, &usage);
    let text = assembler
        .message()
        .content
        .iter()
        .map(|b| match b {
            twinwire_protocol::content::ContentBlock::Text(t) => t.text.clone(),
            _ => String::new(),
        })
        .collect::<String>();
    let summary = strip_analysis(&text);
    if summary.trim().is_empty() {
        return Err(NotCompacted::Failed(ModelError::Stream(
            "the summary was empty".into(),
        )));
    }
    Ok((summary, usage))
}

/// The summary itself: what a `<summary>` block holds when the model wrote one, else all of
/// it.
fn strip_analysis(text: &str) -> String {
    match (text.find("<summary>"), text.rfind("</summary>")) {
        (Some(start), Some(end)) if end > start => {
            text[start + "<summary>".len()..end].trim().to_owned()
        }
        _ => text.trim().to_owned(),
    }
}

fn emit(peer: &Peer, message: SystemMessage) {
    if let Err(err) = peer.emit(&Message::System(Box::new(message))) {
        tracing::debug!(%err, "a frame the host will not see");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Config {
        Config {
            env: vars
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect(),
            ..Config::default()
        }
    }

    #[test]
    fn the_threshold_is_claude_codes() {
        assert_eq!(threshold(&config(&[])), Some(167_000));
        assert_eq!(
            threshold(&config(&[("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", "50")])),
            Some(90_000)
        );
        assert_eq!(
            threshold(&config(&[("CLAUDE_CODE_AUTO_COMPACT_WINDOW", "100k")])),
            Some(67_000)
        );
        assert_eq!(threshold(&config(&[("DISABLE_AUTO_COMPACT", "1")])), None);
    }

    #[test]
    fn a_too_long_prompt_is_told_apart() {
        let too_long = ModelError::Status {
            status: 400,
            kind: Some("invalid_request_error".into()),
            message: "prompt is too long: 210000 tokens > 200000 maximum".into(),
        };
        assert!(is_prompt_too_long(&too_long));
        let other = ModelError::Status {
            status: 400,
            kind: None,
            message: "bad".into(),
        };
        assert!(!is_prompt_too_long(&other));
    }

    #[test]
    fn the_summary_block_is_what_is_kept() {
        assert_eq!(
            strip_analysis("<analysis>x</analysis>\n<summary>\nthe gist\n</summary>"),
            "the gist"
        );
        assert_eq!(strip_analysis(" plain "), "plain");
    }
}
