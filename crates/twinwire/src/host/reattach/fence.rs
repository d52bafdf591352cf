//! Fencing a dead host's CLI: every process of the old session is stopped before the session
//! is resumed, so that nothing of it goes on writing the transcript or running a tool beside
//! the new CLI. A process is the old session's only when it is proven: the CLI itself (its pid
//! with the recorded start time) and its process group while it leads it, and any process
//! whose environment carries the session's mark (a tool that started its own group or
//! session, left behind when the CLI died with its host). A pid whose start time differs is
//! never signalled.

use std::time::Duration;

use super::procfs;
use super::record::AttachRecord;

/// The variable that marks every process of a recorded session (the CLI and what it starts
/// inherit it): its value is a random token kept in the record.
pub const ATTACH_MARK_ENV: &str = "TWINWIRE_ATTACH_MARK";
/// The longest environment read when looking for the mark.
const MAX_ENVIRON_BYTES: u64 = 4 * 1024 * 1024;
/// How often the fence looks whether what it signalled has exited.
const POLL: Duration = Duration::from_millis(20);
/// How long the fence waits for processes to go after SIGKILL.
const AFTER_KILL: Duration = Duration::from_secs(2);

/// What the fence found of the old session and did to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Fenced {
    /// Whether the old CLI itself was still running (its pid, with its start time).
    pub cli_was_running: bool,
    /// Every process of the old session found running, the CLI included.
    pub found: Vec<u32>,
    /// Those that did not exit within the grace after SIGTERM and got SIGKILL.
    pub killed: Vec<u32>,
}

/// Stops every process of the session `record` names: SIGTERM, `grace`, SIGKILL. Fails when
/// the session's host still runs (the session is attached: re-attaching would run two CLIs on
/// it), when nothing can be proven on this system while the recorded pid is taken, or when a
/// process outlives SIGKILL.
pub(crate) async fn fence(record: &AttachRecord, grace: Duration) -> Result<Fenced, String> {
    if let (Some(then), Some(now)) = (&record.boot_id, procfs::boot_id()) {
        if *then != now {
            // The machine restarted: nothing the record names runs.
            return Ok(Fenced::default());
        }
    }
    if host_still_runs(record) {
        return Err(format!(
            "its host (pid {}) is still running; close the session there first",
            record.host_pid
        ));
    }
    if record.cli_start_time.is_none() {
        return unprovable(record);
    }
    let cli_was_running = leader_is_ours(record) == Some(true);
    let found = survivors(record);
    if found.is_empty() {
        return Ok(Fenced::default());
    }
    tracing::info!(session_id = %record.session_id, pids = ?found, "fencing the old session's processes");
    for &pid in &found {
        signal(pid, Signal::Term);
    }
    let mut left = wait_gone(record, grace).await;
    let mut killed = Vec::new();
    if !left.is_empty() {
        tracing::warn!(pids = ?left, "still running after SIGTERM: SIGKILL");
        for &pid in &left {
            signal(pid, Signal::Kill);
        }
        killed.clone_from(&left);
        left = wait_gone(record, AFTER_KILL).await;
    }
    if !left.is_empty() {
        return Err(format!(
            "processes {left:?} of the old session outlived SIGKILL"
        ));
    }
    Ok(Fenced {
        cli_was_running,
        found,
        killed,
    })
}

/// Where nothing can be proven (no `/proc`): fine when the recorded pid is free, refused when
/// it is taken (it may be the old CLI, or another program that got its pid).
fn unprovable(record: &AttachRecord) -> Result<Fenced, String> {
    #[cfg(unix)]
    {
        let pid = i32::try_from(record.cli_pid).unwrap_or(i32::MAX);
        let taken = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        if taken {
            return Err(format!(
                "pid {} may be its CLI, and this system cannot tell: stop it, then re-attach",
                record.cli_pid
            ));
        }
    }
    // On Windows the CLI and all it started ran in the host's kill-on-close Job Object: the
    // host's death ended them.
    #[cfg(not(unix))]
    let _ = record;
    Ok(Fenced::default())
}

/// Whether the recorded host runs (another process than this one, with the recorded start
/// time).
fn host_still_runs(record: &AttachRecord) -> bool {
    if record.host_pid == std::process::id() {
        return false;
    }
    procfs::stat(record.host_pid)
        .is_some_and(|s| s.running() && Some(s.start_time) == record.host_start_time)
}

/// Whether the recorded CLI pid is the CLI: `Some(true)` it runs with the recorded start time,
/// `Some(false)` another process has the pid now, `None` no process runs as it.
fn leader_is_ours(record: &AttachRecord) -> Option<bool> {
    let stat = procfs::stat(record.cli_pid).filter(procfs::Stat::running)?;
    Some(Some(stat.start_time) == record.cli_start_time)
}

