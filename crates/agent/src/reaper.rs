//! Nothing the session started outlives it. Each Bash command runs in a process group of its
//! own, which the command's end, a timeout or an interrupt kills whole; but a process can leave
//! its group (`setsid`, a daemon's double fork). On Linux the binary makes itself a *child
//! subreaper* ([`adopt_orphans`]): whatever its descendants leave behind is re-parented to it
//! rather than to init, so that when the session ends (its input closed, SIGTERM, SIGINT)
//! [`end_descendants`] finds every process still running under it and kills it, group and all,
//! round after round, until none is left.
//!
//! A command need not wait for the session's end: every Bash command carries its id in its
//! environment ([`MARKER_VAR`], inherited by all it starts), and when it ends (or its job does)
//! [`end_marked_soon`] kills what still runs with that id among the adopted orphans, over a few
//! rounds in the background, so that `setsid cmd &` does not outlive the command that started
//! it.
//!
//! Only the binary does this: a host running the agent in its own process keeps its own
//! children (and its own process tree) to itself.

/// The variable each Bash command's processes carry: the command's id.
pub const MARKER_VAR: &str = "TWINWIRE_AGENT_COMMAND";

/// Whether this process adopts orphans ([`adopt_orphans`] succeeded).
#[cfg(target_os = "linux")]
static ADOPTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
            Ok(()) => {
                ADOPTING.store(true, std::sync::atomic::Ordering::SeqCst);
                true
            }
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
        let started = Instant::now();
        let mut killed = 0;
        loop {
            let children = live_children(me);
            if children.is_empty() || started.elapsed() > BUDGET {
                return killed;
            }
            for child in children {
                // A child in this process's own group (none should be) is killed alone: the
                // group would take the agent and maybe its host with it.
                kill_with_group(child);
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

/// Kills, in the background over a few rounds, every adopted process whose
/// environment names command `id` (see [`MARKER_VAR`]), group and all. Nothing when this
/// process adopts no orphans.
pub fn end_marked_soon(id: &str) {
    #[cfg(target_os = "linux")]
    {
        if !ADOPTING.load(std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        let entry = format!("{MARKER_VAR}={id}").into_bytes();
        std::thread::spawn(move || {
            for _ in 0..MARKED_ROUNDS {
                // A killed parent's children are adopted a moment after it dies.
                std::thread::sleep(ROUND);
                for child in live_children(std::process::id()) {
                    if carries(child, &entry) {
                        kill_with_group(child);
                    }
                }
            }
        });
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = id;
    }
}

/// How many rounds [`end_marked_soon`] looks for a command's leftovers.
#[cfg(target_os = "linux")]
const MARKED_ROUNDS: usize = 20;

/// Whether process `pid`'s environment holds `entry` (`NAME=value`).
#[cfg(target_os = "linux")]
fn carries(pid: i32, entry: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|b| *b == 0).any(|var| var == entry))
}

/// Kills `pid`, and its process group when it leads one other than this process's.
#[cfg(target_os = "linux")]
fn kill_with_group(pid: i32) {
    let own_group = nix::unistd::getpgrp();
    let pid = nix::unistd::Pid::from_raw(pid);
    let signal = nix::sys::signal::Signal::SIGKILL;
    match nix::unistd::getpgid(Some(pid)) {
        Ok(group) if group == pid && group != own_group => {
            let _ = nix::sys::signal::killpg(group, signal);
        }
        _ => {
            let _ = nix::sys::signal::kill(pid, signal);
        }
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
