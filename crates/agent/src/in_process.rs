//! The agent inside a host's own process: a [`Launcher`] for twinwire's `Client` and `query`
//! that, instead of starting a program, reads the command line and environment the host
//! would have given `claude` and serves the session on in-memory pipes. No child process;
//! everything else (options, callbacks, hooks, in-process MCP servers) works as with the
//! binary.
//!
//! Sessions run on a few shared threads ("shards", one per core), each a current-thread
//! runtime (as the binary does: twinwire's engine must be attached to the agent before its
//! reader first runs, which a single-threaded executor guarantees). A new session goes to the
//! shard serving the fewest. The sessions of a shard share its HTTP client: one connection
//! pool, a few idle sockets kept, not one per session. So an idle session costs no thread and
//! no file descriptor, and thousands fit in one process (`cargo xtask bench-agent`).
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
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use clap::Parser;
use tokio::sync::mpsc;
use twinwire::host::launch::{LaunchRequest, Launched, Launcher};

use crate::{Args, CodingAgent, Config};

/// The capacity of each in-memory pipe; a writer waits when the reader is this far behind.
/// (Allocated as it fills: an idle session's pipes hold nothing.)
const PIPE_BYTES: usize = 256 * 1024;
/// Idle connections to the API a shard keeps.
const IDLE_CONNECTIONS: usize = 16;
/// Shards at most, whatever the core count.
const MAX_SHARDS: usize = 16;

/// A session's work, made on the shard's thread (the serve future need not be `Send`).
type Job = Box<dyn FnOnce() -> Pin<Box<dyn Future<Output = ()>>> + Send>;

/// One thread serving many sessions.
struct Shard {
    jobs: mpsc::UnboundedSender<Job>,
    http: reqwest::Client,
    /// The sessions it serves now.
    sessions: Arc<AtomicUsize>,
}

/// Caps the Bash commands running at once across every in-process session (and any other
/// session of this process) at `max`: a command beyond it waits for one to end, first come,
/// first served, and the wait ends with the turn (an interrupt). Background jobs are not
/// counted. Call it before the first session; the first call sets the cap (false after).
/// Uncapped by default.
pub fn limit_commands(max: usize) -> bool {
    crate::tools::limit_commands(max)
}

/// Caps the model calls in flight at once across every in-process session (and any other
/// session of this process) at `max`: a call beyond it waits, first come, first served, so that
/// when the API slows, calls queue here rather than as ever more open connections. A call holds
/// its slot from the request to the reply's last event. Call it before the first session; the
/// first call sets the cap (false after). Uncapped by default.
pub fn limit_model_calls(max: usize) -> bool {
    crate::model::shared::limit_calls(max)
}

/// Shares one retry budget among every session of this process: when the API rate-limits,
/// the process retries `budget`'s tokens in all rather than each session up to its
/// `CLAUDE_CODE_MAX_RETRIES`, and a wait the API names (429 or 529 with `retry-after`) holds
/// every session's calls. The first call sets it (false after). None by default.
pub fn share_retry_budget(budget: crate::model::shared::RetryBudget) -> bool {
    crate::model::shared::share_retries(budget)
}

/// Keeps a session's conversation on disk between turns once it is larger than `bytes` (as
/// JSON), in a private file under the temporary directory, read back when the session next
/// does anything: idle sessions with long histories then hold them in files, not memory. In
/// process, [`DEFAULT_SPILL_BYTES`] unless set before the first session (the first call sets
/// it; false after).
pub fn spill_history_past(bytes: usize) -> bool {
    crate::history::spill_past(bytes)
}

/// Keeps the conversations [`spill_history_past`] sends to disk in `dir` (created `0700`)
/// rather than in `twinwire-agent-history` under the temporary directory. The first call sets
/// it (false after).
pub fn spill_history_in(dir: impl Into<std::path::PathBuf>) -> bool {
    crate::history::spill_in(dir.into())
}

/// The size past which an in-process session's conversation waits on disk, unless
/// [`spill_history_past`] set another.
pub const DEFAULT_SPILL_BYTES: usize = 256 * 1024;

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
    // Set by the first session unless the host chose first.
    crate::history::spill_past(DEFAULT_SPILL_BYTES);
    let shard = least_busy()?;
    let agent = CodingAgent::on_http(config, Some(shard.http.clone()))
        .map_err(|e| invalid(e.to_string()))?;
    let (agent_reader, host_writer) = tokio::io::duplex(PIPE_BYTES);
    let (host_reader, agent_writer) = tokio::io::duplex(PIPE_BYTES);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let sessions = Arc::clone(&shard.sessions);
    sessions.fetch_add(1, Ordering::SeqCst);
    let job: Job = Box::new(move || {
        Box::pin(async move {
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
            sessions.fetch_sub(1, Ordering::SeqCst);
        })
    });
    if shard.jobs.send(job).is_err() {
        shard.sessions.fetch_sub(1, Ordering::SeqCst);
        return Err(io::Error::other(
            "the in-process agent's thread has stopped",
        ));
    }
    Ok(Launched::new(host_reader, host_writer).on_stop(move || {
        let _ = stop.send(());
    }))
}

/// The shard serving the fewest sessions (the shards are started on first use).
fn least_busy() -> io::Result<&'static Shard> {
    static SHARDS: OnceLock<Result<Vec<Shard>, String>> = OnceLock::new();
    let shards = SHARDS.get_or_init(|| {
        let count = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(MAX_SHARDS);
        (0..count).map(start_shard).collect()
    });
    let shards = shards
        .as_ref()
        .map_err(|why| io::Error::other(why.clone()))?;
    shards
        .iter()
        .min_by_key(|shard| shard.sessions.load(Ordering::SeqCst))
        .ok_or_else(|| io::Error::other("no thread to run the agent on"))
}

/// Starts shard `index`: a thread with a current-thread runtime that runs each job it is sent
/// as a local task, for as long as the process lives.
fn start_shard(index: usize) -> Result<Shard, String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| format!("the in-process agent's runtime: {err}"))?;
    let (jobs, mut receive) = mpsc::unbounded_channel::<Job>();
    std::thread::Builder::new()
        .name(format!("twinwire-agent-{index}"))
        .spawn(move || {
            let local = tokio::task::LocalSet::new();
            local.block_on(&runtime, async move {
                while let Some(job) = receive.recv().await {
                    tokio::task::spawn_local(job());
                }
            });
        })
        .map_err(|err| format!("the in-process agent's thread: {err}"))?;
    let http = crate::model::http_client(Some(IDLE_CONNECTIONS)).map_err(|err| err.to_string())?;
    Ok(Shard {
        jobs,
        http,
        sessions: Arc::new(AtomicUsize::new(0)),
    })
}
