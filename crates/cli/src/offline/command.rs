//! `twinwire offline -- COMMAND`: one's own program, unchanged, against the scripted model
//! server, with no account and no network.
//!
//! A wrapper rather than a switch in the library: the program that runs is the one that ships
//! (no code path that exists only for a demo, no HTTP server compiled into it), and it serves
//! any host, the official SDKs included, since it only puts a `claude` in front of them. The
//! model server, the private HOME and the offline sessions are those of `run --offline`.
//!
//! The CLI is found before anything changes (`--cli-path`, `$TWINWIRE_CLI_PATH`, `PATH`, the
//! usual places, the builds `twinwire install-claude` cached), then offered to the command as
//! `claude` on `PATH` and as `$TWINWIRE_CLI_PATH`. On Unix that `claude` is a small script that
//! gives the real one a private HOME and TMPDIR and points it at the server; the command keeps
//! its own HOME (cargo, rustup and the command's own files live there). Every CLI the command
//! starts is sent to the server even when it names the executable itself: the command's
//! environment carries the server's URL and a placeholder key, and none of the variables that
//! would log a CLI in elsewhere.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use twinwire::host::process::{discover, CliCommand, CLI_PATH_ENV};
use twinwire_model_server::{ModelScript, Reply};

use super::Offline;

/// Exit code when twinwire itself fails before the command runs (as `env` does).
const EXIT_OWN_FAILURE: u8 = 125;
/// Exit code when the command exists but cannot be run.
const EXIT_CANNOT_RUN: u8 = 126;
/// Exit code when the command is not found.
const EXIT_NOT_FOUND: u8 = 127;

/// Options of `twinwire offline`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
EXIT STATUS:
  the command's own; 125 when twinwire fails before it runs, 126 when it cannot be run, 127 when
  it is not found; 128+N when signal N ended it.

EXAMPLES:
  twinwire offline -- cargo run                      # your program; every prompt is echoed
  twinwire offline --model-script answers.json -- cargo test
  twinwire offline -- python3 my_agent.py            # the official SDKs find `claude` on PATH")]
pub struct OfflineArgs {
    /// The model script: which reply for which request (the format and an example:
    /// `twinwire model-server --help`). Default: every prompt echoed (`You said: …`).
    #[arg(long, value_name = "FILE")]
    pub model_script: Option<PathBuf>,
    /// The `claude` executable the command gets (default: $TWINWIRE_CLI_PATH, PATH, the usual
    /// install places, then the builds of `twinwire install-claude`; a bare name is looked up
    /// on PATH).
    #[arg(long, value_name = "PATH")]
    pub cli_path: Option<PathBuf>,
    /// The command and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<OsString>,
}

/// Runs the command offline; its exit code, or [`EXIT_OWN_FAILURE`] and the reason on stderr.
pub fn run(args: &OfflineArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return own_failure(&format!("starting the async runtime: {err}")),
    };
    runtime.block_on(async {
        match prepare(args).await {
            Ok(setup) => setup.run(args).await,
            Err(message) => own_failure(&message),
        }
    })
}

fn own_failure(message: &str) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "twinwire offline: {message}");
    ExitCode::from(EXIT_OWN_FAILURE)
}

/// What the command runs in: the server, the private home, and the `claude` it is given.
struct Setup {
    offline: Offline,
    /// The real CLI.
    cli: CliCommand,
    /// What the command finds as `claude`: the script in the private home on Unix, the real CLI
    /// elsewhere.
    offered: PathBuf,
    script_name: String,
}

async fn prepare(args: &OfflineArgs) -> Result<Setup, String> {
    // Found first: the usual places and the cache are under the user's HOME, which the CLI
    // will not see.
    let cli = discover(args.cli_path.as_deref())
        .map_err(|err| crate::connect::start_failure(&err).replacen("twinwire: ", "", 1))?;
    let (script, script_name) = match &args.model_script {
        Some(path) => (
            super::read_script(path).map_err(|err| format!("{err:#}"))?,
            path.display().to_string(),
        ),
        None => (
            ModelScript::new(Reply::Echo(true)),
            "every prompt echoed".to_owned(),
        ),
    };
    let offline = Offline::start(script)
        .await
        .map_err(|err| format!("{err:#}"))?;
    let offered = offer(&offline, &cli).map_err(|err| format!("{err:#}"))?;
    Ok(Setup {
        offline,
        cli,
        offered,
        script_name,
    })
}

