//! Linux: noticing a CLI that let go of its stdout while something it started still holds it.
//!
//! The reader sees the end of the CLI's output only once every process holding the pipe's
//! write end has closed it. A CLI that closes its stdout (or exits) while a child of its own
//! (a tool's background process, a server that moved to a session of its own) keeps the pipe
//! open would never be seen to end: the host would wait until killed. So while the output is
//! quiet, the reader asks the kernel now and then whether the CLI itself still holds the pipe:
//! `/proc/PID/fd/1` first (one `readlink`, the usual answer), the whole fd table only when fd 1
//! is something else. A CLI that holds it no more (or has exited) has written all it will: the
//! reader takes what is left in the pipe, then reports the end, and the session ends as for any
//! CLI that closed its output (exit status, stderr tail, every waiting stream and request
//! ended, the stop ladder for a CLI that keeps running).
//!
//! What cannot be looked at (another user's process, no `/proc`) counts as held: the check
//! only ever ends a session the CLI has left.

use std::future::Future;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitStatus;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::ChildStdout;
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

/// How often the quiet output is checked: a look at `/proc` every 2 s at most, and only once a
/// whole period went by without a byte.
pub const QUIET_CHECK: Duration = Duration::from_secs(2);

/// The CLI's stdout, read as usual, with the check above while it is quiet.
pub(crate) struct WatchedStdout {
    inner: ChildStdout,
    /// `/proc/PID/fd` of the CLI.
    fd_dir: PathBuf,
    /// What a link to the pipe reads as: `pipe:[INODE]`; `None` if it could not be learnt (then
    /// nothing is checked).
    pipe: Option<PathBuf>,
    exit: watch::Receiver<Option<ExitStatus>>,
    tick: Pin<Box<Sleep>>,
    /// Reads that returned something, and their count at the last tick.
    reads: u64,
    reads_at_tick: u64,
    /// The CLI let go of the pipe: the end was reported.
    ended: bool,
}

impl WatchedStdout {
    pub(crate) fn new(
        inner: ChildStdout,
        pid: Option<u32>,
        exit: watch::Receiver<Option<ExitStatus>>,
    ) -> Self {
        let ours = PathBuf::from(format!("/proc/self/fd/{}", inner.as_raw_fd()));
        let pipe = std::fs::read_link(ours)
            .ok()
            .filter(|link| link.to_string_lossy().starts_with("pipe:["));
        let pid = pid.map_or_else(String::new, |pid| pid.to_string());
        Self {
            inner,
            fd_dir: PathBuf::from(format!("/proc/{pid}/fd")),
            pipe: pipe.filter(|_| !pid.is_empty()),
            exit,
            tick: Box::pin(tokio::time::sleep(QUIET_CHECK)),
            reads: 0,
            reads_at_tick: 0,
            ended: false,
        }
    }

    /// Whether the CLI still holds the pipe's write end (or cannot be looked at).
    fn cli_holds_pipe(&self) -> bool {
        let Some(pipe) = &self.pipe else {
            return true;
        };
        if self.exit.borrow().is_some() {
            // Exited (its pid may even be someone else's by now): it holds nothing.
            return false;
        }
        if std::fs::read_link(self.fd_dir.join("1")).is_ok_and(|link| &link == pipe) {
            return true;
        }
        let Ok(entries) = std::fs::read_dir(&self.fd_dir) else {
            // Not ours to look at (another user), or just reaped: only an exit status says it
            // ended, and the next tick sees it.
            return true;
        };
        // A zombie's table is empty: it holds nothing, rightly.
        entries
            .flatten()
            .any(|entry| std::fs::read_link(entry.path()).is_ok_and(|link| &link == pipe))
    }

    /// Reads what is left in the pipe without waiting: the CLI has let go of it, so anything it
    /// wrote is there already. `Ok(0)`: nothing.
    fn read_left(&self, buf: &mut ReadBuf<'_>) -> io::Result<usize> {
        let unfilled = buf.initialize_unfilled();
        match nix::unistd::read(self.inner.as_fd(), unfilled) {
            Ok(read) => {
                buf.advance(read);
                Ok(read)
            }
            Err(nix::errno::Errno::EAGAIN) => Ok(0),
            Err(err) => Err(io::Error::from(err)),
        }
    }
}

impl AsyncRead for WatchedStdout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(Ok(()));
        }
        if let Poll::Ready(read) = Pin::new(&mut this.inner).poll_read(cx, buf) {
            this.reads += 1;
            return Poll::Ready(read);
        }
        // Nothing to read: on each tick, look whether the output has been quiet all along and
        // the CLI has let go of the pipe. The tick is armed once and moved only when it fires,
        // so a busy stream pays one counter per read.
        while this.tick.as_mut().poll(cx).is_ready() {
            let quiet = this.reads == this.reads_at_tick;
            this.reads_at_tick = this.reads;
            this.tick.as_mut().reset(Instant::now() + QUIET_CHECK);
            if quiet && !this.cli_holds_pipe() {
                return match this.read_left(buf) {
                    Ok(0) => {
                        tracing::warn!(
                            fd_dir = %this.fd_dir.display(),
                            "the CLI let go of its stdout while something it started holds it: \
                             taking that as the end of its output"
                        );
                        this.ended = true;
                        Poll::Ready(Ok(()))
                    }
                    Ok(_) => {
                        this.reads += 1;
                        Poll::Ready(Ok(()))
                    }
                    Err(err) => Poll::Ready(Err(err)),
                };
            }
        }
        Poll::Pending
    }
}
