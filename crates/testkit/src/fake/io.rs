//! Process-level I/O of the fake besides the protocol: stderr, signals, the record file, ids
//! and clocks.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

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
#[cfg(unix)]
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

/// Point stdout at NUL and close the pipe's handle: the host reads the end of its pipe while
/// the process lives on. (The standard library looks the handle up at each write.)
#[cfg(windows)]
#[allow(unsafe_code)]
pub(crate) fn close_stdout() {
    use std::os::windows::io::IntoRawHandle;
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Console::{GetStdHandle, SetStdHandle, STD_OUTPUT_HANDLE};
    let null = match std::fs::OpenOptions::new().write(true).open("NUL") {
        Ok(null) => null.into_raw_handle(),
        Err(err) => return stderr_line(&format!("fake-claude: no NUL: {err}")),
    };
    // SAFETY: plain calls on the process's standard handle; the old one is closed once, after
    // the standard handle no longer names it, and NUL's handle stays open as the new stdout.
    unsafe {
        let old = GetStdHandle(STD_OUTPUT_HANDLE);
        if SetStdHandle(STD_OUTPUT_HANDLE, null) == 0 {
            return stderr_line("fake-claude: could not close stdout");
        }
        CloseHandle(old);
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

/// The record file named by `TWINWIRE_FAKE_RECORD` (append mode), if any.
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

/// A random version-4 UUID string.
pub(crate) fn uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// `n` random lowercase hex digits (n ≤ 32).
pub(crate) fn hex(n: usize) -> String {
    let s = format!("{:016x}{:016x}", fastrand::u64(..), fastrand::u64(..));
    s[..n.min(32)].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_look_like_uuids() {
        let a = uuid();
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        assert_ne!(a, uuid());
        assert_eq!(hex(20).len(), 20);
    }
}
