//! Whether a host answers: the [`Probe`] trait, and [`CommandProbe`], which runs `true` through
//! a prefix launcher (for `ssh`, a login and a command: the host, its sshd and its shell work).

use std::future::Future;
use std::pin::Pin;
use std::process::Stdio;
use std::time::Duration;

use crate::host::launch::{CommandPrefix, Launcher};

/// The answer of a probe: `Err` says why the host is down.
pub type ProbeFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// Checks one host. The fleet calls it every health interval, at once when a session on the
/// host is lost or cannot start there, and bounds it with its probe time limit (a probe that
/// does not answer in time counts as failed).
pub trait Probe: Send + Sync + 'static {
    /// `Ok` when the host can run sessions.
    fn probe(&self) -> ProbeFuture<'_>;
}

/// Runs `true` on the far side of a prefix launcher; healthy when it exits 0.
#[derive(Debug, Clone)]
pub struct CommandProbe {
    prefix: CommandPrefix,
}

impl CommandProbe {
    /// A probe through `prefix`.
    pub fn new(prefix: CommandPrefix) -> Self {
        Self { prefix }
    }
}

impl Probe for CommandProbe {
    fn probe(&self) -> ProbeFuture<'_> {
        Box::pin(async move {
            let output = tokio::process::Command::new(&self.prefix.argv[0])
                .args(self.prefix.args_running(vec!["true".into()]))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .kill_on_drop(true)
                .output()
                .await
                .map_err(|err| format!("cannot run the launcher's program: {err}"))?;
            if output.status.success() {
                return Ok(());
            }
            let stderr = String::from_utf8_lossy(&output.stderr);
            let last = stderr.lines().last().unwrap_or_default().trim();
            Err(format!("the probe ended with {}: {last}", output.status))
        })
    }
}

/// A host on this machine, or one reached by code the fleet does not know: always healthy
/// unless its sessions say otherwise (a custom launcher should come with a probe of its own).
pub(super) struct AlwaysUp;

impl Probe for AlwaysUp {
    fn probe(&self) -> ProbeFuture<'_> {
        Box::pin(async { Ok(()) })
    }
}

/// The probe a host gets when none is given.
pub(super) fn default_probe(launcher: &Launcher) -> std::sync::Arc<dyn Probe> {
    match launcher {
        Launcher::Prefix(prefix) => std::sync::Arc::new(CommandProbe::new(prefix.clone())),
        _ => std::sync::Arc::new(AlwaysUp),
    }
}

/// Runs `probe` within `limit`.
pub(super) async fn check(probe: &dyn Probe, limit: Duration) -> Result<(), String> {
    match tokio::time::timeout(limit, probe.probe()).await {
        Ok(answer) => answer,
        Err(_) => Err(format!("no answer in {limit:?}")),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_prefix_that_runs_true_is_healthy_and_one_that_fails_or_hangs_is_not() {
        let up = CommandProbe::new(CommandPrefix::new(["env"]).unwrap());
        assert_eq!(check(&up, Duration::from_secs(10)).await, Ok(()));
        let down = CommandProbe::new(CommandPrefix::new(["false"]).unwrap());
        assert!(check(&down, Duration::from_secs(10)).await.is_err());
        let hangs =
            CommandProbe::new(CommandPrefix::new(["sh", "-c", "exec sleep 30", "sh"]).unwrap());
        let err = check(&hangs, Duration::from_millis(200)).await.unwrap_err();
        assert!(err.contains("no answer"), "{err}");
    }
}
