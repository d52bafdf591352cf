//! Starting the `claude` CLI as a child process and ending it cleanly.
//!
//! - [`discover`] finds the executable.
//! - [`ChildProcess::spawn`] starts it with its own process group, stderr always drained (a
//!   per-line callback plus a tail of the last bytes kept for error messages), and on Linux a
//!   parent-death signal so that it dies with the host process (forked from a thread that lives
//!   as long as the process: see `spawner`); on macOS and the BSDs a watcher process does the
//!   same (see `watcher`), on Windows a Job Object with kill-on-close (see `group`).
//! - [`ChildProcess::shutdown`] closes it gracefully: the caller closes its stdin, then this
//!   waits, sends SIGTERM to the process group, waits, and sends SIGKILL. Dropping a
//!   [`ChildProcess`] that is still running kills its process group at once; `kill_on_drop` is
//!   the backstop should the runtime go away first.
//! - [`ChildProcess::output_ended`] says what became of a child whose stdout ended, and stops
//!   one that keeps running with the same ladder.
//! - On Linux, a CLI that lets go of its stdout while a process it started still holds the
//!   pipe is noticed (see `stdout_watch`); elsewhere its output ends only when the last holder
//!   closes it.
//!
//! The program of a command-prefix launcher (`ssh`, `nice`, …) is started the same way with
//! three differences: its parent-death signal is SIGTERM, not SIGKILL, and so is what `kill`
//! sends it first (the launch wrapper catches it and stops the CLI, its process group included,
//! with the ladder; `ssh` ends its connection, so the far side's wrapper does), SIGKILL
//! following if it is still running once that ladder's time is up; and no `kill_on_drop`, so
//! that a runtime that goes away leaves the wrapper its ladder (its input ends then).

mod discovery;
mod group;
#[cfg(target_os = "linux")]
mod spawner;
mod stderr;
#[cfg(target_os = "linux")]
mod stdout_watch;
#[cfg(unix)]
mod watcher;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

pub use discovery::{discover, pinned_cli_dir, CliCommand, CLI_PATH_ENV, PINNED_CLI_VERSION};
pub use stderr::{StderrCallback, StderrTail, MAX_LINE_PIECE, TAIL_BYTES};
#[cfg(target_os = "linux")]
pub use stdout_watch::QUIET_CHECK;

use crate::error::{Error, Result};
use group::{Group, Signal};

/// How to start the child.
#[derive(Clone)]
pub struct Spawn {
    /// The program and the arguments that come before ours (e.g. `node cli.js`).
    pub command: CliCommand,
    /// Our arguments.
    pub args: Vec<OsString>,
    /// Environment changes: `Some` sets, `None` removes. Applied over the parent's.
    pub env: Vec<(OsString, Option<OsString>)>,
    /// Working directory.
    pub cwd: Option<PathBuf>,
    /// Called with each stderr line.
    pub on_stderr: Option<StderrCallback>,
    /// Run as this OS user (name), which needs the privilege to switch users.
    pub user: Option<String>,
}

/// How long each step of a graceful shutdown may take.
#[derive(Debug, Clone, Copy)]
pub struct ShutdownTimeouts {
    /// After stdin closes, before SIGTERM.
    pub after_close: Duration,
    /// After SIGTERM, before SIGKILL.
    pub after_term: Duration,
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        Self {
            after_close: Duration::from_secs(5),
            after_term: Duration::from_secs(5),
        }
    }
}

/// A running child and what is known about it.
#[derive(Debug)]
pub struct ChildProcess {
    pid: Option<u32>,
    /// What the stop ladder reaches: its process group, or its job on Windows.
    group: Group,
    /// How long it may take to exit once its stdout ended (see [`ChildProcess::output_ended`]).
    exit_grace: Duration,
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: StderrTail,
    /// For the program of a command-prefix launcher: its name, and how to ask its wait task to
    /// SIGKILL it should the SIGTERM of [`ChildProcess::kill`] not end it.
    launcher: Option<LauncherProgram>,
}

#[derive(Debug)]
struct LauncherProgram {
    program: String,
    /// How long the wrapper's stop ladder takes once the program's input ends.
    ladder: Duration,
    stop_asked: watch::Sender<bool>,
}

/// What the child is: the CLI itself, or a program that carries it (with the time its far
/// side's stop ladder takes, after which it is killed).
enum Role {
    Cli,
    Launcher { ladder: Duration },
}

impl ChildProcess {
    /// Starts the child with piped stdin, stdout and stderr; returns it and its stdio.
    pub async fn spawn(spawn: Spawn) -> Result<(ChildProcess, ChildStdin, ChildStdout)> {
        Self::spawn_as(spawn, Role::Cli).await
    }

