//! The host's policy, judged from what the reader has seen of the session: when stdin may
//! close (after the turn's result and, with callbacks, once the CLI is idle), whether the CLI
//! accepts `control_cancel_request`, and why its output ended.

use std::time::Duration;

use tokio::sync::watch;
use twinwire_protocol::system::{SessionState, SystemMessage};
use twinwire_protocol::Message;

use super::process::{exit_error, OutputEnded};
use crate::engine::OutputEnd;
use crate::error::{EndReason, Error};

/// What the reader has seen of the session, for deciding when stdin may close.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Progress {
    /// Results seen so far.
    pub(crate) results: u64,
    /// Whether the CLI reports its state at all (2.1.x with the session-state variable).
    pub(crate) reports_state: bool,
    /// Whether the session went idle after the latest result.
    pub(crate) idle_after_result: bool,
    /// Whether the latest result was an error.
    pub(crate) last_result_is_error: bool,
    /// Whether a user message was sent after the latest result: a turn is running.
    pub(crate) awaiting_result: bool,
    /// Whether any user message was sent: before that, an exit the host did not ask for ends a
    /// session that never began.
    pub(crate) turn_sent: bool,
}

/// Returns once the session no longer needs stdin: more than `baseline` results were seen and,
/// when callbacks may still be called (background tasks), the CLI reported it is idle or
/// `ceiling` passed.
pub(crate) async fn input_done(
    mut progress: watch::Receiver<Progress>,
    baseline: u64,
    has_callbacks: bool,
    ceiling: Duration,
) {
    let result_seen = progress.wait_for(|p| p.results > baseline).await.is_ok();
    if result_seen && has_callbacks {
        let idle = progress.wait_for(|p| !p.reports_state || p.idle_after_result);
        if tokio::time::timeout(ceiling, idle).await.is_err() {
            tracing::warn!(
                ?ceiling,
                "the CLI did not report idle in time; closing stdin"
            );
        }
    }
}

/// The oldest Claude Code measured to accept `control_cancel_request` (2.0.77 exits on it).
const CANCEL_SINCE: (u64, u64, u64) = (2, 1, 112);

/// `major.minor.patch` of a version string (`2.1.330`, `3.0.0-beta.1`).
pub(crate) fn parse_version(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version
        .split(['.', '-', '+'])
        .map(|part| part.parse::<u64>().ok());
    let mut next = || parts.next().flatten();
    next().zip(next()).zip(next()).map(|((a, b), c)| (a, b, c))
}

/// The version a `system/init` reports: `Some(None)` for an init without one (CLIs before
/// 2.0 send none), `None` for any other message.
fn init_version(message: &Message) -> Option<Option<&str>> {
    let Message::System(system) = message else {
        return None;
    };
    let SystemMessage::Init(init) = &**system else {
        return None;
    };
    Some(init.claude_code_version.as_deref())
}

/// For a `system/init`: whether the CLI it names accepts `control_cancel_request` (an init
/// without a version comes from a CLI older than that).
pub(crate) fn accepts_cancel(message: &Message) -> Option<bool> {
    let version = init_version(message)?;
    let parsed = version.and_then(parse_version);
    Some(parsed.is_some_and(|version| version >= CANCEL_SINCE))
}

/// Whether `found` is older than `minimum` (both `major.minor.patch`); an unreadable version
/// is not judged.
pub(crate) fn older_than(found: &str, minimum: &str) -> bool {
    matches!((parse_version(found), parse_version(minimum)), (Some(f), Some(m)) if f < m)
}

/// For a `system/init`: warns (once per session, through `tracing`) about a CLI older than
/// `minimum`, or too old to report its version.
pub(crate) fn warn_if_old(message: &Message, minimum: &str) {
    match init_version(message) {
        Some(Some(found)) if older_than(found, minimum) => tracing::warn!(
            found,
            minimum,
            "Claude Code is older than the minimum version; some features may not work"
        ),
        Some(None) => tracing::warn!(
            minimum,
            "Claude Code is too old to report its version; some features may not work"
        ),
        _ => {}
    }
}

pub(crate) fn observe(progress: &watch::Sender<Progress>, message: &Message) {
    if let Some(is_error) = message.result_is_error() {
        progress.send_modify(|p| {
            p.results += 1;
            p.idle_after_result = false;
            p.awaiting_result = false;
            p.last_result_is_error = is_error;
        });
        return;
    }
    let Message::System(system) = message else {
        return;
    };
    let idle = match &**system {
        SystemMessage::SessionStateChanged(change) => change.state == SessionState::Idle,
        SystemMessage::Malformed(malformed) if malformed.tag == "session_state_changed" => {
            malformed.str_field("state") == Some("idle")
        }
        _ => return,
    };
    // Waiters are woken only by a change: the state goes `running` and `requires_action` many
    // times a turn, and each wake-up may cost a thread hop.
    progress.send_if_modified(|p| {
        let before = (p.reports_state, p.idle_after_result);
        p.reports_state = true;
        if idle && p.results > 0 {
            p.idle_after_result = true;
        }
        before != (p.reports_state, p.idle_after_result)
    });
}

