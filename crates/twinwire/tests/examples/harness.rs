//! Runs an example as a user runs it offline: `target/<profile>/examples/offline NAME ARGS…`
//! (what `cargo run -p twinwire --example offline -- NAME` executes), with the real Claude Code
//! CLI, a HOME of the test's own that must stay empty, and a marker in the environment that
//! every process it starts inherits, so the test can tell whether any is left.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use twinwire::host::process::{pinned_cli_dir, CLI_PATH_ENV, PINNED_CLI_VERSION};

/// How long one example may run before the test kills it and fails. An example takes a few
/// seconds (multi_turn about six); this is for a machine that is very busy, never a measure.
const RUN_LIMIT: Duration = Duration::from_secs(180);

/// How long the processes of a finished run get to be gone.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// The variable whose value marks every process of one run.
const MARKER: &str = "TWINWIRE_EXAMPLES_TEST";

/// What a run of the offline runner did.
#[derive(Debug)]
pub struct Run {
    /// The exit code; `None` when a signal ended it.
    pub code: Option<i32>,
    /// All it printed on stdout: the example's own output.
    pub stdout: String,
    /// All it printed on stderr (the runner's line, cargo's, the example's).
    pub stderr: String,
}

impl Run {
    /// Stdout's lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// Panics, showing both outputs, unless the run exited 0.
    pub fn assert_success(&self) {
        assert_eq!(self.code, Some(0), "{self}");
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// Runs `offline NAME ARGS…` and waits for it; asserts that the HOME it was given is still
/// empty and that none of its processes is left.
pub fn run_offline(name: &str, args: &[&str]) -> Run {
    let mut all = vec![name];
    all.extend_from_slice(args);
    run_runner(&all)
}

/// Runs `offline ARGS…` as [`run_offline`] does.
pub fn run_runner(args: &[&str]) -> Run {
    run(args, None)
}

/// Runs `offline NAME ARGS…` as [`run_offline`] does, in a process group of its own (a
/// terminal's foreground job), and sends the group SIGINT, as Ctrl-C in a terminal does, once
/// its stdout holds `printed`.
pub fn interrupt_offline(name: &str, args: &[&str], printed: &str) -> Run {
    let mut all = vec![name];
    all.extend_from_slice(args);
    run(&all, Some(printed))
}

fn run(args: &[&str], interrupt_once: Option<&str>) -> Run {
    static RUNS: AtomicUsize = AtomicUsize::new(0);
    let marker = format!(
        "{}-{}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    );
    let user_home = tempfile::Builder::new()
        .prefix("twinwire-examples-home-")
        .tempdir()
        .expect("a HOME for the test");
    // Where the runner makes its private directories, which must be gone at its exit.
    let runner_tmp = tempfile::Builder::new()
        .prefix("twinwire-examples-tmp-")
        .tempdir()
        .expect("a TMPDIR for the test");
    let mut command = Command::new(offline_runner());
    command
        .args(args)
        .env("HOME", user_home.path())
        .env("TMPDIR", runner_tmp.path())
        .env(CLI_PATH_ENV, claude())
        .env(MARKER, &marker)
        // The test's own key, if any, must not be what answers.
        .env("ANTHROPIC_API_KEY", "not-this-one")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The runner builds the example with cargo, which keeps finding the toolchain although
    // HOME is elsewhere.
    for (var, default) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
        if let Some(dir) = toolchain_dir(var, default) {
            command.env(var, dir);
        }
    }
    if interrupt_once.is_some() {
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
    }
    let run = wait(command, &marker, interrupt_once);
    for (dir, what) in [
        (user_home.path(), "the HOME it was given"),
        (
            runner_tmp.path(),
            "TMPDIR (its private directories are not gone)",
        ),
    ] {
        let left: Vec<_> = std::fs::read_dir(dir)
            .expect("reading a directory of the test")
            .flatten()
            .map(|entry| entry.file_name())
            .collect();
        assert!(left.is_empty(), "the run left in {what}: {left:?}\n{run}");
    }
    assert_nothing_left(&marker, &run);
    run
}

/// The offline runner, beside the examples in this test's profile, built (once per test run,
/// with every other example) so all are current.
fn offline_runner() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        // target/<profile>/deps/examples-<hash>
        let exe = std::env::current_exe().expect("the test's path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test runs from target/<profile>/deps");
        let path = profile_dir
            .join("examples")
            .join(format!("offline{}", std::env::consts::EXE_SUFFIX));
        // Under `cargo xtask test` every example is built already, in the selection of the
        // whole workspace (a build of this package alone would build the dependencies again).
        if std::env::var_os("TWINWIRE_PREBUILT").is_some() {
            assert!(
                path.exists(),
                "TWINWIRE_PREBUILT is set but {} is not built",
                path.display()
            );
            return path;
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", "twinwire", "--examples"]);
        if profile_dir
            .file_name()
            .is_some_and(|name| name == "release")
        {
            build.arg("--release");
        }
        let status = build.status().expect("running cargo build --examples");
        assert!(
            status.success(),
            "cargo build -p twinwire --examples failed"
        );
        assert!(path.exists(), "no {} after the build", path.display());
        path
    })
}

