//! `twinwire install-claude`: Claude Code from the npm registry into twinwire's cache, where
//! `run`, `chat`, `tap` and the library find it when it is not on `PATH`.

use std::io::Write;

use anyhow::Context as _;
use twinwire::install::{Installer, CLAUDE_CODE_VERSION};

/// Arguments of `twinwire install-claude`.
#[derive(Debug, clap::Args)]
pub struct InstallArgs {
    /// The version to install (2.1.113 or newer: the native builds).
    #[arg(long, default_value = CLAUDE_CODE_VERSION)]
    version: String,
}

/// Installs the version (or finds it in the cache), says so on stderr and prints the
/// executable's path on stdout.
pub fn run(args: &InstallArgs, out: &mut impl Write) -> anyhow::Result<bool> {
    let installer = Installer::new().version(&args.version);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let target = installer.target_dir()?;
    let mut stderr = std::io::stderr().lock();
    writeln!(
        stderr,
        "Claude Code {} into {} (registry {})",
        args.version,
        target.display(),
        installer.registry_url()
    )?;
    let installed = runtime.block_on(installer.install())?;
    let how = if installed.downloaded {
        "downloaded, integrity and --version checked"
    } else {
        "already installed"
    };
    writeln!(stderr, "claude {}: {how}", installed.version)?;
    writeln!(out, "{}", installed.path.display())?;
    Ok(true)
}
