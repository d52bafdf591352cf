//! One error type whose variants say what the caller can do about it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use twinwire_protocol::framing::LineError;
use twinwire_protocol::result::ResultError;
use twinwire_protocol::DecodeError;

/// Everything that can go wrong in a session. Cheap to clone, so that one cause (say, the CLI
/// crashing) can fail every request that was waiting on it.
///
/// Its `Debug` form is its message, so that `fn main() -> twinwire::Result<()>` ends with words
/// a person can act on rather than a dump of fields; `{:#?}` gives the variant's name (as
/// `error.type` on spans) with the message.
#[derive(Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `claude` executable was not found.
    #[error("{}", not_found_message(.searched, .given.as_deref()))]
    CliNotFound {
        /// Where it was looked for, in order.
        searched: String,
        /// The path the options named ([`Options::cli_path`](crate::Options)), when they named
        /// one: then it was the only place looked at.
        given: Option<PathBuf>,
    },
    /// The path named as the CLI exists but cannot be run.
    #[error("cannot run the Claude Code CLI at {}: {why}", .path.display())]
    CliNotExecutable {
        /// The path.
        path: PathBuf,
        /// What is wrong with it: `it is not executable`, `it is a directory`.
        why: &'static str,
    },
    /// The working directory given for the CLI cannot be used.
    #[error("the working directory {} {problem}", .path.display())]
    WorkingDirectory {
        /// The directory.
        path: PathBuf,
        /// What is wrong with it: `does not exist`, `is not a directory`, …
        problem: String,
    },
    /// The CLI reports a version older than [`Options::minimum_cli_version`](crate::Options).
    #[error("Claude Code {found} is older than {minimum}, the oldest this session accepts: update it (`npm install -g @anthropic-ai/claude-code`), or lower `minimum_cli_version`")]
    CliTooOld {
        /// The version the CLI reported.
        found: String,
        /// The minimum in force.
        minimum: String,
    },
    /// A pooled session spent its budget (see [`host::pool`](crate::host::pool)).
    #[error("the session's {what} budget is spent ({turns} prompts, ${cost_usd:.4}, {elapsed:?})")]
    BudgetExceeded {
        /// Which budget: `turns`, `cost` or `wall time`.
        what: &'static str,
        /// Prompts sent.
        turns: u32,
        /// The session's cost so far.
        cost_usd: f64,
        /// Time since checkout.
        elapsed: Duration,
    },
    /// The CLI could not be started.
    #[error("could not start {}: {cause}", .path.display())]
    SpawnFailed {
        /// The executable.
        path: PathBuf,
        /// Why (in the message already, so not also the error's `source()`: a chain printed
        /// whole would say it twice).
        cause: Arc<std::io::Error>,
    },
    /// The CLI exited (or its output ended) while something was still expected of it.
    #[error("{}", exit_message(*.code, *.signal, *.reason, .stderr_tail))]
    ProcessExited {
        /// Its exit code, if it exited normally.
        code: Option<i32>,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
        /// What was wrong about the end.
        reason: EndReason,
        /// The last bytes it wrote to stderr.
        stderr_tail: String,
    },
    /// The program of a command-prefix launcher (`ssh`, `docker exec`, …) ended before the
    /// CLI wrote anything: it never started the CLI, or the CLI failed at once (its stderr
    /// tells which).
    #[error("{}", launcher_message(.program, *.code, *.signal, .stderr_tail))]
    LauncherExited {
        /// The launcher's program, as given.
        program: String,
        /// Its exit code, if it exited normally.
        code: Option<i32>,
        /// The signal that ended it, if one did.
        signal: Option<i32>,
        /// The last bytes written to stderr (the launcher's and the CLI's).
        stderr_tail: String,
    },
    /// A line could not be read as a frame; the session goes on.
    #[error("undecodable frame at line {line}: {source}")]
    Decode {
        /// The line number in the peer's output.
        line: u64,
        /// Why.
        #[source]
        source: DecodeError,
    },
    /// A line was too long or not UTF-8 and was skipped; the session goes on.
    #[error("skipped a line: {0}")]
    Line(#[from] LineError),
    /// The peer answered a control request with an error.
    #[error("control request `{subtype}` failed: {message}{}", code_suffix(.code))]
    Control {
        /// The request's subtype.
        subtype: String,
        /// The peer's message.
        message: String,
        /// The peer's error code, e.g. `unsupported_request`.
        code: Option<String>,
    },
    /// The peer did not answer in time.
    #[error("control request `{subtype}` got no answer within {timeout:?}")]
    Timeout {
        /// The request's subtype.
        subtype: String,
        /// The limit that passed.
        timeout: Duration,
    },
    /// The session is closed; nothing more can be sent or received.
    #[error("the session is closed")]
    Closed,
    /// Reading or writing the pipes failed.
    #[error("I/O error: {0}")]
    Io(Arc<std::io::Error>),
    /// A value could not be turned into JSON, or a response into its type.
    #[error("JSON error: {0}")]
    Json(Arc<serde_json::Error>),
    /// The options given cannot work together.
    #[error("invalid options: {0}")]
    InvalidOptions(String),

    /// The agent asked the host about a tool use that was already decided.
    #[error("tool use {tool_use_id} was already decided")]
    AlreadyDecided {
        /// The tool use.
        tool_use_id: String,
    },
    /// A turn failed: its `result` said so (from [`ResultMessage::error`] or
    /// [`ResultMessage::answer`]; see [`Error::is_usage_limit`]). When the CLI had no usable
    /// credentials the message says how to give it some.
    ///
    /// [`ResultMessage::error`]: twinwire_protocol::result::ResultMessage::error
    /// [`ResultMessage::answer`]: twinwire_protocol::result::ResultMessage::answer
    #[error("{}", result_message(.0))]
    Result(Box<ResultError>),
    /// A crashed host's session could not be re-attached (see
    /// [`Client::reattach`](crate::Client::reattach)): nothing was resumed, and no process was
    /// signalled that the reason does not name.
    #[error("cannot re-attach session {session_id}: {why}")]
    Reattach {
        /// The session.
        session_id: String,
        /// Why not.
        why: String,
    },
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            f.debug_struct("Error")
                .field("type", &error_type(self))
                .field("message", &format_args!("{self}"))
                .finish()
        } else {
            std::fmt::Display::fmt(self, f)
        }
    }
}

