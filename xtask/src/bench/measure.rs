//! Running one host process and measuring it from outside.
//!
//! The host runs in its own process group, with a time limit. Wall time is taken around it
//! (spawn → `wait` returned); CPU time is the difference of `getrusage(RUSAGE_CHILDREN)` before
//! and after, so it counts the host and every descendant it reaped (the fake CLIs). Hosts run
//! one at a time, so nothing else lands in that difference. The host's own figures (inner
//! timings, its own CPU and peak RSS) come from the JSON line it prints last.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::signal::{killpg, Signal};
use nix::time::{clock_gettime, ClockId};
use nix::unistd::Pid;
use serde_json::Value;

/// How much of a host's stderr is kept for the report of a failure.
const STDERR_TAIL: usize = 2048;

/// One run of one host.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Monotonic time just before the spawn (same clock as the host's `*_ns` fields).
    pub spawn_ns: u64,
    /// Spawn → exit, seen from outside.
    pub wall_s: f64,
    /// CPU time of the host and every process it reaped (user + system).
    pub cpu_total_s: f64,
    /// The host's JSON line, when it printed one.
    pub report: Option<Value>,
    /// Why the run does not count, if it does not.
    pub error: Option<String>,
}

impl Sample {
    /// Whether the run counts.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }

    /// A number from the host's report.
    pub fn field(&self, key: &str) -> Option<f64> {
        self.report.as_ref()?.get(key)?.as_f64()
    }

    /// `to - from` of two monotonic nanosecond fields of the report, in seconds.
    pub fn span_s(&self, from: &str, to: &str) -> Option<f64> {
        let (from, to) = (self.field(from)?, self.field(to)?);
        (from > 0.0 && to >= from).then(|| (to - from) / 1e9)
    }
}

/// Monotonic clock in nanoseconds (`CLOCK_MONOTONIC`, as the hosts read it).
pub fn monotonic_ns() -> u64 {
    clock_gettime(ClockId::CLOCK_MONOTONIC)
        .map(|t| {
            let ns = i128::from(t.tv_sec()) * 1_000_000_000 + i128::from(t.tv_nsec());
            u64::try_from(ns).unwrap_or(0)
        })
        .unwrap_or(0)
}

fn children_cpu_s() -> f64 {
    getrusage(UsageWho::RUSAGE_CHILDREN)
        .map(|usage| {
            let (user, system) = (usage.user_time(), usage.system_time());
            (user.tv_sec() + system.tv_sec()) as f64
                + (user.tv_usec() + system.tv_usec()) as f64 / 1e6
        })
        .unwrap_or(0.0)
}

/// Runs `command` to completion or until `limit`, then kills its whole process group.
/// Never fails: a host that cannot start, crashes, times out or prints garbage gives a
/// [`Sample`] with an `error`.
pub fn run(mut command: Command, limit: Duration) -> Sample {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let cpu_before = children_cpu_s();
    let spawn_ns = monotonic_ns();
    let started = Instant::now();
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            return Sample {
                spawn_ns,
                wall_s: 0.0,
                cpu_total_s: 0.0,
                report: None,
                error: Some(format!("could not start {command:?}: {err}")),
            }
        }
    };
    let pid = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let stdout = collect(child.stdout.take(), usize::MAX);
    let stderr = collect(child.stderr.take(), STDERR_TAIL);
    let (tx, rx) = mpsc::channel::<(std::io::Result<ExitStatus>, Instant)>();
    thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send((status, Instant::now()));
    });
    let mut timed_out = false;
    let (status, ended) = match rx.recv_timeout(limit) {
        Ok(done) => done,
        Err(_) => {
            timed_out = true;
            let _ = killpg(pid, Signal::SIGKILL);
            rx.recv()
                .unwrap_or_else(|_| (Err(std::io::Error::other("lost the child")), Instant::now()))
        }
    };
    let wall_s = ended.duration_since(started).as_secs_f64();
    let cpu_total_s = children_cpu_s() - cpu_before;
    // The pipes close when the host (and any fake holding its stderr) is gone; give stragglers
    // a moment, then read what arrived.
    let deadline = Instant::now() + Duration::from_secs(2);
    while Instant::now() < deadline && !(stdout.done() && stderr.done()) {
        thread::sleep(Duration::from_millis(5));
    }
    let out = stdout.text();
    let report = out
        .lines()
        .rev()
        .find(|line| line.trim_start().starts_with('{'))
        .and_then(|line| serde_json::from_str::<Value>(line).ok());
    let error = if timed_out {
        Some(format!("timed out after {} s", limit.as_secs()))
    } else {
        match (&status, &report) {
            (Err(err), _) => Some(format!("wait failed: {err}")),
            (_, Some(report)) if report.get("ok") != Some(&Value::Bool(true)) => Some(
                report
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("the host reported a failure")
                    .to_owned(),
            ),
            (Ok(status), Some(_)) if !status.success() => Some(format!("exited with {status}")),
            (Ok(status), None) => Some(format!(
                "no result line (exit {status}); stderr: {}",
                stderr.text().trim()
            )),
            _ => None,
        }
    };
    Sample {
        spawn_ns,
        wall_s,
        cpu_total_s,
        report,
        error: error.map(|e| one_line(&e)),
    }
}

