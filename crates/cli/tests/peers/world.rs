//! One run's world: private directories, the wrapper scripts an SDK gets as its CLI path, and
//! the SDK's scenario program run as a real process with a time limit.

use std::fmt::Write as _;
use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{quoted, twinwire};
use crate::Sdk;

/// How long one scenario program may run. The programs give up on their own well before
/// (30 s per step, 90 s in all), with a message that says which step hung.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// How long a wrapper may take to report its exit after the SDK is done: the SDKs close the
/// CLI's stdin and wait for it (Python 5 s, TypeScript 2 s) before they signal it.
const EXIT_LIMIT: Duration = Duration::from_secs(15);

/// A scratch directory: `home/`, `tmp/`, `work/` (the SDK's and the CLI's working directory),
/// `bin/` (wrapper scripts) and the files of the run.
pub struct World {
    root: tempfile::TempDir,
}

impl World {
    pub fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("twinwire-peers-")
            .tempdir()
            .unwrap();
        for dir in ["home", "tmp", "work", "bin"] {
            std::fs::create_dir_all(root.path().join(dir)).unwrap();
        }
        Self { root }
    }

    /// A file or directory of the world.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.path().join(name)
    }

    /// The file's text, or "" when it does not exist.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }

    /// Writes an executable script into `bin/`; `@DIR@` in `body` becomes the world's root,
    /// quoted.
    pub fn script(&self, name: &str, shell: &str, body: &str) -> PathBuf {
        let path = self.path("bin").join(name);
        let body = body.replace("@DIR@", &quoted(self.root.path()));
        std::fs::write(&path, format!("#!{shell}\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The witness between the tap and the real CLI: `tee` copies what goes into the CLI to
    /// `witness.in` and what comes out to `witness.out`, and the environment the CLI gets goes
    /// to `witness.env` (the tap redacts with the secrets of that environment).
    pub fn witness(&self, claude: &Path) -> PathBuf {
        let body = format!(
            "# pipefail: exit with the CLI's status, not tee's.\n\
             set -o pipefail\n\
             echo $$ > @DIR@/witness.pid\n\
             env -0 > @DIR@/witness.env\n\
             tee @DIR@/witness.in | {} \"$@\" | tee @DIR@/witness.out",
            quoted(claude)
        );
        self.script("witness", "/bin/bash", &body)
    }

    /// The SDK's CLI path for mode (a): `twinwire tap --record record.jsonl -- witness`. Each
    /// start is counted in `spawns`, the tap's exit code goes to `tap.exit`.
    pub fn tap_wrapper(&self, witness: &Path) -> PathBuf {
        let body = format!(
            "echo tap >> @DIR@/spawns\n\
             {} tap --record @DIR@/record.jsonl -- {} \"$@\" 2>> @DIR@/tap.stderr\n\
             code=$?\n\
             echo $code > @DIR@/tap.exit\n\
             exit $code",
            quoted(twinwire()),
            quoted(witness)
        );
        self.script("claude-tap", "/bin/sh", &body)
    }

    /// The SDK's CLI path for mode (c): `twinwire replay recording.jsonl`, its exit code to
    /// `replay.exit` and its report to `replay.stderr`.
    pub fn replay_wrapper(&self, recording: &Path) -> PathBuf {
        let body = format!(
            "echo replay >> @DIR@/spawns\n\
             {} replay {} \"$@\" 2>> @DIR@/replay.stderr\n\
             code=$?\n\
             echo $code > @DIR@/replay.exit\n\
             exit $code",
            quoted(twinwire()),
            quoted(recording)
        );
        self.script("claude-replay", "/bin/sh", &body)
    }

    /// How many times the SDK started its CLI.
    pub fn spawns(&self) -> usize {
        self.read("spawns").lines().count()
    }

    /// Waits for a wrapper's `NAME.exit` file and returns the code in it.
    pub fn exit_code(&self, name: &str) -> Result<i32, String> {
        let deadline = Instant::now() + EXIT_LIMIT;
        loop {
            let text = self.read(&format!("{name}.exit"));
            if let Ok(code) = text.trim().parse() {
                return Ok(code);
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "the {name} wrapper did not exit within {} s of the SDK",
                    EXIT_LIMIT.as_secs()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The environment of an SDK process: the CLI's private home and temp directories, the
    /// offline settings, and nothing of the developer's own Claude setup.
    pub fn env(&self, cli: &Path) -> Vec<(String, PathBuf)> {
        let home = self.path("home");
        let tmp = self.path("tmp");
        let mut env: Vec<(&str, PathBuf)> = vec![
            ("TWINWIRE_PEERS_CLI", cli.to_owned()),
            ("HOME", home.clone()),
            ("TMPDIR", tmp.clone()),
            ("CLAUDE_CODE_TMPDIR", tmp),
            ("XDG_CONFIG_HOME", home.join(".config")),
            ("XDG_CACHE_HOME", home.join(".cache")),
            ("XDG_DATA_HOME", home.join(".local/share")),
            ("XDG_STATE_HOME", home.join(".local/state")),
            ("ANTHROPIC_API_KEY", "peers-test-key".into()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
            ("DISABLE_TELEMETRY", "1".into()),
            ("DISABLE_AUTOUPDATER", "1".into()),
            ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
            // Keeps the repository free of `__pycache__`.
            ("PYTHONDONTWRITEBYTECODE", "1".into()),
        ];
        env.sort_by_key(|(name, _)| *name);
        env.into_iter()
            .map(|(name, value)| (name.to_owned(), value))
            .collect()
    }

    /// Runs `sdk`'s scenario program for `scenario` with `env` added to a cleaned copy of ours.
    pub fn run_sdk(&self, sdk: Sdk, scenario: &str, env: &[(String, PathBuf)]) -> SdkRun {
        let mut command = sdk.command();
        command
            .arg(scenario)
            .current_dir(self.path("work"))
            .stdin(Stdio::null())
            .stdout(File::create(self.path("sdk.stdout")).unwrap())
            .stderr(File::create(self.path("sdk.stderr")).unwrap())
            // Its own process group, so that a run out of time can be killed whole.
            .process_group(0);
        for name in LEAKY_ENV {
            command.env_remove(name);
        }
        command.envs(env.iter().map(|(name, value)| (name, value)));
        let started = Instant::now();
        let mut child = command
            .spawn()
            .unwrap_or_else(|err| panic!("starting {command:?}: {err}"));
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() > RUN_LIMIT {
                kill_group(child.id());
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let seconds = started.elapsed().as_secs_f64();
        // Whatever the SDK left behind in its group goes too.
        kill_group(child.id());
        let stdout = self.read("sdk.stdout");
        let summary = stdout
            .lines()
            .rev()
            .find(|line| !line.trim().is_empty())
            .and_then(|line| serde_json::from_str(line).ok());
        SdkRun {
            status,
            seconds,
            summary,
            stdout,
            stderr: self.read("sdk.stderr"),
        }
    }

    /// Kills what is left of the witness's pipeline (the CLI and both `tee`s), for runs that
    /// failed half-way.
    pub fn kill_witness(&self) {
        if let Ok(pid) = self.read("witness.pid").trim().parse() {
            kill_group(pid);
        }
    }
}

/// Variables of the developer's environment that would change what the CLI or the SDKs do.
const LEAKY_ENV: [&str; 12] = [
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDECODE",
    "IS_SANDBOX",
    "NODE_OPTIONS",
    "TWINWIRE_FAKE_SCRIPT",
];

/// SIGKILL to a process group, through `kill(1)` (the workspace allows no `unsafe`).
fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// How a scenario program ran.
pub struct SdkRun {
    /// Its exit status; `None` when it ran out of time and was killed.
    pub status: Option<ExitStatus>,
    /// Wall time, seconds.
    pub seconds: f64,
    /// Its last stdout line, parsed: `{"ok": …, "checks": …, "error"?: …}`.
    pub summary: Option<Value>,
    pub stdout: String,
    pub stderr: String,
}

impl SdkRun {
    /// `Ok` when the program exited 0 and its summary says `ok`; else what went wrong, with its
    /// output.
    pub fn passed(&self) -> Result<(), String> {
        let ok = self.summary.as_ref().and_then(|s| s["ok"].as_bool()) == Some(true);
        if ok && self.status.is_some_and(|s| s.success()) {
            return Ok(());
        }
        let mut why = match (&self.status, &self.summary) {
            (None, _) => format!("no result within {} s (killed)", RUN_LIMIT.as_secs()),
            (Some(status), Some(summary)) => format!(
                "{status}: {}",
                summary["error"].as_str().unwrap_or("(no error given)")
            ),
            (Some(status), None) => format!("{status}, without a summary line"),
        };
        let _ = write!(
            why,
            "\n--- stdout\n{}\n--- stderr (tail)\n{}",
            self.stdout.trim_end(),
            tail(&self.stderr, 4000)
        );
        Err(why)
    }

    /// The number of checks the program reported as passed.
    pub fn checks(&self) -> u64 {
        self.summary
            .as_ref()
            .and_then(|s| s["checks"].as_u64())
            .unwrap_or(0)
    }
}

/// The last `max` bytes of `text` (at a character boundary).
pub fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].trim_end()
}
