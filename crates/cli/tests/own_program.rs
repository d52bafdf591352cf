//! One's own program from a fresh HOME, as a newcomer runs it: `twinwire offline -- COMMAND`
//! with the real pinned CLI (`cargo xtask test` installs it; without it the tests fail), found
//! where `twinwire install-claude` cached it; and without credentials or without a CLI, every
//! entry point (the README's example, `twinwire run`) saying what to do and failing.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;
mod runs;
use common::{fake_claude, readme_example, twinwire};
use runs::Run;
use twinwire::host::process::PINNED_CLI_VERSION;

/// A HOME with nothing in it but, when asked for, the pinned CLI where `twinwire
/// install-claude` puts it; a `PATH` with no `claude` on it.
struct FreshHome {
    dir: tempfile::TempDir,
}

impl FreshHome {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["home", "bin", "work"] {
            std::fs::create_dir(dir.path().join(sub)).expect("mkdir");
        }
        Self { dir }
    }

    /// The same, with the pinned CLI installed by `twinwire install-claude`: the download
    /// stands in for a link to the build `cargo xtask test` installed, and the command finds
    /// it complete.
    fn with_cli() -> Self {
        let home = Self::new();
        let cached = home.cached_cli();
        std::fs::create_dir_all(cached.parent().expect("a directory")).expect("mkdir");
        std::os::unix::fs::symlink(twinwire_testkit::real_claude(), &cached).expect("link");
        let install = home.run(twinwire(), &["install-claude"]);
        assert_eq!(install.code, Some(0), "{install:?}");
        assert_eq!(
            install.stdout.trim(),
            cached.display().to_string(),
            "{install:?}"
        );
        home
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// Where `twinwire install-claude` keeps the pinned CLI in this HOME.
    fn cached_cli(&self) -> PathBuf {
        self.path("home/.cache/twinwire/claude-code")
            .join(PINNED_CLI_VERSION)
            .join("claude")
    }

    /// `program ARGS` in `work/` with this HOME, this PATH, and none of the variables that
    /// would name a CLI, a cache, credentials or a place for sessions.
    fn run(&self, program: &Path, args: &[&str]) -> Run {
        let mut command = Command::new(program);
        command
            .args(args)
            .current_dir(self.path("work"))
            .env("HOME", self.path("home"))
            .env("PATH", self.path("bin"))
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        for name in [
            "TWINWIRE_CLI_PATH",
            "TWINWIRE_CACHE_DIR",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "CLAUDE_CONFIG_DIR",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_AUTH_TOKEN",
            "CLAUDE_CODE_OAUTH_TOKEN",
            "ANTHROPIC_BASE_URL",
        ] {
            command.env_remove(name);
        }
        Run::from(command.output().expect("running the program"))
    }
}

/// The model script of the README's example: `4` for `What is 2 + 2?`.
fn readme_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../twinwire/examples/scripts/readme.json")
}

/// Panics unless `text` is words to act on, not a `Debug` dump of an error value.
fn assert_no_dump(text: &str) {
    for dump in ["CliNotFound {", "ResultError {", "Result(", "searched:"] {
        assert!(!text.contains(dump), "a dump of the error: {text}");
    }
}