/// The real CLI: `$TWINWIRE_CLAUDE_PATH` (set by `cargo xtask test`), else the one `cargo
/// xtask install-claude` caches.
pub fn claude() -> PathBuf {
    let path = std::env::var_os("TWINWIRE_CLAUDE_PATH")
        .filter(|path| !path.is_empty())
        .map(PathBuf::from)
        .or_else(|| pinned_cli_dir(PINNED_CLI_VERSION).map(|dir| dir.join("claude")))
        .expect("no cache directory: set TWINWIRE_CLAUDE_PATH, TWINWIRE_CACHE_DIR or HOME");
    assert!(
        path.is_file(),
        "no Claude Code CLI at {}: run `cargo xtask install-claude`, or set TWINWIRE_CLAUDE_PATH \
         to a `claude` executable",
        path.display()
    );
    path
}

/// `$VAR`, else `~/DEFAULT` if it exists.
fn toolchain_dir(var: &str, default: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|dir| !dir.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let dir = PathBuf::from(std::env::var_os("HOME")?).join(default);
            dir.is_dir().then_some(dir)
        })
}

/// Starts `command` and collects its output until it exits (sending its process group SIGINT
/// once stdout holds `interrupt_once`); past [`RUN_LIMIT`] every process of the run is killed
/// and the test fails.
fn wait(mut command: Command, marker: &str, mut interrupt_once: Option<&str>) -> Run {
    let mut child = command.spawn().expect("starting the offline runner");
    let stdout_so_far = Arc::new(Mutex::new(Vec::new()));
    let stdout = child
        .stdout
        .take()
        .map(|pipe| drain(pipe, Arc::clone(&stdout_so_far)));
    let stderr = child.stderr.take().map(|pipe| drain(pipe, Arc::default()));
    let deadline = Instant::now() + RUN_LIMIT;
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the runner") {
            break Some(status);
        }
        if let Some(printed) = interrupt_once {
            let so_far =
                String::from_utf8_lossy(&stdout_so_far.lock().expect("stdout")).into_owned();
            if so_far.contains(printed) {
                let group = nix::unistd::Pid::from_raw(
                    i32::try_from(child.id()).expect("a pid fits an i32"),
                );
                nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGINT)
                    .expect("sending SIGINT to the runner's group");
                interrupt_once = None;
            }
        }
        if Instant::now() > deadline {
            for pid in processes(marker).into_iter().map(|(pid, _)| pid) {
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(pid),
                    nix::sys::signal::Signal::SIGKILL,
                );
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let collect = |reader: Option<std::thread::JoinHandle<String>>| {
        reader
            .map(|reader| reader.join().expect("reading output"))
            .unwrap_or_default()
    };
    let run = Run {
        code: status.and_then(|status| status.code()),
        stdout: collect(stdout),
        stderr: collect(stderr),
    };
    assert!(
        status.is_some(),
        "still running after {RUN_LIMIT:?}, killed\n{run}"
    );
    run
}

/// Reads a pipe to its end on a thread of its own, keeping what came so far in `so_far`.
fn drain(
    mut pipe: impl Read + Send + 'static,
    so_far: Arc<Mutex<Vec<u8>>>,
) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => so_far
                    .lock()
                    .expect("output")
                    .extend_from_slice(&chunk[..n]),
            }
        }
        let bytes = so_far.lock().expect("output");
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits up to [`EXIT_GRACE`] for every process of the run to be gone.
fn assert_nothing_left(marker: &str, run: &Run) {
    let deadline = Instant::now() + EXIT_GRACE;
    loop {
        let left = processes(marker);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes left behind: {left:#?}\n{run}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Live processes whose environment holds the marker, with their command lines.
fn processes(marker: &str) -> Vec<(i32, String)> {
    let needle = format!("{MARKER}={marker}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            environ
                .split(|byte| *byte == 0)
                .any(|var| var == needle.as_bytes())
                .then_some(())?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            Some((pid, String::from_utf8_lossy(&cmdline).replace('\0', " ")))
        })
        .collect()
}
