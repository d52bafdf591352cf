//! Claude Code's sandbox for Bash (`sandbox.enabled` in the settings, or the SDKs' `sandbox`
//! option, which reaches the agent in `--settings`): the rules decide what runs, the sandbox
//! bounds what it can touch. On Linux each command runs under bubblewrap (`bwrap` on `PATH`,
//! as Claude Code finds it): the whole file system read-only, then writable again the session's
//! directories, its temporary directory, the shell's bookkeeping and `filesystem.allowWrite`;
//! `filesystem.denyWrite` read-only again over those; `filesystem.denyRead` hidden (an empty
//! directory, or `/dev/null` for a file); its own process namespace, ended with the agent.
//! Without `network.allowedDomains` the command has no network at all; with them it keeps the
//! machine's (this agent has no filtering proxy: the difference is in docs/agent.md).
//!
//! Where bubblewrap cannot be had, a command is refused when `failIfUnavailable` is set, and
//! otherwise runs unconfined with a warning, as Claude Code does.

use std::path::{Path, PathBuf};

use serde_json::Value;
use tokio::process::Command;
use twinwire::options::SandboxSettings;

/// A session's sandbox.
#[derive(Debug, Clone, PartialEq)]
pub struct Sandbox {
    settings: SandboxSettings,
    /// bubblewrap, when found.
    bwrap: Option<PathBuf>,
}

impl Sandbox {
    /// The sandbox the settings' `sandbox` block asks for; `None` when it is not enabled.
    pub fn from_settings(block: Option<&Value>) -> Option<Self> {
        let settings: SandboxSettings = serde_json::from_value(block?.clone())
            .map_err(|err| tracing::warn!(%err, "the sandbox settings do not read"))
            .ok()?;
        if settings.enabled != Some(true) {
            return None;
        }
        Some(Self {
            settings,
            bwrap: find("bwrap"),
        })
    }

    /// The command that runs `script` with bash inside the sandbox, writable only in
    /// `writable` (and what the settings add); why not, when it cannot be confined and the
    /// settings say to fail then.
    pub fn bash(&self, script: &str, writable: &[PathBuf]) -> Result<Command, String> {
        let Some(bwrap) = self.bwrap.as_ref().filter(|_| cfg!(target_os = "linux")) else {
            if self.settings.fail_if_unavailable == Some(true) {
                return Err(
                    "The sandbox is required (sandbox.failIfUnavailable) but cannot \
                            run here: bubblewrap (bwrap) was not found. The command was not \
                            run."
                        .to_owned(),
                );
            }
            tracing::warn!("the sandbox cannot run here (no bwrap): the command runs unconfined");
            let mut bash = Command::new("/bin/bash");
            bash.arg("-c").arg(script);
            return Ok(bash);
        };
        let mut command = Command::new(bwrap);
        command.args(self.arguments(writable)).arg("--");
        command.args(["/bin/bash", "-c", script]);
        Ok(command)
    }

    /// bubblewrap's arguments, in the order they take effect (a later mount wins).
    fn arguments(&self, writable: &[PathBuf]) -> Vec<String> {
        let fs = self.settings.filesystem.clone().unwrap_or_default();
        let network = self.settings.network.clone().unwrap_or_default();
        let mut args: Vec<String> = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
            .map(str::to_owned)
            .to_vec();
        args.extend(["--unshare-pid", "--die-with-parent"].map(str::to_owned));
        if network.allowed_domains.unwrap_or_default().is_empty() {
            args.push("--unshare-net".to_owned());
        }
        let extra: Vec<PathBuf> = fs
            .allow_write
            .unwrap_or_default()
            .iter()
            .map(PathBuf::from)
            .collect();
        for dir in writable.iter().chain(&extra) {
            if dir.exists() {
                let dir = dir.display().to_string();
                args.extend(["--bind".to_owned(), dir.clone(), dir]);
            }
        }
        for path in fs.deny_write.unwrap_or_default() {
            if Path::new(&path).exists() {
                args.extend(["--ro-bind".to_owned(), path.clone(), path]);
            }
        }
        for path in fs.deny_read.unwrap_or_default() {
            let target = Path::new(&path);
            if target.is_dir() {
                args.extend(["--tmpfs".to_owned(), path]);
            } else if target.exists() {
                args.extend(["--ro-bind".to_owned(), "/dev/null".to_owned(), path]);
            }
        }
        args
    }
}

/// `name` on `PATH`.
fn find(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_an_enabled_sandbox_is_one() {
        assert!(Sandbox::from_settings(None).is_none());
        assert!(Sandbox::from_settings(Some(&json!({"enabled": false}))).is_none());
        assert!(Sandbox::from_settings(Some(&json!({"enabled": true}))).is_some());
    }

    #[test]
    fn the_file_system_is_read_only_but_for_what_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        let secret = work.join("secret");
        std::fs::create_dir_all(&secret).unwrap();
        let sandbox = Sandbox::from_settings(Some(&json!({"enabled": true,
            "filesystem": {"denyRead": [secret.display().to_string()]}})))
        .unwrap();
        let args = sandbox.arguments(std::slice::from_ref(&work));
        let text = args.join(" ");
        assert!(text.starts_with("--ro-bind / / "), "{text}");
        assert!(text.contains("--unshare-net"), "{text}");
        let work = work.display().to_string();
        assert!(text.contains(&format!("--bind {work} {work}")), "{text}");
        assert!(
            text.ends_with(&format!("--tmpfs {}", secret.display())),
            "{text}"
        );
        let open = Sandbox::from_settings(Some(&json!({"enabled": true,
            "network": {"allowedDomains": ["example.com"]}})))
        .unwrap();
        assert!(!open.arguments(&[]).contains(&"--unshare-net".to_owned()));
    }

    #[test]
    fn without_bubblewrap_a_required_sandbox_refuses() {
        let mut sandbox =
            Sandbox::from_settings(Some(&json!({"enabled": true, "failIfUnavailable": true})))
                .unwrap();
        sandbox.bwrap = None;
        assert!(sandbox.bash("true", &[]).is_err());
        sandbox.settings.fail_if_unavailable = None;
        assert!(sandbox.bash("true", &[]).is_ok());
    }
}
