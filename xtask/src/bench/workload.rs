//! The four workloads, the hosts that run them, and what is read off each run.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use super::measure::Sample;
use super::setup::Tools;

/// How big each workload is.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    /// `stream_event` frames in the flood.
    pub stream_events: u64,
    /// `assistant` frames in the flood.
    pub assistants: u64,
    /// `stream_event` frames in the slow-consumer flood.
    pub slow_stream_events: u64,
    /// Frames of an unknown kind in the unknown-kind flood.
    pub unknown_frames: u64,
    /// Sequential `can_use_tool` requests.
    pub round_trips: u64,
    /// Concurrent sessions in the timed runs.
    pub sessions: u64,
    /// The largest session count tried in the search.
    pub max_sessions: u64,
}

impl Sizes {
    /// The sizes of the issue: 100,000 + 1,000 frames, 2,000 round trips, 200 sessions, up to
    /// 1,000.
    pub const FULL: Self = Self {
        stream_events: 100_000,
        assistants: 1_000,
        slow_stream_events: 1_000_000,
        unknown_frames: 1_000_000,
        round_trips: 2_000,
        sessions: 200,
        max_sessions: 1_000,
    };

    /// Small enough to prove the harness works in seconds.
    pub const QUICK: Self = Self {
        stream_events: 1_000,
        assistants: 10,
        slow_stream_events: 2_000,
        unknown_frames: 2_000,
        round_trips: 20,
        sessions: 5,
        max_sessions: 10,
    };

    /// The session counts tried after the timed runs: 500, 1,000, 2,000, 5,000, … up to
    /// `max_sessions` (always included), above the timed count.
    pub fn session_ladder(&self) -> Vec<u64> {
        let mut ladder: Vec<u64> = [500, 1_000, 2_000, 5_000, 10_000, 20_000]
            .into_iter()
            .filter(|&n| n > self.sessions && n < self.max_sessions)
            .collect();
        if self.max_sessions > self.sessions {
            ladder.push(self.max_sessions);
        }
        ladder
    }
}

/// A program that drives the fake CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// twinwire (`crates/bench`, tokio multi-thread runtime).
    Twinwire,
    /// The official TypeScript SDK (`bench/node/host.mjs`).
    Ts,
    /// The official Python SDK (`bench/python/host.py`).
    Python,
    /// A blocking `BufRead::lines` + `serde_json::Value` loop (`bare-loop`).
    Bare,
    /// Reading the fake's stdout to EOF, nothing else (`pipe-read`).
    Pipe,
}

impl Host {
    /// Its name in tables.
    pub fn label(self) -> &'static str {
        match self {
            Self::Twinwire => "twinwire",
            Self::Ts => "TS SDK",
            Self::Python => "Python SDK",
            Self::Bare => "bare loop",
            Self::Pipe => "pipe read",
        }
    }

    /// The command that runs `workload` with the fake playing `script`.
    pub fn command(self, tools: &Tools, workload: Workload, script: &Path, n: u64) -> Command {
        let mut command = match self {
            Self::Twinwire => Command::new(tools.bins.join("twinwire-host")),
            Self::Bare => Command::new(tools.bins.join("bare-loop")),
            Self::Pipe => Command::new(tools.bins.join("pipe-read")),
            Self::Ts => {
                let mut command = Command::new(&tools.node);
                command
                    .arg(tools.hosts.join("node/host.mjs"))
                    .env("TWINWIRE_BENCH_TS_SDK", &tools.ts_sdk);
                command
            }
            Self::Python => {
                let mut command = Command::new(&tools.python);
                command.arg(tools.hosts.join("python/host.py"));
                command
            }
        };
        command
            .arg(workload.name())
            .arg(&tools.fake)
            .arg(script)
            .arg(n.to_string());
        command
    }
}

/// What is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// 100,000 `stream_event` + 1,000 `assistant` frames consumed.
    Flood,
    /// The flood at 1,000,000 frames with a consumer that pauses 5 ms every 1,000 messages:
    /// what a host holds when the caller reads slower than the CLI writes.
    SlowFlood,
    /// 1,000,000 frames of a kind no CLI writes yet, with the slow consumer: frames the host
    /// decodes as it reads them (it cannot know they are only data), so what it holds is
    /// decoded JSON, not text.
    UnknownFlood,
    /// Sequential `can_use_tool` requests answered "allow".
    RoundTrip,
    /// Host process start → first message of an echo turn.
    Startup,
    /// Concurrent sessions in one host process.
    Sessions,
}

