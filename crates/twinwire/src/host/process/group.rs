//! What the stop ladder reaches: the CLI and everything it started.
//!
//! - Unix: the child leads a process group of its own; SIGTERM and SIGKILL go to the group.
//!   It dies with its host through `PR_SET_PDEATHSIG` on Linux (see `spawner`), through a
//!   watcher process elsewhere (macOS, the BSDs: see `watcher`).
//! - Windows: the child is put in a Job Object of its own, which the processes it starts join
//!   too. The job is made with kill-on-close: once the last handle to it closes (this host
//!   drops it, or this host dies and the system closes its handles), every process still in it
//!   is ended, which is Windows' own "dies with its host". The gentle step of the ladder is
//!   `CTRL_BREAK` sent to the child's console process group (it is started with
//!   `CREATE_NEW_PROCESS_GROUP`; a host without a console cannot send it, and the ladder then
//!   goes on to the kill after its time); the kill is `TerminateJobObject`, or
//!   `TerminateProcess` of the child alone should the job not have been made.

#[cfg(any(windows, all(unix, not(target_os = "linux"))))]
use std::sync::Arc;

/// A signal of the stop ladder.
#[derive(Debug, Clone, Copy)]
pub(super) enum Signal {
    /// SIGTERM; `CTRL_BREAK` on Windows.
    Term,
    /// SIGKILL; the job's (or the process's) termination on Windows.
    Kill,
}

/// The CLI's process group (Unix) or Job Object (Windows).
#[derive(Debug, Clone)]
pub(super) struct Group {
    pid: Option<u32>,
    #[cfg(windows)]
    job: Option<Arc<windows::Job>>,
    /// Where there is no parent-death signal: the watcher's pipe, held as long as the group.
    #[cfg(all(unix, not(target_os = "linux")))]
    _watcher: Option<Arc<super::watcher::Watcher>>,
}

impl Group {
    /// Prepares `command` for [`Group::of`]: on Windows, the child gets a console process
    /// group of its own (the target of `CTRL_BREAK`, and Ctrl-C typed at this host's console
    /// does not reach it); on Unix the caller sets the process group.
    pub(super) fn prepare(command: &mut tokio::process::Command) {
        #[cfg(windows)]
        command.creation_flags(windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP);
        #[cfg(not(windows))]
        let _ = command;
    }

    /// The group of a child just spawned; `signal` is what it gets should this host die.
    pub(super) fn of(child: &tokio::process::Child, signal: Signal) -> Self {
        let pid = child.id();
        #[cfg(windows)]
        {
            // The job's kill-on-close ends every member alike should this host die.
            let _ = signal;
            let job = match windows::Job::containing(child, pid) {
                Ok(job) => Some(Arc::new(job)),
                Err(err) => {
                    tracing::warn!(?pid, %err, "could not put the CLI in a job object: only the CLI itself can be stopped");
                    None
                }
            };
            Self { pid, job }
        }
        #[cfg(all(unix, not(target_os = "linux")))]
        {
            let name = match signal {
                Signal::Term => "TERM",
                Signal::Kill => "KILL",
            };
            let watcher = pid.map(|pid| super::watcher::Watcher::start(pid, name));
            let watcher = match watcher {
                Some(Ok(watcher)) => Some(Arc::new(watcher)),
                Some(Err(err)) => {
                    tracing::warn!(?pid, %err, "could not start the watcher that stops the CLI should this host die");
                    None
                }
                None => None,
            };
            Self {
                pid,
                _watcher: watcher,
            }
        }
        #[cfg(not(any(windows, all(unix, not(target_os = "linux")))))]
        {
            // Linux: the parent-death signal was set at the fork.
            let _ = signal;
            Self { pid }
        }
    }

    pub(super) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Sends `signal` to the group. Only while the child has not been seen to exit (callers
    /// check), so the group is still its own.
    pub(super) fn signal(&self, signal: Signal) {
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
        #[cfg(windows)]
        match signal {
            Signal::Term => {
                if let Some(pid) = self.pid {
                    if let Err(err) = windows::ctrl_break(pid) {
                        tracing::debug!(pid, %err, "could not send CTRL_BREAK to the CLI");
                    }
                }
            }
            Signal::Kill => self.terminate(),
        }
        #[cfg(not(any(unix, windows)))]
        let _ = signal;
    }

    /// Ends what the child left behind once it exited: its process group (the group's number
    /// stays taken while a member lives, so it is still ours) or its job.
    pub(super) fn after_exit(&self) {
        #[cfg(unix)]
        if let Some(group) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
            use nix::sys::signal::{killpg, Signal as Sig};
            if killpg(nix::unistd::Pid::from_raw(group), Sig::SIGKILL).is_ok() {
                tracing::debug!(pid = group, "killed what the CLI left in its process group");
            }
        }
        #[cfg(windows)]
        if let Some(job) = &self.job {
            // The child itself has exited: this reaches only what it left in the job.
            if let Err(err) = job.terminate() {
                tracing::debug!(pid = ?self.pid, %err, "could not end the CLI's job");
            }
        }
    }

    #[cfg(windows)]
    fn terminate(&self) {
        let ended = match &self.job {
            Some(job) => job.terminate(),
            None => match self.pid {
                Some(pid) => windows::terminate_process(pid),
                None => Ok(()),
            },
        };
        if let Err(err) = ended {
            tracing::debug!(pid = ?self.pid, %err, "could not terminate the CLI");
        }
    }
}

