//! The agent inside a host's own process: a [`Launcher`] for twinwire's `Client` and `query`
//! that, instead of starting a program, reads the command line and environment the host
//! would have given `claude` and serves the session on in-memory pipes. No child process;
//! everything else (options, callbacks, hooks, in-process MCP servers) works as with the
//! binary. Each session runs on a thread of its own with a current-thread runtime (as the
//! binary does: twinwire's engine must be attached to the agent before its reader first runs).
//!
//! ```no_run
//! # async fn demo() -> twinwire::Result<()> {
//! let options = twinwire::Options::builder()
//!     .launcher(twinwire_agent::in_process::launcher())
//!     .build()?;
//! let client = twinwire::Client::connect(options).await?;
//! # Ok(()) }
//! ```

use std::collections::BTreeMap;
use std::io;

use clap::Parser;
use twinwire::host::launch::{LaunchRequest, Launched, Launcher};

use crate::{Args, CodingAgent, Config};

/// The capacity of each in-memory pipe; a writer waits when the reader is this far behind.
const PIPE_BYTES: usize = 256 * 1024;

/// A launcher that runs the agent in this process (see the module docs).
pub fn launcher() -> Launcher {
    Launcher::custom(|request: LaunchRequest| async move { launch(request) })
}

fn launch(request: LaunchRequest) -> io::Result<Launched> {
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidInput, why);
    let args = Args::try_parse_from(request.argv.iter().cloned())
        .map_err(|err| invalid(err.to_string()))?;
    // The host's environment, then what the options set or remove (the variables a host
    // passes through a launcher are only those Claude Code reads).
    let mut env: BTreeMap<String, String> = std::env::vars().collect();
    for (key, value) in &request.env {
        match value {
            Some(value) => env.insert(key.clone(), value.clone()),
            None => env.remove(key),
        };
    }
    let cwd = match &request.cwd {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    let config = Config::from_args_in(&args, env, cwd).map_err(|e| invalid(e.to_string()))?;
    let agent = CodingAgent::new(config).map_err(|e| invalid(e.to_string()))?;
    let (agent_reader, host_writer) = tokio::io::duplex(PIPE_BYTES);
    let (host_reader, agent_writer) = tokio::io::duplex(PIPE_BYTES);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("twinwire-agent".into())
        .spawn(move || {
            runtime.block_on(async move {
                tokio::select! {
                    served = agent.serve(agent_reader, agent_writer) => {
                        if let Err(err) = served {
                            tracing::warn!(%err, "the in-process agent stopped");
                        }
                    }
                    // The host stopped the session: dropping the serve future ends it (and
                    // kills a running Bash command's processes).
                    _ = stopped => {}
                }
            });
        })?;
    Ok(Launched::new(host_reader, host_writer).on_stop(move || {
        let _ = stop.send(());
    }))
}