    /// Starts the program of a command-prefix launcher: as [`ChildProcess::spawn`], with
    /// SIGTERM as its parent-death signal and as the first signal of `kill`; it is killed if
    /// still running `ladder` after that (the time the wrapper's stop ladder takes).
    pub(crate) async fn spawn_launcher(
        spawn: Spawn,
        ladder: Duration,
    ) -> Result<(ChildProcess, ChildStdin, ChildStdout)> {
        Self::spawn_as(spawn, Role::Launcher { ladder }).await
    }

    async fn spawn_as(spawn: Spawn, role: Role) -> Result<(ChildProcess, ChildStdin, ChildStdout)> {
        if let Some(cwd) = &spawn.cwd {
            check_cwd(cwd)?;
        }
        let mut command = Command::new(&spawn.command.program);
        command
            .args(&spawn.command.leading_args)
            .args(&spawn.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // The backstop should the runtime go away first; not for a launcher's program,
            // which must live on to stop the CLI it carries (its input ends with the runtime,
            // and the wrapper's ladder starts).
            .kill_on_drop(matches!(role, Role::Cli));
        for (key, value) in &spawn.env {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
        if let Some(cwd) = &spawn.cwd {
            command.current_dir(cwd);
        }
        #[cfg(unix)]
        if let Some(user) = &spawn.user {
            let found = nix::unistd::User::from_name(user)
                .ok()
                .flatten()
                .ok_or_else(|| Error::InvalidOptions(format!("no such user: {user}")))?;
            command.uid(found.uid.as_raw()).gid(found.gid.as_raw());
        }
        Group::prepare(&mut command);
        #[cfg(unix)]
        {
            // Its own process group, so that shutdown reaches the tools it started too.
            command.process_group(0);
            die_with_parent(
                &mut command,
                match role {
                    Role::Cli => Signal::Kill,
                    Role::Launcher { .. } => Signal::Term,
                },
            );
        }
        #[cfg(target_os = "linux")]
        let started = spawner::spawn(command).await;
        #[cfg(not(target_os = "linux"))]
        let started = command.spawn();
        let mut child = started.map_err(|source| {
            // A working directory removed since the check reads as the program missing.
            if let Some(Err(err)) = spawn.cwd.as_deref().map(check_cwd) {
                return err;
            }
            Error::SpawnFailed {
                path: spawn.command.program.clone(),
                cause: Arc::new(source),
            }
        })?;
        let pid = child.id();
        let group = Group::of(
            &child,
            match role {
                Role::Cli => Signal::Kill,
                Role::Launcher { .. } => Signal::Term,
            },
        );
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(stdin), Some(stdout), Some(stderr)) => (stdin, stdout, stderr),
                _ => {
                    return Err(Error::SpawnFailed {
                        path: spawn.command.program.clone(),
                        cause: Arc::new(std::io::Error::other("child stdio was not piped")),
                    })
                }
            };
        let stderr = StderrTail::drain(stderr, spawn.on_stderr.clone());
        let (exit_tx, exit_rx) = watch::channel(None);
        let (launcher, stop_asked) = match role {
            Role::Cli => (None, None),
            Role::Launcher { ladder } => {
                let (stop_asked, asked) = watch::channel(false);
                let program = spawn.command.program.display().to_string();
                (
                    Some(LauncherProgram {
                        program,
                        ladder,
                        stop_asked,
                    }),
                    Some((asked, ladder)),
                )
            }
        };
        let wait_group = group.clone();
        tokio::spawn(async move {
            let status = match stop_asked {
                None => child.wait().await,
                Some((asked, ladder)) => {
                    wait_or_escalate(&mut child, &wait_group, asked, ladder).await
                }
            };
            match status {
                Ok(status) => {
                    tracing::debug!(?pid, %status, "CLI exited");
                    // Whatever it started and left in its group goes with it.
                    wait_group.after_exit();
                    let _ = exit_tx.send(Some(status));
                }
                Err(err) => tracing::warn!(?pid, %err, "could not wait for the CLI"),
            }
        });
        tracing::debug!(?pid, program = %spawn.command.program.display(), "started the CLI");
        Ok((
            ChildProcess {
                pid,
                group,
                exit_grace: EXIT_GRACE,
                exit: exit_rx,
                stderr,
                launcher,
            },
            stdin,
            stdout,
        ))
    }

    /// Gives the child `grace` (instead of [`EXIT_GRACE`]) to exit once its stdout ended: a
    /// program that carries the CLI from elsewhere (`ssh`) exits only after the far side has
    /// reported the end.
    #[must_use]
    pub fn with_exit_grace(mut self, grace: Duration) -> Self {
        self.exit_grace = grace;
        self
    }

