//! Test helpers for twinwire.
//!
//! The main piece is `fake-claude`, a binary that speaks Claude Code's stream-json protocol on
//! stdin/stdout and follows a [`script`]. It starts in milliseconds and lets process-level tests
//! cover what the real CLI rarely does on demand: crashes, hangs, floods, garbage lines, huge
//! frames, late or duplicate control responses, interrupts mid-stream, background hook calls.
//! It is an agent on twinwire's own agent side ([`twinwire::agent::serve`], raw framing), so the
//! engine that drives the CLI is also the one that plays it; frames go out with `type` first,
//! as the CLI writes them.
//!
//! # Using `fake-claude` from a test
//!
//! Tests in this package find it with `env!("CARGO_BIN_EXE_fake-claude")`; tests elsewhere can
//! build it with `cargo build -p twinwire-testkit --bin fake-claude` and use
//! `target/<profile>/fake-claude`. Spawn it like the real CLI (any argv is accepted) with:
//!
//! * `TWINWIRE_FAKE_SCRIPT`: path of a JSON [`script::Script`] (default: echo every message);
//! * `TWINWIRE_FAKE_RECORD`: path of a file to append to: one line
//!   `{"argv":[…],"env":{…},"cwd":"…"}` at start, then `{"in":<frame>}` for every stdin frame
//!   (`{"in_raw":"…"}` for a line that is not JSON, and `{"ignored_response":<frame>}` after a
//!   control response that matched no pending request);
//! * `TWINWIRE_FAKE_PERMISSION_TIMEOUT_MS`: how long to wait for the host's answer to a request
//!   the fake sends (default 30000);
//! * `CLAUDE_CODE_SDK_READS_SESSION_STATE=1`: emit `system/session_state_changed`.
//!
//! argv flags read: `--model`, `--permission-mode`, `--session-id` / `--resume` (as the
//! session id), each as `--flag value` or `--flag=value`.
//!
//! Behaviour without a script, like Claude Code 2.1.330: `initialize` gets a success response
//! (commands, agents, models, account, pid, `claude_code_version` `2.1.330-fake`) and registers
//! hooks and `sdkMcpServers`; each user message gets `system/init`, the turn's frames and a
//! `result`; `interrupt` → `{"still_queued":[]}`; `set_model`, `set_permission_mode`,
//! `set_max_thinking_tokens`, `mcp_status`, `get_context_usage` and a few others succeed; an
//! unknown subtype gets an `unsupported_request` error. The process exits when stdin closes,
//! after the current turn and any background steps, with 1 if the last result was an error.
//!
//! A script written from Rust is the JSON `fake-claude` reads (see [`script`]):
//!
//! ```
//! use twinwire_testkit::script::Script;
//!
//! let script: Script = serde_json::from_str(
//!     r#"{"turns": [{"steps": [{"text": "I read it."}, {"result": {"subtype": "success"}}]}]}"#,
//! )?;
//! assert_eq!(script.turns.len(), 1);
//! // Written to a file named by TWINWIRE_FAKE_SCRIPT for the `fake-claude` process to play.
//! let json = serde_json::to_string(&script)?;
//! assert!(json.contains("I read it."));
//! # Ok::<(), serde_json::Error>(())
//! ```

pub mod fixtures;
pub mod fuzz;
pub mod mcp_http;
pub mod mutations;
pub mod script;
pub mod secrets;

mod fake;

use std::path::PathBuf;

/// The real Claude Code CLI for the suites that drive it: `$TWINWIRE_CLAUDE_PATH`, else the build
/// of [`twinwire::host::process::PINNED_CLI_VERSION`] in twinwire's cache. Panics, saying how to install
/// it, when it is not there, so that a suite without its CLI fails rather than passes empty.
pub fn real_claude() -> PathBuf {
    let version = twinwire::host::process::PINNED_CLI_VERSION;
    let path = match std::env::var_os("TWINWIRE_CLAUDE_PATH").filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => twinwire::host::process::pinned_cli_dir(version)
            .expect("no cache directory: set TWINWIRE_CLAUDE_PATH, TWINWIRE_CACHE_DIR or HOME")
            .join("claude"),
    };
    assert!(
        path.is_file(),
        "the Claude Code CLI {version} is not installed at {}: run `cargo xtask install-claude` \
         (`cargo xtask test` does it too), or set TWINWIRE_CLAUDE_PATH to a `claude` executable",
        path.display()
    );
    path
}

/// The `sshd` of the suites that run their own: `$TWINWIRE_SSHD`, else `/usr/sbin/sshd`. Panics
/// when it is not there (`cargo xtask test` installs Debian's openssh-server).
pub fn sshd() -> PathBuf {
    let sshd = std::env::var_os("TWINWIRE_SSHD")
        .filter(|p| !p.is_empty())
        .map_or_else(|| PathBuf::from("/usr/sbin/sshd"), PathBuf::from);
    assert!(
        sshd.is_file(),
        "no sshd at {} (cargo xtask test installs openssh-server)",
        sshd.display()
    );
    sshd
}

