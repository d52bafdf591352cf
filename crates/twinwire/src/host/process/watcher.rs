//! The parent-death substitute where the system has none (macOS, the BSDs; Linux has
//! `PR_SET_PDEATHSIG`, see `spawner`): a small `sh` in the CLI's process group waits for the
//! end of a pipe whose only write end this host holds. The system closes that end when the host
//! exits, however it exits (SIGKILL included), and the watcher then signals the whole group:
//! SIGKILL for the CLI, SIGTERM for a launcher's program (which must live on to stop what it
//! carries). The host's own stop ladder reaches the watcher too, as a member of the group.
//!
//! A host that dies in the instant between the CLI's start and the watcher's leaves the CLI to
//! end when it notices its closed stdin (docs/platforms.md).
#![cfg_attr(target_os = "linux", allow(dead_code))]

use std::io::PipeWriter;
use std::process::Stdio;

/// Reads until the pipe ends, then signals the group: `sh -c WATCH twinwire-watch SIGNAL PGID`.
const WATCH: &str = r#"while read -r _; do :; done; kill -"$1" -"$2" 2>/dev/null"#;

/// The write end of the watched pipe: dropping it (or the host's exit) sets the watcher off.
#[derive(Debug)]
pub(super) struct Watcher {
    _write: PipeWriter,
}

impl Watcher {
    /// Starts a watcher in the process group `group` that sends `signal` (`KILL`, `TERM`)
    /// to it once the returned value is dropped or this process exits.
    pub(super) fn start(group: u32, signal: &str) -> std::io::Result<Self> {
        // Both ends close on exec (the standard library's pipe), so no child inherits the write
        // end, the watcher included (it would never see the end); the read end becomes the
        // watcher's stdin through a dup.
        let (read, write) = std::io::pipe()?;
        let mut command = tokio::process::Command::new("sh");
        command
            .args(["-c", WATCH, "twinwire-watch", signal, &group.to_string()])
            .stdin(Stdio::from(read))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(i32::try_from(group).map_err(std::io::Error::other)?);
        // Not waited for: tokio reaps it once it exits.
        command.spawn()?;
        Ok(Self { _write: write })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::Watcher;

    fn alive(pid: u32) -> bool {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).unwrap());
        nix::sys::signal::kill(pid, None).is_ok()
    }

    #[tokio::test]
    async fn the_group_dies_when_the_write_end_closes() {
        let mut child = tokio::process::Command::new("sleep")
            .arg("60")
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = child.id().unwrap();
        let watcher = Watcher::start(pid, "KILL").unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(alive(pid), "the watcher must wait while the host lives");
        drop(watcher);
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait())
            .await
            .expect("the group outlived the watched pipe")
            .unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "{status}");
    }
}