impl Error {
    /// Whether the CLI could not be found.
    pub fn is_cli_not_found(&self) -> bool {
        matches!(self, Self::CliNotFound { .. })
    }

    /// Whether the CLI exited or the session closed.
    pub fn is_closed(&self) -> bool {
        matches!(
            self,
            Self::ProcessExited { .. } | Self::LauncherExited { .. } | Self::Closed
        )
    }

    /// Whether a request timed out.
    pub fn is_timeout(&self) -> bool {
        matches!(self, Self::Timeout { .. })
    }

    /// Whether only one frame was lost and the session goes on.
    pub fn is_recoverable(&self) -> bool {
        matches!(self, Self::Decode { .. } | Self::Line(_))
    }

    /// Whether a turn failed because a usage limit was reached (the CLI's words for it, see
    /// [`twinwire_protocol::limits`]).
    pub fn is_usage_limit(&self) -> bool {
        matches!(self, Self::Result(error) if error.is_usage_limit())
    }

    /// The CLI's last stderr lines, if the error carries them.
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            Self::ProcessExited { stderr_tail, .. } | Self::LauncherExited { stderr_tail, .. } => {
                Some(stderr_tail)
            }
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Self::Io(Arc::new(err))
    }
}

impl From<ResultError> for Error {
    fn from(err: ResultError) -> Self {
        Self::Result(Box::new(err))
    }
}

impl From<Box<ResultError>> for Error {
    fn from(err: Box<ResultError>) -> Self {
        Self::Result(err)
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Self {
        Self::Json(Arc::new(err))
    }
}

/// What was wrong about the end of a CLI's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EndReason {
    /// It exited (or was killed) while something was still expected of it.
    Exited,
    /// It exited while a turn was running: the last message sent got no `result`.
    ExitedMidTurn,
    /// Its last line had no newline: it stopped in the middle of a frame.
    PartialLastLine,
    /// It closed its stdout but kept running; it was stopped (SIGTERM, then SIGKILL).
    OutputClosed,
    /// It exited before answering `initialize`: the session never started.
    ExitedDuringInitialize,
    /// It exited on its own after `initialize` and before the first user message.
    ExitedBeforeFirstTurn,
}

/// The crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

fn exit_message(
    code: Option<i32>,
    signal: Option<i32>,
    reason: EndReason,
    stderr_tail: &str,
) -> String {
    let exited = match (code, signal) {
        (Some(code), _) => format!("the CLI exited with code {code}"),
        (None, Some(signal)) => format!("the CLI was killed by signal {signal}"),
        (None, None) => "the CLI closed its output".to_owned(),
    };
    let how = match reason {
        EndReason::Exited => exited,
        EndReason::ExitedMidTurn => format!("{exited} before the turn ended (no result)"),
        EndReason::PartialLastLine => format!("{exited} in the middle of a line"),
        EndReason::OutputClosed => {
            "the CLI closed its output but kept running (it was stopped)".to_owned()
        }
        EndReason::ExitedDuringInitialize => format!("{exited} before answering `initialize`"),
        EndReason::ExitedBeforeFirstTurn => format!("{exited} before the first turn"),
    };
    with_stderr(how, stderr_tail)
}

