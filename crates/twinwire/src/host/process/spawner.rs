//! Linux: every CLI is forked from one thread that lives as long as the process.
//!
//! The parent-death signal (`PR_SET_PDEATHSIG`) that makes a CLI die with its host fires when
//! the *thread* that forked the CLI ends, not the process. A `Client` created on a thread that
//! later ends (a `spawn_blocking` closure, a short-lived thread with its own runtime) would
//! have its CLI killed mid-session. So the fork happens on this thread, which is started on
//! first use and never ends: the CLI dies with the host process, and only then. The child is
//! still registered with the caller's runtime (its pipes and exit status), which is entered
//! around the fork.

use std::io;
use std::sync::{mpsc, Mutex, OnceLock};

use tokio::process::{Child, Command};

use crate::engine::lock;

type Job = Box<dyn FnOnce() + Send>;

static JOBS: OnceLock<Mutex<Option<mpsc::Sender<Job>>>> = OnceLock::new();

/// Spawns `command` from the spawner thread, registered with the current runtime.
pub(crate) async fn spawn(mut command: Command) -> io::Result<Child> {
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _entered = handle.enter();
        let _ = tx.send(command.spawn());
    });
    submit(job)?;
    rx.await
        .map_err(|_| io::Error::other("the spawner thread stopped before starting the CLI"))?
}

fn submit(job: Job) -> io::Result<()> {
    let jobs = JOBS.get_or_init(|| Mutex::new(start()));
    let jobs = lock(jobs);
    let sender = jobs
        .as_ref()
        .ok_or_else(|| io::Error::other("could not start the spawner thread"))?;
    sender
        .send(job)
        .map_err(|_| io::Error::other("the spawner thread is gone"))
}

fn start() -> Option<mpsc::Sender<Job>> {
    let (tx, rx) = mpsc::channel::<Job>();
    let started = std::thread::Builder::new()
        .name("twinwire-spawner".to_owned())
        .spawn(move || {
            for job in rx {
                // A job only forks; should it panic, the thread lives on for the next one.
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
        });
    match started {
        Ok(_) => Some(tx),
        Err(err) => {
            tracing::warn!(%err, "could not start the thread that starts CLIs");
            None
        }
    }
}
