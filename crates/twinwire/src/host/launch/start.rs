//! Starting the CLI as a [`LaunchPlan`] says, through its launcher, and what ends it
//! ([`Carrier`]).

use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::watch;

use super::{forwarded_env, wrapper, LaunchRequest, Launcher};
use crate::error::{Error, Result};
use crate::host::process::{
    discover, ChildProcess, CliCommand, OutputEnded, ShutdownTimeouts, Spawn, StderrCallback,
};

/// How long the program carrying a CLI from elsewhere may take to exit after the CLI's output
/// ended: the far side's wrapper notices within 100 ms, then the connection reports the exit.
const PREFIX_EXIT_GRACE: Duration = Duration::from_secs(5);

/// The CLI's stdout, boxed.
pub(crate) type BoxRead = Pin<Box<dyn AsyncRead + Send>>;
/// The CLI's stdin, boxed.
pub(crate) type BoxWrite = Pin<Box<dyn AsyncWrite + Send>>;

/// A started CLI: what ends it, and its two streams.
pub(crate) struct Started {
    /// What ends the CLI.
    pub carrier: Carrier,
    pub reader: BoxRead,
    pub writer: BoxWrite,
}

/// What carries the CLI: a local child process (the CLI itself, or `ssh` & co.), or a custom
/// launcher's streams.
#[derive(Debug)]
pub(crate) enum Carrier {
    Process(ChildProcess),
    Streams(StreamsEnd),
}

/// How a custom launcher's session ends: its output's end, and its stop function.
pub(crate) struct StreamsEnd {
    output_closed: watch::Receiver<bool>,
    stop: Mutex<Option<Box<dyn FnOnce() + Send>>>,
}

impl std::fmt::Debug for StreamsEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamsEnd")
            .field("output_closed", &*self.output_closed.borrow())
            .finish_non_exhaustive()
    }
}

impl StreamsEnd {
    fn stop(&self) {
        let stop = self
            .stop
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(stop) = stop {
            stop();
        }
    }

    async fn closed_within(&self, limit: Duration) -> bool {
        let mut closed = self.output_closed.clone();
        let waited = tokio::time::timeout(limit, closed.wait_for(|closed| *closed)).await;
        matches!(waited, Ok(Ok(_)))
    }
}

impl Drop for StreamsEnd {
    fn drop(&mut self) {
        if !*self.output_closed.borrow() {
            self.stop();
        }
    }
}

/// A stream's end counts as a clean exit: a transport has no exit status of its own.
fn clean_exit() -> ExitStatus {
    ExitStatus::default()
}

impl Carrier {
    /// The local process id (the CLI, or the program carrying it).
    pub fn pid(&self) -> Option<u32> {
        match self {
            Self::Process(process) => process.pid(),
            Self::Streams(_) => None,
        }
    }

    /// The exit status, once it has ended.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match self {
            Self::Process(process) => process.exit_status(),
            Self::Streams(end) => (*end.output_closed.borrow()).then(clean_exit),
        }
    }

    /// Stops at once.
    pub fn kill(&self) {
        match self {
            Self::Process(process) => process.kill(),
            Self::Streams(end) => end.stop(),
        }
    }

    /// Ends gracefully after stdin was closed: waits, then signals (or the stop function).
    pub async fn shutdown(&self, timeouts: ShutdownTimeouts) -> Option<ExitStatus> {
        match self {
            Self::Process(process) => process.shutdown(timeouts).await,
            Self::Streams(end) => {
                if !end.closed_within(timeouts.after_close).await {
                    end.stop();
                    if !end.closed_within(timeouts.after_term).await {
                        return None;
                    }
                }
                Some(clean_exit())
            }
        }
    }

    /// Waits up to `limit` for the end.
    pub async fn wait_for_exit(&self, limit: Duration) -> Option<ExitStatus> {
        match self {
            Self::Process(process) => process.wait_for_exit(limit).await,
            Self::Streams(end) => end.closed_within(limit).await.then(clean_exit),
        }
    }

    /// What became of the CLI once its output ended (see [`ChildProcess::output_ended`]).
    pub fn output_ended(
        &self,
        timeouts: ShutdownTimeouts,
    ) -> Pin<Box<dyn std::future::Future<Output = OutputEnded> + Send + 'static>> {
        match self {
            Self::Process(process) => Box::pin(process.output_ended(timeouts)),
            Self::Streams(_) => Box::pin(async {
                OutputEnded {
                    status: Some(clean_exit()),
                    stderr_tail: String::new(),
                    launcher: None,
                }
            }),
        }
    }
}

/// What starting the CLI takes, read off the options once (`Options::launch_plan`).
pub(crate) struct LaunchPlan {
    /// Where the CLI runs.
    pub(crate) launcher: Launcher,
    /// The CLI to run; `None` finds it (locally) or runs `claude` (elsewhere).
    pub(crate) cli_path: Option<std::path::PathBuf>,
    /// The CLI's arguments.
    pub(crate) args: Vec<std::ffi::OsString>,
    /// Environment changes: `Some` sets, `None` removes.
    pub(crate) env: Vec<(std::ffi::OsString, Option<std::ffi::OsString>)>,
    /// Its working directory.
    pub(crate) cwd: Option<std::path::PathBuf>,
    /// Called with each stderr line.
    pub(crate) on_stderr: Option<StderrCallback>,
    /// The OS user to run it as (local only).
    pub(crate) user: Option<String>,
    /// How long each step of stopping it may take.
    pub(crate) shutdown: ShutdownTimeouts,
}