impl Workload {
    /// All of them, in report order.
    pub const ALL: [Self; 6] = [
        Self::Flood,
        Self::SlowFlood,
        Self::UnknownFlood,
        Self::RoundTrip,
        Self::Startup,
        Self::Sessions,
    ];

    /// The name hosts and `--only` know it by.
    pub fn name(self) -> &'static str {
        match self {
            Self::Flood => "flood",
            Self::SlowFlood => "slowflood",
            Self::UnknownFlood => "unknownflood",
            Self::RoundTrip => "roundtrip",
            Self::Startup => "startup",
            Self::Sessions => "sessions",
        }
    }

    /// Parses a name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    /// Its title in the report, with its size.
    pub fn title(self, sizes: &Sizes) -> String {
        match self {
            Self::Flood => format!(
                "Flood: {} stream_event + {} assistant frames",
                thousands(sizes.stream_events),
                thousands(sizes.assistants)
            ),
            Self::SlowFlood => format!(
                "Slow consumer: {} stream_event frames, the caller pausing 5 ms every 1,000",
                thousands(sizes.slow_stream_events)
            ),
            Self::UnknownFlood => format!(
                "Unknown kinds: {} frames of a kind twinwire does not know, the caller pausing 5 ms \
                 every 1,000",
                thousands(sizes.unknown_frames)
            ),
            Self::RoundTrip => format!(
                "Round trips: {} sequential can_use_tool → allow",
                thousands(sizes.round_trips)
            ),
            Self::Startup => "Startup: process start → first message (one echo turn)".to_owned(),
            Self::Sessions => format!(
                "Sessions: {} concurrent, one echo turn each, held idle",
                thousands(sizes.sessions)
            ),
        }
    }

    /// The hosts that run it, in column order.
    pub fn hosts(self) -> &'static [Host] {
        match self {
            Self::Flood => &[
                Host::Twinwire,
                Host::Ts,
                Host::Python,
                Host::Bare,
                Host::Pipe,
            ],
            Self::SlowFlood => &[Host::Twinwire, Host::Ts, Host::Python],
            // What twinwire holds: the SDKs' hosts do not run it.
            Self::UnknownFlood => &[Host::Twinwire],
            Self::RoundTrip => &[Host::Twinwire, Host::Ts, Host::Python, Host::Bare],
            Self::Startup | Self::Sessions => &[Host::Twinwire, Host::Ts, Host::Python],
        }
    }

    /// The fake CLI's script.
    pub fn script(self, sizes: &Sizes) -> Value {
        match self {
            Self::Flood => json!({"turns": [{"steps": [{"flood": {
                "stream_events": sizes.stream_events,
                "assistants": sizes.assistants
            }}]}]}),
            Self::SlowFlood => json!({"turns": [{"steps": [{"flood": {
                "stream_events": sizes.slow_stream_events,
                "assistants": 0
            }}]}]}),
            Self::UnknownFlood => json!({"turns": [{"steps": [{"flood": {
                "stream_events": 0,
                "assistants": 0,
                "frame": unknown_frame(),
                "repeat": sizes.unknown_frames
            }}]}]}),
            Self::RoundTrip => {
                let tool = json!({"tool": {"name": "Bash", "input": {"command": "true"},
                                           "ask": true, "output": "ok"}});
                let steps = vec![tool; usize::try_from(sizes.round_trips).unwrap_or(0)];
                json!({"turns": [{"steps": steps}]})
            }
            // No turns: the fake echoes every prompt.
            Self::Startup | Self::Sessions => json!({"turns": []}),
        }
    }

    /// The `N` argument of the hosts.
    pub fn n(self, sizes: &Sizes) -> u64 {
        match self {
            Self::Sessions => sizes.sessions,
            _ => 0,
        }
    }

    /// Why a run that exited cleanly still does not count (wrong counts), if it does not.
    pub fn check(self, host: Host, sample: &Sample, sizes: &Sizes, n: u64) -> Option<String> {
        let count = |key: &str| sample.field(key).unwrap_or(-1.0) as i64;
        let want = |key: &str, want: u64| {
            let got = count(key);
            (got != want as i64).then(|| format!("expected {want} {key}, got {got}"))
        };
        match (self, host) {
            (Self::Flood, Host::Pipe) => {
                let least = sizes.stream_events + sizes.assistants;
                (count("lines") < least as i64)
                    .then(|| format!("expected at least {least} lines, got {}", count("lines")))
            }
            (Self::Flood, _) => want("stream_events", sizes.stream_events)
                .or_else(|| want("assistants", sizes.assistants)),
            (Self::SlowFlood, _) => want("stream_events", sizes.slow_stream_events),
            (Self::UnknownFlood, _) => (count("others") < sizes.unknown_frames as i64).then(|| {
                format!(
                    "expected at least {} other messages, got {}",
                    sizes.unknown_frames,
                    count("others")
                )
            }),
            (Self::RoundTrip, _) => want("callbacks", sizes.round_trips),
            (Self::Startup, _) => {
                (count("results") < 1).then(|| "the echo turn had no result".to_owned())
            }
            (Self::Sessions, _) => want("sessions", n),
        }
    }

    /// What is read off each run, first the headline.
    pub fn metrics(self) -> &'static [Metric] {
        match self {
            Self::Flood | Self::SlowFlood | Self::UnknownFlood => &FLOOD,
            Self::RoundTrip => &ROUND_TRIP,
            Self::Startup => &STARTUP,
            Self::Sessions => &SESSIONS,
        }
    }
}