impl Setup {
    async fn run(self, args: &OfflineArgs) -> ExitCode {
        let (program, rest) = args.command.split_first().expect("clap requires a command");
        let mut command = tokio::process::Command::new(program);
        command.args(rest).kill_on_drop(true);
        for name in Offline::env_removed() {
            command.env_remove(name);
        }
        for name in set_by_cargo_run() {
            command.env_remove(name);
        }
        command.envs(self.command_env());
        let _ = writeln!(
            std::io::stderr(),
            "{}",
            sanitize_note(&format!(
                "offline: scripted model at {} ({}), CLI {} as `claude` on PATH and \
                 ${CLI_PATH_ENV}, private HOME, sessions kept in {}; no account used",
                self.offline.url(),
                self.script_name,
                self.cli_shown(),
                self.offline.config_dir().display()
            ))
        );
        // Ctrl-C reaches the command's whole group, the command included: this process
        // waits for it, then stops the server and removes the private home.
        let mut interrupts = crate::terminal::Interrupts::new().ok();
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(err) => {
                let shown = Path::new(program).display().to_string();
                return match err.kind() {
                    std::io::ErrorKind::NotFound => {
                        let _ = writeln!(
                            std::io::stderr(),
                            "twinwire offline: {}: command not found",
                            sanitize_note(&shown)
                        );
                        ExitCode::from(EXIT_NOT_FOUND)
                    }
                    _ => {
                        let _ = writeln!(
                            std::io::stderr(),
                            "twinwire offline: cannot run {}: {err}",
                            sanitize_note(&shown)
                        );
                        ExitCode::from(EXIT_CANNOT_RUN)
                    }
                };
            }
        };
        let status = loop {
            tokio::select! {
                status = child.wait() => break status,
                () = crate::terminal::wait_interrupt(interrupts.as_mut()) => {}
            }
        };
        self.offline.shutdown().await;
        match status {
            Ok(status) => ExitCode::from(exit_code(status)),
            Err(err) => own_failure(&format!("waiting for the command: {err}")),
        }
    }

    /// The variables the command runs with: the offline API for any CLI it starts, the CLI to
    /// start, and the sessions' directory (so that the program's own session functions see
    /// what its CLIs saved).
    fn command_env(&self) -> Vec<(OsString, OsString)> {
        let mut vars: Vec<(OsString, OsString)> = self
            .offline
            .api_env()
            .into_iter()
            .chain([(
                "CLAUDE_CONFIG_DIR".into(),
                self.offline.config_dir().as_os_str().to_owned(),
            )])
            .collect();
        vars.push((CLI_PATH_ENV.into(), self.offered.clone().into_os_string()));
        if let Some(dir) = self.offered.parent().filter(|_| cfg!(unix)) {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let joined = std::env::join_paths(
                std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(&path)),
            )
            .unwrap_or(path);
            vars.push(("PATH".into(), joined));
        }
        vars
    }

    fn cli_shown(&self) -> String {
        std::iter::once(&self.cli.program.as_os_str().to_owned())
            .chain(&self.cli.leading_args)
            .map(|part| Path::new(part).display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Puts `claude` in the private home: a script that runs the real CLI with the offline
/// environment (its HOME and TMPDIR private, its sessions where `run --offline` keeps them
/// unless the command chose a directory). Returns its path.
#[cfg(unix)]
fn offer(offline: &Offline, cli: &CliCommand) -> anyhow::Result<PathBuf> {
    use anyhow::Context as _;
    use std::os::unix::fs::PermissionsExt;
    let bin = offline.home().join("bin");
    std::fs::create_dir_all(&bin).with_context(|| format!("creating {}", bin.display()))?;
    let path = bin.join("claude");
    let mut script = String::from(
        "#!/bin/sh\n# twinwire offline: the real Claude Code against the scripted model server.\n",
    );
    script.push_str("unset");
    for name in Offline::env_removed() {
        script.push(' ');
        script.push_str(name);
    }
    script.push('\n');
    let config_dir = offline.config_dir().display().to_string();
    script.push_str(&format!(
        "CLAUDE_CONFIG_DIR=\"${{CLAUDE_CONFIG_DIR:-{}}}\"\nexport CLAUDE_CONFIG_DIR\n",
        shell_quote(&config_dir)
    ));
    for (key, value) in offline.env() {
        let key = key.to_string_lossy();
        if key == "CLAUDE_CONFIG_DIR" {
            continue;
        }
        script.push_str(&format!(
            "{key}={}\nexport {key}\n",
            shell_quote(&value.to_string_lossy())
        ));
    }
    script.push_str("exec");
    for part in std::iter::once(cli.program.as_os_str())
        .chain(cli.leading_args.iter().map(|a| a.as_os_str()))
    {
        script.push(' ');
        script.push_str(&shell_quote(&part.to_string_lossy()));
    }
    script.push_str(" \"$@\"\n");
    std::fs::write(&path, script).with_context(|| format!("writing {}", path.display()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))?;
    Ok(path)
}

/// Elsewhere the real CLI itself: the command's environment points it at the server.
#[cfg(not(unix))]
fn offer(_offline: &Offline, cli: &CliCommand) -> anyhow::Result<PathBuf> {
    Ok(cli
        .leading_args
        .first()
        .map_or_else(|| cli.program.clone(), PathBuf::from))
}

/// `text` in single quotes for `sh`.
#[cfg(unix)]
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// The variables `cargo run` sets for the program it runs (this one, when run that way): a
/// `cargo` the command starts would take them as its own, and build scripts that watch them
/// (ring's) would rebuild for it.
fn set_by_cargo_run() -> Vec<OsString> {
    std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| {
            let name = name.to_string_lossy();
            ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"]
                .iter()
                .any(|prefix| name.starts_with(prefix))
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_BIN_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                ]
                .contains(&name.as_ref())
        })
        .collect()
}

/// The command's exit code, or for one a signal ended the shell's 128 + N.
fn exit_code(status: std::process::ExitStatus) -> u8 {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return u8::try_from(128 + signal).unwrap_or(1);
    }
    status
        .code()
        .and_then(|code| u8::try_from(code).ok())
        .unwrap_or(1)
}

fn sanitize_note(text: &str) -> String {
    crate::terminal::sanitize(text).into_owned()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser)]
    struct Flags {
        #[command(flatten)]
        offline: OfflineArgs,
    }

    #[test]
    fn the_command_takes_its_own_flags() {
        let flags = Flags::try_parse_from([
            "twinwire",
            "--model-script",
            "s.json",
            "--",
            "cargo",
            "run",
            "--release",
            "--",
            "-x",
        ])
        .expect("parsed");
        assert_eq!(flags.offline.model_script, Some(PathBuf::from("s.json")));
        assert_eq!(
            flags.offline.command,
            ["cargo", "run", "--release", "--", "-x"].map(OsString::from)
        );
        assert!(
            Flags::try_parse_from(["twinwire"]).is_err(),
            "a command is required"
        );
    }

    #[cfg(unix)]
    #[test]
    fn quoting_keeps_every_byte() {
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