/// Starts the CLI as `plan` says, through its launcher.
pub(crate) async fn start(plan: LaunchPlan) -> Result<Started> {
    match &plan.launcher {
        Launcher::Local => {
            let command = discover(plan.cli_path.as_deref())?;
            let (process, stdin, stdout) = ChildProcess::spawn(Spawn {
                command,
                args: plan.args.clone(),
                env: plan.env.clone(),
                cwd: plan.cwd.clone(),
                on_stderr: plan.on_stderr.clone(),
                user: plan.user.clone(),
            })
            .await?;
            let reader = process.session_stdout(stdout);
            Ok(Started {
                carrier: Carrier::Process(process),
                reader,
                writer: Box::pin(stdin),
            })
        }
        Launcher::Prefix(prefix) => {
            if plan.user.is_some() {
                return Err(Error::InvalidOptions(
                    "`user` applies to a local CLI; through a launcher, choose the user in the \
                     launcher's command (e.g. `ssh user@host`)"
                        .into(),
                ));
            }
            let request = launch_request(&plan);
            let preamble = request.preamble()?;
            let args = prefix.args_running(wrapper::wrapper_command(&request));
            let spawn = Spawn {
                command: CliCommand {
                    program: prefix.argv[0].clone().into(),
                    leading_args: Vec::new(),
                },
                args,
                // The carrying program runs here with this environment (ssh needs its agent
                // socket); what the CLI gets goes in the preamble.
                env: Vec::new(),
                cwd: None,
                on_stderr: plan.on_stderr.clone(),
                user: None,
            };
            let (process, mut stdin, stdout) =
                ChildProcess::spawn_launcher(spawn, ladder_time(plan.shutdown)).await?;
            let process = process.with_exit_grace(PREFIX_EXIT_GRACE);
            if let Err(err) = stdin.write_all(&preamble).await {
                // It stopped reading at once: it ended (or never ran the wrapper).
                tracing::debug!(%err, "the launcher's program took no preamble");
                return Err(launcher_ended(&process).await);
            }
            Ok(Started {
                carrier: Carrier::Process(process),
                reader: Box::pin(stdout),
                writer: Box::pin(stdin),
            })
        }
        Launcher::Custom(launch) => {
            let launched = launch
                .launch(launch_request(&plan))
                .await
                .map_err(|source| Error::SpawnFailed {
                    path: "(custom launcher)".into(),
                    cause: std::sync::Arc::new(source),
                })?;
            let (closed_tx, closed_rx) = watch::channel(false);
            Ok(Started {
                carrier: Carrier::Streams(StreamsEnd {
                    output_closed: closed_rx,
                    stop: Mutex::new(launched.stop),
                }),
                reader: Box::pin(EofWatch {
                    inner: launched.reader,
                    closed: closed_tx,
                }),
                writer: launched.writer,
            })
        }
    }
}

/// How long the wrapper's stop ladder may take on the far side: its grace and its SIGTERM wait
/// (each a whole number of seconds, rounded up), and a second to spare.
fn ladder_time(timeouts: ShutdownTimeouts) -> Duration {
    let seconds = |d: Duration| d.as_secs_f64().ceil().max(1.0);
    Duration::from_secs_f64(seconds(timeouts.after_close) + seconds(timeouts.after_term) + 1.0)
}

/// The error for a launcher's program that stopped taking input before the CLI started: how it
/// ended (it is stopped if it has not) and what it wrote to stderr.
async fn launcher_ended(process: &ChildProcess) -> Error {
    let status = process.wait_for_exit(PREFIX_EXIT_GRACE).await;
    if status.is_none() {
        process.kill();
    }
    let stderr_tail = process.stderr_tail_within(Duration::from_secs(1)).await;
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.and_then(|s| s.signal())
    };
    #[cfg(not(unix))]
    let signal = None;
    Error::LauncherExited {
        program: process.launcher_program().unwrap_or_default().to_owned(),
        code: status.and_then(|s| s.code()),
        signal,
        stderr_tail,
    }
}

/// What a prefix or custom launcher is asked to start.
fn launch_request(plan: &LaunchPlan) -> LaunchRequest {
    let program = plan
        .cli_path
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from("claude"));
    let command = CliCommand::for_path(program);
    let mut argv = vec![command.program.into_os_string()];
    argv.extend(command.leading_args);
    argv.extend(plan.args.iter().cloned());
    LaunchRequest {
        argv,
        env: forwarded_env(std::env::vars_os(), &plan.env),
        cwd: plan.cwd.clone(),
        shutdown: plan.shutdown,
    }
}

/// A reader that says when it reached its end (or failed).
struct EofWatch {
    inner: BoxRead,
    closed: watch::Sender<bool>,
}

impl AsyncRead for EofWatch {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = self.inner.as_mut().poll_read(cx, buf);
        match &polled {
            Poll::Ready(Ok(())) if buf.filled().len() == before => {
                let _ = self.closed.send(true);
            }
            Poll::Ready(Err(_)) => {
                let _ = self.closed.send(true);
            }
            _ => {}
        }
        polled
    }
}