    /// The child's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The child's stdout as the session reads it: on Linux, a CLI that lets go of it while a
    /// process it started still holds it ends the output (see `stdout_watch`). Not for a
    /// launcher's program, whose own stdout may rightly be handed on (the wrapper gives it to
    /// the CLI and lets go).
    pub(crate) fn session_stdout(
        &self,
        stdout: ChildStdout,
    ) -> std::pin::Pin<Box<dyn tokio::io::AsyncRead + Send>> {
        #[cfg(target_os = "linux")]
        if self.launcher.is_none() {
            return Box::pin(stdout_watch::WatchedStdout::new(
                stdout,
                self.pid,
                self.exit.clone(),
            ));
        }
        Box::pin(stdout)
    }

    /// The exit status, if it has exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// The stderr lines kept so far.
    pub fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// Waits up to `limit` for the child to exit.
    pub async fn wait_for_exit(&self, limit: Duration) -> Option<ExitStatus> {
        let mut exit = self.exit.clone();
        let waited = tokio::time::timeout(limit, exit.wait_for(Option::is_some)).await;
        match waited {
            Ok(Ok(status)) => *status,
            _ => self.exit_status(),
        }
    }

    /// What became of the child once its stdout ended (the caller has closed its stdin by
    /// then): waits up to [`EXIT_GRACE`] (or its own grace) for it to exit, and for its stderr to be drained. A
    /// child that is still running is stopped in the background with the usual ladder
    /// (SIGTERM after `timeouts.after_close`, SIGKILL after `timeouts.after_term`), so that
    /// nothing is left behind, and reported at once as still running.
    pub fn output_ended(
        &self,
        timeouts: ShutdownTimeouts,
    ) -> impl std::future::Future<Output = OutputEnded> + Send + 'static {
        let exit = self.exit.clone();
        let stderr = self.stderr.clone();
        let pid = self.pid;
        let group = self.group.clone();
        let grace = self.exit_grace;
        let launcher = self.launcher.as_ref().map(|l| l.program.clone());
        let ladder = self.ladder();
        async move {
            let status = wait_exit(&exit, grace).await;
            if status.is_none() {
                tracing::warn!(
                    ?pid,
                    "the CLI closed its output but keeps running: stopping it"
                );
                let exit = exit.clone();
                tokio::spawn(async move {
                    stop(&group, &exit, timeouts, ladder).await;
                });
                stderr.wait_drained(Duration::from_millis(100)).await;
            } else {
                stderr.wait_drained(Duration::from_secs(1)).await;
            }
            OutputEnded {
                status,
                stderr_tail: stderr.text(),
                launcher,
            }
        }
    }

    /// Ends the child gracefully; the caller has already closed its stdin. Returns its exit
    /// status.
    pub async fn shutdown(&self, timeouts: ShutdownTimeouts) -> Option<ExitStatus> {
        stop(&self.group, &self.exit, timeouts, self.ladder()).await
    }

    /// Kills the process group at once, if the child still runs. A launcher's program gets
    /// SIGTERM (the wrapper then stops the CLI with its ladder), and SIGKILL once the ladder's
    /// time is up.
    pub fn kill(&self) {
        if self.exit_status().is_some() {
            return;
        }
        match &self.launcher {
            None => self.group.signal(Signal::Kill),
            Some(launcher) => {
                self.group.signal(Signal::Term);
                launcher.stop_asked.send_replace(true);
            }
        }
    }

    /// The stderr tail once stderr has ended (waiting up to `limit` for that).
    pub(crate) async fn stderr_tail_within(&self, limit: Duration) -> String {
        self.stderr.wait_drained(limit).await;
        self.stderr.text()
    }

    /// For a launcher's program: how long the wrapper's stop ladder takes.
    fn ladder(&self) -> Option<Duration> {
        self.launcher.as_ref().map(|l| l.ladder)
    }

    /// The launcher's program, for a command-prefix launcher's child.
    pub(crate) fn launcher_program(&self) -> Option<&str> {
        self.launcher.as_ref().map(|l| l.program.as_str())
    }
}