/// Why the CLI's output ended, judged with what the session knows. A normal end is
/// [`Error::Closed`]: exit code 0 with no turn running, or code 1 after a result that was an
/// error (the CLI's own convention; that result already reported it), once the session has
/// begun (a user message was sent, or the host closed the CLI's input). Anything else names the
/// cause and carries the stderr tail: an exit before the first turn, in the middle of a turn or
/// of a line, a signal, a CLI that closed its output but kept running (being stopped by then),
/// a launcher's program that ended before the CLI said anything.
pub(crate) async fn end_cause(
    output_ended: impl std::future::Future<Output = OutputEnded> + Send,
    end: OutputEnd,
    progress: watch::Receiver<Progress>,
) -> Error {
    let ended = output_ended.await;
    let progress = *progress.borrow();
    if let Some(program) = ended.launcher.filter(|_| end.bytes == 0) {
        return launcher_exited(program, ended.status, ended.stderr_tail);
    }
    let reason = if ended.status.is_none() {
        EndReason::OutputClosed
    } else if end.partial_last_line {
        EndReason::PartialLastLine
    } else if progress.awaiting_result {
        EndReason::ExitedMidTurn
    } else if !progress.turn_sent && !end.input_closed {
        EndReason::ExitedBeforeFirstTurn
    } else {
        EndReason::Exited
    };
    let code = ended.status.and_then(|status| status.code());
    match (reason, code) {
        (EndReason::Exited, Some(0)) => Error::Closed,
        (EndReason::Exited, Some(1)) if progress.last_result_is_error => Error::Closed,
        _ => exit_error(ended.status, reason, ended.stderr_tail),
    }
}

/// The cause of an end seen while `initialize` waited for its answer: the session never began.
pub(crate) fn during_initialize(cause: Error) -> Error {
    match cause {
        Error::ProcessExited {
            code,
            signal,
            reason: EndReason::Exited | EndReason::ExitedMidTurn | EndReason::ExitedBeforeFirstTurn,
            stderr_tail,
        } => Error::ProcessExited {
            code,
            signal,
            reason: EndReason::ExitedDuringInitialize,
            stderr_tail,
        },
        other => other,
    }
}

fn launcher_exited(
    program: String,
    status: Option<std::process::ExitStatus>,
    stderr_tail: String,
) -> Error {
    match exit_error(status, EndReason::Exited, stderr_tail) {
        Error::ProcessExited {
            code,
            signal,
            stderr_tail,
            ..
        } => Error::LauncherExited {
            program,
            code,
            signal,
            stderr_tail,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init(version: Option<&str>) -> Message {
        let mut frame = serde_json::json!({
            "type": "system", "subtype": "init", "cwd": "/", "session_id": "s", "tools": [],
            "mcp_servers": [], "model": "m", "permissionMode": "default",
            "slash_commands": [], "apiKeySource": "none", "uuid": "u"
        });
        if let Some(version) = version {
            frame["claude_code_version"] = version.into();
        }
        serde_json::from_value(frame).expect("a system/init")
    }

    #[test]
    fn versions_are_compared_by_number() {
        assert!(older_than("1.0.128", "2.0.0"));
        assert!(older_than("2.0.77", "2.1.0"));
        assert!(!older_than("2.1.330", "2.0.0"));
        assert!(!older_than("10.0.0", "9.9.9"));
        assert!(!older_than("2.1.330-fake", "2.1.330"));
        // What cannot be read is not judged.
        assert!(!older_than("dev", "2.0.0"));
        assert!(!older_than("2.0.0", "latest"));
    }

    #[test]
    fn cancel_goes_only_to_clis_measured_to_accept_it() {
        let cases = [
            (Some("2.1.330"), true),
            (Some("2.1.112"), true),
            (Some("3.0.0-beta.1"), true),
            (Some("2.1.111"), false),
            (Some("2.0.77"), false),
            (Some("not a version"), false),
            (None, false),
        ];
        for (version, expected) in cases {
            assert_eq!(
                accepts_cancel(&init(version)),
                Some(expected),
                "{version:?}"
            );
        }
        let result: Message = serde_json::from_value(serde_json::json!({
            "type": "result", "subtype": "success", "is_error": false
        }))
        .expect("a result");
        assert_eq!(accepts_cancel(&result), None);
    }
}