#[test]
fn the_readme_example_runs_offline_from_a_fresh_home_with_the_cached_cli() {
    let home = FreshHome::with_cli();
    let script = readme_script();
    let run = home.run(
        twinwire(),
        &[
            "offline",
            "--model-script",
            script.to_str().expect("a UTF-8 path"),
            "--",
            readme_example().to_str().expect("a UTF-8 path"),
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, "4\n", "{run:?}");
    // The CLI it used is the one in the cache of this HOME.
    assert!(
        run.stderr
            .contains(&format!("CLI {}", home.cached_cli().display())),
        "{run:?}"
    );
    // Sessions are kept where `twinwire sessions list` finds offline ones.
    let listed = home.run(twinwire(), &["sessions", "list", "--all"]);
    assert_eq!(listed.code, Some(0), "{listed:?}");
    assert!(listed.stdout.contains("What is 2 + 2?"), "{listed:?}");
}

#[test]
fn an_official_sdk_finds_the_offline_claude_on_path() {
    let home = FreshHome::with_cli();
    // What an SDK does: run `claude` from PATH, here with the CLI's print mode.
    let run = home.run(
        twinwire(),
        &[
            "offline",
            "--",
            "/bin/sh",
            "-c",
            "claude -p 'hello there' --output-format json",
        ],
    );
    assert_eq!(run.code, Some(0), "{run:?}");
    let result: serde_json::Value = serde_json::from_str(run.stdout.trim()).expect("JSON");
    assert_eq!(result["result"], "You said: hello there", "{run:?}");
    // The command kept its own HOME; only the CLI had a private one.
    let home_of_command = home.run(
        twinwire(),
        &["offline", "--", "/bin/sh", "-c", "echo $HOME"],
    );
    assert_eq!(
        home_of_command.stdout.trim(),
        home.path("home").display().to_string(),
        "{home_of_command:?}"
    );
}

#[test]
fn the_command_exit_code_is_passed_through() {
    let home = FreshHome::with_cli();
    let failed = home.run(twinwire(), &["offline", "--", "/bin/sh", "-c", "exit 3"]);
    assert_eq!(failed.code, Some(3), "{failed:?}");
    let missing = home.run(twinwire(), &["offline", "--", "no-such-command"]);
    assert_eq!(missing.code, Some(127), "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("no-such-command: command not found"),
        "{missing:?}"
    );
}

#[test]
fn without_credentials_every_entry_point_says_what_to_do_and_fails() {
    let home = FreshHome::with_cli();
    // The README's example, the CLI found in the cache, no key, no login.
    let example = home.run(readme_example(), &[]);
    assert_eq!(example.code, Some(1), "{example:?}");
    assert!(example.stdout.is_empty(), "no answer: {example:?}");
    assert!(example.stderr.contains("Not logged in"), "{example:?}");
    for what_to_do in ["ANTHROPIC_API_KEY", "twinwire offline"] {
        assert!(example.stderr.contains(what_to_do), "{example:?}");
    }
    assert_no_dump(&example.stderr);
    // `twinwire run`.
    let run = home.run(twinwire(), &["run", "What is 2 + 2?"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    for what_to_do in ["ANTHROPIC_API_KEY", "twinwire run --offline"] {
        assert!(run.stderr.contains(what_to_do), "{run:?}");
    }
    assert_no_dump(&run.stderr);
}

#[test]
fn without_a_cli_every_entry_point_says_how_to_get_one() {
    let home = FreshHome::new();
    let example = home.run(readme_example(), &[]);
    assert_eq!(example.code, Some(1), "{example:?}");
    for what_to_do in ["twinwire install-claude", "TWINWIRE_CLI_PATH"] {
        assert!(example.stderr.contains(what_to_do), "{example:?}");
    }
    assert_no_dump(&example.stderr);
    let run = home.run(twinwire(), &["run", "What is 2 + 2?"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    for what_to_do in ["twinwire install-claude", "TWINWIRE_CLI_PATH"] {
        assert!(run.stderr.contains(what_to_do), "{run:?}");
    }
    let offline = home.run(twinwire(), &["offline", "--", "/bin/true"]);
    assert_eq!(offline.code, Some(125), "{offline:?}");
    assert!(
        offline.stderr.contains("twinwire install-claude"),
        "{offline:?}"
    );
}

#[test]
fn a_cli_path_without_a_directory_is_looked_up_on_path() {
    let home = FreshHome::new();
    std::os::unix::fs::symlink(fake_claude(), home.path("bin/my-claude")).expect("link");
    let found = home.run(twinwire(), &["run", "--cli-path", "my-claude", "hello"]);
    assert_eq!(found.code, Some(0), "{found:?}");
    assert!(found.stdout.contains("hello"), "{found:?}");
    let missing = home.run(
        twinwire(),
        &["run", "--cli-path", "no-such-claude", "hello"],
    );
    assert_eq!(missing.code, Some(1), "{missing:?}");
    assert!(
        missing
            .stderr
            .contains("Claude Code CLI `no-such-claude` not found on PATH"),
        "{missing:?}"
    );
}