/// A launcher's program: waits for its exit; once a stop was asked, gives it `ladder`, then
/// SIGKILLs its process group.
async fn wait_or_escalate(
    child: &mut tokio::process::Child,
    group: &Group,
    mut asked: watch::Receiver<bool>,
    ladder: Duration,
) -> std::io::Result<ExitStatus> {
    tokio::select! {
        status = child.wait() => return status,
        // An error: the `ChildProcess` is gone without asking (it had exited).
        Ok(_) = asked.wait_for(|asked| *asked) => {}
    }
    if let Ok(status) = tokio::time::timeout(ladder, child.wait()).await {
        return status;
    }
    tracing::warn!(
        pid = ?group.pid(),
        "the launcher's program outlived its stop ladder: SIGKILL"
    );
    group.signal(Signal::Kill);
    child.wait().await
}

/// A working directory that cannot be entered, said as such (spawning in it fails with the
/// same error as a missing program).
fn check_cwd(cwd: &std::path::Path) -> Result<()> {
    let problem = match std::fs::metadata(cwd) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(_) => "is not a directory".to_owned(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => "does not exist".to_owned(),
        Err(err) => format!("cannot be used: {err}"),
    };
    Err(Error::WorkingDirectory {
        path: cwd.to_path_buf(),
        problem,
    })
}

/// What is known of a child whose stdout ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OutputEnded {
    /// Its exit status, if it exited within the grace period; `None` if it kept running (it is
    /// being stopped).
    pub status: Option<ExitStatus>,
    /// The last bytes it wrote to stderr.
    pub stderr_tail: String,
    /// The launcher's program, when the child carries the CLI (a command-prefix launcher).
    pub launcher: Option<String>,
}

/// How long a child whose stdout ended may take to exit before it counts as still running.
pub const EXIT_GRACE: Duration = Duration::from_millis(500);

async fn wait_exit(
    exit: &watch::Receiver<Option<ExitStatus>>,
    limit: Duration,
) -> Option<ExitStatus> {
    let mut exit = exit.clone();
    let waited = tokio::time::timeout(limit, exit.wait_for(Option::is_some))
        .await
        .ok()
        .and_then(|status| status.ok().and_then(|status| *status));
    waited.or_else(|| *exit.borrow())
}

/// The stop ladder: wait, SIGTERM the group, wait, SIGKILL the group. A launcher's program
/// is first given the time of the wrapper's own ladder (`ladder`), which its input's end
/// started.
async fn stop(
    group: &Group,
    exit: &watch::Receiver<Option<ExitStatus>>,
    timeouts: ShutdownTimeouts,
    ladder: Option<Duration>,
) -> Option<ExitStatus> {
    if let Some(status) = wait_exit(exit, ladder.unwrap_or(timeouts.after_close)).await {
        return Some(status);
    }
    let pid = group.pid();
    tracing::debug!(?pid, "CLI still running after stdin closed: SIGTERM");
    group.signal(Signal::Term);
    if let Some(status) = wait_exit(exit, timeouts.after_term).await {
        return Some(status);
    }
    tracing::warn!(?pid, "CLI ignored SIGTERM: SIGKILL");
    group.signal(Signal::Kill);
    wait_exit(exit, Duration::from_secs(5)).await
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        // Synchronous on purpose: no task is spawned from `drop`.
        self.kill();
    }
}

/// The error for a child that ended with `status`, for `reason`.
pub fn exit_error(
    status: Option<ExitStatus>,
    reason: crate::error::EndReason,
    stderr_tail: String,
) -> Error {
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt;
        status.and_then(|s| s.signal())
    };
    #[cfg(not(unix))]
    let signal = None;
    Error::ProcessExited {
        code: status.and_then(|s| s.code()),
        signal,
        reason,
        stderr_tail,
    }
}

/// Linux: the child gets `signal` when the thread that forked it ends, so a host that dies
/// without cleaning up leaves no CLI behind: SIGKILL for the CLI, SIGTERM for a launcher's
/// program (which must live on long enough to stop the CLI it carries). The fork happens on
/// the spawner thread, which lives as long as the process (see `spawner`).
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command, signal: Signal) {
    let signal = match signal {
        Signal::Term => nix::sys::signal::Signal::SIGTERM,
        Signal::Kill => nix::sys::signal::Signal::SIGKILL,
    };
    // SAFETY: the closure runs in the forked child before exec and only calls prctl(2) and
    // getppid(2), both async-signal-safe; it allocates nothing and takes no locks.
    let parent = nix::unistd::Pid::this();
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Some(signal)).map_err(std::io::Error::from)?;
            // The parent may have died before prctl ran: then we were re-parented already.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::other("parent exited during spawn"));
            }
            Ok(())
        });
    }
}

/// Elsewhere on Unix there is no parent-death signal: a watcher process does its work, started
/// once the child runs (see `watcher`).
#[cfg(all(unix, not(target_os = "linux")))]
fn die_with_parent(_command: &mut Command, _signal: Signal) {}
