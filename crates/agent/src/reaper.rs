//! Nothing the session started outlives it. Each Bash command runs in a process group of its
//! own, which the command's end, a timeout or an interrupt kills whole; but a process can leave
//! its group (`setsid`, a daemon's double fork). On Linux the binary makes itself a *child
//! subreaper* ([`adopt_orphans`]): whatever its descendants leave behind is re-parented to it
//! rather than to init, so that when the session ends (its input closed, SIGTERM, SIGINT)
//! [`end_descendants`] finds every process still running under it and kills it, group and all,
//! round after round, until none is left.
//!
//! Only the binary does this: a host running the agent in its own process keeps its own
//! children (and its own process tree) to itself.

#[cfg(target_os = "linux")]
use std::time::{Duration, Instant};

/// How long [`end_descendants`] keeps finding and killing processes.
#[cfg(target_os = "linux")]
const BUDGET: Duration = Duration::from_secs(5);
/// The pause between rounds (a killed parent's children are re-parented when it dies).
#[cfg(target_os = "linux")]
const ROUND: Duration = Duration::from_millis(10);

/// Makes this process the subreaper of its descendants (Linux; elsewhere nothing). Returns
/// whether it is one.
pub fn adopt_orphans() -> bool {
    #[cfg(target_os = "linux")]
    {
        match nix::sys::prctl::set_child_subreaper(true) {
            Ok(()) => true,
            Err(err) => {
                tracing::warn!(%err, "cannot adopt what commands leave running");
                false
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// Kills every live child of this process, with its process group when it leads one, until
/// none is left or the budget is spent; returns how many were killed. Meant for the end of
/// the binary's session: every child is the session's (Bash, its jobs and what they left
/// behind, hooks, MCP servers).
pub fn end_descendants() -> usize {
    #[cfg(target_os = "linux")]
    {
        let me = std::process::id();
        let own_group = nix::unistd::getpgrp();
        let started = Instant::now();
        let mut killed = 0;
        loop {
            let children = live_children(me);
            if children.is_empty() || started.elapsed() > BUDGET {
                return killed;
            }
            for child in children {
                let pid = nix::unistd::Pid::from_raw(child);
                let signal = nix::sys::signal::Signal::SIGKILL;
                // A child in this process's own group (none should be) is killed alone: the
                // group would take the agent and maybe its host with it.
                match nix::unistd::getpgid(Some(pid)) {
                    Ok(group) if group == pid && group != own_group => {
                        let _ = nix::sys::signal::killpg(group, signal);
                    }
                    _ => {
                        let _ = nix::sys::signal::kill(pid, signal);
                    }
                }
                killed += 1;
            }
            std::thread::sleep(ROUND);
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        0
    }
}

/// The children of `parent` that are not yet dead (zombies are dead: only their exit status
/// is left to collect).
#[cfg(target_os = "linux")]
fn live_children(parent: u32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // `pid (comm) state ppid …`: the name may hold spaces and parentheses, so the
            // fields are read after the last `)`.
            let Some((_, rest)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
            ppid == Some(parent) && !matches!(state, Some("Z" | "X"))
        })
        .collect()
}
