//! Starting the `claude` CLI as a child process and ending it cleanly.
//!
//! - [`discover`] finds the executable.
//! - [`ChildProcess::spawn`] starts it with its own process group, stderr always drained (a
//!   per-line callback plus a tail kept for error messages), and on Linux a parent-death signal
//!   so that it dies with its parent.
//! - [`ChildProcess::shutdown`] closes it gracefully: the caller closes its stdin, then this
//!   waits, sends SIGTERM to the process group, waits, and sends SIGKILL. Dropping a
//!   [`ChildProcess`] that is still running kills its process group at once; `kill_on_drop` is
//!   the backstop should the runtime go away first.

mod discovery;
mod stderr;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

pub use discovery::{discover, pinned_cli_dir, CliCommand, CLI_PATH_ENV, PINNED_CLI_VERSION};
pub use stderr::{StderrCallback, StderrTail};

use crate::{Error, Result};

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
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: StderrTail,
}

impl ChildProcess {
    /// Starts the child with piped stdin, stdout and stderr; returns it and its stdio.
    pub fn spawn(spawn: Spawn) -> Result<(ChildProcess, ChildStdin, ChildStdout)> {
        let mut command = Command::new(&spawn.command.program);
        command
            .args(&spawn.command.leading_args)
            .args(&spawn.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
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
        #[cfg(unix)]
        {
            // Its own process group, so that shutdown reaches the tools it started too.
            command.process_group(0);
            die_with_parent(&mut command);
        }
        let mut child = command.spawn().map_err(|source| Error::SpawnFailed {
            path: spawn.command.program.clone(),
            source: Arc::new(source),
        })?;
        let pid = child.id();
        let (stdin, stdout, stderr) =
            match (child.stdin.take(), child.stdout.take(), child.stderr.take()) {
                (Some(stdin), Some(stdout), Some(stderr)) => (stdin, stdout, stderr),
                _ => {
                    return Err(Error::SpawnFailed {
                        path: spawn.command.program.clone(),
                        source: Arc::new(std::io::Error::other("child stdio was not piped")),
                    })
                }
            };
        let stderr = StderrTail::drain(stderr, spawn.on_stderr.clone());
        let (exit_tx, exit_rx) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await;
            match status {
                Ok(status) => {
                    tracing::debug!(?pid, %status, "CLI exited");
                    let _ = exit_tx.send(Some(status));
                }
                Err(err) => tracing::warn!(?pid, %err, "could not wait for the CLI"),
            }
        });
        tracing::debug!(?pid, program = %spawn.command.program.display(), "started the CLI");
        Ok((
            ChildProcess {
                pid,
                exit: exit_rx,
                stderr,
            },
            stdin,
            stdout,
        ))
    }

    /// The child's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid
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

    /// A future that reports why the child's stdout ended: waits briefly for its exit status
    /// and for stderr to be drained.
    pub fn end_cause(&self) -> impl std::future::Future<Output = Error> + Send + 'static {
        let exit = self.exit.clone();
        let stderr = self.stderr.clone();
        async move {
            let mut exit = exit;
            let status =
                match tokio::time::timeout(Duration::from_secs(5), exit.wait_for(Option::is_some))
                    .await
                {
                    Ok(Ok(status)) => *status,
                    _ => None,
                };
            stderr.wait_drained(Duration::from_secs(1)).await;
            exit_error(status, stderr.text())
        }
    }

    /// Ends the child gracefully; the caller has already closed its stdin. Returns its exit
    /// status.
    pub async fn shutdown(&self, timeouts: ShutdownTimeouts) -> Option<ExitStatus> {
        if let Some(status) = self.wait_for_exit(timeouts.after_close).await {
            return Some(status);
        }
        tracing::debug!(pid = ?self.pid, "CLI still running after stdin closed: SIGTERM");
        self.signal_group(Signal::Term);
        if let Some(status) = self.wait_for_exit(timeouts.after_term).await {
            return Some(status);
        }
        tracing::warn!(pid = ?self.pid, "CLI ignored SIGTERM: SIGKILL");
        self.signal_group(Signal::Kill);
        self.wait_for_exit(Duration::from_secs(5)).await
    }

    /// Kills the process group at once, if the child still runs.
    pub fn kill(&self) {
        if self.exit_status().is_none() {
            self.signal_group(Signal::Kill);
        }
    }

    fn signal_group(&self, signal: Signal) {
        #[cfg(unix)]
        if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            use nix::sys::signal::{killpg, Signal as Sig};
            use nix::unistd::Pid;
            let sig = match signal {
                Signal::Term => Sig::SIGTERM,
                Signal::Kill => Sig::SIGKILL,
            };
            if let Err(err) = killpg(Pid::from_raw(pid), sig) {
                tracing::debug!(pid, %err, "could not signal the CLI's process group");
            }
        }
        #[cfg(not(unix))]
        let _ = signal;
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        // Synchronous on purpose: no task is spawned from `drop`.
        self.kill();
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

/// The error for a child that ended with `status`.
pub fn exit_error(status: Option<ExitStatus>, stderr_tail: String) -> Error {
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
        stderr_tail,
    }
}

/// Linux: the child gets SIGKILL when the thread that started it ends, so a host that dies
/// without cleaning up leaves no CLI behind. (Tokio's worker threads live as long as the
/// runtime, which is what we want.)
#[cfg(target_os = "linux")]
fn die_with_parent(command: &mut Command) {
    // SAFETY: the closure runs in the forked child before exec and only calls prctl(2) and
    // getppid(2), both async-signal-safe; it allocates nothing and takes no locks.
    let parent = nix::unistd::Pid::this();
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Some(nix::sys::signal::Signal::SIGKILL))
                .map_err(std::io::Error::from)?;
            // The parent may have died before prctl ran: then we were re-parented already.
            if nix::unistd::getppid() != parent {
                return Err(std::io::Error::other("parent exited during spawn"));
            }
            Ok(())
        });
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn die_with_parent(_command: &mut Command) {}
