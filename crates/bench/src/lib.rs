//! Host programs for `cargo xtask bench`, and what they share.
//!
//! Every host, in any language, is started by xtask as
//!
//! ```text
//! <host> WORKLOAD FAKE SCRIPT N
//! ```
//!
//! where `WORKLOAD` is `flood`, `roundtrip`, `startup` or `sessions`, `FAKE` the path of
//! `fake-claude`, `SCRIPT` the script it plays (handed over as `TWINWIRE_FAKE_SCRIPT`) and `N` the
//! size of the workload (frames expected, permission requests expected, or sessions). The host
//! drives the fake, measures its own inner timings, and prints one JSON object on the last line
//! of stdout (see [`Report`]); xtask measures wall time, CPU and RSS around it.
//!
//! The binaries: `twinwire-host` (twinwire on a multi-threaded tokio runtime), `bare-loop` (a
//! blocking `BufRead::lines` + `serde_json::Value` loop that answers permission requests) and
//! `pipe-read` (reads the fake's stdout to EOF and counts lines, nothing else).

use std::io::Write;
use std::path::PathBuf;

use nix::sys::resource::{getrusage, UsageWho};
use nix::time::{clock_gettime, ClockId};
use serde_json::{Map, Value};

/// The environment variable `fake-claude` reads its script from.
pub const SCRIPT_ENV: &str = "TWINWIRE_FAKE_SCRIPT";

/// The first user message every host sends.
pub const PROMPT: &str = "go";

/// What a host was asked to do.
#[derive(Debug, Clone)]
pub struct Args {
    /// `flood`, `roundtrip`, `startup` or `sessions`.
    pub workload: String,
    /// The fake CLI.
    pub fake: PathBuf,
    /// The script the fake plays.
    pub script: PathBuf,
    /// The size of the workload.
    pub n: u64,
}

impl Args {
    /// Reads `WORKLOAD FAKE SCRIPT N` from argv.
    pub fn from_env() -> Result<Self, String> {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let [workload, fake, script, n] = args.as_slice() else {
            return Err(format!(
                "usage: WORKLOAD FAKE SCRIPT N (got {} arguments)",
                args.len()
            ));
        };
        let n = n
            .parse()
            .map_err(|err| format!("N must be a number, not `{n}`: {err}"))?;
        Ok(Self {
            workload: workload.clone(),
            fake: PathBuf::from(fake),
            script: PathBuf::from(script),
            n,
        })
    }
}

/// `CLOCK_MONOTONIC` in nanoseconds: the clock every host (Rust `clock_gettime`, Python
/// `time.monotonic_ns`, Node `process.hrtime.bigint`) and xtask share, so that xtask can
/// subtract its spawn time from a host's first-message time.
pub fn monotonic_ns() -> u64 {
    clock_gettime(ClockId::CLOCK_MONOTONIC)
        .map(|t| {
            let ns = i128::from(t.tv_sec()) * 1_000_000_000 + i128::from(t.tv_nsec());
            u64::try_from(ns).unwrap_or(0)
        })
        .unwrap_or(0)
}

/// A field of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`), 0 if unreadable.
pub fn proc_status_kib(field: &str) -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0;
    };
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// User + system CPU time of this process so far, in seconds.
pub fn cpu_self_s() -> f64 {
    getrusage(UsageWho::RUSAGE_SELF)
        .map(|usage| {
            let user = usage.user_time();
            let system = usage.system_time();
            let micros = (user.tv_sec() + system.tv_sec()) as f64 * 1e6
                + (user.tv_usec() + system.tv_usec()) as f64;
            micros / 1e6
        })
        .unwrap_or(0.0)
}

/// The JSON line a host prints. Field names are the contract with xtask (and with the Python
/// and Node hosts):
///
/// - `ok`, `error`: whether the workload ran as expected, and why not;
/// - `main_ns`, `start_ns`, `first_ns`, `end_ns`: monotonic times of the host's `main`, the
///   start of the measured part, the first message, its end;
/// - `stream_events`, `assistants`, `results`: messages seen;
/// - `callbacks`, `first_cb_ns`, `last_cb_ns`: permission callbacks and when the first and
///   last ran;
/// - `sessions`, `rss_before_kib`, `rss_idle_kib`: sessions that finished their turn, and the
///   RSS before any started and while all were open and idle;
/// - `cpu_s`, `hwm_kib`: the host's own CPU time and peak RSS at exit.
#[derive(Debug)]
pub struct Report {
    fields: Map<String, Value>,
}

impl Report {
    /// An empty report whose `main_ns` is `main_ns`.
    pub fn new(main_ns: u64) -> Self {
        let mut fields = Map::new();
        fields.insert("main_ns".into(), main_ns.into());
        Self { fields }
    }

    /// Sets a field.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.fields.insert(key.into(), value.into());
    }

    /// Marks the run failed with `error`.
    pub fn fail(&mut self, error: impl Into<String>) {
        self.set("ok", false);
        self.set("error", error.into());
    }

    /// Adds `cpu_s` and `hwm_kib`, prints the line, and returns the exit code (0 when `ok`).
    pub fn finish(mut self) -> i32 {
        self.fields.entry("ok").or_insert(Value::Bool(true));
        self.set("cpu_s", cpu_self_s());
        self.set("hwm_kib", proc_status_kib("VmHWM"));
        let ok = self.fields.get("ok") == Some(&Value::Bool(true));
        let line = Value::Object(self.fields).to_string();
        let mut out = std::io::stdout().lock();
        let written = writeln!(out, "{line}").and_then(|()| out.flush());
        if ok && written.is_ok() {
            0
        } else {
            1
        }
    }
}

/// The `main` of a blocking host: parse the arguments, run `run`, print the report, exit.
pub fn run_blocking(run: fn(&Args, &mut Report) -> std::io::Result<()>) -> ! {
    let mut report = Report::new(monotonic_ns());
    match Args::from_env() {
        Ok(args) => {
            if let Err(err) = run(&args, &mut report) {
                report.fail(err.to_string());
            }
        }
        Err(err) => report.fail(err),
    }
    std::process::exit(report.finish());
}

/// Starts the fake CLI with the stream-json flags (plus `extra` arguments), its script, and
/// piped stdin and stdout.
pub fn spawn_fake(args: &Args, extra: &[&str]) -> std::io::Result<std::process::Child> {
    std::process::Command::new(&args.fake)
        .args(["--output-format", "stream-json", "--verbose"])
        .args([
            "--input-format",
            "stream-json",
            "--include-partial-messages",
        ])
        .args(extra)
        .env(SCRIPT_ENV, &args.script)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
}
