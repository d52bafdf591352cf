//! Runs another example offline, with no API key and no network: a scripted model server
//! (`twinwire-model-server`) in this process answers the CLI's model calls from
//! `examples/scripts/<example>.json`, and the real Claude Code CLI runs with a private HOME,
//! TMPDIR and working directory, all deleted at exit, so none of your settings, credentials
//! or sessions are read or written and nothing is left in your checkout.
//!
//! ```sh
//! cargo run -p twinwire --example offline -- hooks
//! cargo run -p twinwire --example offline -- quickstart "What is the capital of France?"
//! ```
//!
//! The example itself is not changed for this: it is built and run as it is, with
//! `ANTHROPIC_BASE_URL` pointing at the server. Any program of yours runs the same way under
//! `twinwire offline` (docs/model-server.md):
//!
//! ```sh
//! twinwire offline --model-script crates/twinwire/examples/scripts/hooks.json -- \
//!   cargo run -p twinwire --example hooks
//! ```
//!
//! The CLI is found as the examples find it (`$TWINWIRE_CLI_PATH`, `claude` on `PATH`, the usual
//! install locations, then the builds `twinwire install-claude` cached), before HOME changes,
//! and handed to the example as `$TWINWIRE_CLI_PATH`.
#![allow(clippy::print_stdout, clippy::print_stderr)] // An example prints its results.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use twinwire::host::process::{discover, CLI_PATH_ENV};
use twinwire_model_server::{ModelScript, ModelServer};

/// Where the model scripts of the examples are, one `<example>.json` each.
const SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/scripts");

/// Variables of your environment that would log the CLI in, send it elsewhere, or have it
/// keep its state in your configuration directory instead of the private HOME.
const REMOVED: [&str; 5] = [
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CONFIG_DIR",
];

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(code) => code,
        Err(message) => {
            eprintln!("offline: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<ExitCode, String> {
    let mut args = std::env::args_os().skip(1);
    let Some(name) = args.next().and_then(|name| name.into_string().ok()) else {
        return Err(format!(
            "usage: cargo run -p twinwire --example offline -- EXAMPLE [ARGS...]\nexamples: {}",
            scripted_examples().join(", ")
        ));
    };
    let script_path = Path::new(SCRIPTS).join(format!("{name}.json"));
    if !scripted_examples().contains(&name) {
        if script_path.is_file() {
            // `otlp`: scripted, but this runner was built without the feature it requires.
            return Err(format!(
                "the example {name:?} needs the feature `opentelemetry`: cargo run -p twinwire \
                 --features opentelemetry --example offline -- {name}"
            ));
        }
        return Err(format!(
            "no model script for {name:?} ({} is missing); examples: {}",
            script_path.display(),
            scripted_examples().join(", ")
        ));
    }
    let script = ModelScript::from_file(&script_path).map_err(|err| err.to_string())?;
    // Found before HOME changes: the usual places and the cache are under your home.
    let cli = discover(None).map_err(|err| err.to_string())?;
    let cli = cli.leading_args.first().map_or(cli.program, PathBuf::from);
    let example = build(&name)?;

    let private = tempfile::Builder::new()
        .prefix("twinwire-example-")
        .tempdir()
        .map_err(|err| format!("creating a private HOME: {err}"))?;
    let (home, tmp, work) = (
        private.path().join("home"),
        private.path().join("tmp"),
        private.path().join("work"),
    );
    for dir in [&home, &tmp, &work] {
        std::fs::create_dir_all(dir).map_err(|err| format!("creating {}: {err}", dir.display()))?;
    }
    let server = ModelServer::start(script)
        .await
        .map_err(|err| format!("starting the model server: {err}"))?;
    eprintln!(
        "offline: {name} against the model server at {} ({}), CLI {}",
        server.url(),
        script_path.display(),
        cli.display()
    );

    let mut command = tokio::process::Command::new(&example);
    // A backstop: the example is killed if this process fails while waiting for it.
    command.args(args).current_dir(&work).kill_on_drop(true);
    for name in REMOVED {
        command.env_remove(name);
    }
    let vars: [(&str, OsString); 11] = [
        ("HOME", home.clone().into()),
        ("USERPROFILE", home.into()),
        ("TMPDIR", tmp.clone().into()),
        ("CLAUDE_CODE_TMPDIR", tmp.into()),
        (CLI_PATH_ENV, cli.into()),
        ("ANTHROPIC_BASE_URL", server.url().into()),
        ("ANTHROPIC_API_KEY", "offline".into()),
        // Without it a 5xx is retried for minutes.
        ("CLAUDE_CODE_MAX_RETRIES", "0".into()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".into()),
        ("DISABLE_TELEMETRY", "1".into()),
        ("DISABLE_AUTOUPDATER", "1".into()),
    ];
    command.envs(vars);
    // Ctrl-C reaches the whole foreground group: the example stops its CLI and exits, and
    // this process waits for it so the server and the private directories go after it.
    let interrupted = interrupts().map_err(|err| format!("listening for Ctrl-C: {err}"))?;
    let mut child = command
        .spawn()
        .map_err(|err| format!("starting {}: {err}", example.display()))?;
    let status = tokio::select! {
        status = child.wait() => status,
        () = interrupted => child.wait().await,
    }
    .map_err(|err| format!("waiting for {}: {err}", example.display()))?;
    server.shutdown().await;
    drop(private);
    Ok(ExitCode::from(exit_code(status)))
}

/// Completes at Ctrl-C (SIGINT), listened for from the call on, so that none is missed.
#[cfg(unix)]
fn interrupts() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut interrupts = signal(SignalKind::interrupt())?;
    Ok(async move {
        interrupts.recv().await;
    })
}

/// Completes at Ctrl-C.
#[cfg(not(unix))]
fn interrupts() -> std::io::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}

/// The example's exit code, or for one a signal ended the shell's 128 + N.
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

/// The examples that have a model script and that this runner can build, sorted: `otlp`
/// only when it was built with the feature `opentelemetry` that example requires.
fn scripted_examples() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(SCRIPTS)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            name.strip_suffix(".json").map(str::to_owned)
        })
        .filter(|name| cfg!(feature = "opentelemetry") || name != "otlp")
        .collect();
    names.sort();
    names
}

/// Builds the example with cargo, in this one's profile, and returns its executable (beside
/// this one's). Under `cargo xtask test` (`TWINWIRE_PREBUILT`) every example is built already,
/// in the selection of the whole workspace, and is taken as it is.
fn build(name: &str) -> Result<PathBuf, String> {
    let own = std::env::current_exe().map_err(|err| format!("finding this example: {err}"))?;
    let dir = own
        .parent()
        .ok_or_else(|| format!("{} has no directory", own.display()))?;
    let built = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    if std::env::var_os("TWINWIRE_PREBUILT").is_some() {
        return if built.exists() {
            Ok(built)
        } else {
            Err(format!(
                "TWINWIRE_PREBUILT is set but {} is not built",
                built.display()
            ))
        };
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build.args(["build", "--quiet", "-p", "twinwire", "--example", name]);
    // With the features this runner was built with: `otlp` needs `opentelemetry`.
    if cfg!(feature = "opentelemetry") {
        build.args(["--features", "opentelemetry"]);
    }
    // target/<profile>/examples/offline
    let profile = dir.parent().and_then(Path::file_name);
    if profile.is_some_and(|profile| profile == "release") {
        build.arg("--release");
    }
    let status = build
        .status()
        .map_err(|err| format!("running cargo build: {err}"))?;
    if !status.success() {
        return Err(format!("cargo build --example {name} failed ({status})"));
    }
    Ok(built)
}