/// The old session's processes that still run: the CLI's group while the CLI leads it (a
/// group outlives its leader's pid, so once the CLI is gone the group id proves nothing), and
/// every process with the session's mark, started after the CLI.
fn survivors(record: &AttachRecord) -> Vec<u32> {
    let group_is_ours = leader_is_ours(record) == Some(true);
    let started = record.cli_start_time.unwrap_or(u64::MAX);
    let me = std::process::id();
    procfs::pids()
        .into_iter()
        .filter(|&pid| pid != me)
        .filter(|&pid| {
            let Some(stat) = procfs::stat(pid).filter(procfs::Stat::running) else {
                return false;
            };
            if stat.start_time < started {
                return false;
            }
            (group_is_ours && stat.process_group == record.cli_process_group)
                || record.mark.as_deref().is_some_and(|mark| marked(pid, mark))
        })
        .collect()
}

/// Whether `pid`'s environment holds the session's mark.
fn marked(pid: u32, mark: &str) -> bool {
    let Ok(file) = std::fs::File::open(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let mut environ = Vec::new();
    if std::io::Read::read_to_end(
        &mut std::io::Read::take(file, MAX_ENVIRON_BYTES),
        &mut environ,
    )
    .is_err()
    {
        return false;
    }
    let wanted = format!("{ATTACH_MARK_ENV}={mark}");
    environ
        .split(|&b| b == 0)
        .any(|entry| entry == wanted.as_bytes())
}

/// Waits up to `limit` for the old session's processes to be gone; those still running.
async fn wait_gone(record: &AttachRecord, limit: Duration) -> Vec<u32> {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        let left = survivors(record);
        if left.is_empty() || tokio::time::Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(POLL).await;
    }
}

#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

fn signal(pid: u32, signal: Signal) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{kill, Signal as S};
        let Ok(raw) = i32::try_from(pid) else { return };
        let signal = match signal {
            Signal::Term => S::SIGTERM,
            Signal::Kill => S::SIGKILL,
        };
        if let Err(err) = kill(nix::unistd::Pid::from_raw(raw), signal) {
            tracing::debug!(pid, %err, "could not signal");
        }
    }
    #[cfg(not(unix))]
    let _ = (pid, signal);
}

/// A fresh mark for a session's processes.
pub(crate) fn new_mark() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

#[cfg(all(test, target_os = "linux"))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn record_of(child: &std::process::Child, mark: Option<&str>) -> AttachRecord {
        let pid = child.id();
        let stat = procfs::stat(pid).unwrap();
        AttachRecord {
            format: super::super::record::RECORD_FORMAT,
            session_id: "3f1c2f4e-8a7b-4c1d-9e2f-0a1b2c3d4e5f".into(),
            cwd: "/".into(),
            cli_pid: pid,
            cli_process_group: stat.process_group,
            cli_start_time: Some(stat.start_time),
            boot_id: procfs::boot_id(),
            host_pid: 1,
            host_start_time: Some(u64::MAX),
            transcript_store: false,
            mark: mark.map(str::to_owned),
            written_at_ms: 0,
            pending_permissions: Vec::new(),
        }
    }

    /// A shell leading its group that starts a second group of its own (`setsid`), both
    /// marked: the fence stops the three, and the grandchild that left the group is found by
    /// its mark.
    #[tokio::test]
    async fn the_cli_its_group_and_what_left_it_are_stopped() {
        let mark = new_mark();
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("escaped");
        let mut cli = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "sleep 30 & setsid sh -c 'echo $$ > {}; exec sleep 30' & wait",
                pidfile.display()
            ))
            .env(ATTACH_MARK_ENV, &mark)
            .process_group(0)
            .spawn()
            .unwrap();
        let record = record_of(&cli, Some(&mark));
        let escaped: u32 = loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                break pid;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let fenced = fence(&record, Duration::from_secs(2)).await.unwrap();
        assert!(fenced.cli_was_running);
        assert!(fenced.found.contains(&cli.id()), "{fenced:?}");
        assert!(fenced.found.contains(&escaped), "{fenced:?}");
        assert!(fenced.found.len() >= 3, "{fenced:?}");
        cli.wait().unwrap();
        assert!(procfs::stat(escaped).is_none_or(|s| !s.running()));
    }

    /// A pid whose start time is not the recorded one is another process: left alone.
    #[tokio::test]
    async fn a_reused_pid_is_never_signalled() {
        let mut other = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut record = record_of(&other, None);
        record.cli_start_time = record.cli_start_time.map(|t| t - 1);
        let fenced = fence(&record, Duration::from_millis(100)).await.unwrap();
        assert_eq!(fenced, Fenced::default());
        assert!(procfs::stat(other.id()).unwrap().running());
        other.kill().unwrap();
        other.wait().unwrap();
    }

    /// A host that still runs keeps its session: nothing is signalled.
    #[tokio::test]
    async fn a_session_whose_host_runs_is_not_taken() {
        let cli = std::process::Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        let mut record = record_of(&cli, None);
        let host = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        record.host_pid = host.id();
        record.host_start_time = procfs::stat(host.id()).map(|s| s.start_time);
        let err = fence(&record, Duration::from_millis(100))
            .await
            .unwrap_err();
        assert!(err.contains("still running"), "{err}");
        assert!(procfs::stat(cli.id()).unwrap().running());
        for mut child in [cli, host] {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }
}