/// twinwire-agent in the directory of this workspace's binaries (`bin_dir`, e.g. the parent of
/// `env!("CARGO_BIN_EXE_fake-claude")`): under `cargo xtask test` (`TWINWIRE_PREBUILT`) as it
/// was built, else built now (`cargo build`, in the profile of `bin_dir`) so that it is current.
pub fn twinwire_agent_in(bin_dir: &std::path::Path) -> PathBuf {
    let path = bin_dir.join(format!("twinwire-agent{}", std::env::consts::EXE_SUFFIX));
    built(path, &["-p", "twinwire-agent", "--bin", "twinwire-agent"])
}

/// `path`, a binary or example of this workspace that `cargo build ARGS…` makes: under `cargo
/// xtask test` (`TWINWIRE_PREBUILT`) as it was built, else built now (in the profile of the
/// directory it is in) so that it is current.
pub fn built(path: PathBuf, args: &[&str]) -> PathBuf {
    use std::process::Command;
    let profile_dir = path
        .parent()
        .map(|dir| {
            if dir.file_name() == Some("examples".as_ref()) {
                dir.parent().unwrap_or(dir)
            } else {
                dir
            }
        })
        .unwrap_or(&path)
        .to_owned();
    if std::env::var_os("TWINWIRE_PREBUILT").is_none() {
        let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        build.arg("build").args(args);
        // Without the variables Cargo set for the test: build scripts that watch them would
        // see them differ from a build in a shell, and rebuild (see crates/cli/tests/common).
        for (var, _) in std::env::vars_os() {
            let set_for_the_test = var.to_str().is_some_and(|var| {
                ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"]
                    .iter()
                    .any(|prefix| var.starts_with(prefix))
                    || [
                        "CARGO_CRATE_NAME",
                        "CARGO_BIN_NAME",
                        "CARGO_PRIMARY_PACKAGE",
                        "CARGO_TARGET_TMPDIR",
                        "CARGO_RUSTC_CURRENT_DIR",
                        "OUT_DIR",
                    ]
                    .contains(&var)
            });
            if set_for_the_test {
                build.env_remove(var);
            }
        }
        if profile_dir.file_name() == Some("release".as_ref()) {
            build.arg("--release");
        }
        assert!(
            build.status().expect("running cargo").success(),
            "building {args:?}"
        );
    }
    assert!(path.is_file(), "no {}", path.display());
    path
}

/// Runs the cases of a test without libtest (a binary that runs itself again in another role
/// needs its own `main`), as libtest reports them: each case whose name holds one of the
/// command line's words (all without any), `run(case)` returning `false` where the case cannot
/// run here (reported ignored, with `ignored_why`); a failure panics. Prints libtest's closing
/// line, which `cargo xtask test` counts.
#[allow(clippy::print_stdout)]
pub fn run_cases<C>(cases: Vec<(&str, C)>, ignored_why: &str, mut run: impl FnMut(C) -> bool) {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let all = std::time::Instant::now();
    let (mut passed, mut ignored, mut filtered) = (0, 0, 0);
    for (name, case) in cases {
        if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
            filtered += 1;
            continue;
        }
        let started = std::time::Instant::now();
        if run(case) {
            let took = started.elapsed().as_secs_f64();
            println!("test {name} ... ok ({took:.1} s)");
            passed += 1;
        } else {
            println!("test {name} ... ignored ({ignored_why})");
            ignored += 1;
        }
    }
    println!(
        "\ntest result: ok. {passed} passed; 0 failed; {ignored} ignored; 0 measured; \
         {filtered} filtered out; finished in {:.2}s",
        all.elapsed().as_secs_f64()
    );
}

/// Spawns `command` with its stdout piped and reads its first line, which must start with
/// `prefix`: what the program says of itself (a session id, an address). Returns the child
/// and the rest of that line; panics, quoting the line, when it says something else.
pub fn spawn_and_read(
    command: &mut std::process::Command,
    prefix: &str,
) -> (std::process::Child, String) {
    use std::io::BufRead;
    let mut child = command
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("spawning the program");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("its stdout");
    std::io::BufReader::new(stdout)
        .read_line(&mut line)
        .expect("reading its first line");
    let said = line
        .trim()
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("the program said {line:?}, not {prefix:?}…"))
        .to_owned();
    (child, said)
}

/// Run `fake-claude` in this process (its argv, environment and stdio); returns the exit code.
///
/// This is the whole `fake-claude` binary; it is public so a test binary can re-run itself as
/// the fake if it prefers that to spawning the built binary.
pub fn run_fake_claude() -> i32 {
    fake::run()
}
