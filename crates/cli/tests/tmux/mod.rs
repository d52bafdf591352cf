//! A command in a real terminal: tmux runs it in a pseudo-terminal of its own server, the test
//! types keys with `send-keys` and reads the screen with `capture-pane`, the way a person
//! would. `cargo xtask test` installs tmux (Debian's package) and names it in `TWINWIRE_TMUX`;
//! without tmux the tests fail.
// Each test target uses its own subset.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a screen may take to show what a step waits for.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// What the pane's shell prints after the command, with its exit code.
pub const EXIT: &str = "EXIT=";

fn tmux_program() -> PathBuf {
    match std::env::var_os("TWINWIRE_TMUX").filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from("tmux"),
    }
}

/// A command running in its own tmux server in a 160×50 terminal; the server is killed when
/// this is dropped. The command runs in `dir`, with `HOME` = `dir/home`, `XDG_STATE_HOME`
/// empty (so twinwire keeps its state under that home) and `NO_COLOR`.
pub struct Pane {
    dir: PathBuf,
    socket: PathBuf,
    /// A value in the command's environment, inherited by everything it starts: how the test
    /// finds every process left.
    marker: String,
}

impl Pane {
    /// Starts `command` (a line for `sh`) in `dir`.
    pub fn start(dir: &Path, command: &str) -> Self {
        static PANES: AtomicUsize = AtomicUsize::new(0);
        let number = PANES.fetch_add(1, Ordering::Relaxed);
        let home = dir.join("home");
        std::fs::create_dir_all(&home).expect("home");
        let marker = format!("tmux-test-{}-{number}-{}", std::process::id(), unique());
        let pane = Self {
            dir: dir.to_owned(),
            socket: dir.join(format!("tmux-{number}.sock")),
            marker,
        };
        // The shell waits (`sleep 600`) so the exit code stays on the screen.
        let shell = format!("{command}; echo {EXIT}$?; sleep 600");
        let started = pane
            .tmux()
            .args(["new-session", "-d", "-x", "160", "-y", "50", "-c"])
            .arg(dir)
            .args(["-e", &format!("HOME={}", home.display())])
            .args(["-e", &format!("TWINWIRE_TMUX_TEST={}", pane.marker)])
            .args(["-e", "NO_COLOR=1"])
            .args(["-e", "XDG_STATE_HOME="])
            .args(["-e", "CLAUDE_CONFIG_DIR="])
            .arg(shell)
            .output()
            .expect("running tmux (install it, or set TWINWIRE_TMUX)");
        assert!(started.status.success(), "tmux: {}", text(&started));
        pane
    }

    /// The directory the command runs in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The command's `HOME`.
    pub fn home(&self) -> PathBuf {
        self.dir.join("home")
    }

    fn tmux(&self) -> Command {
        let mut command = Command::new(tmux_program());
        command.arg("-S").arg(&self.socket);
        // No user configuration changes what the test sees.
        command.args(["-f", "/dev/null"]);
        command
    }

    /// Types `keys` (tmux key names: `Enter`, `C-c`, `C-d`, or literal text).
    pub fn keys(&self, keys: &[&str]) {
        let sent = self
            .tmux()
            .args(["send-keys", "-t", "0"])
            .args(keys)
            .output()
            .expect("tmux send-keys");
        assert!(sent.status.success(), "send-keys: {}", text(&sent));
    }

    /// Types a line and Enter.
    pub fn line(&self, line: &str) {
        let sent = self
            .tmux()
            .args(["send-keys", "-t", "0", "-l", line])
            .output()
            .expect("tmux send-keys");
        assert!(sent.status.success(), "send-keys: {}", text(&sent));
        self.keys(&["Enter"]);
    }

    /// The whole screen and its scrollback, wrapped lines joined.
    pub fn screen(&self) -> String {
        let captured = self
            .tmux()
            .args(["capture-pane", "-p", "-J", "-S", "-1000", "-t", "0"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&captured.stdout).into_owned()
    }

    /// Waits until the screen shows `needle` `times` times; returns the screen.
    pub fn wait_count(&self, needle: &str, times: usize) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if screen.matches(needle).count() >= times {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never showed {needle:?} {times}×:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_count(needle, 1)
    }

    /// Waits for the command to end; returns its exit code and the screen.
    pub fn wait_exit(&self) -> (i32, String) {
        let screen = self.wait_for(EXIT);
        // Not always at the start of a line: a `^C` echoed last stays before it.
        let code = screen
            .rsplit_once(EXIT)
            .map(|(_, rest)| {
                rest.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no exit code on the screen:\n{screen}"));
        (code, screen)
    }

    /// Processes (other than tmux's own shell) whose environment holds the marker.
    pub fn processes(&self) -> Vec<String> {
        let needle = format!("TWINWIRE_TMUX_TEST={}", self.marker);
        let mut found = Vec::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return found;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(environ) = std::fs::read(path.join("environ")) else {
                continue;
            };
            let has = environ
                .split(|b| *b == 0)
                .any(|var| var == needle.as_bytes());
            if !has {
                continue;
            }
            let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.starts_with("sleep 600") || cmdline.contains(EXIT) {
                continue;
            }
            found.push(format!("{} {cmdline}", entry.file_name().to_string_lossy()));
        }
        found
    }

    /// Waits (up to 10 s) until no process of the command is left.
    pub fn assert_nothing_left(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let left = self.processes();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "processes left behind: {left:#?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").output();
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}