/// A pipe read to EOF on its own thread, keeping at most `keep` bytes (the tail).
struct Collected {
    buffer: Arc<Mutex<(Vec<u8>, bool)>>,
}

impl Collected {
    fn done(&self) -> bool {
        self.buffer.lock().map(|b| b.1).unwrap_or(true)
    }

    fn text(&self) -> String {
        self.buffer
            .lock()
            .map(|b| String::from_utf8_lossy(&b.0).into_owned())
            .unwrap_or_default()
    }
}

fn collect(pipe: Option<impl Read + Send + 'static>, keep: usize) -> Collected {
    let buffer = Arc::new(Mutex::new((Vec::new(), false)));
    let shared = buffer.clone();
    thread::spawn(move || {
        let Some(mut pipe) = pipe else {
            if let Ok(mut b) = shared.lock() {
                b.1 = true;
            }
            return;
        };
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            let n = pipe.read(&mut chunk).unwrap_or(0);
            let Ok(mut b) = shared.lock() else { return };
            if n == 0 {
                b.1 = true;
                return;
            }
            b.0.extend_from_slice(&chunk[..n]);
            if b.0.len() > keep {
                let cut = b.0.len() - keep;
                b.0.drain(..cut);
            }
        }
    });
    Collected { buffer }
}

/// Errors go into one table cell: one line, bounded.
fn one_line(text: &str) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 300 {
        let cut: String = flat.chars().take(300).collect();
        format!("{cut}…")
    } else {
        flat
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[test]
    fn a_clean_run_counts() {
        let sample = run(
            sh(r#"echo noise; echo '{"ok":true,"x":2}'"#),
            Duration::from_secs(10),
        );
        assert!(sample.ok(), "{:?}", sample.error);
        assert_eq!(sample.field("x"), Some(2.0));
    }

    #[test]
    fn failures_are_reported_not_raised() {
        let garbage = run(sh("echo garbage >&2; exit 3"), Duration::from_secs(10));
        let error = garbage.error.unwrap_or_default();
        assert!(
            error.contains("no result line") && error.contains("garbage"),
            "{error}"
        );
        let reported = run(
            sh(r#"echo '{"ok":false,"error":"boom"}'; exit 1"#),
            Duration::from_secs(10),
        );
        assert_eq!(reported.error.as_deref(), Some("boom"));
        let missing = run(Command::new("/nonexistent/host"), Duration::from_secs(10));
        assert!(missing
            .error
            .unwrap_or_default()
            .contains("could not start"));
    }

    #[test]
    fn a_hung_host_is_killed_with_its_children() {
        let started = Instant::now();
        let sample = run(sh("sleep 30 & sleep 30"), Duration::from_millis(300));
        assert!(sample.error.unwrap_or_default().contains("timed out"));
        assert!(started.elapsed() < Duration::from_secs(10));
    }
}