fn launcher_message(
    program: &str,
    code: Option<i32>,
    signal: Option<i32>,
    stderr_tail: &str,
) -> String {
    let ended = match (code, signal) {
        (Some(code), _) => format!("ended with exit code {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "stopped taking input and was stopped".to_owned(),
    };
    let how = format!(
        "the launcher's program `{program}` {ended} before the CLI started (nothing came from \
         the CLI)"
    );
    with_stderr(how, stderr_tail)
}

fn with_stderr(how: String, stderr_tail: &str) -> String {
    if stderr_tail.trim().is_empty() {
        format!("{how}; nothing on stderr")
    } else {
        format!("{how}; stderr ends with:\n{}", stderr_tail.trim_end())
    }
}

fn not_found_message(searched: &str, given: Option<&std::path::Path>) -> String {
    match given {
        Some(name) if is_bare_name(name) => format!(
            "Claude Code CLI `{}` not found on {searched} (the name given as `Options::cli_path`; \
             a name is looked up on PATH, a path with a directory is taken as it is)",
            name.display()
        ),
        Some(path) => format!(
            "Claude Code CLI not found at {} (the path given as `Options::cli_path`)",
            path.display()
        ),
        None => format!(
            "Claude Code CLI not found (looked in: {searched}); install the version twinwire is \
             tested against with `twinwire install-claude` (or `twinwire::install`), or Claude \
             Code as usual with `npm install -g @anthropic-ai/claude-code`; or name the \
             executable with `Options::cli_path` or TWINWIRE_CLI_PATH"
        ),
    }
}

/// What to do when the CLI has no credentials, said after its own words (`Please run /login`,
/// a command of its terminal that a host cannot type).
pub(crate) const LOGIN_HINT: &str = "give the CLI credentials: ANTHROPIC_API_KEY in its \
     environment, or log in once in Claude Code's own terminal (`claude`, then /login); or try \
     it without an account against a scripted model: `twinwire offline -- COMMAND`";

fn result_message(error: &ResultError) -> String {
    if error.needs_login() {
        format!("{error}; {LOGIN_HINT}")
    } else {
        error.to_string()
    }
}

fn code_suffix(code: &Option<String>) -> String {
    code.as_ref().map(|c| format!(" ({c})")).unwrap_or_default()
}

/// Whether `path` is a bare program name (`fake-claude`), with no directory in it.
pub(crate) fn is_bare_name(path: &std::path::Path) -> bool {
    let mut components = path.components();
    matches!(
        (components.next(), components.next()),
        (Some(std::path::Component::Normal(_)), None)
    ) && !path.as_os_str().to_string_lossy().contains(['/', '\\'])
}

/// The `error.type` of an [`Error`]: the variant's name in snake case.
pub(crate) fn error_type(error: &Error) -> &'static str {
    match error {
        Error::CliNotFound { .. } => "cli_not_found",
        Error::CliNotExecutable { .. } => "cli_not_executable",
        Error::WorkingDirectory { .. } => "working_directory",
        Error::CliTooOld { .. } => "cli_too_old",
        Error::BudgetExceeded { .. } => "budget_exceeded",
        Error::SpawnFailed { .. } => "spawn_failed",
        Error::ProcessExited { .. } => "process_exited",
        Error::LauncherExited { .. } => "launcher_exited",
        Error::Decode { .. } => "decode",
        Error::Control { .. } => "control_error",
        Error::Timeout { .. } => "timeout",
        Error::Closed => "closed",
        Error::Io(_) => "io",
        Error::Json(_) => "json",
        Error::InvalidOptions(_) => "invalid_options",
        Error::AlreadyDecided { .. } => "already_decided",
        Error::Result(_) => "result_error",
        Error::Reattach { .. } => "reattach",
        _ => "_OTHER",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_the_message_so_that_main_ends_readably() {
        let err = Error::CliNotFound {
            searched: "PATH, the usual install locations".to_owned(),
            given: None,
        };
        // What `fn main() -> twinwire::Result<()>` prints after `Error: `.
        let shown = format!("{err:?}");
        assert_eq!(shown, err.to_string());
        assert!(!shown.contains("CliNotFound {"), "{shown}");
        for what_to_do in ["twinwire install-claude", "TWINWIRE_CLI_PATH"] {
            assert!(shown.contains(what_to_do), "{shown}");
        }
        let detailed = format!("{err:#?}");
        assert!(detailed.contains("cli_not_found"), "{detailed}");
        assert!(detailed.contains("twinwire install-claude"), "{detailed}");
    }

    #[test]
    fn a_turn_without_credentials_says_how_to_give_some() {
        let result: twinwire_protocol::result::ResultMessage =
            serde_json::from_value(serde_json::json!({
                "subtype": "success", "is_error": true,
                "result": "Not logged in · Please run /login"
            }))
            .unwrap();
        let err = Error::from(result.answer().unwrap_err());
        let text = format!("{err:?}");
        assert!(text.starts_with("Claude Code returned an error result: Not logged in"));
        for what_to_do in ["ANTHROPIC_API_KEY", "twinwire offline"] {
            assert!(text.contains(what_to_do), "{text}");
        }
        // Any other failure is the CLI's words alone.
        let other: twinwire_protocol::result::ResultMessage =
            serde_json::from_value(serde_json::json!({
                "subtype": "success", "is_error": true, "result": "API Error: 500 boom"
            }))
            .unwrap();
        let err = Error::from(other.answer().unwrap_err());
        assert_eq!(
            err.to_string(),
            "Claude Code returned an error result: API Error: 500 boom"
        );
    }
}
