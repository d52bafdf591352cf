//! A reader that leaves: what `twinwire` does when its stdout or stderr is a pipe whose reader
//! closed it (`twinwire check … | head`).
//!
//! Rust programs ignore SIGPIPE, so a write to such a pipe fails with `EPIPE` where `cat` or
//! `grep` would simply end. For a tool that prints a report, that failure only means nobody
//! reads any more: [`reader_left`] stops at once, prints nothing (there is nowhere to print
//! it), and ends the process the way those tools end, killed by SIGPIPE (a shell shows 141).
//! Only writes to our own stdout and stderr count; `tap`'s pipes to the CLI have their own
//! rules (the host or the CLI going away is part of a session's life there).

use std::io;

/// Whether `err` (or anything in its chain) is a write to a pipe nobody reads.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        if let Some(io) = cause.downcast_ref::<io::Error>() {
            return io.kind() == io::ErrorKind::BrokenPipe;
        }
        // serde_json keeps the I/O error of a writer inside its own error, out of the chain.
        cause
            .downcast_ref::<serde_json::Error>()
            .and_then(serde_json::Error::io_error_kind)
            == Some(io::ErrorKind::BrokenPipe)
    })
}

/// Ends the process as a tool whose reader left ends: killed by SIGPIPE, with no message.
pub fn reader_left() -> ! {
    #[cfg(unix)]
    {
        use nix::sys::signal::{raise, signal, SigHandler, Signal};
        // SAFETY: this restores the default action of SIGPIPE (the runtime set it to "ignore");
        // no handler is installed, so no code of ours runs in a signal context.
        #[allow(unsafe_code)]
        let restored = unsafe { signal(Signal::SIGPIPE, SigHandler::SigDfl) };
        if restored.is_ok() {
            let _ = raise(Signal::SIGPIPE);
        }
    }
    // Not reached where the signal ends the process: the status a shell shows for it.
    std::process::exit(128 + 13)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_pipes_are_found_through_contexts_and_serde_json() {
        let io = io::Error::from(io::ErrorKind::BrokenPipe);
        let err = anyhow::Error::from(io).context("writing the report");
        assert!(is_broken_pipe(&err));

        struct Closed;
        impl io::Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let json = serde_json::to_writer(Closed, &[1, 2, 3]).unwrap_err();
        assert!(is_broken_pipe(&anyhow::Error::from(json)));

        let other = anyhow::Error::from(io::Error::from(io::ErrorKind::NotFound));
        assert!(!is_broken_pipe(&other));
    }
}
