//! Process-level I/O of the fake besides the protocol: stderr, signals, the record file, ids
//! and clocks.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

/// Stop reading and writing for good. The fake runs on one thread, so blocking it stops the
/// engine's reader and writer with it; the process stays alive until it is killed.
pub(crate) fn hang_forever() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Die by a signal: `SIGABRT` aborts; others are sent with `kill(1)` (abort if that fails).
pub(crate) fn kill_self(signal: &str) -> ! {
    let name = signal.trim().trim_start_matches("SIG");
    if name != "ABRT" {
        let sent = std::process::Command::new("kill")
            .arg(format!("-{name}"))
            .arg(std::process::id().to_string())
            .status();
        if sent.is_ok_and(|status| status.success()) {
            // Delivery is asynchronous; a handled or ignored signal falls through to abort.
            std::thread::sleep(Duration::from_secs(5));
        }
    }
    std::process::abort()
}

/// Write one line to stderr, ignoring errors (nobody may be listening).
pub(crate) fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    if !text.ends_with('\n') {
        let _ = err.write_all(b"\n");
    }
    let _ = err.flush();
}

/// Point stdout at /dev/null: the host reads the end of its pipe while the process lives on.
pub(crate) fn close_stdout() {
    match File::open("/dev/null") {
        Ok(null) => {
            if let Err(err) = nix::unistd::dup2_stdout(&null) {
                stderr_line(&format!("fake-claude: could not close stdout: {err}"));
            }
        }
        Err(err) => stderr_line(&format!("fake-claude: no /dev/null: {err}")),
    }
}

/// Write `bytes` bytes of readable filler to stderr: 100-byte lines, or one line with no
/// newline at all.
pub(crate) fn stderr_flood(bytes: usize, one_line: bool) {
    let line = if one_line {
        "x".repeat(100)
    } else {
        format!("{:-<99}\n", "fake-claude stderr flood ")
    };
    let mut err = std::io::stderr().lock();
    let mut left = bytes;
    while left > 0 {
        let n = left.min(line.len());
        if err.write_all(&line.as_bytes()[..n]).is_err() {
            return;
        }
        left -= n;
    }
    let _ = err.flush();
}

/// The record file named by `CCWIRE_FAKE_RECORD` (append mode), if any.
pub(crate) struct Recorder {
    file: Option<Mutex<File>>,
}

impl Recorder {
    /// Open the file in append mode; an unusable path is reported on stderr and ignored.
    pub(crate) fn open(path: Option<&str>) -> Self {
        let file = path.and_then(
            |p| match OpenOptions::new().create(true).append(true).open(p) {
                Ok(file) => Some(Mutex::new(file)),
                Err(err) => {
                    stderr_line(&format!("fake-claude: cannot open record file {p}: {err}"));
                    None
                }
            },
        );
        Self { file }
    }

    /// Whether lines are recorded at all.
    pub(crate) fn enabled(&self) -> bool {
        self.file.is_some()
    }

    /// Append one JSON line.
    pub(crate) fn line(&self, value: &Value) {
        let Some(file) = &self.file else { return };
        let mut text = value.to_string();
        text.push('\n');
        let mut guard = match file.lock() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        // One write call per line so concurrent writers (other processes) do not interleave.
        let _ = guard.write_all(text.as_bytes());
    }

    /// Record the process start: argv, the whole environment, the working directory.
    pub(crate) fn start(&self, argv: &[String], cwd: &str) {
        let env: serde_json::Map<String, Value> = std::env::vars_os()
            .map(|(k, v)| {
                let v = Value::String(v.to_string_lossy().into_owned());
                (k.to_string_lossy().into_owned(), v)
            })
            .collect();
        self.line(&json!({"argv": argv, "env": env, "cwd": cwd}));
    }
}

static RNG: AtomicU64 = AtomicU64::new(0);

/// A pseudo-random 64-bit number (splitmix64 seeded from the clock and the pid).
pub(crate) fn random_u64() -> u64 {
    let mut state = RNG.load(Ordering::Relaxed);
    if state == 0 {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x5eed);
        let _ = RNG.compare_exchange(
            0,
            nanos ^ (u64::from(std::process::id()) << 32) | 1,
            Ordering::Relaxed,
            Ordering::Relaxed,
        );
    }
    state = RNG.fetch_add(0x9e37_79b9_7f4a_7c15, Ordering::Relaxed);
    let mut z = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A random version-4 UUID string.
pub(crate) fn uuid() -> String {
    let a = random_u64();
    let b = random_u64();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        ((b >> 48) & 0x3fff) | 0x8000,
        b & 0xffff_ffff_ffff
    )
}

/// `n` random lowercase hex digits (n ≤ 32).
pub(crate) fn hex(n: usize) -> String {
    let s = format!("{:016x}{:016x}", random_u64(), random_u64());
    s[..n.min(32)].to_string()
}

/// The current time as `2026-11-22T02:13:31.134Z`.
pub(crate) fn now_iso() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60,
        now.subsec_millis()
    )
}

/// Days since 1970-01-01 → (year, month, day), Howard Hinnant's algorithm.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn uuids_look_like_uuids() {
        let a = uuid();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, uuid());
        assert_eq!(hex(20).len(), 20);
    }
}