/// The frame of the unknown-kind flood: about 250 bytes, nested like the CLI's own frames (an
/// event of a future version, say).
fn unknown_frame() -> Value {
    json!({"type": "x_future_event", "uuid": "8a0c6d8e-6f1e-4e0b-9a57-3f1f0c7e5b21",
           "session_id": "bench", "event": {"kind": "tick", "n": 1, "tags": ["a", "b", "c"],
           "detail": {"ok": true, "at": [1, 2, 3], "by": {"who": "fake-claude"}}},
           "meta": {"v": 1, "source": "bench"}})
}

/// How a figure is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Seconds, shown as ms.
    Ms,
    /// Seconds, shown as µs.
    Us,
    /// KiB, shown as MiB.
    Mib,
    /// KiB, shown as KiB.
    Kib,
}

impl Unit {
    /// `value` (seconds or KiB) in this unit, as a number.
    pub fn scale(self, value: f64) -> f64 {
        match self {
            Self::Ms => value * 1e3,
            Self::Us => value * 1e6,
            Self::Mib => value / 1024.0,
            Self::Kib => value,
        }
    }

    /// The unit's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            Self::Ms => "ms",
            Self::Us => "µs",
            Self::Mib => "MiB",
            Self::Kib => "KiB",
        }
    }

    /// `value` (seconds or KiB) with its unit, to three significant digits or so.
    pub fn format(self, value: f64) -> String {
        let v = self.scale(value);
        let digits = if v >= 100.0 {
            0
        } else if v >= 10.0 {
            1
        } else {
            2
        };
        format!("{v:.digits$} {}", self.symbol())
    }
}

/// One figure read off a run.
#[derive(Debug)]
pub struct Metric {
    /// Its name in tables.
    pub label: &'static str,
    /// How it is shown.
    pub unit: Unit,
    /// Reads it off a run of a workload of size `n` (rounds trips or sessions).
    pub read: fn(&Sample, &Sizes) -> Option<f64>,
}

fn inner(s: &Sample, _: &Sizes) -> Option<f64> {
    s.span_s("start_ns", "end_ns")
}

fn wall(s: &Sample, _: &Sizes) -> Option<f64> {
    Some(s.wall_s)
}

fn host_cpu(s: &Sample, _: &Sizes) -> Option<f64> {
    Some(s.field("cpu_end_s")? - s.field("cpu_start_s")?)
}

fn total_cpu(s: &Sample, _: &Sizes) -> Option<f64> {
    Some(s.cpu_total_s)
}

fn peak_rss(s: &Sample, _: &Sizes) -> Option<f64> {
    s.field("hwm_kib")
}

/// CPU of everything the host reaped (the fake CLI) but not of the host itself.
fn fake_cpu(s: &Sample, _: &Sizes) -> Option<f64> {
    Some(s.cpu_total_s - s.field("cpu_s")?)
}

