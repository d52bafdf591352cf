//! `SessionStart` and `SessionEnd` callbacks given in the options. No Claude Code generation
//! calls them (the conformance suite shows it on each), so the host calls them itself, where
//! the CLI calls the same hooks of a settings file: `SessionStart` before the session's first
//! prompt is sent (source `startup`, or `resume` when the options resume or continue a
//! session), its callbacks' `additionalContext` going with that prompt; `SessionEnd` once
//! when the host ends the input (reason `other`, as the CLI gives it then). They are not
//! sent in `initialize` (see [`HostControl::new`]), so each runs once whatever program
//! serves the session.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use twinwire_protocol::content::{ContentBlock, TextBlock, UserContent};
use twinwire_protocol::hooks::{
    ExitReason, HookEvent, HookInput, HookInputBase, HookSpecificOutput, SessionEndInput,
    SessionStartInput, SessionStartSource,
};

use super::control::HostControl;
use super::options::Options;
use super::watch::SessionWatch;

/// The session's lifecycle callbacks, each event called once.
pub(crate) struct Lifecycle {
    control: Arc<HostControl>,
    started: AtomicBool,
    ended: AtomicBool,
}

impl Lifecycle {
    pub(crate) fn new(control: Arc<HostControl>) -> Self {
        Self {
            control,
            started: AtomicBool::new(false),
            ended: AtomicBool::new(false),
        }
    }

    /// `SessionStart`, the first time: the context its callbacks add, for the first prompt.
    pub(crate) async fn start(&self, options: &Options) -> Option<String> {
        if self.started.swap(true, Ordering::SeqCst)
            || !self.control.has_lifecycle(&HookEvent::SessionStart)
        {
            return None;
        }
        let source = if options.resume.is_some() || options.continue_conversation {
            SessionStartSource::Resume
        } else {
            SessionStartSource::Startup
        };
        let input = HookInput::SessionStart(SessionStartInput {
            base: base(
                options,
                options.resume.clone().or(options.session_id.clone()),
                None,
            ),
            source: source.clone(),
            model: options.model.clone(),
            ..SessionStartInput::default()
        });
        let outputs = self
            .control
            .call_lifecycle(HookEvent::SessionStart, source.as_str(), input)
            .await;
        let context: Vec<String> = outputs
            .into_iter()
            .filter_map(|output| match output.hook_specific_output {
                Some(HookSpecificOutput::SessionStart(start)) => start.additional_context,
                _ => None,
            })
            .filter(|context| !context.is_empty())
            .collect();
        (!context.is_empty()).then(|| context.join("\n"))
    }

    /// `SessionEnd`, the first time the input is ended.
    pub(crate) async fn end(&self, options: &Options, watch: &SessionWatch) {
        if self.ended.swap(true, Ordering::SeqCst)
            || !self.control.has_lifecycle(&HookEvent::SessionEnd)
        {
            return;
        }
        let (id, cwd) = watch.session().unzip();
        let reason = ExitReason::OtherReason;
        let input = HookInput::SessionEnd(SessionEndInput {
            base: base(options, id, cwd),
            reason: reason.clone(),
            ..SessionEndInput::default()
        });
        self.control
            .call_lifecycle(HookEvent::SessionEnd, reason.as_str(), input)
            .await;
    }
}

/// The fields every hook input carries, as far as the host knows them.
fn base(options: &Options, session_id: Option<String>, cwd: Option<String>) -> HookInputBase {
    let cwd = cwd.unwrap_or_else(|| {
        options
            .cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .map(|dir| dir.display().to_string())
            .unwrap_or_default()
    });
    HookInputBase {
        session_id: session_id.unwrap_or_default(),
        cwd,
        permission_mode: options.permission_mode.clone(),
        ..HookInputBase::default()
    }
}

/// The first prompt with the start's context before it, as a reminder the model reads first.
pub(crate) fn with_context(content: UserContent, context: &str) -> UserContent {
    let note = ContentBlock::Text(TextBlock {
        text: format!(
            "<system-reminder>\nSessionStart hook additional context: {context}\n</system-reminder>"
        ),
        ..TextBlock::default()
    });
    let mut blocks = vec![note];
    match content {
        UserContent::Text(text) => blocks.push(ContentBlock::Text(TextBlock {
            text,
            ..TextBlock::default()
        })),
        UserContent::Blocks(more) => blocks.extend(more),
    }
    UserContent::Blocks(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_goes_before_the_prompt() {
        let UserContent::Blocks(blocks) = with_context(UserContent::Text("hi".into()), "be kind")
        else {
            panic!("blocks");
        };
        assert_eq!(blocks.len(), 2);
        let ContentBlock::Text(first) = &blocks[0] else {
            panic!("text");
        };
        assert!(first.text.contains("be kind"));
    }
}
