//! `twinwire-agent`: the agent on this process's stdin and stdout, started with Claude Code's
//! command line (see the crate docs). Logs go to stderr (`TWINWIRE_AGENT_LOG` sets the filter,
//! `--debug-to-stderr` turns on debug logs); stdout carries only the protocol.

use std::process::ExitCode;

use clap::Parser;
use twinwire_agent::{serve_stdio, Args, Config, Served};

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(if err.use_stderr() { 1 } else { 0 });
        }
    };
    if args.version {
        // What `claude -v` prints, in this agent's words; hosts read the first word.
        let line = format!("{} (twinwire-agent)\n", env!("CARGO_PKG_VERSION"));
        let _ = std::io::Write::write_all(&mut std::io::stdout(), line.as_bytes());
        return ExitCode::SUCCESS;
    }
    let default = if args.debug_to_stderr {
        "debug"
    } else {
        "warn"
    };
    let filter = std::env::var("TWINWIRE_AGENT_LOG").unwrap_or_else(|_| default.to_owned());
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
    let ignored = args.ignored();
    if !ignored.is_empty() {
        tracing::info!(flags = ?ignored, "flags of Claude Code this agent does not use");
    }
    // Commands the model writes run as this user: without this, `cat /proc/$PPID/environ`
    // would print the credentials their own environment no longer holds (a process that is
    // not dumpable has its /proc files owned by root). Children are dumpable again after exec.
    #[cfg(target_os = "linux")]
    if let Err(err) = nix::sys::prctl::set_dumpable(false) {
        tracing::warn!(%err, "this process's environment stays readable by its commands");
    }
    // What commands leave running (a `setsid` child too) stays under this process, to be
    // ended with the session.
    twinwire_agent::reaper::adopt_orphans();
    let config = match Config::from_args(&args, std::env::vars().collect()) {
        Ok(config) => config,
        Err(err) => return fail(&err.to_string()),
    };
    // One thread: the agent waits on the model and on tools (files are read on the blocking
    // pool). On a current-thread runtime twinwire's engine is attached to the agent before its
    // reader first runs, so a request written at once (initialize) finds it ready.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => return fail(&err.to_string()),
    };
    let served = runtime.block_on(serve_stdio(config));
    // A read of stdin may still wait on a blocking thread (a signal ended the session while
    // the host's input was open): the runtime is not to wait for it.
    runtime.shutdown_background();
    match served {
        Ok(Served::Ended { last_failed: false }) => ExitCode::SUCCESS,
        Ok(Served::Ended { last_failed: true }) => ExitCode::from(1),
        // As a shell reports a process a signal ended.
        Ok(Served::Stopped(signal)) => ExitCode::from(128 + signal as u8),
        Ok(_) => ExitCode::from(1),
        Err(err) => fail(&err.to_string()),
    }
}

/// Says why on stderr and exits 1, as Claude Code does for a command line it cannot run.
fn fail(message: &str) -> ExitCode {
    let _ = std::io::Write::write_all(
        &mut std::io::stderr(),
        format!("Error: {message}\n").as_bytes(),
    );
    ExitCode::from(1)
}