const FLOOD: [Metric; 6] = [
    Metric {
        label: "time (query → last message)",
        unit: Unit::Ms,
        read: inner,
    },
    Metric {
        label: "host CPU in that time",
        unit: Unit::Ms,
        read: host_cpu,
    },
    Metric {
        label: "host peak RSS",
        unit: Unit::Mib,
        read: peak_rss,
    },
    Metric {
        label: "wall (process)",
        unit: Unit::Ms,
        read: wall,
    },
    Metric {
        label: "CPU, host + fake (process)",
        unit: Unit::Ms,
        read: total_cpu,
    },
    Metric {
        label: "CPU of the fake CLI",
        unit: Unit::Ms,
        read: fake_cpu,
    },
];

fn per_round_trip(s: &Sample, sizes: &Sizes) -> Option<f64> {
    let span = s.span_s("first_cb_ns", "last_cb_ns")?;
    (sizes.round_trips > 1).then(|| span / (sizes.round_trips - 1) as f64)
}

fn cpu_per_round_trip(s: &Sample, sizes: &Sizes) -> Option<f64> {
    Some(host_cpu(s, sizes)? / sizes.round_trips.max(1) as f64)
}

fn fake_cpu_per_round_trip(s: &Sample, sizes: &Sizes) -> Option<f64> {
    Some(fake_cpu(s, sizes)? / sizes.round_trips.max(1) as f64)
}

const ROUND_TRIP: [Metric; 6] = [
    Metric {
        label: "per round trip (first → last callback)",
        unit: Unit::Us,
        read: per_round_trip,
    },
    Metric {
        label: "host CPU per round trip",
        unit: Unit::Us,
        read: cpu_per_round_trip,
    },
    Metric {
        label: "time (query → last message)",
        unit: Unit::Ms,
        read: inner,
    },
    Metric {
        label: "host peak RSS",
        unit: Unit::Mib,
        read: peak_rss,
    },
    Metric {
        label: "wall (process)",
        unit: Unit::Ms,
        read: wall,
    },
    Metric {
        label: "CPU of the fake CLI per round trip",
        unit: Unit::Us,
        read: fake_cpu_per_round_trip,
    },
];

fn since_spawn(s: &Sample, key: &str) -> Option<f64> {
    let at = s.field(key)?;
    let spawn = s.spawn_ns as f64;
    (at > 0.0 && at >= spawn).then(|| (at - spawn) / 1e9)
}

const STARTUP: [Metric; 5] = [
    Metric {
        label: "spawn → first message",
        unit: Unit::Ms,
        read: |s, _| since_spawn(s, "first_ns"),
    },
    Metric {
        label: "spawn → host's main",
        unit: Unit::Ms,
        read: |s, _| since_spawn(s, "main_ns"),
    },
    Metric {
        label: "query → first message",
        unit: Unit::Ms,
        read: |s, _| s.span_s("start_ns", "first_ns"),
    },
    Metric {
        label: "host peak RSS",
        unit: Unit::Mib,
        read: peak_rss,
    },
    Metric {
        label: "wall (process)",
        unit: Unit::Ms,
        read: wall,
    },
];

fn rss_per_session(s: &Sample, _: &Sizes) -> Option<f64> {
    let sessions = s.field("sessions")?;
    let grown = s.field("rss_idle_kib")? - s.field("rss_before_kib")?;
    (sessions > 0.0).then_some(grown / sessions)
}

const SESSIONS: [Metric; 6] = [
    Metric {
        label: "RSS per idle session",
        unit: Unit::Kib,
        read: rss_per_session,
    },
    Metric {
        label: "all turns done (start → last result)",
        unit: Unit::Ms,
        read: |s, _| s.span_s("start_ns", "first_ns"),
    },
    Metric {
        label: "host RSS, all sessions idle",
        unit: Unit::Mib,
        read: |s, _| s.field("rss_idle_kib"),
    },
    Metric {
        label: "host CPU (start → all closed)",
        unit: Unit::Ms,
        read: host_cpu,
    },
    Metric {
        label: "host peak RSS",
        unit: Unit::Mib,
        read: peak_rss,
    },
    Metric {
        label: "wall (process)",
        unit: Unit::Ms,
        read: wall,
    },
];

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
