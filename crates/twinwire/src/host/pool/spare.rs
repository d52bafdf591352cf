//! A spare: a CLI started and initialized ahead of the session it will serve, either started
//! with the pool's options as they are, or parked (`--await-claim`) until a claim binds it to
//! a session.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::host::launch::Launcher;
use crate::host::options::Options;
use crate::host::Client;

/// The flag that parks a CLI (Claude Code 2.1.330 and newer; older ones exit with `unknown
/// option '--await-claim'`).
pub(super) const AWAIT_CLAIM: &str = "await-claim";

/// A spare CLI and, when it is parked, where.
pub(super) struct Spare {
    pub(super) client: Client,
    /// Whether it waits for a claim.
    pub(super) parked: bool,
    /// A parking directory made for it, removed when the spare is claimed or let go.
    pub(super) parking: Option<tempfile::TempDir>,
}

impl Spare {
    /// Ends a spare no session will use, in the background (a refused claim leaves the CLI
    /// waiting for more input).
    pub(super) fn let_go(self) {
        tokio::spawn(async move {
            let _ = self.client.close().await;
            drop(self.parking);
        });
    }
}

/// Where a spare of `options` parks, and the options it starts with there; `None` when it
/// cannot park: a session that resumes, continues or forks names its session up front, and a
/// CLI run elsewhere (a prefix or custom launcher) needs `options.cwd`, a directory that exists
/// where it runs.
pub(super) fn parked_options(
    options: &Options,
) -> Result<Option<(Options, Option<tempfile::TempDir>)>> {
    if options.resume.is_some() || options.continue_conversation || options.fork_session {
        return Ok(None);
    }
    let (dir, made) = match &options.cwd {
        Some(dir) => (dir.clone(), None),
        None if matches!(options.launcher, Launcher::Local) => {
            let made = parking_directory(&spares_directory(options))?;
            (made.path().to_owned(), Some(made))
        }
        None => return Ok(None),
    };
    let parked = options
        .to_builder()
        .cwd(dir)
        .extra_arg(AWAIT_CLAIM, None::<String>)
        .build()?;
    Ok(Some((parked, made)))
}

/// Whether a CLI failed to start because it does not know `--await-claim`.
pub(super) fn refuses_await_claim(err: &Error) -> bool {
    err.stderr_tail()
        .is_some_and(|tail| tail.contains(&format!("--{AWAIT_CLAIM}")))
}

/// `spares/` under the configuration directory the CLI will use (`CLAUDE_CONFIG_DIR`, else
/// `HOME/.claude`), as the TypeScript SDK parks them; the system's temporary directory when
/// neither gives an absolute path.
fn spares_directory(options: &Options) -> PathBuf {
    let projects = options.cli_projects_dir();
    match projects.parent() {
        Some(config) if config.is_absolute() => config.join("spares"),
        _ => std::env::temp_dir().join("twinwire-spares"),
    }
}

/// A fresh directory under `base`, readable by this user only.
fn parking_directory(base: &Path) -> Result<tempfile::TempDir> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(base)?;
    Ok(tempfile::Builder::new().prefix("spare-").tempdir_in(base)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_parks_under_the_configuration_directory_it_will_use() {
        let home = tempfile::tempdir().unwrap();
        let options = Options::builder()
            .env("HOME", home.path())
            .env_remove("CLAUDE_CONFIG_DIR")
            .build()
            .unwrap();
        let (parked, made) = parked_options(&options).unwrap().unwrap();
        let made = made.unwrap();
        assert!(made.path().starts_with(home.path().join(".claude/spares")));
        assert_eq!(parked.cwd.as_deref(), Some(made.path()));
        assert!(parked.extra_args.contains(&(AWAIT_CLAIM.to_owned(), None)));
        let resuming = options.to_builder().resume("s").build().unwrap();
        assert!(parked_options(&resuming).unwrap().is_none());
    }
}