#[cfg(windows)]
mod windows {
    use std::io;

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::Console::{GenerateConsoleCtrlEvent, CTRL_BREAK_EVENT};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };
    use windows_sys::Win32::System::Threading::{OpenProcess, TerminateProcess, PROCESS_TERMINATE};

    /// The exit code of a process ended by the ladder's kill.
    const KILLED: u32 = 1;

    /// A Job Object with kill-on-close, owned: dropping it ends what is still in it.
    #[derive(Debug)]
    pub(super) struct Job(HANDLE);

    // SAFETY: a job handle may be used and closed from any thread.
    #[allow(unsafe_code)]
    unsafe impl Send for Job {}
    // SAFETY: as above; the calls made through a shared reference are thread-safe.
    #[allow(unsafe_code)]
    unsafe impl Sync for Job {}

    impl Job {
        /// A new job with kill-on-close, holding `child` (and, from then on, what it starts).
        #[allow(unsafe_code)]
        pub(super) fn containing(
            child: &tokio::process::Child,
            pid: Option<u32>,
        ) -> io::Result<Self> {
            let process = child
                .raw_handle()
                .ok_or_else(|| io::Error::other(format!("the child {pid:?} has exited")))?;
            // SAFETY: null attributes and name make an unnamed job with default security.
            let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
            if handle.is_null() {
                return Err(io::Error::last_os_error());
            }
            let job = Job(handle);
            let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
            limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            let size = u32::try_from(std::mem::size_of_val(&limits)).unwrap_or(u32::MAX);
            // SAFETY: `limits` is the structure this information class takes, of `size` bytes.
            let set = unsafe {
                SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    std::ptr::from_ref(&limits).cast(),
                    size,
                )
            };
            if set == 0 {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `process` is the child's handle, open while `child` lives.
            if unsafe { AssignProcessToJobObject(job.0, process as HANDLE) } == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(job)
        }

        /// Ends every process in the job.
        #[allow(unsafe_code)]
        pub(super) fn terminate(&self) -> io::Result<()> {
            // SAFETY: the handle is open while `self` lives.
            if unsafe { TerminateJobObject(self.0, KILLED) } == 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        }
    }

    impl Drop for Job {
        #[allow(unsafe_code)]
        fn drop(&mut self) {
            // SAFETY: the handle is ours and closed once; kill-on-close ends what is left.
            unsafe { CloseHandle(self.0) };
        }
    }

    /// `CTRL_BREAK` to the console process group the child leads.
    #[allow(unsafe_code)]
    pub(super) fn ctrl_break(pid: u32) -> io::Result<()> {
        // SAFETY: plain call; a group that does not share our console makes it fail.
        if unsafe { GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, pid) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `TerminateProcess` of the child alone, for a child that is in no job of ours.
    #[allow(unsafe_code)]
    pub(super) fn terminate_process(pid: u32) -> io::Result<()> {
        // SAFETY: plain call; the handle is checked and closed below.
        let process = unsafe { OpenProcess(PROCESS_TERMINATE, 0, pid) };
        if process.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `process` is open until the close that follows.
        let ended = unsafe { TerminateProcess(process, KILLED) };
        let error = (ended == 0).then(io::Error::last_os_error);
        // SAFETY: opened above, closed once.
        unsafe { CloseHandle(process) };
        error.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::AsyncReadExt;

    use super::super::{ChildProcess, CliCommand, Spawn};

    /// A child that starts a process of its own which holds the same stdout, both running
    /// until ended (a minute, or, on Windows, until their stdin ends: the tests keep it open).
    fn parent_and_child() -> Spawn {
        #[cfg(windows)]
        let (program, args) = ("cmd.exe", ["/d", "/c", "more"]);
        #[cfg(not(windows))]
        let (program, args) = ("sh", ["-c", "sleep 60 & sleep 60"]);
        Spawn {
            command: CliCommand::for_path(program),
            args: args.iter().map(Into::into).collect(),
            env: Vec::new(),
            cwd: None,
            on_stderr: None,
            user: None,
        }
    }

    /// The end of stdout: every process holding it is gone.
    async fn stdout_ends(stdout: &mut tokio::process::ChildStdout) -> bool {
        let mut sink = Vec::new();
        tokio::time::timeout(Duration::from_secs(30), stdout.read_to_end(&mut sink))
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn kill_ends_the_child_and_what_it_started() {
        let (child, _stdin, mut stdout) = ChildProcess::spawn(parent_and_child()).await.unwrap();
        child.kill();
        assert!(
            child.wait_for_exit(Duration::from_secs(30)).await.is_some(),
            "the child still runs"
        );
        assert!(stdout_ends(&mut stdout).await, "what it started still runs");
    }

    #[tokio::test]
    async fn dropping_the_child_ends_what_it_started() {
        let (child, _stdin, mut stdout) = ChildProcess::spawn(parent_and_child()).await.unwrap();
        drop(child);
        assert!(stdout_ends(&mut stdout).await, "something still runs");
    }

    /// Windows' "dies with its host": the job's last handle closing (as the system closes a
    /// dead host's handles) ends what is in it, with no call of ours.
    #[cfg(windows)]
    #[tokio::test]
    async fn closing_the_job_ends_what_is_in_it() {
        let mut command = tokio::process::Command::new("cmd.exe");
        command
            .args(["/d", "/c", "more"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let job = super::windows::Job::containing(&child, child.id()).unwrap();
        drop(job);
        let status = tokio::time::timeout(Duration::from_secs(30), child.wait()).await;
        assert!(status.is_ok(), "the child outlived its job");
        assert!(
            stdout_ends(&mut stdout).await,
            "what it started outlived the job"
        );
    }
}
